"""The definitions: closed forms of profiles and trade-off curves against hand calculations, zCDP against OpenDP
and its documentation, Rényi DP against the formula of Balle et al. (2020), and large ε without overflow."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from privrisk.accounting import (
    approximate_dp,
    gaussian_dp,
    laplace_guarantee,
    membership_risk,
    pure_dp,
    randomised_response_guarantee,
    renyi_dp,
    zcdp,
)
from privrisk.accounting.concentrated import zcdp_deltas, zcdp_epsilon


def test_laplace_and_randomized_response_at_epsilon_1():
    # Laplace: δ(0) = 1 − e^(−1/2); success (1 + δ(0))/2 = 1 − e^(−1/2)/2 = 0.69673.
    laplace = membership_risk(laplace_guarantee(epsilon=1.0)).success
    assert laplace == pytest.approx(1 - math.exp(-0.5) / 2, abs=1e-15)
    assert round(laplace, 3) == 0.697
    # Randomized response: e/(1 + e) = 0.73106.
    rr = membership_risk(randomised_response_guarantee(epsilon=1.0)).success
    assert rr == pytest.approx(math.e / (1 + math.e), abs=1e-15)
    assert round(rr, 3) == 0.731


def test_import_is_light():
    code = (
        "import sys, privrisk.accounting as a; g = a.approximate_dp(1.0, 1e-6); g.delta_at(0.5); g.tradeoff(0.1);"
        "a.pure_dp(2).epsilon_at(0.1); a.membership_risk(a.pure_dp(1.0), 0.3);"
        "a.risk_summary(a.laplace_guarantee(epsilon=1.0), at_delta=1e-6, at_epsilon=0.5);"
        "a.risk_summary(a.approximate_dp(1.0, 1e-6)); a.calibrate(target='success', value=0.7, solve_for='epsilon');"
        "a.pure_dp(1.0).compose(5).epsilon_at(1e-6); a.group(a.pure_dp(1.0), 3); a.subsample(a.pure_dp(1.0), 0.1);"
        "print(sorted(m for m in ('scipy', 'pandas', 'dp_accounting', 'opendp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------------------------------------ pure ε
def test_pure_profile_closed_form():
    g = pure_dp(2.0)
    for e in (0.0, 0.5, 1.9):
        assert g.delta_at(e) == pytest.approx((math.exp(2.0) - math.exp(e)) / (1 + math.exp(2.0)), rel=1e-14)
    assert g.delta_at(2.0) == 0.0
    assert g.delta_at(5.0) == 0.0
    assert g.epsilon_at(g.delta_at(0.7)) == pytest.approx(0.7, rel=1e-12)
    assert g.epsilon_at(0.0) == 2.0
    assert g.epsilon_at(0.99) == 0.0


def test_pure_tradeoff_closed_form():
    eps = 1.3
    a = np.linspace(0, 1, 101)
    expected = np.maximum.reduce([np.zeros_like(a), 1 - math.exp(eps) * a, math.exp(-eps) * (1 - a)])
    assert np.allclose(pure_dp(eps).tradeoff(a), expected, atol=1e-15)


@pytest.mark.parametrize("eps", [700.0, 710.0, 1e4])
def test_pure_at_huge_epsilon(eps):
    g = pure_dp(eps)
    assert g.delta_at(0.0) == 1.0
    assert g.delta_at(eps / 2) == 1.0
    assert g.epsilon_at(0.5) == pytest.approx(eps - math.log(2.0), rel=1e-12)
    beta = g.tradeoff(np.array([0.0, 1e-300, 0.5, 1.0]))
    assert np.all(np.isfinite(beta)) and np.all((beta >= 0) & (beta <= 1))
    assert beta[0] == 1.0 and beta[-1] == 0.0
    r = membership_risk(g, 0.5)
    assert (r.success, r.advantage, r.posterior_max) == (1.0, 1.0, 1.0)
    assert membership_risk(g, 1e-300).posterior_max <= 1.0


# ------------------------------------------------------------------------------------------------ (ε, δ)
def test_approximate_profile_is_the_kairouz_mechanism_brute_force():
    eps, d = 0.8, 0.02
    # The four outcomes of the worst (ε, δ) mechanism (Kairouz, Oh and Viswanath 2015, Thm. 2.1).
    p = np.array([d, (1 - d) * math.exp(eps) / (1 + math.exp(eps)), (1 - d) / (1 + math.exp(eps)), 0.0])
    q = p[::-1]
    g = approximate_dp(eps, d)
    for e in (0.0, 0.3, 0.79, 0.8, 2.0):
        assert g.delta_at(e) == pytest.approx(np.maximum(p - math.exp(e) * q, 0).sum(), rel=1e-13)


def test_approximate_inverse_and_floor():
    g = approximate_dp(1.0, 1e-5)
    assert g.epsilon_at(1e-5) == 1.0
    assert g.epsilon_at(1e-6) == math.inf
    assert g.epsilon_at(g.delta_at(0.4)) == pytest.approx(0.4, rel=1e-10)
    assert approximate_dp(1.0, 0.0).pure_epsilon == 1.0


def test_approximate_curve_closed_form():
    g = approximate_dp(1.0, 0.01)
    a = np.array([0.0, 0.1, 0.5, 0.9])
    expected = np.maximum.reduce([np.zeros(4), 0.99 - math.e * a, math.exp(-1) * (0.99 - a)])
    assert np.allclose(g.tradeoff(a), expected, atol=1e-15)


def test_approximate_curve_matches_riskcal():
    analysis = pytest.importorskip("riskcal.analysis")
    a = np.array([0.001, 0.01, 0.1, 0.3, 0.7])
    assert np.allclose(
        approximate_dp(1.0, 1e-3).tradeoff(a), analysis.get_beta_for_epsilon_delta(1.0, 1e-3, a)
    )
    assert approximate_dp(1.0, 1e-3).delta_at(0.0) == pytest.approx(
        analysis.get_advantage_for_epsilon_delta(1.0, 1e-3), rel=1e-12
    )


# ------------------------------------------------------------------------------------------------ Gaussian DP
def test_gaussian_profile_and_curve_closed_form():
    from scipy.stats import norm

    g = gaussian_dp(1.5)
    for e in (0.0, 1.0, 3.0):
        expected = norm.cdf(-e / 1.5 + 0.75) - math.exp(e) * norm.cdf(-e / 1.5 - 0.75)
        assert g.delta_at(e) == pytest.approx(expected, rel=1e-12)
    alpha = np.array([0.01, 0.2, 0.7])
    assert np.allclose(g.tradeoff(alpha), norm.cdf(norm.ppf(1 - alpha) - 1.5), rtol=1e-12)
    assert g.delta_at(0.0) == pytest.approx(2 * norm.cdf(0.75) - 1, rel=1e-13)


def test_gaussian_inverse_and_tail():
    g = gaussian_dp(0.5)
    e = g.epsilon_at(1e-10)
    assert g.delta_at(e) <= 1e-10 < g.delta_at(e * (1 - 1e-9))
    assert g.epsilon_at(0.0) == math.inf
    # Far in the tail, where Φ underflows in the naive difference, the log-space value stays accurate.
    from scipy.stats import norm

    mu, eps = 3.0, 40.0
    a, b = -eps / mu + mu / 2, -eps / mu - mu / 2
    expected = math.exp(norm.logcdf(a)) - math.exp(eps + norm.logcdf(b))
    assert gaussian_dp(mu).delta_at(eps) == pytest.approx(expected, rel=1e-8)
    assert expected < 1e-15
    for mu, eps in ((50.0, 700.0), (1.0, 1e4), (1e3, 1e4)):
        assert 0 <= gaussian_dp(mu).delta_at(eps) <= 1


def test_gaussian_matches_riskcal():
    analysis = pytest.importorskip("riskcal.analysis")
    a = np.array([0.001, 0.05, 0.5])
    assert np.allclose(gaussian_dp(0.8).tradeoff(a), analysis.get_beta_for_mu(0.8, a), rtol=1e-10)
    for prior in (0.1, 0.5, 0.8):
        bayes = analysis.get_bayes_risk_for_mu(0.8, prior)
        assert 1 - membership_risk(gaussian_dp(0.8), prior).success == pytest.approx(bayes, rel=1e-9)


# ------------------------------------------------------------------------------------------------ zCDP
# OpenDP's documentation converts the zCDP of its Gaussian mechanism with make_zCDP_to_approxDP; these are the
# values OpenDP 0.16 computes (Canonne, Kamath and Steinke 2020, Cor. 13), checked live below as well.
OPENDP_ZCDP = [
    (0.5, 1e-6, 5.22153444453017),
    (2.63, 1e-10, 17.430584487345115),
    (0.01, 1e-6, 0.6216926545596027),
    (1e-4, 1e-3, 0.020975355701652217),
]


@pytest.mark.parametrize(("rho", "delta", "epsilon"), OPENDP_ZCDP)
def test_zcdp_matches_opendp_values(rho, delta, epsilon):
    # The closed form is OpenDP's; the guarantee's ε(δ) inverts its trade-off curve's profile where that is
    # smaller (privrisk.accounting.concentrated), so it is never above it.
    assert zcdp_epsilon(rho, delta) == pytest.approx(epsilon, rel=1e-12)
    assert zcdp(rho).epsilon_at(delta) <= epsilon * (1 + 1e-12)


def test_zcdp_matches_opendps_own_test_values():
    # OpenDP's test of make_zCDP_to_approxDP (src/combinators/measure_cast/zCDP_to_approxDP/test.rs): the
    # Gaussian mechanism with scale 4 at d_in = 1, ρ = (1/4)²/2; ε(10⁻³) = 0.6880024554878086 and
    # δ(0.6880024554878085) = 10⁻³. Its δ(0) = 0.1508457845622862 is the bare conversion; Pinsker's inequality
    # gives √(ρ/2) = 0.125 here, which is smaller, and both are valid.
    rho = (1 / 4) ** 2 / 2
    assert zcdp_epsilon(rho, 1e-3) == pytest.approx(0.6880024554878086, rel=1e-13)
    assert zcdp_deltas(rho, np.array([0.6880024554878085]))[0] == pytest.approx(1e-3, rel=1e-9)
    g = zcdp(rho)
    assert g.epsilon_at(1e-3) <= 0.6880024554878086 and g.delta_at(0.6880024554878085) <= 1e-3
    # δ(0) is now the advantage of the trade-off curve, below both closed forms and above the Gaussian's own.
    assert gaussian_dp(0.25).delta_at(0.0) <= g.delta_at(0.0) <= min(0.1508457845622862, math.sqrt(1 / 64))


@pytest.mark.parametrize("rho", [1e-3, 0.125, 1.0, 2.63, 40.0])
def test_zcdp_matches_opendp_live(rho):
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    gaussian = dp.m.make_gaussian(*space, scale=math.sqrt(1 / (2 * rho)))  # ρ = Δ²/(2σ²)
    assert gaussian.map(1.0) == pytest.approx(rho, rel=1e-12)
    profile = dp.c.make_zCDP_to_approxDP(gaussian).map(1.0)
    g = zcdp(rho)  # one guarantee for the three δ: it builds its trade-off curve once (seconds), not three times
    for delta in (1e-9, 1e-5, 1e-2):
        assert zcdp_epsilon(rho, delta) == pytest.approx(profile.epsilon(delta), rel=1e-10, abs=1e-12)
        assert g.epsilon_at(delta) <= profile.epsilon(delta) * (1 + 1e-10) + 1e-12


def test_zcdp_profile_and_inverse_agree():
    g = zcdp(0.7)
    for delta in (1e-12, 1e-6, 1e-3, 0.1):
        e = g.epsilon_at(delta)
        assert g.delta_at(e) == pytest.approx(delta, rel=1e-6)


def test_zcdp_profile_is_the_optimised_formula():
    # Canonne, Kamath and Steinke (2020), Prop. 12: δ = e^((α−1)(αρ−ε))/(α − 1) · (1 − 1/α)^α, best α on a grid.
    rho, eps = 0.3, 2.0
    alphas = np.linspace(1.001, 30, 200_000)
    grid = np.min(np.exp((alphas - 1) * (alphas * rho - eps)) / (alphas - 1) * (1 - 1 / alphas) ** alphas)
    assert zcdp_deltas(rho, np.array([eps]))[0] == pytest.approx(grid, rel=1e-6)
    assert zcdp(rho).delta_at(eps) <= zcdp_deltas(rho, np.array([eps]))[0] <= grid


def test_zcdp_is_looser_than_the_gaussian_it_comes_from():
    # ρ = μ²/2 for the Gaussian mechanism; the conversion never promises more than the exact profile.
    for e in (0.0, 0.5, 2.0, 5.0):
        assert zcdp(0.5).delta_at(e) >= gaussian_dp(1.0).delta_at(e) - 1e-15


# ------------------------------------------------------------------------------------------------ Rényi DP
def test_renyi_conversion_formula():
    # Balle et al. (2020), Thm. 21 at one order: ε = ε_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1).
    g = renyi_dp([4.0], [1.0])
    delta = 1e-5
    expected = 1.0 + math.log(1 - 1 / 4) - (math.log(delta) + math.log(4)) / 3
    assert g._closed_epsilon(delta) == pytest.approx(expected, rel=1e-14)
    # The guarantee also reads its trade-off curve's profile, never above the closed form.
    assert g.epsilon_at(delta) <= expected and g.delta_at(expected) <= delta * (1 + 1e-10)


@pytest.mark.slow  # a few seconds: Rényi curves at many orders
def test_renyi_of_zcdp_approaches_zcdp():
    # Dense (steps of 0.01) where the best order lies (about 6 for ρ = 0.5 at δ = 10⁻⁶), sparse up to 200: the
    # same density at the optimum as 20,000 even steps, at a tenth of the orders (rel. error 1.8e-7, not 5e-8).
    orders = np.concatenate([np.linspace(1.01, 20, 1_900), np.geomspace(20.01, 200, 100)])
    g = renyi_dp(orders, 0.5 * orders)
    assert g.epsilon_at(1e-6) == pytest.approx(zcdp(0.5).epsilon_at(1e-6), rel=1e-6)
    assert g.epsilon_at(1e-6) >= zcdp(0.5).epsilon_at(1e-6) - 1e-12


def test_renyi_orders_sorted_and_checked():
    g = renyi_dp([8, 2], [0.4, 0.1])
    assert g.orders == (2.0, 8.0) and g.epsilons == (0.1, 0.4)
