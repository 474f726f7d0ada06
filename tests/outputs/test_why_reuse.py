"""A finding's explanation reuses the duals of the programmes that proved its ends (``Ends.used``): the same
released equations as solving its two programmes again, each total's own, and no programme solved twice."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx
from scipy.optimize import linprog

from privrisk.outputs.intervals import Region


def _region(a: np.ndarray, truth: np.ndarray) -> Region:
    return Region(sp.csr_matrix(a), a @ truth, lower=np.zeros(a.shape[1]), integer=np.ones(a.shape[1], bool),
                  known=truth)  # fmt: skip


def test_each_total_gets_its_own_equations() -> None:
    # Two independent blocks: x0 + x1 = 3 and x2 + x3 = 4; a mix-up of totals would name the other block's row.
    a = np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]])
    region = _region(a, np.array([1.0, 2, 3, 1]))
    g = sp.csr_matrix(np.array([[1.0, 0, 0, 0], [0, 0, 1, 0]]))
    ends = region.extremes(g)
    assert region.why(np.array([0]), np.ones(1), ends, 0) == (0,)
    assert region.why(np.array([2]), np.ones(1), ends, 1) == (1,)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_reused_duals_name_the_same_equations(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 8)), int(rng.integers(1, 5))
    a = (rng.random((m, n)) < 0.5).astype(float)
    truth = rng.integers(0, 4, n).astype(float)
    g = sp.csr_matrix((rng.random((3, n)) < 0.4).astype(float))
    region = _region(a, truth)
    ends = region.extremes(g)
    calls = 0
    solve = region.optimise

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return solve(*args, **kwargs)

    for i in range(g.shape[0]):
        row, val = g.indices[g.indptr[i] : g.indptr[i + 1]], g.data[g.indptr[i] : g.indptr[i + 1]]
        region.optimise = counted  # type: ignore[method-assign]
        calls = 0
        reused = region.why(row, val, ends, i)
        assert calls == 2 - sum((i, s) in ends.used for s in (1, -1))
        region.optimise = solve  # type: ignore[method-assign]
        fresh = region.why(row, val)
        # Each names equations whose duals certify both linear bounds: with only those released equations (and
        # the bounds the equations imply, which the programmes keep), the linear optimum stays what it is.
        for named in (reused, fresh):
            for sign in (1.0, -1.0):
                assert _linear(a, truth, region, row, val, sign, list(named)) == approx(
                    _linear(a, truth, region, row, val, sign, list(range(m))), abs=1e-6
                )


def _linear(a: np.ndarray, truth: np.ndarray, region: Region, row: np.ndarray, val: np.ndarray, sign: float,
            rows: list[int]) -> float:  # fmt: skip
    c = np.zeros(a.shape[1])
    c[row] = sign * val
    bounds = [
        (float(lo), None if np.isinf(hi) else float(hi)) for lo, hi in zip(region.lo, region.hi, strict=True)
    ]
    got = linprog(c, A_eq=a[rows] if rows else None, b_eq=(a @ truth)[rows] if rows else None, bounds=bounds,
                  method="highs")  # fmt: skip
    assert got.status in (0, 3)
    return float(got.fun) if got.status == 0 else -np.inf  # 3: unbounded


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1.0, -1.0]))
def test_one_end_names_the_equations_that_bound_that_end(seed: int, sign: float) -> None:
    # A sum known too closely on one side only (the p % rule) is explained by that end's programme alone: the
    # equations named certify that linear bound, and the other end's programme is never solved for them.
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 8)), int(rng.integers(1, 5))
    a = (rng.random((m, n)) < 0.5).astype(float)
    truth = rng.integers(0, 4, n).astype(float)
    region = _region(a, truth)
    row = np.flatnonzero(rng.random(n) < 0.5)
    if row.size == 0:
        row = np.array([0])
    val = np.ones(row.size)
    signs: list[float] = []
    solve = region.optimise

    def counted(*args: Any, **kwargs: Any) -> Any:
        signs.append(float(args[2]))
        return solve(*args, **kwargs)

    region.optimise = counted  # type: ignore[method-assign]
    named = region.why(row, val, signs=(sign,))
    assert signs == [sign]
    assert _linear(a, truth, region, row, val, sign, list(named)) == approx(
        _linear(a, truth, region, row, val, sign, list(range(m))), abs=1e-6
    )
