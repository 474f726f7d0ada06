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
from .density import (
    DENSITIES,
    default_k,
    density_curve,
    gaussian_shift_delta,
    hockey_stick_delta,
    knn_bandwidths,
)
from .empirical import (
    EMPIRICAL_QUERIES,
    EmpiricalPrivacy,
    chicago_clean,
    chicago_like,
    empirical_privacy,
    empirical_privacy_of,
    ljung_box,
    rolling_privacy,
    smallest_noise,
    total_risk,
)
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

__version__ = "0.1.0"

__all__ = [
    "DENSITIES",
    "EMPIRICAL_QUERIES",
    "QUERIES",
    "EmpiricalPrivacy",
    "MissingCodes",
    "NumericColumn",
    "PrivacyLeakWarning",
    "PrivriskError",
    "ThresholdExceeded",
    "Universe",
    "__version__",
    "chicago_clean",
    "chicago_like",
    "default_k",
    "density_curve",
    "describe",
    "empirical_privacy",
    "empirical_privacy_of",
    "epsilon_for_risk",
    "evaluate",
    "gaussian_shift_delta",
    "global_leak",
    "global_risk",
    "global_sensitivity",
    "hockey_stick_delta",
    "joint_hockey_stick_delta",
    "knn_bandwidths",
    "leak",
    "ljung_box",
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
    "rolling_privacy",
    "sensitivity_ratio",
    "smallest_noise",
    "total_risk",
    "two_worlds",
]
