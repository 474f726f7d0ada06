"""Whole solutions met by one programme are read for every later total of the same Region (``Region.found``), and
checked again in a Region whose bounds differ (the differencing's second Region holds the sums of empty atoms at 0);
whole tables from the root of each block's integer programme settle many ends at once (``Region.whole_points``).
Checked against every whole solution enumerated by a depth-first search (``outputs_helpers.whole_solutions``)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk.outputs.extremes as extremes_module
from outputs_helpers import sparse_release, whole_solutions
from privrisk.outputs.findings import zero_atoms
from privrisk.outputs.intervals import Region

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")

# x0 + x1 = 1, x2 + x3 = 1, x0 + x2 = 1: x1 = x2 = 1 − x0 and x3 = x0; whole and at least 0, so x0 is 0 or 1.
A = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]]))
B = np.array([1.0, 1, 1])
TRUTH = np.array([1.0, 0, 0, 1])


def _no_programmes(*_args, **_kwargs):
    raise AssertionError("a programme ran where a solution met earlier settles the total")


def test_a_table_that_filled_empty_atoms_settles_a_later_total_without_a_programme(monkeypatch) -> None:
    region = Region(A, B, lower=np.zeros(4), integer=np.ones(4, bool), known=TRUTH)
    zero, unsure = zero_atoms(region, TRUTH)
    assert not zero.any() and not unsure.any()  # x1 and x2 filled by (0, 1, 1, 0)
    assert region.found is not None and region.found.shape[0] >= 1
    monkeypatch.setattr(Region, "optimise", _no_programmes)
    ends = region.extremes(sp.csr_matrix(np.array([[0.0, 1, 1, 0]])))  # x1 + x2 lies in [0, 2]
    assert (ends.lo.tolist(), ends.hi.tolist()) == ([0.0], [2.0])
    assert ends.lo_exact.all() and ends.hi_exact.all() and not ends.undecided.any()


@pytest.mark.parametrize("kept_out", [1, 2])
def test_a_table_met_in_another_region_is_checked_against_this_ones_bounds(kept_out: int) -> None:
    first = Region(A, B, lower=np.zeros(4), integer=np.ones(4, bool), known=TRUTH)
    zero_atoms(first, TRUTH)
    upper = np.full(4, np.inf)
    upper[kept_out] = 0.0  # here x1 (or x2) must be 0, so x0 = 1 and x1 + x2 = 0: the table met before is not one
    second = Region(A, B, lower=np.zeros(4), upper=upper, integer=np.ones(4, bool), known=TRUTH)
    second.found = first.found
    ends = second.extremes(sp.csr_matrix(np.array([[0.0, 1, 1, 0]])))
    assert (ends.lo.tolist(), ends.hi.tolist()) == ([0.0], [0.0])


def _enumerated(seed: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A sparse release of up to 7 people (its generator, cells, counts, truth) and every whole solution of it."""
    rng = np.random.default_rng(seed)
    a, b, truth = sparse_release(rng, people=7)
    return rng, a, b, truth, np.array(whole_solutions(a, b, np.arange(a.shape[1])))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_whole_tables_at_the_roots_settle_ends_only_where_a_whole_solution_reaches_them(seed: int) -> None:
    # No programme per end decides anything here (each returns "undecided"), so every exact end comes from the
    # moves, the linear rounds or the whole tables; each must be the enumerated extreme, and no end narrower.
    rng, a, b, truth, every = _enumerated(seed)
    n = a.shape[1]
    g = sp.csr_matrix((rng.random((5, n)) < 0.4).astype(float))
    region = Region(sp.csr_matrix(a), b, lower=np.zeros(n), integer=np.ones(n, bool), known=truth)
    real = Region.optimise

    def batch_only(self, idx, val, sign, **kwargs):
        if "cap" in kwargs:
            return real(self, idx, val, sign, **kwargs)
        return float("nan"), False, False, [], set()

    Region.optimise = batch_only  # type: ignore[method-assign]
    try:
        ends = region.extremes(g)
    finally:
        Region.optimise = real  # type: ignore[method-assign]
    values = g @ every.T
    low, high = values.min(axis=1), values.max(axis=1)
    assert np.all(ends.lo <= low + 1e-9) and np.all(ends.hi >= high - 1e-9)
    assert np.all(ends.lo[ends.lo_exact] == low[ends.lo_exact])
    assert np.all(ends.hi[ends.hi_exact] == high[ends.hi_exact])


