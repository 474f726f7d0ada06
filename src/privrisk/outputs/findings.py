"""The groups that everything released, with the intruder's knowledge, pins down: the findings of differencing.

- **count**: a group whose count lies within [1, threshold − 1] for every solution (exact when it is one value);
- **attribute**: a group known to hold someone, all of whom share one value of a variable or condition: every other
  value's group is determined to be empty (a zero found by differencing, ACRO's ``zeros_are_disclosive``);
- **sum**: a group whose sum is determined while it holds 1 … threshold − 1 people (exact), or known so closely
  that the p % rule fails on either side (approximate): the interval's distance to the true total below and above
  must each be at least p × the largest contribution less the contributions other than the two largest
  (τ-ARGUS's protection level of the p % rule).

Groups whose atoms are those of one released cell are left to the primary rules. Each function returns the
findings (dicts with the group's cell in the :class:`~privrisk.outputs.groups.Cube`, its interval and the released
equations that bound it) and how many candidate groups the budgets left undecided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from privrisk.outputs.extremes import Ends
from privrisk.outputs.groups import Cube, in_prints, representatives
from privrisk.outputs.intervals import Region

__all__ = ["Lattice", "attribute_findings", "count_findings", "sum_findings"]


@dataclass
class Lattice:
    """The groups over the atoms: the cube, each group's atom fingerprints, how many atoms it holds and how many
    axes it fixes, and the fingerprints of the released cells (per kind: None for counts, else a magnitude)."""

    cube: Cube
    prints: np.ndarray
    real: np.ndarray
    fixed: np.ndarray
    released: dict[str | None, set[tuple[int, int]]]
    width: int  # unknowns of the joint system
    #: Fingerprints of the only groups worth examining (None: every group): those a release telling at least as
    #: much found, left open or released (:func:`privrisk.outputs.differencing.difference`'s ``within``).
    within: frozenset[tuple[int, int]] | None = None

    def matrix(self, groups: np.ndarray, offset: int = 0) -> sp.csr_matrix:
        """The groups' totals as rows over the joint system's unknowns (atoms shifted by ``offset``)."""
        m = self.cube.members(groups)
        return sp.csr_matrix((m.data, m.indices + offset, m.indptr), shape=(m.shape[0], self.width))

    def fresh(self, wanted: np.ndarray, kind: str | None) -> np.ndarray:
        """One group per set of atoms among ``wanted``, leaving out the released cells of ``kind`` (and, with
        ``within``, every group not in it)."""
        cand = representatives(self.prints, self.fixed, wanted & self.real)
        cand = cand[~in_prints(self.prints[cand], self.released.get(kind, set()))]
        if self.within is not None:
            cand = cand[in_prints(self.prints[cand], self.within)]
        return cand


def _finding(
    kind: str, group: int, lo: float, hi: float, rows: tuple[int, ...], **extra: Any
) -> dict[str, Any]:
    return {"type": kind, "group": int(group), "lo": float(lo), "hi": float(hi), "rows": rows, **extra}


def count_findings(
    lat: Lattice, region: Region, truth: np.ndarray, threshold: int
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Groups whose count lies within [1, threshold − 1] for every solution; and the groups left undecided."""
    t = threshold
    free = lat.cube.totals(np.isinf(region.hi[: truth.size]).astype(np.int64)) > 0
    c = lat.cube.totals(truth)
    cand = lat.fresh((c >= 1) & (c <= t - 1) & ~free, None)
    if cand.size == 0:
        return [], np.empty(0, np.int64)
    g = lat.matrix(cand)

    def need(e: Ends) -> tuple[np.ndarray, np.ndarray]:
        alive = (e.seen_lo >= 1) & (e.seen_hi <= t - 1)
        return alive, alive

    # Not asked of :mod:`reach`: "can the group be emptied" needs a big-M row per group, whose weak relaxation left
    # one programme over 823 groups of a 300-record survey unfinished after 2,000 nodes (199 s).
    ends = region.extremes(g, need=need)
    pinned = (ends.lo >= 1 - 1e-9) & (ends.hi <= t - 1 + 1e-9)
    alive = (ends.seen_lo >= 1) & (ends.seen_hi <= t - 1) & ends.undecided
    out = []
    for i in np.flatnonzero(pinned).tolist():
        row = g.indices[g.indptr[i] : g.indptr[i + 1]]
        out.append(
            _finding(
                "count",
                cand[i],
                np.round(ends.lo[i]),
                np.round(ends.hi[i]),
                region.why(row, g.data[g.indptr[i] : g.indptr[i + 1]], ends, i),
            )
        )
    return out, cand[alive & ~pinned]


