"""CalibrationSettings and run_calibration: one way into calibration for the command line and the library.

Each rule of the settings is checked with the field its error names; the calibrated values against hand
calculations: the advantage of ε-DP (and of randomized response, its worst case) is (e^ε − 1)/(e^ε + 1), so
ε = ln((1 + a)/(1 − a)); the Laplace mechanism's advantage is the total variation 1 − e^(−Δ/2b) of its two output
laws; μ-GDP's is 2Φ(μ/2) − 1 with μ = Δ/σ (and √k·μ for k compositions); a pure ε on a Poisson sample of rate γ is
ln(1 + γ(e^ε − 1))-DP.
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist

import pytest

from privrisk.accounting.calibration_settings import CalibrationSettings, run_calibration
from privrisk.errors import PrivriskError

PHI_INV = NormalDist().inv_cdf


def settings(**fields):
    return CalibrationSettings(**{"target": "advantage", "value": 0.2, **fields})


# ------------------------------------------------------------------------------------------ one rule, one param
@pytest.mark.parametrize(
    ("fields", "param", "words"),
    [
        ({"target": "loss"}, "target", "unknown target"),
        ({"mechanism": "exponential"}, "mechanism", "unknown mechanism"),
        ({"solve_for": "k"}, "solve_for", "unknown solve_for"),
        ({"sigma": 2.0}, "solve_for", "say what to solve for"),
        ({"target": "risk", "value": 0.5}, "n", "number of candidates"),
        ({"n": 10}, "n", "only with the target risk"),
        ({"target": "tpr", "value": 0.5}, "fpr", "false-positive rate"),
        ({"fpr": 0.01}, "fpr", "only with the target tpr"),
        ({"target": "epsilon", "value": 1.0}, "delta", "ε at a δ"),
        ({"delta": 1.0}, "delta", "[0, 1)"),
        ({"delta": float("nan")}, "delta", "[0, 1)"),
        ({"sampling": "bernoulli", "sample_rate": 0.1}, "sampling", "unknown sampling"),
        ({"sampling": "poisson"}, "sampling", "only with sample_rate"),
        ({"solve_for": "steps"}, "solve_for", "give one release"),
        ({"solve_for": "sample_rate"}, "solve_for", "give one release"),
        ({"epsilon": 1.0, "solve_for": "epsilon"}, "epsilon", "for solving for sample-rate or steps"),
        ({"rho": 0.1, "solve_for": "rho"}, "rho", "for solving for sample-rate or steps"),
        ({"mechanism": "gaussian", "sensitivity": -1.0}, "sensitivity", "greater than 0"),
        ({"mechanism": "gaussian", "sensitivity": math.inf}, "sensitivity", "greater than 0"),
        # The checks calibrate() makes run when the settings are made, before any search.
        ({"compose": 0}, "compose", "compose"),
        ({"group": 0}, "group", "group"),
        ({"sample_rate": 2.0}, "sample_rate", "sample_rate"),
        ({"prior": 1.0}, "prior", "prior"),
        ({"value": 0.0}, "value", "above 0"),
        ({"target": "success", "value": 0.4}, "value", "above 0.5"),
        ({"mechanism": "gaussian", "delta": 1e-6, "compose": 2}, "delta", "a δ applies"),
        ({"mechanism": "laplace", "solve_for": "sigma"}, "solve_for", "not sigma"),
        ({"mechanism": "gaussian", "solve_for": "epsilon"}, "solve_for", "only at a δ"),
        ({"epsilon": 1.0, "solve_for": "steps", "compose": 3}, "compose", "leave it at 1"),
        ({"epsilon": 1.0, "solve_for": "sample-rate", "sample_rate": 0.1}, "sample_rate", "leave it out"),
        ({"epsilon": 1.0, "rho": 0.1, "solve_for": "steps"}, "rho", "exactly one guarantee"),
        ({"mechanism": "laplace", "solve_for": "steps"}, "epsilon", "laplace"),
    ],
)
def test_each_rule_names_its_field(fields, param, words):
    with pytest.raises(PrivriskError) as caught:
        settings(**fields)
    assert caught.value.param == param
    assert str(caught.value).startswith(f"{param}:") and words in str(caught.value)


def test_messages_name_the_fields_as_the_caller_does():
    names = {"delta": "--delta", "value": "--target-epsilon"}
    with pytest.raises(PrivriskError) as caught:
        CalibrationSettings(target="epsilon", value="ln3", names=names)
    assert caught.value.param == "delta"
    assert str(caught.value) == "--delta: the target epsilon (--target-epsilon) is ε at a δ; give --delta"
    # An error of the run (no number of steps meets the target) is named the same way.
    s = CalibrationSettings(
        target="success", value=0.6, epsilon=5.0, solve_for="steps", names={"value": "Bound"}
    )
    with pytest.raises(PrivriskError, match=r"^Bound: .*one step") as caught:
        run_calibration(s)
    assert caught.value.param == "value"


def test_frozen_and_normalised():
    s = settings(solve_for="sample-rate", epsilon="ln3", sampling="without_replacement", sample_rate=None)
    assert (s.solve_for, s.sampling, s.how) == ("sample_rate", "without-replacement", "without-replacement")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.value = 0.3  # type: ignore[misc]
    assert (
        settings(mechanism="Gaussian").solve_for == "sigma"
        and settings(mechanism="laplace").solve_for == "scale"
    )
    assert settings(mechanism="rr").solve_for == "epsilon" and settings().solve_for == "epsilon"
    assert settings(names={"value": "x"}) == settings()  # the names are how messages speak, not a setting


# ------------------------------------------------------------------------------------------ hand calculations
@pytest.mark.parametrize("a", [0.05, 0.2, 0.5, 0.9])
def test_pure_epsilon_and_randomized_response_for_an_advantage(a):
    expected = math.log((1 + a) / (1 - a))  # (e^ε − 1)/(e^ε + 1) = a
    for mechanism in (None, "rr"):
        c = run_calibration(settings(value=a, mechanism=mechanism)).calibration
        assert c.parameter == pytest.approx(expected, rel=1e-9) and c.achieved <= a


@pytest.mark.parametrize(("a", "sensitivity"), [(0.2, 1.0), (0.5, 2.0), (0.9, 1e6)])
def test_laplace_scale_for_an_advantage(a, sensitivity):
    # Lap(0, b) against Lap(Δ, b): total variation 1 − e^(−Δ/2b) = a, so b = Δ / (2 ln(1/(1 − a))).
    c = run_calibration(settings(value=a, mechanism="laplace", sensitivity=sensitivity)).calibration
    assert c.parameter == pytest.approx(sensitivity / (2 * math.log(1 / (1 - a))), rel=1e-9)
    assert c.solve_for == "scale" and c.achieved <= a


def test_gaussian_sigma_composed_k_times():
    # 2Φ(μ/2) − 1 = a with μ = √k · Δ/σ.
    a, k, sensitivity = 0.3, 9, 2.0
    mu = 2 * PHI_INV((1 + a) / 2)
    c = run_calibration(
        settings(value=a, mechanism="gaussian", compose=k, sensitivity=sensitivity)
    ).calibration
    assert c.parameter == pytest.approx(math.sqrt(k) * sensitivity / mu, rel=1e-9) and c.compose == k


def test_largest_sample_rate_of_a_given_release():
    # Success 0.6 of pure ε′: e^ε′ = 1.5 = 1 + γ(3 − 1) with e^ε = 3, so γ = 1/4.
    run = run_calibration(
        CalibrationSettings(target="success", value=0.6, epsilon="ln3", solve_for="sample-rate")
    )
    assert run.calibration.parameter == pytest.approx(0.25, rel=1e-9)


def test_most_steps_of_a_gaussian_release():
    # μ = √k/σ: the largest k with 2Φ(√k/(2σ)) − 1 ≤ a is ⌊(σ·μ_a)²⌋.
    a, sigma = 0.3, 5.0
    run = run_calibration(
        CalibrationSettings(target="advantage", value=a, mechanism="gaussian", sigma=sigma, solve_for="steps")
    )
    assert run.calibration.parameter == math.floor((sigma * 2 * PHI_INV((1 + a) / 2)) ** 2)


def test_target_risk_among_n_of_pure_epsilon():
    # ρ_mw = 1/(1 + (n − 1)e^(−ε)) = r, so ε = ln((n − 1) r/(1 − r)).
    r, n = 0.2, 21
    c = run_calibration(settings(target="risk", value=r, n=n)).calibration
    assert c.parameter == pytest.approx(math.log((n - 1) * r / (1 - r)), rel=1e-9)


# ------------------------------------------------------------------------------------------ the command's JSON
@pytest.mark.parametrize(
    ("args", "fields"),
    [
        (["--target-advantage", "0.2", "--mechanism", "gaussian", "--compose", "4", "--group", "2"],
         {"target": "advantage", "value": 0.2, "mechanism": "gaussian", "compose": 4, "group": 2}),
        (["--target-success", "0.6", "--epsilon", "ln3", "--solve-for", "sample-rate", "--sampling",
          "without-replacement"],
         {"target": "success", "value": 0.6, "epsilon": "ln3", "solve_for": "sample-rate",
          "sampling": "without-replacement"}),
        (["--target-tpr", "0.1@0.01", "--prior", "0.3"], {"target": "tpr", "value": 0.1, "fpr": 0.01, "prior": 0.3}),
        (["--target-risk", "0.2", "--n", "21"], {"target": "risk", "value": 0.2, "n": 21}),
        (["--target-epsilon", "1", "--delta", "1e-5", "--mechanism", "gaussian"],
         {"target": "epsilon", "value": 1.0, "delta": 1e-5, "mechanism": "gaussian"}),
        (["--target-advantage", "0.3", "--mechanism", "rr", "--sample-rate", "0.1", "--compose", "3"],
         {"target": "advantage", "value": 0.3, "mechanism": "rr", "sample_rate": 0.1, "compose": 3}),
    ],
)  # fmt: skip
def test_to_dict_is_the_commands_json(cli, args, fields):
    r = cli("calibrate", *args, "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["schema_version"] == 1
    assert run_calibration(CalibrationSettings(**fields)).to_dict() == doc
