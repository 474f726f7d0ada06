"""A suppression pattern for a large hierarchical count table, proven cell by cell (τ-ARGUS / sdcTable size).

The table is the full cross-classification of k hierarchical dimensions: each dimension's codes form a tree (a
total, its subtotals, their leaves), and every cell at a non-leaf code of dimension d is the sum of the cells at its
children (the other codes fixed). The intruder knows every published cell, these additive relations, and that
counts are whole and non-negative.

**Primary** suppressions are the cells with 1 ≤ n < threshold (the policy's threshold rule; zeros are not
sensitive unless asked). **Secondary** suppressions follow the hypercube method (Repsilber's GHMITER, τ-ARGUS and
sdcTable's ``"HYPERCUBE"``) generalised to hierarchies: in each dimension d a vector v_d over the codes that keeps
every relation of that dimension (v[p] = Σ v[children of p]) — a leaf's path down from the primary's code against
a sibling's path (+1, −1), or a path from a leaf up to the total (+1 all along). The product
v = v_1 ⊗ … ⊗ v_k keeps every relation of the table, so ``x + δ·v`` is another table with the same published
cells for every whole δ with ``x + δ·v ≥ 0`` once every cell of v's support is suppressed. The cheapest such cube
(cells not yet suppressed, by their total) whose range moves the primary at least ``protection`` up and
``min(protection, n)`` down is suppressed; a primary already moved that far by an earlier cube needs none. A path
to the total in every dimension always qualifies (its cells only grow with δ), so every primary is protected.

Each primary's protection is then **proven** by that integer witness (two whole tables, one either side). Its
**interval** — what an intruder recomputes over whole non-negative tables with the published cells — is exact,
settled the cheapest way that is sound:

1. without a programme: the shuttle algorithm (Buzzigoli & Giusti 1999; iterate each relation's bounds on its
   hidden cells, rounded inwards since counts are whole) gives outer bounds on every suppressed cell; an end a
   witness reaches is the exact end. The cells with no end above are found exactly (:func:`_grows`: a leaf cell
   below them whose every cell above is suppressed). Cells the bounds pin are constants for the rest;
2. else, for each connected block of suppressed cells, one linear programme (the shuttle bounds as variable
   bounds, started from the truth by :meth:`privrisk.solver.Program.start_at`, so no first phase) serves three
   steps (:func:`privrisk.outputs.block_ends.tighten`): (a) witnesses for many ends at once: rounds that
   maximise (minimise) the sum of the cells whose end is still open, each from the vertex the rounds began at
   (next to the truth; chained from one another, the basis grows denser and each round dearer), the weights drawn at random after
   the even rounds stop paying (an even sum is indifferent between two cells that compete one for one); a whole
   optimum is a whole table with the published cells (checked exactly), and every cell it takes to its bound has
   its exact end; (b) for each end still open, an outer bound from its neighbourhood
   (:func:`~privrisk.outputs.block_ends.local_end`: the cells within 1–3 relations, the relations that leave it
   kept as ranged rows over the outside cells' bounds, a relaxation), rounded inwards, in passes while one
   tightens a bound (a bound tightened tightens its neighbours'); the first pass's bounds become the cells'
   variable bounds, and the rounds run again towards them all; (c) the rest, a programme per end (warm
   started, upper ends first): the linear end rounded inwards (or the block's bound, if tighter) is exact when a
   witness reaches it, and every whole optimum is a witness for the block's other cells; the end found is a
   bound, and the ends around it get their radius-1 neighbourhood bounds again
   (:class:`~privrisk.outputs.block_ends.Around`);
3. else, where that linear optimum is fractional, a whole table next to it: its whole cells held, an integer
   programme over the fractional ones and the cells within one (then two) relations of them; if it reaches the
   linear end, the end is exact;
4. else an integer programme (within a node budget, for blocks up to ``_MIP_LIMIT`` cells of
   :mod:`privrisk.outputs.hidden_intervals`, which computes these intervals; a bound left over is a
   valid outer bound, marked not exact).

The witness lies inside the interval, which lies inside [0, the smallest published total above the cell]; nothing
is called protected on the strength of a linear bound alone. On the benchmark's tables (benchmarks/
differencing_scale.py, 2 cores, one of them busy), every interval exact: 117,649 cells 32 s of CPU (270 s in the
same run with the rounds chained, when 942 programmes per end took about 235 s; 567 and 12 s with each round from
the truth's vertex), and 10⁶ cells in 396 s of CPU: one block of 200,296 suppressed cells holds 103,594 primaries (57,997 upper and
64,492 lower ends open after step 1); starting its programme from the truth 11 s, 36 rounds of witnesses (each
up to 20,000 simplex iterations, 2–10 s) 150 s, after which 4,462 upper and 59 lower ends are open; neighbourhood
bounds and two more rounds 45 s; 1,436 programmes per end about 180 s, whose optima are whole but for the same
30 cells: step 3 settles 1,291 of them in milliseconds each (an integer programme over the 199,233 cells an
optimum moves from the truth took 3 to 5 minutes each).
Before 2026-12-01 the rounds ran 3,000 iterations each and chained: they cost 3 s to 51 s apiece and the run
was stopped after 964 s of CPU.
``intervals=False`` skips the programmes: the protection is proven all the same, by the witnesses, and each
primary's interval is the outer bound [0, that smallest published total less its published parts], marked not
exact. A 10⁶-cell table takes about 35 s of CPU so (benchmarks/differencing_scale.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privrisk.outputs.block_ends import UNBOUNDED as _UNBOUNDED
from privrisk.outputs.hidden_intervals import ceiling, hidden_intervals

__all__ = ["Pattern", "hierarchy", "relations", "suppression_pattern", "table_from_leaves"]

_SIBLINGS = 3  # sibling alternatives tried per dimension (beside the path to the total)
_BIG = np.iinfo(np.int64).max


def hierarchy(*fanout: int) -> np.ndarray:
    """The parent of each code of a balanced tree: the total (code 0, parent −1), ``fanout[0]`` children, each
    with ``fanout[1]`` children, and so on, breadth first.

    Example:
        >>> hierarchy(2, 2).tolist()
        [-1, 0, 0, 1, 1, 2, 2]
    """
    parent = [-1]
    level = [0]
    for f in fanout:
        nxt = []
        for p in level:
            for _ in range(f):
                parent.append(p)
                nxt.append(len(parent) - 1)
        level = nxt
    return np.asarray(parent, dtype=np.int64)


def _leaves(parent: np.ndarray) -> np.ndarray:
    has_child = np.zeros(parent.size, dtype=bool)
    has_child[parent[parent >= 0]] = True
    return np.flatnonzero(~has_child)


def _aggregation(parent: np.ndarray) -> sp.csr_matrix:
    """codes × leaves: 1 where the leaf lies under (or is) the code."""
    leaves = _leaves(parent)
    rows, cols = [], []
    for j, leaf in enumerate(leaves):
        c = int(leaf)
        while c >= 0:
            rows.append(c)
            cols.append(j)
            c = int(parent[c])
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(parent.size, leaves.size))


def table_from_leaves(parents: Sequence[np.ndarray], leaves: np.ndarray) -> np.ndarray:
    """Every cell of the table (every code of every dimension, totals included) from the leaf cells' counts.

    Example:
        >>> table_from_leaves([hierarchy(2), hierarchy(2)], np.array([[1, 2], [3, 4]])).tolist()
        [[10, 4, 6], [3, 1, 2], [7, 3, 4]]
    """
    out = np.asarray(leaves)
    for d, parent in enumerate(parents):
        agg = _aggregation(parent)
        moved = np.moveaxis(out, d, 0)
        flat = agg @ moved.reshape(moved.shape[0], -1)
        out = np.moveaxis(np.asarray(flat).reshape((parent.size, *moved.shape[1:])), 0, d)
    return np.rint(out).astype(np.int64)


def relations(parents: Sequence[np.ndarray]) -> sp.csr_matrix:
    """The additive relations as rows of a matrix over the flattened cells: cell(p) − Σ cell(children of p) = 0,
    for every non-leaf code p of every dimension and every combination of the other dimensions' codes."""
    shape = tuple(p.size for p in parents)
    index = np.arange(int(np.prod(shape))).reshape(shape)
    rows, cols, vals = [], [], []
    r = 0
    for d, parent in enumerate(parents):
        moved = np.moveaxis(index, d, 0).reshape(shape[d], -1)
        other = moved.shape[1]
        for p in np.unique(parent[parent >= 0]):
            kids = np.flatnonzero(parent == p)
            ids = np.arange(r, r + other)
            rows.append(ids)
            cols.append(moved[p])
            vals.append(np.ones(other))
            for c in kids:
                rows.append(ids)
                cols.append(moved[c])
                vals.append(-np.ones(other))
            r += other
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, index.size)
    )


