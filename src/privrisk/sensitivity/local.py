"""Δv, the exact local sensitivity of a query on a sample within a universe (Allmann et al. 2024, eq. 3), and
the ratio Δv/Δf.

Why the exact local sensitivity needs only a handful of candidate neighbours
---------------------------------------------------------------------------
Every query here, evaluated on X ∪ {v}, is either monotone in v (count, sum, mean, median, min, max) or a convex
quadratic in v (variance; std is its square root, so the same points are extreme). The largest |f(X′) − f(X)|
over v in the universe is therefore reached at an end of the universe or, for the variance, at the universe value
nearest the mean (where the variance falls most). Removing a record x works the same way: monotone in x, or a
decreasing function of (x − mean)², so the candidates are the smallest and largest record and the record nearest
the mean. Replacing a record (bounded) is a removal followed by an addition; for the variance the nearest
universe value depends on which record left, so all n removals are tried, vectorised. The property tests check
all of this against brute-force enumeration over small universes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import Query, check_choice
from privrisk.errors import PrivriskError
from privrisk.sensitivity.queries import METHODS, NEIGHBOURS, Neighbours, SensitivityMethod, _query
from privrisk.sensitivity.universe import Universe, as_universe

__all__ = ["local_sensitivity", "sensitivity_ratio"]


def _median_sorted(s: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Median of the first m entries of each sorted row (m ≥ 1 per row)."""
    rows = np.arange(s.shape[0])
    lo = s[rows, (m - 1) // 2]
    hi = s[rows, m // 2]
    return (lo + hi) / 2


def _median_after_add(s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Median of each sorted row with one value v[row] added, without re-sorting."""
    rows, m = s.shape[0], s.shape[1]
    r = np.arange(rows)
    k = np.sum(s < v[:, None], axis=1)  # v sits at position k in the merged row

    def order_stat(j):  # the j-th smallest (0-based) of the merged row of m + 1 values
        below = s[r, np.clip(j, 0, m - 1)]
        above = s[r, np.clip(j - 1, 0, m - 1)]
        return np.where(j < k, below, np.where(j == k, v, above))

    m1 = m + 1
    a = order_stat(np.full(rows, (m1 - 1) // 2))
    b = order_stat(np.full(rows, m1 // 2))
    return (a + b) / 2


def _median_after_remove(s: np.ndarray, i: int) -> np.ndarray:
    """Median of each sorted row with its i-th value removed (m ≥ 2)."""
    return np.median(np.delete(s, i, axis=1), axis=1)


def _ls_unbounded(q: Query, s: np.ndarray, u: Universe, method: SensitivityMethod) -> np.ndarray:
    """Exact (or the paper's four-case) unbounded local sensitivity for each sorted row of s."""
    rows, m = s.shape
    lo, hi = u.lo, u.hi
    can_remove = m >= 2
    if q == "count":
        return np.ones(rows)
    if q == "sum":
        rem = np.maximum(np.abs(s[:, 0]), np.abs(s[:, -1])) if can_remove else np.zeros(rows)
        return np.maximum(max(abs(lo), abs(hi)), rem)
    if q == "mean":
        mu = s.mean(axis=1)
        add = np.maximum(hi - mu, mu - lo) / (m + 1)
        rem = np.maximum(s[:, -1] - mu, mu - s[:, 0]) / (m - 1) if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "min":
        add = s[:, 0] - lo
        rem = s[:, 1] - s[:, 0] if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "max":
        add = hi - s[:, -1]
        rem = s[:, -1] - s[:, -2] if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "median":
        med = _median_sorted(s, np.full(rows, m))
        cands = [
            _median_after_add(s, np.full(rows, hi)),
            _median_after_add(s, np.full(rows, lo)),
        ]
        if can_remove:
            cands += [_median_after_remove(s, 0), _median_after_remove(s, m - 1)]
        return np.max(np.abs(np.stack(cands) - med), axis=0)
    # variance and std
    mu = s.mean(axis=1)
    var = np.mean((s - mu[:, None]) ** 2, axis=1)
    add_points = [np.full(rows, lo), np.full(rows, hi)]
    if method == "exact":
        add_points.append(u.nearest(mu))
    # X ∪ {v}: var' = m/(m+1)·(var + (v − μ)²/(m + 1))
    new_vars = [m / (m + 1) * (var + (v - mu) ** 2 / (m + 1)) for v in add_points]
    if can_remove:
        # Removing x: var' falls with (x − μ)², so the extremes and the record nearest μ are the candidates. Their
        # variances are computed directly, not as var − (x − μ)²/(m − 1): that difference cancels when the
        # others are all equal, and the std's square root would turn a 1e−15 residue into 3e−8.
        new_vars += [np.var(s[:, 1:], axis=1), np.var(s[:, :-1], axis=1)]
        if method == "exact":
            near = np.argmin(np.abs(s - mu[:, None]), axis=1)
            keep = np.ones(s.shape, dtype=bool)
            keep[np.arange(rows), near] = False
            new_vars.append(np.var(s[keep].reshape(rows, m - 1), axis=1))
    stacked = np.stack(new_vars)
    if q == "std":
        return np.max(np.abs(np.sqrt(stacked) - np.sqrt(var)), axis=0)
    return np.max(np.abs(stacked - var), axis=0)


def _ls_bounded(q: Query, s: np.ndarray, u: Universe, method: SensitivityMethod) -> np.ndarray:
    """Exact bounded (replace-one) local sensitivity for each sorted row of s."""
    rows, m = s.shape
    lo, hi = u.lo, u.hi
    if q == "count":
        return np.zeros(rows)
    if q in ("sum", "mean"):
        change = np.maximum(hi - s[:, 0], s[:, -1] - lo)
        return change / (m if q == "mean" else 1)
    if m == 1:
        # X′ = {v}: every query but count, sum and mean is v itself, or 0 for the spread.
        if q in ("variance", "std"):
            return np.zeros(rows)
        return np.maximum(hi - s[:, 0], s[:, 0] - lo)
    if q == "min":
        return np.maximum(s[:, 1] - s[:, 0], s[:, 0] - lo)
    if q == "max":
        return np.maximum(s[:, -1] - s[:, -2], hi - s[:, -1])
    if q == "median":
        med = _median_sorted(s, np.full(rows, m))
        up = _median_after_add(np.delete(s, 0, axis=1), np.full(rows, hi))
        down = _median_after_add(np.delete(s, m - 1, axis=1), np.full(rows, lo))
        return np.maximum(np.abs(up - med), np.abs(down - med))
    # variance and std: try every removal i, then the best addition for the remaining n − 1 records.
    mu = s.mean(axis=1)
    dev = s - mu[:, None]
    var = np.mean(dev**2, axis=1)
    k = m - 1
    mu_s = (mu[:, None] * m - s) / k  # mean without record i
    # Σ(x − μ_S)² over the others = Σ(x − μ)² − (x_i − μ)² − k(μ_S − μ)²
    total = m * var[:, None]
    ss = np.maximum(total - dev**2 * (m / k), 0.0)
    # That difference cancels when the other records are (nearly) all equal; recompute those few exactly.
    for r, i in np.argwhere(ss < 1e-6 * total):
        rest = np.delete(s[r], i)
        ss[r, i] = np.sum((rest - rest.mean()) ** 2)
    var_s = ss / k
    candidates = [np.full_like(mu_s, lo), np.full_like(mu_s, hi)]
    if method == "exact":
        candidates.append(u.nearest(mu_s))
    new = [(k / m) * (var_s + (v - mu_s) ** 2 / m) for v in candidates]
    stacked = np.stack(new)
    base = var[None, :, None]
    if q == "std":
        diff = np.abs(np.sqrt(stacked) - np.sqrt(base))
    else:
        diff = np.abs(stacked - base)
    return diff.max(axis=(0, 2))


def local_sensitivity(
    query: Query | str,
    sample: ArrayLike | list[ArrayLike],
    universe: Universe | tuple[float, float] | ArrayLike,
    *,
    neighbours: Neighbours = "unbounded",
    method: SensitivityMethod = "exact",
) -> float | np.ndarray:
    """Δv, the local sensitivity of a query on a sample within a universe: Allmann et al., eq. (3).

    The largest |f(X′) − f(X)| over every neighbour X′ of the sample X: adding any value the universe allows
    (an interval admits every real in [lo, hi], so the variance's biggest drop comes from adding the mean itself)
    or removing any record (never leaving an empty database). Bounded neighbours replace one record instead.

    ``method="paper"`` is the four-case rule of Allmann et al., §3.2 (add the universe's smallest or largest
    value, remove the sample's smallest or largest record). It is exact for every query but the variance and std,
    where adding a value near the mean or removing the record nearest the mean can move the result further.

    Args:
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        sample: a 1-D array (one sample), a 2-D array (one sample per row, batched) or a list of 1-D arrays
            of different sizes.
        universe: a :class:`Universe`, a ``(lo, hi)`` tuple, or an array of the universe's values.
        neighbours: ``"unbounded"`` (default) or ``"bounded"``.
        method: ``"exact"`` (default) or ``"paper"``.

    Returns:
        A float for one sample; an array with one value per sample for a batch.

    Raises:
        PrivriskError: for an empty sample, a value outside the universe, an unknown query or method.

    Example:
        >>> u = Universe.from_values([1, 3, 10, 17, 675])
        >>> round(local_sensitivity("mean", [1, 3, 10, 17], u), 2)        # Allmann et al., §3.2: 133.45
        133.45
        >>> local_sensitivity("median", [1, 3, 10, 17, 675], u)           # Allmann et al., §3.2: 3.5
        3.5
        >>> local_sensitivity("max", [[1, 3, 10], [3, 10, 17]], u)        # a batch of two samples
        array([665., 658.])
    """
    q = _query(query)
    u = as_universe(universe)
    nb = check_choice(neighbours, NEIGHBOURS, name="neighbours")
    how = check_choice(method, METHODS, name="method")
    if nb == "bounded" and how == "paper":
        raise PrivriskError("method: the paper's four-case rule is defined for unbounded neighbours only")

    if isinstance(sample, list | tuple) and len(sample) and np.ndim(sample[0]) == 1:
        samples: Sequence[Any] = sample
        if len({len(x) for x in samples}) > 1:  # samples of different sizes: one at a time
            return np.array(
                [local_sensitivity(q, x, u, neighbours=nb, method=how) for x in samples], dtype=float
            )
    arr = np.asarray(sample, dtype=float)
    single = arr.ndim == 1
    if arr.ndim not in (1, 2):
        raise PrivriskError("sample: must be one sample (1-D) or a batch of samples (2-D)")
    s = np.sort(np.atleast_2d(arr), axis=1)
    if s.shape[1] == 0:
        raise PrivriskError("sample: is empty; a query needs at least one record")
    u.check_sample(s)
    kernel = _ls_unbounded if nb == "unbounded" else _ls_bounded
    result = kernel(q, s, u, how)
    return float(result[0]) if single else result


def sensitivity_ratio(local: ArrayLike, global_: ArrayLike) -> float | np.ndarray:
    """Δv/Δf, the ratio that scales ε in ρ_mw and ρ_tw (it may exceed 1: docs/architecture.md).

    Raises:
        PrivriskError: when Δf = 0, where the ratio is undefined.

    Example:
        >>> round(sensitivity_ratio(133.45, 337.0), 4)
        0.396
    """
    lv, gv = np.asarray(local, dtype=float), np.asarray(global_, dtype=float)
    if np.any(gv == 0):
        raise PrivriskError(
            "global sensitivity is 0 (the universe holds a single value): the ratio Δv/Δf is undefined"
        )
    out = lv / gv
    return float(out) if out.ndim == 0 else out
