"""The released system made smaller without changing its solutions: nested totals taken apart, bounds implied
by the equations, and the rank.

:func:`reduce` replaces a released total that holds a smaller one by their difference (the adults and the
over-65s become the 18–64-year-olds and the over-65s); :func:`propagate` bounds every unknown by the equations one
at a time (Fréchet's bounds when two margins are released). Both are exact: the set of solutions, real or whole, is
the same before and after.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privrisk.errors import PrivriskError

__all__ = ["CONTRADICT", "propagate", "rank", "reduce"]

CONTRADICT = "outputs: the released numbers contradict each other (no data fit them all)"


def _contained(
    a: sp.csr_matrix, sizes: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (s, r) of rows where row s is probably a proper subset of row r (0/1 rows, sorted indices).

    A subset holds the column of s that the fewest rows hold, so the rows through that column are the only
    candidates; three random columns of s must be in r as well. The caller checks every pair it uses.
    """
    m, n = a.shape
    csc = sp.csc_matrix(a)
    csc.sort_indices()
    deg = np.diff(csc.indptr)
    nonempty = np.flatnonzero(sizes > 0)
    if nonempty.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    key = deg[a.indices].astype(np.int64) * n + a.indices
    pivot = np.minimum.reduceat(key, a.indptr[nonempty]) % n
    count = deg[pivot]
    s_idx = np.repeat(nonempty, count)
    offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    r_idx = csc.indices[np.repeat(csc.indptr[pivot], count) + offset].astype(np.int64)
    keep = sizes[r_idx] > sizes[s_idx]
    s_idx, r_idx = s_idx[keep], r_idx[keep]
    entries = np.repeat(np.arange(m, dtype=np.int64), sizes) * n + a.indices  # sorted: CSR, sorted indices
    for _ in range(3):
        if s_idx.size == 0:
            break
        pick = a.indptr[s_idx] + (rng.random(s_idx.size) * sizes[s_idx]).astype(np.int64)
        want = r_idx * n + a.indices[pick]
        # Looked up in increasing order, each search starting where the last one ended: on the large request of
        # ``benchmarks/outputs.py`` (2.3·10⁶ candidates among 1.3·10⁷ entries) the look-ups took 4.2 s in the
        # order met and 1.2 s sorted, plus 1.1 s to sort them; the same pairs.
        order = np.argsort(want)
        pos = np.empty(want.size, dtype=np.int64)
        pos[order] = np.minimum(np.searchsorted(entries, want[order]), entries.size - 1)
        ok = entries[pos] == want
        s_idx, r_idx = s_idx[ok], r_idx[ok]
    return s_idx, r_idx


def _tidy(
    a: sp.csr_matrix, b: np.ndarray, origin: sp.csr_matrix, tol: float
) -> tuple[sp.csr_matrix, np.ndarray, sp.csr_matrix]:
    """Drop empty and repeated rows; empty rows must total 0 and repeats agree, else the numbers contradict."""
    # Empty rows must total 0, duplicates agree: otherwise the released numbers contradict each other.
    sizes = np.diff(a.indptr)
    drop = sizes == 0
    if np.any(np.abs(b[drop]) > tol):
        raise PrivriskError(CONTRADICT)
    seen: dict[bytes, int] = {}
    for i in np.flatnonzero(~drop).tolist():
        key = a.indices[a.indptr[i] : a.indptr[i + 1]].tobytes()
        e = seen.setdefault(key, i)
        if e != i:
            if abs(b[e] - b[i]) > tol:
                raise PrivriskError(CONTRADICT)
            drop[i] = True
    keep_rows = np.flatnonzero(~drop)
    return a[keep_rows], b[keep_rows], origin[keep_rows]


