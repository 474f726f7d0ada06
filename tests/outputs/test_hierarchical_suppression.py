"""The suppression pattern of a hierarchical count table (privrisk.outputs.hierarchical) against a brute-force
intruder that shares no code with it: it enumerates every whole non-negative leaf table (up to a cap on the grand
total), builds each table's cells by its own walk of the trees, keeps those whose published cells equal the
truth's, and reads off each suppressed cell's least and largest value."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.outputs import block_ends, hidden_intervals, hierarchical
from privrisk.outputs.hierarchical import suppression_pattern

# Small trees as parent lists: a total with 2 or 3 leaves, or a total with two subtotals of 2 leaves each.
TREES = {
    "flat2": [-1, 0, 0],
    "flat3": [-1, 0, 0, 0],
    "deep": [-1, 0, 0, 1, 1, 2, 2],
}


def _descendant_leaves(parent: list[int]) -> dict[int, list[int]]:
    """For each code, the leaves at or below it (the intruder's own walk)."""
    kids: dict[int, list[int]] = {c: [] for c in range(len(parent))}
    for c, p in enumerate(parent):
        if p >= 0:
            kids[p].append(c)
    leaves = [c for c in range(len(parent)) if not kids[c]]

    def below(c: int) -> list[int]:
        return [c] if not kids[c] else [x for k in kids[c] for x in below(k)]

    return {c: [leaves.index(x) for x in below(c)] for c in range(len(parent))}


def _cells(trees: list[list[int]]) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every cell and its row of 0/1 over the leaf cells (which leaf cells it adds up)."""
    under = [_descendant_leaves(t) for t in trees]
    shape = tuple(len(u[0]) for u in under)
    leaf_cells = list(itertools.product(*[range(n) for n in shape]))
    cells = list(itertools.product(*[range(len(t)) for t in trees]))
    m = np.zeros((len(cells), len(leaf_cells)), dtype=np.int64)
    for i, cell in enumerate(cells):
        for x in itertools.product(*[under[d][c] for d, c in enumerate(cell)]):
            m[i, leaf_cells.index(x)] = 1
    return cells, m


def _full(trees: list[list[int]], leaf: dict[tuple[int, ...], int]) -> dict[tuple[int, ...], int]:
    cells, m = _cells(trees)
    vec = np.asarray([leaf[k] for k in sorted(leaf)])
    return dict(zip(cells, (m @ vec).tolist(), strict=False))


def _leaf_tables(total: int, parts: int) -> np.ndarray:
    """Every way of putting ``total`` people into ``parts`` leaf cells (stars and bars)."""
    rows = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(parts)])
    return np.asarray(rows, dtype=np.int64).reshape(-1, parts)


def _intruder(trees, truth_leaf, suppressed_cells, cap):
    """Every leaf table with grand total ≤ cap whose published cells match: each suppressed cell's range."""
    cells, m = _cells(trees)
    truth_vec = m @ np.asarray([truth_leaf[k] for k in sorted(truth_leaf)])
    truth = dict(zip(cells, truth_vec.tolist(), strict=False))
    hidden = np.asarray([c in set(suppressed_cells) for c in cells])
    ranges: dict[tuple[int, ...], list[int]] = {}
    for total in range(cap + 1):
        tables = _leaf_tables(total, m.shape[1]) @ m.T
        fits = tables[(tables[:, ~hidden] == truth_vec[~hidden]).all(axis=1)]
        for i in np.flatnonzero(hidden):
            if fits.size:
                r = ranges.setdefault(cells[i], [int(fits[:, i].min()), int(fits[:, i].max())])
                r[0], r[1] = min(r[0], int(fits[:, i].min())), max(r[1], int(fits[:, i].max()))
    return truth, ranges


def _case(names, counts):
    trees = [TREES[n] for n in names]
    parents = [np.asarray(t) for t in trees]
    shape = tuple(len(_descendant_leaves(t)[0]) for t in trees)
    leaf = np.asarray(counts[: int(np.prod(shape))]).reshape(shape)
    truth_leaf = {c: int(leaf[c]) for c in itertools.product(*[range(n) for n in shape])}
    values = np.zeros(tuple(len(t) for t in trees), dtype=np.int64)
    for c, v in _full(trees, truth_leaf).items():
        values[c] = v
    return trees, parents, leaf, truth_leaf, values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(
        [
            ("flat2", "flat2"),
            ("flat3", "flat2"),
            ("deep", "flat2"),
            ("flat2", "flat2", "flat2"),
            ("flat3", "flat3"),
        ]
    ),
    counts=st.lists(st.integers(0, 3), min_size=12, max_size=12),
    threshold=st.integers(2, 4),
)
def test_pattern_matches_bruteforce_intruder(names, counts, threshold):
    trees, parents, leaf, truth_leaf, values = _case(names, counts)
    n = int(leaf.sum())
    if n > 8:  # keeps the enumeration small
        return
    pattern = suppression_pattern(parents, values, threshold)
    suppressed = [tuple(int(i) for i in c) for c in zip(*np.nonzero(pattern.suppressed), strict=False)]
    cap = n + 3
    truth, ranges = _intruder(trees, truth_leaf, suppressed, cap)
    total_published = not pattern.suppressed[(0,) * len(trees)]
    for cell in zip(*np.nonzero(pattern.primary), strict=False):
        cell = tuple(int(i) for i in cell)
        x = truth[cell]
        assert 1 <= x < threshold
        assert cell in ranges, "every primary is suppressed"
        bmin, bmax = ranges[cell]
        # the pattern protects it: another whole table gives it a value at least 1 above and 1 below
        assert bmin <= x - 1 and bmax >= x + 1, (cell, x, bmin, bmax)
        assert pattern.protected[cell]
        lo, hi = pattern.lo[cell], pattern.hi[cell]
        # the witnesses are whole tables the intruder also finds
        assert bmin <= pattern.witness_lo[cell] and pattern.witness_hi[cell] >= x + 1
        # never narrower than the truth: the intruder's range lies inside our interval
        assert lo <= bmin and bmax <= hi
        if total_published and pattern.exact[cell]:
            # every consistent table has the published grand total, so the enumeration is complete: equal
            assert (lo, hi) == (bmin, bmax), (cell, lo, hi, bmin, bmax)
        if not np.isfinite(hi):
            assert bmax >= x + (cap - n)


