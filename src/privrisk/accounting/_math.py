"""Numerics shared by the accounting modules: stable logistic and Gaussian functions, envelopes and inverses.

Nothing here imports scipy at module level: the normal distribution's functions import ``scipy.special`` when
they are first called, so pure ε and (ε, δ) stay free of scipy (``privrisk risk`` starts fast).

Example:
    >>> float(expit(np.array(800.0)))
    1.0
    >>> round(float(tradeoff_envelope(np.array([0.0]), np.array([0.5]), np.array([0.25]))[0]), 4)
    0.75
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "BISECTION_STEPS",
    "dp_accounting_pld",
    "epsilon_from_profile",
    "expit",
    "log_norm_cdf",
    "norm_cdf",
    "norm_ppf",
    "profile_from_atoms",
    "tradeoff_envelope",
    "tradeoff_from_atoms",
]

BISECTION_STEPS = 200
# Beyond this ε every profile we know is 0 to double precision; a larger answer is reported as math.inf.
EPSILON_CEILING = 1e7


def expit(x: np.ndarray) -> np.ndarray:
    """1/(1 + e^(−x)) without overflow for either sign (scipy's expit, written here to keep scipy away)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def dp_accounting_pld(module: str = "privacy_loss_distribution") -> Any:
    """A module of ``dp_accounting.pld``, imported on first use (dp_accounting ships no type information)."""
    return importlib.import_module(f"dp_accounting.pld.{module}")


def norm_cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x), the standard normal distribution function."""
    from scipy.special import ndtr

    return np.asarray(ndtr(x), dtype=float)


def log_norm_cdf(x: np.ndarray) -> np.ndarray:
    """ln Φ(x), accurate far in the lower tail where Φ itself underflows."""
    from scipy.special import log_ndtr

    return np.asarray(log_ndtr(x), dtype=float)


def norm_ppf(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹(p) (−∞ at 0, +∞ at 1)."""
    from scipy.special import ndtri

    return np.asarray(ndtri(p), dtype=float)


def tradeoff_envelope(alpha: np.ndarray, epsilons: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """β(α) = sup_ε max(0, 1 − δ(ε) − e^ε α, e^(−ε)(1 − δ(ε) − α)) over the given points of a privacy profile.

    Dong, Roth and Su (2022), Prop. 2.12: a mechanism that is (ε, δ(ε))-DP for every ε is f-DP for the upper
    envelope of the trade-off curves f_(ε, δ(ε)); with finitely many ε the envelope lies below the true curve,
    which errs on the side of more risk. The product e^ε α is taken in log space, so ε = 10⁴ does not overflow.
    """
    a = np.asarray(alpha, dtype=float)
    flat = a.ravel()
    eps = np.asarray(epsilons, dtype=float).ravel()
    rest = 1.0 - np.asarray(deltas, dtype=float).ravel()
    out = np.zeros(flat.shape, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_a = np.log(flat)
        chunk = max(1, 2_000_000 // max(eps.size, 1))
        for start in range(0, flat.size, chunk):
            la = log_a[start : start + chunk, None]
            al = flat[start : start + chunk, None]
            first = rest[None, :] - np.exp(eps[None, :] + la)
            second = np.exp(-eps[None, :]) * (rest[None, :] - al)
            best = np.maximum(first, second).max(axis=1)
            out[start : start + chunk] = np.maximum(best, 0.0)
    return np.clip(out, 0.0, 1.0 - flat).reshape(a.shape)


def epsilon_from_profile(
    deltas: Callable[[np.ndarray], np.ndarray], delta: float, *, start: float = 1.0
) -> float:
    """The smallest ε with δ(ε) ≤ δ for a profile that decreases in ε, by doubling and bisection.

    Returns the upper end of the final bracket, so δ(ε) ≤ δ holds at the returned ε (never an optimistic ε);
    ``math.inf`` when no ε up to 10⁷ reaches δ.
    """

    def at(e: float) -> float:
        return float(deltas(np.array([e]))[0])

    if at(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, max(start, 1e-6)
    while at(hi) > delta:
        lo, hi = hi, hi * 2.0
        if hi > EPSILON_CEILING:
            return math.inf
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if at(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def profile_from_atoms(epsilon: np.ndarray, log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """δ(ε) = Σ_x max(0, P(x) − e^ε Q(x)) for a pair of discrete distributions given by ln P and ln Q.

    Each term is P(x)(1 − e^(ε − L(x))) with the privacy loss L = ln P − ln Q, summed only where L > ε, so
    nothing overflows and no term is negative.
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    loss = log_p - log_q
    p = np.exp(log_p)
    out = np.empty(eps.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        for i, e in enumerate(eps.ravel()):
            mask = loss > e
            out.flat[i] = float(np.sum(p[mask] * -np.expm1(e - loss[mask])))
    return np.clip(out, 0.0, 1.0)


def tradeoff_from_atoms(alpha: np.ndarray, log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """The exact trade-off curve of a pair of discrete distributions (Neyman–Pearson with randomisation).

    The most powerful tests reject the outcomes of largest likelihood ratio P/Q first; between two such tests
    the curve is linear (randomising on the boundary): Dong, Roth and Su (2022), Prop. 2.2. The pairs used here
    (discrete Laplace and Gaussian noise, binomial counts) are symmetric, so this curve is its own inverse.
    """
    a = np.asarray(alpha, dtype=float)
    order = np.argsort(-(log_p - log_q), kind="stable")
    q = np.concatenate([[0.0], np.cumsum(np.exp(log_q[order]))])
    p = np.concatenate([[0.0], np.cumsum(np.exp(log_p[order]))])
    q, p = np.minimum(q / q[-1], 1.0), np.minimum(p / p[-1], 1.0)
    return np.clip(1.0 - np.interp(a, q, p), 0.0, 1.0 - a)
