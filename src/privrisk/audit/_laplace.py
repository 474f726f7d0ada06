"""Laplace tails and densities in log space, for the intruder's audit (private to :mod:`privrisk.audit`).

The ratios of the audit reach about 10³⁰ (Sarathy and Muralidhar 2009, Table 2, record 30: "> 99999999"), so every
probability is kept as a logarithm until the end; a scale b = 0 is the point mass at the centre.

Example:
    >>> round(float(log_event(1.0, 0.0, 1.0, event="tail", tail="upper")), 6)     # log(e^(−1)/2)
    -1.693147
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["breaks", "laplace_quantile", "log_event", "log_p_ratio", "safe_exp"]


def laplace_quantile(u: float, b: float) -> float:
    """F⁻¹(u) of Laplace(0, b)."""
    return b * math.log(2 * u) if u < 0.5 else -b * math.log(2 * (1 - u))


def _log_upper(r: ArrayLike, mu: ArrayLike, b: ArrayLike) -> np.ndarray:
    """log P[μ + Lap(b) ≥ r]; b = 0 is the point mass at μ."""
    r, mu, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (r, mu, b)))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = (r - mu) / b
        cont = np.where(z >= 0, math.log(0.5) - z, np.log1p(-0.5 * np.exp(np.minimum(z, 0.0))))
        point = np.where(mu >= r, 0.0, -np.inf)
    return np.where(b > 0, cont, point)


def log_event(
    r: ArrayLike,
    mu: ArrayLike,
    b: ArrayLike,
    *,
    event: Literal["tail", "density"],
    tail: Literal["upper", "lower"],
) -> np.ndarray:
    """The log probability (tail) or log density of the answer r under μ + Lap(b)."""
    if event == "density":
        r, mu, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (r, mu, b)))
        with np.errstate(divide="ignore", invalid="ignore"):
            cont = -np.log(2 * b) - np.abs(r - mu) / b
            point = np.where(mu == r, np.inf, -np.inf)
        return np.where(b > 0, cont, point)
    if tail == "upper":
        return _log_upper(r, mu, b)
    return _log_upper(-np.asarray(r, dtype=float), -np.asarray(mu, dtype=float), b)


def log_p_ratio(lp1: ArrayLike, lp3: ArrayLike) -> np.ndarray:
    """ln(p1/p3); equal logs (both impossible, both certain) give 0, never NaN."""
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(lp1, lp3), 0.0, np.asarray(lp1) - np.asarray(lp3))


def breaks(log_ratio: ArrayLike, epsilon: float) -> np.ndarray:
    """|ln(p1/p3)| > ε: the ratio breaks e^ε in either direction."""
    # A tolerance so that a ratio of exactly e^ε (the global-sensitivity mechanism at its bound) is not flagged.
    return np.abs(log_ratio) > epsilon * (1 + 1e-9) + 1e-12


def safe_exp(log_value: ArrayLike) -> np.ndarray:
    """e^x without an overflow warning (a ratio of 10³⁰⁹ and more becomes inf)."""
    with np.errstate(over="ignore"):
        return np.exp(log_value)


def exp_text(epsilon: float) -> str:
    """e^ε for print, from its logarithm, so that a finite but huge ε (1000) neither overflows nor reads 'inf'.

    Example:
        >>> exp_text(2.0), exp_text(1000.0)
        ('7.389', '1.970e+434')
    """
    if epsilon < 700:
        return f"{math.exp(epsilon):.4g}"
    log10 = epsilon / math.log(10)
    exponent = math.floor(log10)
    return f"{10 ** (log10 - exponent):.3f}e{exponent:+d}"
