"""Outer bounds of a total from the equations around it (issue 36): scipy's linprog, an independent solver, over the
same equations (no unknowns summed) gives the same bounds; over all the equations it gives an interval inside them;
and where the equations around the total are all there are, the bounds are the interval itself."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from outputs_helpers import released_cube
from privrisk.outputs.local_bounds import relaxed_ends


def _interval(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray, idx: np.ndarray, val: np.ndarray
              ) -> tuple[float, float]:  # fmt: skip
    c = np.zeros(a.shape[1])
    c[idx] = val
    bounds = list(zip(lo, [None if np.isinf(h) else h for h in hi], strict=True))
    least = linprog(c, A_eq=a, b_eq=b, bounds=bounds, method="highs-ds")
    most = linprog(-c, A_eq=a, b_eq=b, bounds=bounds, method="highs-ds")
    assert least.status in (0, 3) and most.status in (0, 3)  # 3: unbounded
    lo = -np.inf if least.status == 3 else float(least.fun)
    return lo, (np.inf if most.status == 3 else float(-most.fun))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 4), st.booleans())
def test_bounds_are_the_programme_over_the_equations_around_the_total_and_hold_the_whole_interval(
    seed: int, size: int, mixed: bool
) -> None:
    rng = np.random.default_rng(seed)
    _, _, _, a = released_cube(rng)
    if mixed:  # unknowns of one equation with different coefficients are not summed together
        a = a * rng.choice([1.0, 1.0, 2.0, -1.0], size=a.shape)
    n = a.shape[1]
    truth = rng.integers(0, 6, n) * rng.uniform(0.5, 2.0, n)  # sums of a magnitude
    lo = np.where(rng.random(n) < 0.5, 0.0, truth * rng.uniform(0.0, 1.0, n))
    hi = np.where(rng.random(n) < 0.3, np.inf, truth * rng.uniform(1.0, 3.0, n))
    b = a @ truth
    idx = np.sort(rng.choice(n, size=min(size, n), replace=False))
    val = rng.uniform(0.5, 2.0, idx.size)
    got = relaxed_ends(sp.csr_matrix(a), b, lo, hi, idx, val)
    around = np.flatnonzero(np.abs(a[:, idx]).sum(axis=1) > 0)
    want = _interval(a[around], b[around], lo, hi, idx, val)
    whole = _interval(a, b, lo, hi, idx, val)
    tol = 1e-6 * max(1.0, float(np.abs(b).max()))
    assert got.lo == pytest.approx(want[0], abs=tol) or got.lo == want[0] == -np.inf
    assert got.hi == pytest.approx(want[1], abs=tol) or got.hi == want[1] == np.inf
    assert got.lo <= whole[0] + tol and whole[1] <= got.hi + tol
    # the equations named make the bound on their own
    for rows, end, sign in ((got.lo_rows, got.lo, 1.0), (got.hi_rows, got.hi, -1.0)):
        keep = sorted(rows)
        alone = _interval(a[keep], b[keep], lo, hi, idx, val) if keep else None
        if alone is not None and np.isfinite(end):
            assert (alone[0] if sign > 0 else alone[1]) == pytest.approx(end, abs=tol)


def test_a_total_in_every_equation_gets_its_exact_interval_and_one_in_none_its_bounds() -> None:
    # x0 + x1 + x2 = 6, x0 − x1 = 0 (x2 ∈ [1, 2]): x0 ∈ [2, 2.5]
    a = sp.csr_matrix(np.array([[1.0, 1.0, 1.0, 0.0], [1.0, -1.0, 0.0, 0.0]]))
    got = relaxed_ends(a, np.array([6.0, 0.0]), np.array([0.0, 0.0, 1.0, 3.0]), np.array([9.0, 9.0, 2.0, 7.0]),
                       np.array([0]), np.array([1.0]))  # fmt: skip
    assert (got.lo, got.hi) == pytest.approx((2.0, 2.5))
    assert got.lo_rows == got.hi_rows == frozenset({0, 1})
    alone = relaxed_ends(a, np.array([6.0, 0.0]), np.array([0.0, 0.0, 1.0, 3.0]), np.array([9.0, 9.0, 2.0, 7.0]),
                         np.array([3]), np.array([2.0]), want_lo=False)  # fmt: skip
    assert np.isnan(alone.lo) and alone.hi == 14.0 and not alone.hi_rows
