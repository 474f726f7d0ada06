"""Closed forms of the profiles and trade-off curves of the definitions, checked against hand calculations."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from privrisk.accounting import (
    approximate_dp,
    gaussian_dp,
    laplace_mechanism,
    membership_risk,
    pure_dp,
    randomized_response,
)


def test_laplace_and_randomized_response_at_epsilon_1():
    # Laplace: δ(0) = 1 − e^(−1/2); success (1 + δ(0))/2 = 1 − e^(−1/2)/2 = 0.69673.
    assert membership_risk(laplace_mechanism(epsilon=1.0)).success == pytest.approx(
        1 - math.exp(-0.5) / 2, abs=1e-15
    )
    assert round(membership_risk(laplace_mechanism(epsilon=1.0)).success, 3) == 0.697
    # Randomized response: e/(1 + e) = 0.73106.
    assert membership_risk(randomized_response(epsilon=1.0)).success == pytest.approx(
        math.e / (1 + math.e), abs=1e-15
    )
    assert round(membership_risk(randomized_response(epsilon=1.0)).success, 3) == 0.731


def test_import_is_light():
    code = (
        "import sys, privrisk.accounting as a; g = a.approximate_dp(1.0, 1e-6); g.delta_at(0.5); g.tradeoff(0.1);"
        "print(sorted(m for m in ('scipy', 'pandas', 'dp_accounting') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_pure_profile_closed_form():
    g = pure_dp(2.0)
    for e in (0.0, 0.5, 1.9):
        assert g.delta_at(e) == pytest.approx((math.exp(2.0) - math.exp(e)) / (1 + math.exp(2.0)), rel=1e-14)
    assert g.delta_at(2.0) == 0.0
    assert g.epsilon_at(g.delta_at(0.7)) == pytest.approx(0.7, rel=1e-12)


def test_gaussian_profile_and_curve_closed_form():
    from scipy.stats import norm

    g = gaussian_dp(1.5)
    for e in (0.0, 1.0, 3.0):
        expected = norm.cdf(-e / 1.5 + 0.75) - math.exp(e) * norm.cdf(-e / 1.5 - 0.75)
        assert g.delta_at(e) == pytest.approx(expected, rel=1e-12)
    alpha = np.array([0.01, 0.2, 0.7])
    assert np.allclose(g.tradeoff(alpha), norm.cdf(norm.ppf(1 - alpha) - 1.5), rtol=1e-12)


def test_approximate_curve_closed_form():
    g = approximate_dp(1.0, 0.01)
    a = np.array([0.0, 0.1, 0.5, 0.9])
    expected = np.maximum.reduce([np.zeros(4), 0.99 - math.e * a, math.exp(-1) * (0.99 - a)])
    assert np.allclose(g.tradeoff(a), expected, atol=1e-15)
