"""Moves are checked against every released equation before their totals count (``extremes._valid``): a move of
whole steps of counts is read off the equations taken apart, which must keep exactly the moves the released rows
keep. The answer here is a dense product with the released rows, sharing no code with the check."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from outputs_helpers import released_cube
from privrisk.outputs.extremes import _valid
from privrisk.outputs.intervals import Region


def _layered(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """A released cube in two layers (everyone, and the second layer alone: nested totals the Region takes apart),
    a mean's equation over the first layer's counts (not taken apart), a truth, and the cube's sub-boxes."""
    rng = np.random.default_rng(seed)
    coords, sizes, _, cube = released_cube(rng)
    n = coords.shape[0]
    zero = np.zeros_like(cube)
    a = np.vstack([np.hstack([cube, cube]), np.hstack([zero, cube])])
    mean = np.zeros((1, 2 * n))
    mean[0, :n] = 0.37  # sum − mean × count over the first layer, with the sums left out
    a = np.vstack([a, mean])
    truth = rng.integers(0, 3, 2 * n).astype(float)
    corners = [tuple(int(np.ravel_multi_index(tuple(c), sizes)) for c in itertools.product(*[(0, 1)] * len(sizes)))]
    return a, truth, coords, corners


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_whole_moves_are_kept_exactly_when_every_released_total_stays(seed: int) -> None:
    a, truth, coords, corners = _layered(seed)
    rng = np.random.default_rng(seed + 7)
    n2 = truth.size
    region = Region(sp.csr_matrix(a), a @ truth, lower=np.zeros(n2), integer=np.ones(n2, bool), known=truth)
    moves = []
    for _ in range(12):
        d = np.zeros(n2)
        if rng.random() < 0.5:  # the alternating move over the first sub-box, in one layer: keeps every margin
            layer = int(rng.integers(0, 2)) * (n2 // 2)
            signs = [(-1) ** int(sum(c)) for c in itertools.product(*[(0, 1)] * coords.shape[1])]
            for j, s in zip(corners[0], signs, strict=True):
                d[layer + j] = s
            d *= int(rng.choice([-2, -1, 1, 2]))
        else:  # a few unknowns changed at random: mostly not a solution
            at = rng.choice(n2, size=int(rng.integers(1, 4)), replace=False)
            d[at] = rng.integers(-2, 3, at.size)
        if rng.random() < 0.2:
            d[int(rng.integers(0, n2))] += 0.5  # not whole
        moves.append(d)
    m = np.array(moves)
    kept = _valid(region, sp.csr_matrix(m)).toarray()
    expected = [
        d for d in m
        if np.all(np.abs(a @ d) <= 1e-9) and np.all(truth + d >= 0) and np.all(d == np.round(d))
    ]  # fmt: skip
    assert sorted(map(tuple, kept)) == sorted(map(tuple, expected))