def test_hand_example_two_by_two():
    # one small cell in a 2 × 2 table with margins: the four inner cells are suppressed, each is then only known
    # to lie within [max(0, row − other column), min(row, column)]
    parents = [np.asarray(TREES["flat2"])] * 2
    values = np.asarray([[19, 6, 13], [6, 1, 5], [13, 5, 8]])
    p = suppression_pattern(parents, values, 3)
    assert p.suppressed[1:, 1:].all() and not p.suppressed[0].any() and not p.suppressed[:, 0].any()
    # x11 = 1: x11 + x12 = 6, x11 + x21 = 6, x21 + x22 = 13, x12 + x22 = 13 → x11 ∈ [0, 6]
    assert (p.lo[1, 1], p.hi[1, 1]) == (0.0, 6.0)
    assert p.summary == {"cells": 9, "primary": 1, "secondary": 3, "unprotected": 0, "not_exact": 0}


def test_unproven_primary_is_never_reported_protected():
    # a protection no whole table can give (each primary must move 1000 up and all the way to 0): every primary
    # the cubes cannot move that far is reported unprotected, none is silently called protected
    _trees, parents, _leaf, _truth_leaf, values = _case(("deep", "flat2"), [1, 2, 0, 1, 3, 1, 2, 0])
    p = suppression_pattern(parents, values, 4, protection=1000)
    moved_enough = (values - p.witness_lo >= np.minimum(1000, values)) & (p.witness_hi - values >= 1000)
    assert (p.protected == (p.primary & moved_enough)).all()
    assert p.summary["unprotected"] == int((p.primary & ~moved_enough).sum())
    assert p.summary["unprotected"] > 0


