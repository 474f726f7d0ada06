"""What an intruder can infer from released sums: the interval of each unknown consistent with all of them.

The unknowns x ≥ lower (≤ upper) satisfy A·x = b, one equation per released number. The interval of x_j is
[min x_j, max x_j] over that set, found by linear programming (HiGHS, through scipy); with ``integer=True``
(counts of people) over whole x, with :func:`scipy.optimize.milp` wherever the linear optimum is not already
whole. The work is cut down in five steps, none of which gives up exactness where it is asked for:

0. nested equations are taken apart: where one released total holds all the unknowns of a smaller one (the
   adults and the over-65s, a margin and one of its cells), the larger is replaced by the difference of the
   two. The new system has exactly the same solutions (the change is invertible, and over whole numbers too),
   but repeated totals (margins of cells released elsewhere) become empty or duplicates and are dropped, and
   totals over conditions that nest fall apart into one system per pattern of the conditions;
1. the system is split into its independent blocks (connected parts of the graph of equations and unknowns);
2. cheap bounds first: each unknown lies between ``lower`` and the least released total holding it, and
   bounds propagate through the equations (x_j ≥ b_i − Σ_{k≠j} U_k, x_j ≤ b_i − Σ_{k≠j} L_k: Fréchet's bounds
   when two margins are released); where they meet, the unknown is determined without a program;
3. every feasible point certifies: the true data (``known``) and each vertex the solver visits are whole
   solutions, and an unknown that one of them puts at its cheap bound has that bound as its exact end; an
   unknown that two of them put at different values is not determined;
4. one HiGHS model per block, solved again with only the objective changed (warm started by primal simplex),
   for the ends still open, and only for the unknowns whose interval can change a finding (``need``) in
   blocks larger than ``full_limit``; elsewhere the cheap bound is kept and marked as not tight.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse.csgraph import connected_components

from privrisk.errors import PrivriskError

__all__ = ["Intervals", "intervals"]

_TOL = 1e-7
# Above this many unknowns in one block, an interval is computed exactly only where ``need`` asks for it
# (where a disclosure depends on it); elsewhere it is the propagated bound, marked as not tight. Up to it every
# end gets its linear program, and integer programs run where ``need`` asks for them.
FULL_LIMIT = 200
# The time one integer program may take before the linear bound, rounded inwards, is kept (and marked as such).
MILP_SECONDS = 2.0
# … and all integer programs of one block together this long; later ones keep the rounded bound.
MILP_BUDGET = 20.0
# The programs over blocks above ``full_limit`` (after moves and small programs) may take this long in one call,
# all such blocks together; ends still open then stay at their propagated bounds and are counted as undecided.
LP_BUDGET = 20.0
# How many solutions other than the known one each block keeps (see Intervals.points).
_POINTS = 6

# need(lo, hi, seen_lo, seen_hi, cols) -> the unknowns of a block whose exact interval is still wanted.
Need = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Intervals:
    """The interval [lo, hi] of each unknown, and the equations (rows of A) that bound it.

    ``tight`` marks the intervals known to be exact (both ends); the others are valid but perhaps wider.
    ``rank`` is the rank of A, or -1 where a block was too large to factor. ``points`` are solutions other than
    ``known`` met on the way (whole ones for counts; only when ``known`` was given): any total over the unknowns
    that differs between them and ``known`` is not determined. ``undecided`` marks the unknowns ``need`` still
    asked for when a large block's programs ran out of time (``LP_BUDGET``).
    """

    lo: np.ndarray
    hi: np.ndarray
    rank: int
    witnesses: dict[int, tuple[int, ...]]
    tight: np.ndarray
    points: tuple[np.ndarray, ...] = ()
    undecided: np.ndarray | None = None


def _whole(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-6 * np.maximum(1.0, np.abs(x))))


def intervals(
    a: sp.csr_matrix,
    b: np.ndarray,
    *,
    integer: bool,
    lower: np.ndarray,
    upper: np.ndarray | None = None,
    explain: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
    full_limit: int = FULL_LIMIT,
    known: np.ndarray | None = None,
    need: Need | None = None,
    with_rank: bool = True,
    reached: tuple[np.ndarray, np.ndarray] | None = None,
) -> Intervals:
    """The interval of every unknown x_j over {x : A·x = b, lower ≤ x ≤ upper, x whole if ``integer``}.

    ``A`` has entries 0 and 1 (released totals over atoms). ``known`` is one solution (the true data), which
    certifies bounds for free. ``need`` picks, in blocks above ``full_limit`` unknowns, those whose exact
    interval is wanted (without it, every interval is exact). ``explain(lo, hi, cols)`` picks, once the
    intervals of a block (the unknowns ``cols``) are known, the unknowns whose determining equations are
    wanted (from their programs' duals): they are returned in ``witnesses``. ``with_rank=False`` skips the rank.
    ``reached`` = (low, high): for each unknown, a lower and a higher value that some solution gives it (found
    by the caller, e.g. by moves that keep every released total); they certify like ``known``.

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> a = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]]))   # x0+x1=3, x1+x2=4, all = 5
        >>> r = intervals(a, np.array([3., 4., 5.]), integer=True, lower=np.zeros(3))
        >>> r.lo.tolist(), r.hi.tolist()
        ([1.0, 2.0, 2.0], [1.0, 2.0, 2.0])
    """
    a = sp.csr_matrix(a, dtype=float)
    m, n = a.shape
    b = np.asarray(b, dtype=float)
    lower = np.asarray(lower, dtype=float)
    upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
    lo = lower.copy()
    hi = upper.copy()
    witnesses: dict[int, tuple[int, ...]] = {}
    tight = np.ones(n, dtype=bool)
    if m == 0 or n == 0:
        return Intervals(lo, hi, 0, witnesses, tight)
    if known is not None:
        known = np.asarray(known, dtype=float)
        scale = np.maximum(1.0, np.abs(b))
        fits = (
            np.all(np.abs(a @ known - b) <= 1e-6 * scale)
            and np.all(known >= lower - _TOL)
            and np.all(known <= upper + _TOL)
            and (not integer or _whole(known))
        )
        known = known if fits else None
    # The least released total holding x_j bounds it when every unknown is ≥ 0 (kept from the original totals,
    # which the reduction below takes apart).
    if np.all(lower >= 0) and a.nnz:
        coo0 = a.tocoo()
        least = np.full(n, np.inf)
        np.minimum.at(least, coo0.col, b[coo0.row])
        upper = np.minimum(upper, least)
    a, b, origin = _reduce(a, b, integer=integer)
    m = a.shape[0]
    # Bipartite graph of equations and unknowns: its connected parts are independent programs.
    coo = a.tocoo()
    graph = sp.csr_matrix((np.ones(coo.nnz, dtype=np.int8), (coo.row, coo.col + m)), shape=(m + n, m + n))
    _, comp = connected_components(graph, directed=True, connection="weak")
    rows_comp, cols_comp = comp[:m], comp[m:]
    order_r = np.argsort(rows_comp, kind="stable")
    order_c = np.argsort(cols_comp, kind="stable")
    labels = np.unique(comp)
    starts_r = np.searchsorted(rows_comp[order_r], labels)
    ends_r = np.searchsorted(rows_comp[order_r], labels, side="right")
    starts_c = np.searchsorted(cols_comp[order_c], labels)
    ends_c = np.searchsorted(cols_comp[order_c], labels, side="right")
    rank = 0
    deadline: float | None = None
    undecided = np.zeros(n, dtype=bool)
    points = [known.copy() for _ in range(_POINTS)] if known is not None else []
    for k in range(labels.size):
        rows = order_r[starts_r[k] : ends_r[k]]
        cols = order_c[starts_c[k] : ends_c[k]]
        if rows.size == 0:
            continue
        if cols.size == 0:
            if np.any(np.abs(b[rows]) > _TOL):
                raise PrivriskError(
                    "outputs: the released numbers contradict each other (an empty total is not 0)"
                )
            continue
        sub = a[rows][:, cols]
        block = _Block(
            sp.csr_matrix(sub),
            b[rows],
            integer=integer,
            lower=lower[cols],
            upper=upper[cols],
            known=None if known is None else known[cols],
            reached=None if reached is None or known is None else (reached[0][cols], reached[1][cols]),
        )
        full = cols.size <= full_limit
        if not full and deadline is None:
            deadline = time.perf_counter() + LP_BUDGET  # one budget for all the large blocks of this call
        lo_c, hi_c, tight_c = block.solve_all(need, cols, full=full, deadline=deadline)
        if need is not None and cols.size > full_limit:
            undecided[cols] = ~(block.lo_ok & block.hi_ok) & block._wanted(need, cols)
        lo[cols], hi[cols], tight[cols] = lo_c, hi_c, tight_c
        # Blocks are independent: a solution of one block beside the known values elsewhere solves the whole.
        for i, x in enumerate(block.points[: len(points)]):
            points[i][cols] = x
        rank_c = _rank(sub) if with_rank else -1
        rank = -1 if rank < 0 or rank_c < 0 else rank + rank_c
        if explain is not None:
            asked = np.flatnonzero(np.isin(cols, explain(lo_c, hi_c, cols)))
            for j, eqs in block.witnesses(asked).items():
                # A reduced equation is a difference of released ones: all of them are witnesses.
                used = sorted({int(e) for r in eqs for e in origin[int(rows[r])].indices})
                witnesses[int(cols[j])] = tuple(used)
    return Intervals(lo, hi, rank, witnesses, tight, tuple(points), undecided)


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
        pos = np.minimum(np.searchsorted(entries, want), entries.size - 1)
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
        raise PrivriskError("outputs: the released numbers contradict each other (no data fit them all)")
    seen: dict[bytes, int] = {}
    for i in np.flatnonzero(~drop).tolist():
        key = a.indices[a.indptr[i] : a.indptr[i + 1]].tobytes()
        e = seen.setdefault(key, i)
        if e != i:
            if abs(b[e] - b[i]) > tol:
                raise PrivriskError(
                    "outputs: the released numbers contradict each other (no data fit them all)"
                )
            drop[i] = True
    keep_rows = np.flatnonzero(~drop)
    return a[keep_rows], b[keep_rows], origin[keep_rows]


def _reduce(
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
        >>> r, rb, t = _reduce(a, np.array([9., 4, 5]), integer=True)
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


def _rank(sub: sp.csr_matrix) -> int:
    """The rank of a block: dense where that is cheap, else through the smaller Gram matrix, else unknown."""
    m, n = sub.shape
    if m * n <= 2_000_000:
        return int(np.linalg.matrix_rank(sub.toarray()))
    if min(m, n) <= 1_500:
        gram = (sub @ sub.T) if m <= n else (sub.T @ sub)
        return int(np.linalg.matrix_rank(gram.toarray(), hermitian=True))
    return -1


def _propagate(
    sub: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray, integer: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of every unknown implied by the equations one at a time (iterated to a fixed point).

    For a row Σ_{k∈i} x_k = b_i: x_j ≥ b_i − Σ_{k≠j} U_k and x_j ≤ b_i − Σ_{k≠j} L_k. With two margins of a
    table these are Fréchet's bounds max(0, r + c − N) … min(r, c).
    """
    m, _n = sub.shape
    csc = sp.csc_matrix(sub)
    c = np.repeat(np.arange(csc.shape[1]), np.diff(csc.indptr))
    r = csc.indices
    present = np.flatnonzero(np.diff(csc.indptr) > 0)
    starts = csc.indptr[present]
    lo, hi = lower.copy(), upper.copy()
    slack = 0.0 if integer else 1e-9 * max(1.0, float(np.max(np.abs(b), initial=0.0)))
    # Real bounds can shrink geometrically for ever: a few rounds get most of it.
    for _ in range(50 if integer else 8):
        new_lo, new_hi = lo.copy(), hi.copy()
        for bound, out, fn in ((hi, new_lo, np.maximum), (lo, new_hi, np.minimum)):
            finite = np.isfinite(bound)
            part = np.where(finite, bound, 0.0)
            total = np.bincount(r, weights=part[c], minlength=m)
            infinite = np.bincount(r, weights=(~finite)[c].astype(float), minlength=m)
            rest_inf = infinite[r] - (~finite)[c]
            implied = b[r] - (total[r] - part[c])
            if fn is np.maximum:
                implied = np.where(rest_inf > 0, -np.inf, implied - slack)
            else:
                implied = np.where(rest_inf > 0, np.inf, implied + slack)
            # Entries are in column order (CSC): one reduction per column.
            out[present] = fn(out[present], fn.reduceat(implied, starts))
        if integer:
            new_lo = np.ceil(new_lo - 1e-6)
            new_hi = np.floor(new_hi + 1e-6)
        if np.any(new_lo > new_hi + 1e-6 * np.maximum(1.0, np.abs(new_hi))):
            raise PrivriskError("outputs: the released numbers contradict each other (no data fit them all)")
        new_hi = np.maximum(new_hi, new_lo)
        moved = np.any(np.abs(new_lo - lo) > _TOL) or np.any(np.abs(new_hi - hi) > _TOL)
        lo, hi = new_lo, new_hi
        if not moved:
            break
    return lo, hi


