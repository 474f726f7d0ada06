"""Atoms' intervals: exact against enumeration, unchanged by the reduction of nested totals and by the fallback
from scipy's private HiGHS bindings to ``linprog``, and decided where the old solver ran out of time."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privrisk.outputs.intervals as iv
from outputs_helpers import enumerated_bounds
from privrisk.errors import PrivriskError
from privrisk.outputs.intervals import _reduce, intervals


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
    fallback=st.booleans(),
)
def test_every_interval_equals_enumeration(
    cells: list[int], rows: list[list[bool]], nest: list[int], fallback: bool
) -> None:
    # Released totals over random (and nested) sets of atoms; each atom's interval must be the enumeration's
    # min and max over whole non-negative vectors, through HiGHS's bindings and through linprog alike.
    n = len(cells)
    a = _nested_rows(n, rows, nest)
    if a.size == 0:
        return
    b = a @ np.array(cells)
    core = iv._highs_core
    if fallback:
        iv._highs_core = lambda: None  # type: ignore[assignment]
    try:
        res = intervals(sp.csr_matrix(a), b.astype(float), integer=True, lower=np.zeros(n))
    finally:
        iv._highs_core = core  # type: ignore[assignment]
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
    # The old solver (no reduction) left such a block to LP_BUDGET; with no time at all every end it was asked
    # for stayed open. Now each pattern's block is within full_limit and is solved in full.
    saved = iv.LP_BUDGET
    iv.LP_BUDGET = 0.0
    try:
        quick = intervals(
            sp.csr_matrix(a),
            b,
            integer=True,
            lower=np.zeros(x.size),
            full_limit=100,
            known=x,
            need=lambda lo, hi, slo, shi, cols: np.ones(cols.size, dtype=bool),
        )
    finally:
        iv.LP_BUDGET = saved
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


def test_missing_private_highs_bindings_fall_back_to_linprog(monkeypatch: pytest.MonkeyPatch) -> None:
    # A scipy without scipy.optimize._highspy (or with bindings that changed) must give the same intervals
    # through linprog, not crash.
    import builtins

    a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 1, 1]]))
    b = np.array([3.0, 2, 4, 5])
    ref = intervals(a, b, integer=True, lower=np.zeros(4))
    real_import = builtins.__import__

    def no_highspy(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("scipy.optimize._highspy"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_highspy)
    assert iv._highs_core() is None
    assert iv._Program(a, b, np.zeros(4), np.full(4, 5.0)).h is None
    res = intervals(a, b, integer=True, lower=np.zeros(4))
    assert res.lo.tolist() == ref.lo.tolist() and res.hi.tolist() == ref.hi.tolist()
    monkeypatch.setattr(builtins, "__import__", real_import)

    class Changed:  # bindings whose names moved: treated as missing
        pass

    monkeypatch.setattr(iv, "_highs_core", lambda: Changed())
    assert iv._Program(a, b, np.zeros(4), np.full(4, 5.0)).h is None
    res = intervals(a, b, integer=True, lower=np.zeros(4))
    assert res.lo.tolist() == ref.lo.tolist() and res.hi.tolist() == ref.hi.tolist()


def test_contradicting_nested_totals_are_refused() -> None:
    # Adults 5 but over-65s 7: the difference, the 18–64-year-olds, would be −2.
    a = sp.csr_matrix(np.array([[1.0, 1, 1], [0, 1, 1]]))
    with pytest.raises(PrivriskError, match=r"^outputs: the released numbers contradict"):
        intervals(a, np.array([5.0, 7.0]), integer=True, lower=np.zeros(3))
    # The same total released twice with two values.
    a = sp.csr_matrix(np.array([[1.0, 1, 1], [0, 1, 1], [0, 1, 1]]))
    with pytest.raises(PrivriskError, match=r"^outputs: the released numbers contradict"):
        intervals(a, np.array([9.0, 7.0, 6.0]), integer=True, lower=np.zeros(3))
