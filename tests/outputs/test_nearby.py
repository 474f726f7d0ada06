"""Points next to the truth from small programmes (issue 36): each one solves the whole released system, reaches no
further than the whole system's optimum (scipy's linprog over every unknown, an independent solver), whether the
unknowns around a total come from the moves through it or from a sub-table of the cube around it; a sub-table that is
the whole cube reaches that optimum. One that breaks a released total is refused by the region before it counts:
tests/outputs/test_targeted_moves.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from outputs_helpers import released_cube
from privrisk.outputs.moves import moves
from privrisk.outputs.nearby import nearby_pairs, nearby_points, subtables


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000), st.booleans(), st.sampled_from([None, 1, 2]))
def test_nearby_points_solve_the_system_and_never_pass_its_optimum(seed: int, whole: bool, levels: int | None) -> None:
    cube = np.random.default_rng(seed)
    coords, sizes, held, a = released_cube(cube)
    truth = cube.integers(0, 6, coords.shape[0]).astype(float)
    rng = np.random.default_rng(seed + 1)
    if not whole:
        truth = truth * rng.uniform(0.5, 2.0, truth.size)  # sums of a magnitude: real
    n = truth.size
    pool = moves(coords, sizes, held, truth, whole=whole, seed=seed)
    groups = (rng.random((4, n)) < 0.3).astype(float)
    groups[groups.sum(axis=1) == 0, 0] = 1.0
    g = np.vstack([groups, -groups])
    around = subtables(coords, sizes, np.ones(len(sizes), bool), [(0, truth)])
    d = nearby_points(
        sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.full(n, whole), sp.csr_matrix(g), pool,
        neighbourhood=None if levels is None else (lambda own: around(own, levels)),
    )  # fmt: skip
    assert d.shape == (g.shape[0], n)
    for i in range(g.shape[0]):
        point = truth + d[i].toarray().ravel()
        assert np.all(point >= -1e-9)
        assert np.allclose(a @ point, a @ truth, atol=1e-6)
        if whole:
            assert np.array_equal(point, np.round(point))
        best = linprog(-g[i], A_eq=a, b_eq=a @ truth, bounds=[(0, None)] * n, method="highs")
        if best.status == 0:
            assert g[i] @ point <= -best.fun + 1e-6


def test_a_group_takes_what_its_neighbours_give() -> None:
    # Rows released of a 2 × 3 table; the group is the first column. Every person may move into it: 17.
    coords = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]])
    truth = np.array([3.0, 1, 2, 2, 5, 4])
    a = np.array([[1.0, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1]])
    pool = moves(coords, (2, 3), [frozenset({0})], truth, rounds=6)
    g = np.array([[1.0, 0, 0, 1, 0, 0]])
    d = nearby_points(
        sp.csr_matrix(a), truth, np.zeros(6), np.full(6, np.inf), np.ones(6, bool), sp.csr_matrix(g), pool
    )
    assert (g @ (truth + d.toarray()[0]))[0] == 17.0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000))
def test_a_subtable_that_is_the_whole_cube_reaches_the_optimum(seed: int) -> None:
    cube = np.random.default_rng(seed)
    coords, sizes, _, a = released_cube(cube)
    rng = np.random.default_rng(seed + 1)
    truth = rng.integers(0, 6, coords.shape[0]) * rng.uniform(0.5, 2.0, coords.shape[0])  # real sums
    n = truth.size
    around = subtables(coords, sizes, np.ones(len(sizes), bool), [(0, truth)])
    atom = int(rng.integers(0, n))
    assert around(np.array([atom]), max(sizes)).tolist() == list(range(n))
    g = np.zeros((2, n))
    g[0, atom], g[1, atom] = 1.0, -1.0
    d = nearby_points(
        sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.zeros(n, bool), sp.csr_matrix(g),
        sp.csr_matrix((0, n)), neighbourhood=lambda own: around(own, max(sizes)), support=n,
    )  # fmt: skip
    for i in range(2):
        best = linprog(-g[i], A_eq=a, b_eq=a @ truth, bounds=[(0, None)] * n, method="highs")
        if best.status != 0:
            continue  # unbounded: no optimum to reach
        reached = g[i] @ (truth + d[i].toarray().ravel())
        assert abs(reached - (-best.fun)) <= 1e-6 * max(1.0, abs(best.fun))


def test_subtables_keep_the_own_levels_and_add_the_fullest() -> None:
    # Atoms of a 3 × 2 cube and a condition (2 levels, not varied); the mass sits on level 2 of the first axis.
    coords = np.array([[i, j, c] for i in range(3) for j in range(2) for c in range(2)])
    mass = np.where(coords[:, 0] == 2, 10.0, 1.0)
    around = subtables(coords, (3, 2, 2), np.array([True, True, False]), [(0, mass), (12, mass)])
    got = around(np.array([0, 12 + 3]), 1)  # atom 0 = (0, 0, 0) as a count, atom 3 = (0, 1, 1) as a sum
    counts = [tuple(coords[j]) for j in got[got < 12]]
    sums = [tuple(coords[j - 12]) for j in got[got >= 12]]
    assert counts == [(0, 0, 0), (2, 0, 0)]  # own level 0 and the fullest, 2; axis 2 stays at its own level
    assert sums == [(0, 0, 1), (0, 1, 1), (2, 0, 1), (2, 1, 1)]


def _cube_around(seed: int, whole: bool, shift: int) -> tuple[np.ndarray, np.ndarray, Any, np.random.Generator]:
    """A released cube's equations, a truth (whole or real) and its sub-tables, and the generator for the rest."""
    coords, sizes, _, a = released_cube(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + shift)
    truth = rng.integers(0, 6, coords.shape[0]).astype(float)
    if not whole:
        truth = truth * rng.uniform(0.5, 2.0, truth.size)
    return a, truth, subtables(coords, sizes, np.ones(len(sizes), bool), [(0, truth)]), rng


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.booleans())
def test_both_ends_from_one_subtable_programme_reach_each_optimum(seed: int, whole: bool) -> None:
    # nearby_pairs lowers a total, then raises it from that optimum, in one programme started from the truth:
    # each point solves the system, and over the whole cube each reaches its own optimum (scipy's linprog).
    a, truth, around, rng = _cube_around(seed, whole, 1)
    n = truth.size
    g = (rng.random((3, n)) < 0.3).astype(float)
    g[g.sum(axis=1) == 0, 0] = 1.0
    up_wanted, down_wanted = rng.random(3) < 0.7, rng.random(3) < 0.7
    up, down = nearby_pairs(
        sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.full(n, whole), sp.csr_matrix(g),
        sp.csr_matrix((0, n)), up_wanted, down_wanted, neighbourhood=lambda own: around(own, n), support=n,
    )  # fmt: skip
    for i in range(3):
        for d, sign, wanted in ((up, -1.0, up_wanted[i]), (down, 1.0, down_wanted[i])):
            point = truth + d[i].toarray().ravel()
            assert np.all(point >= -1e-9) and np.allclose(a @ point, a @ truth, atol=1e-6)
            if not wanted:
                assert d[i].nnz == 0
                continue
            best = linprog(sign * g[i], A_eq=a, b_eq=a @ truth, bounds=[(0, None)] * n, method="highs")
            if best.status != 0 or (whole and d[i].nnz == 0):
                continue  # unbounded, or a fractional optimum (not a whole point)
            reached = g[i] @ point
            assert abs(reached - sign * best.fun) <= 1e-6 * max(1.0, abs(best.fun))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 100_000), st.booleans())