def _exact_ends_without_programmes_per_end(monkeypatch, whole_rounds: int) -> int:
    real = Region.optimise

    def batch_only(self, idx, val, sign, **kwargs):
        if "cap" in kwargs:
            return real(self, idx, val, sign, **kwargs)
        return float("nan"), False, False, [], set()

    monkeypatch.setattr(Region, "optimise", batch_only)
    monkeypatch.setattr(extremes_module, "WHOLE_ROUNDS", whole_rounds)
    exact = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a, b, truth = sparse_release(rng, people=7)
        n = a.shape[1]
        region = Region(sp.csr_matrix(a), b, lower=np.zeros(n), integer=np.ones(n, bool), known=truth)
        region.moves = None
        ends = region.extremes(sp.csr_matrix((rng.random((5, n)) < 0.4).astype(float)))
        exact += int(ends.lo_exact.sum() + ends.hi_exact.sum())
    monkeypatch.undo()
    return exact


def test_whole_tables_settle_ends_the_linear_rounds_leave(monkeypatch) -> None:
    assert _exact_ends_without_programmes_per_end(monkeypatch, 8) > _exact_ends_without_programmes_per_end(
        monkeypatch, 0
    )


# x0 + x1 + s0 = 1, x1 + x2 + s1 = 1, x0 + x2 + s2 = 1 (an odd cycle): the linear maximum of x0 + x1 + x2 is 1.5
# (each x at ½), the whole one 1; the truth (every x at 0) does not reach it, (1, 0, 0, 0, 1, 0) does.
CYCLE = sp.csr_matrix(np.array([[1.0, 1, 0, 1, 0, 0], [0, 1, 1, 0, 1, 0], [1, 0, 1, 0, 0, 1]]))
CYCLE_TRUTH = np.array([0.0, 0, 0, 1, 1, 1])


def _no_integer_programme(real):
    def program(self, k, mip=False):
        if mip:
            raise AssertionError("an integer programme ran where a solution met earlier meets the linear bound")
        return real(self, k, mip=mip)

    return program


def test_a_solution_met_earlier_at_the_rounded_linear_bound_proves_the_end_without_an_integer_programme(
    monkeypatch,
) -> None:
    region = Region(CYCLE, np.ones(3), lower=np.zeros(6), integer=np.ones(6, bool), known=CYCLE_TRUTH)
    monkeypatch.setattr(Region, "_program", _no_integer_programme(Region._program))
    value, exact, decided, _, _ = region.optimise(np.arange(3), np.ones(3), -1.0, met=1.0)
    assert (value, exact, decided) == (1.0, True, True)
    with pytest.raises(AssertionError, match="integer programme ran"):  # what it saves: the programme is needed
        region.optimise(np.arange(3), np.ones(3), -1.0)


def test_a_value_met_below_the_rounded_linear_bound_leaves_the_proof_to_the_integer_programme() -> None:
    region = Region(CYCLE, np.ones(3), lower=np.zeros(6), integer=np.ones(6, bool), known=CYCLE_TRUTH)
    value, exact, decided, _, _ = region.optimise(np.arange(3), np.ones(3), -1.0, met=0.0)
    assert (value, exact, decided) == (1.0, True, True)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000))
def test_every_value_met_earlier_gives_the_enumerated_extreme(seed: int) -> None:
    rng, a, b, truth, every = _enumerated(seed)
    n = a.shape[1]
    idx = np.flatnonzero(rng.random(n) < 0.4)
    if not idx.size:
        return
    values = every[:, idx].sum(axis=1)
    for sign, best in ((1.0, values.min()), (-1.0, values.max())):
        for met in np.unique(values).tolist():
            region = Region(sp.csr_matrix(a), b, lower=np.zeros(n), integer=np.ones(n, bool), known=truth)
            value, exact, decided, _, _ = region.optimise(idx, np.ones(idx.size), sign, met=met)
            assert decided and exact and value == best, (sign, met, value, best)


def _kept(region: Region, points: np.ndarray) -> None:
    """Keep ``points`` (whole solutions) as the Region's found tables, as the Region itself would."""
    assert region.known is not None
    region.found = region._found_ok = sp.csr_matrix(points - region.known)


def test_a_kept_table_reaching_the_rounded_linear_bound_proves_the_end_without_an_integer_programme(
    monkeypatch,
) -> None:
    region = Region(CYCLE, np.ones(3), lower=np.zeros(6), integer=np.ones(6, bool), known=CYCLE_TRUTH)
    _kept(region, np.array([[1.0, 0, 0, 0, 1, 0]]))
    monkeypatch.setattr(Region, "_program", _no_integer_programme(Region._program))
    assert region.optimise(np.arange(3), np.ones(3), -1.0)[:3] == (1.0, True, True)