def test_interval_left_to_a_budget_is_an_outer_bound(monkeypatch):
    # no integer programmes at all: a fractional linear end is kept, marked not exact, and still holds the truth
    monkeypatch.setattr(hidden_intervals, "_MIP_LIMIT", 0)
    trees, parents, leaf, truth_leaf, values = _case(("flat3", "flat3"), [1, 0, 2, 1, 1, 0, 2, 1, 0])
    p = suppression_pattern(parents, values, 3)
    suppressed = [tuple(int(i) for i in c) for c in zip(*np.nonzero(p.suppressed), strict=False)]
    _, ranges = _intruder(trees, truth_leaf, suppressed, int(leaf.sum()) + 2)
    for cell in zip(*np.nonzero(p.primary), strict=False):
        cell = tuple(int(i) for i in cell)
        assert p.lo[cell] <= ranges[cell][0] and ranges[cell][1] <= p.hi[cell]


def test_bad_tables_are_refused():
    parents = [np.asarray(TREES["flat2"])] * 2
    with pytest.raises(ValueError, match="not the sums"):
        suppression_pattern(parents, np.asarray([[9, 6, 13], [6, 1, 5], [13, 5, 8]]), 3)
    with pytest.raises(ValueError, match="shape"):
        suppression_pattern(parents, np.zeros((2, 3), dtype=int), 3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from([("flat2", "flat2"), ("deep", "flat2"), ("flat3", "flat3")]),
    counts=st.lists(st.integers(0, 3), min_size=12, max_size=12),
    threshold=st.integers(2, 4),
)
def test_without_programmes_protection_is_proven_and_bounds_are_outer(names, counts, threshold):
    # intervals=False: the same pattern, every primary still proven protected (against the brute-force intruder),
    # and [lo, hi] = [0, ceiling] holds the intruder's whole range, marked not exact
    trees, parents, leaf, truth_leaf, values = _case(names, counts)
    n = int(leaf.sum())
    if n > 8:
        return
    fast = suppression_pattern(parents, values, threshold, intervals=False)
    full = suppression_pattern(parents, values, threshold)
    assert (fast.suppressed == full.suppressed).all() and (fast.protected == full.protected).all()
    suppressed = [tuple(int(i) for i in c) for c in zip(*np.nonzero(fast.suppressed), strict=False)]
    _, ranges = _intruder(trees, truth_leaf, suppressed, n + 3)
    for cell in zip(*np.nonzero(fast.primary), strict=False):
        cell = tuple(int(i) for i in cell)
        bmin, bmax = ranges[cell]
        x = int(values[cell])
        assert fast.protected[cell] and bmin <= x - 1 and bmax >= x + 1
        assert fast.lo[cell] <= bmin and bmax <= fast.hi[cell] and not fast.exact[cell]
        assert full.lo[cell] >= fast.lo[cell] and full.hi[cell] <= fast.hi[cell]


def test_bruteforce_intruder_catches_a_pattern_without_secondaries(monkeypatch):
    # the test can fail: with the secondary suppressions dropped, the intruder recomputes the primary exactly
    trees, parents, _leaf, truth_leaf, values = _case(("flat2", "flat2"), [1, 5, 6, 7])
    p = suppression_pattern(parents, values, 3)
    assert p.summary["secondary"] > 0
    primaries = [tuple(int(i) for i in c) for c in zip(*np.nonzero(p.primary), strict=False)]
    _, ranges = _intruder(trees, truth_leaf, primaries, int(values[(0,) * 2]) + 3)
    assert all(ranges[c][0] == ranges[c][1] == values[c] for c in primaries)


