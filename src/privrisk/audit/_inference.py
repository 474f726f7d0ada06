"""What the intruder infers from one answer: the z-test and the bound on the missing record (private).

Sarathy and Muralidhar (2009), §"A statistical perspective": the intruder who holds every record but one
compares the answer with the sampling distribution of the statistic computed from the records it holds (the
z-test), and states what value of the missing record would move the query as far as the answer went (the bound).

Example:
    >>> missing_bound("mean", np.array([1.0, 2.0, 3.0]), 4.0, "upper")
    (10.0, 'at least')
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

__all__ = ["BoundKind", "missing_bound", "sampling_distribution"]

BoundKind = Literal["at least", "at most", "distance at least", "distance at most", "none"]


def sampling_distribution(
    q: str, x: np.ndarray, f_without: np.ndarray, *, chunk: int = 1 << 20
) -> tuple[np.ndarray, np.ndarray]:
    """Centre and standard error of the statistic the intruder expects from X₋ᵢ, for every i (NaN: no test).

    mean: mean(X₋ᵢ) and sd/√(n − 1) with the sample sd (ddof = 1), as Sarathy and Muralidhar (10.32, 1.377,
    0.256); sum: n times the mean's (sum = n·mean); median: √(π/2)·sd/√(n − 1) (its normal-theory standard
    error); variance: √((m₄ − s⁴)/(n − 1)) with the fourth central moment m₄ (distribution-free); std: the delta
    method, se(variance)/(2·std). count, min and max have no normal sampling distribution: NaN.
    """
    n = x.size
    if q in ("count", "min", "max"):
        nan = np.full(n, np.nan)
        return nan, nan
    mu = float(np.mean(x))
    p2, p3, p4 = (float(np.sum((x - mu) ** e)) for e in (2, 3, 4))
    # Filled chunk by chunk (the same elementwise formulas): the temporaries stay at a few MiB whatever n is.
    centre = f_without if q in ("median", "variance", "std") else np.empty(n)
    se = np.empty(n)
    for start in range(0, n, chunk):
        sl = slice(start, start + chunk)
        c, s = _sampling_chunk(q, x[sl], f_without[sl], n, mu, p2, p3, p4)
        if c is not None:
            centre[sl] = c
        se[sl] = s
    return centre, se


def _sampling_chunk(
    q: str, x: np.ndarray, f_without: np.ndarray, n: int, mu: float, p2: float, p3: float, p4: float
) -> tuple[np.ndarray | None, np.ndarray]:
    """Centre (None: f_without) and standard error for a chunk of records; see :func:`sampling_distribution`."""
    m = n - 1
    d = x - mu
    delta = -d / m  # mean(X₋ᵢ) − mean(X)
    s1 = -d  # Σ over the others of d
    s2 = p2 - d**2
    mean_i = mu + delta
    ss_i = np.maximum(s2 - m * delta**2, 0.0)
    sd_i = np.sqrt(ss_i / (m - 1))
    se_mean = sd_i / math.sqrt(m)
    if q == "mean":
        return mean_i, se_mean
    if q == "sum":
        return n * mean_i, n * se_mean
    if q == "median":
        return None, math.sqrt(math.pi / 2) * se_mean
    s3, s4 = p3 - d**3, p4 - d**4
    # Σ(d − δ)⁴ over the others, expanded.
    m4 = (s4 - 4 * delta * s3 + 6 * delta**2 * s2 - 4 * delta**3 * s1 + m * delta**4) / m
    var_i = ss_i / m
    se_var = np.sqrt(np.maximum(m4 - var_i**2, 0.0) / m)
    if q == "variance":
        return None, se_var
    with np.errstate(divide="ignore", invalid="ignore"):
        return None, np.where(var_i > 0, se_var / (2 * np.sqrt(var_i)), np.nan)


def missing_bound(
    q: str, rest: np.ndarray, level: float, tail: Literal["upper", "lower"]
) -> tuple[float, BoundKind]:
    """The value of the missing record x at which f(rest ∪ {x}) reaches the quantile ``level``.

    Returns (bound, kind) with kind ``"at least"``, ``"at most"``, ``"distance at least"`` (|x − mean| for the
    variance and std), ``"distance at most"``, or (NaN, ``"none"``) when no value of x reaches it.
    """
    m = rest.size
    n = m + 1
    upper = tail == "upper"
    side: BoundKind = "at least" if upper else "at most"
    if q == "mean":
        return n * level - m * float(np.mean(rest)), side
    if q == "sum":
        return level - math.fsum(rest), side
    # max(rest ∪ {x}) ≥ max(rest) whatever x is: only a level above it says something about x (min: mirrored).
    if q == "max":
        top = float(np.max(rest))
        return (level, side) if (level > top if upper else level >= top) else (math.nan, "none")
    if q == "min":
        bottom = float(np.min(rest))
        return (level, side) if (level <= bottom if upper else level < bottom) else (math.nan, "none")
    if q == "median":
        s = np.concatenate([[-math.inf], np.sort(rest), [math.inf]])
        ja, jb = m // 2, (m + 1) // 2  # the middle order statistics of the m + 1 values, 0-based

        def med(v: float) -> float:
            # The j-th smallest of rest ∪ {v} is v clipped to [rest's (j−1)-th, rest's j-th].
            return (min(max(v, s[ja]), s[ja + 1]) + min(max(v, s[jb]), s[jb + 1])) / 2

        lo_v, hi_v = float(s[1]) - 1.0, float(s[-2]) + 1.0
        # No bound when no value of x reaches the level, or when every value does.
        if not (med(lo_v) <= level <= med(hi_v)) or (med(lo_v) >= level if upper else med(hi_v) <= level):
            return math.nan, "none"
        # Monotone and piecewise linear in x: bisection to the smallest (largest) x reaching the level.
        a, b = lo_v, hi_v
        for _ in range(200):
            mid = (a + b) / 2
            if (med(mid) >= level) if upper else (med(mid) > level):
                b = mid
            else:
                a = mid
        return (b if upper else a), side
    if q in ("variance", "std"):
        target = level * level if q == "std" else level
        var = float(np.var(rest))
        # var(rest ∪ {x}) = m/(m+1)·(var + (x − μ)²/(m + 1))
        need = (m + 1) * ((m + 1) * target / m - var)
        if need <= 0:  # every x reaches the level (upper) or none does (lower): nothing to state
            return math.nan, "none"
        return math.sqrt(need), ("distance at least" if upper else "distance at most")
    return math.nan, "none"
