"""The intervals of a hierarchical table's suppressed cells: what an intruder recomputes over every whole,
non-negative table with the published cells (:func:`privrisk.outputs.hierarchical.suppression_pattern`'s audit).

Settled the cheapest way that is sound, in the order the module docstring of :mod:`privrisk.outputs.hierarchical`
gives: the shuttle algorithm's outer bounds (:func:`shuttle`) met by the pattern's witnesses; per connected block of
suppressed cells one linear programme started from the truth, whose rounds, neighbourhood bounds and programmes per
end are :mod:`privrisk.outputs.block_ends`'; for a fractional end, a whole table next to its optimum
(:func:`_whole_near`), then an integer programme in a block of up to ``_MIP_LIMIT`` cells. An end is exact only
when a whole table reaches it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privrisk.outputs import block_ends as _block_ends
from privrisk.outputs.block_ends import UNBOUNDED as _UNBOUNDED
from privrisk.outputs.block_ends import tighten as _tighten
from privrisk.outputs.block_ends import witness as _witness
from privrisk.solver import Program

__all__ = ["ceiling", "hidden_intervals", "shuttle"]

_AROUND = True  # after each programme per end, its neighbours' bounds again (block_ends.Around)
_NODES = 2_000  # branch-and-bound nodes of one integer programme
# A fractional linear end: a whole table next to its optimum first (:func:`_whole_near`), the cells within this many
# relations of the fractional ones free. On the 10⁶-cell table's block of 200,296 cells the optima of the
# programmes per end are whole but for the same 30 cells; radius 1 (about 360 cells free, 8 ms) reached the linear
# end in 60 of the first 60, where the block's own integer programme took minutes.
_NEAR_RADII = (1, 2)
_MIP_LIMIT = 5_000  # unknowns in a block above which a fractional linear end is kept as an outer bound
_SHUTTLE_ROUNDS = (
    500  # rounds of the shuttle algorithm (each round's bounds are valid; it usually settles sooner)
)


def ceiling(a: sp.csr_matrix, values: np.ndarray, suppressed: np.ndarray) -> np.ndarray:
    """A bound on each cell without a programme: for each relation whose total is published, the total less
    its published children (the hidden ones are ≥ 0); the least over the cell's relations (∞ if none)."""
    coo = a.tocoo()
    is_total = coo.data > 0
    row_total = np.full(a.shape[0], np.nan)
    row_total[coo.row[is_total]] = np.where(suppressed[coo.col[is_total]], np.nan, values[coo.col[is_total]])
    child = ~is_total
    shown = np.where(suppressed[coo.col[child]], 0.0, values[coo.col[child]])
    rest = np.bincount(coo.row[child], weights=shown, minlength=a.shape[0])
    bound = np.where(np.isnan(row_total), np.inf, row_total - rest)
    out = np.full(values.size, np.inf)
    np.minimum.at(out, coo.col[child], bound[coo.row[child]])
    return out


def shuttle(
    m: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray, rounds: int = _SHUTTLE_ROUNDS
) -> tuple[np.ndarray, np.ndarray]:
    """Outer bounds on whole non-negative unknowns x with ``m·x = b`` (m's entries ±1), by the shuttle algorithm
    (Buzzigoli & Giusti 1999): each relation bounds each of its unknowns by ``b`` less the others' bounds, and the
    bounds are tightened relation by relation until nothing changes. Counts are whole, so each bound is rounded
    inwards (⌈lower⌉, ⌊upper⌋). Every round's bounds hold for every whole solution, so stopping after ``rounds``
    still gives valid (looser) bounds."""
    coo = m.tocoo()
    row, col, pos = coo.row, coo.col, coo.data > 0
    nrow = m.shape[0]
    lo, hi = lower.astype(float).copy(), upper.astype(float).copy()
    for _ in range(rounds):
        # each entry's contribution a·x at its largest and smallest; infinities counted apart
        big = np.where(pos, hi[col], -lo[col])
        small = np.where(pos, lo[col], -hi[col])
        big_inf = np.isinf(big)
        small_inf = np.isinf(small)
        big_sum = np.bincount(row, weights=np.where(big_inf, 0.0, big), minlength=nrow)
        small_sum = np.bincount(row, weights=np.where(small_inf, 0.0, small), minlength=nrow)
        big_n = np.bincount(row, weights=big_inf, minlength=nrow)
        small_n = np.bincount(row, weights=small_inf, minlength=nrow)
        # the others' largest and smallest sum, entry by entry
        others_big = np.where(big_n[row] - big_inf > 0, np.inf, big_sum[row] - np.where(big_inf, 0.0, big))
        others_small = np.where(
            small_n[row] - small_inf > 0, -np.inf, small_sum[row] - np.where(small_inf, 0.0, small)
        )
        # a·x = b − others: x ≤ (b − others_small)/a and x ≥ (b − others_big)/a for a = +1, swapped for a = −1
        with np.errstate(invalid="ignore"):
            up = np.where(pos, b[row] - others_small, others_big - b[row])
            down = np.where(pos, b[row] - others_big, others_small - b[row])
        new_hi = hi.copy()
        new_lo = lo.copy()
        np.minimum.at(new_hi, col, np.floor(up + 1e-6))
        np.maximum.at(new_lo, col, np.ceil(down - 1e-6))
        if (new_lo > new_hi).any():
            raise RuntimeError("internal: the published cells admit no whole table")
        if np.array_equal(new_hi, hi) and np.array_equal(new_lo, lo):
            break
        lo, hi = new_lo, new_hi
    return lo + 0.0, hi + 0.0  # + 0.0: no −0.0 from ⌈−0.3⌉