def _milp_range(a, values, suppressed, cell):
    """A peer: scipy's own integer programme over the whole flattened table (every cell an unknown, the published
    ones fixed), least and largest value of ``cell``; None above for unbounded."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = values.size
    bounds = Bounds(np.where(suppressed, 0.0, values), np.where(suppressed, np.inf, values))
    cons = LinearConstraint(a, 0.0, 0.0)
    out = []
    for sign in (1.0, -1.0):
        c = np.zeros(n)
        c[cell] = sign
        res = milp(c, constraints=cons, bounds=bounds, integrality=np.ones(n))
        if res.status in (3, 4) and sign < 0:  # unbounded (or infeasible, which the truth rules out)
            out.append(None)
            continue
        assert res.status == 0, res.message
        out.append(round(sign * res.fun))
    return out[0], out[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(
        [("flat2", "flat2"), ("deep", "flat2"), ("flat3", "flat3"), ("flat2",) * 3, ("deep", "deep")]
    ),
    counts=st.lists(st.integers(0, 4), min_size=16, max_size=16),
    hide=st.lists(st.booleans(), min_size=49, max_size=49),
)
def test_intervals_of_any_pattern_match_an_integer_programme_peer(names, counts, hide):
    # any suppression pattern (not only the hypercubes'), every suppressed cell a target: the shuttle's bounds
    # hold every whole table's value (checked by brute force where the grand total is published), and the exact
    # intervals, settled by bounds met by witnesses, linear or integer programmes, equal scipy's milp on the
    # whole table. The witness is the truth alone, so most ends beyond it need a programme.
    _trees, parents, _leaf, _truth_leaf, values = _case(names, counts)
    flat = values.reshape(-1)
    suppressed = np.asarray(hide[: flat.size])
    if not suppressed.any():
        return
    a = hierarchical.relations(parents)
    targets = np.flatnonzero(suppressed)
    wlo = flat.copy()
    whi = flat.copy()
    lo, hi, exact = hidden_intervals.hidden_intervals(a, flat, suppressed, targets, wlo, whi)
    for cell in targets.tolist():
        mlo, mhi = _milp_range(a, flat, suppressed, cell)
        assert exact[cell]
        assert lo[cell] == mlo, (cell, lo[cell], mlo)
        assert hi[cell] == (np.inf if mhi is None else mhi), (cell, hi[cell], mhi)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from([("flat2", "flat2"), ("deep", "flat2"), ("flat3", "flat2"), ("flat2",) * 3]),
    counts=st.lists(st.integers(0, 3), min_size=12, max_size=12),
    hide=st.lists(st.booleans(), min_size=27, max_size=27),
)
def test_shuttle_bounds_hold_every_whole_table(names, counts, hide):
    # the shuttle's whole bounds are outer: every whole table with the published cells (enumerated, the grand
    # total published so the enumeration is complete) lies inside them; they can fail, as a bound one too tight
    # would cut off the truth or an enumerated table
    trees, parents, leaf, truth_leaf, values = _case(names, counts)
    if int(leaf.sum()) > 7:
        return
    flat = values.reshape(-1)
    suppressed = np.asarray(hide[: flat.size])
    suppressed[0] = False  # the grand total published
    if not suppressed.any():
        return
    a = hierarchical.relations(parents).tocsc()
    hid = np.flatnonzero(suppressed)
    sub = a[:, hid].tocsr()
    rhs = -(a[:, ~suppressed] @ flat[~suppressed].astype(float))
    lo, hi = hidden_intervals.shuttle(sub, rhs, np.zeros(hid.size), np.full(hid.size, np.inf))
    cells = [tuple(int(i) for i in c) for c in itertools.product(*[range(len(t)) for t in trees])]
    _, ranges = _intruder(trees, truth_leaf, [cells[i] for i in hid], int(leaf.sum()))
    for k, i in enumerate(hid.tolist()):
        bmin, bmax = ranges[cells[i]]
        assert lo[k] <= bmin and bmax <= hi[k], (cells[i], lo[k], hi[k], bmin, bmax)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), records=st.integers(40, 250))
def test_three_way_pattern_intervals_match_an_integer_programme_peer(seed, records):
    # a 5 × 5 × 5 table (a total over 4 leaves a dimension) of skewed counts: three-way tables have fractional
    # linear vertices, so ends are settled every way (bounds met by witnesses, ⌊linear end⌋ met by a witness,
    # integer programmes); every exact interval equals scipy's milp over the whole table
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, 5) ** 1.5
    draws = [rng.choice(4, size=records, p=w / w.sum()) for _ in range(3)]
    leaf = np.zeros((4, 4, 4), dtype=np.int64)
    np.add.at(leaf, tuple(draws), 1)
    parents = [hierarchical.hierarchy(4)] * 3
    values = hierarchical.table_from_leaves(parents, leaf)
    p = suppression_pattern(parents, values, 5)
    a = hierarchical.relations(parents)
    flat = values.reshape(-1)
    for cell in np.flatnonzero(p.primary.reshape(-1)).tolist():
        at = np.unravel_index(cell, values.shape)
        mlo, mhi = _milp_range(a, flat, p.suppressed.reshape(-1), cell)
        assert p.exact[at]
        assert (p.lo[at], p.hi[at]) == (mlo, np.inf if mhi is None else mhi), (
            at,
            p.lo[at],
            p.hi[at],
            mlo,
            mhi,
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from([("flat2", "flat2"), ("deep", "flat2"), ("flat3", "flat3"), ("flat2",) * 3]),
    hide=st.lists(st.booleans(), min_size=27, max_size=27),
)
def test_grows_is_exactly_an_unbounded_linear_programme(names, hide):
    # a peer: scipy's linprog over the whole table says which suppressed cells have no end above
    from scipy.optimize import linprog

    _trees, parents, _leaf, _truth_leaf, values = _case(names, [1] * 16)
    flat = values.reshape(-1)
    suppressed = np.asarray(hide[: flat.size])
    a = hierarchical.relations(parents)
    grows = hierarchical._grows(parents, suppressed.reshape(values.shape)).reshape(-1)
    bounds = np.column_stack([np.where(suppressed, 0.0, flat), np.where(suppressed, np.inf, flat)])
    for cell in range(flat.size):
        c = np.zeros(flat.size)
        c[cell] = -1.0
        res = linprog(c, A_eq=a, b_eq=np.zeros(a.shape[0]), bounds=bounds, method="highs")
        assert res.status in (0, 3)
        assert grows[cell] == (res.status == 3), (cell, grows[cell], res.status)


def _block_system(parents, values, suppressed):
    """The hidden cells' equations as :func:`hidden_intervals.hidden_intervals` builds them (independently here): the
    relations over the suppressed cells, the published ones moved to the right-hand side."""
    a = hierarchical.relations(parents).tocsc()
    flat = values.reshape(-1)
    hid = np.flatnonzero(suppressed)
    sub = a[:, hid].tocsr()
    rhs = -(a[:, ~suppressed] @ flat[~suppressed].astype(float))
    keep = np.flatnonzero(np.diff(sub.indptr) > 0)
    return sub[keep], rhs[keep], hid


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(
        [("flat2", "flat2"), ("deep", "flat2"), ("flat3", "flat3"), ("flat2",) * 3, ("deep", "deep")]
    ),
    counts=st.lists(st.integers(0, 4), min_size=16, max_size=16),
    hide=st.lists(st.booleans(), min_size=49, max_size=49),
    shuttle=st.booleans(),
)
def test_neighbourhood_bound_is_outer_and_exact_on_the_whole_block(names, counts, hide, shuttle):
    # block_ends.local_end relaxes the relations that leave the neighbourhood: its optimum never cuts off a solution of the
    # whole system (scipy's linprog over all hidden cells, the same bounds, is the peer), and once the
    # neighbourhood holds every hidden cell it is the whole system's linear optimum. It can fail: a ranged row
    # with a sign slip or a bound too tight lands below (above) the peer.
    from scipy.optimize import linprog

    _trees, parents, _leaf, _truth_leaf, values = _case(names, counts)
    suppressed = np.asarray(hide[: values.size])
    if not suppressed.any():
        return
    m, b, hid = _block_system(parents, values, suppressed)
    if m.shape[0] == 0:
        return
    lower, upper = np.zeros(hid.size), np.full(hid.size, np.inf)
    if shuttle:
        lower, upper = hidden_intervals.shuttle(m, b, lower, upper)
    csr, csc = m.tocsr(), m.tocsc()
    bounds = np.column_stack([lower, upper])
    for j in range(hid.size):
        for top in (False, True):
            c = np.zeros(hid.size)
            c[j] = -1.0 if top else 1.0
            res = linprog(c, A_eq=m, b_eq=b, bounds=bounds, method="highs")
            assert res.status in (0, 3)
            peer = (np.inf if top else -np.inf) if res.status == 3 else float(res.x[j])
            for radius in (0, 1, hid.size):
                v = block_ends.local_end(csr, csc, b, lower, upper, j, top, radius)
                if top:
                    assert v >= peer - 1e-6, (j, radius, v, peer)
                else:
                    assert v <= peer + 1e-6, (j, radius, v, peer)
            # the whole block: no relation left out, the same programme
            assert v == pytest.approx(peer, abs=1e-6) or (np.isinf(v) and np.isinf(peer))


@pytest.mark.parametrize(
    "variant",
    [
        "rounds and neighbourhoods",
        "no rounds",
        "no neighbourhoods",
        "short rounds",
        "rounds each from the last",
        "one pass",
        "radius 1, passes",
        "no bounds around programmes per end",
    ],
)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), records=st.integers(60, 400))
def test_each_way_of_settling_ends_matches_an_integer_programme_peer(variant, seed, records):
    # a 7 × 7 × 7 table (two levels of two codes a dimension): witnesses for many ends at once (block_ends.rounds,
    # whole or cut short), bounds from neighbourhoods (block_ends.local_end, again around each end a programme found)
    # and per-end programmes each settle ends; whichever way is switched off, every exact interval equals scipy's
    # milp over the whole table
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, 5) ** 1.3
    leaf = np.zeros((4, 4, 4), dtype=np.int64)
    np.add.at(leaf, tuple(rng.choice(4, size=records, p=w / w.sum()) for _ in range(3)), 1)
    parents = [hierarchical.hierarchy(2, 2)] * 3
    values = hierarchical.table_from_leaves(parents, leaf)
    with pytest.MonkeyPatch.context() as mp:
        if variant == "no rounds":
            mp.setattr(block_ends, "_ROUNDS", 0)
        if variant == "no neighbourhoods":
            mp.setattr(block_ends, "_RADII", ())
        if variant == "short rounds":  # rounds cut after a few iterations: their last vertex is the witness
            mp.setattr(block_ends, "_ROUND_ITERATIONS", 3)
            mp.setattr(block_ends, "_ROUND_ITERATIONS_PER_CELL", 0.0)
        if variant == "rounds each from the last":  # each round from the last round's vertex, not the truth's
            mp.setattr(block_ends, "_FROM_TRUTH", False)
        if variant == "one pass":  # neighbourhood bounds once, all of them in the block's programme
            mp.setattr(block_ends, "_PASSES", 1)
        if (
            variant == "no bounds around programmes per end"
        ):  # (with rounds off, every end found tightens these)
            mp.setattr(hidden_intervals, "_AROUND", False)
        if variant == "radius 1, passes":  # the smallest neighbourhoods, tightened by many passes
            mp.setattr(block_ends, "_RADII", (1,))
            mp.setattr(block_ends, "_PASSES", 8)
        stats: dict[str, int] = {}
        p = suppression_pattern(parents, values, 6, stats=stats)
    a = hierarchical.relations(parents)
    flat = values.reshape(-1)
    for cell in np.flatnonzero(p.primary.reshape(-1)).tolist():
        at = np.unravel_index(cell, values.shape)
        mlo, mhi = _milp_range(a, flat, p.suppressed.reshape(-1), cell)
        assert p.exact[at]
        assert (p.lo[at], p.hi[at]) == (mlo, np.inf if mhi is None else mhi), (
            at,
            p.lo[at],
            p.hi[at],
            mlo,
            mhi,
        )


def test_a_witness_is_counted_only_when_it_is_a_whole_table_with_the_published_cells():
    # x0 + x1 = 3, x1 + x2 = 2 (hand calculation): (1, 2, 0) is a whole solution; a fractional point, a whole
    # point off the relations and a negative one are no witnesses and change nothing
    import scipy.sparse as sp

    m = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    b = np.array([3.0, 2.0])
    cells = np.array([4, 5, 6])
    wlo = np.full(8, 1)
    whi = np.full(8, 1)
    for bad in ([1.5, 1.5, 0.5], [1.0, 1.0, 0.0], [4.0, -1.0, 3.0]):
        assert not block_ends.witness(cells, np.asarray(bad), wlo, whi, m, b)
        assert (wlo == 1).all() and (whi == 1).all()
    assert block_ends.witness(cells, np.array([1.0, 2.0, 1e-9]), wlo, whi, m, b)
    assert wlo[cells].tolist() == [1, 1, 0] and whi[cells].tolist() == [1, 2, 1]


def _milp_system_range(m, b, j):
    """A peer: scipy's milp over the hidden cells' system ``m·x = b``, ``x ≥ 0`` whole: x_j's least and largest
    value (None above for unbounded)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = m.shape[1]
    out = []
    for sign in (1.0, -1.0):
        c = np.zeros(n)
        c[j] = sign
        res = milp(
            c, constraints=LinearConstraint(m, b, b), bounds=Bounds(0.0, np.inf), integrality=np.ones(n)
        )
        if res.status in (3, 4) and sign < 0:
            out.append(None)
            continue
        assert res.status == 0, res.message
        out.append(round(sign * res.fun))
    return out[0], out[1]


