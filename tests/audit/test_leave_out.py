"""Leave-one-out and leave-two-out values, and Δf_n(X), against brute-force enumeration (Sarathy and Muralidhar 2009)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import QUERIES, audit_data_dependent, data_dependent_sensitivity, evaluate, leave_one_out


def brute_leave_out(x, q):
    x = np.asarray(x, dtype=float)
    f, delta = [], []
    for i in range(x.size):
        rest = np.delete(x, i)
        fi = evaluate(q, rest)
        f.append(fi)
        delta.append(max(abs(fi - evaluate(q, np.delete(rest, j))) for j in range(rest.size)))
    return np.array(f), np.array(delta)


samples = st.one_of(
    st.lists(st.integers(-5, 5).map(float), min_size=3, max_size=9),
    st.lists(st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 3)), min_size=3, max_size=9),
)


@pytest.mark.parametrize("query", QUERIES)
@settings(max_examples=60)
@given(x=samples)
def test_leave_out_matches_enumeration(query, x):
    t = leave_one_out(x, query)
    f, delta = brute_leave_out(x, query)
    scale = max(1.0, float(np.max(np.abs(x)))) ** (2 if query == "variance" else 1)
    tol = 1e-9 * scale * (len(x) if query == "sum" else 1)
    assert np.allclose(t["f_without"], f, rtol=0, atol=tol)
    assert np.allclose(t["delta_without"], delta, rtol=0, atol=tol + (1e-6 * scale if query == "std" else 0))
    # f_without_two is the leave-two-out value that reaches Δ, for a record j ≠ i.
    assert np.allclose(np.abs(t["f_without_two"] - t["f_without"]), t["delta_without"], atol=tol * 10)
    arr = np.asarray(x, dtype=float)
    for i, j in zip(range(len(x)), t["next_record"] - 1, strict=True):
        assert i != j
        two = evaluate(query, np.delete(arr, [i, j]))
        assert two == pytest.approx(t["f_without_two"].iloc[i], abs=tol * 10)


@pytest.mark.parametrize("query", QUERIES)
@settings(max_examples=30)
@given(x=samples)
def test_provider_sensitivity_and_star_match_enumeration(query, x):
    arr = np.asarray(x, dtype=float)
    f_n = evaluate(query, arr)
    changes = np.array([abs(f_n - evaluate(query, np.delete(arr, i))) for i in range(arr.size)])
    assert data_dependent_sensitivity(arr, query) == pytest.approx(changes.max(), abs=1e-9 * max(1, f_n))
    res = audit_data_dependent(arr, query, 1.0, u=0.9)
    assert changes[res.star - 1] == pytest.approx(changes.max(), abs=1e-9 * max(1, abs(f_n)))


def test_ties_go_to_the_last_record():
    # Leaving out 1 or 10 changes the mean of 1..10 by 0.5; Sarathy and Muralidhar take X* = (1, …, 9).
    res = audit_data_dependent(list(range(1, 11)), "mean", 2, u=0.75)
    assert res.star == 10 and res.f_star == 5.0


def test_nearly_constant_remainder_keeps_the_std_exact():
    # Without the outlier the others are all equal: their std is 0, not a rounding residue.
    x = [5.0] * 40 + [1e6]
    t = leave_one_out(x, "std")
    assert t["f_without"].iloc[-1] == 0.0
    assert t["delta_without"].iloc[-1] == 0.0


def test_many_ties_and_one_outlier_stay_fast_and_exact():
    # 10⁵ zeros and one 1: every X₋ᵢ₋ⱼ without the 1 is constant. No O(n²) recomputation, and the exact values.
    x = np.zeros(100_001)
    x[-1] = 1.0
    t = leave_one_out(x, "std")
    assert t["f_without"].iloc[-1] == 0.0 and t["delta_without"].iloc[-1] == 0.0
    m = x.size - 1  # X₋ᵢ for a zero: m records, one of them 1; its std and the drop when the 1 leaves too
    std_i = math.sqrt(1 / m - 1 / m**2)
    assert t["delta_without"].iloc[0] == pytest.approx(std_i, rel=1e-6)


def test_leave_two_out_std_of_a_constant_remainder_is_zero():
    t = leave_one_out([0.0, 0.0, 1.0], "std")  # without a 0 and the 1, one 0 remains: std exactly 0
    assert t["f_without_two"].tolist()[:2] == [0.0, 0.0]
    assert t["delta_without"].iloc[0] == 0.5
