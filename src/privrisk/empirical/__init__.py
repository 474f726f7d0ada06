"""Empirical differential privacy over a sequence of databases (Burchard and Daoud 2022).

δᵢ per individual, the total risk δ*, densities, the noise search and rolling windows:

- :mod:`~privrisk.empirical.measure`: :func:`empirical_privacy` (per-(period, individual) aggregates, δᵢ, δ and δ*),
  :func:`empirical_privacy_of` for any statistic, :func:`total_risk`;
- :mod:`~privrisk.empirical.density`: the densities of the answers and the hockey-stick divergence (Theorem 1);
- :mod:`~privrisk.empirical.windows`: the sequence of databases: :func:`ljung_box`, merged periods,
  :func:`rolling_privacy`;
- :mod:`~privrisk.empirical.search`: :func:`smallest_noise`, the Laplace scale that reaches a target δ;
- :mod:`~privrisk.empirical.run` (once ``settings``): the one way in of the command and the app, :class:`EmpiricalSettings` and
  :func:`run_empirical`, whose :class:`EmpiricalRun` gives the JSON document (``to_dict``) and the output folder
  (``write``);
- :mod:`~privrisk.empirical.result` and :mod:`~privrisk.empirical.report`: :class:`EmpiricalPrivacy` and the
  writing of its folder (the earlier :func:`write_outputs`, deprecated);
- the Chicago-like generator and the paper's cleaning live in :mod:`privrisk.datasets.chicago` and are
  re-exported here.
"""

from __future__ import annotations

from privrisk.datasets.chicago import chicago_clean, chicago_like
from privrisk.empirical.density import (
    DENSITIES,
    Density,
    default_k,
    density_curve,
    gaussian_shift_delta,
    hockey_stick_delta,
    joint_hockey_stick_delta,
    knn_bandwidths,
)
from privrisk.empirical.inputs import EMPIRICAL_QUERIES, EmpiricalQuery, query_spec
from privrisk.empirical.measure import ENGINES, Engine, empirical_privacy, empirical_privacy_of, total_risk
from privrisk.empirical.periods import PERIOD_UNITS, PeriodUnit, ljung_box
from privrisk.empirical.report import write_outputs
from privrisk.empirical.result import EmpiricalPrivacy, delta_column
from privrisk.empirical.run import CHICAGO, EmpiricalRun, EmpiricalSettings, run_empirical
from privrisk.empirical.search import smallest_noise
from privrisk.empirical.windows import rolling_privacy

__all__ = [
    "CHICAGO",
    "DENSITIES",
    "EMPIRICAL_QUERIES",
    "ENGINES",
    "PERIOD_UNITS",
    "Density",
    "EmpiricalPrivacy",
    "EmpiricalQuery",
    "EmpiricalRun",
    "EmpiricalSettings",
    "Engine",
    "PeriodUnit",
    "chicago_clean",
    "chicago_like",
    "default_k",
    "delta_column",
    "density_curve",
    "empirical_privacy",
    "empirical_privacy_of",
    "gaussian_shift_delta",
    "hockey_stick_delta",
    "joint_hockey_stick_delta",
    "knn_bandwidths",
    "ljung_box",
    "query_spec",
    "rolling_privacy",
    "run_empirical",
    "smallest_noise",
    "total_risk",
    "write_outputs",
]
