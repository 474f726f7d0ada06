"""``privrisk calibrate`` for compositions (issue 20): the modifiers of ``risk``, the sample rate and the number of
steps as unknowns, ε at δ as a target, the ln3 forms of ε, noise in units of the sensitivity, one-line errors."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from helpers import one_line_error

Z = NormalDist().inv_cdf


def calibrated(cli, *args):
    r = cli("calibrate", *args, "--json")
    assert r.code == 0, r.err
    return r.json


def risk(cli, *args):
    r = cli("risk", *args, "--json")
    assert r.code == 0, r.err
    return r.json


def test_sigma_for_composed_grouped_gaussian_releases(cli):
    one = calibrated(cli, "--target-advantage", "0.2", "--mechanism", "gaussian")["parameter"]
    doc = calibrated(
        cli, "--target-advantage", "0.2", "--mechanism", "gaussian", "--compose", "4", "--group", "2"
    )
    assert doc["parameter"] == pytest.approx(4 * one, rel=1e-10)  # μ = g√k/σ
    assert (doc["compose"], doc["group"]) == (4, 2) and doc["achieved"] <= 0.2
    again = risk(
        cli, "--mechanism", "gaussian", "--sigma", repr(doc["parameter"]), "--compose", "4", "--group", "2"
    )
    assert again["advantage"] <= 0.2


def test_most_steps(cli):
    doc = calibrated(
        cli, "--target-advantage", "0.3", "--mechanism", "gaussian", "--sigma", "5", "--solve-for", "steps"
    )
    mu = 2 * Z(1.3 / 2)  # 2Φ(μ/2) − 1 = 0.3
    assert doc["parameter"] == math.floor((5 * mu) ** 2) == doc["compose"]
    r = cli(
        "calibrate",
        "--target-advantage",
        "0.3",
        "--mechanism",
        "gaussian",
        "--sigma",
        "5",
        "--solve-for",
        "steps",
    )
    assert r.code == 0 and "The largest number of steps is 14:" in r.out


@pytest.mark.parametrize("epsilon", ["ln3", "ln(3)", "log(3)", "1.0986122886681098"])
def test_largest_sample_rate_with_every_form_of_epsilon(cli, epsilon):
    # Success 0.6 of pure ε′: e^ε′ = 1.5; ε′ = ln(1 + γ(e^ε − 1)) with e^ε = 3 gives γ = 0.25.
    doc = calibrated(cli, "--target-success", "0.6", "--epsilon", epsilon, "--solve-for", "sample-rate")
    assert doc["parameter"] == pytest.approx(0.25, rel=1e-10) and doc["sample_rate"] == doc["parameter"]
    assert doc["sampling"] == "poisson"


def test_sampling_without_replacement(cli):
    doc = calibrated(cli, "--target-success", "0.6", "--epsilon", "ln3", "--solve-for", "sample-rate",
                     "--sampling", "without-replacement")  # fmt: skip
    assert doc["parameter"] == pytest.approx(0.25, rel=1e-10) and doc["sampling"] == "without-replacement"
    assert "without replacement" in doc["conversion"]


@pytest.mark.parametrize("target", ["ln3", "ln(3)", "log(3)"])
def test_target_epsilon_at_delta(cli, target):
    doc = calibrated(cli, "--target-epsilon", target, "--delta", "1e-5", "--mechanism", "gaussian")
    assert doc["target"] == "epsilon" and doc["target_value"] == pytest.approx(math.log(3), rel=1e-15)
    assert doc["achieved"] <= math.log(3) and doc["delta"] == 1e-5
    eps = risk(cli, "--mechanism", "gaussian", "--sigma", repr(doc["parameter"]), "--at-delta", "1e-5")
    assert eps["epsilon_at_delta"] <= math.log(3) * (1 + 1e-12)


def test_the_issues_huge_sensitivity(cli):
    # Issue 20: σ = 1.14e26 gave success 0.999994 while the command said "achieved 0.6".
    doc = calibrated(cli, "--target-success", "0.6", "--mechanism", "gaussian", "--sensitivity", "1e27",
                     "--delta", "1e-6")  # fmt: skip
    unit = calibrated(cli, "--target-success", "0.6", "--mechanism", "gaussian", "--delta", "1e-6")
    assert doc["parameter"] == pytest.approx(1e27 * unit["parameter"], rel=1e-12)
    again = risk(cli, "--mechanism", "gaussian", "--sigma", repr(doc["parameter"]), "--sensitivity", "1e27")
    assert again["success"] == pytest.approx(doc["achieved"], rel=1e-12) and again["success"] <= 0.6


def test_text_output(cli):
    r = cli("calibrate", "--target-epsilon", "1", "--delta", "1e-5", "--mechanism", "gaussian")
    assert r.code == 0 and "The least Gaussian σ is 3.7306" in r.out and "at δ = 1e-05 (target 1)" in r.out
    assert "Method:" in r.err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--target-epsilon", "1"], ["--delta", "--target-epsilon"]),
        (["--target-epsilon", "ln(-1)", "--delta", "1e-5"], ["--target-epsilon"]),
        (["--target-success", "0.6", "--sigma", "2"], ["--solve-for", "sample-rate or steps"]),
        (["--target-success", "0.6", "--solve-for", "steps"], ["--solve-for", "give one release"]),
        (
            ["--target-success", "0.6", "--epsilon", "1", "--solve-for", "steps", "--compose", "3"],
            ["--compose"],
        ),
        (
            [
                "--target-success",
                "0.6",
                "--epsilon",
                "1",
                "--solve-for",
                "sample-rate",
                "--sample-rate",
                "0.1",
            ],
            ["--sample-rate"],
        ),
        (["--target-success", "0.6", "--mechanism", "gaussian", "--compose", "0"], ["--compose"]),
        (["--target-success", "0.6", "--mechanism", "gaussian", "--sample-rate", "2"], ["--sample-rate"]),
        (["--target-success", "0.6", "--mechanism", "gaussian", "--sampling", "bernoulli"], ["--sampling"]),
        (["--target-success", "0.6", "--mechanism", "gaussian", "--sampling", "poisson"], ["--sampling"]),
        (
            ["--target-success", "0.6", "--mechanism", "gaussian", "--delta", "1e-6", "--compose", "2"],
            ["--delta"],
        ),
        (
            ["--target-success", "0.6", "--epsilon", "ln3", "--solve-for", "sigma"],
            ["--epsilon", "sample-rate"],
        ),
        (
            ["--target-success", "0.6", "--epsilon", "5", "--solve-for", "steps"],
            ["--target-success", "one step"],
        ),
        (["--target-success", "0.6", "--mechanism", "gaussian", "--sensitivity", "-1"], ["--sensitivity"]),
    ],
)
def test_calibrate_bad_input(cli, args, fragments):
    one_line_error(cli("calibrate", *args), *fragments)
