"""ε → risk: oracles from Mehner et al. (Table 1) and Allmann et al., identities, exact boundaries, soundness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import privrisk as pr
from privrisk import PrivriskError

LN2, LN3, LN7 = math.log(2), math.log(3), math.log(7)

# Table 1 of Mehner et al., as printed (percent, one decimal).
TABLE_1 = {
    (LN2, 2): (66.7, 33.3), (LN2, 10): (18.2, 9.1), (LN2, 100): (2.0, 1.0),
    (LN3, 2): (75.0, 50.0), (LN3, 10): (25.0, 16.7), (LN3, 100): (2.9, 2.0),
    (LN7, 2): (87.5, 75.0), (LN7, 10): (43.8, 37.5), (LN7, 100): (6.6, 5.7),
}  # fmt: skip


@pytest.mark.parametrize(("key", "expected"), TABLE_1.items())
def test_table_1_of_mehner_et_al(key, expected):
    eps, n = key
    rho, gamma = expected
    risk = pr.global_risk(eps) if n == 2 else pr.many_worlds(eps, n)
    lk = pr.global_leak(eps) if n == 2 else pr.leak(risk, n)
    # Printed to one decimal: the true value lies within half a unit of the last digit.
    assert abs(100 * risk - rho) <= 0.05 + 1e-9
    assert abs(100 * lk - gamma) <= 0.05 + 1e-9


def test_risk_table_reproduces_table_1():
    table = pr.risk_table([LN2, LN3, LN7], [2, 10, 100])
    assert list(table.columns) == ["epsilon", "n", "risk", "leak"]
    assert len(table) == 9
    for row in table.itertuples():
        rho, gamma = TABLE_1[(row.epsilon, row.n)]
        assert abs(100 * row.risk - rho) <= 0.05 + 1e-9
        assert abs(100 * row.leak - gamma) <= 0.05 + 1e-9


def test_exact_fractions_by_hand():
    # ln 3, n = 10: 1/(1 + 9/3) = 1/4; ln 7, n = 10: 7/16; ln 2, n = 100: 2/101.
    assert pr.many_worlds(LN3, 10) == pytest.approx(1 / 4, rel=1e-14)
    assert pr.many_worlds(LN7, 10) == pytest.approx(7 / 16, rel=1e-14)
    assert pr.many_worlds(LN2, 100) == pytest.approx(2 / 101, rel=1e-14)
    assert pr.global_leak(LN3) == pytest.approx(0.5, rel=1e-14)


def test_allmann_et_al_global_risk_at_epsilon_one():
    assert round(pr.global_risk(1.0), 3) == 0.731
    assert round(pr.two_worlds(1.0), 3) == 0.731


def test_mehner_et_al_running_example():
    # Δv = 0.2, Δf = 25, n = 21, ε = ln 3: about 5 % (4.8 %).
    assert round(pr.many_worlds(LN3, 21, 0.2 / 25), 3) == 0.048
    # r = 1: the formula gives 13.04 %, not the 11 % the text prints (docs/errata.md).
    assert round(pr.many_worlds(LN3, 21), 3) == 0.130
    # Mehner et al., §3.4: Γ(3) = 0.91.
    assert round(pr.global_leak(3.0), 2) == 0.91


def test_randomized_response_equals_global_risk_and_many_worlds():
    eps = np.linspace(0, 8, 81)
    np.testing.assert_allclose(pr.truthful_answer_probability(eps, 2), pr.global_risk(eps), rtol=1e-14)
    for d in (3, 10, 1000):
        np.testing.assert_allclose(pr.truthful_answer_probability(eps, d), pr.many_worlds(eps, d), rtol=1e-14)
    # The coin of Mehner et al., §4.2, shows heads with probability e^ε/(1 + e^ε).
    assert pr.truthful_answer_probability(LN3) == pytest.approx(3 / 4)


def test_epsilon_zero_is_the_no_information_limit():
    assert pr.two_worlds(0.0) == 0.5
    assert pr.many_worlds(0.0, 7) == pytest.approx(1 / 7)
    assert pr.global_leak(0.0) == 0.0
    assert pr.posterior_bound(0.0, 0.3) == pytest.approx(0.3)


@pytest.mark.parametrize("eps", [700.0, 1e4, 1e300])
def test_large_epsilon_gives_one_not_nan(eps):
    for value in (
        pr.many_worlds(eps, 10**6),
        pr.two_worlds(eps),
        pr.global_risk(eps, 0.1),
        pr.global_leak(eps),
    ):
        assert value == 1.0
    assert pr.posterior_bound(eps, 1e-9) == 1.0


def test_near_certainty_is_below_one_and_finite():
    # ε = 50, n = 10⁶: ρ = 1 − 999,999·e^−50 ≈ 1 − 2·10⁻¹⁶, a float just below 1.
    value = pr.many_worlds(50.0, 10**6)
    assert 1 - 1e-15 < value <= 1.0


def test_tiny_epsilon_keeps_precision():
    # Γ = tanh(ε/2) ≈ ε/2 for tiny ε; 2P − 1 computed naively would lose every digit.
    assert pr.global_leak(1e-12) == pytest.approx(5e-13, rel=1e-9)


def test_scalars_in_floats_out_arrays_broadcast():
    assert isinstance(pr.many_worlds(1, 10), float)
    out = pr.many_worlds(np.array([[0.5], [1.0]]), np.array([2, 10, 100]))
    assert out.shape == (2, 3)
    assert isinstance(pr.leak(0.5, 10), float)


def test_epsilon_for_risk_inverts_many_worlds():
    assert pr.epsilon_for_risk(0.75) == pytest.approx(LN3, rel=1e-14)
    assert pr.epsilon_for_risk(0.25, n=10) == pytest.approx(LN3, rel=1e-14)
    assert pr.epsilon_for_risk(0.25, n=10, ratio=0.5) == pytest.approx(2 * LN3, rel=1e-14)


def test_epsilon_for_risk_boundary_at_guessing():
    # Exactly 1/n cannot be reached by any ε > 0; just above it can.
    with pytest.raises(PrivriskError, match="1/n"):
        pr.epsilon_for_risk(0.5, n=2)
    assert pr.epsilon_for_risk(0.5 + 1e-9, n=2) > 0
    with pytest.raises(PrivriskError, match="1/n"):
        pr.epsilon_for_risk(0.1, n=10)
    assert pr.epsilon_for_risk(0.10001, n=10) > 0
    with pytest.raises(PrivriskError, match="below 1"):
        pr.epsilon_for_risk(1.0)
    assert math.isfinite(pr.epsilon_for_risk(1 - 1e-12))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pr.many_worlds(-0.1, 2), "at least 0"),
        (lambda: pr.many_worlds(float("nan"), 2), "NaN"),
        (lambda: pr.many_worlds(float("inf"), 2), "finite"),
        (lambda: pr.many_worlds(1.0, 0), "n"),
        (lambda: pr.many_worlds(1.0, 2.5), "whole"),
        (lambda: pr.many_worlds(1.0, 2, -1), "ratio"),
        (lambda: pr.leak(1.2, 10), "probability"),
        (lambda: pr.leak(0.5, 1), "n"),
        (lambda: pr.global_risk(1.0, delta=1.5), "delta"),
        (lambda: pr.posterior_bound(1.0, -0.1), "prior"),
        (lambda: pr.epsilon_for_risk(0.9, ratio=0), "ratio"),
    ],
)
def test_bad_arguments_raise(call, message):
    with pytest.raises(PrivriskError, match=message):
        call()


def test_global_risk_with_delta_is_the_hypothesis_test_bound():
    # (ε, δ)-DP: balanced success ≤ (e^ε + δ)/(1 + e^ε); δ = 1 is no privacy at all.
    assert pr.global_risk(1.0, 0.1) == pytest.approx((math.e + 0.1) / (1 + math.e))
    assert pr.global_risk(0.0, 1.0) == 1.0
    assert pr.global_leak(1.0, 0.1) == pytest.approx(2 * pr.global_risk(1.0, 0.1) - 1)


@given(
    st.floats(0, 50),
    st.floats(0, 50),
    st.integers(2, 10**6),
    st.floats(0.01, 3),
)
def test_monotone_in_epsilon_and_bounded(e1, e2, n, r):
    lo, hi = sorted((e1, e2))
    a, b = pr.many_worlds(lo, n, r), pr.many_worlds(hi, n, r)
    assert 1 / n - 1e-15 <= a <= b <= 1.0
    assert 0.5 <= pr.two_worlds(lo, r) <= pr.two_worlds(hi, r) <= 1.0
    assert pr.many_worlds(hi, n, r) <= pr.two_worlds(hi, r) + 1e-15
    assert 0.0 <= pr.leak(a, n) <= 1.0


@given(st.floats(1e-6, 1 - 1e-6), st.integers(2, 1000), st.floats(0.05, 5))
def test_epsilon_for_risk_round_trip(rho, n, r):
    if rho <= 1 / n + 1e-9:
        with pytest.raises(PrivriskError):
            pr.epsilon_for_risk(rho, n, r)
        return
    eps = pr.epsilon_for_risk(rho, n, r)
    assert pr.many_worlds(eps, n, r) == pytest.approx(rho, rel=1e-9, abs=1e-12)


@given(st.floats(0, 30), st.floats(0, 1))
def test_posterior_bound_is_monotone_and_a_probability(eps, prior):
    post = pr.posterior_bound(eps, prior)
    assert prior - 1e-12 <= post <= 1.0


def test_describe_numbers_are_computed_and_rounded_honestly():
    text = pr.describe(1.0)
    assert "about 73 times" in text and "50 times" in text and "46 %" in text
    text = pr.describe(math.log(3), n=10)
    assert "about 75 times" in text and "about 25 of 100" in text and "about 10 of them" in text
    # ρ_mw for ε = ln 3, n = 10,000 is 3/10,002 ≈ 0.0003: counted per 10,000 people, never "0 of 100".
    text = pr.describe(math.log(3), n=10_000)
    assert "about 3 of 10,000" in text and "about 1 of them" in text
    # Near-certainty is never rounded up to "all".
    assert "more than 99 times" in pr.describe(8.0)


def test_natural_frequency_edges():
    assert pr.natural_frequency(0.0) == ("none", 100)
    assert pr.natural_frequency(1.0) == ("all 100", 100)
    assert pr.natural_frequency(1e-9) == ("fewer than 1", 1_000_000)
    assert pr.natural_frequency(0.005) == ("about 5", 1000)  # 0.5 in 100 is better said per 1,000
    assert pr.natural_frequency(0.006) == ("about 1", 100)
    assert pr.natural_frequency(0.00499) == ("about 5", 1000)