def reduce(
    a: sp.csr_matrix, b: np.ndarray, *, integer: bool, passes: int = 12
) -> tuple[sp.csr_matrix, np.ndarray, sp.csr_matrix]:
    """The same system with nested totals taken apart: (A', b', T) with A' = T·A, b' = T·b.

    Each pass replaces every row r that holds a smaller row s by r − s (s the largest such row). Ordered by
    size, T is unit triangular: invertible over the integers, so {x : A'x = b'} = {x : Ax = b} for real and for
    whole x. A difference that is not a 0/1 row (s was not a subset) is not made. Rows that become empty must
    have b' = 0, duplicates the same b'; both are dropped (the rows of T then say which released numbers each
    remaining equation combines, for the witnesses).

    Example:
        >>> a = sp.csr_matrix(np.array([[1., 1, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0]]))  # all, ≥ 65, < 65
        >>> r, rb, t = reduce(a, np.array([9., 4, 5]), integer=True)
        >>> r.toarray().tolist(), rb.tolist()
        ([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]], [5.0, 4.0])
    """
    m = a.shape[0]
    a = sp.csr_matrix(a, dtype=float)
    a.sort_indices()
    origin = sp.identity(m, format="csr")
    if m < 2 or a.nnz == 0 or np.any(a.data != 1.0):
        return a, b, origin
    rng = np.random.default_rng(0)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    tol = 0.5 if integer else 1e-7 * scale  # HiGHS's feasibility tolerance
    a, b, origin = _tidy(a, b, origin, tol)
    for _ in range(passes):
        sizes = np.diff(a.indptr)
        s_idx, r_idx = _contained(a, sizes, rng)
        if s_idx.size == 0:
            break
        # The largest subset of each row first; a row whose difference is not 0/1 tries its next one.
        order = np.lexsort((s_idx, -sizes[s_idx], r_idx))
        s_idx, r_idx = s_idx[order], r_idx[order]
        rank_in = np.arange(r_idx.size) - np.searchsorted(r_idx, r_idx)
        chosen = np.full(a.shape[0], -1, dtype=np.int64)
        for k in range(3):
            pick = (rank_in == k) & (chosen[r_idx] < 0)
            if not pick.any():
                break
            rs, ss = r_idx[pick], s_idx[pick]
            first = np.r_[True, rs[1:] != rs[:-1]]
            rs, ss = rs[first], ss[first]
            diff = sp.csr_matrix(a[rs] - a[ss])
            diff.eliminate_zeros()
            row_of = np.repeat(np.arange(rs.size), np.diff(diff.indptr))
            bad = np.zeros(rs.size, dtype=bool)
            bad[row_of[diff.data != 1.0]] = True
            chosen[rs[~bad]] = ss[~bad]
        use = np.flatnonzero(chosen >= 0)
        if use.size == 0:
            break
        step = sp.identity(a.shape[0], format="csr") - sp.csr_matrix(
            (np.ones(use.size), (use, chosen[use])), shape=(a.shape[0], a.shape[0])
        )
        a = sp.csr_matrix(step @ a)
        a.eliminate_zeros()
        a.sort_indices()
        b = step @ b
        origin = sp.csr_matrix(step @ origin)
        a, b, origin = _tidy(a, b, origin, tol)
    if integer:
        b = np.round(b)
    return a, b, origin


def rank(sub: sp.csr_matrix) -> int:
    """The rank of a block: dense where that is cheap, else through the smaller Gram matrix, else unknown."""
    from privrisk.outputs._blas import one_thread

    m, n = sub.shape
    with one_thread():  # a few hundred rows: more threads only wait for each other on a busy machine
        if m * n <= 2_000_000:
            return int(np.linalg.matrix_rank(sub.toarray()))
        if min(m, n) <= 1_500:
            gram = (sub @ sub.T) if m <= n else (sub.T @ sub)
            return int(np.linalg.matrix_rank(gram.toarray(), hermitian=True))
    return -1


