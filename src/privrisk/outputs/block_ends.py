"""A block of suppressed cells' interval ends settled many at a time, without a programme per end (issue 36).

A block is a connected set of hidden cells of a hierarchical table (:mod:`privrisk.outputs.hierarchical`) with its
relations ``m·x = b`` (the published cells moved to the right-hand side) and outer bounds ``blo ≤ x ≤ bhi`` that
hold for every whole non-negative table with the published cells. An end of a cell's interval is exact once a
*witness* (a whole table with the published cells, :func:`witness`) reaches its outer bound. This module finds
witnesses and tightens outer bounds for many ends at once (:func:`tighten`):

- rounds of witnesses (:func:`rounds`): the block's linear programme maximises (minimises) the sum of the cells
  whose end is still open; a whole vertex is a witness for every cell of the block;
- outer bounds from a neighbourhood of each end still open (:func:`local_end`: the cells within 1–3 relations, the
  relations that leave it kept as ranged rows over the outside cells' bounds, a relaxation), rounded inwards since
  counts are whole; a tighter bound becomes the cell's bound and the rounds run again towards it. A bound
  tightened so tightens its neighbours' in turn (the programme of a neighbourhood reads the bounds of the cells its
  relations hold): up to ``_PASSES`` passes over the ends still open (the later ones over the smallest
  neighbourhoods), a neighbourhood solved again only once a bound it reads has changed (:class:`_Seen`). On the
  benchmark's tables the later passes leave fewer programmes per end to the caller: 163 → 86 at 29,791 cells,
  1,110 → 923 at 117,649 (590 → 563 s of CPU); with :class:`Around` as well, 60 and 595 (473 s).

Nothing here calls an end exact: the caller compares witnesses with bounds.

Tried and left out (measured): the *inner* twin of a neighbourhood's programme, the outside cells held
at the truth, whose whole optimum is a witness: on 15,625 and 29,791 cells every one was whole (529 and 2,056) and
none met its outer bound (the witnesses that do move cells five to seven relations away; the programmes cost a
quarter more CPU). Dual or steepest-edge simplex for the programmes per end: 32× and 18× slower than primal
(devex) from the last optimum, for the same ends. Column generation for the programmes per end (the cells
around the end free, the rest held at the truth, cells added while their reduced costs at the truth say the
optimum moves them; its optimum is the block's): the same 219 ends on 46,656 cells, but the cells it had to free
were a fifth of the block (median 2,813 of 13,530, up to 6,178, after 31 rounds), and it took 60 s of CPU against
12.8 s for the block's programme warm started from the last optimum (2026-12-01).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privrisk.solver import Program

__all__ = [
    "UNBOUNDED",
    "Around",
    "local_end",
    "neighbourhood",
    "open_ends",
    "rounds",
    "tighten",
    "witness",
]

_ROUNDS = 30  # rounds of witnesses for many ends at once (:func:`rounds`)
_ROUND_GAIN = 0.01  # the rounds stop when one settles fewer than this share of the open ends
# Simplex iterations of one round: at least _ROUND_ITERATIONS, and _ROUND_ITERATIONS_PER_CELL a cell of the block.
# On the 10⁶-cell table's block of 200,296 cells, 3,000 left 38,798 of 57,997 upper ends open when the rounds
# stopped (17.6 s); 20,000 (about 2–10 s a round, most rounds reaching their optimum) left 4,392 (155 s).
_ROUND_ITERATIONS = 3_000
_ROUND_ITERATIONS_PER_CELL = 0.1
# Each round starts from the vertex the rounds started from (next to the truth), not from the last round's. Chained,
# the basis grows denser round after round (3,000 iterations: 1.6 s in the first round on that block, 51 s in the
# twentieth), and the programmes per end after the rounds start far from the truth: on 117,649 cells 942 of them,
# 235 s, against 567 and 12 s so, the intervals the same cell for cell (289 s of CPU in all against 34 s).
_FROM_TRUTH = True
_EVEN_GAIN = 0.05  # the rounds' weights are drawn at random once an even round settles fewer than this share
_SPREAD = 9.0  # the later rounds' weights lie in [1, 1 + _SPREAD]
_RADII = (1, 2, 3)  # neighbourhoods tried for an outer bound (:func:`local_end`)
_PASSES = 3  # passes of neighbourhood bounds over the open ends (each pass's bounds tighten the next's)
# the neighbourhoods of the later passes, the smallest: on 29,791 cells 3,024 neighbourhood programmes and 86 per
# end (all three radii in every pass: 4,807 and 81, and a third more CPU)
_LATER_RADII = (1,)
_AROUND_STEPS = (
    200  # neighbourhood programmes after one end found (:class:`Around`), a tightened one's around too
)
UNBOUNDED = 10**12  # a witness move with no cell decreasing: the cell grows without end


def open_ends(j: np.ndarray, cells: np.ndarray, blo: np.ndarray, bhi: np.ndarray, wlo: np.ndarray,
          whi: np.ndarray, top: bool) -> np.ndarray:  # fmt: skip
    """The block positions among ``j`` whose upper (lower) end no witness has reached yet (a finite one)."""
    if top:
        return j[(whi[cells[j]] < bhi[j]) & (whi[cells[j]] < UNBOUNDED) & np.isfinite(bhi[j])]
    return j[wlo[cells[j]] > blo[j]]


def rounds(prog: Program, m: sp.csr_matrix, b: np.ndarray, cells: np.ndarray, blo: np.ndarray,
            bhi: np.ndarray, wanted: np.ndarray, wlo: np.ndarray, whi: np.ndarray,
            st: dict[str, int]) -> None:  # fmt: skip
    """Witnesses for many ends at once: the block's linear programme maximises (minimises) the sum of the cells
    whose upper (lower) end is still open; a whole optimum is a whole table with the published cells, so every
    cell it takes to its outer bound has its exact end. Cells of one relation compete for its total, so a round
    reaches some and the next round, over the rest, others; the rounds stop when one reaches too few. Each round
    starts from the vertex ``prog`` is at when the rounds begin (:data:`_FROM_TRUTH`)."""
    rng = np.random.default_rng(0)  # the same request gives the same answer every run
    start = prog.vertex() if _FROM_TRUTH else None
    for top in (True, False):
        even = True
        for _ in range(_ROUNDS):
            todo = open_ends(wanted, cells, blo, bhi, wlo, whi, top)
            if not todo.size:
                break
            # even weights while they pay, then weights drawn at random:
            # an even sum leaves the programme indifferent between two cells that compete one for one, and the
            # vertex it picks may take neither to its end
            w = np.ones(todo.size) if even else 1.0 + _SPREAD * rng.random(todo.size)
            # a round ends after its iterations: primal simplex's last vertex is a table with the published
            # cells all the same (checked as a witness), and on a large block the first iterations of a round
            # settle the most ends
            prog.go_to(start)
            cap = max(_ROUND_ITERATIONS, int(_ROUND_ITERATIONS_PER_CELL * cells.size))
            sol = (prog.maximise if top else prog.minimise)(todo, w, iterations=cap)
            st["rounds"] += 1
            x = sol.x if sol.optimal else sol.incumbent
            if x is None or not witness(cells, x, wlo, whi, m, b):
                break
            gain = 1 - open_ends(todo, cells, blo, bhi, wlo, whi, top).size / todo.size
            if gain < _EVEN_GAIN:
                if not even and gain < _ROUND_GAIN:
                    break
                even = False


def local_end(csr: sp.csr_matrix, csc: sp.csc_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              j: int, top: bool, radius: int) -> float:  # fmt: skip
    """An outer bound on unknown j's largest (least) value over ``csr·x = b``, ``lower ≤ x ≤ upper``, from a
    neighbourhood only: the unknowns T within ``radius`` relations of j, every relation that holds one of them,
    and in each such relation the unknowns outside T replaced by the range their bounds allow (a ranged row).
    Every solution of the whole system, restricted to T, satisfies these rows: the programme is a relaxation,
    so its optimum bounds the whole system's (and every whole table's). The linear optimum, not rounded."""
    near, rows = neighbourhood(csr, csc, j, radius)
    return _outer_end(csr, b, lower, upper, near, rows, j, top)


def _outer_end(csr: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray, near: np.ndarray,
               rows: np.ndarray, j: int, top: bool) -> float:  # fmt: skip
    """:func:`local_end` over a neighbourhood ``near`` and the relations ``rows`` that hold its unknowns."""
    part = csr[rows].tocoo()
    inside = np.zeros(lower.size, dtype=bool)
    inside[near] = True
    out = ~inside[part.col]
    pos = part.data > 0
    # each outside unknown's contribution a·x at its largest and smallest (infinite where its bound is)
    big = np.where(pos, upper[part.col], -lower[part.col])[out]
    small = np.where(pos, lower[part.col], -upper[part.col])[out]
    r = part.row[out]
    k = rows.size
    big_inf = np.bincount(r, weights=np.isinf(big), minlength=k) > 0
    small_inf = np.bincount(r, weights=np.isinf(small), minlength=k) > 0
    big_sum = np.bincount(r, weights=np.where(np.isinf(big), 0.0, big), minlength=k)
    small_sum = np.bincount(r, weights=np.where(np.isinf(small), 0.0, small), minlength=k)
    row_lo = np.where(big_inf, -np.inf, b[rows] - big_sum)
    row_hi = np.where(small_inf, np.inf, b[rows] - small_sum)
    prog = Program(csr[rows][:, near], row_lo, row_hi, lower=lower[near], upper=upper[near])
    at = int(np.searchsorted(near, j))
    sol = (prog.maximise if top else prog.minimise)([at], [1.0])
    if sol.status == "unbounded":
        return np.inf if top else -np.inf
    if not sol.optimal:
        raise RuntimeError(f"internal: a neighbourhood's programme ended {sol.status}")
    return float(sol.value)


def neighbourhood(
    csr: sp.csr_matrix, csc: sp.csc_matrix, j: int, radius: int
) -> tuple[np.ndarray, np.ndarray]:
    """The unknowns within ``radius`` relations of unknown j (sorted) and the relations that hold any of them."""
    near = np.asarray([j])
    for _ in range(radius):
        rows = np.unique(csc[:, near].indices)
        near = np.union1d(near, csr[rows].indices)
    return near, np.unique(csc[:, near].indices)


def tighten(m: sp.csr_matrix, b: np.ndarray, cells: np.ndarray, truth: np.ndarray, blo: np.ndarray,
             bhi: np.ndarray, wanted: np.ndarray, wlo: np.ndarray, whi: np.ndarray,
             st: dict[str, int]) -> tuple[np.ndarray, np.ndarray, Program | None]:  # fmt: skip
    """Settle a block's ends without a programme per end where it can: witnesses by :func:`rounds`, then
    for each end still open an outer bound from a neighbourhood (:func:`local_end`, radius 1, 2, … until a
    witness meets it), in passes while one tightens a bound, then rounds again towards the tightened bounds.
    Returns the block's bounds, tightened (each still holds every whole table with the published cells, rounded
    inwards since counts are whole), and the block's programme (started from the truth; None if no end needed
    one) with the first pass's bounds: the later passes' are tighter than the programme's, and an end's linear
    optimum over the programme is an outer bound as sound."""
    blo, bhi = blo.copy(), bhi.copy()
    if not _ROUNDS or not (open_ends(wanted, cells, blo, bhi, wlo, whi, True).size
                           or open_ends(wanted, cells, blo, bhi, wlo, whi, False).size):  # fmt: skip
        return blo, bhi, None
    prog = Program(m, b, b, lower=blo, upper=bhi)
    prog.start_at(truth)
    rounds(prog, m, b, cells, blo, bhi, wanted, wlo, whi, st)
    if not _RADII:
        return blo, bhi, prog
    csr, csc = m.tocsr(), m.tocsc()
    # A bound tightened here tightens its neighbours' next time: passes until one tightens nothing. A
    # neighbourhood's programme reads only the bounds of the cells its relations hold, so it is solved again
    # only once one of those has changed (the same programme, the same bound). The first pass's bounds go into
    # the block's programme; later ones only settle ends (a tighter variable bound there can turn the whole
    # vertices of the programmes per end fractional, and the caller takes the tighter of the two outer bounds).
    seen = _Seen(cells.size)
    tightened = False
    for k in range(_PASSES):
        changed = False
        for top in (True, False):
            for j in open_ends(wanted, cells, blo, bhi, wlo, whi, top).tolist():
                changed |= _neighbourhood_bounds(prog if k == 0 else None, _RADII if k == 0 else _LATER_RADII,
                                                 csr, csc, b, cells, truth, blo, bhi, wlo, whi, j, top, seen,
                                                 st)  # fmt: skip
        tightened |= changed
        if not changed:
            break
    if tightened:
        rounds(prog, m, b, cells, blo, bhi, wanted, wlo, whi, st)
    return blo, bhi, prog


class _Seen:
    """When each unknown's bounds last changed, and what each neighbourhood's programme last read."""

    def __init__(self, n: int) -> None:
        self.clock = 0
        self.changed = np.zeros(n, dtype=np.int64)
        self.read: dict[tuple[int, bool, int], int] = {}

    def fresh(self, key: tuple[int, bool, int], cols: np.ndarray) -> bool:
        """Whether a programme reading the bounds of ``cols`` would differ from its last run (or never ran)."""
        last = self.read.get(key)
        return last is None or bool(self.changed[cols].max(initial=0) > last)

    def ran(self, key: tuple[int, bool, int]) -> None:
        self.read[key] = self.clock

    def tightened(self, j: int) -> None:
        self.clock += 1
        self.changed[j] = self.clock


def _neighbourhood_bounds(prog: Program | None, radii: tuple[int, ...], csr: sp.csr_matrix, csc: sp.csc_matrix,
                          b: np.ndarray, cells: np.ndarray, truth: np.ndarray, blo: np.ndarray, bhi: np.ndarray,
                          wlo: np.ndarray, whi: np.ndarray, j: int, top: bool, seen: _Seen,
                          st: dict[str, int]) -> bool:  # fmt: skip
    """End j's outer bound from its neighbourhoods (each of ``radii`` until a witness meets it), into
    ``blo``/``bhi`` (and the block's programme, if given). Whether it tightened."""
    tightened = False
    for radius in radii:
        if (whi[cells[j]] >= bhi[j]) if top else (wlo[cells[j]] <= blo[j]):
            break
        near, rows = neighbourhood(csr, csc, j, radius)
        key = (j, top, radius)
        if not seen.fresh(key, csr[rows].indices):
            continue
        v = _outer_end(csr, b, blo, bhi, near, rows, j, top)
        seen.ran(key)
        st["local"] += 1
        if top and np.floor(v + 1e-6) < bhi[j]:
            bhi[j] = np.floor(v + 1e-6)
            tightened = True
            seen.tightened(j)
        elif not top and np.ceil(v - 1e-6) > blo[j]:
            blo[j] = np.ceil(v - 1e-6) + 0.0
            tightened = True
            seen.tightened(j)
        if blo[j] > bhi[j] or not blo[j] <= truth[j] <= bhi[j]:
            raise RuntimeError("internal: a neighbourhood's bound cuts off the truth")
        if prog is not None:
            prog.set_col_bounds(j, blo[j], bhi[j])
        if (whi[cells[j]] >= bhi[j]) if top else (wlo[cells[j]] <= blo[j]):
            st["local_ends"] += 1
            break
    return tightened


class Around:
    """The radius-1 neighbourhood bounds of the ends around an unknown whose bound just tightened (a programme per
    end found its end): each wanted end there still open gets its outer bound again, as in a later pass of
    :func:`tighten`, and one that tightens has its own neighbours' done in turn (up to ``_AROUND_STEPS``
    programmes). On 29,791 cells: 86 → 60 programmes per end for 96 more neighbourhood programmes."""

    def __init__(self, m: sp.csr_matrix, b: np.ndarray, cells: np.ndarray, truth: np.ndarray,
                 wanted: np.ndarray) -> None:  # fmt: skip
        self.csr, self.csc = m.tocsr(), m.tocsc()
        self.b, self.cells, self.truth = b, cells, truth
        self.wanted = np.zeros(cells.size, dtype=bool)
        self.wanted[wanted] = True
        self.seen = _Seen(cells.size)

    def tighten(self, j: int, blo: np.ndarray, bhi: np.ndarray, wlo: np.ndarray, whi: np.ndarray,
                st: dict[str, int]) -> None:  # fmt: skip
        self.seen.tightened(j)
        todo, steps = [j], 0
        while todo and steps < _AROUND_STEPS:
            near, _ = neighbourhood(self.csr, self.csc, todo.pop(), 1)
            for i in near[self.wanted[near]].tolist():
                for top in (True, False):
                    if open_ends(np.asarray([i]), self.cells, blo, bhi, wlo, whi, top).size:
                        steps += 1
                        if _neighbourhood_bounds(None, _LATER_RADII, self.csr, self.csc, self.b, self.cells,
                                                 self.truth, blo, bhi, wlo, whi, i, top, self.seen, st):  # fmt: skip
                            todo.append(i)


def witness(cells: np.ndarray, x: np.ndarray, wlo: np.ndarray, whi: np.ndarray, m: sp.csr_matrix,
             b: np.ndarray) -> bool:  # fmt: skip
    """A whole optimum is a whole table with the published cells: a witness for every cell of its block.
    Whether it was whole (and so counted). Rounded, it is checked against the block's relations ``m·x = b`` and
    ``x ≥ 0`` exactly (the solver's tolerances never make a witness)."""
    whole = np.round(x)
    if np.abs(x - whole).max(initial=0.0) > 1e-6:
        return False
    if (whole < 0).any() or not np.array_equal(m @ whole, b):
        return False
    wlo[cells] = np.minimum(wlo[cells], whole)
    whi[cells] = np.maximum(whi[cells], whole)
    return True
