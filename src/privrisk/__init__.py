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
- :mod:`privrisk.synthetic`: the disclosure risk of a synthetic file (singling out, linkability, inference,
  membership inference) beside the generator's own guarantee;
- :mod:`privrisk.ledger`: the one ledger of everything released (releases and outputs), hash-chained and locked;
- :mod:`privrisk.io`: reading files, the DuckDB and Spark engines, writing outputs whole;
- :mod:`privrisk.reports`: HTML pages, manifests, the explainer page, figures;
- :mod:`privrisk.datasets`: demo and synthetic data;
- :mod:`privrisk.cli`: the ``privrisk`` command (thin: parse, call, print).

Names are imported when first used, so ``import privrisk`` is quick and a command pays only for what it needs.
Names that earlier versions exported at the top level (``privrisk.chicago_like``, ``privrisk.kmap_derived_k``, …)
still work; renamed ones (``privrisk.laplace_mechanism``, now :func:`sample_laplace`) warn with a
``DeprecationWarning`` for one release.

The ``if TYPE_CHECKING:`` imports below are the one list of these names: type checkers read them as imports, and
``__all__`` and the lazy imports are read from them (with :mod:`ast`, the first time a name is asked for).

Example:
    >>> import privrisk
    >>> round(privrisk.two_worlds(1.0), 3)
    0.731
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from privrisk._version import __version__

# isort: off
if TYPE_CHECKING:
    # The curated API, by capability (``__all__``, in this order: not sorted).
    # ε → risk (Lee and Clifton 2011; Mehner et al. 2021)
    from privrisk.risk import (
        many_worlds,
        two_worlds,
        global_risk,
        global_leak,
        leak,
        epsilon_for_risk,
        describe,
        risk_table,
    )
    from privrisk.accounting.risk_report import RiskSettings, RiskRun, run_risk, EpsilonSettings, run_epsilon

    # Any guarantee as risk: (ε, δ), zCDP, Gaussian and Rényi DP, mechanisms, composition (privrisk.accounting)
    from privrisk.accounting import (
        Guarantee,
        pure_dp,
        approximate_dp,
        zcdp,
        gaussian_dp,
        renyi_dp,
        laplace_guarantee,
        gaussian_guarantee,
        randomised_response_guarantee,
        compose,
        subsample,
        group,
        worst_case,
        membership_risk,
        MembershipRisk,
        tpr_at_fpr,
        reconstruction_risk,
        risk_summary,
        calibrate,
        Calibration,
    )
    from privrisk.accounting.calibration_settings import CalibrationSettings, CalibrationRun, run_calibration

    # Census methods as guarantees: cell-key perturbation, PRAM, rounding, the deployments registry (issue 35)
    from privrisk.accounting.cellkey_run import CellKeySettings, CellKeyRun, run_cell_key
    from privrisk.accounting.cellkey import (
        PerturbationTable,
        perturbation_table,
        additive_noise_table,
        truncated_discrete_laplace,
        cell_key_guarantee,
        cell_key_release,
        independent_cell_keys,
    )
    from privrisk.accounting.perturbation_files import read_perturbation_table
    from privrisk.accounting.pram import pram_guarantee, pram_epsilon, read_pram_matrices
    from privrisk.accounting.rounding import randomised_rounding_guarantee, deterministic_rounding
    from privrisk.accounting.registry import registry_guarantee, registry_risk, read_registry_entry
    from privrisk.accounting.registry import stated_conversions
    from privrisk.accounting.census_facts import census_facts
    from privrisk.release.registry import (
        RegistryExportSettings,
        export_registry,
        guarantee_receipt,
        ReceiptFacts,
    )
    from privrisk.reports.census_words import cell_key_words, census_paragraph

    # Sensitivity over a data universe (Allmann et al. 2024)
    from privrisk.sensitivity import (
        QUERIES,
        Universe,
        global_sensitivity,
        local_sensitivity,
        sensitivity_ratio,
    )

    # The Lee–Clifton attacker on real data
    from privrisk.posterior import worlds, exact_risk, simulate_attack, tight_epsilon
    from privrisk.attack import AttackSettings, AttackRun, run_attack

    # The sampling study
    from privrisk.study import sampling_study, study_summary, study_attack

    # δ-presence, k-anonymity, k-map: the command's one way in (settings checked once, a run), then the parts
    from privrisk.presence import PresenceSettings, PresenceRun, run_presence
    from privrisk.presence import delta_presence, search_generalisation, build_hierarchy, Hierarchy

    # Microdata files: sdcMicro's, ARX's and SUDA's measures with weights
    from privrisk.microdata import MicrodataSettings, MicrodataRun, run_microdata, measure_microdata

    # The intruder's audit: the commands' ways in (audit, derived), then the parts
    from privrisk.audit import AuditSettings, AuditRun, run_audit, DerivedSettings, run_derived
    from privrisk.audit import audit_data_dependent, derived_scale, leave_one_out

    # Empirical DP: the command's way in, then the parts
    from privrisk.empirical import EmpiricalSettings, EmpiricalRun, run_empirical
    from privrisk.empirical import empirical_privacy, hockey_stick_delta, rolling_privacy

    # Releases: the noise samplers and noisy answers under a budget
    from privrisk.release.mechanisms import sample_laplace, sample_gaussian
    from privrisk.release import (
        ReleaseSettings,
        ReleaseRun,
        run_release,
        LedgerSettings,
        LedgerRun,
        run_ledger,
    )
    from privrisk.release import noisy_release, read_release_spec, public_statement, read_ledger

    # Output checking: each output by a centre's rules, and all together (privrisk.outputs)
    from privrisk.outputs import OutputsSettings, run_outputs, OutputsRun

    # Synthetic data: the attacks that show what a synthetic file discloses, beside the generator's claim
    from privrisk.synthetic import SyntheticSettings, SyntheticRun, run_synthetic, epsilon_lower_bound

    # Pages for people
    from privrisk.reports import explainer_page, report_page
    from privrisk.reports.run import ExplainSettings, ExplainRun, run_explain, ReportSettings, ReportRun
    from privrisk.reports.run import run_report, TradeoffSettings, TradeoffRun, run_tradeoff

    # Data
    from privrisk.io import read_column, read_table

    # Errors and warnings
    from privrisk.errors import PrivriskError, ThresholdExceeded, PrivacyLeakWarning
