"""Moves around given atoms and walks of several moves (issue 36): whole solutions next to the truth that keep
every released total, found without a solver. Checked by recomputing every released table's totals from scratch, and a move that breaks a
total or a bound is refused by the region before it counts as a point seen (never a wrong 'not disclosed')."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk.outputs.extremes as extremes_module
from outputs_helpers import released_cube, whole_solutions
from privrisk.outputs.intervals import Region
from privrisk.outputs.moves import moves, moves_through, touching, walks

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")


def _margins(point: np.ndarray, coords: np.ndarray, sizes: tuple[int, ...], held: frozenset[int]) -> dict:
    """A released table's cells summed from scratch: the atoms' values by their levels of ``held``."""
    out: dict[tuple[int, ...], float] = {}
    keep = sorted(held)
    for c, v in zip(coords.tolist(), point.tolist(), strict=True):
        key = tuple(c[d] for d in keep)
        out[key] = out.get(key, 0.0) + v
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_moves_around_targets_keep_every_released_total_and_stay_whole(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dims = int(rng.integers(2, 5))
    sizes = tuple(int(x) for x in rng.integers(2, 5, dims))
    coords = np.array(list(itertools.product(*(range(s) for s in sizes))))
    # Released tables: every set of dims - 1 dimensions, or a random few of them.
    subsets = [frozenset(c) for c in itertools.combinations(range(dims), dims - 1)]
    held = [s for s in subsets if rng.random() < 0.7] or subsets[:1]
    truth = rng.integers(0, 6, coords.shape[0]).astype(float)
    targets = rng.choice(coords.shape[0], size=min(4, coords.shape[0]), replace=False)
    m = moves_through(coords, sizes, held, truth, targets, tries=3, seed=seed)
    for row in range(m.shape[0]):
        delta = m[row].toarray().ravel()
        assert np.any(delta != 0)
        point = truth + delta
        assert np.all(point >= 0) and np.array_equal(point, np.round(point))
        for h in held:
            assert _margins(point, coords, sizes, h) == _margins(truth, coords, sizes, h)


def test_a_target_in_a_two_by_two_table_of_released_margins_moves_to_zero() -> None:
    # Rows and columns released: the one move is ±1 on the diagonal against ∓1 off it, as far as the least count.
    coords = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    truth = np.array([2.0, 5.0, 4.0, 3.0])
    m = moves_through(coords, (2, 2), [frozenset({0}), frozenset({1})], truth, np.array([0]))
    points = {tuple((truth + m[r].toarray().ravel()).tolist()) for r in range(m.shape[0])}
    # Atom 0 can lose 2 (the least of atoms 0 and 3) or gain 4 (the least of atoms 1 and 2).
    assert points == {(0.0, 7.0, 6.0, 1.0), (6.0, 1.0, 0.0, 7.0)}


def test_a_move_that_breaks_a_released_total_is_not_seen() -> None:
    # x0 + x1 = 3 and x2 alone: x0 is 0…3. A 'move' that takes x0 to 0 without giving x1 the difference
    # breaks the released total; counted as seen it would hide that x0 + x1 is pinned.
    a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    region = Region(
        a, np.array([3.0, 2.0]), lower=np.zeros(3), integer=np.ones(3, bool), known=np.array([1.0, 2, 2])
    )
    g = sp.csr_matrix(np.array([[1.0, 1.0, 0.0]]))
    region.moves = sp.csr_matrix(np.array([[-1.0, 0.0, 0.0], [1.0, -1.0, 0.0], [0.5, -0.5, 0.0]]))
    ends = region.extremes(g)
    assert ends.lo.tolist() == [3.0] and ends.hi.tolist() == [3.0]
    assert region.moves is not None
    # The good move (x0 + 1, x1 − 1) alone is seen: x0 reaches 2 without a programme.
    seen = region.extremes(
        sp.csr_matrix(np.array([[1.0, 0.0, 0.0]])), need=lambda e: (e.seen_lo > 0, e.seen_hi < 3)
    )
    assert seen.lo.tolist() == [0.0] and seen.hi.tolist() == [3.0]


def test_moves_leaving_the_bounds_are_refused() -> None:
    a = sp.csr_matrix(np.array([[1.0, 1.0]]))
    region = Region(a, np.array([3.0]), lower=np.zeros(2), upper=np.array([3.0, 2.0]), integer=np.ones(2, bool),
                    known=np.array([1.0, 2.0]))  # fmt: skip
    region.moves = sp.csr_matrix(np.array([[-1.0, 1.0]]))  # x1 = 3 is above its bound of 2
    seen: list[float] = []

    def need(e):  # type: ignore[no-untyped-def]
        seen.append(float(e.seen_lo[0]))
        return np.zeros(1, bool), np.zeros(1, bool)

    region.extremes(sp.csr_matrix(np.array([[1.0, 0.0]])), need=need)
    assert seen and min(seen) == 1.0  # the truth only: the move was not taken


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_walks_keep_every_released_total_stay_whole_and_never_pass_the_maximum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    coords, sizes, held, a = released_cube(rng)
    truth = (rng.integers(0, 4, coords.shape[0]) * (rng.random(coords.shape[0]) < 0.5)).astype(float)
    pool = moves(coords, sizes, held, truth, seed=seed)
    groups = (rng.random((5, coords.shape[0])) < 0.3).astype(float)
    g = sp.csr_matrix(np.vstack([groups, -groups]))  # raise each group, and lower it
    w = walks(pool, g, truth, np.zeros(coords.shape[0]), np.full(coords.shape[0], np.inf))
    # The largest total each group has over every whole table with these released tables (brute force).
    cols = np.flatnonzero(a.any(axis=0))
    small = truth.sum() <= 10 and coords.shape[0] <= 12 and cols.size == coords.shape[0]
    every = whole_solutions(a.astype(int), (a @ truth).astype(int), cols) if small else []
    for row in range(w.shape[0]):
        point = truth + w[row].toarray().ravel()
        assert np.all(point >= 0) and np.array_equal(point, np.round(point))
        for h in held:
            assert _margins(point, coords, sizes, h) == _margins(truth, coords, sizes, h)
        if every:
            total = g[row].toarray().ravel()
            assert total @ point <= max(float(total @ x) for x in every)


def test_a_walk_reaches_what_no_single_move_does() -> None:
    # A 2 × 3 table whose rows (6 and 11 people) are released; the group is the first column (3 + 2 people).
    # Each move brings the people of one other cell into the group: one move reaches 10 at most (5 from row 2's
    # second cell), the walk every one of the 17.
    coords = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]])
    truth = np.array([3.0, 1, 2, 2, 5, 4])
    pool = moves(coords, (2, 3), [frozenset({0})], truth, rounds=6)
    group = np.array([1.0, 0, 0, 1, 0, 0])
    single = max(group @ (truth + pool[r].toarray().ravel()) for r in range(pool.shape[0]))
    walk = walks(pool, sp.csr_matrix(group), truth, np.zeros(6), np.full(6, np.inf)).toarray().ravel()
    walked = group @ (truth + walk)
    assert single == 10.0 and walked == 17.0


@pytest.mark.parametrize("source", ["walks", "nearby_points", "subtable"])
def test_a_walk_or_nearby_point_that_breaks_a_released_total_is_not_seen(source, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Walks and the small programmes' points (around the moves or in a sub-table) are checked by the region like
    # moves: one that breaks x0 + x1 = 3 must not show x0 + x1 at 0.
    a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    region = Region(
        a, np.array([3.0, 2.0]), lower=np.zeros(3), integer=np.ones(3, bool), known=np.array([1.0, 2, 2])
    )
    region.moves = sp.csr_matrix(np.array([[1.0, -1.0, 0.0]]))
    broken = sp.csr_matrix(np.array([[-1.0, -2.0, 0.0]]))
    if source == "subtable":
        region.subtable = lambda own, levels: np.arange(3)
        monkeypatch.setattr(extremes_module, "nearby_points", lambda *a, **k: sp.csr_matrix((1, 3)))
        monkeypatch.setattr(extremes_module, "nearby_pairs", lambda *a, **k: (broken, broken))
    else:
        monkeypatch.setattr(extremes_module, source, lambda *a, **k: broken)
    ends = region.extremes(sp.csr_matrix(np.array([[1.0, 1.0, 0.0]])))
    assert ends.lo.tolist() == [3.0] and ends.hi.tolist() == [3.0]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_the_moves_touching_a_total_are_those_with_an_entry_on_its_unknowns_in_order(seed: int) -> None:
    # By hand over dense arrays: a move is kept when one of its non-zero entries lies on an unknown some total holds.
    rng = np.random.default_rng(seed)
    n, p, k = int(rng.integers(1, 12)), int(rng.integers(0, 15)), int(rng.integers(1, 4))
    dense = np.where(rng.random((p, n)) < 0.3, rng.integers(-3, 4, (p, n)), 0).astype(float)
    totals = (rng.random((k, n)) < 0.3).astype(float)
    kept = [row for row in dense if any(row[j] != 0 and totals[:, j].any() for j in range(n))]
    got = touching(sp.csr_matrix(dense), sp.csr_matrix(totals)).toarray()
    assert got.shape == (len(kept), n) and np.array_equal(got, np.array(kept).reshape(len(kept), n))
