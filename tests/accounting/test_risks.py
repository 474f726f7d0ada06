"""Risks of a guarantee: membership (success, advantage, posterior) against brute force over the trade-off curve,
TPR at FPR, singling out among n (ρ_mw attained by k-ary randomized response; the f-DP bound never below it),
the worst case, and the JSON summary."""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting import (
    MembershipRisk,
    approximate_dp,
    compose,
    gaussian_dp,
    gaussian_guarantee,
    laplace_guarantee,
    membership_risk,
    pure_dp,
    randomised_response_guarantee,
    reconstruction_risk,
    risk_summary,
    tpr_at_fpr,
    worst_case,
    zcdp,
)
from privrisk.risk import global_risk, many_worlds, posterior_bound

GUARANTEES = [
    pure_dp(1.0),
    approximate_dp(0.7, 1e-3),
    gaussian_dp(1.2),
    laplace_guarantee(epsilon=0.8),
    gaussian_guarantee(sigma=1.5),
    zcdp(0.3),
]


# A fine grid of α: 20,001 even steps, then 400 down to 10⁻¹².
ALPHA = np.concatenate([np.linspace(0, 1, 20_001), np.geomspace(1e-12, 1e-3, 400)])
EVEN = slice(0, 20_001)


@functools.cache
def _tradeoff_on_grid(index: int) -> np.ndarray:
    """β(α) of ``GUARANTEES[index]`` on ``ALPHA``, once for every test and prior that reads it (the zCDP curve
    takes seconds on this grid)."""
    return GUARANTEES[index].tradeoff(ALPHA)


def tradeoff_on_grid(g) -> np.ndarray:
    return _tradeoff_on_grid(next(i for i, h in enumerate(GUARANTEES) if h is g))


def success_by_brute_force(g, prior: float) -> float:
    """1 − min over tests of p·β(α) + (1 − p)·α, on a fine grid of α."""
    return float(1 - np.min(prior * tradeoff_on_grid(g) + (1 - prior) * ALPHA))


@pytest.mark.parametrize("g", GUARANTEES, ids=lambda g: g.label)
@pytest.mark.parametrize("prior", [0.5, 0.2, 0.9])
def test_success_is_the_best_test_on_the_tradeoff_curve(g, prior):
    r = membership_risk(g, prior)
    assert r.success == pytest.approx(success_by_brute_force(g, prior), abs=2e-4)
    low = min(prior, 1 - prior)
    assert r.advantage == pytest.approx((r.success - max(prior, 1 - prior)) / low, abs=1e-12)


def test_half_prior_is_delta_at_zero():
    for g in GUARANTEES:
        r = membership_risk(g)
        assert r.advantage == g.delta_at(0.0)
        assert r.success == pytest.approx((1 + g.delta_at(0.0)) / 2, abs=1e-15)
        alpha, beta = ALPHA[EVEN], tradeoff_on_grid(g)[EVEN]
        assert r.advantage == pytest.approx(float(np.max(1 - alpha - beta)), abs=1e-4)


def test_pure_epsilon_is_mehner_and_lee_clifton():
    for eps in (math.log(2), math.log(3), 1.0, 3.0):
        r = membership_risk(pure_dp(eps))
        assert r.success == pytest.approx(float(global_risk(eps)), rel=1e-14)
        for p in (0.1, 0.5, 0.7):
            assert membership_risk(pure_dp(eps), p).posterior_max == pytest.approx(
                float(posterior_bound(eps, p))
            )
    # (ε, δ): the global risk (e^ε + δ)/(1 + e^ε) of Mehner et al., eq. (3).
    assert membership_risk(approximate_dp(1.0, 0.01)).success == pytest.approx(float(global_risk(1.0, 0.01)))


def test_posterior_is_certain_without_a_largest_loss():
    assert membership_risk(gaussian_dp(0.1), 0.3).posterior_max == 1.0
    assert membership_risk(approximate_dp(1.0, 1e-9), 0.3).posterior_max == 1.0
    laplace = membership_risk(laplace_guarantee(epsilon=1.0), 0.3).posterior_max
    assert laplace == pytest.approx(float(posterior_bound(1.0, 0.3)))
    assert membership_risk(pure_dp(1.0), 0.0) == MembershipRisk(0.0, 0.0, 1.0, 0.0)


def test_tpr_at_fpr():
    assert tpr_at_fpr(pure_dp(1.0), 0.01) == pytest.approx(math.e * 0.01)
    assert tpr_at_fpr(pure_dp(1.0), 0.5) == pytest.approx(1 - math.exp(-1) * 0.5)
    out = tpr_at_fpr(gaussian_dp(1.0), np.array([0.001, 0.1]))
    from scipy.stats import norm

    assert np.allclose(out, 1 - norm.cdf(norm.ppf(1 - np.array([0.001, 0.1])) - 1.0))
    assert isinstance(tpr_at_fpr(gaussian_dp(1.0), 0.1), float)
    assert tpr_at_fpr(approximate_dp(1.0, 1e-3), 0.0) == pytest.approx(1e-3)


