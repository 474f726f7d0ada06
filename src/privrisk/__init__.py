"""privrisk: how much risk does a release of statistics about people carry?

The public API. Everything not re-exported here is internal and may change.

Example:
    >>> import privrisk
    >>> round(privrisk.two_worlds(1.0), 3)
    0.731
"""

from __future__ import annotations

from privrisk._validation import parse_epsilon
from privrisk.audit.intruder import (
    AuditResult,
    DerivedScale,
    audit_data_dependent,
    audit_sweep,
    data_dependent_sensitivity,
    derived_scale,
    leave_one_out,
)
from privrisk.empirical.density import (
    DENSITIES,
    default_k,
    density_curve,
    gaussian_shift_delta,
    hockey_stick_delta,
    knn_bandwidths,
)
from privrisk.empirical.measure import (
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
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from privrisk.io.data import MissingCodes, NumericColumn, parse_missing, read_column, read_table
from privrisk.io.engine import ENGINES, spark_session
from privrisk.posterior import (
    AttackResult,
    exact_risk,
    expected_success,
    lee_clifton_bound,
    simulate_attack,
    tight_epsilon,
    world_posterior,
    worlds,
)
from privrisk.presence.hierarchy import Hierarchy, build_hierarchy
from privrisk.presence.kmap import kmap_derived_k, population_uniqueness
from privrisk.presence.measures import (
    PresenceResult,
    SearchResult,
    delta_presence,
    prepare_presence,
    release_table,
    search_generalisation,
)
from privrisk.release.ledger import read_ledger, spent_epsilon
from privrisk.release.mechanisms import (
    Release,
    ReleaseQuery,
    ReleaseSpec,
    composed_epsilon,
    laplace_mechanism,
    noise_interval,
    noise_scale,
    noisy_release,
    public_statement,
    read_release_spec,
)
from privrisk.reports.explain import explainer_numbers, explainer_page
from privrisk.reports.html import report_page
from privrisk.risk import (
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
from privrisk.sensitivity import (
    QUERIES,
    Universe,
    evaluate,
    global_sensitivity,
    local_sensitivity,
    sensitivity_ratio,
)
from privrisk.study.attack import study_attack
from privrisk.study.sampling import (
    sample_sizes,
    sampling_study,
    study_proportions,
    study_samples,
    study_summary,
)

__version__ = "0.1.0"

__all__ = [
    "DENSITIES",
    "EMPIRICAL_QUERIES",
    "ENGINES",
    "QUERIES",
    "AttackResult",
    "AuditResult",
    "DerivedScale",
    "EmpiricalPrivacy",
    "Hierarchy",
    "MissingCodes",
    "NumericColumn",
    "PresenceResult",
    "PrivacyLeakWarning",
    "PrivriskError",
    "Release",
    "ReleaseQuery",
    "ReleaseSpec",
    "SearchResult",
    "ThresholdExceeded",
    "Universe",
    "__version__",
    "audit_data_dependent",
    "audit_sweep",
    "build_hierarchy",
    "chicago_clean",
    "chicago_like",
    "composed_epsilon",
    "data_dependent_sensitivity",
    "default_k",
    "delta_presence",
    "density_curve",
    "derived_scale",
    "describe",
    "empirical_privacy",
    "empirical_privacy_of",
    "epsilon_for_risk",
    "evaluate",
    "exact_risk",
    "expected_success",
    "explainer_numbers",
    "explainer_page",
    "gaussian_shift_delta",
    "global_leak",
    "global_risk",
    "global_sensitivity",
    "hockey_stick_delta",
    "joint_hockey_stick_delta",
    "kmap_derived_k",
    "knn_bandwidths",
    "laplace_mechanism",
    "leak",
    "leave_one_out",
    "lee_clifton_bound",
    "ljung_box",
    "local_sensitivity",
    "many_worlds",
    "natural_frequency",
    "noise_interval",
    "noise_scale",
    "noisy_release",
    "parse_epsilon",
    "parse_missing",
    "population_uniqueness",
    "posterior_bound",
    "prepare_presence",
    "public_statement",
    "randomized_response",
    "read_column",
    "read_ledger",
    "read_release_spec",
    "read_table",
    "release_table",
    "report_page",
    "risk_table",
    "rolling_privacy",
    "sample_sizes",
    "sampling_study",
    "search_generalisation",
    "sensitivity_ratio",
    "simulate_attack",
    "smallest_noise",
    "spark_session",
    "spent_epsilon",
    "study_attack",
    "study_proportions",
    "study_samples",
    "study_summary",
    "tight_epsilon",
    "total_risk",
    "two_worlds",
    "world_posterior",
    "worlds",
]
