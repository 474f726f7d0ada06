"""Many totals taken to their targets by one integer programme, and the proof that the rest cannot get there
(:mod:`privrisk.outputs.reach`): which empty atoms a sparse release determines, checked against every whole
solution enumerated here (a depth-first search sharing no code with the solver's)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import privrisk.outputs.extremes as extremes_module
from outputs_helpers import sparse_release, whole_solutions
from privrisk.outputs.findings import zero_atoms
from privrisk.outputs.intervals import MIP_ROWS, Region
from privrisk.outputs.reach import reach

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")


def _sparse_release(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random cube of 2–3 dimensions, a few people in it (most atoms empty), some of its tables released."""
    return sparse_release(np.random.default_rng(seed))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_the_empty_atoms_a_release_determines_are_those_no_whole_solution_fills(seed: int) -> None:
    a, b, truth = _sparse_release(seed)
    every = np.array(whole_solutions(a, b, np.arange(a.shape[1])))
    region = Region(
        sp.csr_matrix(a), b, lower=np.zeros(a.shape[1]), integer=np.ones(a.shape[1], bool), known=truth
    )
    region.moves = None  # no moves: what the programmes find alone
    zero, unsure = zero_atoms(region, truth)
    assert not unsure.any()
    assert zero.tolist() == (every.max(axis=0) == 0).tolist()


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 100_000), st.integers(0, 3), st.booleans())
def test_each_total_is_reached_by_a_whole_solution_or_proven_out_of_reach(
    seed: int, target: int, low: bool
) -> None:
    a, b, truth = _sparse_release(seed)
    n = a.shape[1]
    every = np.array(whole_solutions(a, b, np.arange(n)))
    region = Region(sp.csr_matrix(a), b, lower=np.zeros(n), integer=np.ones(n, bool), known=truth)
    rng = np.random.default_rng(seed)
    # Totals of one to three atoms each; upper targets of 0 are not asked.
    g = sp.csr_matrix(
        np.array([np.isin(np.arange(n), rng.choice(n, int(rng.integers(1, 4)), replace=False)) for _ in range(6)],
                 dtype=float)
    )  # fmt: skip
    targets = np.full(6, float(target))
    points, never = reach(region, g, np.arange(6), targets, mip_rows=MIP_ROWS, low=low)
    values = g @ every.T
    possible = values.min(axis=1) <= targets if low else values.max(axis=1) >= targets
    assert not np.any(never & possible), "a total some whole solution takes to its target was ruled out"
    reached = np.zeros(6, dtype=bool)
    for parts in points:
        point = truth.copy()
        for k, x in parts:
            point[region.block_cols(k)] = x
        assert np.array_equal(a @ point, b) and np.all(point >= 0) and np.array_equal(point, np.round(point))
        reached |= (g @ point <= targets) if low else (g @ point >= targets)
    asked = np.array([low or target > 0] * 6) & np.array(
        [all(int(k) in region._rows for k in region.col_block[g[i].indices]) for i in range(6)]
    )
    # Every total asked is settled one way or the other, and the right way.
    assert np.all(reached | never | ~asked)
    assert np.array_equal(never & asked, ~possible & asked)


def test_the_programme_decides_empty_atoms_both_ways_with_no_moves_to_help(monkeypatch) -> None:
    # Over random sparse releases, the rounds both reach atoms and prove others empty (not all settled before
    # them), and every answer agrees with the enumeration.
    said = {"reached": 0, "never": 0}
    real = extremes_module.reach

    def counted(region, g, rows, targets, *, mip_rows, low=False):
        points, never = real(region, g, rows, targets, mip_rows=mip_rows, low=low)
        said["reached"] += len(points)
        said["never"] += int(never.sum())
        return points, never

    monkeypatch.setattr(extremes_module, "reach", counted)
    monkeypatch.setattr(extremes_module, "SUBTABLE_LEVELS", ())
    for seed in range(40):
        a, b, truth = _sparse_release(seed)
        every = np.array(whole_solutions(a, b, np.arange(a.shape[1])))
        region = Region(sp.csr_matrix(a), b, lower=np.zeros(a.shape[1]), integer=np.ones(a.shape[1], bool),
                        known=truth)  # fmt: skip
        zero, unsure = zero_atoms(region, truth)
        assert not unsure.any()
        assert zero.tolist() == (every.max(axis=0) == 0).tolist()
    assert said["reached"] > 0