def kary_rr_success(eps: float, n: int) -> float:
    """Exact success of the Bayes attacker against n-ary randomized response, uniform prior over n worlds."""
    e = math.exp(eps)
    channel = np.full((n, n), 1.0 / (e + n - 1))
    np.fill_diagonal(channel, e / (e + n - 1))
    # The mechanism is ε-DP: every column ratio is at most e^ε.
    assert channel.max() / channel.min() == pytest.approx(e)
    return float(np.sum(channel.max(axis=0)) / n)


@pytest.mark.parametrize(("eps", "n"), [(1.0, 2), (math.log(3), 10), (2.5, 7), (0.1, 50)])
def test_many_worlds_is_attained_by_kary_randomized_response(eps, n):
    assert reconstruction_risk(pure_dp(eps), n) == pytest.approx(kary_rr_success(eps, n), rel=1e-13)
    assert reconstruction_risk(pure_dp(eps), n) == pytest.approx(float(many_worlds(eps, n)), rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 30.0), st.integers(2, 10_000))
def test_fdp_bound_is_never_below_many_worlds(eps, n):
    fdp = 1 - float(pure_dp(eps).tradeoff(1.0 / n))
    assert fdp >= float(many_worlds(eps, n)) - 1e-12


def test_reconstruction_beyond_pure():
    g = gaussian_dp(1.0)
    from scipy.stats import norm

    assert reconstruction_risk(g, 100) == pytest.approx(1 - norm.cdf(norm.ppf(1 - 0.01) - 1.0))
    assert reconstruction_risk(g, 1) == 1.0
    # Laplace: the smaller of ρ_mw and its own 1 − β(1/n).
    lap = laplace_guarantee(epsilon=2.0)
    assert reconstruction_risk(lap, 10) <= float(many_worlds(2.0, 10)) + 1e-15


def test_worst_case():
    assert worst_case(laplace_guarantee(epsilon=1.0)) == randomised_response_guarantee(epsilon=1.0)
    w = worst_case(gaussian_dp(1.0))
    assert w.delta == 1e-6 and w.epsilon == pytest.approx(gaussian_dp(1.0).epsilon_at(1e-6))
    assert "δ = 1e-06" in w.conversion
    assert worst_case(approximate_dp(1.0, 1e-5)).epsilon == 1.0  # its own δ when larger than 10⁻⁶
    w2 = worst_case(zcdp(0.5), delta=1e-9)
    assert w2.epsilon == pytest.approx(zcdp(0.5).epsilon_at(1e-9))
    # The worst case is never safer than the guarantee.
    for g in GUARANTEES:
        assert membership_risk(worst_case(g)).success >= membership_risk(g).success - 1e-12


def test_risk_summary_keys_and_json():
    s = risk_summary(gaussian_guarantee(sigma=2.0), n=20, at_delta=1e-6, at_epsilon=1.0)
    keys = {
        "guarantee", "advantage", "success", "posterior_max", "tpr_at_fpr", "reconstruction",
        "epsilon_at_delta", "delta_at_epsilon", "worst_case", "conversion",
    }  # fmt: skip
    # The worst case names the (ε, δ) it is the worst of (issue 37: its δ was 10⁻⁶ without a word); with
    # at_delta it is taken at that δ, so that "ε at δ" is one ε for both.
    assert set(s) == keys and set(s["worst_case"]) == keys | {"epsilon", "delta"}
    assert s["worst_case"]["worst_case"] is None and s["worst_case"]["delta"] == 1e-6
    assert s["worst_case"]["epsilon"] == pytest.approx(s["epsilon_at_delta"])
    at_5 = risk_summary(gaussian_guarantee(sigma=2.0), at_delta=1e-5)
    assert at_5["worst_case"]["delta"] == 1e-5
    assert at_5["worst_case"]["epsilon_at_delta"] == pytest.approx(at_5["epsilon_at_delta"])
    assert [row["fpr"] for row in s["tpr_at_fpr"]] == [0.001, 0.01, 0.05, 0.1]
    json.dumps(s, allow_nan=False)
    assert s["guarantee"] == "Gaussian mechanism, σ = 2, sensitivity 1"
    assert s["epsilon_at_delta"] == pytest.approx(gaussian_guarantee(sigma=2.0).epsilon_at(1e-6))
    none = risk_summary(approximate_dp(1.0, 1e-3), at_delta=1e-6)
    assert none["epsilon_at_delta"] is None and none["reconstruction"] is None
    json.dumps(none, allow_nan=False)


def test_risk_summary_of_a_composition():
    g = compose([laplace_guarantee(epsilon=0.1)] * 10 + [gaussian_guarantee(sigma=10.0)] * 5)
    s = risk_summary(g, fpr=[0.01])
    assert s["conversion"] == "privacy loss distribution (dp_accounting)"
    assert 0.5 <= s["success"] <= s["worst_case"]["success"] <= 1
    json.dumps(s, allow_nan=False)
