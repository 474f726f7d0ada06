"""Whole solutions that carry many totals up to their targets at once, and the proof that the rest cannot get there.

Whether an empty atom of a sparse release could hold someone is a question of integers: on a survey of 2,000
people in 10,080 atoms (the typical request of ``benchmarks/outputs.py``), the linear optimum of every such atom was
fractional, and each one's integer programme took about 12 s; 6,670 atoms asked would have taken a day. One integer
programme per block asks for all of them together:

    max Σ y_i   over   A·x = b,  lower ≤ x ≤ upper,  x whole where it must be,  τ_i·y_i ≤ g_i·x,  y_i ∈ {0, 1}

Its solution x is a whole solution of the block in which every total with y_i = 1 reaches its target τ_i; it is
checked against the block's equations and bounds before it counts. Repeated over the totals not yet reached, the
rounds end when the optimum is 0, proven with a zero gap: no whole solution takes any of the rest to its target, so
each such total is at most τ_i − 1. A round that only has to reach more totals stops after the root node
(:data:`QUICK_NODES`): what the root's heuristics find reaches nearly as many as the optimum; only a round that
reaches nothing is asked again with the nodes a proof may need (:data:`NODES`). On the survey above, 15 to 20
rounds a block reached all 6,670 (seconds a round, against hours one atom at a time).

Only totals with non-negative whole weights over whole, non-negative unknowns are asked (y_i = 0 is
then always possible), in blocks small enough for an integer programme (:data:`privrisk.outputs.intervals.MIP_ROWS`).
The rounds spend the Region's budget like every other programme; what it leaves is left to the programmes per end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privrisk.solver import Program

if TYPE_CHECKING:
    from privrisk.outputs.intervals import Region

__all__ = ["reach"]

#: Rounds of one programme at most (each reaches at least one more total, or proves the rest cannot).
REACH_ROUNDS = 64
#: Branch-and-bound nodes a round may take to find its whole solution: the root's heuristics find one that reaches
#: nearly as many totals as the optimum, and the nodes after it mostly tighten the bound (on a 300-record survey,
#: rounds of 2,000 nodes took 25 to 110 s, rounds of the root alone 9 to 15 s, reaching as many).
QUICK_NODES = 1
#: Branch-and-bound nodes a round may take when the quick one reached nothing (the proof that none can is there).
NODES = 2_000


def _askable(
    region: Region, g: sp.csr_matrix, rows: np.ndarray, targets: np.ndarray, low: bool
) -> np.ndarray:
    """Which totals can be asked: whole targets (above 0 for upper ones), non-negative whole weights over whole,
    non-negative unknowns in blocks with equations, and for lower ones a finite largest value."""
    ok = np.zeros(rows.size, dtype=bool)
    for n, i in enumerate(rows.tolist()):
        cols = g.indices[g.indptr[i] : g.indptr[i + 1]]
        val = g.data[g.indptr[i] : g.indptr[i + 1]]
        t = targets[n]
        if cols.size == 0 or not (np.isfinite(t) and float(t).is_integer() and (low or t > 0)):
            continue
        if not (np.all(val >= 0) and np.all(val == np.round(val)) and np.all(region.integer[cols])):
            continue
        if np.any(region.lo[cols] < 0) or (low and not np.all(np.isfinite(region.hi[cols]))):
            continue
        ok[n] = all(int(k) in region._rows for k in np.unique(region.col_block[cols]))
    return ok


def _groups(
    region: Region, g: sp.csr_matrix, rows: np.ndarray, mip_rows: int
) -> list[tuple[list[int], np.ndarray]]:
    """The blocks the totals join into one programme (those a total spans), with their totals; only groups of
    blocks of at most ``mip_rows`` equations in all."""
    blocks = sorted(
        {int(k) for i in rows.tolist() for k in region.col_block[g.indices[g.indptr[i] : g.indptr[i + 1]]]}
    )
    at = {k: n for n, k in enumerate(blocks)}
    first: list[int] = []
    second: list[int] = []
    for i in rows.tolist():
        ks_ = np.unique(region.col_block[g.indices[g.indptr[i] : g.indptr[i + 1]]])
        first += [at[int(ks_[0])]] * ks_.size
        second += [at[int(k)] for k in ks_]
    link = sp.csr_matrix((np.ones(len(first)), (first, second)), shape=(len(blocks), len(blocks)))
    _, label = connected_components(link, directed=False)
    out = []
    for c in np.unique(label).tolist():
        ks = [blocks[n] for n in np.flatnonzero(label == c).tolist()]
        if sum(region._rows[k].size for k in ks) > mip_rows:
            continue
        mine = np.array([n for n, i in enumerate(rows.tolist())
                         if label[at[int(region.col_block[g.indices[g.indptr[i]]])]] == c], dtype=np.int64)  # fmt: skip
        out.append((ks, mine))
    return out


def reach(
    region: Region,
    g: sp.csr_matrix,
    rows: np.ndarray,
    targets: np.ndarray,
    *,
    mip_rows: int,
    low: bool = False,
) -> tuple[list[list[tuple[int, np.ndarray]]], np.ndarray]:
    """Whole solutions (each a list of (block, its unknowns' values)) in which totals ``g[rows]`` reach
    ``targets`` (at least; at most, with ``low``), and which of ``rows`` are proven never to reach theirs: at most
    target − 1 (at least target + 1, with ``low``) in every whole solution.

    With ``low``, a total's row is g_i·x + (U_i − τ_i)·y_i ≤ U_i, U_i its largest value from the unknowns' bounds:
    y_i = 1 holds it at τ_i or below, y_i = 0 asks nothing.

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> from privrisk.outputs.intervals import Region
        >>> # x0 + x1 = 1 and x1 + x2 = 1, whole, truth (1, 0, 1): can x0 be 1? x1? can x2 be 2?
        >>> r = Region(sp.csr_matrix(np.array([[1.0, 1, 0], [0, 1, 1]])), np.array([1.0, 1]),
        ...            lower=np.zeros(3), integer=np.ones(3, bool), known=np.array([1.0, 0, 1]))
        >>> points, never = reach(r, sp.identity(3, format="csr"), np.arange(3), np.array([1.0, 1, 2]),
        ...                       mip_rows=2000)
        >>> sorted(p[0][1].tolist() for p in points), never.tolist()   # x0 and x1 in turn, never together
        ([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]], [False, False, True])
    """
    g = sp.csr_matrix(g)
    rows = np.asarray(rows, dtype=np.int64)
    targets = np.asarray(targets, dtype=float)
    never = np.zeros(rows.size, dtype=bool)
    points: list[list[tuple[int, np.ndarray]]] = []
    ok = np.flatnonzero(_askable(region, g, rows, targets, low))
    if ok.size == 0:
        return points, never
    for ks, part in _groups(region, g, rows[ok], mip_rows):
        mine = ok[part]
        cols = np.concatenate([region.block_cols(k) for k in ks])
        a = sp.block_diag([region._block_matrix(k) for k in ks], format="csr")
        b = np.concatenate([region.b[region._rows[k]] for k in ks])
        m, n, s = a.shape[0], cols.size, mine.size
        # One row per total over the blocks' unknowns (g's columns put in the programme's order).
        gk = sp.csr_matrix(g[rows[mine]][:, cols])
        t = targets[mine]
        if low:
            top = np.asarray(gk @ region.hi[cols]).ravel()
            link = sp.hstack([gk, sp.diags(top - t)], format="csr")
            row_hi = top
        else:
            link = sp.hstack([-gk, sp.diags(t)], format="csr")  # τ_i·y_i − g_i·x ≤ 0
            row_hi = np.zeros(s)
        model = sp.vstack([sp.hstack([a, sp.csr_matrix((m, s))], format="csr"), link], format="csr")
        prog = Program(
            model,
            np.r_[b, np.full(s, -np.inf)],
            np.r_[b, row_hi],
            lower=np.r_[region.lo[cols], np.zeros(s)],
            upper=np.r_[region.hi[cols], np.ones(s)],
            integer=np.r_[region.integer[cols], np.ones(s, dtype=bool)],
        )
        weight = max(region._weight(k) for k in ks)
        bounds = np.cumsum([0] + [region.block_cols(k).size for k in ks])
        open_ = np.ones(s, dtype=bool)
        nodes = QUICK_NODES
        for _ in range(REACH_ROUNDS):
            left = min(region._left(k) for k in ks)
            if left <= 0 or not open_.any():
                break
            sol = prog.maximise(
                n + np.flatnonzero(open_), np.ones(int(open_.sum())), nodes=nodes, iterations=left
            )
            region.budget -= prog.iterations * weight
            if sol.status == "optimal" and sol.bound < 1 - 1e-6:
                never[mine[open_]] = True  # proven (y whole): none of the rest reaches its target
                break
            x = sol.x if sol.status == "optimal" else sol.incumbent
            if x is None:
                if nodes < NODES:
                    nodes = NODES  # the same round again, with the nodes a proof may need
                    continue
                break
            point = np.where(region.integer[cols], np.round(x[:n]), x[:n]) + 0.0  # no −0.0
            parts = [(k, point[bounds[i] : bounds[i + 1]]) for i, k in enumerate(ks)]
            if not all(region._solves(k, p) for k, p in parts):
                break
            value = gk @ point
            reached = open_ & ((value <= t + 1e-9) if low else (value >= t - 1e-9))
            if not reached.any():
                if nodes < NODES:
                    nodes = NODES
                    continue
                break
            nodes = QUICK_NODES
            points.append(parts)
            open_ &= ~reached
            # The totals reached are no longer asked: their y held at 0.
            for j in np.flatnonzero(reached).tolist():
                prog.set_col_bounds(n + j, 0.0, 0.0)
    return points, never