def test_an_atom_empty_in_whole_numbers_alone_is_proven_empty() -> None:
    # x1+x2+x3 = 2 and x1+x2+x4 = 2 make x3 = x4; with x3+x4+x5 = 1 that is 2·x3 + x5 = 1: x3 = x4 = 0 in whole
    # numbers, though no single equation says so and the linear relaxation lets x3 be 1/2.
    a = np.array([[1.0, 1, 1, 0, 0], [1, 1, 0, 1, 0], [0, 0, 1, 1, 1]])
    b = np.array([2.0, 2, 1])
    truth = np.array([1.0, 1, 0, 0, 1])
    relaxed = linprog(-np.eye(5)[2], A_eq=a, b_eq=b, bounds=[(0, None)] * 5)
    assert relaxed.status == 0 and np.isclose(-relaxed.fun, 0.5)
    region = Region(sp.csr_matrix(a), b, lower=np.zeros(5), integer=np.ones(5, bool), known=truth)
    assert region.hi[2] >= 1  # not settled by the equations one at a time
    g = sp.csr_matrix(np.eye(5)[[2, 3]])
    points, never = reach(region, g, np.arange(2), np.ones(2), mip_rows=MIP_ROWS)
    assert points == [] and never.tolist() == [True, True]
    zero, unsure = zero_atoms(region, truth)
    assert zero.tolist() == [False, False, True, True, False] and not unsure.any()


def test_a_quick_round_that_reaches_nothing_is_asked_again_with_the_nodes_a_proof_needs(monkeypatch) -> None:
    # Rounds stop after the root node (reach.QUICK_NODES) while they still reach totals. Here every quick round
    # ends as a limit would leave it, with no point, so every answer comes from a round asked again with
    # reach.NODES; the answers must still agree with the enumeration, both ways.
    import privrisk.outputs.reach as reach_module
    from privrisk.solver import Solution

    monkeypatch.setattr(reach_module, "QUICK_NODES", 7)
    asked_nodes: list[int] = []
    real = reach_module.Program.maximise

    def counted(self, idx, val, **limits):
        asked_nodes.append(int(limits.get("nodes") or 0))
        if limits.get("nodes") == 7:
            return Solution("timeout", float("nan"))
        return real(self, idx, val, **limits)

    monkeypatch.setattr(reach_module.Program, "maximise", counted)
    proven = 0
    for seed in range(30):
        a, b, truth = _sparse_release(seed)
        every = np.array(whole_solutions(a, b, np.arange(a.shape[1])))
        region = Region(sp.csr_matrix(a), b, lower=np.zeros(a.shape[1]), integer=np.ones(a.shape[1], bool),
                        known=truth)  # fmt: skip
        n = a.shape[1]
        g = sp.identity(n, format="csr")
        points, never = reach(region, g, np.arange(n), np.ones(n), mip_rows=MIP_ROWS)
        can = every.max(axis=0) >= 1
        assert not np.any(never & can)
        reached = np.zeros(n, dtype=bool)
        for parts in points:
            point = truth.copy()
            for k, x in parts:
                point[region.block_cols(k)] = x
            assert np.array_equal(a @ point, b) and np.all(point >= 0)
            reached |= point >= 1
        in_blocks = np.array([int(k) in region._rows for k in region.col_block])
        assert np.all(reached | never | ~in_blocks)
        proven += int(never.sum())
    assert reach_module.NODES in asked_nodes and proven > 0