def hidden_intervals(
    a: sp.csr_matrix,
    values: np.ndarray,
    suppressed: np.ndarray,
    targets: np.ndarray,
    wlo: np.ndarray,
    whi: np.ndarray,
    stats: dict[str, int] | None = None,
    grows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each target's least and largest value over whole non-negative tables with the published cells.

    First without programmes: :func:`shuttle` gives outer bounds on every suppressed cell, and an end a witness
    (a whole table with the published cells) reaches is exact: the interval lies between the outer bounds and
    contains every witness; ``grows`` (from :func:`privrisk.outputs.hierarchical._grows`) marks exactly the cells with no end above. A cell the
    bounds fix (lower = upper) is known to the intruder: it is a constant of
    the others' programmes, which may split a block. The other ends, per block of suppressed cells (one model a
    block, started from the truth): witnesses for many ends at once and bounds from neighbourhoods
    (:func:`privrisk.outputs.block_ends.tighten`), then linear programmes per end, where a linear end ⌊max⌋
    (⌈min⌉) a witness reaches is exact, and integer programmes where it is not; every whole optimum found is a
    witness for the block's other cells."""
    n = values.size
    st = stats if stats is not None else {}
    for key in (
        "shuttle_ends",
        "lp",
        "lp_ends",
        "mip",
        "mip_ends",
        "mip_gap",
        "not_exact",
        "fixed",
        "blocks",
        "largest",
        "rounds",
        "local",
        "local_ends",
        "near_ends",
    ):
        st.setdefault(key, 0)
    wlo, whi = wlo.copy(), whi.copy()
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    exact = np.ones(n, dtype=bool)
    hid = np.flatnonzero(suppressed)
    csc = a.tocsc()
    sub = csc[:, hid].tocsr()
    rhs = -(csc[:, ~suppressed] @ values[~suppressed].astype(float))
    rows = np.flatnonzero(np.diff(sub.indptr) > 0)
    sub, rhs = sub[rows], rhs[rows]
    # outer bounds without programmes; a cell in no relation (a table of one cell) is anything ≥ 0
    slo, shi = shuttle(sub, rhs, np.zeros(hid.size), np.full(hid.size, np.inf))
    if grows is not None:  # an exact test: these cells' upper end is ∞ (and only these cells')
        g = grows[hid]
        if (g & np.isfinite(shi)).any():
            raise RuntimeError("internal: a cell grows without end past its whole bound")
        whi[hid[g]] = _UNBOUNDED
    # cells the bounds fix are constants: out of the unknowns, into the right-hand sides
    fixed = slo == shi
    st["fixed"] += int(fixed.sum())
    rhs = rhs - sub[:, fixed] @ slo[fixed]
    free = np.flatnonzero(~fixed)
    sub = sub[:, free]
    for i in np.flatnonzero(fixed).tolist():
        c = int(hid[i])
        wlo[c] = min(wlo[c], slo[i])
        whi[c] = max(whi[c], slo[i])
    pos = np.full(n, -1, dtype=np.int64)
    pos[hid] = np.arange(hid.size)
    bound_lo = np.full(n, np.nan)
    bound_hi = np.full(n, np.nan)
    bound_lo[hid], bound_hi[hid] = slo, shi
    todo: list[int] = []
    for cell in targets.tolist():
        ends_known = wlo[cell] <= bound_lo[cell] and (whi[cell] >= bound_hi[cell] or whi[cell] >= _UNBOUNDED)
        if ends_known:
            lo[cell], hi[cell] = bound_lo[cell], bound_hi[cell]
            st["shuttle_ends"] += 2
        else:
            todo.append(cell)
    if not todo:
        return lo, hi, exact
    # blocks: free suppressed cells linked by a relation they share
    keep = np.flatnonzero(np.diff(sub.indptr) > 0)
    sub, rhs = sub[keep], rhs[keep]
    graph = sp.bmat([[None, sub], [sub.T, None]]).tocsr()
    _, label = connected_components(graph, directed=False)
    cell_label = label[keep.size :]
    row_label = label[: keep.size]
    free_of = np.full(hid.size, -1, dtype=np.int64)
    free_of[free] = np.arange(free.size)
    want = np.zeros(free.size, dtype=bool)
    want[free_of[pos[np.asarray(todo)]]] = True
    order = np.argsort(cell_label, kind="stable")
    splits = np.flatnonzero(np.diff(cell_label[order])) + 1
    row_order = np.argsort(row_label, kind="stable")
    row_sorted = row_label[row_order]
    for members in np.split(order, splits):
        if not want[members].any():
            continue
        st["blocks"] += 1
        st["largest"] = max(st["largest"], int(members.size))
        block = int(cell_label[members[0]])
        r = row_order[np.searchsorted(row_sorted, block) : np.searchsorted(row_sorted, block, side="right")]
        cells = hid[free[members]]
        if r.size == 0:  # a suppressed cell in no relation (a table of one cell): anything ≥ 0
            lo[cells], hi[cells] = 0.0, np.inf
            continue
        m = sub[r][:, members]
        csc = m.tocsc()
        b = rhs[r]
        blo, bhi = bound_lo[cells], bound_hi[cells]
        blo, bhi, prog = _tighten(m, b, cells, values[cells].astype(float), blo, bhi,
                                  np.flatnonzero(want[members]), wlo, whi, st)  # fmt: skip
        # all upper ends, then all lower ends: each programme starts from the last one's optimum, which is
        # nearer when it pushed the same way
        mine = np.flatnonzero(want[members])
        block_prog = _LazyProgram(m, b, blo, bhi, values[cells].astype(float), prog)
        ends: dict[bool, list[float]] = {True: [], False: []}
        around = _block_ends.Around(m, b, cells, values[cells].astype(float), mine) if _AROUND else None
        for top in (True, False):
            for j in mine.tolist():
                solved = st["lp"]
                end = _block_end(block_prog, m, csc, b, cells, blo, bhi, wlo, whi, exact, j, top, st)
                ends[top].append(end)
                if around is not None and st["lp"] > solved:
                    # the end is an outer bound (exact or not): its neighbours' bounds may tighten with it
                    if top:
                        bhi[j] = min(bhi[j], end)
                    else:
                        blo[j] = max(blo[j], end)
                    around.tighten(j, blo, bhi, wlo, whi, st)
        for j, end_lo, end_hi in zip(mine.tolist(), ends[False], ends[True], strict=True):
            cell = int(cells[j])
            lo[cell] = np.ceil(end_lo - 1e-6) + 0.0
            hi[cell] = np.floor(end_hi + 1e-6) if np.isfinite(end_hi) else np.inf
    return lo, hi, exact