def _random_block(rng: np.random.Generator, records: int):
    """A 7 × 7 × 7 hierarchical table of skewed counts, its pattern at threshold 6, and its hidden cells' system
    (m, b, the hidden cells, their true values); None when nothing is hidden."""
    w = 1.0 / np.arange(1, 5) ** 1.3
    leaf = np.zeros((4, 4, 4), dtype=np.int64)
    np.add.at(leaf, tuple(rng.choice(4, size=records, p=w / w.sum()) for _ in range(3)), 1)
    parents = [hierarchical.hierarchy(2, 2)] * 3
    values = hierarchical.table_from_leaves(parents, leaf)
    p = suppression_pattern(parents, values, 6, intervals=False)
    m, b, hid = _block_system(parents, values, p.suppressed.reshape(-1))
    if m.shape[0] == 0:
        return None
    return m, b, hid, values.reshape(-1)[hid].astype(float)


@pytest.mark.parametrize("radii, passes", [((1, 2, 3), 3), ((1,), 8)])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), records=st.integers(60, 400))
def test_passes_of_neighbourhood_bounds_stay_outer_and_skip_only_what_would_repeat(
    radii, passes, seed, records
):
    # block_ends.tighten over a 7 × 7 × 7 table's hidden cells: the bounds its passes leave hold every whole table
    # (scipy's milp over the same system is the peer: a bound one too tight fails), its witnesses are whole tables
    # (inside milp's range), and skipping a neighbourhood whose bounds did not change gives the very bounds of
    # solving every one again (a skip that missed a change would leave a bound looser)
    rng = np.random.default_rng(seed)
    block = _random_block(rng, records)
    if block is None:
        return
    m, b, hid, truth = block
    slo, shi = hidden_intervals.shuttle(m, b, np.zeros(hid.size), np.full(hid.size, np.inf))
    cells = np.arange(hid.size)
    runs = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(block_ends, "_RADII", radii)
        mp.setattr(block_ends, "_PASSES", passes)
        for skip in (True, False):
            if not skip:
                mp.setattr(block_ends._Seen, "fresh", lambda self, key, cols: True)
            wlo, whi = truth.copy(), truth.copy()
            stats = {"rounds": 0, "local": 0, "local_ends": 0}
            blo, bhi, _ = block_ends.tighten(m, b, cells, truth, slo, shi, cells, wlo, whi, stats)
            runs.append((blo, bhi, wlo, whi, stats["local"]))
    (blo, bhi, wlo, whi, solved), (blo2, bhi2, _, _, solved2) = runs
    assert np.array_equal(blo, blo2) and np.array_equal(bhi, bhi2)
    assert solved <= solved2
    for j in range(hid.size):
        mlo, mhi = _milp_system_range(m, b, j)
        assert blo[j] <= mlo <= wlo[j] <= truth[j] <= whi[j], (j, blo[j], mlo, wlo[j])
        assert mhi is None or whi[j] <= mhi <= bhi[j], (j, whi[j], mhi, bhi[j])