def test_small_programmes_in_threads_give_the_points_of_one_thread(seed: int, whole: bool) -> None:
    """The programmes around each total run side by side (``solver.side_by_side``): the points are the same, to
    the bit, as one after another."""
    import threading

    import privrisk.outputs.nearby as nearby
    import privrisk.solver as solver

    cube = np.random.default_rng(seed)
    coords, sizes, held, a = released_cube(cube)
    truth = cube.integers(0, 6, coords.shape[0]).astype(float)
    if not whole:
        truth = truth * np.random.default_rng(seed + 1).uniform(0.5, 2.0, truth.size)
    n = truth.size
    pool = moves(coords, sizes, held, truth, whole=whole, seed=seed)
    g = sp.csr_matrix((np.random.default_rng(seed + 2).random((40, n)) < 0.2).astype(float))
    around = subtables(coords, sizes, np.ones(len(sizes), bool), [(0, truth)])
    both = np.ones(40, bool)
    found = {}
    names: set[str] = set()
    original = nearby.side_by_side

    def counted(work, items):  # type: ignore[no-untyped-def]
        def named(item):  # type: ignore[no-untyped-def]
            names.add(threading.current_thread().name)
            return work(item)

        return original(named, items)

    for least in (10**9, 1):
        old = solver.SIDE_BY_SIDE_LEAST, solver._cores, nearby.SIDE_BY_SIDE_UNKNOWNS, nearby.side_by_side
        solver.SIDE_BY_SIDE_LEAST, solver._cores, nearby.SIDE_BY_SIDE_UNKNOWNS = least, lambda: 2, 0
        nearby.side_by_side = counted  # type: ignore[assignment]
        try:
            found[least] = [
                nearby_pairs(sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.full(n, whole), g, pool,
                             both, both, neighbourhood=nb)
                for nb in (None, lambda own: around(own, 1))
            ]  # fmt: skip
        finally:
            solver.SIDE_BY_SIDE_LEAST, solver._cores, nearby.SIDE_BY_SIDE_UNKNOWNS, nearby.side_by_side = old
    assert any(name.startswith("privrisk-programme") for name in names)  # they did run side by side
    for one, side in zip(found[10**9], found[1], strict=True):
        for x, y in zip(one, side, strict=True):
            assert x.shape == y.shape and (x != y).nnz == 0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000), st.booleans())