def test_kept_tables_reach_each_block_apart() -> None:
    # Two cycles, two blocks; each kept table moves one of them: none reaches 2 over both, their parts together do.
    a = sp.block_diag([CYCLE, CYCLE], format="csr")
    truth = np.concatenate([CYCLE_TRUTH, CYCLE_TRUTH])
    region = Region(a, np.ones(6), lower=np.zeros(12), integer=np.ones(12, bool), known=truth)
    first, second = truth.copy(), truth.copy()
    first[[0, 3, 5]] = [1, 0, 0]
    second[[7, 9, 10]] = [1, 0, 0]
    _kept(region, np.array([first, second]))
    calls = []
    real = Region._program
    region._program = lambda k, mip=False: calls.append(mip) or real(region, k, mip=mip)  # type: ignore[method-assign]
    value, exact, decided, _, _ = region.optimise(np.array([0, 1, 2, 6, 7, 8]), np.ones(6), -1.0)
    assert (value, exact, decided) == (2.0, True, True) and True not in calls


def test_a_kept_table_not_yet_checked_against_this_region_is_not_read(monkeypatch) -> None:
    region = Region(CYCLE, np.ones(3), lower=np.zeros(6), integer=np.ones(6, bool), known=CYCLE_TRUTH)
    region.found = sp.csr_matrix(np.array([[1.0, 0, 0, -1, 0, -1]]))  # as the differencing's second Region gets it
    monkeypatch.setattr(Region, "_program", _no_integer_programme(Region._program))
    with pytest.raises(AssertionError, match="integer programme ran"):
        region.optimise(np.arange(3), np.ones(3), -1.0)


# K4's edges, "at most one of the two ends" with a slack each: the linear maximum of x0 + … + x3 is 2 (each at ½),
# the whole one 1; a gap the rounding does not close.
K4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def _packing(edges: list[tuple[int, int]], n: int) -> sp.csr_matrix:
    rows = np.zeros((len(edges), n))
    for i, (u, v) in enumerate(edges):
        rows[i, [u, v]] = 1.0
    return sp.csr_matrix(np.hstack([rows, np.eye(len(edges))]))


def test_a_kept_table_short_of_the_rounded_linear_bound_proves_nothing() -> None:
    a = _packing(K4, 4)
    truth = np.concatenate([np.zeros(4), np.ones(6)])
    region = Region(a, np.ones(6), lower=np.zeros(10), integer=np.ones(10, bool), known=truth)
    point = truth.copy()
    point[[0, 4, 5, 6]] = [1, 0, 0, 0]  # x0 = 1: the edges through 0 use it
    _kept(region, point[None, :])
    assert region.optimise(np.arange(4), np.ones(4), -1.0)[:3] == (1.0, True, True)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 100_000))
def test_kept_tables_give_the_enumerated_extremes_of_packings(seed: int) -> None:
    # A random graph's edges as packings: their linear optima are fractional (odd cycles, cliques), unlike a cube's.
    rng = np.random.default_rng(seed)
    n = 5
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    edges = [pairs[i] for i in rng.choice(len(pairs), size=int(rng.integers(4, 9)), replace=False)]
    a = _packing(edges, n)
    m = len(edges)
    b = np.ones(m)
    cover = np.flatnonzero(np.asarray(a[:, :n].sum(axis=0)).ravel() > 0)
    cols = np.concatenate([cover, n + np.arange(m)])
    every = np.array(whole_solutions(a.toarray(), b, cols), dtype=float)
    truth = every[rng.integers(len(every))]
    upper = np.full(n + m, np.inf)
    upper[np.setdiff1d(np.arange(n), cover)] = 0.0  # a vertex on no edge: held at 0
    region = Region(a, b, lower=np.zeros(n + m), upper=upper, integer=np.ones(n + m, bool), known=truth)
    kept = every[rng.random(len(every)) < 0.5]
    if len(kept):
        _kept(region, kept)
    idx = cover[rng.random(cover.size) < 0.7]
    if not idx.size:
        return
    values = every[:, idx].sum(axis=1)
    for sign, best in ((1.0, values.min()), (-1.0, values.max())):
        value, exact, decided, _, _ = region.optimise(idx, np.ones(idx.size), sign)
        assert decided and exact and value == best, (sign, value, best)
