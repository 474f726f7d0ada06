"""Leave-one-out and leave-two-out values of a query, and the data-dependent sensitivity, in O(n log n).

Sarathy and Muralidhar (2009) take a provider who scales Laplace noise to the data at hand, b_n = Δf_n(X)/ε with
Δf_n(X) = maxᵢ |f(X) − f(X₋ᵢ)|, and an intruder who holds every record but one and computes the scale the
provider would have used without the missing record. Both need, for every record i, the value of the query
without it and the largest change one more record makes. This module computes those values;
:mod:`privrisk.audit.intruder` turns them into the intruder's audit.

How the quantities of Sarathy and Muralidhar (2009) are defined here (each checked against their printed numbers)
--------------------------------------------------------------------------------------------------------------
- Δf_n(X) is a *removal-only* local sensitivity: the largest change one record of X makes when it is left out
  (eq. 2 of Dwork 2006 as Sarathy and Muralidhar read it). It is not the local sensitivity of
  ``privrisk.local_sensitivity``, which also adds universe values. X* is X without the record that reaches it;
  ties go to the last record in file order (their Table 4 takes X* = (1, …, 9) for X = (1, …, 10), where leaving
  out 1 or 10 changes the mean by the same 0.5).
- Δf_{n−1}(X₋ᵢ) = maxⱼ≠ᵢ |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)|, the intruder's sensitivity without record i (Sarathy and
  Muralidhar, §"The correct perspective": f_{n−2}(X*) = 10.439 is the mean without records 30 and 21,
  Δf_{n−1}(X*) = 0.115).

Why the leave-one-out and leave-two-out values take O(n log n)
-------------------------------------------------------------
For a fixed missing record i, every query here evaluated on X₋ᵢ₋ⱼ is monotone in xⱼ (count, sum, mean, median,
min, max) or a decreasing function of (xⱼ − mean(X₋ᵢ))² (variance, std). The largest |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)| is
therefore reached at the smallest or largest other record, or, for the spread, at the other record nearest the
mean of X₋ᵢ. After one sort every candidate and every leave-two-out value is an O(1) expression of order
statistics, prefix moments and the record's rank, so the whole per-record table is vectorised numpy. The tests
check it against brute-force leave-two-out enumeration.

Example:
    >>> data_dependent_sensitivity([1, 2, 3, 4, 10], "mean")
    1.5
    >>> leave_one_out([1, 2, 3, 4, 10], "mean")["f_without"].tolist()
    [4.75, 4.5, 4.25, 4.0, 2.5]
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privrisk._validation import check_query, check_values
from privrisk.errors import PrivriskError
from privrisk.sensitivity import evaluate

__all__ = ["data_dependent_sensitivity", "leave_one_out"]

_CHUNK = 1 << 20
"""Records per chunk where a per-record quantity needs several candidates each (no k × n temporaries)."""


def _check_records(values: ArrayLike, *, minimum: int = 3) -> np.ndarray:
    """The records as a float array: finite, at least ``minimum`` of them (the intruder leaves out two)."""
    x = check_values(values, what="records", minimum=0)
    if x.size < minimum:
        raise PrivriskError(
            f"values: the audit needs at least {minimum} records (the intruder's own data set leaves one "
            f"out and then one more), got {x.size}",
            param="values",
        )
    return x


def _order_stat(s: np.ndarray, j: ArrayLike, removed: tuple[np.ndarray, ...]) -> np.ndarray:
    """The j-th smallest (0-based) of sorted s after removing the sorted positions in ``removed`` (ascending)."""
    idx = np.asarray(j, dtype=np.int64)
    for r in removed:
        idx = idx + (idx >= r)
    return s[idx]


def _median_removed(s: np.ndarray, removed: tuple[np.ndarray, ...]) -> np.ndarray:
    m = s.size - len(removed)
    return (_order_stat(s, (m - 1) // 2, removed) + _order_stat(s, m // 2, removed)) / 2


class _LeaveOut(NamedTuple):
    """For every record i, in file order: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ), f(X₋ᵢ₋ⱼ*) and j* (0-based) reaching it."""

    f: np.ndarray
    delta: np.ndarray
    f2: np.ndarray
    j: np.ndarray


def _leave_out(query: str, x: np.ndarray) -> _LeaveOut:
    """For every record i: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ), and f(X₋ᵢ₋ⱼ) and j for the j that reaches it."""
    n = x.size
    order = np.argsort(x, kind="stable")
    s = x[order]
    k = np.empty(n, dtype=np.int64)
    k[order] = np.arange(n)  # sorted position of each record
    # The smallest and the largest of the other records, as sorted positions.
    lo_other = np.where(k == 0, 1, 0)
    hi_other = np.where(k == n - 1, n - 2, n - 1)
    cand = [lo_other, hi_other]
    g: list[np.ndarray]

    if query == "count":
        f = np.full(n, n - 1.0)
        g = [np.full(n, n - 2.0), np.full(n, n - 2.0)]
    elif query == "sum":
        total = math.fsum(x)
        f = total - x
        g = [f - s[c] for c in cand]
    elif query == "mean":
        mu = float(np.mean(x))
        d = x - mu
        f = mu - d / (n - 1)
        g = [mu - (d + (s[c] - mu)) / (n - 2) for c in cand]
    elif query in ("min", "max"):
        # The min of X₋ᵢ and of X₋ᵢ₋ⱼ from the first three order statistics (max: the min of −x). Only removing
        # the smallest other record moves the min of X₋ᵢ; removing any other record leaves it.
        t = s if query == "min" else -s[::-1]
        kk = k if query == "min" else n - 1 - k
        first = np.where(kk == 0, t[1], t[0])
        second = np.where(kk <= 1, t[2], t[1])
        sign = 1.0 if query == "min" else -1.0
        lo_t = np.where(kk == 0, 1, 0)
        f = sign * first
        cand = [lo_t if query == "min" else n - 1 - lo_t]
        g = [sign * second]
    elif query == "median":
        f = _median_removed(s, (k,))
        g = []
        for c in cand:
            a, b = np.minimum(k, c), np.maximum(k, c)
            g.append(_median_removed(s, (a, b)))
    else:  # variance and std
        f, g, cand = _spread_leave_out(s, k, query)
    # The candidate with the largest change, the first one on ties (as argmax over a stack of them), reduced in
    # place: a few n-sized vectors, no k × n stacks.
    delta = np.abs(g[0] - f)
    f2 = np.array(g[0], dtype=float)
    j = np.array(cand[0], dtype=np.int64)
    for gc, c in zip(g[1:], cand[1:], strict=True):
        diff = np.abs(gc - f)
        better = (diff > delta) | (np.isnan(diff) & ~np.isnan(delta))  # argmax stops at the first NaN
        np.copyto(delta, diff, where=better)
        np.copyto(f2, gc, where=better)
        np.copyto(j, c, where=better)
        del diff, better
    return _LeaveOut(f=f, delta=delta, f2=f2, j=order[j])


def _spread_leave_out(
    s: np.ndarray, k: np.ndarray, query: str
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Variance (ddof = 0) or std of X₋ᵢ and of X₋ᵢ₋ⱼ for the three candidate records j of each i."""
    n = s.size
    mu = float(np.mean(s))
    d = s - mu
    ss = float(np.sum(d * d))
    m = n - 1
    di = d[k]
    mu_i = mu - di / m
    ss_i = np.maximum(ss - di * di * n / m, 0.0)
    # The other record nearest the mean of X₋ᵢ: among the sorted neighbours of that mean, skipping i itself.
    nearest = np.empty(n, dtype=np.int64)
    for start in range(0, n, _CHUNK):  # the 4 × n candidates a chunk at a time
        sl = slice(start, start + _CHUNK)
        p = np.searchsorted(s, mu_i[sl])
        near_pos = np.stack([np.clip(p + o, 0, n - 1) for o in (-2, -1, 0, 1)])
        dist = np.abs(s[near_pos] - mu_i[None, sl])
        dist = np.where(near_pos == k[None, sl], np.inf, dist)
        nearest[sl] = near_pos[np.argmin(dist, axis=0), np.arange(p.size)]
    cand = [np.where(k == 0, 1, 0), np.where(k == n - 1, n - 2, n - 1), nearest]
    # Removing j from X₋ᵢ (m records, mean μᵢ): SS falls by (xⱼ − μᵢ)²·m/(m − 1).
    ss_ij = [np.maximum(ss_i - (s[c] - mu_i) ** 2 * m / (m - 1), 0.0) for c in cand]
    ss_i, ss_ij = _recompute_cancelled(s, k, cand, ss, ss_i, ss_ij)
    var_i = ss_i / m
    var_ij = [v / (m - 1) for v in ss_ij]
    if query == "std":
        return np.sqrt(var_i), [np.sqrt(v) for v in var_ij], cand
    return var_i, var_ij, cand


