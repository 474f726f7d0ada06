"""The intervals of privrisk.synthetic against hand calculations and an independent bisection on binomial sums."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.synthetic.intervals import clopper_pearson, excess_risk, lower_bound, upper_bound, wilson


def _tail_at_most(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed term by term (no scipy)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def _solve(f, target: float) -> float:
    """The p in (0, 1) where the decreasing f(p) crosses target, by bisection."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _exact(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Clopper–Pearson by its definition: P(X ≥ k | p_lo) = α/2 and P(X ≤ k | p_hi) = α/2."""
    low = 0.0 if k == 0 else _solve(lambda p: -(1 - _tail_at_most(k - 1, n, p)), -alpha / 2)
    high = 1.0 if k == n else _solve(lambda p: _tail_at_most(k, n, p), alpha / 2)
    return low, high


@pytest.mark.parametrize(("k", "n"), [(0, 500), (16, 500), (1, 10), (9, 10), (250, 500)])
def test_clopper_pearson_matches_its_definition(k: int, n: int) -> None:
    ours = clopper_pearson(k, n, 0.95)
    assert ours == pytest.approx(_exact(k, n, 0.05), abs=1e-9)


def test_no_success_in_500_by_hand() -> None:
    # P(X = 0) = (1 − p)^500 = 0.025 gives the upper end; the one-sided 95 % bound solves (1 − p)^500 = 0.05.
    assert clopper_pearson(0, 500) == (0.0, pytest.approx(1 - 0.025 ** (1 / 500), rel=1e-12))
    assert upper_bound(0, 500, 0.05) == pytest.approx(1 - 0.05 ** (1 / 500), rel=1e-12)
    assert lower_bound(500, 500, 0.05) == pytest.approx(0.05 ** (1 / 500), rel=1e-12)


def test_sixteen_of_500_by_hand() -> None:
    low, high = clopper_pearson(16, 500)
    assert (round(low, 4), round(high, 4)) == (0.0184, 0.0514)
    # Wilson by its formula with z = 1.959964: centre (p + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·√(p(1−p)/n + z²/4n²).
    z, p, n = 1.959963984540054, 16 / 500, 500
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert wilson(16, 500) == pytest.approx((centre - half, centre + half), rel=1e-12)
    assert wilson(0, 500)[0] == 0.0 and wilson(500, 500)[1] == 1.0


def test_excess_risk_by_hand() -> None:
    r = excess_risk(16, 500, 5, 500)
    assert r.value == pytest.approx((0.032 - 0.01) / 0.99)
    a_lo, a_hi = _exact(16, 500, 0.025)
    c_lo, c_hi = _exact(5, 500, 0.025)
    assert r.low == pytest.approx(max(0.0, (a_lo - c_hi) / (1 - c_hi)), abs=1e-9)
    assert r.high == pytest.approx((a_hi - c_lo) / (1 - c_lo), abs=1e-9)


def test_excess_risk_at_the_edges_has_no_nan() -> None:
    # Anonymeter's error propagation takes the square root of a negative number at k = n (its issues 29 and 32).
    for k, kc in [(500, 500), (500, 0), (0, 500), (0, 0)]:
        r = excess_risk(k, 500, kc, 500)
        assert 0.0 <= r.low <= r.value <= r.high <= 1.0
    assert excess_risk(500, 500, 0, 500).low > 0.98


def test_without_control_the_risk_is_the_attack_rate() -> None:
    r = excess_risk(16, 500)
    assert (r.value, r.control_rate) == (0.032, None)
    assert (r.low, r.high) == clopper_pearson(16, 500)


def test_bad_counts() -> None:
    with pytest.raises(PrivriskError) as caught:
        excess_risk(6, 5)
    assert caught.value.param == "successes"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.data())
def test_interval_holds_the_estimate(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    kc = data.draw(st.integers(0, n))
    r = excess_risk(k, n, kc, n)
    assert 0.0 <= r.low <= r.value <= r.high <= 1.0
    low, high = clopper_pearson(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
