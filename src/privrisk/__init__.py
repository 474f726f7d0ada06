"""privrisk: how much risk does a release of statistics about people carry?

The curated public API is listed in ``__all__``, grouped below; every other public name lives in its subpackage:

- :mod:`privrisk.risk`, :mod:`privrisk.sensitivity`, :mod:`privrisk.posterior`: ε → risk, exact global and local
  sensitivities, the Lee–Clifton attacker (the ground floor: arrays in, arrays out);
- :mod:`privrisk.accounting`: any guarantee ((ε, δ), zCDP, Gaussian and Rényi DP, real mechanisms, composition,
  subsampling, groups) as the risks of a membership attack and of singling out;
- :mod:`privrisk.study`: the sampling study of Allmann et al. (2024), its attack and report;
- :mod:`privrisk.presence`: δ-presence, k-anonymity, k-map, hierarchies, the lattice search, k-map estimates;
- :mod:`privrisk.microdata`: the re-identification risk of a sample file with weights (sdcMicro, ARX, SUDA);
- :mod:`privrisk.audit`: the intruder's audit of data-dependent noise and derived queries (Sarathy and
  Muralidhar 2009);
- :mod:`privrisk.empirical`: empirical differential privacy (Burchard and Daoud) and its densities;
- :mod:`privrisk.release`: noisy releases (OpenDP), specifications, the ledger, public statements;
- :mod:`privrisk.outputs`: output checking: each table or model by a centre's rules (ACRO's policy), and what all
  outputs released so far reveal together (differencing by linear programming);
- :mod:`privrisk.io`: reading files, the DuckDB and Spark engines, writing outputs whole;
- :mod:`privrisk.reports`: HTML pages, manifests, the explainer page, figures;
- :mod:`privrisk.datasets`: demo and synthetic data;
- :mod:`privrisk.cli`: the ``privrisk`` command (thin: parse, call, print).

Names are imported when first used, so ``import privrisk`` is quick and a command pays only for what it needs.
Names that earlier versions exported at the top level (``privrisk.chicago_like``, ``privrisk.kmap_derived_k``, …)
still work.

Example:
    >>> import privrisk
    >>> round(privrisk.two_worlds(1.0), 3)
    0.731
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from privrisk._version import __version__

if TYPE_CHECKING:
    from privrisk._validation import parse_epsilon
    from privrisk.accounting import (
        Calibration,
        Guarantee,
        MembershipRisk,
        approximate_dp,
        calibrate,
        compose,
        gaussian_dp,
        gaussian_mechanism,
        group,
        membership_risk,
        pure_dp,
        reconstruction_risk,
        renyi_dp,
        risk_summary,
        subsample,
        tpr_at_fpr,
        worst_case,
        zcdp,
    )
    from privrisk.audit import (
        AuditResult,
        DerivedScale,
        audit_data_dependent,
        audit_sweep,
        data_dependent_sensitivity,
        derived_scale,
        leave_one_out,
    )
    from privrisk.empirical import (
        DENSITIES,
        EMPIRICAL_QUERIES,
        EmpiricalPrivacy,
        chicago_clean,
        chicago_like,
        default_k,
        density_curve,
        empirical_privacy,
        empirical_privacy_of,
        gaussian_shift_delta,
        hockey_stick_delta,
        joint_hockey_stick_delta,
        knn_bandwidths,
        ljung_box,
        rolling_privacy,
        smallest_noise,
        total_risk,
    )
    from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
    from privrisk.io import (
        ENGINES,
        MissingCodes,
        NumericColumn,
        parse_missing,
        read_column,
        read_table,
        spark_session,
    )
    from privrisk.microdata import MicrodataSettings, measure_microdata
    from privrisk.outputs import OutputsResult, OutputsSettings, check_outputs
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
    from privrisk.presence import (
        Hierarchy,
        PresenceResult,
        SearchResult,
        build_hierarchy,
        delta_presence,
        kmap_derived_k,
        population_uniqueness,
        prepare_presence,
        release_table,
        search_generalisation,
    )
    from privrisk.release import (
        Release,
        ReleaseQuery,
        ReleaseSpec,
        composed_epsilon,
        laplace_mechanism,
        noise_interval,
        noise_scale,
        noisy_release,
        public_statement,
        read_ledger,
        read_release_spec,
        spent_epsilon,
    )
    from privrisk.reports import explainer_numbers, explainer_page, report_page
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
    from privrisk.study import (
        sample_sizes,
        sampling_study,
        study_attack,
        study_proportions,
        study_samples,
        study_summary,
    )

# The curated API, by capability.
__all__ = [
    # ε → risk (Lee and Clifton 2011; Mehner et al. 2021)
    "many_worlds",
    "two_worlds",
    "global_risk",
    "global_leak",
    "leak",
    "epsilon_for_risk",
    "describe",
    "risk_table",
    # Any guarantee as risk: (ε, δ), zCDP, Gaussian and Rényi DP, mechanisms, composition (privrisk.accounting)
    "Guarantee",
    "pure_dp",
    "approximate_dp",
    "zcdp",
    "gaussian_dp",
    "renyi_dp",
    "gaussian_mechanism",
    "compose",
    "subsample",
    "group",
    "worst_case",
    "membership_risk",
    "MembershipRisk",
    "tpr_at_fpr",
    "reconstruction_risk",
    "risk_summary",
    "calibrate",
    "Calibration",
    # Sensitivity over a data universe (Allmann et al. 2024)
    "QUERIES",
    "Universe",
    "global_sensitivity",
    "local_sensitivity",
    "sensitivity_ratio",
    # The Lee–Clifton attacker on real data
    "worlds",
    "exact_risk",
    "simulate_attack",
    "tight_epsilon",
    # The sampling study
    "sampling_study",
    "study_summary",
    "study_attack",
    # δ-presence, k-anonymity, k-map
    "delta_presence",
    "search_generalisation",
    "build_hierarchy",
    "Hierarchy",
    # Microdata files: sdcMicro's, ARX's and SUDA's measures with weights
    "MicrodataSettings",
    "measure_microdata",
    # The intruder's audit
    "audit_data_dependent",
    "derived_scale",
    "leave_one_out",
    # Empirical DP
    "empirical_privacy",
    "hockey_stick_delta",
    "rolling_privacy",
    # Releases
    "noisy_release",
    "read_release_spec",
    "public_statement",
    "read_ledger",
    # Output checking: each output by a centre's rules, and all together (privrisk.outputs)
    "check_outputs",
    "OutputsSettings",
    "OutputsResult",
    # Pages for people
    "explainer_page",
    "report_page",
    # Data
    "read_column",
    "read_table",
    # Errors and warnings
    "PrivriskError",
    "ThresholdExceeded",
    "PrivacyLeakWarning",
    "__version__",
]

# Where each name lives: the curated ones and those earlier versions exported here.
_HOMES: dict[str, str] = {
    "check_outputs": "privrisk.outputs",
    "OutputsSettings": "privrisk.outputs",
    "OutputsResult": "privrisk.outputs",
    "Guarantee": "privrisk.accounting",
    "pure_dp": "privrisk.accounting",
    "approximate_dp": "privrisk.accounting",
    "zcdp": "privrisk.accounting",
    "gaussian_dp": "privrisk.accounting",
    "renyi_dp": "privrisk.accounting",
    "gaussian_mechanism": "privrisk.accounting",
    "compose": "privrisk.accounting",
    "subsample": "privrisk.accounting",
    "group": "privrisk.accounting",
    "worst_case": "privrisk.accounting",
    "membership_risk": "privrisk.accounting",
    "MembershipRisk": "privrisk.accounting",
    "tpr_at_fpr": "privrisk.accounting",
    "reconstruction_risk": "privrisk.accounting",
    "risk_summary": "privrisk.accounting",
    "calibrate": "privrisk.accounting",
    "Calibration": "privrisk.accounting",
    "AttackResult": "privrisk.posterior",
    "MicrodataSettings": "privrisk.microdata",
    "measure_microdata": "privrisk.microdata",
    "audit_data_dependent": "privrisk.audit",
    "audit_sweep": "privrisk.audit",
    "AuditResult": "privrisk.audit",
    "build_hierarchy": "privrisk.presence",
    "chicago_clean": "privrisk.datasets",
    "chicago_like": "privrisk.datasets",
    "composed_epsilon": "privrisk.release",
    "data_dependent_sensitivity": "privrisk.audit",
    "default_k": "privrisk.empirical",
    "delta_presence": "privrisk.presence",
    "DENSITIES": "privrisk.empirical",
    "density_curve": "privrisk.empirical",
    "derived_scale": "privrisk.audit",
    "DerivedScale": "privrisk.audit",
    "describe": "privrisk.risk",
    "empirical_privacy": "privrisk.empirical",
    "empirical_privacy_of": "privrisk.empirical",
    "EMPIRICAL_QUERIES": "privrisk.empirical",
    "EmpiricalPrivacy": "privrisk.empirical",
    "ENGINES": "privrisk.io",
    "epsilon_for_risk": "privrisk.risk",
    "evaluate": "privrisk.sensitivity",
    "exact_risk": "privrisk.posterior",
    "expected_success": "privrisk.posterior",
    "explainer_numbers": "privrisk.reports",
    "explainer_page": "privrisk.reports",
    "gaussian_shift_delta": "privrisk.empirical",
    "global_leak": "privrisk.risk",
    "global_risk": "privrisk.risk",
    "global_sensitivity": "privrisk.sensitivity",
    "Hierarchy": "privrisk.presence",
    "hockey_stick_delta": "privrisk.empirical",
    "joint_hockey_stick_delta": "privrisk.empirical",
    "kmap_derived_k": "privrisk.presence",
    "knn_bandwidths": "privrisk.empirical",
    "laplace_mechanism": "privrisk.release",
    "leak": "privrisk.risk",
    "leave_one_out": "privrisk.audit",
    "lee_clifton_bound": "privrisk.posterior",
    "ljung_box": "privrisk.empirical",
    "local_sensitivity": "privrisk.sensitivity",
    "many_worlds": "privrisk.risk",
    "MissingCodes": "privrisk.io",
    "natural_frequency": "privrisk.risk",
    "noise_interval": "privrisk.release",
    "noise_scale": "privrisk.release",
    "noisy_release": "privrisk.release",
    "NumericColumn": "privrisk.io",
    "parse_epsilon": "privrisk._validation",
    "parse_missing": "privrisk.io",
    "population_uniqueness": "privrisk.presence",
    "posterior_bound": "privrisk.risk",
    "prepare_presence": "privrisk.presence",
    "PresenceResult": "privrisk.presence",
    "PrivacyLeakWarning": "privrisk.errors",
    "PrivriskError": "privrisk.errors",
    "public_statement": "privrisk.release",
    "QUERIES": "privrisk.sensitivity",
    "randomized_response": "privrisk.risk",
    "read_column": "privrisk.io",
    "read_ledger": "privrisk.release",
    "read_release_spec": "privrisk.release",
    "read_table": "privrisk.io",
    "Release": "privrisk.release",
    "release_table": "privrisk.presence",
    "ReleaseQuery": "privrisk.release",
    "ReleaseSpec": "privrisk.release",
    "report_page": "privrisk.reports",
    "risk_table": "privrisk.risk",
    "rolling_privacy": "privrisk.empirical",
    "sample_sizes": "privrisk.study",
    "sampling_study": "privrisk.study",
    "search_generalisation": "privrisk.presence",
    "SearchResult": "privrisk.presence",
    "sensitivity_ratio": "privrisk.sensitivity",
    "simulate_attack": "privrisk.posterior",
    "smallest_noise": "privrisk.empirical",
    "spark_session": "privrisk.io",
    "spent_epsilon": "privrisk.release",
    "study_attack": "privrisk.study",
    "study_proportions": "privrisk.study",
    "study_samples": "privrisk.study",
    "study_summary": "privrisk.study",
    "ThresholdExceeded": "privrisk.errors",
    "tight_epsilon": "privrisk.posterior",
    "total_risk": "privrisk.empirical",
    "two_worlds": "privrisk.risk",
    "Universe": "privrisk.sensitivity",
    "world_posterior": "privrisk.posterior",
    "worlds": "privrisk.posterior",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'privrisk' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