def _highs_core() -> Any:
    """scipy's bundled HiGHS bindings (a private module), or None where this scipy has none or they changed:
    every program then goes through ``linprog``, which gives the same optima, only slower."""
    try:
        from scipy.optimize._highspy import _core
    except ImportError:
        return None
    needed = ("_Highs", "HighsLp", "MatrixFormat", "HighsStatus", "HighsModelStatus")
    return _core if all(hasattr(_core, name) for name in needed) else None


def highs_model(a: sp.spmatrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> tuple[Any, Any]:
    """scipy's bundled HiGHS bindings and a model of A·x = b within the bounds, for primal simplex: (core, model),
    or (None, None) where the private bindings are missing or changed (the caller then uses ``linprog``).

    Primal simplex because the callers solve the same model again and again with only the objective (or one row)
    changed: the last basis stays primal feasible, and a restart from it was measured 3–5 times quicker than dual.
    """
    core = _highs_core()
    if core is None:
        return None, None
    n = a.shape[1]
    try:
        csc = sp.csc_matrix(a)
        h = core._Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 4)
        lp = core.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = a.shape[0]
        lp.a_matrix_.num_col_ = n
        lp.a_matrix_.num_row_ = a.shape[0]
        lp.a_matrix_.format_ = core.MatrixFormat.kColwise
        lp.col_cost_ = np.zeros(n)
        lp.col_lower_ = lower
        lp.col_upper_ = upper
        lp.row_lower_ = b
        lp.row_upper_ = b
        lp.a_matrix_.start_ = csc.indptr
        lp.a_matrix_.index_ = csc.indices
        lp.a_matrix_.value_ = csc.data
        if h.passModel(lp) == core.HighsStatus.kError:  # pragma: no cover
            return None, None
    except (AttributeError, TypeError, ValueError):  # the private bindings changed: use linprog
        return None, None
    return core, h