class _Tree:
    """One dimension's tree: each code's children and its ancestors."""

    def __init__(self, parent: np.ndarray) -> None:
        self.parent = parent
        self.children: list[list[int]] = [[] for _ in range(parent.size)]
        for c, p in enumerate(parent.tolist()):
            if p >= 0:
                self.children[p].append(c)

    def up(self, code: int) -> list[int]:
        out, p = [], int(self.parent[code])
        while p >= 0:
            out.append(p)
            p = int(self.parent[p])
        return out


@dataclass(frozen=True)
class Pattern:
    """A suppression pattern and its proof. Arrays have the table's shape.

    Attributes:
        values: every cell's count.
        primary: the cells the threshold rule suppresses.
        suppressed: primary and secondary suppressions.
        lo, hi: for each primary, its interval over every whole non-negative table with the published cells
            (NaN elsewhere); exact where ``exact``, else an outer bound (without ``intervals``: 0 and the
            least published total less its published parts over the cell's relations, ∞ if there is none).
        exact: the interval is the intruder's exact one (False: an outer bound a budget left).
        witness_lo, witness_hi: for each primary, the least and largest value of whole tables found (the
            proof of its protection).
        protected: each primary moved at least ``protection`` up and ``min(protection, n)`` down by a witness.
    """

    values: np.ndarray
    primary: np.ndarray
    suppressed: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    exact: np.ndarray
    witness_lo: np.ndarray
    witness_hi: np.ndarray
    protected: np.ndarray

    @property
    def summary(self) -> dict[str, int]:
        """Counts of cells: all, primary, secondary, primaries not proven protected, intervals not exact."""
        return {
            "cells": int(self.values.size),
            "primary": int(self.primary.sum()),
            "secondary": int(self.suppressed.sum() - self.primary.sum()),
            "unprotected": int((self.primary & ~self.protected).sum()),
            "not_exact": int((self.primary & ~self.exact).sum()),
        }