def test_totals_around_one_subtable_share_its_programme_and_reach_what_their_own_would(
    seed: int, whole: bool
) -> None:
    # Totals whose sub-tables are the same share one programme, each started from the vertex next to the truth:
    # each reaches what a programme of its own (the total asked alone) reaches.
    a, truth, around, rng = _cube_around(seed, whole, 3)
    n = truth.size
    g = sp.csr_matrix((rng.random((6, n)) < 0.3).astype(float))
    both = np.ones(6, bool)

    def pairs(rows: sp.csr_matrix, up: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        return nearby_pairs(sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.full(n, whole), rows,
                            sp.csr_matrix((0, n)), up, up, neighbourhood=lambda own: around(own, 1))  # fmt: skip

    together = pairs(g, both)
    for i in range(6):
        alone = pairs(sp.csr_matrix(g[i]), np.ones(1, bool))
        for shared, own in zip(together, alone, strict=True):
            got, want = truth + shared[i].toarray().ravel(), truth + own[0].toarray().ravel()
            assert g[i] @ got == pytest.approx(g[i] @ want, abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 2))
def test_a_subtable_programme_reaches_the_optimum_with_the_rest_held(seed: int, levels: int) -> None:
    # Cut to a sub-table, many equations become the same row; each is kept once. Whatever is dropped, the point
    # reached is the optimum over the sub-table's unknowns with the rest held at the truth (scipy's linprog over
    # every row, repeated ones included).
    a, truth, around, rng = _cube_around(seed, False, 2)
    n = truth.size
    atom = int(rng.integers(0, n))
    s = np.union1d([atom], around(np.array([atom]), levels))
    g = np.zeros((1, n))
    g[0, atom] = 1.0
    up, down = nearby_pairs(
        sp.csr_matrix(a), truth, np.zeros(n), np.full(n, np.inf), np.zeros(n, bool), sp.csr_matrix(g),
        sp.csr_matrix((0, n)), np.ones(1, bool), np.ones(1, bool), neighbourhood=lambda own: s, support=n,
    )  # fmt: skip
    rest = np.setdiff1d(np.arange(n), s)
    a_s, rhs = a[:, s], a @ truth - a[:, rest] @ truth[rest]
    for d, sign in ((up, -1.0), (down, 1.0)):
        point = truth + d[0].toarray().ravel()
        assert np.allclose(point[rest], truth[rest]) and np.allclose(a @ point, a @ truth, atol=1e-6)
        best = linprog(sign * (s == atom).astype(float), A_eq=a_s, b_eq=rhs, bounds=[(0, None)] * s.size,
                       method="highs")  # fmt: skip
        if best.status != 0:
            continue
        assert abs(point[atom] - sign * best.fun) <= 1e-6 * max(1.0, abs(best.fun))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 100_000))
def test_each_row_is_kept_once_in_the_order_first_met(seed: int) -> None:
    from privrisk.outputs.nearby import _distinct_rows

    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 30)), int(rng.integers(1, 8))
    base = (rng.random((m, n)) < 0.4) * rng.integers(1, 3, (m, n)).astype(float)
    rows = base[rng.integers(0, m, 2 * m)]
    expected: list[tuple[float, ...]] = []
    for r in map(tuple, rows):  # by hand: the first of each, empty rows left out
        if any(r) and r not in expected:
            expected.append(r)
    assert [tuple(r) for r in _distinct_rows(sp.csr_matrix(rows)).toarray()] == expected