def test_a_neighbourhood_is_solved_again_only_once_a_bound_it_reads_changed():
    # hand calculation: a programme that read the bounds of unknowns 1 and 2 is not repeated while only unknown 3's
    # bound changes, and is repeated once unknown 2's does; one never solved is always fresh
    seen = block_ends._Seen(5)
    key = (1, True, 1)
    assert seen.fresh(key, np.array([1, 2]))
    seen.ran(key)
    assert not seen.fresh(key, np.array([1, 2]))
    seen.tightened(3)
    assert not seen.fresh(key, np.array([1, 2]))
    assert seen.fresh(key, np.array([1, 2, 3]))
    seen.tightened(2)
    assert seen.fresh(key, np.array([1, 2]))
    seen.ran(key)
    assert not seen.fresh(key, np.array([1, 2]))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), records=st.integers(60, 400))
def test_bounds_around_an_end_found_hold_every_whole_table(seed, records):
    # block_ends.Around after an end is found (here by milp, the peer): the neighbours' radius-1 bounds, from no
    # bounds at all (x ≥ 0 only), hold milp's whole range of every hidden cell; a bound one too tight fails
    rng = np.random.default_rng(seed)
    block = _random_block(rng, records)
    if block is None:
        return
    m, b, hid, truth = block
    ranges = [_milp_system_range(m, b, j) for j in range(hid.size)]
    cells = np.arange(hid.size)
    blo, bhi = np.zeros(hid.size), np.full(hid.size, np.inf)
    wlo, whi = truth.copy(), truth.copy()
    around = block_ends.Around(m, b, cells, truth, cells)
    stats = {"local": 0, "local_ends": 0}
    for j in rng.permutation(hid.size)[:8].tolist():
        mlo, mhi = ranges[j]
        blo[j] = max(blo[j], mlo)
        bhi[j] = bhi[j] if mhi is None else min(bhi[j], mhi)
        around.tighten(j, blo, bhi, wlo, whi, stats)
        for i, (mlo, mhi) in enumerate(ranges):
            assert blo[i] <= mlo and (mhi is None or mhi <= bhi[i]), (i, blo[i], bhi[i], mlo, mhi)


