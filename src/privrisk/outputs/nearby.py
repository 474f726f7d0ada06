"""Solutions next to the truth from small programmes: each total pushed as far as it goes while only the unknowns
around it may change.

A released system of 10⁵ atoms splits into blocks of 25,000 unknowns and 8,752 equations, on which one linear
programme takes seconds (the large request of ``benchmarks/outputs.py``). To show that a group's total is *not*
pinned down, a point that reaches far enough is all that is needed, not the optimum. Hold every unknown at its true
value except a few around the group (the group's own and those the moves of :mod:`privrisk.outputs.moves` through
it touch): every equation that meets them keeps the total it has at the truth, so

    max Σ g·x   over   A[:, S]·x_S = A[:, S]·known_S,   lower_S ≤ x_S ≤ upper_S

is a programme of a few hundred unknowns, and its optimum, put back into the truth, solves the whole system. Its
value is reached, so it certifies like a move (it is never a bound: the whole system may reach further). Where
some of S must be whole, a point counts only when the linear optimum is whole there. The caller checks every point
against the released equations before it counts.

S is the group's unknowns and those of the moves through it, or (:func:`subtables`) a sub-table of the atoms'
cube around the group: its own levels and the fullest few others on every dimension. Where the moves found nothing
through a group, the sub-table still holds the cells a change of it must pass through.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

import privrisk.solver as solver
from privrisk.outputs.moves import touching
from privrisk.solver import Program, side_by_side

__all__ = ["nearby_pairs", "nearby_points", "subtables"]

# Unknowns one small programme may change, and the simplex iterations it may take.
SUPPORT = 2_000
ITERATIONS = 5_000
# The programmes run side by side (:func:`privrisk.solver.side_by_side`) where they change this many unknowns on
# average: the large request of ``benchmarks/outputs.py`` (128 around the moves, 500 over a sub-table) gains; the
# 300-record survey of ``benchmarks/remedy_audits.py --quick`` (17 to 48) lost a tenth of its time in threads.
SIDE_BY_SIDE_UNKNOWNS = 100
# A sub-table's programme leaves out the rows its vertex next to the truth leaves to basic slacks from this many rows
# on: a second programme costs more than it saves on the 300-record survey of ``benchmarks/lean_programmes.py
# --quick`` (tens of rows), and saves a tenth on the large request's (665 rows on average).
LEAN_FROM_ROWS = 200
# A sub-table's crossover runs in a process of its own from this many rows on (Program.start_soon), and the threads
# run on meanwhile: on the large request the crossovers sent away took 79 s of CPU there, and all the copying there
# and back about 11 s more here and there (376.5 s of CPU in all against 365.7 s).
ELSEWHERE_FROM_ROWS = 200


def _around(
    gain_row: tuple[np.ndarray, np.ndarray], pool: sp.csr_matrix, own: np.ndarray, limit: int
) -> np.ndarray:
    """The group's unknowns and those of the moves through it, the moves that change its total most first."""
    js, change = gain_row
    order = js[np.argsort(-np.abs(change), kind="stable")]
    parts = [own]
    count = own.size
    for j in order.tolist():
        at = pool.indices[pool.indptr[j] : pool.indptr[j + 1]]
        if count + at.size > limit:
            break
        parts.append(at)
        count += at.size
    return np.unique(np.concatenate(parts))


def nearby_points(
    a: sp.csr_matrix,
    known: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    integer: np.ndarray,
    g: sp.csr_matrix,
    pool: sp.csr_matrix,
    *,
    support: int = SUPPORT,
    iterations: int = ITERATIONS,
    neighbourhood: Callable[[np.ndarray], np.ndarray] | None = None,
) -> sp.csr_matrix:
    """For each row of ``g``, a change to ``known`` that raises that total as far as a programme over the unknowns
    around it reaches (one row per total, zeros where it found nothing). ``a``: the equations ``known`` solves;
    ``pool``: moves (rows over the unknowns) whose supports say which unknowns are around a total; or, where
    ``neighbourhood`` is given, it says so (a total's unknowns → the unknowns around them, at most ``support``).

    Example:
        >>> # x0 + x1 = 4 and x2 + x3 = 6; the group x0 + x2 (1 + 2) may take everyone: 10.
        >>> a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]]))
        >>> pool = sp.csr_matrix(np.array([[1.0, -1, 0, 0], [0, 0, 1, -1]]))
        >>> known = np.array([1.0, 3, 2, 4])
        >>> g = sp.csr_matrix(np.array([[1.0, 0, 1, 0]]))
        >>> d = nearby_points(a, known, np.zeros(4), np.full(4, np.inf), np.ones(4, bool), g, pool)
        >>> (known + d.toarray()[0]).tolist()
        [4.0, 0.0, 6.0, 0.0]
    """
    k = g.shape[0]
    raised, _ = nearby_pairs(a, known, lower, upper, integer, g, pool, np.ones(k, bool), np.zeros(k, bool),
                             support=support, iterations=iterations, neighbourhood=neighbourhood)  # fmt: skip
    return raised


