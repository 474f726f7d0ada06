"""zCDP and Rényi DP straight to f-DP: each order's exact trade-off curve, the best order.

References: riskcal's conversion (Zhu, Dong and Wang 2022, App. F.1) on a grid of ρ, orders and α; the two
Rényi conditions solved again in 50-digit arithmetic (mpmath) where riskcal's solver gives up; the Gaussian
mechanism, which is ρ-zCDP and must never sit below the curve every ρ-zCDP mechanism lies above; the closed-form
(ε, δ) conversions this replaces, which must never be tighter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting import gaussian_dp, membership_risk, renyi_dp, tpr_at_fpr, zcdp
from privrisk.accounting._math import tradeoff_envelope
from privrisk.accounting.concentrated import (
    ZCDP_ORDERS,
    renyi_advantage,
    renyi_delta,
    renyi_tradeoff,
    zcdp_deltas,
)
from privrisk.accounting.guarantees import gaussian_tradeoff

riskcal = pytest.importorskip("riskcal.analysis")

ALPHAS = np.array([1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8])


@pytest.mark.parametrize("rho", [0.05, 0.125, 0.5, 2.0])
def test_zcdp_curve_matches_riskcal(rho):
    ours = zcdp(rho).tradeoff(ALPHAS)
    theirs = riskcal.get_beta_from_zcdp(rho, ALPHAS)
    # riskcal reads 1,000 orders up to 1,024 and returns the upper end of its bisection; ours refines the best
    # order between grid points and returns the lower end: the two agree to riskcal's resolution.
    assert ours == pytest.approx(theirs, abs=2e-5)


@pytest.mark.parametrize("rho", [0.05, 0.5, 2.0])
def test_zcdp_advantage_matches_riskcal(rho):
    assert membership_risk(zcdp(rho)).advantage == pytest.approx(
        riskcal.get_advantage_from_zcdp(rho), abs=2e-6
    )


def test_the_issues_number():
    # Issue 20: ρ = 0.5 gave an advantage of 0.50 through the (ε, δ) profile; riskcal gives 0.479.
    assert round(membership_risk(zcdp(0.5)).advantage, 3) == 0.479
    assert zcdp(0.5).delta_at(0.0) == pytest.approx(0.4790984, abs=1e-6)


@pytest.mark.parametrize("order", [1.5, 2.0, 8.0, 32.0])
@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_one_order_matches_riskcal(order, eps):
    ours = renyi_dp([order], [eps]).tradeoff(ALPHAS)
    theirs = riskcal.get_beta_from_rdp(eps, ALPHAS, order, tol=1e-12)
    assert ours == pytest.approx(theirs, abs=1e-10)


def mpmath_beta(order: float, eps: float, alpha: float) -> float:
    """The smallest β meeting both conditions of one order, by bisection in 50-digit arithmetic."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    lam, a, bound = mp.mpf(order), mp.mpf(alpha), mp.e ** ((mp.mpf(order) - 1) * mp.mpf(eps))

    def inside(b):
        first = (1 - a) ** (1 - lam) * b**lam + a ** (1 - lam) * (1 - b) ** lam
        second = (1 - a) ** lam * b ** (1 - lam) + a**lam * (1 - b) ** (1 - lam)
        return max(first, second) <= bound

    lo, hi = mp.mpf(0), 1 - a
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if inside(mid) else (mid, hi)
    return float(hi)


@pytest.mark.parametrize(
    ("order", "eps", "alpha"),
    [
        (25.19066453, 0.12595, 0.025),
        (1.0001, 0.005, 0.3),
        (3.0, 0.6, 1e-9),
        (200.0, 5.0, 0.01),
        (2.0, 40.0, 0.2),
    ],
)
def test_one_order_matches_fifty_digits(order, eps, alpha):
    # Where riskcal's own solver returns β = 1 − α (ρ = 0.005, order 25, α = 0.025: no privacy loss at all).
    ours = float(renyi_tradeoff(np.array([alpha]), np.array([order]), np.array([eps]))[0])
    exact = mpmath_beta(order, eps, alpha)
    assert ours <= exact  # the safe side
    # Near λ = 1 the bound (λ − 1)ε = 5·10⁻⁷ is tiny beside the terms, and the rounding allowed for costs digits.
    assert ours == pytest.approx(exact, rel=1e-9 if order < 1.01 else 1e-13, abs=1e-300)


