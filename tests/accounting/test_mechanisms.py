"""Mechanisms: each exact profile against numerical integration of the likelihood ratio or a brute-force sum over
the integers written here, and each trade-off curve against the Neyman–Pearson test computed from scratch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from privrisk.accounting import (
    discrete_gaussian_guarantee,
    discrete_laplace_guarantee,
    gaussian_dp,
    gaussian_guarantee,
    laplace_guarantee,
    pure_dp,
    randomised_response_guarantee,
)


def laplace_pdf(x, centre, b):
    return math.exp(-abs(x - centre) / b) / (2 * b)


def laplace_delta_by_quad(eps: float, b: float, sensitivity: float) -> float:
    """δ(ε) = ∫ max(0, p(x) − e^ε q(x)) dx with p = Lap(0, b), q = Lap(Δ, b), integrated numerically."""

    def excess(x):
        return max(0.0, laplace_pdf(x, 0.0, b) - math.exp(eps) * laplace_pdf(x, sensitivity, b))

    breaks = [0.0, sensitivity, (sensitivity - eps * b) / 2]
    lo, hi = -60 * b, sensitivity + 60 * b
    return integrate.quad(excess, lo, hi, points=sorted(breaks), limit=400, epsabs=1e-13)[0]


@pytest.mark.parametrize(("b", "sensitivity"), [(1.0, 1.0), (2.0, 0.5), (0.5, 3.0)])
def test_laplace_profile_by_numerical_integration(b, sensitivity):
    g = laplace_guarantee(scale=b, sensitivity=sensitivity)
    for eps in (0.0, 0.1, 0.5 * sensitivity / b, 0.99 * sensitivity / b, 2 * sensitivity / b):
        assert g.delta_at(eps) == pytest.approx(laplace_delta_by_quad(eps, b, sensitivity), abs=1e-9)


def test_laplace_tradeoff_by_neyman_pearson():
    # Reject (say "in the data", P = Lap(0, 1) vs Q = Lap(ε, 1)) when x < t: α = Q(X < t), 1 − β = P(X < t).
    eps = 1.5
    g = laplace_guarantee(epsilon=eps)

    def cdf(x, centre):
        z = x - centre
        return 0.5 * math.exp(z) if z < 0 else 1 - 0.5 * math.exp(-z)

    for t in np.linspace(-4, 6, 41):
        alpha, power = cdf(t, eps), cdf(t, 0.0)
        assert float(g.tradeoff(alpha)) == pytest.approx(1 - power, abs=1e-12)


def test_laplace_calibrated_to_epsilon_and_inverse():
    g = laplace_guarantee(epsilon=0.5, sensitivity=4.0)
    assert g.scale == 8.0 and g.pure_epsilon == 0.5
    assert g.epsilon_at(g.delta_at(0.2)) == pytest.approx(0.2, rel=1e-12)
    assert g.epsilon_at(0.0) == 0.5


def test_laplace_is_below_the_worst_case():
    a = np.linspace(0, 1, 201)
    assert np.all(laplace_guarantee(epsilon=1.0).tradeoff(a) >= pure_dp(1.0).tradeoff(a) - 1e-15)


def test_laplace_against_prv_accountant():
    prv = pytest.importorskip("prv_accountant")
    # Laplace with ε = 0.5 composed 20 times: PRV accountant's bounds, an independent implementation.
    acc = prv.PRVAccountant(
        prvs=[prv.LaplaceMechanism(mu=0.5)], eps_error=1e-3, delta_error=1e-10, max_self_compositions=[20]
    )
    lower, _, upper = acc.compute_epsilon(delta=1e-6, num_self_compositions=[20])
    ours = laplace_guarantee(epsilon=0.5).compose(20).epsilon_at(1e-6)
    assert lower <= ours <= upper


def test_gaussian_mechanism_is_gdp_with_mu_delta_over_sigma():
    g = gaussian_guarantee(sigma=4.0, sensitivity=2.0)
    h = gaussian_dp(0.5)
    for e in (0.0, 0.3, 1.0, 3.0):
        assert g.delta_at(e) == h.delta_at(e)
    assert g.label == "Gaussian mechanism, σ = 4, sensitivity 2"
    assert g.conversion == "exact (Gaussian mechanism)"


def test_gaussian_profile_by_numerical_integration():
    sigma, d = 1.3, 1.0

    def pdf(x, c):
        return math.exp(-((x - c) ** 2) / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))

    for eps in (0.0, 0.7, 2.0):

        def excess(x, eps=eps):
            return max(0.0, pdf(x, 0) - math.exp(eps) * pdf(x, d))

        value = integrate.quad(excess, -30, 30, limit=400)[0]
        assert gaussian_guarantee(sigma=sigma, sensitivity=d).delta_at(eps) == pytest.approx(value, abs=1e-10)


def test_randomized_response_both_ways():
    assert randomised_response_guarantee(truth_probability=0.75).epsilon == pytest.approx(math.log(3), rel=1e-15)
    g = randomised_response_guarantee(epsilon=1.0)
    assert g.truth_probability == pytest.approx(math.e / (1 + math.e))
    assert g.pure_epsilon == 1.0
    assert "73.1 %" in g.label
    # Its profile is that of pure ε (it is the worst ε-DP mechanism): brute force over its two outputs.
    p, q = (
        np.array([g.truth_probability, 1 - g.truth_probability]),
        np.array([1 - g.truth_probability, g.truth_probability]),
    )
    for e in (0.0, 0.4, 1.0):
        assert g.delta_at(e) == pytest.approx(np.maximum(p - math.exp(e) * q, 0).sum(), abs=1e-15)


def brute_force_discrete(log_pmf, sensitivity: int, reach: int, eps: float) -> float:
    """Σ_x max(0, P(x) − e^ε Q(x)) over a wide integer range, P centred at 0, Q at Δ, each normalised here."""
    x = np.arange(-reach, reach + 1)
    log_p, log_q = log_pmf(x), log_pmf(x - sensitivity)
    p, q = np.exp(log_p), np.exp(log_q)
    p, q = p / p.sum(), q / q.sum()
    return float(np.maximum(p - math.exp(eps) * q, 0).sum())


@pytest.mark.parametrize(("t", "sensitivity"), [(1.0, 1), (2.5, 3), (0.3, 2)])
def test_discrete_laplace_by_brute_force(t, sensitivity):
    g = discrete_laplace_guarantee(scale=t, sensitivity=sensitivity)
    assert g.pure_epsilon == pytest.approx(sensitivity / t)
    for eps in (0.0, 0.2, 0.5 * sensitivity / t, 2 * sensitivity / t):
        expected = brute_force_discrete(lambda x: -np.abs(x) / t, sensitivity, 4000, eps)
        assert g.delta_at(eps) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("sigma", "sensitivity"), [(1.0, 1), (3.0, 2), (0.4, 1)])
def test_discrete_gaussian_by_brute_force(sigma, sensitivity):
    g = discrete_gaussian_guarantee(sigma=sigma, sensitivity=sensitivity)
    for eps in (0.0, 0.5, 1.5):
        expected = brute_force_discrete(
            lambda x: -(x.astype(float) ** 2) / (2 * sigma**2), sensitivity, 400, eps
        )
        assert g.delta_at(eps) == pytest.approx(expected, abs=1e-12)


def test_discrete_tradeoff_by_neyman_pearson():
    # The curve through the points (Q(L > ℓ), 1 − P(L > ℓ)) of the likelihood-ratio tests, from scratch.
    t = 1.7
    x = np.arange(-300, 301)
    p, q = np.exp(-np.abs(x) / t), np.exp(-np.abs(x - 1) / t)
    p, q = p / p.sum(), q / q.sum()
    order = np.argsort(-(np.log(p) - np.log(q)), kind="stable")
    alpha, power = np.cumsum(q[order]), np.cumsum(p[order])
    g = discrete_laplace_guarantee(scale=t)
    assert np.allclose(g.tradeoff(alpha[:-1]), 1 - power[:-1], atol=1e-12)


def test_discrete_against_dp_accounting():
    # dp_accounting's pessimistic PLD lies above the exact profile, and close to it.
    for g in (discrete_laplace_guarantee(scale=2.0, sensitivity=2), discrete_gaussian_guarantee(sigma=2.0)):
        pld = g._pld(1e-4)
        for eps in (0.1, 0.5, 1.0):
            assert g.delta_at(eps) <= pld.get_delta_for_epsilon(eps) + 1e-12
            assert g.delta_at(eps) == pytest.approx(pld.get_delta_for_epsilon(eps), abs=2e-4)


def test_discrete_gaussian_is_tighter_than_its_zcdp():
    from privrisk.accounting import zcdp

    g = discrete_gaussian_guarantee(sigma=2.0)
    for e in (0.5, 1.0, 2.0):
        assert g.delta_at(e) <= zcdp(1 / 8).delta_at(e)


def test_huge_discrete_gaussian_falls_back_to_its_zcdp():
    from privrisk.accounting import zcdp

    g = discrete_gaussian_guarantee(sigma=1e5, sensitivity=3)
    rho = 9 / (2 * 1e10)
    assert g.delta_at(1e-4) == zcdp(rho).delta_at(1e-4)
    assert g.epsilon_at(1e-6) == zcdp(rho).epsilon_at(1e-6)
    assert "Canonne, Kamath and Steinke" in g.conversion