def zero_atoms(region: Region, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms no whole solution puts anyone in (determined empty), and those the budget left undecided."""
    n = truth.size
    zero = region.hi[:n] <= 0
    ask = np.flatnonzero((truth == 0) & ~zero)
    undecided = np.zeros(n, dtype=bool)
    if ask.size:
        g = sp.csr_matrix((np.ones(ask.size), (np.arange(ask.size), ask)), shape=(ask.size, region.n))

        def need(e: Ends) -> tuple[np.ndarray, np.ndarray]:
            return np.zeros(ask.size, bool), e.seen_hi <= 0

        # Is there a whole solution with someone in the atom: asked of all of them at once (:mod:`reach`).
        ends = region.extremes(g, need=need, reach_hi=np.ones(ask.size))
        zero[ask] = ends.hi <= 1e-9
        undecided[ask] = ends.undecided & ~zero[ask]
    return zero, undecided


def attribute_findings(
    lat: Lattice, region: Region, truth: np.ndarray, zero: np.ndarray, unsure: np.ndarray
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Groups known to hold someone, all of whom share one value of a dimension: every other value's group is
    determined to be empty, and at least one of those empty groups is not itself a released cell."""
    cube = lat.cube
    shape = cube.shape
    real = lat.real.reshape(shape)
    empty = (cube.totals((~zero).astype(np.int64)) == 0).reshape(shape) & real
    maybe = (cube.totals(unsure.astype(np.int64)) > 0).reshape(shape)
    released = in_prints(lat.prints, lat.released.get(None, set())).reshape(shape)
    counts = cube.totals(truth).reshape(shape)
    triples: list[tuple[int, int, int]] = []
    doubtful: list[int] = []
    for axis, size in enumerate(cube.sizes):
        if size < 2:
            continue
        index: list[Any] = [slice(None)] * len(shape)
        index[axis] = slice(0, size)
        r, z = real[tuple(index)], empty[tuple(index)]
        m = maybe[tuple(index)] & ~z & r
        rel = released[tuple(index)]
        left = (r & ~z).sum(axis=axis)
        ok = (left == 1) & (z.sum(axis=axis) >= 1) & ((z & ~rel).sum(axis=axis) >= 1)
        value = np.argmax(r & ~z, axis=axis)
        index[axis] = size
        ok &= counts[tuple(index)] >= 1
        # A group where an undecided atom might be empty too could be a finding the budget did not decide.
        close = (left - m.sum(axis=axis) <= 1) & (left > 1) & (counts[tuple(index)] >= 1)
        grid = list(np.indices(ok.shape))
        grid.insert(axis, np.full(ok.shape, size))
        parents = np.ravel_multi_index(tuple(grid), shape)
        for p, v in zip(parents[ok].tolist(), value[ok].tolist(), strict=True):
            triples.append((int(p), axis, int(v)))
        doubtful.extend(parents[close].tolist())
    if not triples:
        return [], np.asarray(doubtful, dtype=np.int64)
    parents = np.array(sorted({p for p, _, _ in triples}), dtype=np.int64)
    g = lat.matrix(parents)

    def need(e: Ends) -> tuple[np.ndarray, np.ndarray]:
        return e.seen_lo >= 1, e.seen_lo >= 1

    ends = region.extremes(g, need=need)
    known = dict(zip(parents.tolist(), (ends.lo >= 1 - 1e-9).tolist(), strict=True))
    undecided = parents[(ends.seen_lo >= 1) & (ends.lo < 1) & ends.undecided].tolist()
    out = []
    seen: set[tuple[int, int, int, int]] = set()
    # Of groups with the same atoms, the one fixing fewest axes names the finding.
    triples.sort(key=lambda x: (int(lat.fixed[x[0]]), x))
    for p, axis, v in triples:
        if not known[p]:
            continue
        key = (int(lat.prints[p, 0]), int(lat.prints[p, 1]), axis, v)
        if key in seen:
            continue
        seen.add(key)
        i = int(np.searchsorted(parents, p))
        row = g.indices[g.indptr[i] : g.indptr[i + 1]]
        others = [p2 for p2 in _children(cube, p, axis) if p2 != _child(cube, p, axis, v)]
        rows = set(region.why(row, g.data[g.indptr[i] : g.indptr[i + 1]], ends, i))
        for o in others:
            if lat.real[o]:
                mo = lat.cube.members(np.array([o]))
                rows |= set(region.why(mo.indices, np.ones(mo.indices.size)))
        lo, hi = float(np.round(ends.lo[i])), float(np.round(ends.hi[i]))
        zeros = tuple(sorted(o for o in others if lat.real[o]))
        out.append(_finding("attribute", p, lo, hi, tuple(sorted(rows)), axis=axis, value=v, zeros=zeros))
    return out, np.asarray(doubtful + undecided, dtype=np.int64)


def _child(cube: Cube, group: int, axis: int, code: int) -> int:
    coords: list[Any] = list(np.unravel_index(group, cube.shape))
    coords[axis] = code
    return int(np.ravel_multi_index(tuple(coords), cube.shape))


def _children(cube: Cube, group: int, axis: int) -> list[int]:
    return [_child(cube, group, axis, c) for c in range(cube.sizes[axis])]


def sum_findings(
    lat: Lattice,
    region: Region,
    *,
    kind: str,
    offset: int,
    scale: float,
    truth: np.ndarray,
    sums: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    signed: bool,
    threshold: int,
    p: float,
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Groups whose sum of one magnitude is determined while they hold 1 … threshold − 1 people, or known within
    the p % rule's protection on either side; and the groups left undecided."""
    cube = lat.cube
    t = threshold
    total = cube.totals(sums)
    count = cube.totals(truth)
    top1, top2 = cube.top_two(first, second)
    with np.errstate(invalid="ignore"):
        protect = p * top1 - (total - top1 - np.where(np.isfinite(top2), top2, 0.0))
    exact_c = (count >= 1) & (count <= t - 1)
    pct_c = (count >= 1) & (top1 > 0) & (protect > 0) & ~signed
    cand = lat.fresh(exact_c | pct_c, kind)
    if cand.size == 0:
        return [], np.empty(0, np.int64)
    tol = 1e-7 * max(1.0, float(np.abs(sums).sum()))
    truth_s = total[cand] / scale
    need_s = np.where(pct_c[cand], protect[cand], -np.inf) / scale
    is_e = exact_c[cand]
    tol_s = tol / scale
    g = lat.matrix(cand, offset)

    # Points with real unknowns hold the equations only to a tolerance, and their totals may stray further: the
    # values seen are each point's reach less its own error (extremes.POINT_SLACK; a determined sum of 8 people was
    # once seen to move by 2 units). A group seen to move less than ``tol`` is still sent to the programmes.

    def need(e: Ends) -> tuple[np.ndarray, np.ndarray]:
        same = is_e & (e.seen_hi - e.seen_lo <= tol_s)
        want_lo, want_hi = same | (truth_s - e.seen_lo < need_s), same | (e.seen_hi - truth_s < need_s)
        # An end whose outer bound a programme has narrowed to within the protection discloses whatever its exact
        # value: no programme over the whole block is asked for it (its bound and the equations behind it are
        # reported). The unknowns' bounds alone are not enough: they are seldom the end.
        with np.errstate(invalid="ignore"):
            close_lo = e.lo_solved & (truth_s - e.lo < need_s)
            close_hi = e.hi_solved & (e.hi - truth_s < need_s)
        return want_lo & ~close_lo, want_hi & ~close_hi

    ends = region.extremes(g, need=need, local_bounds=True)
    lo, hi = ends.lo * scale, ends.hi * scale
    exact = is_e & (hi - lo <= tol)
    with np.errstate(invalid="ignore"):
        level = np.where(pct_c[cand], protect[cand], -np.inf)
        # Also every end ``need`` stopped asking for as close (in its own units): rounding never lets one pass.
        close_lo = (total[cand] - lo < level) | (ends.lo_solved & (truth_s - ends.lo < need_s))
        close_hi = (hi - total[cand] < level) | (ends.hi_solved & (ends.hi - truth_s < need_s))
    found = exact | close_lo | close_hi
    w_lo, w_hi = need(ends)
    undecided = (w_lo | w_hi) & ~found & ends.undecided
    out = []
    for i in np.flatnonzero(found).tolist():
        row = g.indices[g.indptr[i] : g.indptr[i + 1]]
        # A sum known too closely on one side discloses by that side's equations alone: the other end's programme
        # (often never solved, its end far) is not asked for them. On the large request of
        # ``benchmarks/outputs.py`` those programmes took 55 of the sum findings' 368 s of CPU.
        signs = tuple(s for s, near in ((1.0, close_lo[i]), (-1.0, close_hi[i])) if near or exact[i])
        out.append(
            _finding("sum", cand[i], lo[i], hi[i], region.why(row, g.data[g.indptr[i] : g.indptr[i + 1]], ends, i,
                                                              signs),
                     magnitude=kind, exact=bool(exact[i]), count=float(count[cand[i]]), total=float(total[cand[i]]),
                     tol=tol)
        )  # fmt: skip
    return out, cand[undecided]
