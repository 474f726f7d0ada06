"""What an intruder can infer from released totals: the least and the largest value of any total over the atoms.

The unknowns x satisfy A·x = b (one equation per released number), lower ≤ x ≤ upper, and x_j is whole where
``integer[j]`` (counts of people; sums of a magnitude are real). The interval of a total c·x is [min c·x, max c·x]
over that set. :class:`Region` computes it exactly, by linear programming (HiGHS through :mod:`privrisk.solver`)
and an integer programme wherever the linear optimum is not whole. The work is cut down in four steps, none of
which gives up exactness:

0. nested totals are taken apart (:func:`privrisk.outputs.reduction.reduce`): the solutions stay the same, but
   totals over conditions that nest fall apart into one system per pattern of the conditions;
1. the system is split into independent blocks (connected parts of the graph of equations and unknowns);
2. cheap bounds: each unknown between the bounds the equations imply one at a time
   (:func:`privrisk.outputs.reduction.propagate`); a total between the sums of its unknowns' bounds;
3. every whole solution certifies: the true data (``known``) and each whole vertex the solver visits reach values;
   a total whose bound one of them reaches has that bound as its exact end;
4. one HiGHS model per block, solved again with only its objective changed (primal simplex from the last basis).

Budgets are counted in simplex iterations and branch-and-bound nodes, never in seconds, so that the same request
gives the same answer on every run and machine; an end not decided within them keeps a valid outer bound and is
marked undecided.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privrisk.errors import PrivriskError
from privrisk.outputs.moves import walks
from privrisk.outputs.nearby import nearby_points
from privrisk.outputs.reduction import CONTRADICT, propagate, rank, reduce
from privrisk.solver import Program

__all__ = ["Ends", "Intervals", "Region", "intervals"]

# Every block up to this many unknowns gets all its atoms' intervals exactly; larger blocks only where ``need``
# asks (see :func:`intervals`).
FULL_LIMIT = 200
# Simplex iterations all programmes of one Region may take together, and one programme at most; branch-and-bound
# nodes one integer programme may take. Deterministic: the same work ends at the same place on every run.
ITERATIONS = 40_000_000
ITERATIONS_ONE = 2_000_000
NODES = 2_000
# An iteration on a block of more equations than this costs more of the budget: (equations / WORK_ROWS)² of it,
# as a simplex iteration's time grows about so (3.5 ms on a block of 8,752 equations, the large request of
# ``benchmarks/outputs.py``, against microseconds on the small blocks). Still deterministic; what the budget leaves
# open is counted undecided, never passed.
WORK_ROWS = 500
# Blocks of more equations get no integer programme: on 8,752 equations and 25,000 whole unknowns one ran for
# minutes inside HiGHS's presolve and search (the iteration limit does not bound those); the rounded linear bound
# is kept and the end counted undecided.
MIP_ROWS = 2_000
# Rounds of programmes over all open ends at once (each certifies many ends with one vertex), and the simplex
# iterations one of them may take: they only look for whole vertices (a certificate, never a proof), so one that
# runs long is cut short and its ends are left to their own programmes. Uncapped, at 10⁵ atoms a single one took
# minutes and the rounds spent the budget the ends' own programmes needed (issue 36).
BATCH_ROUNDS = 12
BATCH_ITERATIONS = 20_000
# Objectives tried for a whole solution at a rounded linear bound before an integer programme.
WITNESS_TRIES = 4
# Simplex iterations of each try for a witness: a whole vertex is a shortcut, not a proof (the integer programme is),
# and on a block of 25,000 counts one try over every unknown took 155,000 iterations (the large request of
# ``benchmarks/outputs.py``); the last vertex when the cap ends it is tried as it is.
WITNESS_ITERATIONS = 5_000
_POINTS = 6
# Two ends of a real total closer than this (relative to the scale of the system, about 1) are one value: HiGHS
# meets each equation to 10⁻⁷, and a total over many of them may be off by more.
PRECISION = 1e-6
_TOL = 1e-7


def _split(labels: np.ndarray) -> dict[int, np.ndarray]:
    """The positions of each label (in increasing order)."""
    order = np.argsort(labels, kind="stable")
    keys, starts = np.unique(labels[order], return_index=True)
    ends = np.r_[starts[1:], order.size] if starts.size else starts
    return {int(k): order[s:e] for k, s, e in zip(keys, starts, ends, strict=True)}


def _whole(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-6 * np.maximum(1.0, np.abs(x))))


@dataclass
class Ends:
    """The intervals of k totals: outer bounds ``lo``/``hi`` (exact where ``lo_exact``/``hi_exact``), the least
    and largest values whole solutions were seen to give (``seen_lo``/``seen_hi``), and the ends a budget left
    open (``undecided``)."""

    lo: np.ndarray
    hi: np.ndarray
    lo_exact: np.ndarray
    hi_exact: np.ndarray
    seen_lo: np.ndarray
    seen_hi: np.ndarray
    undecided: np.ndarray
    rows: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: (total, sign) → the released equations whose duals were not zero in that end's own programme (1: least,
    #: −1: largest), so that :meth:`Region.why` need not solve it again.
    used: dict[tuple[int, int], set[int]] = field(default_factory=dict)


# need(ends) -> (lower ends wanted, upper ends wanted): which totals' exact ends still matter.
Need = Callable[[Ends], tuple[np.ndarray, np.ndarray]]


class Region:
    """{x : A·x = b, lower ≤ x ≤ upper, x_j whole where integer[j]}: what an intruder cannot rule out.

    ``known`` is one solution (the true data), which certifies bounds for free. Equations that are 0/1 rows over
    unknowns of one kind (all whole or all real) are taken apart where they nest; others (a mean's sum − m·count)
    are kept as they are. ``origin`` maps the equations solved to the released ones (for the witnesses).

    Example:
        >>> a = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]]))   # x0+x1=3, x1+x2=4, all = 5
        >>> r = Region(a, np.array([3.0, 4, 5]), lower=np.zeros(3), integer=np.ones(3, bool))
        >>> e = r.extremes(sp.identity(3, format="csr"))
        >>> e.lo.tolist(), e.hi.tolist()
        ([1.0, 2.0, 2.0], [1.0, 2.0, 2.0])
    """

    def __init__(
        self,
        a: sp.spmatrix,
        b: np.ndarray,
        *,
        lower: np.ndarray,
        upper: np.ndarray | None = None,
        integer: np.ndarray,
        known: np.ndarray | None = None,
        iterations: int | None = None,
    ) -> None:
        a = sp.csr_matrix(a, dtype=float)
        a.sort_indices()
        m, n = a.shape
        self.n = n
        b = np.asarray(b, dtype=float)
        self.integer = np.asarray(integer, dtype=bool).reshape(-1)
        if self.integer.size == 1 and n != 1:
            self.integer = np.full(n, bool(self.integer[0]))
        lower = np.asarray(lower, dtype=float)
        upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self.budget = int(ITERATIONS if iterations is None else iterations)
        self.undecided_solves = 0
        # Take nested totals apart, per kind of unknown (whole, real); other rows are kept.
        whole_row = np.ones(m, dtype=bool)
        real_row = np.ones(m, dtype=bool)
        unit = np.ones(m, dtype=bool)
        if a.nnz:
            rows_of = np.repeat(np.arange(m), np.diff(a.indptr))
            np.logical_and.at(whole_row, rows_of, self.integer[a.indices])
            np.logical_and.at(real_row, rows_of, ~self.integer[a.indices])
            np.logical_and.at(unit, rows_of, a.data == 1.0)
        parts, rhs, origins = [], [], []
        for mask, whole in ((unit & whole_row, True), (unit & real_row & ~whole_row, False)):
            idx = np.flatnonzero(mask)
            if idx.size:
                r, rb, t = reduce(a[idx], b[idx], integer=whole)
                parts.append(r)
                rhs.append(rb)
                origins.append(
                    sp.csr_matrix(
                        t
                        @ sp.csr_matrix((np.ones(idx.size), (np.arange(idx.size), idx)), shape=(idx.size, m))
                    )
                )
        rest = np.flatnonzero(~((unit & whole_row) | (unit & real_row & ~whole_row)))
        if rest.size:
            parts.append(a[rest])
            rhs.append(b[rest])
            origins.append(
                sp.csr_matrix((np.ones(rest.size), (np.arange(rest.size), rest)), shape=(rest.size, m))
            )
        self.a = sp.csr_matrix(sp.vstack(parts, format="csr")) if parts else sp.csr_matrix((0, n))
        self.b = np.concatenate(rhs) if rhs else np.empty(0)
        self.origin = sp.csr_matrix(sp.vstack(origins, format="csr")) if origins else sp.csr_matrix((0, m))
        self.a.eliminate_zeros()
        empty = np.diff(self.a.indptr) == 0
        if np.any(np.abs(self.b[empty]) > 1e-6 * max(1.0, float(np.max(np.abs(self.b), initial=0.0)))):
            raise PrivriskError(CONTRADICT)
        if empty.any():
            keep = np.flatnonzero(~empty)
            self.a, self.b, self.origin = self.a[keep], self.b[keep], self.origin[keep]
        self.released = a
        self.lo, self.hi = propagate(self.a, self.b, lower, upper, self.integer)
        self.known: np.ndarray | None = None
        if known is not None:
            k = np.asarray(known, dtype=float)
            scale = np.maximum(1.0, np.abs(b))
            fits = (
                np.all(np.abs(a @ k - b) <= 1e-6 * scale)
                and np.all(k >= lower - 1e-6 * np.maximum(1.0, np.abs(k)))
                and np.all(k <= upper + 1e-6 * np.maximum(1.0, np.abs(k)))
                and _whole(k[self.integer])
            )
            self.known = k if fits else None
        # Blocks: connected parts of the bipartite graph of the (reduced) equations and the unknowns.
        mr = self.a.shape[0]
        coo = self.a.tocoo()
        graph = sp.csr_matrix(
            (np.ones(coo.nnz, dtype=np.int8), (coo.row, coo.col + mr)), shape=(mr + n, mr + n)
        )
        _, comp = connected_components(graph, directed=False)
        self.row_block, self.col_block = comp[:mr], comp[mr:]
        self._cols = _split(self.col_block)
        self._rows = _split(self.row_block)
        self._lp: dict[int, Program] = {}
        self._mip: dict[int, Program] = {}
        self._sub: dict[int, sp.csr_matrix] = {}
        self.points: list[np.ndarray] = []  # whole solutions other than the truth, met on the way
        # Whole solutions found without a solver (:mod:`privrisk.outputs.moves`): changes to ``known``, one per row.
        self.moves: sp.csr_matrix | None = None
        # More such moves around given unknowns (the atoms of the totals the moves above left open), in batches.
        self.more_moves: Callable[[np.ndarray], Iterable[sp.csr_matrix]] | None = None
        self._checked: sp.csr_matrix | None = None

    # --- one block ------------------------------------------------------------------------------------------

    def block_cols(self, k: int) -> np.ndarray:
        return self._cols[k]

    def _block_matrix(self, k: int) -> sp.csr_matrix:
        """Block ``k``'s equations over its own unknowns (built once)."""
        if k not in self._sub:
            rows = self._rows.get(k, np.empty(0, np.int64))
            self._sub[k] = sp.csr_matrix(self.a[rows][:, self._cols[k]])
        return self._sub[k]

    def _program(self, k: int, mip: bool) -> Program:
        store = self._mip if mip else self._lp
        if k not in store:
            rows, cols = self._rows.get(k, np.empty(0, np.int64)), self._cols[k]
            sub = self._block_matrix(k)
            store[k] = Program(
                sub,
                self.b[rows],
                self.b[rows],
                lower=self.lo[cols],
                upper=self.hi[cols],
                integer=self.integer[cols] if mip else None,
            )
            if not mip and self.known is not None and rows.size:
                store[k].start_at(self.known[cols])
        return store[k]

    def _solve(
        self,
        k: int,
        local: np.ndarray,
        val: np.ndarray,
        sign: float,
        whole_objective: bool,
        exact: bool = True,
        cap: int = ITERATIONS_ONE,
    ) -> tuple[float, bool, bool, np.ndarray | None, np.ndarray | None]:
        """One block's optimum of Σ val·x[local]: (value, exact, decided, a whole solution or None, duals).
        Without ``exact``, a fractional linear optimum is left as it is (no integer programme). ``cap``: the
        simplex iterations the linear programme may take (at most :data:`ITERATIONS_ONE`)."""
        cols = self._cols[k]
        if k not in self._rows:  # unknowns in no equation: each at its own bound
            ends = np.where((val * sign) > 0, self.lo[cols][local], self.hi[cols][local])
            with np.errstate(invalid="ignore"):
                value = float(np.sum(val * ends))
            return (value if not np.isnan(value) else sign * -np.inf), True, True, None, None
        if self._left(k) <= 0:
            self.undecided_solves += 1
            return np.nan, False, False, None, None
        prog = self._program(k, mip=False)
        run = prog.minimise if sign > 0 else prog.maximise
        # ``cap`` and the budget are work: iterations times the block's weight.
        sol = run(local, val, iterations=min(ITERATIONS_ONE, cap, self.budget) // self._weight(k))
        self.budget -= prog.iterations * self._weight(k)
        if sol.status == "infeasible":
            raise PrivriskError(CONTRADICT)
        if sol.status == "unbounded":
            return -sign * np.inf, True, True, None, None
        if sol.status != "optimal" or sol.x is None:
            self.undecided_solves += 1
            return np.nan, False, False, None, None
        x, value = sol.x, sol.value
        ints = self.integer[cols]
        if not ints.any() or _whole(x[ints]):
            x = np.where(ints, np.round(x), x)
            if whole_objective:  # the whole point's own total, not the solver's 1.0000000000000002
                value = float(np.dot(val, x[local]))
            return value, True, True, x, sol.row_dual
        rounded = value
        if whole_objective:
            rounded = float(np.ceil(value - 1e-6)) if sign > 0 else float(np.floor(value + 1e-6))
        if self.known is not None and abs(
            float(np.dot(val, self.known[cols][local])) - rounded
        ) <= _TOL * max(1.0, abs(rounded)):
            # The truth reaches the (rounded) linear bound: it is the whole optimum.
            return rounded, True, True, self.known[cols].copy(), sol.row_dual
        if whole_objective and local.size == 1:
            point = self._witness(k, prog, int(local[0]), rounded / float(val[0]))
            if point is not None:
                return rounded, True, True, point, sol.row_dual
        if not exact:
            return rounded, False, True, None, sol.row_dual
        if self._rows[k].size > MIP_ROWS:
            # Too large for an integer programme: the rounded linear bound holds, the end stays undecided.
            self.undecided_solves += 1
            return rounded, False, False, None, sol.row_dual
        # The linear optimum is fractional: the integer programme (its proven bound holds if it stops early).
        mip = self._program(k, mip=True)
        run = mip.minimise if sign > 0 else mip.maximise
        msol = run(
            local, val, nodes=NODES, iterations=max(1, min(ITERATIONS_ONE, self.budget) // self._weight(k))
        )
        self.budget -= mip.iterations * self._weight(k)
        if msol.status == "optimal" and msol.x is not None:
            return msol.value, True, True, msol.x, sol.row_dual
        if msol.status == "infeasible":
            raise PrivriskError(CONTRADICT)
        bound = msol.bound if np.isfinite(msol.bound) else value
        bound = max(bound, value) if sign > 0 else min(bound, value)
        if whole_objective:
            bound = float(np.ceil(bound - 1e-6)) if sign > 0 else float(np.floor(bound + 1e-6))
        self.undecided_solves += 1
        return bound, False, False, None, sol.row_dual

    def _witness(self, k: int, prog: Program, j: int, target: float) -> np.ndarray | None:
        """A whole solution of block ``k`` with its unknown ``j`` at ``target`` (the rounded linear bound), or None.

        A linear optimum of one unknown is often fractional although a whole solution reaches its rounded value:
        with ``j`` held there, vertices of what is left are tried (a few objectives, fixed seeds); a whole vertex
        proves the bound is the integer optimum without an integer programme, which costs a thousand times more.
        """
        cols = self._cols[k]
        lo, hi = float(self.lo[cols][j]), float(self.hi[cols][j])
        if not (lo - _TOL <= target <= hi + _TOL) or not float(target).is_integer():
            return None
        ints = self.integer[cols]
        everyone = np.arange(cols.size)
        rng = np.random.default_rng(cols.size * 7919 + j)
        prog.set_col_bounds(j, target, target)
        try:
            for attempt in range(WITNESS_TRIES):
                weights = np.ones(cols.size) if attempt == 0 else rng.integers(1, 8, cols.size).astype(float)
                cap = max(1, min(WITNESS_ITERATIONS, self.budget) // self._weight(k))
                sol = prog.minimise(everyone, weights, iterations=cap)
                self.budget -= prog.iterations * self._weight(k)
                if sol.status == "infeasible":
                    return None
                # Any whole vertex will do, not only the optimal one: primal simplex's last vertex when the cap
                # ended it is feasible too, checked before it is taken.
                x = sol.x if sol.status == "optimal" else sol.incumbent
                if x is not None and _whole(x[ints]):
                    x = np.where(ints, np.round(x), x)
                    if self._solves(k, x) and abs(x[j] - target) <= _TOL:
                        return x
        finally:
            prog.set_col_bounds(j, lo, hi)
        return None

    def _weight(self, k: int) -> int:
        """The budget one simplex iteration on block ``k`` costs (:data:`WORK_ROWS`)."""
        rows = self._rows.get(k)
        return max(1, int(((0 if rows is None else rows.size) / WORK_ROWS) ** 2))

    def _left(self, k: int) -> int:
        """The simplex iterations on block ``k`` the budget still allows."""
        return max(0, self.budget // self._weight(k))

    def _solves(self, k: int, x: np.ndarray) -> bool:
        """Whether ``x`` solves block ``k``: its equations, its bounds, whole where it must be."""
        rows, cols = self._rows.get(k, np.empty(0, np.int64)), self._cols[k]
        sub = self._block_matrix(k)
        b = self.b[rows]
        tol = _TOL * np.maximum(1.0, np.abs(x))
        return bool(
            np.all(np.abs(sub @ x - b) <= _TOL * np.maximum(1.0, np.abs(b)))
            and np.all(x >= self.lo[cols] - tol)
            and np.all(x <= self.hi[cols] + tol)
            and _whole(x[self.integer[cols]])
        )

    def optimise(
        self, idx: np.ndarray, val: np.ndarray, sign: float, *, exact: bool = True, cap: int = ITERATIONS_ONE
    ) -> tuple[float, bool, bool, list[tuple[int, np.ndarray]], set[int]]:
        """The least (``sign`` 1) or largest (−1) value of Σ val·x[idx]: (value, exact, decided, whole solutions
        of the blocks touched, released equations whose duals are not zero). Without ``exact`` no integer
        programme is run (the value may then be the rounded linear bound). ``cap``: the simplex iterations each
        block's linear programme may take (a programme cut short leaves its block undecided)."""
        idx = np.asarray(idx, dtype=np.int64)
        val = np.asarray(val, dtype=float)
        whole_objective = bool(np.all(self.integer[idx])) and _whole(val)
        # ``exact`` is the caller's request; ``reached`` whether every block's value is its optimum.
        total, reached, decided = 0.0, True, True
        parts: list[tuple[int, np.ndarray]] = []
        used: set[int] = set()
        blocks = self.col_block[idx]
        for k in np.unique(blocks).tolist():
            mine = blocks == k
            cols = self._cols[k]
            local = np.searchsorted(cols, idx[mine])
            value, ex, dec, x, duals = self._solve(k, local, val[mine], sign, whole_objective, exact, cap)
            if not dec:
                # A valid outer bound from the unknowns' bounds where the programme did not end.
                ends = np.where(val[mine] * sign > 0, self.lo[idx[mine]], self.hi[idx[mine]])
                with np.errstate(invalid="ignore"):
                    outer = float(np.sum(val[mine] * ends))
                value = value if np.isfinite(value) else (outer if not np.isnan(outer) else -sign * np.inf)
            total += value
            reached &= ex
            decided &= dec
            if x is not None:
                parts.append((k, x))
            if duals is not None:
                rows = self._rows[k][np.abs(duals) > 1e-9]
                if rows.size:
                    used |= set(self.origin[rows].indices.tolist())
        return total, reached, decided, parts, used

    # --- many totals ----------------------------------------------------------------------------------------

    def _point_values(
        self, g_csc: sp.csc_matrix, base: np.ndarray, parts: list[tuple[int, np.ndarray]]
    ) -> np.ndarray:
        """The totals at the whole solution made of ``parts`` in their blocks and the truth elsewhere."""
        assert self.known is not None
        out = base.copy()
        for k, x in parts:
            cols = self._cols[k]
            delta = x - self.known[cols]
            nz = np.flatnonzero(np.abs(delta) > 0)
            if nz.size:
                out += g_csc[:, cols[nz]] @ delta[nz]
        return out

    def _valid(self, moves: sp.csr_matrix) -> sp.csr_matrix:
        """The rows of ``moves`` that make ``known`` + the row a whole solution, checked here, not trusted: every
        released equation keeps its total, the unknowns stay within their bounds, the whole ones whole. A move
        that fails is left out (fewer points seen is only slower, a wrong one would be unsafe)."""
        assert self.known is not None
        moves = sp.csr_matrix(moves)
        if moves.shape[0] == 0:
            return moves
        scale = np.maximum(1.0, np.abs(self.released @ self.known))
        drift = sp.csr_matrix(self.released @ moves.T).tocsc()
        bad = np.zeros(moves.shape[0], dtype=bool)
        if drift.nnz:
            cols = np.repeat(np.arange(drift.shape[1]), np.diff(drift.indptr))
            bad[cols[np.abs(drift.data) > _TOL * scale[drift.indices]]] = True
        rows = np.repeat(np.arange(moves.shape[0]), np.diff(moves.indptr))
        at = self.known[moves.indices] + moves.data
        tol = _TOL * np.maximum(1.0, np.abs(at))
        out = (at < self.lo[moves.indices] - tol) | (at > self.hi[moves.indices] + tol)
        out |= self.integer[moves.indices] & (moves.data != np.round(moves.data))
        bad[rows[out]] = True
        return sp.csr_matrix(moves[np.flatnonzero(~bad)]) if bad.any() else moves

    def _moved(
        self,
        moves: sp.csr_matrix,
        g: sp.csr_matrix,
        base: np.ndarray,
        ends: Ends,
        rows: np.ndarray | None = None,
    ) -> None:
        """The totals ``g`` (only its ``rows``, if given: the others are not wanted) at the whole solutions
        ``known`` + each row of ``moves`` (checked by :meth:`_valid`) widen what has been seen."""
        if moves.shape[0] == 0:
            return
        rows = np.arange(g.shape[0]) if rows is None else rows
        change = sp.csr_matrix(g[rows] @ moves.T)
        full = np.diff(change.indptr) > 0
        if full.any():
            starts = change.indptr[:-1][full]
            low = np.minimum.reduceat(change.data, starts)
            high = np.maximum.reduceat(change.data, starts)
            at = rows[full]
            ends.seen_lo[at] = np.minimum(ends.seen_lo[at], base[at] + np.minimum(low, 0.0))
            ends.seen_hi[at] = np.maximum(ends.seen_hi[at], base[at] + np.maximum(high, 0.0))

    def extremes(
        self,
        g: sp.spmatrix,
        *,
        need: Need | None = None,
        explain: np.ndarray | None = None,
        exact: bool = True,
    ) -> Ends:
        """The interval of every total g_i·x (the rows of ``g``, non-negative weights). ``need`` says which
        ends are still wanted (default: all); ``explain`` the totals whose determining equations are wanted
        (``rows``: the released equations the duals of their two programmes use)."""
        g = sp.csr_matrix(g, dtype=float)
        k = g.shape[0]
        g_csc = sp.csc_matrix(g)
        lo_b = np.where(np.isinf(self.lo), 0.0, self.lo)
        hi_b = np.where(np.isinf(self.hi), 0.0, self.hi)
        lo = g @ lo_b
        hi = g @ hi_b
        lo[(g @ np.isinf(self.lo).astype(float)) > 0] = -np.inf
        hi[(g @ np.isinf(self.hi).astype(float)) > 0] = np.inf
        if self.known is not None:
            base = g @ self.known
            seen_lo, seen_hi = base.copy(), base.copy()
        else:
            base = np.zeros(k)
            seen_lo, seen_hi = np.full(k, np.inf), np.full(k, -np.inf)
        ends = Ends(lo, hi, np.zeros(k, bool), np.zeros(k, bool), seen_lo, seen_hi, np.zeros(k, bool))

        def mark() -> None:
            with np.errstate(invalid="ignore"):
                tol_l = _TOL * np.maximum(1.0, np.abs(ends.lo))
                tol_h = _TOL * np.maximum(1.0, np.abs(ends.hi))
                ends.lo_exact |= np.isfinite(ends.lo) & (ends.seen_lo <= ends.lo + tol_l)
                ends.hi_exact |= np.isfinite(ends.hi) & (ends.seen_hi >= ends.hi - tol_h)

        def seen(parts: list[tuple[int, np.ndarray]]) -> None:
            if self.known is None or not parts:
                return
            values = self._point_values(g_csc, base, parts)
            if len(self.points) < _POINTS:
                point = self.known.copy()
                for b_, x_ in parts:
                    point[self._cols[b_]] = x_
                if not any(np.array_equal(point, q) for q in self.points):
                    self.points.append(point)
            np.minimum(ends.seen_lo, values, out=ends.seen_lo)
            np.maximum(ends.seen_hi, values, out=ends.seen_hi)

        def wanted() -> tuple[np.ndarray, np.ndarray]:
            if need is None:
                w_lo, w_hi = np.ones(k, bool), np.ones(k, bool)
            else:
                w_lo, w_hi = need(ends)
            return w_lo & ~ends.lo_exact & ~ends.undecided, w_hi & ~ends.hi_exact & ~ends.undecided

        if self.moves is not None and self.known is not None:
            if self.moves is not self._checked:  # checked once, then kept
                self.moves = self._checked = self._valid(self.moves)
            self._moved(self.moves, g, base, ends)
        mark()
        pool = [] if self.moves is None else [self.moves]
        if self.more_moves is not None and self.known is not None:
            # Moves around the atoms of the totals still open (the moves for every atom leave a few).
            w_lo, w_hi = wanted()
            open_rows = np.flatnonzero(w_lo | w_hi)
            if open_rows.size:
                for batch in self.more_moves(np.unique(g[open_rows].indices)):
                    pool.append(self._valid(batch))
                    w_lo, w_hi = wanted()
                    self._moved(pool[-1], g, base, ends, np.flatnonzero(w_lo | w_hi))
                    mark()
        w_lo, w_hi = wanted()
        if pool and self.known is not None and (w_lo.any() or w_hi.any()):
            # Several moves one after another reach what one does not (a total of 3 to 7 to 12).
            every = sp.csr_matrix(sp.vstack(pool, format="csr"))
            truth = self.known

            def walked(totals: sp.csr_matrix) -> sp.csr_matrix:
                return walks(every, totals, truth, self.lo, self.hi, integer=self.integer)

            def near(totals: sp.csr_matrix) -> sp.csr_matrix:
                return nearby_points(self.released, truth, self.lo, self.hi, self.integer, totals, every)

            # Walks first; what they leave, small programmes over the unknowns around each total (a point reached,
            # not a bound). Each point is checked like a move.
            for search in (walked, near):
                for sign in (1.0, -1.0):
                    w = wanted()[0 if sign > 0 else 1]
                    if w.any() and every.shape[0]:
                        found = search(-sign * g[np.flatnonzero(w)])
                        w_lo, w_hi = wanted()
                        self._moved(self._valid(found), g, base, ends, np.flatnonzero(w_lo | w_hi))
                        mark()
        # Programmes over all open ends at once: one vertex certifies many ends (repeated while they help).
        for sign in (1.0, -1.0):
            for _ in range(BATCH_ROUNDS):
                w = wanted()[0 if sign > 0 else 1]
                if not w.any() or self.known is None:
                    break
                weights = np.asarray(g[np.flatnonzero(w)].sum(axis=0)).ravel()
                idx = np.flatnonzero(weights)
                before = int(w.sum())
                _, _, _, parts, _ = self.optimise(idx, weights[idx], sign, exact=False, cap=BATCH_ITERATIONS)
                seen(parts)
                mark()
                if int(wanted()[0 if sign > 0 else 1].sum()) >= before:
                    break
        # One programme per end still open (what is wanted is asked again every few programmes).
        w_lo, w_hi = wanted()
        solves = 0
        for i in np.flatnonzero(w_lo | w_hi).tolist():
            for sign in (1.0, -1.0):
                if solves >= 16:
                    w_lo, w_hi = wanted()
                    solves = 0
                if not (w_lo[i] if sign > 0 else w_hi[i]) or (
                    ends.lo_exact[i] if sign > 0 else ends.hi_exact[i]
                ):
                    continue
                solves += 1
                row = g.indices[g.indptr[i] : g.indptr[i + 1]]
                val = g.data[g.indptr[i] : g.indptr[i + 1]]
                value, hit, decided, parts, used = self.optimise(row, val, sign, exact=exact)
                seen(parts)
                if decided:
                    ends.used[(i, int(sign))] = used
                if sign > 0:
                    ends.lo[i] = max(ends.lo[i], value) if decided or np.isfinite(value) else ends.lo[i]
                    ends.lo_exact[i] |= hit and decided
                else:
                    ends.hi[i] = min(ends.hi[i], value) if decided or np.isfinite(value) else ends.hi[i]
                    ends.hi_exact[i] |= hit and decided
                if not decided:
                    ends.undecided[i] = True
                if explain is not None and explain[i]:
                    ends.rows[i] = tuple(sorted(set(ends.rows.get(i, ())) | used))
                mark()
        if explain is not None:
            for i in np.flatnonzero(explain).tolist():
                if i in ends.rows:
                    continue
                row = g.indices[g.indptr[i] : g.indptr[i + 1]]
                val = g.data[g.indptr[i] : g.indptr[i + 1]]
                used_all: set[int] = set()
                for sign in (1.0, -1.0):
                    *_, used = self.optimise(row, val, sign)
                    used_all |= used
                ends.rows[i] = tuple(sorted(used_all))
        # The truth lies in every interval (guards against a solver's tolerance); a real total whose ends differ
        # by less than the solver's precision is determined: its value is the truth's.
        np.minimum(ends.lo, ends.seen_lo, out=ends.lo, where=np.isfinite(ends.seen_lo))
        np.maximum(ends.hi, ends.seen_hi, out=ends.hi, where=np.isfinite(ends.seen_hi))
        if self.known is not None:
            real = np.asarray(g @ (~self.integer).astype(float)).ravel() > 0
            with np.errstate(invalid="ignore"):
                point = real & (ends.hi - ends.lo <= PRECISION * np.maximum(1.0, np.abs(base)))
            ends.lo[point] = ends.hi[point] = base[point]
            ends.lo_exact |= point
            ends.hi_exact |= point
        return ends

    def why(
        self, idx: np.ndarray, val: np.ndarray, ends: Ends | None = None, total: int = -1
    ) -> tuple[int, ...]:
        """The released equations that bound Σ val·x[idx] (the non-zero duals of its two programmes). Where
        ``ends`` (from :meth:`extremes`) already solved an end of that total (its row ``total``), its duals are
        used, not solved for again."""
        used: set[int] = set()
        for sign in (1.0, -1.0):
            rows = None if ends is None else ends.used.get((total, int(sign)))
            if rows is None:
                *_, rows = self.optimise(idx, val, sign, exact=False)
            used |= rows
        return tuple(sorted(used))

    def rank(self) -> int:
        """The rank of the released equations (summed over blocks), or −1 where a block is too large to factor."""
        total = 0
        for k, rows in self._rows.items():
            r = rank(sp.csr_matrix(self.a[rows][:, self._cols[k]]))
            if r < 0:
                return -1
            total += r
        return total


@dataclass(frozen=True)
class Intervals:
    """The interval [lo, hi] of each unknown, and the equations (rows of A) that bound it.

    ``tight`` marks the intervals known to be exact (both ends); the others are valid but perhaps wider.
    ``rank`` is the rank of A, or -1 where a block was too large to factor. ``points`` are whole solutions other
    than ``known`` met on the way. ``undecided`` marks the unknowns ``need`` still asked for when a budget ran out.
    """

    lo: np.ndarray
    hi: np.ndarray
    rank: int
    witnesses: dict[int, tuple[int, ...]]
    tight: np.ndarray
    points: tuple[np.ndarray, ...] = ()
    undecided: np.ndarray | None = None


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
    need: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
    with_rank: bool = True,
    reached: tuple[np.ndarray, np.ndarray] | None = None,
) -> Intervals:
    """The interval of every unknown x_j over {x : A·x = b, lower ≤ x ≤ upper, x whole if ``integer``}.

    ``known`` is one solution (the true data). ``need(lo, hi, seen_lo, seen_hi, cols)`` picks, in blocks above
    ``full_limit`` unknowns, the unknowns whose exact interval is wanted (without it, every interval is exact).
    ``explain(lo, hi, cols)`` picks the unknowns whose determining equations are wanted (``witnesses``).
    ``reached`` = (low, high): values some solution gives each unknown (they certify like ``known``).

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> a = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]]))   # x0+x1=3, x1+x2=4, all = 5
        >>> r = intervals(a, np.array([3., 4., 5.]), integer=True, lower=np.zeros(3))
        >>> r.lo.tolist(), r.hi.tolist()
        ([1.0, 2.0, 2.0], [1.0, 2.0, 2.0])
    """
    a = sp.csr_matrix(a, dtype=float)
    n = a.shape[1]
    region = Region(a, b, lower=lower, upper=upper, integer=np.full(n, integer), known=known)
    cols = np.arange(n)
    big = np.zeros(n, dtype=bool)
    for k, c in region._cols.items():
        if c.size > full_limit and k in region._rows:
            big[c] = True

    def wants(ends: Ends) -> tuple[np.ndarray, np.ndarray]:
        if need is None or not big.any():
            return np.ones(n, bool), np.ones(n, bool)
        s_lo = ends.seen_lo if reached is None else np.minimum(ends.seen_lo, reached[0])
        s_hi = ends.seen_hi if reached is None else np.maximum(ends.seen_hi, reached[1])
        asked = np.asarray(need(ends.lo, ends.hi, s_lo, s_hi, cols), dtype=bool)
        return asked | ~big, asked | ~big

    ends = region.extremes(sp.identity(n, format="csr"), need=wants)
    if reached is not None and region.known is not None:
        ends.lo_exact |= reached[0] <= ends.lo + _TOL
        ends.hi_exact |= reached[1] >= ends.hi - _TOL
    witnesses: dict[int, tuple[int, ...]] = {}
    if explain is not None:
        asked = np.zeros(n, dtype=bool)
        asked[np.asarray(explain(ends.lo, ends.hi, cols), dtype=np.int64)] = True
        for j in np.flatnonzero(asked).tolist():
            used: set[int] = set()
            for sign in (1.0, -1.0):
                *_, rows = region.optimise(np.array([j]), np.array([1.0]), sign)
                used |= rows
            witnesses[j] = tuple(sorted(used))
    tight = ends.lo_exact & ends.hi_exact
    undecided = ends.undecided.copy()
    if need is not None:
        w_lo, w_hi = wants(ends)
        undecided |= (w_lo & ~ends.lo_exact) | (w_hi & ~ends.hi_exact)
        undecided &= big
    rank_ = region.rank() if with_rank else -1
    return Intervals(ends.lo, ends.hi, rank_, witnesses, tight, tuple(region.points), undecided)