def _chain(tree: _Tree, values: np.ndarray, at: list[int], d: int, start: int) -> list[int]:
    """A path from ``start`` down to a leaf of dimension d, each step to the child whose cell (the other
    dimensions at ``at``) is largest: a cell that holds someone has a child that does."""
    cur = list(at)
    chain = [start]
    code = start
    while tree.children[code]:
        kids = tree.children[code]
        vals = []
        for k in kids:
            cur[d] = k
            vals.append(values[tuple(cur)])
        code = kids[int(np.argmax(vals))]
        chain.append(code)
    return chain


def _moves(
    tree: _Tree, values: np.ndarray, cell: tuple[int, ...], d: int, mine: list[int], need: int
) -> list[tuple[list[int], list[int]]]:
    """Dimension d's vectors v with v[code] = +1 that keep the dimension's relations: ``mine`` (the path down
    from the primary's code) against a sibling's path down (the siblings whose cell on the primary's line holds
    at least ``need``, the smallest first), and ``mine`` continued up to the total."""
    out: list[tuple[list[int], list[int]]] = []
    code = cell[d]
    p = int(tree.parent[code])
    if p >= 0:
        at = list(cell)
        line = []
        for s in tree.children[p]:
            at[d] = s
            line.append((int(values[tuple(at)]), s))
        sibs = sorted((v, s) for v, s in line if s != code and v >= need)
        for _, s in sibs[:_SIBLINGS]:
            other = _chain(tree, values, list(cell), d, s)
            out.append((mine + other, [1] * len(mine) + [-1] * len(other)))
    path = mine[::-1] + tree.up(code)
    out.append((path, [1] * len(path)))
    return out