class _LazyProgram:
    """A block's linear programme, built (and started from the truth) when first needed."""

    def __init__(self, m: sp.csr_matrix, b: np.ndarray, blo: np.ndarray, bhi: np.ndarray, truth: np.ndarray,
                 prog: Program | None) -> None:  # fmt: skip
        self._args = (m, b, blo.copy(), bhi.copy(), truth)
        self._prog = prog

    def get(self) -> Program:
        if self._prog is None:
            m, b, blo, bhi, truth = self._args
            self._prog = Program(m, b, b, lower=blo, upper=bhi)
            self._prog.start_at(truth)
        return self._prog


def _block_end(block_prog: _LazyProgram, m: sp.csr_matrix, csc: sp.csc_matrix, b: np.ndarray, cells: np.ndarray,
               blo: np.ndarray, bhi: np.ndarray, wlo: np.ndarray, whi: np.ndarray, exact: np.ndarray, j: int,
               top: bool, st: dict[str, int]) -> float:  # fmt: skip
    """Unknown j's upper (lower) end over its block: an outer bound a witness reaches, else the block's linear
    programme (warm started), else an integer programme (past its budget an outer bound, ``exact`` cleared)."""
    cell = int(cells[j])
    # an outer bound a witness reaches is the exact end
    if not top and wlo[cell] <= blo[j]:
        st["shuttle_ends"] += 1
        return float(blo[j])
    if top and (whi[cell] >= _UNBOUNDED or whi[cell] >= bhi[j]):
        st["shuttle_ends"] += 1
        return float(bhi[j])
    prog = block_prog.get()
    sol = (prog.maximise if top else prog.minimise)([j], [1.0])
    st["lp"] += 1
    if sol.status == "unbounded":
        return np.inf
    if not sol.optimal or sol.x is None:
        raise RuntimeError(f"internal: the programme of a block ended {sol.status}")
    _witness(cells, sol.x, wlo, whi, m, b)
    # whole tables lie within the linear optimum, rounded inwards (counts are whole)
    v = np.floor(sol.value + 1e-6) if top else np.ceil(sol.value - 1e-6)
    # the block's bound, when tighter (a later pass of neighbourhood bounds), is as sound
    v = min(v, bhi[j]) if top else max(v, blo[j])
    if (whi[cell] >= v) if top else (wlo[cell] <= v):
        st["lp_ends"] += 1
        return float(v)
    for radius in _NEAR_RADII:
        near = _whole_near(m, csc, b, sol.x, j, top, blo, bhi, radius)
        if (
            near is not None
            and _witness(cells, near, wlo, whi, m, b)
            and ((whi[cell] >= v) if top else (wlo[cell] <= v))
        ):
            st["near_ends"] += 1
            return float(v)
    whole, x = _integer_end(m, b, j, top, blo, bhi)
    st["mip"] += 1
    if x is not None:
        _witness(cells, x, wlo, whi, m, b)
    if whole is None:
        exact[cell] = False
        st["not_exact"] += 1
        return float(v)
    st["mip_ends"] += 1
    st["mip_gap"] += int(whole != v)
    return whole