# isort: on

if TYPE_CHECKING:
    # Also importable from here, outside ``__all__``: names earlier versions exported at the top level.
    from privrisk._validation import parse_epsilon
    from privrisk.audit import AuditResult, DerivedScale, audit_sweep, data_dependent_sensitivity
    from privrisk.datasets import chicago_clean, chicago_like
    from privrisk.empirical import (
        DENSITIES,
        EMPIRICAL_QUERIES,
        EmpiricalPrivacy,
        default_k,
        density_curve,
        empirical_privacy_of,
        gaussian_shift_delta,
        joint_hockey_stick_delta,
        knn_bandwidths,
        ljung_box,
        smallest_noise,
        total_risk,
    )
    from privrisk.io import ENGINES, MissingCodes, NumericColumn, parse_missing, spark_session
    from privrisk.posterior import AttackResult, expected_success, lee_clifton_bound, world_posterior
    from privrisk.presence import (
        PresenceResult,
        SearchResult,
        kmap_derived_k,
        population_uniqueness,
        prepare_presence,
        release_table,
    )
    from privrisk.release import (
        Release,
        ReleaseQuery,
        ReleaseSpec,
        composed_epsilon,
        noise_interval,
        noise_scale,
        spent_epsilon,
    )
    from privrisk.reports import explainer_numbers
    from privrisk.risk import natural_frequency, posterior_bound, truthful_answer_probability
    from privrisk.sensitivity import evaluate
    from privrisk.study import sample_sizes, study_proportions, study_samples

#: Names renamed in 0.2, kept one release: old name → the name it warns to use (each also in the lists above).
_RENAMED: dict[str, str] = {
    "laplace_mechanism": "sample_laplace",  # it drew noise, while gaussian_mechanism was a guarantee
    "gaussian_mechanism": "gaussian_guarantee",
    "randomized_response": "truthful_answer_probability",  # a probability; the guarantee is accounting's
    "randomized_response_guarantee": "randomised_response_guarantee",  # public names are spelled the British way
    "check_outputs": "run_outputs",  # the one shape of a capability (issue 33)
    "OutputsResult": "OutputsRun",
}

_TABLE: tuple[tuple[str, ...], dict[str, str]] | None = None


def _table() -> tuple[tuple[str, ...], dict[str, str]]:
    """(``__all__``, {name: home module}) read from the ``if TYPE_CHECKING:`` imports of this file.

    The first block is the curated API, in its order; the second adds the names kept for earlier versions. Read
    once, when a name is first asked for (``import privrisk`` itself parses nothing).
    """
    global _TABLE
    if _TABLE is None:
        import ast
        from pathlib import Path

        tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
        blocks = [
            node.body
            for node in tree.body
            if isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ]
        curated: list[str] = []
        homes: dict[str, str] = {}
        for index, block in enumerate(blocks):
            for statement in block:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        homes[alias.asname or alias.name] = statement.module
                        if index == 0:
                            curated.append(alias.asname or alias.name)
        _TABLE = (*curated, "__version__"), homes
    return _TABLE


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562); a renamed one warns and gives the new name's object."""
    if name == "__all__":
        value: Any = list(_table()[0])
        globals()[name] = value
        return value
    if name in _RENAMED:
        from privrisk.errors import deprecation_message

        new = _RENAMED[name]
        warnings.warn(
            deprecation_message(f"privrisk.{name}", f"privrisk.{new}"), DeprecationWarning, stacklevel=2
        )
        return __getattr__(new)
    from privrisk.errors import lazy_attribute

    return lazy_attribute(globals(), _table()[1], name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_table()[1]))
