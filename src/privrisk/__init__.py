"""privrisk: how much risk does a release of statistics about people carry?

The public API. Everything not re-exported here is internal and may change.

Example:
    >>> import privrisk
    >>> round(privrisk.two_worlds(1.0), 3)
    0.731
"""

from __future__ import annotations

from ._epsilon import parse_epsilon
from .data import MissingCodes, NumericColumn, parse_missing, read_column, read_table
from .errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
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
from .study import sample_sizes, sampling_study, study_proportions, study_samples, study_summary

__version__ = "0.1.0"

__all__ = [
    "QUERIES",
    "MissingCodes",
    "NumericColumn",
    "PrivacyLeakWarning",
    "PrivriskError",
    "ThresholdExceeded",
    "Universe",
    "__version__",
    "describe",
    "epsilon_for_risk",
    "evaluate",
    "global_leak",
    "global_risk",
    "global_sensitivity",
    "leak",
    "local_sensitivity",
    "many_worlds",
    "natural_frequency",
    "parse_epsilon",
    "parse_missing",
    "posterior_bound",
    "randomized_response",
    "read_column",
    "read_table",
    "risk_table",
    "sample_sizes",
    "sampling_study",
    "sensitivity_ratio",
    "study_proportions",
    "study_samples",
    "study_summary",
    "two_worlds",
]
