"""The ends of many totals over the intruder's solutions, found cheaply before any programme proves one.

:meth:`privrisk.outputs.intervals.Region.extremes` asks, for every total g_i·x of a released system, its least
and largest value. A programme per end proves it but costs seconds on a block of thousands of equations (the large
request of ``benchmarks/outputs.py``); most ends are settled before that, from the outside in:

1. whole solutions other than the truth, reached without a solver: the moves of :mod:`privrisk.outputs.moves`,
   each checked here against the released equations (:func:`_valid`) before its totals count;
2. several moves one after another (:func:`privrisk.outputs.moves.walks`), then small programmes over the unknowns
   around each total with the rest held at the truth (:func:`privrisk.outputs.nearby.nearby_points`): first the
   unknowns of the moves through it, then a sub-table of the atoms' cube around it (``Region.subtable``, where the
   differencing sets it); points reached, never bounds;
3. outer bounds from the equations that touch each total still open, those alone
   (:mod:`privrisk.outputs.local_bounds`, a relaxation): where one already decides a rule's question (a sum
   known within its p % protection), the caller's ``need`` asks no more of that end;
4. programmes over all open ends at once: one whole vertex certifies many ends (rounds while they help);
5. one programme per end still open (:meth:`~privrisk.outputs.intervals.Region.optimise`), within the Region's
   budget; an end it leaves open keeps a valid outer bound and is marked undecided. Where the linear optimum is
   fractional, its rounding is a bound, and a whole solution already met that reaches it (the end's own, or a kept
   table's part in the block) proves the end without an integer programme.

An end is exact when a whole solution seen reaches its outer bound; nothing here makes an outer bound narrower
except a programme's proven optimum (over the whole block, or over the equations around the total, which can only
be wider).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

import privrisk.solver as solver
from privrisk.outputs.local_bounds import relaxed_ends
from privrisk.outputs.moves import walks
from privrisk.outputs.nearby import nearby_pairs, nearby_points
from privrisk.outputs.reach import reach
from privrisk.solver import side_by_side

if TYPE_CHECKING:
    from privrisk.outputs.intervals import Region

__all__ = ["Ends", "Need", "extremes"]

# Rounds of programmes over all open ends at once (each certifies many ends with one vertex), and the simplex
# iterations one of them may take: they only look for whole vertices (a certificate, never a proof), so one that
# runs long is cut short and its ends are left to their own programmes. Uncapped, at 10⁵ atoms a single one took
# minutes and the rounds spent the budget the ends' own programmes needed (issue 36).
BATCH_ROUNDS = 12
BATCH_ITERATIONS = 20_000
# The levels a dimension the sub-tables around a total take (its own and the fullest others), in turn, for the ends
# the moves leave open. On the large request's sums (``benchmarks/outputs.py``), 3 levels (216–864 unknowns, 0.1 s
# a programme) left 161 of 755 lower and 321 of 749 upper ends open, 4 levels then 0.25 s each; with a whole
# budget, 456 groups undecided before, 170 with 3 levels (+155 s CPU), 138 with 3 then 4 (+260 s). Searching 1,000
# totals at a time and reading their points for the rest first was tried (2026-12-01): of the 75,753 programmes around
# the sums' totals it saved 1 % (a point that takes one group past its p % protection rarely takes another).
SUBTABLE_LEVELS = (3, 4)
# Rounds of whole tables over all open ends at once (Region.whole_points), while each settles at least one end;
# where the ends are not asked exactly (``exact=False``: each end left costs one linear programme), while each
# settles at least :data:`WHOLE_LEAST` of the ends open before it. A round costs an integer programme's root over
# the block; one that settles two ends of 326 (the atoms' intervals of ``benchmarks/outputs.py --quick``'s typical
# request, 0.85 s a round, seven rounds so) costs more than those ends' own programmes.
WHOLE_ROUNDS = 8
WHOLE_LEAST = 0.01
# Outer bounds of the ends still open from the equations around each total (:mod:`privrisk.outputs.local_bounds`)
# before the programmes over whole blocks, where the caller asks for them (False: never, a baseline).
LOCAL_BOUNDS = True
#: Unknowns from which the searches for points (more moves, walks, programmes around the moves and over sub-tables)
#: run before the programmes. They spare the large request's thousands of programmes over blocks of 25,000 sums
#: (10⁵ atoms; without them the budget ran out), but below this size the exact programmes alone are faster, the
#: more so the sparser the table (2026-12-02, the differencing of ``benchmarks/outputs.py``'s tables, each size
#: once: 384 unknowns, 300 records, 9.8 s with them, 2.1 s without; 2,880 atoms of 4,000 records 45.0 s and 10.6 s;
#: 5,760 atoms of 8,000 records 59.4 s and 14.9 s; 17,280 atoms of 30,000 records 95.9 s and 46.8 s; the typical
#: request, 10,080 atoms of 10⁶ records, 20,160 unknowns, 5.1 s and 5.9 s; ``benchmarks/searches_threshold.py``).
#: The same groups found either way (``tests/outputs/test_searches.py``); only the time differs.
SEARCHES_FROM = 50_000
# Whole solutions kept for the witnesses (Region.points).
_POINTS = 6
# Whole solutions kept for later totals (Region.found).
FOUND = 256
# Two ends of a real total closer than this (relative to the scale of the system, about 1) are one value: HiGHS
# meets each equation to 10⁻⁷, and a total over many of them may be off by more.
PRECISION = 1e-6
# HiGHS's feasibility tolerance: an equation met to this (relative) is met.
_TOL = 1e-7
# A point with real unknowns (sums) meets the released equations and bounds only to the solver's tolerance, and its
# totals may stray by more than it misses them by: a real total counts as moved only beyond this many times the
# point's own error (:func:`_slack`). A point of the large request's shape with 300 records missed by 6.1·10⁻⁸ and
# moved a determined sum by 1.7·10⁻⁷ (about 3 times); about half the points miss by nothing at all.
POINT_SLACK = 1_000.0
# The least error a point is taken to have, relative to its values: the rounding of the arithmetic that checks it.
_ROUNDING = 1e-15


@dataclass
class Ends:
    """The intervals of k totals: outer bounds ``lo``/``hi`` (exact where ``lo_exact``/``hi_exact``), the least
    and largest values whole solutions were seen to give (``seen_lo``/``seen_hi``), the ends a budget left
    open (``undecided``), and the ends whose outer bound a programme has narrowed (``lo_solved``/``hi_solved``:
    over the whole block or the equations around the total), not the unknowns' bounds alone."""

    lo: np.ndarray
    hi: np.ndarray
    lo_exact: np.ndarray
    hi_exact: np.ndarray
    seen_lo: np.ndarray
    seen_hi: np.ndarray
    undecided: np.ndarray
    lo_solved: np.ndarray
    hi_solved: np.ndarray
    rows: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: (total, sign) → the released equations whose duals were not zero in that end's own programme (1: least,
    #: −1: largest), so that :meth:`Region.why` need not solve it again.
    used: dict[tuple[int, int], set[int]] = field(default_factory=dict)


