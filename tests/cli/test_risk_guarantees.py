"""``privrisk risk`` for every guarantee: JSON against hand values, exactly one guarantee, modifiers, light import."""

from __future__ import annotations

import math
import subprocess
import sys
from statistics import NormalDist

import pytest

from helpers import one_line_error

PHI, Z = NormalDist().cdf, NormalDist().inv_cdf
E = math.e


def test_laplace_and_randomized_response_at_epsilon_one(cli):
    lap = cli("risk", "--mechanism", "laplace", "--epsilon", "1", "--json").json
    # Laplace: advantage δ(0) = 1 − e^(−ε/2) (the privacy loss is |x| − |x − 1| on Lap(1)); success (1 + adv)/2.
    assert lap["success"] == pytest.approx(1 - math.exp(-0.5) / 2, abs=1e-9)
    assert round(lap["success"], 3) == 0.697
    # The worst mechanism with the same ε is randomized response: e/(1 + e).
    assert lap["worst_case"]["success"] == pytest.approx(E / (1 + E), abs=1e-9)
    rr = cli("risk", "--mechanism", "rr", "--epsilon", "1", "--json").json
    assert round(rr["success"], 3) == 0.731 and rr["advantage"] == pytest.approx((E - 1) / (E + 1), abs=1e-9)
    # Today's keys stay for a pure ε: the Laplace mechanism is ε-DP, so Lee and Clifton's risks apply.
    assert lap["global_risk"] == pytest.approx(E / (1 + E)) and lap["n"] == 2


def test_pure_epsilon_keeps_todays_keys_and_adds_the_new_ones(cli):
    doc = cli("risk", "--epsilon", "ln3", "--n", "10", "--at-epsilon", "0.5", "--json").json
    assert doc["many_worlds"] == pytest.approx(0.25) and doc["global_risk"] == pytest.approx(0.75)
    assert doc["advantage"] == pytest.approx(0.5) and doc["success"] == pytest.approx(0.75)
    assert doc["reconstruction"] == pytest.approx(0.25)  # ρ_mw, tight for a pure ε
    assert doc["posterior_max"] == pytest.approx(0.75)  # e^ε p/(e^ε p + 1 − p) at p = ½
    # δ(0.5) of pure ln 3: the randomized-response profile (3 − e^0.5)/(1 + 3)... written out:
    assert doc["delta_at_epsilon"] == pytest.approx((3 - math.exp(0.5)) / 4, abs=1e-9)
    assert [row["fpr"] for row in doc["tpr_at_fpr"]] == [0.001, 0.01, 0.05, 0.1]
    # β(α) = max(0, 1 − e^ε α, e^(−ε)(1 − α)): TPR = 1 − β = e^ε α for small α.
    assert doc["tpr_at_fpr"][0]["tpr"] == pytest.approx(0.003, abs=1e-12)
    assert doc["conversion"] and doc["guarantee"] and doc["prior"] == 0.5
    assert cli("risk", "--epsilon", "1", "--json").json["reconstruction"] is None


def test_gaussian_dp_closed_forms(cli):
    doc = cli("risk", "--mu", "1", "--fpr", "0.01,0.2", "--at-delta", "1e-5", "--json").json
    assert doc["advantage"] == pytest.approx(2 * PHI(0.5) - 1, abs=1e-9)
    for row in doc["tpr_at_fpr"]:  # 1 − β(α), β(α) = Φ(Φ⁻¹(1 − α) − μ)
        assert row["tpr"] == pytest.approx(1 - PHI(Z(1 - row["fpr"]) - 1), abs=1e-9)
    eps = doc["epsilon_at_delta"]  # δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at that ε is 10⁻⁵
    assert PHI(-eps + 0.5) - math.exp(eps) * PHI(-eps - 0.5) == pytest.approx(1e-5, rel=1e-5)
    mech = cli("risk", "--mechanism", "gaussian", "--sigma", "4", "--sensitivity", "2", "--json").json
    assert mech["advantage"] == pytest.approx(2 * PHI(0.25) - 1, abs=1e-9)  # μ = Δ/σ = 1/2
    assert "epsilon" not in mech and "many_worlds" not in mech  # no pure ε: no Lee–Clifton keys


