"""Linear and integer programmes on HiGHS, through the maintained ``highspy`` package's public API.

Every linear or integer programme privrisk solves goes through this module: the intervals of the output checker
(what an intruder can recompute of a released cell or a group), and the fewest suppressions of a microdata file.
One place translates the solver's status, so a time limit is always ``"timeout"`` (never a silent optimum), and
contradicting constraints always ``"infeasible"``.

A :class:`Program` is built once and solved again and again with only its objective (or a row's bounds) changed:
after such a change the last basis stays primal feasible, so primal simplex restarts from it and a programme takes
a few dozen iterations instead of a solve from scratch. :func:`solve` is the one-shot form.

Example:
    >>> import numpy as np, scipy.sparse as sp
    >>> a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))   # x0 + x1 = 3, x1 + x2 = 2
    >>> prog = Program(a, [3, 2], [3, 2], lower=[0, 0, 0], upper=[np.inf] * 3)
    >>> prog.minimise([1], [1.0]).value, prog.maximise([1], [1.0]).value   # the interval of x1
    (0.0, 2.0)
    >>> solve([1, 1, 1], a, [3, 2], [3, 2], lower=[0, 0, 0], upper=[np.inf] * 3, integer=[True] * 3).status
    'optimal'
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, Unpack

import numpy as np

from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from concurrent.futures import Future

    import scipy.sparse as sp

__all__ = ["Limits", "Program", "Solution", "Status", "holding", "side_by_side", "solve"]

Status = Literal["optimal", "infeasible", "unbounded", "timeout", "failed"]

_BANNER_LOCK = threading.Lock()
_LIMIT = 2**31 - 1  # HiGHS's "no limit" for iterations and nodes
# Primal simplex re-solved from a feasible basis runs without HiGHS's bound perturbation: with it, the end of every
# solve removes the perturbation and cleans up with dual simplex, which on the large degenerate blocks of the
# output checker took most of the time (one programme per end of the large request's sums in
# ``benchmarks/outputs.py``: 1.6 s unperturbed, not done after 4 min perturbed; a hierarchical table of 46,656
# cells: every interval the same, 9.4 s CPU against 31.4 s). Perturbation is what keeps a degenerate simplex from
# stalling, so a solve that takes more than this many iterations per row and column goes on with it (at HiGHS's
# default multiplier, ``_PERTURBATION``).
_UNPERTURBED_PER_SIZE = 4
_PERTURBATION = 1.0
_BANNER_DONE = False
# Independent programmes run in threads only from this many on (a pool costs about a millisecond to start) and in
# at most this many threads (the Python between two solves holds the interpreter's lock).
SIDE_BY_SIDE_LEAST = 32
SIDE_BY_SIDE_THREADS = 4

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def side_by_side(
    work: Callable[[_Item], _Result], items: Sequence[_Item], *, least: int | None = None
) -> list[_Result]:
    """``[work(x) for x in items]``, in that order, run in threads on the cores this process may use.

    HiGHS's simplex (``Highs.run``) releases Python's interpreter lock, so independent programmes, each on its own
    :class:`Program`, run side by side: 0.83 s against 1.64 s for 225 small programmes of the large request of
    ``benchmarks/outputs.py`` on 2 cores. HiGHS's crossover (:meth:`Program.start_at`) holds the lock, so work
    that is mostly crossovers gains less (8.1 s against 10.5 s). Each item's work must share no state that it
    changes with another's: the answer is then the same as in one thread, whatever the order they finish in.
    Ctrl-C stops waiting at once; programmes already running end on their own (a fraction of a second each).
    ``least``: the items per thread below which it is not worth a thread (default :data:`SIDE_BY_SIDE_LEAST`).
    Work that shares state runs each item inside :func:`holding` one lock.

    Example:
        >>> side_by_side(lambda x: x * x, list(range(40)))[-3:]
        [1369, 1444, 1521]
    """
    per = SIDE_BY_SIDE_LEAST if least is None else least
    threads = min(_cores(), SIDE_BY_SIDE_THREADS, len(items) // max(1, per))
    if threads < 2:
        return [work(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(threads, thread_name_prefix="privrisk-programme")
    try:
        return list(pool.map(work, items))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


#: Programmes may leave out rows that are combinations of the rest (:meth:`Program.without_basic_rows`, the repeated
#: rows of a sub-table, the released rows behind the equations taken apart when a move is checked); False: never,
#: a baseline (``benchmarks/lean_programmes.py``).
LEAN_ROWS = True

_HELD = threading.local()  # the lock this thread gives up while HiGHS runs (:func:`holding`)


@contextlib.contextmanager
def holding(lock: threading.Lock) -> Iterator[None]:
    """Hold ``lock`` for the enclosed work except while a :class:`Program` of it runs HiGHS's simplex.

    Work side by side (:func:`side_by_side`) that shares Python state (a region's found points, its budget) runs
    each item inside ``holding`` one lock: only one item's Python runs at a time, and the programmes, where the time
    is, run side by side.

    Example:
        >>> lock = threading.Lock()
        >>> with holding(lock):
        ...     lock.locked()
        True
    """
    lock.acquire()
    _HELD.lock = lock
    try:
        yield
    finally:
        _HELD.lock = None
        lock.release()


def _unheld(work: Callable[[], _Result]) -> _Result:
    """``work()``, without the lock of :func:`holding` (if this thread holds one) while it runs."""
    lock = getattr(_HELD, "lock", None)
    if lock is None:
        return work()
    lock.release()
    try:
        return work()
    finally:
        lock.acquire()


def _run(h: Any) -> None:
    """``h.run()``, without the lock of :func:`holding` while it runs."""
    _unheld(h.run)


#: Programmes may find their first vertex in a process of their own (:meth:`Program.start_soon`); False: never, a
#: baseline (``benchmarks/crossovers_elsewhere.py``).
ELSEWHERE = True
#: The rows from which :meth:`Program.start_soon` sends a crossover away unless told otherwise.
ELSEWHERE_ROWS = 2_000


def _vertex(request: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """In the process of its own: the column and row statuses :meth:`Program.start_at` reaches (None: none)."""
    import scipy.sparse as sparse

    indptr, indices, data, shape, row_lo, row_hi, lower, upper, x, primal, presolve = request
    prog = Program(sparse.csc_matrix((data, indices, indptr), shape=shape), row_lo, row_hi, lower=lower,
                   upper=upper, primal=primal, presolve=presolve)  # fmt: skip
    if not prog.start_at(x):
        return None
    basis = prog._h.getBasis()
    return (np.array([int(s) for s in basis.col_status], np.int8),
            np.array([int(s) for s in basis.row_status], np.int8))  # fmt: skip


class Limits(TypedDict, total=False):
    """What ends a search of :meth:`Program.minimise` and :meth:`Program.maximise` early (each optional).

    ``time_limit`` (seconds) and ``deadline`` (a ``time.perf_counter()`` instant) end it by the clock;
    ``iterations`` (simplex) and ``nodes`` (branch and bound) end it deterministically.
    """

    time_limit: float | None
    deadline: float | None
    iterations: int | None
    nodes: int | None


@dataclass(frozen=True)
class Solution:
    """The end of one programme.

    Attributes:
        status: ``"optimal"``; ``"infeasible"`` (no point meets the constraints); ``"unbounded"``; ``"timeout"``
            (a limit ended it: the time limit, the deadline, the iterations or the nodes given; ``value`` is then
            NaN, never a partial optimum); ``"failed"``.
        value: the objective at the optimum (NaN unless optimal).
        x: the optimal point (None unless optimal).
        row_dual: the rows' dual values at a linear optimum (None for integer programmes and unless optimal).
        bound: a proven bound on the optimum even when a limit ended the search: an integer programme's dual bound
            (never above the minimum, never below the maximum); the optimum itself for a linear one; NaN if none.
        incumbent: when a limit ended an integer programme, the best feasible point it had found (whole where the
            programme says so), else None; never a claim of optimality (``x`` stays None). When a limit ended a
            linear programme in primal simplex's second phase, its last vertex (feasible, not optimal).
    """

    status: Status
    value: float
    x: np.ndarray | None = None
    row_dual: np.ndarray | None = None
    bound: float = float("nan")
    incumbent: np.ndarray | None = None

    @property
    def optimal(self) -> bool:
        """True when the programme ended at its optimum."""
        return self.status == "optimal"


def _highs() -> Any:
    """A silent HiGHS instance. The first one of a process prints a banner on the C library's stdout, which
    would corrupt ``--json`` output; it is made with stdout pointed at the null device."""
    global _BANNER_DONE
    import highspy

    with _BANNER_LOCK:
        if not _BANNER_DONE:
            try:
                sys.stdout.flush()
                saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
            except (OSError, ValueError):  # no file descriptor 1 (an embedded interpreter): let it print
                h = highspy.Highs()
            else:
                try:
                    os.dup2(null, 1)
                    h = highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(null)
            _BANNER_DONE = True
        else:
            h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _status(h: Any) -> Status:
    """The one translation of HiGHS's model status."""
    import highspy

    s = h.getModelStatus()
    m = highspy.HighsModelStatus
    if s == m.kOptimal:
        return "optimal"
    if s == m.kInfeasible:
        return "infeasible"
    if s in (m.kUnbounded, m.kUnboundedOrInfeasible):
        return "unbounded"
    if s in (m.kTimeLimit, m.kIterationLimit, m.kInterrupt, m.kSolutionLimit):
        return "timeout"
    return "failed"


def _array(values: Sequence[float] | np.ndarray, n: int, name: str) -> np.ndarray:
    out = np.asarray(values, dtype=float).reshape(-1)
    if out.size != n:
        raise ValueError(f"{name}: {out.size} values for {n}")
    return out


class Program:
    """A programme ``row_lo ≤ A·x ≤ row_hi``, ``lower ≤ x ≤ upper`` (some x whole), solved for many objectives.

    Args:
        a: the constraint matrix (any scipy sparse matrix or a dense array), m × n.
        row_lo, row_hi: the rows' bounds (equal for an equation; ±inf for none).
        lower, upper: the variables' bounds (±inf for none).
        integer: which variables must be whole (None: none, a linear programme).
        primal: primal simplex (for a model re-solved with only its objective changed; the last basis stays
            primal feasible), without bound perturbation unless a solve stalls; else HiGHS's choice.
        presolve: HiGHS's presolve (off by default for re-solved linear models, where it would discard the basis).
    """

    def __init__(
        self,
        a: sp.spmatrix | np.ndarray,
        row_lo: Sequence[float] | np.ndarray,
        row_hi: Sequence[float] | np.ndarray,
        *,
        lower: Sequence[float] | np.ndarray,
        upper: Sequence[float] | np.ndarray,
        integer: Sequence[bool] | np.ndarray | None = None,
        primal: bool = True,
        presolve: bool | None = None,
    ) -> None:
        import highspy
        import scipy.sparse as sparse

        csc = sparse.csc_matrix(a, dtype=float)
        m, n = csc.shape
        self.n, self.m = n, m
        self.integer = None if integer is None else np.asarray(integer, dtype=bool).reshape(-1)
        if self.integer is not None and self.integer.size != n:
            raise ValueError(f"integer: {self.integer.size} values for {n} variables")
        self._is_mip = self.integer is not None and bool(self.integer.any())
        self._cost_idx = np.empty(0, dtype=np.int32)
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = m
        lp.col_cost_ = np.zeros(n)
        # Kept for :meth:`without_basic_rows` (reading them back from HiGHS copies them).
        self._bounds = (_array(row_lo, m, "row_lo"), _array(row_hi, m, "row_hi"), _array(lower, n, "lower"),
                        _array(upper, n, "upper"))  # fmt: skip
        lp.row_lower_, lp.row_upper_, lp.col_lower_, lp.col_upper_ = self._bounds
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_ = n
        lp.a_matrix_.num_row_ = m
        lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
        lp.a_matrix_.index_ = csc.indices.astype(np.int32)
        lp.a_matrix_.value_ = csc.data
        if self._is_mip:
            assert self.integer is not None
            lp.integrality_ = [
                highspy.HighsVarType.kInteger if whole else highspy.HighsVarType.kContinuous
                for whole in self.integer
            ]
        h = _highs()
        if presolve is None:
            presolve = self._is_mip
        h.setOptionValue("presolve", "on" if presolve else "off")
        self._unperturbed = primal and not self._is_mip
        if self._unperturbed:
            h.setOptionValue("solver", "simplex")
            h.setOptionValue("simplex_strategy", 4)
            h.setOptionValue("primal_simplex_bound_perturbation_multiplier", 0.0)
        self._iterations = 0
        # One thread: privrisk's callers already run several programmes side by side on few cores.
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)  # the same request gives the same answer every run
        if self._is_mip:
            # A proven optimum, not one within HiGHS's default gap of 10⁻⁴: callers read bounds off it.
            h.setOptionValue("mip_rel_gap", 0.0)
            h.setOptionValue("mip_abs_gap", 1e-9)
        if h.passModel(lp) == highspy.HighsStatus.kError:
            raise PrivriskError("internal: HiGHS refused the model")
        self._h = h
        self._a = csc
        self._presolve = presolve
        self._primal = primal
        self._soon: tuple[np.ndarray, Future[tuple[np.ndarray, np.ndarray] | None]] | None = None

    def start_soon(self, x: Sequence[float] | np.ndarray, *, least_rows: int | None = None,
                   unless_busy: bool = False) -> bool:  # fmt: skip
        """Begin :meth:`start_at` ``x`` in a process of its own and return at once; the next :meth:`start_at`
        ``x`` waits for its vertex. Whether it began (False: a programme integer in part or with a basis, fewer
        than ``least_rows`` rows (default :data:`ELSEWHERE_ROWS`), or one core only; :meth:`start_at` then
        crosses over here; also with ``unless_busy`` when every process is busy). A process starts in under a
        second, and a programme is copied there and a basis back: worth it for a large programme, or for many small
        ones that threads would otherwise wait behind.

        HiGHS's crossover holds Python's interpreter lock (highspy does not give it up there, unlike in
        ``run``), so one in a thread stops every other thread's Python: the four sums blocks of the large
        request of ``benchmarks/outputs.py`` took 8 s each. Elsewhere they run beside the Python that goes on.
        The vertex is the one HiGHS reaches here from the same model and options.

        Example:
            >>> import scipy.sparse as sp
            >>> prog = Program(sp.csr_matrix(np.ones((1, 3))), [5], [5], lower=[0] * 3, upper=[10] * 3)
            >>> prog.start_soon([2.0, 2.0, 1.0])    # one row: crossed over here, when started
            False
        """
        from privrisk import _workers

        least = ELSEWHERE_ROWS if least_rows is None else least_rows
        if not ELSEWHERE or self._is_mip or self.m < least or _cores() < 2 or self._h.getBasis().valid:
            return False
        x = _array(x, self.n, "x").copy()
        csc = self._a
        row_lo, row_hi, lower, upper = self._bounds
        request = (csc.indptr, csc.indices, csc.data, csc.shape, row_lo, row_hi, lower, upper, x, self._primal,
                   self._presolve)  # fmt: skip
        future = _workers.ask("privrisk.solver", request, unless_busy=unless_busy)
        if future is None:
            return False
        self._soon = (x, future)
        return True

    def _started_elsewhere(self, x: np.ndarray) -> bool:
        """Take the vertex :meth:`start_soon` began for ``x`` (False: none, another point, or it failed)."""
        soon, self._soon = self._soon, None
        if soon is None or not np.array_equal(soon[0], x):
            return False
        try:
            statuses = _unheld(soon[1].result)
        except Exception:  # the crossover is done here instead
            return False
        if statuses is None or statuses[0].size != self.n or statuses[1].size != self.m:
            return False
        import highspy

        members = {int(v): v for v in highspy.HighsBasisStatus.__members__.values()}
        basis = highspy.HighsBasis()
        basis.col_status = [members[s] for s in statuses[0].tolist()]
        basis.row_status = [members[s] for s in statuses[1].tolist()]
        basis.valid = True
        return bool(self._h.setBasis(basis) != highspy.HighsStatus.kError and self._h.getBasis().valid)

    def start_at(self, x: Sequence[float] | np.ndarray) -> bool:
        """Start the simplex from a vertex next to ``x``, a point known to satisfy the constraints (the truth of
        a released table): HiGHS's crossover moves from ``x`` to a basic feasible solution, so the first
        programme needs no phase 1. Whether a basis was set (a programme integer in part, or one already solved,
        keeps its own; a failed crossover leaves the programme as it was, to be solved from scratch).

        The first phase is where a large degenerate system costs most: a block of 25,000 counts and 8,752
        released margins (the large request of ``benchmarks/outputs.py``) did not find a feasible basis in
        900 s of dual simplex; from its truth, the crossover took 8 s and the programme 1,201 iterations.

        Example:
            >>> import scipy.sparse as sp
            >>> prog = Program(sp.csr_matrix(np.ones((1, 3))), [5], [5], lower=[0] * 3, upper=[10] * 3)
            >>> prog.start_at([2.0, 2.0, 1.0]), prog.minimise([0], [1.0]).value
            (True, 0.0)
        """
        import highspy

        h = self._h
        if self._is_mip or h.getBasis().valid:
            return False
        x = _array(x, self.n, "x")
        if self._started_elsewhere(x):
            return True
        # HiGHS's crossover needs a model that has been run once (it fails or crashes before): a run of no
        # iteration sets that up without solving anything.
        h.setOptionValue("simplex_iteration_limit", 0)
        h.run()
        sol = highspy.HighsSolution()
        sol.col_value = x.tolist()
        sol.row_value = np.asarray(self._a @ x, dtype=float).tolist()
        sol.col_dual = [0.0] * self.n
        sol.row_dual = [0.0] * self.m
        sol.value_valid = True
        sol.dual_valid = True
        if h.crossover(sol) == highspy.HighsStatus.kError or not h.getBasis().valid:
            h.clearSolver()
            return False
        return True

    def without_basic_rows(self) -> tuple[Program, np.ndarray] | None:
        """This linear programme without the equations whose slack is basic at the current vertex, started at that
        vertex, and the rows it keeps (None: no vertex, an integer programme, or no such row).

        A vertex has as many basic variables as rows; where the rows have rank r < m, at least m − r of them are
        slacks of equations, and where exactly m − r are, the rows left hold r basic columns: they are independent,
        and every row left out is a combination of them, which every solution of the rest therefore meets. The
        crossover from a point inside (:meth:`start_at`) leaves just these: on a block of three-way margins of
        the large request of ``benchmarks/outputs.py``, 2,320 of 8,752 rows, m − r exactly, and its programmes
        from the same vertex took 1.16 times less. A slack can also be basic at an independent row, so the caller checks every
        solution against the rows left out.

        Example:
            >>> import scipy.sparse as sp
            >>> a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]))
            >>> prog = Program(a, [4, 6, 3, 7], [4, 6, 3, 7], lower=[0] * 4, upper=[10] * 4)
            >>> prog.start_at([1.0, 3.0, 2.0, 4.0])
            True
            >>> lean, kept = prog.without_basic_rows()      # the four margins of a 2 × 2 table have rank 3
            >>> kept.size, lean.maximise([0], [1.0]).value
            (3, 3.0)
        """
        import highspy

        basis = self._h.getBasis()
        if self._is_mip or not basis.valid or not LEAN_ROWS:
            return None
        row_status = basis.row_status  # a copy from HiGHS on every read: read once
        status = np.array([int(x) for x in row_status])
        row_lo, row_hi, lower, upper = self._bounds
        # An inequality's slack is basic wherever it is slack: it is kept.
        keep = np.flatnonzero((status != int(highspy.HighsBasisStatus.kBasic)) | (row_lo != row_hi))
        if keep.size == self.m:
            return None
        lean = Program(self._a[keep], row_lo[keep], row_hi[keep], lower=lower, upper=upper, primal=self._unperturbed,
                       presolve=self._presolve)  # fmt: skip
        start = highspy.HighsBasis()
        start.col_status = list(basis.col_status)
        start.row_status = [row_status[i] for i in keep.tolist()]
        start.valid = True
        if lean._h.setBasis(start) == highspy.HighsStatus.kError:
            return None
        return lean, keep

    def vertex(self) -> Any:
        """The current basis, to come back to with :meth:`go_to` (None before there is one).

        Example:
            >>> import scipy.sparse as sp
            >>> prog = Program(sp.csr_matrix(np.ones((1, 3))), [5], [5], lower=[0] * 3, upper=[10] * 3)
            >>> prog.start_at([2.0, 2.0, 1.0])
            True
            >>> here = prog.vertex()
            >>> prog.maximise([0], [1.0]).value
            5.0
            >>> prog.go_to(here)             # the next solve starts from the vertex next to (2, 2, 1) again
            >>> prog.minimise([0], [1.0]).value
            0.0
        """
        basis = self._h.getBasis()
        return basis if basis.valid else None

    def go_to(self, vertex: Any) -> None:
        """Start the next solve from ``vertex`` (one :meth:`vertex` of this programme gave; None: from where it
        is). A bound changed since may leave it infeasible: the simplex then starts with its first phase."""
        if vertex is not None:
            self._h.setBasis(vertex)

    def set_row_bounds(self, row: int, lo: float, hi: float) -> None:
        """Change one row's bounds (the basis is kept)."""
        self._h.changeRowBounds(int(row), float(lo), float(hi))

    def set_col_bounds(self, col: int, lo: float, hi: float) -> None:
        """Change one variable's bounds (the basis is kept)."""
        self._h.changeColBounds(int(col), float(lo), float(hi))

    def _solve(self, idx: Sequence[int] | np.ndarray, val: Sequence[float] | np.ndarray, sign: float, *,
               time_limit: float | None = None, deadline: float | None = None, iterations: int | None = None,
               nodes: int | None = None) -> Solution:  # fmt: skip
        h = self._h
        idx = np.asarray(idx, dtype=np.int32).reshape(-1)
        val = np.asarray(val, dtype=float).reshape(-1) * sign
        if self._cost_idx.size:
            h.changeColsCost(self._cost_idx.size, self._cost_idx, np.zeros(self._cost_idx.size))
        self._cost_idx = idx
        if idx.size:
            h.changeColsCost(idx.size, idx, val)
        limit = np.inf if time_limit is None else float(time_limit)
        if deadline is not None:
            limit = min(limit, deadline - time.perf_counter())
        if limit <= 0:
            return Solution("timeout", float("nan"))
        h.setOptionValue("time_limit", float(limit) if np.isfinite(limit) else float("inf"))
        # Iterations and nodes, unlike seconds, end a search at the same place on every run and machine.
        allowed = _LIMIT if iterations is None else max(0, int(iterations))
        if self._is_mip:
            h.setOptionValue("mip_max_nodes", _LIMIT if nodes is None else max(0, int(nodes)))
        stall = _UNPERTURBED_PER_SIZE * (self.m + self.n)
        h.setOptionValue("simplex_iteration_limit", min(allowed, stall) if self._unperturbed else allowed)
        started = time.perf_counter()
        _run(h)
        self._iterations = int(h.getInfo().simplex_iteration_count)
        if self._unperturbed and allowed > stall and self._iterations >= stall and _status(h) == "timeout":
            # Stalled without perturbation (a degenerate vertex): on from here with it, within what is left.
            h.setOptionValue("primal_simplex_bound_perturbation_multiplier", _PERTURBATION)
            h.setOptionValue("simplex_iteration_limit", allowed - self._iterations)
            if np.isfinite(limit):
                h.setOptionValue("time_limit", max(limit - (time.perf_counter() - started), 0.0))
            _run(h)
            self._iterations += int(h.getInfo().simplex_iteration_count)
            h.setOptionValue("primal_simplex_bound_perturbation_multiplier", 0.0)
        status = _status(h)
        if status != "optimal":
            bound = float("nan")
            incumbent = None
            if self._is_mip and status == "timeout":
                info = h.getInfo()
                dual = float(info.mip_dual_bound)
                bound = dual * sign if np.isfinite(dual) else float("nan")
                if int(info.primal_solution_status) == 2:  # HiGHS's kSolutionStatusFeasible
                    assert self.integer is not None
                    point = np.asarray(h.getSolution().col_value, dtype=float)
                    incumbent = np.where(self.integer, np.round(point), point)
            elif status == "timeout" and int(h.getInfo().primal_solution_status) == 2:
                incumbent = np.asarray(h.getSolution().col_value, dtype=float)
            return Solution(status, float("nan"), bound=bound, incumbent=incumbent)
        sol = h.getSolution()
        x = np.asarray(sol.col_value, dtype=float)
        if self._is_mip:
            assert self.integer is not None
            x = np.where(self.integer, np.round(x), x)
        value = float(np.dot(val, x[idx])) * sign if idx.size else 0.0
        duals = None if self._is_mip else np.asarray(sol.row_dual, dtype=float)
        bound = value
        if self._is_mip:
            dual = float(h.getInfo().mip_dual_bound) * sign
            bound = min(value, dual) if sign > 0 else max(value, dual)
        return Solution("optimal", value, x, duals, bound)

    @property
    def iterations(self) -> int:
        """The simplex iterations of the last solve."""
        return self._iterations

    def minimise(
        self, idx: Sequence[int] | np.ndarray, val: Sequence[float] | np.ndarray, **limits: Unpack[Limits]
    ) -> Solution:
        """Minimise Σ val·x[idx] (a sparse objective), within the :class:`Limits` given."""
        return self._solve(idx, val, 1.0, **limits)

    def maximise(
        self, idx: Sequence[int] | np.ndarray, val: Sequence[float] | np.ndarray, **limits: Unpack[Limits]
    ) -> Solution:
        """Maximise Σ val·x[idx]; the solution's ``value`` is the maximum (not its negative)."""
        return self._solve(idx, val, -1.0, **limits)


def solve(
    c: Sequence[float] | np.ndarray,
    a: sp.spmatrix | np.ndarray,
    row_lo: Sequence[float] | np.ndarray,
    row_hi: Sequence[float] | np.ndarray,
    *,
    lower: Sequence[float] | np.ndarray,
    upper: Sequence[float] | np.ndarray,
    integer: Sequence[bool] | np.ndarray | None = None,
    time_limit: float | None = None,
    iterations: int | None = None,
    nodes: int | None = None,
) -> Solution:
    """Minimise c·x once, subject to ``row_lo ≤ A·x ≤ row_hi`` and ``lower ≤ x ≤ upper`` (some x whole)."""
    cost = np.asarray(c, dtype=float).reshape(-1)
    prog = Program(a, row_lo, row_hi, lower=lower, upper=upper, integer=integer, primal=False, presolve=True)
    nz = np.flatnonzero(cost)
    return prog.minimise(nz, cost[nz], time_limit=time_limit, iterations=iterations, nodes=nodes)


if __name__ == "__main__":  # ``python -m privrisk.solver``: a process of its own for crossovers (start_soon)
    from privrisk import _workers

    _workers.serve(_vertex)