# need(ends) -> (lower ends wanted, upper ends wanted): which totals' exact ends still matter, each total's answer
# from its own ends alone (the programmes per end of different blocks run side by side, ``Region.apart``).
Need = Callable[[Ends], tuple[np.ndarray, np.ndarray]]


def _point_values(
    region: Region, g_csc: sp.csc_matrix, base: np.ndarray, parts: list[tuple[int, np.ndarray]]
) -> np.ndarray:
    """The totals at the whole solution made of ``parts`` in their blocks and the truth elsewhere."""
    assert region.known is not None
    out = base.copy()
    for k, x in parts:
        cols = region._cols[k]
        delta = x - region.known[cols]
        nz = np.flatnonzero(np.abs(delta) > 0)
        if nz.size:
            out += g_csc[:, cols[nz]] @ delta[nz]
    return out


def _valid(region: Region, moves: sp.csr_matrix) -> sp.csr_matrix:
    """The rows of ``moves`` that make ``known`` + the row a whole solution, checked here, not trusted: every
    released equation keeps its total, the unknowns stay within their bounds, the whole ones whole. A move
    that fails is left out (fewer points seen is only slower, a wrong one would be unsafe)."""
    assert region.known is not None
    moves = sp.csr_matrix(moves)
    if moves.shape[0] == 0:
        return moves
    rows = np.repeat(np.arange(moves.shape[0]), np.diff(moves.indptr))
    bad = np.zeros(moves.shape[0], dtype=bool)
    # A move of whole steps of whole unknowns alone keeps the released totals exactly when it keeps the equations
    # taken apart (A' = T·A with T invertible over the integers; rows not taken apart are in A' as released), whose
    # drifts are whole numbers: read off A', a sixth of the entries. Any other move is read off the released rows.
    whole = np.full(moves.shape[0], solver.LEAN_ROWS)
    whole[rows[~region.integer[moves.indices] | (moves.data != np.round(moves.data))]] = False
    for mine, eqs in ((whole, region.reduced_csc), (~whole, region.released_csc)):
        if not mine.any():
            continue
        part = moves if mine.all() else moves[np.flatnonzero(mine)]
        scale = np.maximum(1.0, np.abs(eqs @ region.known))
        # A move per row, its equations' drifts along it: built from the equations by columns, without the
        # transposes a product the other way needs (the large request's count findings: 8.1 s against 18.3 s).
        drift = sp.csr_matrix(part @ eqs.T)
        if drift.nnz:
            owner = np.flatnonzero(mine)[np.repeat(np.arange(drift.shape[0]), np.diff(drift.indptr))]
            bad[owner[np.abs(drift.data) > _TOL * scale[drift.indices]]] = True
    at = region.known[moves.indices] + moves.data
    tol = _TOL * np.maximum(1.0, np.abs(at))
    out = (at < region.lo[moves.indices] - tol) | (at > region.hi[moves.indices] + tol)
    out |= region.integer[moves.indices] & (moves.data != np.round(moves.data))
    bad[rows[out]] = True
    return sp.csr_matrix(moves[np.flatnonzero(~bad)]) if bad.any() else moves


