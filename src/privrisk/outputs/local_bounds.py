"""Outer bounds on a total from the released equations that touch it, and those equations alone.

Dropping equations only widens what an intruder can reach, so the least and largest value of a total g·x over the
equations that hold one of its unknowns (the rest of its block left out, every unknown of those equations within its
bounds) are valid outer bounds on its interval: a relaxation of the block's programme (weak duality). Where a
total's value is disclosed by a difference of a few released cells, these few equations already give its exact end,
and a point met later that reaches the bound proves it exact without a programme over the whole block. On the large
request of ``benchmarks/outputs.py`` the bound of the disclosing end of each of the 202 sum findings equals the
block programme's optimum, in about 5 ms a programme against seconds on a block of 8,752 equations.

An unknown that sits in one of the equations kept and is not in the total (most of them: the unknowns of a large
margin) is summed with the others of its equation and coefficient into one unknown whose bounds are their sums: the
equations see only that sum, so the programme's optimum is the same with a tenth of the unknowns.

Example:
    >>> import numpy as np, scipy.sparse as sp
    >>> # x0 + x1 = 5 and x1 + x2 + x3 = 4, all in [0, 10]: x1 lies in [0, 4] by the second equation alone
    >>> a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0]]))
    >>> b = np.array([5.0, 4.0])
    >>> bounds = relaxed_ends(a, b, np.zeros(4), np.full(4, 10.0), np.array([1]), np.array([1.0]))
    >>> bounds.lo, bounds.hi, sorted(bounds.hi_rows)
    (0.0, 4.0, [1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privrisk.solver import Program

__all__ = ["RelaxedEnds", "relaxed_ends"]

# A row's dual below this is no part of the bound's explanation (as for the block's own programmes).
_DUAL = 1e-9


@dataclass(frozen=True)
class RelaxedEnds:
    """Outer bounds of one total over the equations around it (±inf where the equations leave it unbounded, NaN
    where a programme did not end),
    and the positions, among the rows given, of the equations whose duals make each bound."""

    lo: float
    hi: float
    lo_rows: frozenset[int]
    hi_rows: frozenset[int]


def _merged(sub: sp.csc_matrix, lower: np.ndarray, upper: np.ndarray, own: np.ndarray) -> tuple[
        sp.csc_matrix, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The unknowns of ``sub`` with those in one equation alone (and not ``own``) summed per equation and
    coefficient: the matrix, the bounds, and where the unknowns kept as they are went (their columns first)."""
    nnz = np.diff(sub.indptr)
    single = (nnz == 1) & ~own
    keep = np.flatnonzero(~single)
    alone = np.flatnonzero(single)
    if alone.size == 0:
        return sub, lower, upper, keep
    at = sub.indptr[alone]
    pairs = np.stack([sub.indices[at].astype(float), sub.data[at]])
    kinds, which = np.unique(pairs, axis=1, return_inverse=True)
    which = which.ravel()
    m = kinds.shape[1]
    # An unbounded unknown leaves its sum unbounded (a sum of ±inf and finite values, never inf − inf).
    lo_sum = np.bincount(which, np.where(np.isinf(lower[alone]), 0.0, lower[alone]), m)
    hi_sum = np.bincount(which, np.where(np.isinf(upper[alone]), 0.0, upper[alone]), m)
    lo_sum[np.bincount(which, np.isinf(lower[alone]), m) > 0] = -np.inf
    hi_sum[np.bincount(which, np.isinf(upper[alone]), m) > 0] = np.inf
    sums = sp.csc_matrix((kinds[1], (kinds[0].astype(np.int64), np.arange(m))), shape=(sub.shape[0], m))
    matrix = sp.csc_matrix(sp.hstack([sub[:, keep], sums], format="csc"))
    return matrix, np.concatenate([lower[keep], lo_sum]), np.concatenate([upper[keep], hi_sum]), keep


def relaxed_ends(
    a: sp.spmatrix,
    b: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    idx: np.ndarray,
    val: np.ndarray,
    *,
    want_lo: bool = True,
    want_hi: bool = True,
    by_cols: sp.csc_matrix | None = None,
) -> RelaxedEnds:
    """The least and largest Σ val·x[idx] over the rows of ``a·x = b`` that hold an unknown of ``idx``, with
    ``lower ≤ x ≤ upper``: outer bounds on the total's interval over all of ``a·x = b`` (a relaxation; the
    equations left out can only narrow it). Real unknowns: a whole total's integer optimum may lie inside.

    Args:
        a, b: one block's equations (CSR or CSC) and their right-hand sides.
        lower, upper: its unknowns' bounds.
        idx, val: the total's unknowns (within the block) and weights.
        want_lo, want_hi: which ends to solve (the other is NaN).
        by_cols: ``a`` as CSC, where the caller keeps one (many totals of one block).
    """
    csc = sp.csc_matrix(a) if by_cols is None else by_cols
    idx = np.asarray(idx, dtype=np.int64)
    rows = np.unique(csc[:, idx].indices)
    nan = float("nan")
    if rows.size == 0:  # in no equation: its unknowns' bounds
        with np.errstate(invalid="ignore"):
            lo = float(np.sum(np.where(val > 0, lower[idx], upper[idx]) * val))
            hi = float(np.sum(np.where(val > 0, upper[idx], lower[idx]) * val))
        return RelaxedEnds(lo if want_lo else nan, hi if want_hi else nan, frozenset(), frozenset())
    sub = sp.csr_matrix(a)[rows]
    cols = np.unique(sub.indices)
    own = np.zeros(cols.size, dtype=bool)
    own[np.searchsorted(cols, idx)] = True
    matrix, lo_b, hi_b, keep = _merged(sp.csc_matrix(sub[:, cols]), lower[cols], upper[cols], own)
    prog = Program(matrix, b[rows], b[rows], lower=lo_b, upper=hi_b)
    obj = np.searchsorted(keep, np.searchsorted(cols, idx))
    out: dict[float, tuple[float, frozenset[int]]] = {}
    for sign, wanted in ((1.0, want_lo), (-1.0, want_hi)):
        if not wanted:
            out[sign] = (nan, frozenset())
            continue
        sol = prog.minimise(obj, val) if sign > 0 else prog.maximise(obj, val)
        if sol.status == "unbounded":
            out[sign] = (-sign * np.inf, frozenset())
            continue
        if not sol.optimal or sol.row_dual is None:
            out[sign] = (nan, frozenset())
            continue
        out[sign] = (sol.value, frozenset(rows[np.abs(sol.row_dual) > _DUAL].tolist()))
    return RelaxedEnds(out[1.0][0], out[-1.0][0], out[1.0][1], out[-1.0][1])