@settings(max_examples=25, deadline=None)
@given(rho=st.floats(1e-4, 20.0), alpha=st.floats(1e-8, 0.999))
def test_the_gaussian_mechanism_is_never_below_the_zcdp_curve(rho, alpha):
    # The Gaussian mechanism with μ = √(2ρ) is ρ-zCDP: its exact curve lies above every curve ρ-zCDP implies.
    ours = float(zcdp(rho).tradeoff(alpha))
    assert ours <= float(gaussian_tradeoff(math.sqrt(2 * rho), np.array(alpha))) + 1e-12
    assert 0.0 <= ours <= 1.0 - alpha


@settings(max_examples=10, deadline=None)
@given(rho=st.floats(1e-3, 10.0))
def test_tighter_than_the_profile_envelope_and_still_safe(rho):
    g = zcdp(rho)
    grid = np.linspace(0, 1, 201)
    beta = g.tradeoff(grid)
    eps = np.linspace(0, 40, 800)
    envelope = tradeoff_envelope(grid, eps, zcdp_deltas(rho, eps))
    assert np.all(beta >= envelope - 1e-12)  # never looser than what it replaces
    assert np.all(np.diff(beta) <= 1e-12)  # decreasing
    assert np.all(beta[:-2] - 2 * beta[1:-1] + beta[2:] >= -1e-9)  # convex
    assert membership_risk(g).advantage <= zcdp_deltas(rho, np.array([0.0]))[0] + 1e-15


@pytest.mark.parametrize("rho", [0.05, 0.3, 2.0])
@pytest.mark.parametrize("eps", [0.25, 1.0, 2.0])
def test_profile_is_the_curves_own_on_the_safe_side(rho, eps):
    g = zcdp(rho)
    exact = renyi_delta(eps, ZCDP_ORDERS, rho * ZCDP_ORDERS, lambda x: rho * x)
    delta = g.delta_at(eps)
    # Safe: never below the Gaussian mechanism's own δ(ε) (it is ρ-zCDP); never above the closed form, and
    # within 0.5 % of the profile of the curve (whose golden search on the orders may miss by 10⁻⁴ where the
    # closed form optimises its order exactly).
    assert gaussian_dp(math.sqrt(2 * rho)).delta_at(eps) <= delta <= zcdp_deltas(rho, np.array([eps]))[0]
    assert delta <= exact * (1 + 5e-3)
    assert g.epsilon_at(delta) == pytest.approx(eps, rel=1e-6)


def test_renyi_dp_takes_only_its_own_orders():
    # One order bounds only that divergence: the curve is that order's, not zCDP's.
    g = renyi_dp([2.0], [0.5])
    assert g.tradeoff(ALPHAS) == pytest.approx(
        riskcal.get_beta_from_rdp(0.5, ALPHAS, 2.0, tol=1e-12), abs=1e-10
    )
    assert membership_risk(g).advantage == pytest.approx(
        renyi_advantage(np.array([2.0]), np.array([0.5])), abs=0
    )
    assert float(tpr_at_fpr(g, 0.01)) == pytest.approx(
        1 - riskcal.get_beta_from_rdp(0.5, 0.01, 2.0, tol=1e-12)
    )


@pytest.mark.parametrize("rho", [1e-12, 1e200, 1e300])
def test_extreme_rho_stays_probabilities(rho):
    g = zcdp(rho)
    beta = g.tradeoff(np.array([0.0, 1e-300, 0.01, 0.5, 1.0]))
    assert np.all(np.isfinite(beta)) and np.all((beta >= 0) & (beta <= 1))
    r = membership_risk(g, 0.3)
    assert 0 <= r.advantage <= 1 and 0.7 <= r.success <= 1
    if rho > 1:
        assert r.advantage == 1.0 and beta[2] == 0.0  # the attacker is certain