def _whole_near(m: sp.csr_matrix, csc: sp.csc_matrix, b: np.ndarray, x: np.ndarray, j: int, top: bool,
                lower: np.ndarray, upper: np.ndarray, radius: int) -> np.ndarray | None:  # fmt: skip
    """A whole table next to a fractional linear optimum ``x`` that pushes unknown j as far: the unknowns x leaves
    whole stay as they are (rounded), except within ``radius`` relations of j and of the fractional ones, which an
    integer programme over those alone chooses (None if it finds none within its budget). Not a bound (the rest is
    held): the caller checks it as a witness and compares it with the linear end. ``csc``: ``m`` by columns (built
    once a block: the block of a 10⁶-cell table takes 5 ms to turn)."""
    whole = np.round(x)
    free = np.union1d(np.flatnonzero(np.abs(x - whole) > 1e-6), [j])
    for _ in range(radius):
        free = np.union1d(free, m[np.unique(csc[:, free].indices)].indices)
    if free.size > _MIP_LIMIT:
        return None
    held = np.ones(x.size, dtype=bool)
    held[free] = False
    rows = np.unique(csc[:, free].indices)
    part = m[rows]
    rhs = b[rows] - part[:, held] @ whole[held]
    prog = Program(part[:, free], rhs, rhs, lower=lower[free], upper=upper[free],
                   integer=np.ones(free.size, dtype=bool))  # fmt: skip
    at = int(np.searchsorted(free, j))
    sol = (prog.maximise if top else prog.minimise)([at], [1.0], nodes=_NODES)
    found = sol.x if sol.optimal else sol.incumbent
    if found is None:
        return None
    whole[free] = found
    return whole


def _integer_end(
    m: sp.csr_matrix, b: np.ndarray, j: int, top: bool, lower: np.ndarray, upper: np.ndarray
) -> tuple[float | None, np.ndarray | None]:
    """The integer programme's optimum (None past the budget) and a whole table it found (None if none)."""
    width = lower.size
    if width > _MIP_LIMIT:
        return None, None
    prog = Program(m, b, b, lower=lower, upper=upper, integer=np.ones(width, dtype=bool))
    sol = (prog.maximise if top else prog.minimise)([j], [1.0], nodes=_NODES)
    if sol.optimal:
        return float(sol.value), sol.x
    return None, sol.incumbent
