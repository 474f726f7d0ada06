"""privrisk: how much risk does a release of statistics about people carry?

The public API. Everything not re-exported here is internal and may change.

Example:
    >>> import privrisk
    >>> round(privrisk.two_worlds(1.0), 3)
    0.731
"""

from __future__ import annotations

from ._epsilon import parse_epsilon
from ._kmap_estimates import kmap_derived_k, population_uniqueness
from .data import MissingCodes, NumericColumn, parse_missing, read_column, read_table
from .errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from .hierarchy import Hierarchy, build_hierarchy
from .presence import (
    PresenceResult,
    SearchResult,
    delta_presence,
    prepare_presence,
    release_table,
    search_generalisation,
)
from .risk import (
    describe,
    epsilon_for_risk,
    global_leak,
    global_risk,
    leak,
    many_worlds,
    natural_frequency,
    posterior_bound,
    randomized_response,
    risk_table,
    two_worlds,
)
from .sensitivity import QUERIES, Universe, evaluate, global_sensitivity, local_sensitivity, sensitivity_ratio

__version__ = "0.1.0"

__all__ = [
    "QUERIES",
    "Hierarchy",
    "MissingCodes",
    "NumericColumn",
    "PresenceResult",
    "PrivacyLeakWarning",
    "PrivriskError",
    "SearchResult",
    "ThresholdExceeded",
    "Universe",
    "__version__",
    "build_hierarchy",
    "delta_presence",
    "describe",
    "epsilon_for_risk",
    "evaluate",
    "global_leak",
    "global_risk",
    "global_sensitivity",
    "kmap_derived_k",
    "leak",
    "local_sensitivity",
    "many_worlds",
    "natural_frequency",
    "parse_epsilon",
    "parse_missing",
    "population_uniqueness",
    "posterior_bound",
    "prepare_presence",
    "randomized_response",
    "read_column",
    "read_table",
    "release_table",
    "risk_table",
    "search_generalisation",
    "sensitivity_ratio",
    "two_worlds",
]
