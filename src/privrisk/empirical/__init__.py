"""Empirical differential privacy over a sequence of databases (Burchard and Daoud): δᵢ per individual, total risk δ*, densities, noise search and rolling windows."""

from __future__ import annotations

from privrisk.empirical.density import (
    DENSITIES,
    default_k,
    density_curve,
    gaussian_shift_delta,
    hockey_stick_delta,
    joint_hockey_stick_delta,
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

__all__ = [
    "DENSITIES",
    "EMPIRICAL_QUERIES",
    "EmpiricalPrivacy",
    "chicago_clean",
    "chicago_like",
    "default_k",
    "density_curve",
    "empirical_privacy",
    "empirical_privacy_of",
    "gaussian_shift_delta",
    "hockey_stick_delta",
    "joint_hockey_stick_delta",
    "knn_bandwidths",
    "ljung_box",
    "rolling_privacy",
    "smallest_noise",
    "total_risk",
]