def test_composition_and_modifiers(cli):
    four = cli("risk", "--mu", "0.5", "--compose", "4", "--json").json
    assert four["advantage"] == pytest.approx(2 * PHI(0.5) - 1, abs=1e-9)  # μ = √(4 · 0.25) = 1
    rho = cli("risk", "--rho", "0.5", "--compose", "4", "--at-delta", "1e-6", "--json").json
    two = cli("risk", "--rho", "2", "--at-delta", "1e-6", "--json").json
    assert rho["epsilon_at_delta"] == pytest.approx(two["epsilon_at_delta"], rel=1e-9)  # ρ adds up
    # Canonne, Kamath and Steinke's conversion is never worse than ρ + 2√(ρ ln(1/δ)) (Bun and Steinke).
    assert two["epsilon_at_delta"] <= 2 + 2 * math.sqrt(2 * math.log(1e6))
    sub = cli("risk", "--epsilon", "1", "--sample-rate", "0.1", "--json").json
    assert sub["epsilon"] == pytest.approx(math.log1p(0.1 * (E - 1)))  # ln(1 + γ(e^ε − 1))
    grp = cli("risk", "--epsilon", "0.5", "--group", "3", "--json").json
    assert grp["epsilon"] == pytest.approx(1.5) and grp["success"] == pytest.approx(1 / (1 + math.exp(-1.5)))
    approx = cli("risk", "--epsilon", "1", "--delta", "0.01", "--json").json
    # The worst (ε, δ) mechanism: advantage (e^ε − 1 + 2δ)/(e^ε + 1); today's keys stay with --delta.
    assert approx["advantage"] == pytest.approx((E - 1 + 0.02) / (E + 1), abs=1e-9)
    assert approx["delta"] == 0.01 and "global_risk" in approx


def test_text_has_the_exact_mechanism_beside_the_worst_case(cli):
    r = cli("risk", "--mechanism", "laplace", "--epsilon", "1", "--n", "10")
    assert r.code == 0 and "worst case" in r.out and "69.7%" in r.out and "73.1%" in r.out
    assert "the worst mechanism with the same" in r.out
    # The conversion is part of the result: `> file` keeps it (issue 20 found it on stderr).
    assert "Conversion:" in r.out and "Conversion:" not in r.err
    assert "about 73 times" in cli("risk", "--epsilon", "1").out


def test_max_risk_uses_the_risk_among_n_for_any_guarantee(cli):
    doc = cli("risk", "--mu", "1", "--n", "10", "--json").json
    risk = doc["reconstruction"]
    assert cli("risk", "--mu", "1", "--n", "10", "--max-risk", str(risk + 1e-9)).code == 0
    assert cli("risk", "--mu", "1", "--n", "10", "--max-risk", str(risk - 1e-9)).code == 1


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--epsilon", "1", "--rho", "1"], ["--rho", "exactly one guarantee", "--epsilon", "--mu"]),
        (["--rho", "1", "--mu", "1"], ["--mu", "exactly one guarantee", "got --rho and --mu"]),
        ([], ["--epsilon", "exactly one guarantee", "got none"]),
        (["--mechanism", "laplace"], ["--epsilon", "--scale"]),
        (["--mechanism", "laplace", "--epsilon", "1", "--scale", "1"], ["--epsilon", "--scale"]),
        (["--mechanism", "gaussian", "--epsilon", "1"], ["--epsilon", "--sigma"]),
        (["--mechanism", "rr", "--sigma", "1"], ["--sigma"]),
        (["--mechanism", "rr", "--epsilon", "1", "--sensitivity", "2"], ["--sensitivity"]),
        (["--mechanism", "laplace", "--epsilon", "1", "--rho", "1"], ["--rho", "--mechanism"]),
        (["--mechanism", "cauchy", "--epsilon", "1"], ["--mechanism", "laplace, gaussian, rr"]),
        (["--scale", "1"], ["--scale", "--mechanism"]),
        (["--rho", "1", "--delta", "0.1"], ["--delta", "--epsilon"]),
        (["--epsilon", "1", "--delta", "1"], ["--delta"]),
        (["--rho", "0"], ["--rho", "greater than 0"]),
        (["--mu", "nan"], ["--mu"]),
        (["--mechanism", "gaussian", "--sigma", "-1"], ["--sigma"]),
        (["--epsilon", "1", "--compose", "0"], ["--compose"]),
        (["--epsilon", "1", "--group", "0"], ["--group"]),
        (["--epsilon", "1", "--sample-rate", "0"], ["--sample-rate"]),
        (["--epsilon", "1", "--sample-rate", "1.5"], ["--sample-rate"]),
        (["--epsilon", "1", "--prior", "1"], ["--prior"]),
        (["--epsilon", "1", "--fpr", "0.1,2"], ["--fpr"]),
        (["--epsilon", "1", "--fpr", "x"], ["--fpr"]),
        (["--epsilon", "1", "--at-delta", "1"], ["--at-delta"]),
        (["--epsilon", "1", "--at-epsilon", "-1"], ["--at-epsilon"]),
        (["--rho", "1", "--ratio", "0.5"], ["--ratio"]),
    ],
)
def test_exactly_one_guarantee_and_bad_input(cli, args, fragments):
    one_line_error(cli("risk", *args), *fragments)


def test_risk_json_imports_nothing_heavy():
    code = (
        "import sys\n"
        "from privrisk.cli import main\n"
        "main(['risk', '--epsilon', '1', '--n', '10', '--json'])\n"
        "heavy = [m for m in ('scipy.stats', 'matplotlib', 'dp_accounting') if m in sys.modules]\n"
        "print(heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[]"