def nearby_pairs(
    a: sp.csr_matrix,
    known: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    integer: np.ndarray,
    g: sp.csr_matrix,
    pool: sp.csr_matrix,
    up: np.ndarray,
    down: np.ndarray,
    *,
    support: int = SUPPORT,
    iterations: int = ITERATIONS,
    neighbourhood: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """:func:`nearby_points` both ways: for each row of ``g`` where ``up`` says, a change that raises its total,
    and where ``down`` says, one that lowers it, both from one programme over the unknowns around it (lowered
    first, then raised from that optimum: with a sub-table's programme started from the truth, the second
    direction cost a quarter of the first on the large request of ``benchmarks/outputs.py``). Totals around the
    same unknowns share one programme, each total's pair started from the same vertex next to the truth, so each
    reaches what a programme of its own would; programmes over different unknowns run side by side
    (:func:`privrisk.solver.side_by_side`), the answer the same as one after another.

    Example:
        >>> a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]]))
        >>> known, g = np.array([1.0, 3, 2, 4]), sp.csr_matrix(np.array([[1.0, 0, 1, 0]]))
        >>> up, down = nearby_pairs(a, known, np.zeros(4), np.full(4, np.inf), np.ones(4, bool), g,
        ...                         sp.csr_matrix((0, 4)), np.ones(1, bool), np.ones(1, bool),
        ...                         neighbourhood=lambda own: np.arange(4))
        >>> (g @ (known + up.toarray()[0])).tolist(), (g @ (known + down.toarray()[0])).tolist()
        ([10.0], [0.0])
    """
    a_csc = sp.csc_matrix(a)
    g = sp.csr_matrix(g)
    n = a.shape[1]
    if pool.shape[0] and neighbourhood is None:
        pool = touching(pool, g)  # the moves through some total, in their order: the rest are never read
    gain = (
        sp.csr_matrix(g @ pool.T)
        if pool.shape[0] and neighbourhood is None
        else sp.csr_matrix((g.shape[0], pool.shape[0]))
    )

    def around(i: int) -> np.ndarray | None:
        """The unknowns total ``i``'s programme may change (None: no programme)."""
        own = g.indices[g.indptr[i] : g.indptr[i + 1]]
        if own.size == 0 or own.size > support:
            return None
        if neighbourhood is not None:
            s = np.union1d(own, neighbourhood(own))
            return None if s.size > support or s.size == own.size else s
        span = (
            gain.indices[gain.indptr[i] : gain.indptr[i + 1]],
            gain.data[gain.indptr[i] : gain.indptr[i + 1]],
        )
        return _around(span, pool, own, support)

    def pairs(task: tuple[list[int], np.ndarray]) -> list[list[tuple[float, np.ndarray, np.ndarray]]]:
        """For each total of ``task`` (all around the same unknowns), its changes that lower and raise it (sign,
        unknowns, change), each where one was found: one programme, each total's started from the same vertex."""
        totals, s = task
        cut = sp.csr_matrix(a_csc[:, s])  # only the entries in S: a margin's row holds thousands of others
        sub = _distinct_rows(cut)
        rhs = sub @ known[s]
        whole = integer[s]
        prog = _started(sub, rhs, lower[s], upper[s], known[s], started=neighbourhood is not None)
        lean = prog.without_basic_rows() if neighbourhood is not None and sub.shape[0] >= LEAN_FROM_ROWS else None
        if lean is not None:
            # Without the rows its vertex next to the truth leaves to basic slacks (combinations of the rest: 38 %
            # of a sub-table's rows kept on the large request, a tenth less time); each point is checked after.
            prog = lean[0]
        start = prog.vertex()
        every: list[list[tuple[float, np.ndarray, np.ndarray]]] = []
        for n_i, i in enumerate(totals):
            if n_i and start is not None:
                prog.go_to(start)
            elif n_i:  # solved from scratch: so is each total
                prog = _started(sub, rhs, lower[s], upper[s], known[s], started=False)
            own = g.indices[g.indptr[i] : g.indptr[i + 1]]
            weights = g.data[g.indptr[i] : g.indptr[i + 1]]
            at = np.searchsorted(s, own)
            out: list[tuple[float, np.ndarray, np.ndarray]] = []
            for sign in (-1.0, 1.0):
                if not (up[i] if sign > 0 else down[i]):
                    continue
                sol = prog.maximise(at, sign * weights, iterations=iterations)
                if sol.status != "optimal" or sol.x is None:
                    continue
                x = sol.x
                if whole.any():
                    if not np.all(np.abs(x[whole] - np.round(x[whole])) <= 1e-6):
                        continue
                    x = np.where(whole, np.round(x), x)
                change = x - known[s]
                nz = np.abs(change) > 1e-9 * np.maximum(1.0, np.abs(known[s]))
                if nz.any():
                    out.append((sign, s[nz], change[nz]))
            every.append(out)
        return every

    found: dict[float, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {-1.0: ([], [], []),
                                                                                      1.0: ([], [], [])}  # fmt: skip
    # Totals around the same unknowns share one programme and its start (the crossover, most of a programme's
    # time): on the large request's sums, 2,245 sub-table totals lay around 960 different sub-tables.
    shared: dict[bytes, tuple[list[int], np.ndarray]] = {}
    for i in range(g.shape[0]):
        if (up[i] or down[i]) and (s := around(i)) is not None:
            shared.setdefault(s.tobytes(), ([], s))[0].append(i)
    tasks = list(shared.values())
    heavy = bool(tasks) and np.mean([s.size for _, s in tasks]) >= SIDE_BY_SIDE_UNKNOWNS
    answers = side_by_side(pairs, tasks) if heavy else map(pairs, tasks)
    for (totals, _), changes in zip(tasks, answers, strict=True):
        for i, per_total in zip(totals, changes, strict=True):
            for sign, cols_i, vals_i in per_total:
                rows, cols, vals = found[sign]
                rows.append(np.full(cols_i.size, i))
                cols.append(cols_i)
                vals.append(vals_i)
    out = []
    for sign in (1.0, -1.0):
        rows, cols, vals = found[sign]
        out.append(
            sp.csr_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(g.shape[0], n)
            )
            if rows
            else sp.csr_matrix((g.shape[0], n))
        )
    return out[0], out[1]


def _distinct_rows(cut: sp.csr_matrix) -> sp.csr_matrix:
    """The rows of ``cut`` that are not empty, each once. Cut to a sub-table, many released equations become the
    same row (a margin and its sub-margins meet S in the same cells), and their totals at ``known`` are then the
    same: one of them is the same programme. On the large request of ``benchmarks/outputs.py`` a sub-table kept
    55 % of its rows, and its programmes took two thirds of the time.

    Example:
        >>> cut = sp.csr_matrix(np.array([[1.0, 1, 0], [0, 0, 0], [1, 1, 0], [0, 1, 1]]))
        >>> _distinct_rows(cut).toarray().tolist()
        [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    """
    cut = sp.csr_matrix(cut)
    cut.sort_indices()
    size = np.diff(cut.indptr)
    rows = np.flatnonzero(size)
    if rows.size < 2 or not solver.LEAN_ROWS:
        return sp.csr_matrix(cut[rows])
    # Rows sorted by length and two random sums of their entries; a row equal to the first of its run in all
    # three is compared with it entry by entry (a matrix product and numpy alone: this runs in the programmes'
    # threads, and Python's lock would hold them up).
    rng = np.random.default_rng(0)
    weights = rng.random((cut.shape[1], 2)) + 1.0
    owner = np.repeat(np.arange(cut.shape[0]), size)
    hashes = np.zeros((cut.shape[0], 2))
    np.add.at(hashes, owner, weights[cut.indices] * (cut.data + np.pi)[:, None])
    order = rows[np.lexsort((rows, hashes[rows, 1], hashes[rows, 0], size[rows]))]
    key = np.column_stack([size[order], hashes[order]])
    first = np.r_[True, np.any(key[1:] != key[:-1], axis=1)]
    lead = order[np.maximum.accumulate(np.where(first, np.arange(order.size), 0))]
    twin = np.flatnonzero(~first)
    same = np.zeros(order.size, dtype=bool)
    if twin.size:
        mine, theirs = order[twin], lead[twin]
        step = np.arange(int(size[mine].sum())) - np.repeat(np.cumsum(size[mine]) - size[mine], size[mine])
        at_mine = np.repeat(cut.indptr[mine], size[mine]) + step
        at_theirs = np.repeat(cut.indptr[theirs], size[mine]) + step
        differ = (cut.indices[at_mine] != cut.indices[at_theirs]) | (cut.data[at_mine] != cut.data[at_theirs])
        bad = np.zeros(twin.size, dtype=bool)
        bad[np.repeat(np.arange(twin.size), size[mine])[differ]] = True
        same[twin[~bad]] = True
    return sp.csr_matrix(cut[np.sort(order[~same])])


def _started(a: sp.csr_matrix, rhs: np.ndarray, lower: np.ndarray, upper: np.ndarray, known: np.ndarray,
             started: bool) -> Program:  # fmt: skip
    """The small programme, started from the truth where ``started`` (primal simplex from the vertex HiGHS's
    crossover finds next to it), else solved from scratch by HiGHS's choice (dual simplex after presolve).

    A sub-table's programme of sums has its truth inside, far from any vertex, and several times more rows than
    its rank (2,376 rows of rank 242 in one): from scratch it took 700 dual simplex iterations (64 ms) on the large request of
    ``benchmarks/outputs.py``; from the truth, 55 primal ones after a crossover of 25 ms (35 ms in all). Around the
    moves the programmes are small enough that the crossover costs what it saves."""
    if started:
        prog = Program(a, rhs, rhs, lower=lower, upper=upper)
        # The crossover away from this thread, HiGHS holds Python's lock while it runs (Program.start_soon); here
        # if the processes are busy (with a block's crossover, seconds long).
        prog.start_soon(known, least_rows=ELSEWHERE_FROM_ROWS, unless_busy=True)
        if prog.start_at(known):
            return prog
    return Program(a, rhs, rhs, lower=lower, upper=upper, primal=False, presolve=True)


def subtables(
    coords: np.ndarray, sizes: tuple[int, ...], varying: np.ndarray, kinds: list[tuple[int, np.ndarray]]
) -> Callable[[np.ndarray, int], np.ndarray]:
    """Neighbourhoods in the atoms' cube: given unknowns → the unknowns of the sub-table that keeps, on each
    dimension that ``varying`` marks, their own levels and the ``levels`` fullest others (on the rest, their own).

    A move of a table whose margins are released changes cells that differ on several dimensions at once (a
    2 × 2 × 2 × 2 box under three-way margins), so the cells around a group are those of a small sub-table, not
    those next to it in one equation. ``coords``: each atom's level on each dimension; ``kinds``: (the offset of
    a kind of unknown, each atom's true value of it): the counts at 0, each magnitude's sums after them; the
    fullest levels are those of each kind's own mass.

    Example:
        >>> coords = np.array([[i, j] for i in range(4) for j in range(3)])
        >>> around = subtables(coords, (4, 3), np.array([True, True]), [(0, np.arange(12.0))])
        >>> around(np.array([0]), 1).tolist()    # atom (0, 0) and the fullest level of each dimension: 3 and 2
        [0, 2, 9, 11]
    """
    n = coords.shape[0]
    fullest = [
        [np.argsort(-np.bincount(coords[:, d], weights=np.abs(mass), minlength=size), kind="stable")
         for d, size in enumerate(sizes)]
        for _, mass in kinds
    ]  # fmt: skip

    def around(unknowns: np.ndarray, levels: int) -> np.ndarray:
        out = []
        for kind, (offset, _) in enumerate(kinds):
            atoms = unknowns[(unknowns >= offset) & (unknowns < offset + n)] - offset
            if atoms.size == 0:
                continue
            keep = np.ones(n, dtype=bool)
            for d, size in enumerate(sizes):
                on = np.zeros(size, dtype=bool)
                on[coords[atoms, d]] = True
                if varying[d]:
                    on[fullest[kind][d][:levels]] = True
                if not on.all():
                    keep &= on[coords[:, d]]
            out.append(np.flatnonzero(keep) + offset)
        return np.unique(np.concatenate(out)) if out else np.empty(0, dtype=np.int64)

    return around
