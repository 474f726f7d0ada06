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

import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privrisk import solver
from privrisk.errors import PrivriskError
from privrisk.outputs.extremes import _POINTS, _TOL, Ends, Need, extremes
from privrisk.outputs.reduction import CONTRADICT, propagate, rank, reduce
from privrisk.solver import Program, Solution, holding, side_by_side

__all__ = ["Ends", "Region"]

# Simplex iterations all programmes of one Region may take together, and one programme at most; branch-and-bound
# nodes one integer programme may take. Deterministic: the same work ends at the same place on every run. The
# programmes per end of the totals within one block may each block take what is left when they start
# (:meth:`Region.apart`), so that blocks side by side give the answer of one after another: that phase may take the
# budget left once per block.
ITERATIONS = 40_000_000
ITERATIONS_ONE = 2_000_000
NODES = 2_000
# An iteration on a block of more equations than this costs more of the budget: (equations / WORK_ROWS)² of it,
# as a simplex iteration's time grows about so (3.5 ms on a block of 8,752 equations, the large request of
# ``benchmarks/outputs.py``, against microseconds on the small blocks). Still deterministic; what the budget leaves
# open is counted undecided, never passed.
WORK_ROWS = 500
# The blocks' programmes per end run side by side (:meth:`Region.apart`) where two blocks or more have this many
# equations: on smaller ones a programme takes milliseconds and threads cost more than they save.
SIDE_BY_SIDE_ROWS = 1_000
_OWN = threading.local()  # each thread's own budget and points met per Region, within Region.apart
# Blocks of more equations get no integer programme: on 8,752 equations and 25,000 whole unknowns one ran for
# minutes inside HiGHS's presolve and search (the iteration limit does not bound those); the rounded linear bound
# is kept and the end counted undecided.
MIP_ROWS = 2_000
# Objectives tried for a whole solution at a rounded linear bound before an integer programme.
WITNESS_TRIES = 4
# Simplex iterations of each try for a witness: a whole vertex is a shortcut, not a proof (the integer programme is),
# and on a block of 25,000 counts one try over every unknown took 155,000 iterations (the large request of
# ``benchmarks/outputs.py``); the last vertex when the cap ends it is tried as it is.
WITNESS_ITERATIONS = 5_000


def _split(labels: np.ndarray) -> dict[int, np.ndarray]:
    """The positions of each label (in increasing order)."""
    order = np.argsort(labels, kind="stable")
    keys, starts = np.unique(labels[order], return_index=True)
    ends = np.r_[starts[1:], order.size] if starts.size else starts
    return {int(k): order[s:e] for k, s, e in zip(keys, starts, ends, strict=True)}