def propagate(
    a: sp.csr_matrix,
    b: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    integer: np.ndarray,
    *,
    rounds: int = 50,
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of every unknown implied by the equations one at a time, iterated to a fixed point.

    For a row Σ_k a_k x_k = b and an entry j: a_j x_j = b − Σ_{k≠j} a_k x_k, so a_j x_j lies between b less the
    largest and b less the least value of the rest. For 0/1 rows of non-negative unknowns this is
    x_j ≥ b − Σ_{k≠j} U_k and x_j ≤ b − Σ_{k≠j} L_k: with two margins of a table, Fréchet's bounds
    max(0, r + c − N) … min(r, c). Whole unknowns are rounded inwards. Raises when no x fits.

    Example:
        >>> a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]))
        >>> lo, hi = propagate(a, np.array([4.0, 6, 3, 7]), np.zeros(4), np.full(4, np.inf), np.ones(4, bool))
        >>> lo.tolist(), hi.tolist()        # rows 4 and 6, columns 3 and 7 of 10 people
        ([0.0, 1.0, 0.0, 3.0], [3.0, 4.0, 3.0, 6.0])
    """
    m = a.shape[0]
    csc = sp.csc_matrix(a, dtype=float)
    csc.sort_indices()
    col = np.repeat(np.arange(csc.shape[1]), np.diff(csc.indptr))
    row = csc.indices
    val = csc.data
    present = np.flatnonzero(np.diff(csc.indptr) > 0)
    starts = csc.indptr[present]
    lo, hi = np.asarray(lower, dtype=float).copy(), np.asarray(upper, dtype=float).copy()
    integer = np.asarray(integer, dtype=bool)
    if row.size == 0:
        return lo, hi
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    slack = 1e-9 * scale
    pos = val > 0
    for _ in range(rounds):
        # Each entry's least and largest contribution a·x, and the row's totals without the infinite ones.
        least = np.where(pos, val * lo[col], val * hi[col])
        most = np.where(pos, val * hi[col], val * lo[col])
        with np.errstate(invalid="ignore"):
            least = np.where(np.isnan(least), 0.0, least)
            most = np.where(np.isnan(most), 0.0, most)
        inf_l, inf_m = np.isinf(least), np.isinf(most)
        sum_l = np.bincount(row, weights=np.where(inf_l, 0.0, least), minlength=m)
        sum_m = np.bincount(row, weights=np.where(inf_m, 0.0, most), minlength=m)
        cnt_l = np.bincount(row, weights=inf_l.astype(float), minlength=m)
        cnt_m = np.bincount(row, weights=inf_m.astype(float), minlength=m)
        rest_l = np.where(cnt_l[row] - inf_l > 0, -np.inf, sum_l[row] - np.where(inf_l, 0.0, least))
        rest_m = np.where(cnt_m[row] - inf_m > 0, np.inf, sum_m[row] - np.where(inf_m, 0.0, most))
        # a·x_j within [b − rest_m, b − rest_l]; divided by a (the ends swap where a < 0).
        low_ax, high_ax = b[row] - rest_m, b[row] - rest_l
        cand_lo = np.where(pos, low_ax, high_ax) / val
        cand_hi = np.where(pos, high_ax, low_ax) / val
        new_lo = lo.copy()
        new_hi = hi.copy()
        new_lo[present] = np.maximum(lo[present], np.maximum.reduceat(cand_lo - slack, starts))
        new_hi[present] = np.minimum(hi[present], np.minimum.reduceat(cand_hi + slack, starts))
        new_lo = np.where(integer, np.ceil(new_lo - 1e-6), new_lo)
        new_hi = np.where(integer, np.floor(new_hi + 1e-6), new_hi)
        if np.any(new_lo > new_hi + 1e-6 * np.maximum(1.0, np.abs(new_hi))):
            raise PrivriskError(CONTRADICT)
        new_hi = np.maximum(new_hi, new_lo)
        new_lo = new_lo + 0.0  # no −0.0
        moved = not (
            np.allclose(new_lo, lo, rtol=1e-9, atol=1e-12) and np.allclose(new_hi, hi, rtol=1e-9, atol=1e-12)
        )
        lo, hi = new_lo, new_hi
        if not moved:
            break
    return lo, hi