def _remember(region: Region, parts: list[tuple[int, np.ndarray]]) -> None:
    """Keep the whole solution made of ``parts`` (checked; whole unknowns alone changed) for later totals:
    :attr:`Region.found`. Built from the blocks' changes alone: it runs after every programme."""
    assert region.known is not None
    if not parts or (0 if region.found is None else region.found.shape[0]) >= FOUND:
        return
    cols = np.concatenate([region._cols[k] for k, _ in parts])
    delta = np.concatenate([x for _, x in parts]) - region.known[cols]
    moved = delta != 0
    # Real unknowns meet the equations only to the solver's tolerance: such points are not carried to other totals.
    if not moved.any() or not np.all(region.integer[cols[moved]]):
        return
    at = cols[moved]
    row = _valid(region, sp.csr_matrix((delta[moved], (np.zeros(at.size, np.int64), at)), shape=(1, region.n)))
    if row.shape[0]:
        region.found = row if region.found is None else sp.csr_matrix(sp.vstack([region.found, row], format="csr"))
        region._found_ok = region.found


def _real_totals(region: Region, g: sp.csr_matrix) -> np.ndarray:
    """Which totals hold a real unknown (a sum of a magnitude)."""
    return np.asarray(g @ (~region.integer).astype(float)).ravel() > 0


