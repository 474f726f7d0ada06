"""Atoms' intervals: exact against enumeration, unchanged by the reduction of nested totals, decided within
deterministic budgets, and the same on every run."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privrisk.outputs.intervals as iv
from outputs_helpers import enumerated_bounds
from privrisk.errors import PrivriskError
from privrisk.outputs.reduction import reduce as _reduce
from privrisk.outputs.unknown_intervals import intervals


def _nested_rows(n: int, draw_rows: list[list[bool]], nest: list[int]) -> np.ndarray:
    """Random 0/1 rows plus, for some of them, a row holding it and more (released totals that nest)."""
    rows = [np.array(r[:n], dtype=int) for r in draw_rows]
    for k, extra in enumerate(nest):
        base = rows[k % len(rows)].copy()
        base[extra % n] = 1
        rows.append(base)
    a = np.array(rows)
    return a[a.sum(axis=1) > 0]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.lists(st.integers(0, 3), min_size=3, max_size=6),
    rows=st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=1, max_size=4),
    nest=st.lists(st.integers(0, 5), max_size=3),
)
def test_every_interval_equals_enumeration(cells: list[int], rows: list[list[bool]], nest: list[int]) -> None:
    # Released totals over random (and nested) sets of atoms; each atom's interval must be the enumeration's
    # min and max over whole non-negative vectors.
    n = len(cells)
    a = _nested_rows(n, rows, nest)
    if a.size == 0:
        return
    b = a @ np.array(cells)
    res = intervals(sp.csr_matrix(a), b.astype(float), integer=True, lower=np.zeros(n))
    lo, hi = enumerated_bounds(a, b)
    covered = a.sum(axis=0) > 0
    assert np.array_equal(res.lo[covered], lo[covered])
    assert np.array_equal(res.hi[covered], hi[covered])
    assert np.all(res.tight[covered])


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.integers(0, 5), min_size=3, max_size=7),
    rows=st.lists(st.lists(st.booleans(), min_size=7, max_size=7), min_size=1, max_size=5),
    nest=st.lists(st.integers(0, 6), max_size=4),
)
def test_the_reduction_keeps_every_solution(
    cells: list[int], rows: list[list[bool]], nest: list[int]
) -> None:
    # A' = T·A, b' = T·b with T invertible: the reduced rows span the same space (equal rank, and A's rows are
    # combinations of A''s), the truth solves both, and every reduced row is a 0/1 row no other one contains.
    n = len(cells)
    a = _nested_rows(n, rows, nest)
    if a.size == 0:
        return
    truth = np.array(cells)
    b = (a @ truth).astype(float)
    r, rb, t = _reduce(sp.csr_matrix(a), b, integer=True)
    dense = r.toarray()
    assert np.array_equal(dense @ truth, rb)
    assert np.array_equal(t.toarray() @ a, dense)
    assert np.linalg.matrix_rank(dense) == np.linalg.matrix_rank(a)
    assert np.linalg.matrix_rank(np.vstack([dense, a])) == np.linalg.matrix_rank(a)
    assert set(np.unique(dense)) <= {0.0, 1.0}
    assert len({row.tobytes() for row in dense}) == dense.shape[0]


def test_nested_conditions_fall_apart_into_one_block_per_pattern() -> None:
    # Four tables of the same 8 × 8 grid of cells: everyone, adults, over-30s, over-65s (each atom is one cell
    # in one age pattern; the tables' cells hold the patterns at or above their condition), each with its row
    # and column margins. Joined by the nested totals the system is one block of 256 unknowns, above
    # full_limit; taken apart it is four blocks of 64, each solved exactly whatever ``need`` asks for.
    rng = np.random.default_rng(3)
    side, patterns = 8, 4
    truth = rng.integers(0, 4, size=(side, side, patterns))
    index = np.arange(side * side * patterns).reshape(side, side, patterns)
    rows = []
    for cond in range(patterns):
        for i in range(side):
            rows.append(index[i, :, cond:].ravel())
            rows.append(index[:, i, cond:].ravel())
    a = np.zeros((len(rows), index.size))
    for k, cols in enumerate(rows):
        a[k, cols] = 1
    x = truth.ravel().astype(float)
    b = a @ x
    exact = intervals(sp.csr_matrix(a), b, integer=True, lower=np.zeros(x.size), full_limit=10_000)
    # Taken apart, each pattern's block is within full_limit and is solved in full.
    quick = intervals(
        sp.csr_matrix(a),
        b,
        integer=True,
        lower=np.zeros(x.size),
        full_limit=100,
        known=x,
        need=lambda lo, hi, slo, shi, cols: np.ones(cols.size, dtype=bool),
    )
    assert quick.undecided is not None and not quick.undecided.any()
    assert np.array_equal(quick.lo, exact.lo) and np.array_equal(quick.hi, exact.hi)
    assert quick.tight.all()
    # Fréchet's bounds per pattern: each pattern's two margins alone determine its cells' intervals.
    per = truth
    for p in range(patterns):
        r, c, total = per[:, :, p].sum(axis=1), per[:, :, p].sum(axis=0), per[:, :, p].sum()
        lo = np.maximum(0, r[:, None] + c[None, :] - total)
        hi = np.minimum(r[:, None], c[None, :])
        assert np.array_equal(exact.lo.reshape(side, side, patterns)[:, :, p], lo)
        assert np.array_equal(exact.hi.reshape(side, side, patterns)[:, :, p], hi)


def test_a_budget_that_runs_out_leaves_valid_bounds_marked_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    # With no simplex iteration to spend, nothing is solved: every interval is the propagated one (which holds
    # the enumeration's), and every end asked for is undecided, the same on every run.
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 4, size=(4, 5))
    rows = [np.ravel_multi_index((np.full(5, i), np.arange(5)), (4, 5)) for i in range(4)]
    rows += [np.ravel_multi_index((np.arange(4), np.full(4, j)), (4, 5)) for j in range(5)]
    a = np.zeros((len(rows), 20))
    for k, cols in enumerate(rows):
        a[k, cols] = 1
    x = truth.ravel().astype(float)
    b = a @ x
    monkeypatch.setattr(iv, "ITERATIONS", 0)
    runs = [
        intervals(
            sp.csr_matrix(a), b, integer=True, lower=np.zeros(20), full_limit=0, known=x,
            need=lambda lo, hi, slo, shi, cols: np.ones(cols.size, dtype=bool),
        )
        for _ in range(2)
    ]  # fmt: skip
    # A two-way table's cells from its margins: Fréchet's bounds max(0, r + c − N) … min(r, c) are exact.
    r, c, total = truth.sum(axis=1), truth.sum(axis=0), truth.sum()
    lo = np.maximum(0, r[:, None] + c[None, :] - total).ravel()
    hi = np.minimum(r[:, None], c[None, :]).ravel()
    for res in runs:
        assert np.all(res.lo <= lo) and np.all(res.hi >= hi)
        assert res.undecided is not None and np.array_equal(res.undecided, ~res.tight)
    assert np.array_equal(runs[0].lo, runs[1].lo) and np.array_equal(runs[0].undecided, runs[1].undecided)


def test_contradicting_nested_totals_are_refused() -> None:
    # Adults 5 but over-65s 7: the difference, the 18–64-year-olds, would be −2.
    a = sp.csr_matrix(np.array([[1.0, 1, 1], [0, 1, 1]]))
    with pytest.raises(PrivriskError, match=r"^outputs: the released numbers contradict"):
        intervals(a, np.array([5.0, 7.0]), integer=True, lower=np.zeros(3))
    # The same total released twice with two values.
    a = sp.csr_matrix(np.array([[1.0, 1, 1], [0, 1, 1], [0, 1, 1]]))
    with pytest.raises(PrivriskError, match=r"^outputs: the released numbers contradict"):
        intervals(a, np.array([9.0, 7.0, 6.0]), integer=True, lower=np.zeros(3))
