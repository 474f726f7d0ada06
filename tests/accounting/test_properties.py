"""Invariants every guarantee keeps (hypothesis): β convex, decreasing, β(α) ≤ 1 − α, in [0, 1]; the profile
decreasing in ε and in [0, 1]; ε(δ) inverts δ(ε); large ε never overflows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting import (
    approximate_dp,
    compose,
    discrete_gaussian_guarantee,
    discrete_laplace_guarantee,
    gaussian_dp,
    gaussian_guarantee,
    group,
    laplace_guarantee,
    membership_risk,
    pure_dp,
    randomised_response_guarantee,
    reconstruction_risk,
    renyi_dp,
    subsample,
    tpr_at_fpr,
    zcdp,
)

BUILDERS = {
    "pure": lambda x: pure_dp(x),
    "approximate": lambda x: approximate_dp(x, 1e-4),
    "gdp": lambda x: gaussian_dp(x),
    "zcdp": lambda x: zcdp(x * x / 2),
    "renyi": lambda x: renyi_dp([2.0, 8.0, 32.0], [x, 3 * x, 8 * x]),
    "laplace": lambda x: laplace_guarantee(epsilon=x),
    "gaussian": lambda x: gaussian_guarantee(sigma=1 / x),
    "rr": lambda x: randomised_response_guarantee(epsilon=x),
    "discrete laplace": lambda x: discrete_laplace_guarantee(scale=1 / x),
    "discrete gaussian": lambda x: discrete_gaussian_guarantee(sigma=1 / x),
    "kov": lambda x: compose([pure_dp(x)] * 3),
    "subsampled": lambda x: subsample(zcdp(x), 0.3),
    "group": lambda x: group(renyi_dp([4.0], [x]), 2),
}
# Slower to build: checked at a few fixed parameters instead of by hypothesis.
SLOW = {
    "pld": lambda x: compose([laplace_guarantee(epsilon=x / 2), gaussian_guarantee(sigma=2 / x)] * 2),
    "mixture": lambda x: compose([zcdp(x * x / 4), approximate_dp(x / 2, 1e-6)]),
}
ALPHA = np.linspace(0, 1, 401)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
@settings(max_examples=8, deadline=None)
@given(x=st.floats(0.05, 4.0))
def test_tradeoff_is_a_tradeoff_curve(kind, x):
    check_curve(BUILDERS[kind](x).tradeoff(ALPHA))


def check_curve(beta: np.ndarray) -> None:
    assert np.all((beta >= 0) & (beta <= 1 - ALPHA + 1e-12))
    assert np.all(np.diff(beta) <= 1e-12)  # decreasing
    second = beta[:-2] - 2 * beta[1:-1] + beta[2:]
    assert np.all(second >= -1e-9)  # convex
    assert beta[0] <= 1.0 and beta[-1] == 0.0


@pytest.mark.parametrize("kind", sorted(BUILDERS))
@settings(max_examples=8, deadline=None)
@given(x=st.floats(0.05, 4.0))
def test_profile_is_decreasing_and_inverted(kind, x):
    g = BUILDERS[kind](x)
    eps = np.linspace(0, 10, 41)
    deltas = np.array([g.delta_at(e) for e in eps])
    assert np.all((deltas >= 0) & (deltas <= 1))
    assert np.all(np.diff(deltas) <= 1e-12)
    for d in (1e-3, 0.05):
        e = g.epsilon_at(d)
        if math.isfinite(e) and e > 0:
            assert g.delta_at(e) <= d * (1 + 1e-6) + 1e-12


@pytest.mark.parametrize("kind", sorted(BUILDERS))
@pytest.mark.parametrize("x", [700.0, 1e4])
def test_huge_parameters_stay_probabilities(kind, x):
    if kind in ("discrete gaussian", "discrete laplace", "group", "kov", "zcdp", "renyi"):
        x = min(x, 60.0)  # their supports and sums grow with the parameter; 60 is far beyond any release
    g = BUILDERS[kind](x)
    for e in (0.0, 1.0, 700.0, 1e4):
        assert 0 <= g.delta_at(e) <= 1
    beta = g.tradeoff(np.array([0.0, 1e-300, 0.5, 1.0]))
    assert np.all(np.isfinite(beta)) and np.all((beta >= 0) & (beta <= 1))
    r = membership_risk(g, 0.3)
    assert 0.7 <= r.success <= 1 and 0 <= r.advantage <= 1 and 0.3 <= r.posterior_max <= 1
    assert 0 <= float(tpr_at_fpr(g, 0.01)) <= 1
    assert 0.01 <= reconstruction_risk(g, 100) <= 1


@pytest.mark.parametrize("kind", sorted(SLOW))
@pytest.mark.parametrize("x", [0.3, 2.5])
def test_slow_kinds_keep_the_invariants(kind, x):
    g = SLOW[kind](x)
    check_curve(g.tradeoff(ALPHA))
    eps = np.linspace(0, 10, 21)
    deltas = np.array([g.delta_at(e) for e in eps])
    assert np.all((deltas >= 0) & (deltas <= 1)) and np.all(np.diff(deltas) <= 1e-12)
    e = g.epsilon_at(1e-3)
    assert g.delta_at(e) <= 1e-3 * (1 + 1e-6)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 5.0), st.floats(0.01, 0.99))
def test_prior_symmetry(eps, prior):
    g = laplace_guarantee(epsilon=eps)
    a, b = membership_risk(g, prior), membership_risk(g, 1 - prior)
    assert a.success == pytest.approx(b.success, abs=1e-12)
    assert a.advantage == pytest.approx(b.advantage, abs=1e-12)