def _exact_ss(s: np.ndarray, removed: list[np.ndarray], *, chunk: int = 256) -> np.ndarray:
    """Σ(x − mean)² of sorted s without the given positions, one row per entry of the position arrays."""
    n, rows = s.size, removed[0].size
    out = np.empty(rows)
    for start in range(0, rows, chunk):
        sl = slice(start, start + chunk)
        at = np.arange(min(chunk, rows - start))
        keep = np.ones((at.size, n), dtype=bool)
        for pos in removed:
            keep[at, pos[sl]] = False
        vals = np.broadcast_to(s, keep.shape)[keep].reshape(at.size, n - len(removed))
        out[sl] = np.sum((vals - vals.mean(axis=1, keepdims=True)) ** 2, axis=1)
    return out


def _recompute_cancelled(
    s: np.ndarray,
    k: np.ndarray,
    cand: list[np.ndarray],
    ss: float,
    ss_i: np.ndarray,
    ss_ij: list[np.ndarray],
    *,
    max_unique: int = 4096,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Recompute exactly the sums of squares that the update formulas get by cancellation.

    Subtracting a record's share from a total leaves a rounding residue of about 1e−16 of that total: harmless
    for the variance, but the std's square root would turn an exact 0 into 1e−8·σ. Two cases are recomputed:

    - X₋ᵢ nearly constant (SS(X₋ᵢ) < 1e−4·SS): record i carries over 99.99 % of SS, so there is one such record
      (or a few when n is tiny); it and its leave-two-out values are recomputed directly, O(n) each.
    - X₋ᵢ₋ⱼ nearly constant (< 1e−9·SS(X₋ᵢ)). Rows that leave out the same two *values* have the same remainder,
      so each distinct pair is computed once: data such as 10⁵ zeros and a single 1 cost one O(n) pass, not n.
      Only if more than ``max_unique`` distinct pairs qualify (nearly constant but untied data) is the residue
      of at most 1e−8·σ kept.
    """
    rows = np.flatnonzero(ss_i < 1e-4 * ss)
    if rows.size:
        ss_i[rows] = _exact_ss(s, [k[rows]])
        for c, v in zip(cand, ss_ij, strict=True):
            v[rows] = _exact_ss(s, [k[rows], c[rows]])
    for c, v in zip(cand, ss_ij, strict=True):
        bad = np.flatnonzero(v < 1e-9 * ss_i)
        bad = bad[~np.isin(bad, rows)]
        if bad.size == 0:
            continue
        pairs = np.stack([s[k[bad]], s[c[bad]]], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
        if first.size > max_unique:
            continue
        reps = bad[first]
        v[bad] = _exact_ss(s, [k[reps], c[reps]])[np.ravel(inverse)]
    return ss_i, ss_ij


def leave_one_out(values: ArrayLike, query: str) -> pd.DataFrame:
    """The intruder's view of every record: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ) and f_{n−2} (Sarathy and Muralidhar 2009).

    Their §"The correct perspective": the intruder lacks record i and computes the provider's scale from the
    other records. One row per record (``record`` numbered from 1, as their tables): ``value``, ``f_without`` =
    f(X₋ᵢ), ``delta_without`` = Δf_{n−1}(X₋ᵢ) = maxⱼ≠ᵢ |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)|, ``f_without_two`` = f(X₋ᵢ₋ⱼ) and
    ``next_record`` = j for the record j that reaches it. O(n log n) for every query.

    Args:
        values: the records, at least three.
        query: one of ``count, sum, mean, median, min, max, variance, std``.

    Returns:
        One row per record, in file order.

    Raises:
        PrivriskError: fewer than three records, NaN or infinite values, an unknown query.

    Example:
        >>> t = leave_one_out([1, 2, 3, 4, 10], "mean")
        >>> t.loc[4, ["f_without", "delta_without", "f_without_two", "next_record"]].tolist()
        [2.5, 0.5, 3.0, 1.0]
    """
    q = check_query(query)
    x = _check_records(values)
    lo = _leave_out(q, x)
    return pd.DataFrame(
        {
            "record": np.arange(1, x.size + 1),
            "value": x,
            "f_without": lo.f,
            "delta_without": lo.delta,
            "f_without_two": lo.f2,
            "next_record": lo.j + 1,
        }
    )


class _Provider(NamedTuple):
    """The provider's view: f(X), |f(X) − f(X₋ᵢ)| for all i, Δf_n(X) and X*'s missing record (0-based)."""

    f: float
    change: np.ndarray
    delta: float
    star: int


def _provider(q: str, x: np.ndarray, lo: _LeaveOut | None = None) -> _Provider:
    """f(X), |f(X) − f(X₋ᵢ)| for all i, Δf_n(X) and X*'s missing record (0-based; ties go to the last record)."""
    f_n = float(evaluate(q, x))
    if lo is None:
        lo = _leave_out(q, x)
    change = np.abs(lo.f - f_n)
    delta = float(change.max())
    star = int(x.size - 1 - np.argmax(change[::-1] >= delta))
    return _Provider(f_n, change, delta, star)


def data_dependent_sensitivity(values: ArrayLike, query: str) -> float:
    """Δf_n(X) = maxᵢ |f(X) − f(X₋ᵢ)|, the data-dependent sensitivity Sarathy and Muralidhar (2009) scale noise by.

    Their reading of eq. 2 of Dwork (2006): the largest change one record makes by leaving. Unlike
    :func:`privrisk.local_sensitivity` it adds no universe values, so it needs no universe (and is why it leaks).

    Args:
        values: the records, at least two.
        query: one of ``count, sum, mean, median, min, max, variance, std``.

    Returns:
        Δf_n(X) as a float.

    Raises:
        PrivriskError: fewer than two records, NaN or infinite values, an unknown query.

    Example:
        >>> round(data_dependent_sensitivity([9.91, 9.16, 10.59, 100.0], "mean"), 3)
        22.528
    """
    q = check_query(query)
    x = _check_records(values, minimum=2)
    f_n = float(evaluate(q, x))
    if x.size == 2:
        return max(abs(f_n - float(evaluate(q, x[:1]))), abs(f_n - float(evaluate(q, x[1:]))))
    return _provider(q, x).delta