def _cubes(
    trees: list[_Tree], cell: tuple[int, ...], values: np.ndarray, need: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every product of one move per dimension, padded: flat cell ids (−1 for padding) and signs, each of shape
    (cubes, cells of a cube). The paths down from the primary are chosen jointly (dimension 1's with the others at
    the primary's codes, dimension 2's below dimension 1's leaf, …), so the cube's bottom corner holds someone."""
    k = len(trees)
    at = list(cell)
    per_dim = []
    for d, tree in enumerate(trees):
        mine = _chain(tree, values, at, d, cell[d])
        at[d] = mine[-1]
        per_dim.append(_moves(tree, values, cell, d, mine, need))
    shape = values.shape
    strides = np.asarray([int(np.prod(shape[d + 1 :])) for d in range(k)], dtype=np.int64)
    # each dimension: (moves, width) codes and signs, padded with −1 / 0
    codes, signs = [], []
    for moves in per_dim:
        w = max(len(m[0]) for m in moves)
        c = np.full((len(moves), w), -1, dtype=np.int64)
        s = np.zeros((len(moves), w), dtype=np.int64)
        for i, (cc, ss) in enumerate(moves):
            c[i, : len(cc)] = cc
            s[i, : len(ss)] = ss
        codes.append(c)
        signs.append(s)
    flat = np.zeros((1,) * (2 * k), dtype=np.int64)
    sign = np.ones((1,) * (2 * k), dtype=np.int64)
    for d in range(k):
        view = [1] * (2 * k)
        view[d] = codes[d].shape[0]
        view[k + d] = codes[d].shape[1]
        cd = codes[d].reshape(view)
        flat = flat + np.where(cd >= 0, cd * strides[d], -(10**15))
        sign = sign * signs[d].reshape(view)
    n_cubes = int(np.prod([c.shape[0] for c in codes]))
    flat = flat.reshape(n_cubes, -1)
    sign = np.broadcast_to(sign, tuple(c.shape[0] for c in codes) + tuple(c.shape[1] for c in codes))
    sign = sign.reshape(n_cubes, -1)
    flat = np.where((flat >= 0) & (sign != 0), flat, -1)
    return flat, sign


def _range(vals: np.ndarray, sign: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How far δ may go up and down before a cell of the cube turns negative (cells × cubes arrays)."""
    big = _BIG
    up = np.where(live & (sign < 0), vals, big).min(axis=1)
    down = np.where(live & (sign > 0), vals, big).min(axis=1)
    return up, down


def _secondary(values: np.ndarray, primary: np.ndarray, parents: Sequence[np.ndarray], protection: int):
    shape = values.shape
    flat_values = values.reshape(-1)
    trees = [_Tree(parent) for parent in parents]
    flat_primary = primary.reshape(-1)
    suppressed = flat_primary.copy()
    wlo = np.where(flat_primary, flat_values, 0).astype(np.int64)
    whi = wlo.copy()
    big = _BIG
    order = np.flatnonzero(flat_primary)
    for f in order.tolist():
        x = int(flat_values[f])
        need_down = min(protection, x)
        if x - wlo[f] >= need_down and whi[f] - x >= protection:
            continue
        cell = np.unravel_index(f, shape)
        flat, sign = _cubes(trees, tuple(int(c) for c in cell), values, protection)
        live = flat >= 0
        vals = np.where(live, flat_values[np.where(live, flat, 0)], 0)
        up, down = _range(vals, sign, live)
        ok = (up >= protection) & (down >= need_down)
        new = live & ~suppressed[np.where(live, flat, 0)]
        # a cell listed twice in a cube (a path through a shared total) counts once in the cost; the cost is the
        # value and number of cells newly suppressed
        cost = np.where(new, vals, 0).sum(axis=1).astype(float) + new.sum(axis=1) * 1e-3
        cost[~ok] = np.inf
        best = int(np.argmin(cost))
        if not np.isfinite(cost[best]):  # cannot happen: the all-paths-to-total cube always qualifies
            continue
        ids, sg = flat[best][live[best]], sign[best][live[best]]
        ids, first = np.unique(ids, return_index=True)
        sg = sg[first]
        suppressed[ids] = True
        u, dn = int(up[best]), int(down[best])
        # every primary of the cube is moved by ±δ: δ ∈ [−dn, u]
        prim = flat_primary[ids]
        pv = flat_values[ids]
        lo_move = np.where(sg > 0, dn, u)
        hi_move = np.where(sg > 0, u, dn)
        hi_move = np.where(hi_move == big, _UNBOUNDED, hi_move)
        wlo[ids] = np.where(prim, np.minimum(wlo[ids], pv - lo_move), wlo[ids])
        whi[ids] = np.where(prim, np.maximum(whi[ids], pv + hi_move), whi[ids])
    return suppressed.reshape(shape), wlo.reshape(shape), whi.reshape(shape)


def _grows(parents: Sequence[np.ndarray], suppressed: np.ndarray) -> np.ndarray:
    """The suppressed cells an intruder cannot bound above (an exact test, no programme).

    A direction r along which every whole table with the published cells may move forever has r ≥ 0 (counts
    are ≥ 0, with no bound above), keeps every relation, and is 0 on published cells; r is then the sum of its
    leaf cells' values over the cells above them, so r > 0 at a cell exactly when some leaf cell l below it has
    r_l > 0, and then every cell above l (each coordinate l's code or one of its ancestors) holds r ≥ r_l > 0 and
    is suppressed. Conversely, one such *closed* leaf gives the direction (1 on every cell above it). So a cell
    grows without end exactly when a closed leaf cell lies below it."""
    closed = suppressed.copy()
    for _ in range(sum(p.size for p in parents) + 1):
        before = closed
        for d, parent in enumerate(parents):
            has = parent >= 0
            moved = np.moveaxis(closed, d, 0)
            above = np.ones_like(moved)
            above[has] = moved[parent[has]]
            closed = closed & np.moveaxis(above, 0, d)
        if np.array_equal(before, closed):
            break
    leaf_cells = closed[np.ix_(*[_leaves(p) for p in parents])]
    return table_from_leaves(parents, leaf_cells.astype(np.int64)) > 0


def suppression_pattern(
    parents: Sequence[np.ndarray],
    values: np.ndarray,
    threshold: int,
    *,
    protection: int = 1,
    zeros: bool = False,
    intervals: bool = True,
    stats: dict[str, int] | None = None,
) -> Pattern:
    """Primary and secondary suppressions of a hierarchical count table, every primary's protection proven by
    a whole table either side and its interval computed by linear (and integer) programmes.

    Args:
        parents: each dimension's tree: the parent of each code (−1 for the total).
        values: every cell's count, shape (codes of dimension 1, …): totals included and additive.
        threshold: the policy's threshold; a cell with 1 ≤ n < threshold is primary (0 too with ``zeros``).
        protection: how far a primary must be movable up, and down (at most to 0), by a whole table with the
            same published cells.
        intervals: compute each primary's exact interval (the intruder's recomputation) by programmes; without
            them the protection is proven all the same (by the witnesses) and the interval is an outer bound.
        stats: a dictionary to fill with counts of how the ends were settled (for benchmarks): ``shuttle_ends``
            (an outer bound a witness reaches), ``lp``/``lp_ends`` (linear programmes / ends they settled),
            ``mip``/``mip_ends``, ``mip_gap`` (integer ends short of the linear one), ``not_exact``, ``fixed``
            (cells the bounds pin), ``blocks``, ``largest``, ``rounds`` (programmes for many ends at once),
            ``local``/``local_ends`` (neighbourhood programmes / ends whose tightened bound a witness met).

    Example:
        >>> parents = [hierarchy(2), hierarchy(2)]
        >>> values = table_from_leaves(parents, np.array([[1, 5], [6, 7]]))
        >>> p = suppression_pattern(parents, values, 3)
        >>> p.suppressed.astype(int).tolist()
        [[0, 0, 0], [0, 1, 1], [0, 1, 1]]
        >>> float(p.lo[1, 1]), float(p.hi[1, 1]), bool(p.protected[1, 1])
        (0.0, 6.0, True)
    """
    # C order: a flat view of each array is then free (the loop over primaries takes many)
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.shape != tuple(p.size for p in parents):
        raise ValueError(f"values: shape {values.shape} for dimensions of {[p.size for p in parents]} codes")
    if (values < 0).any():
        raise ValueError("values: counts must be non-negative")
    a = relations(parents)
    flat = values.reshape(-1)
    if np.abs(a @ flat.astype(float)).max(initial=0.0) > 0:
        raise ValueError("values: the totals are not the sums of their children")
    primary = (values < threshold) & ((values >= 1) | zeros)
    suppressed, wlo, whi = _secondary(values, primary, parents, protection)
    need_down = np.minimum(protection, values)
    protected = primary & (values - wlo >= need_down) & (whi - values >= protection)
    # without programmes: the outer bounds every whole table with the published cells respects, [0, ceiling]
    top = ceiling(a, flat, suppressed.reshape(-1)).reshape(values.shape)
    lo = np.where(primary, 0.0, np.nan)
    hi = np.where(primary, top, np.nan)
    exact = np.zeros(values.shape, dtype=bool)
    if intervals and suppressed.any():
        targets = np.flatnonzero(primary.reshape(-1))
        l_, h_, e_ = hidden_intervals(a, flat, suppressed.reshape(-1), targets, wlo.reshape(-1), whi.reshape(-1),
                                  stats, _grows(parents, suppressed).reshape(-1))  # fmt: skip
        lo, hi = l_.reshape(values.shape), h_.reshape(values.shape)
        exact = e_.reshape(values.shape) & primary
        lo, hi = np.where(primary, lo, np.nan), np.where(primary, hi, np.nan)
    # the witnesses are whole tables with the published cells: they lie inside the intruder's interval
    bad = primary & ((wlo < lo - 1e-6) | (whi > hi + 1e-6))
    if bad.any():
        raise RuntimeError("internal: a witness lies outside its cell's interval")
    return Pattern(values, primary, suppressed, lo, hi, exact, np.where(primary, wlo, 0),
                   np.where(primary, whi, 0), protected)  # fmt: skip
