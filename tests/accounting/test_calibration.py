"""Calibration: each answer against a closed form, and the boundary exactly (the returned parameter meets the
target, a hair beyond it does not)."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from privrisk.accounting import Calibration, calibrate, gaussian_guarantee, membership_risk
from privrisk.accounting.calibration import analytic_gaussian_sigma
from privrisk.errors import PrivriskError
from privrisk.risk import epsilon_for_risk

HAIR = 1e-9


def beyond(c: Calibration) -> float:
    """The parameter a hair on the risky side: larger ε, ρ, μ; smaller scale, σ."""
    return c.parameter * (1 - HAIR) if c.solve_for in ("scale", "sigma") else c.parameter * (1 + HAIR)


def risk_of(c: Calibration, parameter: float, **kw) -> float:
    again = calibrate(target=c.target, value=c.target_value, solve_for=c.solve_for, **kw)
    assert again.parameter == c.parameter
    return parameter


def test_pure_epsilon_for_a_success_is_ln3():
    c = calibrate(target="success", value=0.75, solve_for="epsilon")
    assert c.parameter == pytest.approx(math.log(3), rel=1e-12)
    assert c.achieved <= 0.75
    assert membership_risk(type(c.guarantee)(beyond(c))).success > 0.75


def test_laplace_scale_for_a_success_closed_form():
    # success = 1 − e^(−ε/2)/2 ⇒ ε = −2 ln(2(1 − s)), b = Δ/ε.
    s, delta_f = 0.65, 3.0
    c = calibrate(target="success", value=s, solve_for="scale", mechanism="laplace", sensitivity=delta_f)
    expected = delta_f / (-2 * math.log(2 * (1 - s)))
    assert c.parameter == pytest.approx(expected, rel=1e-12)
    from privrisk.accounting import laplace_guarantee

    assert membership_risk(laplace_guarantee(scale=c.parameter, sensitivity=delta_f)).success <= s
    assert membership_risk(laplace_guarantee(scale=beyond(c), sensitivity=delta_f)).success > s


def test_gaussian_sigma_for_an_advantage_closed_form():
    # advantage = δ(0) = 2Φ(μ/2) − 1 ⇒ μ = 2Φ⁻¹((1 + a)/2).
    a = 0.2
    c = calibrate(target="advantage", value=a, solve_for="sigma", mechanism="gaussian", sensitivity=2.0)
    mu = 2 * norm.ppf((1 + a) / 2)
    assert c.parameter == pytest.approx(2.0 / mu, rel=1e-10)
    assert membership_risk(gaussian_guarantee(sigma=c.parameter, sensitivity=2.0)).advantage <= a
    assert membership_risk(gaussian_guarantee(sigma=beyond(c), sensitivity=2.0)).advantage > a
    m = calibrate(target="advantage", value=a, solve_for="mu")
    assert m.parameter == pytest.approx(mu, rel=1e-10)


def test_tpr_target_pure_closed_form():
    # TPR at α small: e^ε α ⇒ ε = ln(t/α).
    c = calibrate(target="tpr", value=0.05, solve_for="epsilon", fpr=0.01)
    assert c.parameter == pytest.approx(math.log(5), rel=1e-12)
    from privrisk.accounting import pure_dp, tpr_at_fpr

    assert tpr_at_fpr(pure_dp(c.parameter), 0.01) <= 0.05 < tpr_at_fpr(pure_dp(beyond(c)), 0.01)


def test_risk_target_is_lee_clifton():
    c = calibrate(target="risk", value=0.25, solve_for="epsilon", n=10)
    assert c.parameter == pytest.approx(float(epsilon_for_risk(0.25, 10)), rel=1e-12)
    rr = calibrate(target="risk", value=0.25, solve_for="epsilon", mechanism="rr", n=10)
    assert rr.parameter == pytest.approx(c.parameter, rel=1e-12)


def test_zcdp_rho_boundary():
    from privrisk.accounting import zcdp

    c = calibrate(target="success", value=0.6, solve_for="rho")
    assert membership_risk(zcdp(c.parameter)).success <= 0.6 < membership_risk(zcdp(beyond(c))).success


def test_epsilon_delta_target():
    from privrisk.accounting import approximate_dp

    c = calibrate(target="success", value=0.7, solve_for="epsilon", delta=1e-3)
    # (e^ε + δ)/(1 + e^ε) = s ⇒ e^ε = (s − δ)/(1 − s).
    assert c.parameter == pytest.approx(math.log((0.7 - 1e-3) / 0.3), rel=1e-12)
    assert membership_risk(approximate_dp(beyond(c), 1e-3)).success > 0.7


def test_gaussian_with_delta_is_the_analytic_gaussian():
    c = calibrate(target="success", value=0.7, solve_for="sigma", mechanism="gaussian", delta=1e-5)
    eps = math.log((0.7 - 1e-5) / 0.3)
    sigma = analytic_gaussian_sigma(eps, 1e-5)
    assert c.parameter == pytest.approx(sigma, rel=1e-12)
    g = gaussian_guarantee(sigma=sigma)
    assert g.delta_at(eps) <= 1e-5 < gaussian_guarantee(sigma=sigma * (1 - HAIR)).delta_at(eps)
    assert "Balle and Wang" in c.method
    # The exact Gaussian is safer than the target that fixed (ε, δ).
    assert membership_risk(g).success <= 0.7


def test_gaussian_epsilon_with_delta():
    c = calibrate(target="advantage", value=0.3, solve_for="epsilon", mechanism="gaussian", delta=1e-6)
    # (ε, δ) advantage δ(0) = (e^ε − 1 + 2δ)/(e^ε + 1) = a ⇒ e^ε = (1 + a − 2δ)/(1 − a).
    assert c.parameter == pytest.approx(math.log((1.3 - 2e-6) / 0.7), rel=1e-12)
    assert c.guarantee.delta_at(c.parameter) <= 1e-6


def test_analytic_gaussian_against_the_classical_bound():
    # Dwork and Roth's σ = √(2 ln(1.25/δ))/ε is valid for ε < 1, so the analytic σ is smaller.
    for eps in (0.1, 0.5, 0.9):
        assert analytic_gaussian_sigma(eps, 1e-5) < math.sqrt(2 * math.log(1.25 / 1e-5)) / eps


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"target": "odds", "value": 0.6, "solve_for": "epsilon"}, "target"),
        ({"target": "success", "value": 0.6, "solve_for": "sigma"}, "solve_for"),
        ({"target": "success", "value": 0.5, "solve_for": "epsilon"}, "value"),
        ({"target": "success", "value": 1.0, "solve_for": "epsilon"}, "value"),
        ({"target": "advantage", "value": -0.1, "solve_for": "epsilon"}, "value"),
        ({"target": "tpr", "value": 0.5, "solve_for": "epsilon"}, "fpr"),
        ({"target": "tpr", "value": 0.01, "solve_for": "epsilon", "fpr": 0.05}, "value"),
        ({"target": "risk", "value": 0.5, "solve_for": "epsilon"}, "n"),
        ({"target": "risk", "value": 0.05, "solve_for": "epsilon", "n": 10}, "value"),
        ({"target": "success", "value": 0.6, "solve_for": "epsilon", "mechanism": "cauchy"}, "mechanism"),
        (
            {"target": "success", "value": 0.6, "solve_for": "scale", "mechanism": "laplace", "delta": 1e-6},
            "delta",
        ),
        ({"target": "success", "value": 0.6, "solve_for": "rho", "delta": 1e-6}, "delta"),
        ({"target": "success", "value": 0.6, "solve_for": "epsilon", "mechanism": "gaussian"}, "solve_for"),
        ({"target": "advantage", "value": 1e-4, "solve_for": "epsilon", "delta": 1e-3}, "value"),
        ({"target": "success", "value": 0.6, "solve_for": "epsilon", "prior": 1.0}, "prior"),
        (
            {
                "target": "success",
                "value": 0.6,
                "solve_for": "scale",
                "mechanism": "laplace",
                "sensitivity": 0,
            },
            "sensitivity",
        ),
    ],
)
def test_bad_calibrations(kwargs, param):
    with pytest.raises(PrivriskError) as info:
        calibrate(**kwargs)
    assert info.value.param == param
    assert "\n" not in str(info.value)


def test_calibration_to_dict():
    c = calibrate(target="success", value=0.75, solve_for="epsilon")
    d = c.to_dict()
    assert d["guarantee"].startswith("ε = 1.099") and d["target"] == "success" and d["achieved"] <= 0.75