def test_a_whole_table_next_to_a_fractional_optimum_keeps_its_whole_cells_and_repairs_the_rest():
    # hand calculation: max x0 over x0 + x1 = 1, x2 + x3 = 1 (0 ≤ x ≤ 1) has the optimum (1, 0, ½, ½), whole but for
    # x2 and x3; freed with x0 (radius 0), an integer programme makes them whole: (1, 0, 1, 0) or (1, 0, 0, 1)
    import scipy.sparse as sp

    m = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]]))
    b = np.array([1.0, 1.0])
    x = np.array([1.0, 0.0, 0.5, 0.5])
    near = hidden_intervals._whole_near(m, m.tocsc(), b, x, 0, True, np.zeros(4), np.ones(4), radius=0)
    assert near is not None
    assert near[:2].tolist() == [1.0, 0.0] and sorted(near[2:].tolist()) == [0.0, 1.0]
    # x0 + x1 = 1, x1 + x2 = 1, x0 + x2 = 1: (½, ½, ½) is the only solution, no whole one
    odd = sp.csr_matrix(np.array([[1.0, 1, 0], [0, 1, 1], [1, 0, 1]]))
    assert (
        hidden_intervals._whole_near(
            odd, odd.tocsc(), np.ones(3), np.full(3, 0.5), 0, True, np.zeros(3), np.ones(3), 1
        )
        is None
    )


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), records=st.integers(60, 400), radius=st.integers(0, 2))
def test_whole_tables_next_to_fractional_points_are_whole_tables_within_the_integer_range(
    seed, records, radius
):
    # _whole_near from a fractional point (half way between the truth and the linear optimum of x_j, scipy's linprog)
    # returns a whole table with the published cells (checked exactly here, not by block_ends.witness) whose x_j
    # lies within scipy's milp range over the whole system: a right-hand side of the held rows off by one fails
    from scipy.optimize import linprog

    rng = np.random.default_rng(seed)
    block = _random_block(rng, records)
    if block is None:
        return
    m, b, hid, truth = block
    bounds = np.column_stack([np.zeros(hid.size), np.full(hid.size, np.inf)])
    for j in rng.permutation(hid.size)[:4].tolist():
        for top in (True, False):
            c = np.zeros(hid.size)
            c[j] = -1.0 if top else 1.0
            res = linprog(c, A_eq=m, b_eq=b, bounds=bounds, method="highs")
            if res.status != 0:
                continue
            point = (res.x + truth) / 2
            near = hidden_intervals._whole_near(m, m.tocsc(), b, point, j, top, np.zeros(hid.size), np.full(hid.size, np.inf),
                                                radius)  # fmt: skip
            if near is None:
                continue
            assert np.array_equal(near, np.round(near)) and (near >= 0).all()
            assert np.array_equal(m @ near, b)
            mlo, mhi = _milp_system_range(m, b, j)
            assert mlo <= near[j] and (mhi is None or near[j] <= mhi)
