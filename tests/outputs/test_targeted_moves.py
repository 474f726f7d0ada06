"""Moves around given atoms (issue 36): whole solutions next to the truth that keep every released total, found
without a solver. Checked by recomputing every released table's totals from scratch, and a move that breaks a
total or a bound is refused by the region before it counts as a point seen (never a wrong 'not disclosed')."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.outputs.intervals import Region
from privrisk.outputs.moves import moves_through


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