def _slack(region: Region, moves: sp.csr_matrix) -> np.ndarray | None:
    """How far each point's real totals may be the solver's error rather than a reach: ``POINT_SLACK`` times the
    point's own error, the most it misses a released equation or a bound by (at least a rounding's worth). None
    where every unknown moved is whole: such points meet the equations exactly."""
    assert region.known is not None
    owner = np.repeat(np.arange(moves.shape[0]), np.diff(moves.indptr))
    real = np.zeros(moves.shape[0], dtype=bool)
    real[owner[~region.integer[moves.indices]]] = True
    if not real.any():
        return None
    part = sp.csr_matrix(moves[np.flatnonzero(real)])
    if part.shape[0] == 1:  # one point (a programme's): only the equations of the columns it changes
        drift = np.abs(region.released_csc[:, part.indices] @ part.data).max(initial=0.0, keepdims=True)
    else:
        drift = np.asarray(abs(sp.csr_matrix(part @ region.released_csc.T)).max(axis=1).todense()).ravel()
    owner = np.repeat(np.arange(part.shape[0]), np.diff(part.indptr))
    at = region.known[part.indices] + part.data
    worst = np.zeros(part.shape[0])
    np.maximum.at(worst, owner, np.maximum(np.maximum(region.lo[part.indices] - at, at - region.hi[part.indices]), 0.0))
    size = np.zeros(part.shape[0])
    np.maximum.at(size, owner, np.abs(at))
    slack = np.zeros(moves.shape[0])  # a move of whole unknowns alone meets the equations exactly
    slack[real] = POINT_SLACK * np.maximum(np.maximum(drift, worst), _ROUNDING * np.maximum(1.0, size))
    return slack