class _Program:
    """One HiGHS model of a block: A·x = b, bounds; solved again and again with only the objective changed.

    After a change of objective the last basis stays primal feasible, so primal simplex restarts from it: a
    program then takes a few dozen iterations instead of a solve from scratch (scipy's ``linprog`` builds
    a new model every call). scipy's bundled HiGHS is used through its module ``_highspy``; where that is
    missing, every program goes through ``linprog``.
    """

    def __init__(self, sub: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        self.sub, self.b, self.lower, self.upper = sub, b, lower, upper
        self.n = sub.shape[1]
        self.cost_idx = np.empty(0, dtype=np.int32)
        self.deadline = np.inf  # a program that would end later stops and reports "timeout"
        self.h: Any = None
        self.core, self.h = highs_model(sub, b, lower, upper)

    def solve(
        self, idx: np.ndarray, val: np.ndarray
    ) -> tuple[str, float, np.ndarray | None, np.ndarray | None]:
        """Minimise Σ val·x[idx]: (status, optimum, x, duals of the equations)."""
        if self.h is not None:
            h, core = self.h, self.core
            if self.cost_idx.size:
                h.changeColsCost(self.cost_idx.size, self.cost_idx, np.zeros(self.cost_idx.size))
            self.cost_idx = np.asarray(idx, dtype=np.int32)
            h.changeColsCost(self.cost_idx.size, self.cost_idx, np.asarray(val, dtype=float))
            if np.isfinite(self.deadline):
                left = self.deadline - time.perf_counter()
                if left <= 0:
                    return "timeout", np.nan, None, None
                h.setOptionValue("time_limit", float(left))
            h.run()
            status = h.getModelStatus()
            if status == core.HighsModelStatus.kTimeLimit:
                return "timeout", np.nan, None, None
            if status == core.HighsModelStatus.kOptimal:
                sol = h.getSolution()
                x = np.asarray(sol.col_value)
                return "ok", float(np.dot(val, x[idx])), x, np.asarray(sol.row_dual)
            if status == core.HighsModelStatus.kInfeasible:
                raise PrivriskError(
                    "outputs: the released numbers contradict each other (no data fit them all)"
                )
            if status == core.HighsModelStatus.kUnbounded:
                return "unbounded", -np.inf, None, None
            # Anything else (a numerical difficulty of the warm start): solve this one from scratch.
        c = np.zeros(self.n)
        c[idx] = val
        bounds = np.column_stack([self.lower, np.where(np.isfinite(self.upper), self.upper, np.inf)])
        options: dict[str, Any] = {}
        if np.isfinite(self.deadline):
            left = self.deadline - time.perf_counter()
            if left <= 0:
                return "timeout", np.nan, None, None
            options["time_limit"] = float(left)
        res = linprog(c, A_eq=self.sub, b_eq=self.b, bounds=bounds, method="highs", options=options)
        if res.status == 1 and options:
            return "timeout", np.nan, None, None
        if res.status == 2:
            raise PrivriskError("outputs: the released numbers contradict each other (no data fit them all)")
        if res.status == 3:
            return "unbounded", -np.inf, None, None
        if res.status != 0:
            raise PrivriskError(f"outputs: the linear program failed: {res.message}")
        duals = getattr(getattr(res, "eqlin", None), "marginals", None)
        return "ok", float(res.fun), np.asarray(res.x), None if duals is None else np.asarray(duals)


class _Block:
    """The intervals of one connected block of the released system."""

    def __init__(
        self,
        sub: sp.csr_matrix,
        b: np.ndarray,
        *,
        integer: bool,
        lower: np.ndarray,
        upper: np.ndarray,
        known: np.ndarray | None,
        reached: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.sub, self.b, self.integer, self.lower = sub, b, integer, lower
        n = sub.shape[1]
        # The least released total containing x_j bounds it when every unknown is ≥ 0: the programs' box.
        trivial = upper.copy()
        if np.all(lower >= 0):
            coo = sub.tocoo()
            tmin = np.full(n, np.inf)
            np.minimum.at(tmin, coo.col, b[coo.row])
            trivial = np.minimum(trivial, tmin)
        self.trivial = trivial
        self.lo, self.hi = _propagate(sub, b, lower, trivial, integer)
        self.lo_ok = self.lo >= self.hi
        self.hi_ok = self.lo_ok.copy()
        self.seen_lo = np.full(n, np.inf)
        self.seen_hi = np.full(n, -np.inf)
        self.loose = np.zeros(n, dtype=bool)
        self.points: list[np.ndarray] = []
        self._program: _Program | None = None
        if known is not None:
            self.certify(known)
            if reached is not None:
                self.seen_lo = np.minimum(self.seen_lo, reached[0])
                self.seen_hi = np.maximum(self.seen_hi, reached[1])
                self._mark()

    @property
    def program(self) -> _Program:
        if self._program is None:
            self._program = _Program(self.sub, self.b, self.lower, self.trivial)
        return self._program

    def certify(self, x: np.ndarray) -> None:
        """A feasible point (whole, for counts): its values are reached, so a bound it meets is exact."""
        if self.integer and not _whole(x):
            return
        if self.integer:
            x = np.round(x)
        first = not np.all(np.isfinite(self.seen_lo))
        if not first and len(self.points) < _POINTS:
            if np.any(np.abs(x - self.seen_lo) > _TOL) or np.any(np.abs(x - self.seen_hi) > _TOL):
                self.points.append(x.copy())
        self.seen_lo = np.minimum(self.seen_lo, x)
        self.seen_hi = np.maximum(self.seen_hi, x)
        self._mark()

    def _mark(self) -> None:
        """Ends met by a value seen are exact."""
        tol = _TOL * np.maximum(1.0, np.abs(self.lo))
        self.lo_ok |= ~self.lo_ok & (self.seen_lo <= self.lo + tol)
        tol = _TOL * np.maximum(1.0, np.abs(self.hi))
        self.hi_ok |= ~self.hi_ok & np.isfinite(self.hi) & (self.seen_hi >= self.hi - tol)

    def _wanted(self, need: Need | None, cols: np.ndarray) -> np.ndarray:
        if need is None:
            return np.ones(self.lo.size, dtype=bool)
        return np.asarray(need(self.lo, self.hi, self.seen_lo, self.seen_hi, cols), dtype=bool)

    def solve_all(
        self, need: Need | None, cols: np.ndarray, *, full: bool, deadline: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The intervals of the block (lo, hi, tight). Unless ``full``, only where ``need`` asks, until
        ``deadline`` (a ``time.perf_counter()`` value; by default ``LP_BUDGET`` from now)."""
        milp_need = need
        need = None if full else need
        if full:
            deadline = np.inf
        elif deadline is None:
            deadline = time.perf_counter() + LP_BUDGET
        if not full:
            self.program.deadline = deadline
        # Programs over all open ends at once certify many bounds (a vertex sits at many of them); repeated
        # while they make progress. Then one program per end still open.
        for sign, ok in ((1.0, self.lo_ok), (-1.0, self.hi_ok)):
            for _ in range(20):
                open_ = np.flatnonzero(~ok & self._wanted(need, cols))
                if open_.size == 0 or time.perf_counter() > deadline:
                    break
                before = int((~ok).sum())
                status, _, x, _ = self.program.solve(open_, np.full(open_.size, sign))
                if x is None:
                    break
                self.certify(x)
                if int((~ok).sum()) >= before:
                    break
        milp_spent = 0.0
        open_ = np.flatnonzero(~(self.lo_ok & self.hi_ok) & self._wanted(need, cols))
        for j in open_.tolist():
            if time.perf_counter() > deadline:
                break
            for sign in (1.0, -1.0):
                ok = self.lo_ok if sign > 0 else self.hi_ok
                if ok[j] or not self._wanted_one(need, cols, j):
                    continue
                status, fun, x, _ = self.program.solve(np.array([j]), np.array([sign]))
                if status == "timeout":
                    break
                if status == "unbounded":
                    if sign > 0:
                        self.lo[j] = -np.inf
                    else:
                        self.hi[j] = np.inf
                    ok[j] = True
                    continue
                assert x is not None
                value = sign * fun
                exact = True
                if self.integer and not _whole(x):
                    if milp_spent < MILP_BUDGET and self._wanted_one(milp_need, cols, j):
                        started = time.perf_counter()
                        value, exact = self._integer_bound(j, sign, value)
                        milp_spent += time.perf_counter() - started
                    else:
                        value = np.ceil(value - 1e-9) if sign > 0 else np.floor(value + 1e-9)
                        exact = False
                elif self.integer:
                    value = float(np.round(value))
                self.certify(x)
                if sign > 0:
                    self.lo[j] = max(self.lo[j], value)
                else:
                    self.hi[j] = min(self.hi[j], value)
                ok[j] = True
                self.loose[j] |= not exact
        tight = self.lo_ok & self.hi_ok & ~self.loose
        return self.lo.copy(), self.hi.copy(), tight

    def _wanted_one(self, need: Need | None, cols: np.ndarray, j: int) -> bool:
        if need is None:
            return True
        sl = slice(j, j + 1)
        return bool(need(self.lo[sl], self.hi[sl], self.seen_lo[sl], self.seen_hi[sl], cols[sl])[0])

    def witnesses(self, asked: np.ndarray) -> dict[int, tuple[int, ...]]:
        """Which released numbers pin down the unknowns asked about: the duals of their two programs."""
        out: dict[int, tuple[int, ...]] = {}
        for j in asked.tolist():
            used: set[int] = set()
            for sign in (1.0, -1.0):
                _, _, _, duals = self.program.solve(np.array([j]), np.array([sign]))
                if duals is not None:
                    used |= {int(e) for e in np.flatnonzero(np.abs(duals) > 1e-9)}
            out[j] = tuple(sorted(used))
        return out

    def _integer_bound(self, j: int, sign: float, relaxed: float) -> tuple[float, bool]:
        """The bound over whole x when the linear optimum ``relaxed`` is fractional, and whether it is exact.
        The linear bound rounded inwards is always valid; the integer program (given ``MILP_SECONDS``) can only
        tighten it."""
        rounded = float(np.ceil(relaxed - 1e-9)) if sign > 0 else float(np.floor(relaxed + 1e-9))
        c = np.zeros(self.sub.shape[1])
        c[j] = sign
        res = milp(
            c,
            constraints=LinearConstraint(self.sub, self.b, self.b),
            integrality=np.ones(self.sub.shape[1]),
            bounds=Bounds(self.lo, self.hi),
            options={"time_limit": MILP_SECONDS},
        )
        if res.status == 0 and res.x is not None:
            self.certify(res.x)
            return float(np.round(c @ res.x)) * sign, True
        if res.status == 2:
            raise PrivriskError(
                "outputs: the released counts contradict each other (no whole numbers fit them all)"
            )
        return rounded, False