def _whole(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-6 * np.maximum(1.0, np.abs(x))))


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

    #: Blocks of more equations get no integer programme (:data:`MIP_ROWS`; read by :mod:`reach` through here).
    mip_rows = MIP_ROWS

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
        self._budget = int(ITERATIONS if iterations is None else iterations)
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
        self._near_truth: dict[int, Any] = {}  # each block's vertex next to the truth (Program.vertex)
        # Blocks whose programme runs without some equations: (the whole programme, its vertex next to the truth,
        # the rows kept, the rows left out and their totals).
        self._left_out: dict[int, tuple[Program, Any, np.ndarray, sp.csr_matrix, np.ndarray]] = {}
        self._mip: dict[int, Program] = {}
        self._sub: dict[int, sp.csr_matrix] = {}
        self.points: list[np.ndarray] = []  # whole solutions other than the truth, met on the way
        # Whole solutions found without a solver (:mod:`privrisk.outputs.moves`): changes to ``known``, one per row.
        self.moves: sp.csr_matrix | None = None
        # More such moves around given unknowns (the atoms of the totals the moves above left open), in batches.
        self.more_moves: Callable[[np.ndarray], Iterable[sp.csr_matrix]] | None = None
        # The unknowns of a sub-table around given unknowns, so many levels a dimension (set by the differencing,
        # which knows the atoms' cube): where small programmes look for points the moves do not reach.
        self.subtable: Callable[[np.ndarray, int], np.ndarray] | None = None
        self._checked: sp.csr_matrix | None = None
        # Whole solutions met by earlier programmes (changes to ``known``, one per row): every later total is read
        # at them first. A small survey's empty atoms are filled by a few dozen tables far from the truth, which
        # empty or fill many of its groups. Checked against this Region before use (``_found_ok``).
        self.found: sp.csr_matrix | None = None
        self._found_ok: sp.csr_matrix | None = None
        self._found_csc: tuple[sp.csr_matrix | None, sp.csc_matrix | None] = (None, None)
        # Each large block of real unknowns has its first vertex sought now, in a process of its own, while the
        # moves and the count findings run here (Program.start_soon); its programme is taken from here when first
        # asked for. Blocks of whole unknowns wait: moves decide most of their totals (on the large request of
        # benchmarks/outputs.py none of the four blocks of counts needed a programme, the four of sums all did).
        self._early: dict[int, Program] = {}
        if self.known is not None:
            for block, its_rows in self._rows.items():
                cols = self._cols[block]
                if solver.ELSEWHERE and its_rows.size >= solver.ELSEWHERE_ROWS and not self.integer[cols].any():
                    prog = self._new_program(block, mip=False)
                    if prog.start_soon(self.known[cols]):
                        self._early[block] = prog

    @functools.cached_property
    def reduced_csc(self) -> sp.csc_matrix:
        """The equations taken apart (:attr:`a`) by columns: a change of whole unknowns alone keeps every released
        total exactly when it keeps these (A' = T·A, T invertible over the integers), and they hold a sixth of
        the entries (the large request of ``benchmarks/outputs.py``: 2.0·10⁶ against 1.3·10⁷)."""
        return sp.csc_matrix(self.a)

    @functools.cached_property
    def released_csc(self) -> sp.csc_matrix:
        """The released equations by columns: one point's equations are read from the columns it changes."""
        return sp.csc_matrix(self.released)

    @property
    def budget(self) -> int:
        """The work the programmes may still do (simplex iterations times the block's weight); within
        :meth:`apart`, what the current item may still do."""
        own: dict[int, int] | None = getattr(_OWN, "budgets", None)
        return self._budget if own is None or id(self) not in own else own[id(self)]

    @budget.setter
    def budget(self, value: int) -> None:
        own: dict[int, int] | None = getattr(_OWN, "budgets", None)
        if own is not None and id(self) in own:
            own[id(self)] = value
        else:
            self._budget = value

    def apart(self, work: Callable[[np.ndarray], None], queues: list[np.ndarray], blocks: list[int]) -> None:
        """``work(queue)`` for each queue, whose programmes all run on its own block of ``blocks`` (a block's
        programme starts from its own last optimum; a point met changes that block's unknowns alone). Each queue
        starts from the budget left now, and what all spend is taken off after; the points each meets are kept
        in the order of the queues (:meth:`keep_point`); so the answer is the same whether they run one after
        another or, where two blocks or more have :data:`SIDE_BY_SIDE_ROWS` equations, side by side
        (:func:`privrisk.solver.side_by_side`, the Python of one at a time: :func:`privrisk.solver.holding`).
        """
        big = sum(self._rows.get(k, np.empty(0)).size >= SIDE_BY_SIDE_ROWS for k in blocks)
        self._each(work, queues, side=big >= 2)

    def _each(self, work: Callable[[Any], Any], items: list[Any], *, side: bool) -> list[Any]:
        """``[work(x) for x in items]``, each from the budget left now (what all spend is taken off after), the
        points each meets kept after, in the order of ``items``; side by side where ``side`` (one lock for the
        Python: :func:`privrisk.solver.holding`)."""
        start = self._budget
        lock = threading.Lock() if side else None

        def one(item: Any) -> tuple[Any, int, list[np.ndarray]]:
            own = _OWN.__dict__.setdefault("budgets", {})
            met = _OWN.__dict__.setdefault("points", {})
            own[id(self)] = start
            met[id(self)] = []
            try:
                with holding(lock) if lock is not None else contextlib.nullcontext():
                    out = work(item)
                return out, start - own[id(self)], met[id(self)]
            finally:
                del own[id(self)], met[id(self)]

        done = side_by_side(one, items, least=1) if lock is not None else [one(x) for x in items]
        self._budget = start - sum(spent for _, spent, _ in done)
        for _, _, points in done:
            for point in points:
                self.keep_point(point)
        return [out for out, _, _ in done]

    def _kept(self) -> list[np.ndarray]:
        """Where a whole solution met now is kept: :attr:`points`, or within :meth:`_each` the item's own list."""
        met: dict[int, list[np.ndarray]] | None = getattr(_OWN, "points", None)
        return self.points if met is None or id(self) not in met else met[id(self)]

    def room_for_points(self) -> bool:
        """Whether a whole solution met now would be kept (:meth:`keep_point`): the first :data:`_POINTS`."""
        return len(self._kept()) < _POINTS

    def keep_point(self, point: np.ndarray) -> None:
        """Keep a whole solution met (the first :data:`_POINTS` different ones, in the order met; within
        :meth:`apart`, each queue's own, kept after all have run, in the order of the queues)."""
        kept = self._kept()
        if len(kept) < _POINTS and not any(np.array_equal(point, q) for q in kept):
            kept.append(point)

    # --- one block ------------------------------------------------------------------------------------------

    def block_cols(self, k: int) -> np.ndarray:
        return self._cols[k]

    def _block_matrix(self, k: int) -> sp.csr_matrix:
        """Block ``k``'s equations over its own unknowns (built once)."""
        if k not in self._sub:
            rows = self._rows.get(k, np.empty(0, np.int64))
            self._sub[k] = sp.csr_matrix(self.a[rows][:, self._cols[k]])
        return self._sub[k]

    def _new_program(self, k: int, mip: bool) -> Program:
        rows, cols = self._rows.get(k, np.empty(0, np.int64)), self._cols[k]
        b = self.b[rows]
        return Program(self._block_matrix(k), b, b, lower=self.lo[cols], upper=self.hi[cols],
                       integer=self.integer[cols] if mip else None)  # fmt: skip

    def _program(self, k: int, mip: bool) -> Program:
        store = self._mip if mip else self._lp
        if k not in store:
            rows, cols = self._rows.get(k, np.empty(0, np.int64)), self._cols[k]
            sub = self._block_matrix(k)
            store[k] = self._early.pop(k) if not mip and k in self._early else self._new_program(k, mip)
            if not mip and self.known is not None and rows.size and store[k].start_at(self.known[cols]):
                self._near_truth[k] = store[k].vertex()
                lean = store[k].without_basic_rows()
                if lean is not None:
                    # The equations the vertex next to the truth leaves to basic slacks (dependent on the rest,
                    # where there are just enough of them): the programmes run without them, each solution
                    # checked against them, and the whole programme kept for one that misses them.
                    out = np.setdiff1d(np.arange(rows.size), lean[1])
                    self._left_out[k] = (store[k], self._near_truth[k], lean[1], sub[out], self.b[rows][out])
                    store[k] = lean[0]
                    self._near_truth[k] = lean[0].vertex()
        return store[k]

    def _run(self, k: int, local: np.ndarray, val: np.ndarray, sign: float, cap: int, from_truth: bool) -> Solution:
        """Block ``k``'s linear programme for Σ val·x[local] (least where ``sign`` > 0), within ``cap`` and the
        budget: without the equations left out (:meth:`_program`) where its optimum meets them (their duals 0),
        else over every equation of the block."""
        prog = self._program(k, mip=False)
        whole = self._left_out.get(k)
        for p, start in ((prog, self._near_truth.get(k)), (None, None) if whole is None else whole[:2]):
            if p is None:
                break
            if from_truth:
                p.go_to(start)
            run = p.minimise if sign > 0 else p.maximise
            # ``cap`` and the budget are work: iterations times the block's weight.
            sol = run(local, val, iterations=min(ITERATIONS_ONE, cap, self.budget) // self._weight(k))
            self.budget -= p.iterations * self._weight(k)
            if whole is None or p is not prog or sol.status not in ("optimal", "unbounded"):
                return sol
            _, _, kept, out_a, out_b = whole
            if sol.status == "optimal" and sol.x is not None:
                if np.all(np.abs(out_a @ sol.x - out_b) <= 1e-6 * np.maximum(1.0, np.abs(out_b))):
                    duals = np.zeros(self._rows[k].size)
                    if sol.row_dual is not None:
                        duals[kept] = sol.row_dual
                    return dataclasses.replace(sol, row_dual=duals)
        return sol

    def _solve(
        self,
        k: int,
        local: np.ndarray,
        val: np.ndarray,
        sign: float,
        whole_objective: bool,
        exact: bool = True,
        cap: int = ITERATIONS_ONE,
        met: float = np.nan,
        from_truth: bool = False,
    ) -> tuple[float, bool, bool, np.ndarray | None, np.ndarray | None]:
        """One block's optimum of Σ val·x[local]: (value, exact, decided, a whole solution or None, duals).
        Without ``exact``, a fractional linear optimum is left as it is (no integer programme). ``cap``: the
        simplex iterations the linear programme may take (at most :data:`ITERATIONS_ONE`). ``met``: a value
        of the objective a whole solution met elsewhere gives (nan: none); where it, or a kept table's part in this
        block (:meth:`_kept_reaches`), meets the rounded linear bound, that is the optimum and no integer programme
        is run (no solution is returned: it was met already). ``from_truth``: from the block's vertex next to the
        truth, not its last optimum."""
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
        sol = self._run(k, local, val, sign, cap, from_truth)
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
        if whole_objective and (
            abs(met - rounded) <= _TOL * max(1.0, abs(rounded)) or self._kept_reaches(k, local, val, rounded)
        ):
            # A whole solution seen before reaches the (rounded) linear bound: it is the whole optimum.
            return rounded, True, True, None, sol.row_dual
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

    def _kept_reaches(self, k: int, local: np.ndarray, val: np.ndarray, target: float) -> bool:
        """Whether a whole solution kept in :attr:`found` gives Σ val·x[local] the value ``target`` in block ``k``
        (its changes in that block, the truth elsewhere: blocks share no equation), checked before it counts.

        Every integer programme a small survey's count findings asked ended at its rounded linear bound, and for
        four in five of them such a block part was already kept (300 records, 8 regions: 319 of 393)."""
        if self.known is None or self.found is None or self.found is not self._found_ok:
            return False  # none kept, or not yet checked against this Region
        found: sp.csr_matrix = self.found
        if not found.shape[0]:
            return False
        by_column = self._found_csc[1]
        if self._found_csc[0] is not found or by_column is None:
            # By columns: a total reads a few of them, and a kept table may change thousands.
            by_column = found.tocsc()
            self._found_csc = (found, by_column)
        cols = self._cols[k]
        base = self.known[cols]
        values = float(np.dot(val, base[local])) + by_column[:, cols[local]] @ val
        hit = np.flatnonzero(np.abs(values - target) <= _TOL * max(1.0, abs(target)))
        if not hit.size:
            return False
        x = base + found[int(hit[0])][:, cols].toarray().ravel()
        return self._solves(k, x) and abs(float(np.dot(val, x[local])) - target) <= _TOL * max(1.0, abs(target))

    def whole_points(
        self, idx: np.ndarray, val: np.ndarray, sign: float, *, nodes: int = 1
    ) -> list[tuple[int, np.ndarray]]:
        """Whole solutions far along Σ val·x[idx] (least with ``sign`` 1, largest with −1): the best point each
        block's integer programme finds within ``nodes`` (its root's heuristics), checked; a point reached, never a
        bound. Blocks too large for an integer programme (:data:`MIP_ROWS`), or with no whole unknowns, give none."""
        idx = np.asarray(idx, dtype=np.int64)
        val = np.asarray(val, dtype=float)
        parts: list[tuple[int, np.ndarray]] = []
        blocks = self.col_block[idx]
        for k in np.unique(blocks).tolist():
            if k not in self._rows or self._rows[k].size > MIP_ROWS or self._left(k) <= 0:
                continue
            if not self.integer[self._cols[k]].any():
                continue  # real unknowns: the linear rounds' vertices are such points already
            mine = blocks == k
            mip = self._program(k, mip=True)
            run = mip.minimise if sign > 0 else mip.maximise
            sol = run(np.searchsorted(self._cols[k], idx[mine]), val[mine], nodes=nodes,
                      iterations=max(1, min(ITERATIONS_ONE, self.budget) // self._weight(k)))  # fmt: skip
            self.budget -= mip.iterations * self._weight(k)
            x = sol.x if sol.x is not None else sol.incumbent
            if x is not None:
                x = np.where(self.integer[self._cols[k]], np.round(x), x) + 0.0
                if self._solves(k, x):
                    parts.append((k, x))
        return parts

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
        self,
        idx: np.ndarray,
        val: np.ndarray,
        sign: float,
        *,
        exact: bool = True,
        cap: int = ITERATIONS_ONE,
        met: float = np.nan,
        from_truth: bool = False,
    ) -> tuple[float, bool, bool, list[tuple[int, np.ndarray]], set[int]]:
        """The least (``sign`` 1) or largest (−1) value of Σ val·x[idx]: (value, exact, decided, whole solutions
        of the blocks touched, released equations whose duals are not zero). Without ``exact`` no integer
        programme is run (the value may then be the rounded linear bound). ``cap``: the simplex iterations each
        block's linear programme may take (a programme cut short leaves its block undecided). ``met``: the
        total at a whole solution already met (nan: none); where the total lies in one block and the rounded
        linear bound equals it, that is the optimum, proven without an integer programme. ``from_truth``: each
        block's programme from its vertex next to the truth (:meth:`privrisk.solver.Program.start_at`), not from
        its last optimum."""
        idx = np.asarray(idx, dtype=np.int64)
        val = np.asarray(val, dtype=float)
        whole_objective = bool(np.all(self.integer[idx])) and _whole(val)
        # ``exact`` is the caller's request; ``reached`` whether every block's value is its optimum.
        total, reached, decided = 0.0, True, True
        parts: list[tuple[int, np.ndarray]] = []
        used: set[int] = set()
        blocks = self.col_block[idx]
        touched = np.unique(blocks).tolist()

        def one(k: int) -> tuple[float, bool, bool, np.ndarray | None, np.ndarray | None]:
            local = np.searchsorted(self._cols[k], idx[blocks == k])
            # Seen for the whole total, which is this block's total only when it touches no other block.
            mine_met = met if len(touched) == 1 else np.nan
            return self._solve(
                k, local, val[blocks == k], sign, whole_objective, exact, cap, mine_met, from_truth
            )

        # A total over several large blocks: their programmes side by side (blocks share no equation), unless this
        # runs within :meth:`apart` already. On the large request's sums, totals over the 4 blocks of 8,752
        # equations took 25 s one block after another.
        big = sum(self._rows.get(k, np.empty(0)).size >= SIDE_BY_SIDE_ROWS for k in touched)
        inside = id(self) in getattr(_OWN, "budgets", {})
        solved = self._each(one, touched, side=True) if big >= 2 and not inside else [one(k) for k in touched]
        for k, (value, ex, dec, x, duals) in zip(touched, solved, strict=True):
            mine = blocks == k
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

    def extremes(
        self,
        g: sp.spmatrix,
        *,
        need: Need | None = None,
        explain: np.ndarray | None = None,
        exact: bool = True,
        reach_hi: np.ndarray | None = None,
        local_bounds: bool = False,
    ) -> Ends:
        """The interval of every total g_i·x (:func:`privrisk.outputs.extremes.extremes`)."""
        return extremes(
            self, g, need=need, explain=explain, exact=exact, reach_hi=reach_hi, local_bounds=local_bounds
        )

    def why(
        self,
        idx: np.ndarray,
        val: np.ndarray,
        ends: Ends | None = None,
        total: int = -1,
        signs: tuple[float, ...] = (1.0, -1.0),
    ) -> tuple[int, ...]:
        """The released equations that bound Σ val·x[idx] (the non-zero duals of its two programmes; ``signs``:
        of its least end alone (1) or largest alone (−1), where only that end discloses). Where ``ends`` (from
        :meth:`extremes`) already solved an end of that total (its row ``total``), its duals are used, not solved
        for again."""
        used: set[int] = set()
        for sign in signs:
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
