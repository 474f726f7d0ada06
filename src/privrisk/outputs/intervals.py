"""What an intruder can infer from released sums: the interval of each unknown consistent with all of them.

The unknowns x ≥ lower (≤ upper) satisfy A·x = b, one equation per released number. The interval of x_j is
[min x_j, max x_j] over that set, found by linear programming (HiGHS through :func:`scipy.optimize.linprog`);
with ``integer=True`` (counts of people) over whole x, with :func:`scipy.optimize.milp` wherever the linear
optimum is not already whole. Feasible points found on the way certify other bounds for free: a whole solution
in which x_k sits at 0 (or at the least released total containing it) proves that bound of x_k, so only the
unknowns left uncertified need a program of their own. The system is split into its connected parts first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse.csgraph import connected_components

from privrisk.errors import PrivriskError

__all__ = ["Intervals", "intervals"]

_TOL = 1e-7
# Above this many unknowns in one connected part, the upper end is computed exactly only where the lower end is
# above the lower bound (where a disclosure is possible); elsewhere it is the least total holding the unknown.
FULL_LIMIT = 3_000
# The time one integer program may take before the linear bound, rounded inwards, is kept (and marked as such).
MILP_SECONDS = 2.0
# … and all integer programs of one connected part together this long; later ones keep the rounded bound.
MILP_BUDGET = 20.0


@dataclass(frozen=True)
class Intervals:
    """The interval [lo, hi] of each unknown, and the equations (rows of A) that bound it."""

    lo: np.ndarray
    hi: np.ndarray
    rank: int
    witnesses: dict[int, tuple[int, ...]]
    tight: np.ndarray


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
) -> Intervals:
    """The interval of every unknown x_j over {x : A·x = b, lower ≤ x ≤ upper, x whole if ``integer``}.

    ``A`` has entries 0 and 1 (released totals over atoms). ``explain(lo, hi, cols)`` picks, once the intervals
    of a connected part (the unknowns ``cols``) are known, the unknowns whose determining equations are wanted
    (from their programs' duals): they are returned in ``witnesses``.

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> a = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]]))   # x0+x1=3, x1+x2=4, all = 5
        >>> r = intervals(a, np.array([3., 4., 5.]), integer=True, lower=np.zeros(3))
        >>> r.lo.tolist(), r.hi.tolist()
        ([1.0, 2.0, 2.0], [1.0, 2.0, 2.0])
    """
    a = sp.csr_matrix(a, dtype=float)
    m, n = a.shape
    lower = np.asarray(lower, dtype=float)
    upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
    lo = lower.copy()
    hi = upper.copy()
    witnesses: dict[int, tuple[int, ...]] = {}
    tight = np.ones(n, dtype=bool)
    if m == 0 or n == 0:
        return Intervals(lo, hi, 0, witnesses, tight)
    # Bipartite graph of equations and unknowns: its connected parts are independent programs.
    graph = sp.bmat([[None, a], [a.T, None]], format="csr")
    _, comp = connected_components(graph, directed=False)
    rows_comp, cols_comp = comp[:m], comp[m:]
    rank = 0
    for c in np.unique(rows_comp):
        rows = np.flatnonzero(rows_comp == c)
        cols = np.flatnonzero(cols_comp == c)
        if cols.size == 0:
            if np.any(np.abs(b[rows]) > _TOL):
                raise PrivriskError(
                    "outputs: the released numbers contradict each other (an empty total is not 0)"
                )
            continue
        sub = a[rows][:, cols]
        lo_c, hi_c, rank_c, wit, tight_c = _component(
            sub,
            b[rows],
            integer=integer,
            lower=lower[cols],
            upper=upper[cols],
            explain=explain,
            cols=cols,
            full=cols.size <= full_limit,
        )
        lo[cols], hi[cols], tight[cols] = lo_c, hi_c, tight_c
        rank += rank_c
        for k, eqs in wit.items():
            witnesses[int(cols[k])] = tuple(int(rows[e]) for e in eqs)
    return Intervals(lo, hi, rank, witnesses, tight)


def _rank(sub: sp.csr_matrix) -> int:
    if sub.shape[0] * sub.shape[1] <= 4_000_000:
        return int(np.linalg.matrix_rank(sub.toarray()))
    return -1  # too large to factor densely; the intervals below do not need it


def _component(
    sub: sp.csr_matrix,
    b: np.ndarray,
    *,
    integer: bool,
    lower: np.ndarray,
    upper: np.ndarray,
    explain: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None,
    cols: np.ndarray,
    full: bool = True,
) -> tuple[np.ndarray, np.ndarray, int, dict[int, tuple[int, ...]], np.ndarray]:
    _m, n = sub.shape
    # The least released total containing x_j bounds it when every unknown is ≥ 0.
    trivial = upper.copy()
    if np.all(lower >= 0):
        coo = sub.tocoo()
        tmin = np.full(n, np.inf)
        np.minimum.at(tmin, coo.col, b[coo.row])
        trivial = np.minimum(trivial, tmin)
    bounds = list(zip(lower, np.where(np.isfinite(trivial), trivial, np.inf), strict=True))
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    lo[lower == trivial] = lower[lower == trivial]
    hi[lower == trivial] = trivial[lower == trivial]

    def certify(x: np.ndarray) -> None:
        if integer and not _whole(x):
            return
        at_lo = np.isnan(lo) & (np.abs(x - lower) <= _TOL * np.maximum(1, np.abs(lower)))
        lo[at_lo] = lower[at_lo]
        at_hi = (
            np.isnan(hi)
            & np.isfinite(trivial)
            & (np.abs(x - trivial) <= _TOL * np.maximum(1, np.abs(trivial)))
        )
        hi[at_hi] = trivial[at_hi]

    def solve(c: np.ndarray) -> tuple[float, np.ndarray | None, np.ndarray | None, str]:
        res = linprog(c, A_eq=sub, b_eq=b, bounds=bounds, method="highs")
        if res.status == 2:
            raise PrivriskError("outputs: the released numbers contradict each other (no data fit them all)")
        if res.status == 3:
            return -np.inf, None, None, "unbounded"
        if res.status != 0:
            raise PrivriskError(f"outputs: the linear program failed: {res.message}")
        duals = getattr(getattr(res, "eqlin", None), "marginals", None)
        return float(res.fun), np.asarray(res.x), None if duals is None else np.asarray(duals), "ok"

    # Programs over all uncertified unknowns at once certify most bounds (a vertex sits at many of them);
    # repeated while they make progress, then one program per unknown still open.
    for sign, out in ((1.0, lo), (-1.0, hi)):
        for _ in range(20):
            open_ = np.isnan(out)
            if not open_.any():
                break
            before = int(open_.sum())
            _, x, _, status = solve(np.where(open_, sign, 0.0))
            if x is None:
                break
            certify(x)
            if int(np.isnan(out).sum()) >= before:
                break
    witnesses: dict[int, tuple[int, ...]] = {}
    loose = np.zeros(n, dtype=bool)
    milp_spent = [0.0]
    for j in range(n):
        for sign, out in ((1.0, lo), (-1.0, hi)):
            if not np.isnan(out[j]):
                continue
            if not full and sign < 0 and lo[j] == lower[j]:
                # A large part: an unknown that can sit at its lower bound reveals nothing below the threshold
                # (its interval holds 0 and its true value), so its upper end stays the least total holding it.
                continue
            c = np.zeros(n)
            c[j] = sign
            fun, x, duals, status = solve(c)
            if status == "unbounded":
                out[j] = -np.inf if sign > 0 else np.inf
                continue
            assert x is not None
            value = sign * fun
            if integer and not _whole(x):
                if milp_spent[0] < MILP_BUDGET:
                    started = time.perf_counter()
                    value, exact = _integer_bound(sub, b, lower, trivial, c, value)
                    milp_spent[0] += time.perf_counter() - started
                else:
                    value, exact = (np.ceil(value - 1e-9) if sign > 0 else np.floor(value + 1e-9)), False
                if not exact:
                    loose[j] = True
            elif integer:
                value = float(np.round(value))
            certify(x)
            out[j] = value
    # Which released numbers pin down the unknowns asked about: the duals of their two programs.
    asked: list[int] = (
        [] if explain is None else np.flatnonzero(np.isin(cols, explain(lo, hi, cols))).tolist()
    )
    for j in asked:
        for sign in (1.0, -1.0):
            c = np.zeros(n)
            c[j] = sign
            _, _, duals, status = solve(c)
            if duals is not None:
                used = np.flatnonzero(np.abs(duals) > 1e-9)
                witnesses[j] = tuple(sorted(set(witnesses.get(j, ())) | {int(e) for e in used}))
    tight = ~np.isnan(hi) & ~loose
    hi = np.where(np.isnan(hi), trivial, hi)
    return lo, hi, _rank(sub), witnesses, tight


def _integer_bound(
    sub: sp.csr_matrix,
    b: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    c: np.ndarray,
    relaxed: float,
) -> tuple[float, bool]:
    """The bound over whole x (c picks ± one unknown) when the linear optimum ``relaxed`` is fractional, and
    whether it is exact. The linear bound rounded inwards is always valid; the integer program (given
    ``MILP_SECONDS``) can only tighten it."""
    sign = 1.0 if c.sum() > 0 else -1.0
    rounded = float(np.ceil(relaxed - 1e-9)) if sign > 0 else float(np.floor(relaxed + 1e-9))
    res = milp(
        c,
        constraints=LinearConstraint(sub, b, b),
        integrality=np.ones(sub.shape[1]),
        bounds=Bounds(lower, upper),
        options={"time_limit": MILP_SECONDS},
    )
    if res.status == 0 and res.x is not None:
        return float(np.round(c @ res.x)) * sign, True
    if res.status == 2:
        raise PrivriskError(
            "outputs: the released counts contradict each other (no whole numbers fit them all)"
        )
    return rounded, False