def _moved(
    region: Region,
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
        down = up = change.data
        real_rows = _real_totals(region, g[rows])
        slack = _slack(region, moves) if real_rows.any() else None
        if slack is not None:
            # a real total moves only as far as each point reaches beyond its own error
            real = np.repeat(real_rows, np.diff(change.indptr))
            down = np.where(real, change.data + slack[change.indices], change.data)
            up = np.where(real, change.data - slack[change.indices], change.data)
        low = np.minimum.reduceat(down, starts)
        high = np.maximum.reduceat(up, starts)
        at = rows[full]
        ends.seen_lo[at] = np.minimum(ends.seen_lo[at], base[at] + np.minimum(low, 0.0))
        ends.seen_hi[at] = np.maximum(ends.seen_hi[at], base[at] + np.maximum(high, 0.0))


def _home_blocks(region: Region, g: sp.csr_matrix, totals: np.ndarray) -> np.ndarray:
    """Each total's block, where all its unknowns lie in one (else −1)."""
    home = np.full(totals.size, -1, dtype=np.int64)
    for t, i in enumerate(totals.tolist()):
        blocks = region.col_block[g.indices[g.indptr[i] : g.indptr[i + 1]]]
        if blocks.size and (blocks == blocks[0]).all():
            home[t] = int(blocks[0])
    return home


def _relax(region: Region, g: sp.csr_matrix, rows: np.ndarray, w_lo: np.ndarray, w_hi: np.ndarray,
           ends: Ends) -> None:  # fmt: skip
    """Each total of ``rows`` bounded over the equations around it (:func:`privrisk.outputs.local_bounds.
    relaxed_ends`, block by block, side by side): its outer bounds narrowed to these, and the equations behind
    each bound kept as its explanation until a programme over the whole block replaces them."""
    if rows.size == 0:
        return
    by_cols: dict[int, sp.csc_matrix] = {}
    for k in np.unique(region.col_block[g[rows].indices]).tolist():
        by_cols[k] = sp.csc_matrix(region._block_matrix(k))

    def one(i: int) -> tuple[float, float, set[int], set[int]]:
        idx = g.indices[g.indptr[i] : g.indptr[i + 1]]
        val = g.data[g.indptr[i] : g.indptr[i + 1]]
        blocks = region.col_block[idx]
        lo = hi = 0.0
        lo_rows: set[int] = set()
        hi_rows: set[int] = set()
        for k in np.unique(blocks).tolist():
            mine = blocks == k
            cols, eqs = region._cols[k], region._rows.get(k, np.empty(0, np.int64))
            part = relaxed_ends(region._block_matrix(k), region.b[eqs], region.lo[cols], region.hi[cols],
                                np.searchsorted(cols, idx[mine]), val[mine], want_lo=bool(w_lo[i]),
                                want_hi=bool(w_hi[i]), by_cols=by_cols[k])  # fmt: skip
            lo += part.lo
            hi += part.hi
            lo_rows |= set(region.origin[eqs[sorted(part.lo_rows)]].indices.tolist())
            hi_rows |= set(region.origin[eqs[sorted(part.hi_rows)]].indices.tolist())
        return lo, hi, lo_rows, hi_rows

    for i, (lo, hi, lo_rows, hi_rows) in zip(rows.tolist(), side_by_side(one, rows.tolist()), strict=True):
        # NaN (a programme that did not end) leaves the bound as it was
        if lo >= ends.lo[i] and (i, 1) not in ends.used:
            ends.lo[i] = lo
            ends.lo_solved[i] = True
            ends.used[(i, 1)] = lo_rows
        if hi <= ends.hi[i] and (i, -1) not in ends.used:
            ends.hi[i] = hi
            ends.hi_solved[i] = True
            ends.used[(i, -1)] = hi_rows


def extremes(
    region: Region,
    g: sp.spmatrix,
    *,
    need: Need | None = None,
    explain: np.ndarray | None = None,
    exact: bool = True,
    reach_hi: np.ndarray | None = None,
    local_bounds: bool = False,
) -> Ends:
    """The interval of every total g_i·x (the rows of ``g``, non-negative weights). ``need`` says which
    ends are still wanted (default: all); ``explain`` the totals whose determining equations are wanted
    (``rows``: the released equations the duals of their two programmes use). ``reach_hi``: a whole value per
    total (or inf) that its upper end is asked to reach; a total proven not to reach it gets the outer bound
    target − 1, which ``need`` may find enough. ``local_bounds``: the real totals still open before the programmes
    over whole blocks are bounded over the equations around each first (:mod:`privrisk.outputs.local_bounds`;
    ``Ends.lo_solved``/``hi_solved`` say which), for a ``need`` that reads outer bounds."""
    g = sp.csr_matrix(g, dtype=float)
    k = g.shape[0]
    g_csc = sp.csc_matrix(g)
    lo_b = np.where(np.isinf(region.lo), 0.0, region.lo)
    hi_b = np.where(np.isinf(region.hi), 0.0, region.hi)
    lo = g @ lo_b
    hi = g @ hi_b
    lo[(g @ np.isinf(region.lo).astype(float)) > 0] = -np.inf
    hi[(g @ np.isinf(region.hi).astype(float)) > 0] = np.inf
    if region.known is not None:
        base = g @ region.known
        seen_lo, seen_hi = base.copy(), base.copy()
    else:
        base = np.zeros(k)
        seen_lo, seen_hi = np.full(k, np.inf), np.full(k, -np.inf)
    ends = Ends(lo, hi, np.zeros(k, bool), np.zeros(k, bool), seen_lo, seen_hi, np.zeros(k, bool), np.zeros(k, bool),
                np.zeros(k, bool))
    real_totals = _real_totals(region, g)

    def mark() -> None:
        with np.errstate(invalid="ignore"):
            tol_l = _TOL * np.maximum(1.0, np.abs(ends.lo))
            tol_h = _TOL * np.maximum(1.0, np.abs(ends.hi))
            ends.lo_exact |= np.isfinite(ends.lo) & (ends.seen_lo <= ends.lo + tol_l)
            ends.hi_exact |= np.isfinite(ends.hi) & (ends.seen_hi >= ends.hi - tol_h)

    def seen(parts: list[tuple[int, np.ndarray]]) -> None:
        if region.known is None or not parts:
            return
        values = _point_values(region, g_csc, base, parts)
        cols = np.concatenate([region._cols[b_] for b_, _ in parts])
        delta = np.concatenate([x_ for _, x_ in parts]) - region.known[cols]
        nz = delta != 0
        slack = _slack(region, sp.csr_matrix((delta[nz], (np.zeros(int(nz.sum()), np.int64), cols[nz])),
                                             shape=(1, region.n))) if real_totals.any() else None  # fmt: skip
        if slack is not None:
            # as in _moved: a real total moves only as far as the point reaches beyond its own error
            values_lo = np.where(real_totals, np.minimum(values + slack[0], base), values)
            values_hi = np.where(real_totals, np.maximum(values - slack[0], base), values)
        else:
            values_lo = values_hi = values
        if region.room_for_points():
            point = region.known.copy()
            for b_, x_ in parts:
                point[region._cols[b_]] = x_
            region.keep_point(point)
        np.minimum(ends.seen_lo, values_lo, out=ends.seen_lo)
        np.maximum(ends.seen_hi, values_hi, out=ends.seen_hi)
        _remember(region, parts)

    def wanted() -> tuple[np.ndarray, np.ndarray]:
        if need is None:
            w_lo, w_hi = np.ones(k, bool), np.ones(k, bool)
        else:
            w_lo, w_hi = need(ends)
        return w_lo & ~ends.lo_exact & ~ends.undecided, w_hi & ~ends.hi_exact & ~ends.undecided

    if region.moves is not None and region.known is not None:
        if region.moves is not region._checked:  # checked once, then kept
            region.moves = region._checked = _valid(region, region.moves)
        _moved(region, region.moves, g, base, ends)
    if region.found is not None and region.known is not None:
        # Met in another Region (the differencing's second, sums of empty atoms held at 0): checked here.
        if region.found is not region._found_ok:
            region.found = region._found_ok = _valid(region, region.found)
        _moved(region, region.found, g, base, ends)
    mark()
    pool = [] if region.moves is None else [region.moves]
    searches = region.n >= SEARCHES_FROM
    if region.more_moves is not None and region.known is not None and searches:
        # Moves around the atoms of the totals still open (the moves for every atom leave a few).
        w_lo, w_hi = wanted()
        open_rows = np.flatnonzero(w_lo | w_hi)
        if open_rows.size:
            for batch in region.more_moves(np.unique(g[open_rows].indices)):
                pool.append(_valid(region, batch))
                w_lo, w_hi = wanted()
                _moved(region, pool[-1], g, base, ends, np.flatnonzero(w_lo | w_hi))
                mark()
    w_lo, w_hi = wanted()
    if pool and region.known is not None and (w_lo.any() or w_hi.any()) and searches:
        # Several moves one after another reach what one does not (a total of 3 to 7 to 12).
        every = sp.csr_matrix(sp.vstack(pool, format="csr"))
        truth = region.known

        def walked(totals: sp.csr_matrix) -> sp.csr_matrix:
            return walks(every, totals, truth, region.lo, region.hi, integer=region.integer)

        def near(totals: sp.csr_matrix) -> sp.csr_matrix:
            return nearby_points(region.released, truth, region.lo, region.hi, region.integer, totals, every)

        def in_subtable(levels: int) -> Callable[[np.ndarray], np.ndarray]:
            assert region.subtable is not None
            around = region.subtable
            return lambda own: around(own, levels)

        # Walks first; what they leave, small programmes over the unknowns around each total, found by the moves
        # through it, then over a sub-table around it (a point reached, not a bound). Each point is checked like
        # a move.
        for search in (walked, near):
            for sign in (1.0, -1.0):
                w = wanted()[0 if sign > 0 else 1]
                if w.any() and every.shape[0]:
                    found = search(-sign * g[np.flatnonzero(w)])
                    w_lo, w_hi = wanted()
                    _moved(region, _valid(region, found), g, base, ends, np.flatnonzero(w_lo | w_hi))
                    mark()
        for levels in SUBTABLE_LEVELS if region.subtable is not None else ():
            # Both ends of a total from one programme over its sub-table (started from the truth once).
            w_lo, w_hi = wanted()
            rows = np.flatnonzero(w_lo | w_hi)
            if not rows.size or not every.shape[0]:
                continue
            up, down = nearby_pairs(region.released, truth, region.lo, region.hi, region.integer, g[rows], every,
                                    w_hi[rows], w_lo[rows], neighbourhood=in_subtable(levels))  # fmt: skip
            for found in (down, up):
                w_lo, w_hi = wanted()
                _moved(region, _valid(region, found), g, base, ends, np.flatnonzero(w_lo | w_hi))
                mark()
    if region.known is not None and reach_hi is not None:
        asked = np.flatnonzero(wanted()[1] & np.isfinite(reach_hi))
        if asked.size:
            points, never = reach(region, g, asked, reach_hi[asked], mip_rows=region.mip_rows)
            for parts in points:
                seen(parts)
            ends.hi[asked[never]] = np.minimum(ends.hi[asked[never]], reach_hi[asked[never]] - 1.0)
            mark()

    def rounds(
        count: int, points: Callable[[np.ndarray, np.ndarray, float], list[tuple[int, np.ndarray]]], least: float = 0.0
    ) -> None:
        """Programmes over the sum of all open ends, a direction at a time, repeated while each settles more than
        ``least`` of the ends open before it (and at least one)."""
        for sign in (1.0, -1.0):
            for _ in range(count):
                w = wanted()[0 if sign > 0 else 1]
                if not w.any() or region.known is None:
                    break
                weights = np.asarray(g[np.flatnonzero(w)].sum(axis=0)).ravel()
                idx = np.flatnonzero(weights)
                before = int(w.sum())
                seen(points(idx, weights[idx], sign))
                mark()
                if before - int(wanted()[0 if sign > 0 else 1].sum()) < max(1.0, least * before):
                    break

    if region.known is not None and local_bounds and LOCAL_BOUNDS:
        w_lo, w_hi = wanted()
        _relax(region, g, np.flatnonzero((w_lo | w_hi) & real_totals), w_lo, w_hi, ends)
        mark()

    # Linear programmes over all open ends at once: one vertex certifies many ends. Each from the block's vertex next
    # to the truth, not the last round's, so that the programmes per end after them start near the truth too (the
    # large request's differencing: 253.0 s of CPU against 279.4 s, the same findings and intervals; on a
    # hierarchical table the same change, :mod:`privrisk.outputs.block_ends`, cut the programmes per end 20-fold).
    rounds(BATCH_ROUNDS, lambda idx, val, sign: region.optimise(idx, val, sign, exact=False, cap=BATCH_ITERATIONS,
                                                                from_truth=True)[3])  # fmt: skip
    # Whole tables over all open ends at once (each block's integer programme, its root alone): where the linear
    # vertices are fractional (a small survey's sparse table), one such table empties or fills many groups.
    rounds(WHOLE_ROUNDS, region.whole_points, 0.0 if exact else WHOLE_LEAST)
    # One programme per end still open (what is wanted is asked again every few programmes): every least end, then
    # every largest, so that each programme starts from an optimum pushed the same way. Taken a total's two ends
    # in turn, each started from the opposite vertex: the large request's sums (``benchmarks/outputs.py``) left
    # 152 groups undecided when the budget ran out; in this order 0, within the same budget.
    # Tried and left out (2026-12-01): outer bounds from the duals earlier programmes of the block left (weak
    # duality) in place of a programme where they already decide a group. Offline they met 483 of 704 of these ends
    # exactly, but in the loop only about 85 programmes were skipped and the rest started further away: the sums
    # 216.2 s CPU against 219.7 s, and 146 of the 202 findings reported with a wider interval.
    stop = threading.Event()

    def ends_of(queue: np.ndarray, sign: float) -> None:
        """One programme per end of ``queue`` still open, in its order (what is wanted asked again every 16)."""
        solves = 0
        w_lo, w_hi = wanted()
        for i in queue.tolist():
            if stop.is_set():  # the caller has gone (Ctrl-C): a queue in a thread ends here
                return
            if solves >= 16:
                w_lo, w_hi = wanted()
                solves = 0
            if not (w_lo[i] if sign > 0 else w_hi[i]) or (ends.lo_exact[i] if sign > 0 else ends.hi_exact[i]):
                continue
            solves += 1
            row = g.indices[g.indptr[i] : g.indptr[i + 1]]
            val = g.data[g.indptr[i] : g.indptr[i + 1]]
            # A whole solution met already that reaches the rounded linear bound proves the end without an
            # integer programme (a small survey's counts: their linear vertices are fractional).
            met = float(ends.seen_lo[i] if sign > 0 else ends.seen_hi[i])
            value, hit, decided, parts, used = region.optimise(row, val, sign, exact=exact, met=met)
            seen(parts)
            if decided:
                ends.used[(i, int(sign))] = used
            if sign > 0:
                ends.lo[i] = max(ends.lo[i], value) if decided or np.isfinite(value) else ends.lo[i]
                ends.lo_exact[i] |= hit and decided
                ends.lo_solved[i] |= decided
            else:
                ends.hi[i] = min(ends.hi[i], value) if decided or np.isfinite(value) else ends.hi[i]
                ends.hi_exact[i] |= hit and decided
                ends.hi_solved[i] |= decided
            if not decided:
                ends.undecided[i] = True
            if explain is not None and explain[i]:
                ends.rows[i] = tuple(sorted(set(ends.rows.get(i, ())) | used))
            mark()

    # The totals within one block first, block by block: a block's programme starts from its own last optimum and
    # a point met changes its own block alone, so nothing another block does changes what one block's totals ask
    # or get, and large blocks run side by side (``Region.apart``); then the totals over several blocks.
    w_lo, w_hi = wanted()
    totals = np.flatnonzero(w_lo | w_hi)
    home = _home_blocks(region, g, totals)
    try:
        for sign in (1.0, -1.0):
            blocks = np.unique(home[home >= 0]).tolist()
            region.apart(functools.partial(ends_of, sign=sign), [totals[home == k] for k in blocks], blocks)
            ends_of(totals[home < 0], sign)
    finally:
        stop.set()
    if explain is not None:
        for i in np.flatnonzero(explain).tolist():
            if i in ends.rows:
                continue
            row = g.indices[g.indptr[i] : g.indptr[i + 1]]
            val = g.data[g.indptr[i] : g.indptr[i + 1]]
            used_all: set[int] = set()
            for sign in (1.0, -1.0):
                *_, used = region.optimise(row, val, sign)
                used_all |= used
            ends.rows[i] = tuple(sorted(used_all))
    # The truth lies in every interval (guards against a solver's tolerance); a real total whose ends differ
    # by less than the solver's precision is determined: its value is the truth's.
    # A point with real unknowns holds the equations only to the solver's tolerance: seen beyond a programme's
    # optimum it is that error, not a reach (it would widen a determined sum of a few people past the tolerance
    # that calls it determined). Real totals are widened by the truth alone.
    truth_only = real_totals if region.known is not None else np.zeros(k, dtype=bool)
    np.minimum(ends.lo, np.where(truth_only, base, ends.seen_lo), out=ends.lo, where=np.isfinite(ends.seen_lo))
    np.maximum(ends.hi, np.where(truth_only, base, ends.seen_hi), out=ends.hi, where=np.isfinite(ends.seen_hi))
    if region.known is not None:
        with np.errstate(invalid="ignore"):
            point = real_totals & (ends.hi - ends.lo <= PRECISION * np.maximum(1.0, np.abs(base)))
        ends.lo[point] = ends.hi[point] = base[point]
        ends.lo_exact |= point
        ends.hi_exact |= point
    return ends
