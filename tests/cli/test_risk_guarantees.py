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
        (["--epsilon", "1", "--rho", "1"], ["--rho", "exactly one guarantee", "epsilon", "mu"]),
        (["--rho", "1", "--mu", "1"], ["--mu", "exactly one guarantee", "got rho and mu"]),
        ([], ["--epsilon", "exactly one guarantee", "got none"]),
        (["--mechanism", "laplace"], ["--epsilon", "scale"]),
        (["--mechanism", "laplace", "--epsilon", "1", "--scale", "1"], ["--epsilon", "scale"]),
        (["--mechanism", "gaussian", "--epsilon", "1"], ["--epsilon", "sigma"]),
        (["--mechanism", "rr", "--sigma", "1"], ["--sigma"]),
        (["--mechanism", "rr", "--epsilon", "1", "--sensitivity", "2"], ["--sensitivity"]),
        (["--mechanism", "laplace", "--epsilon", "1", "--rho", "1"], ["rho", "--mechanism"]),
        (["--mechanism", "cauchy", "--epsilon", "1"], ["--mechanism", "laplace, gaussian, rr"]),
        (["--scale", "1"], ["--scale", "only with mechanism"]),
        (["--rho", "1", "--delta", "0.1"], ["--delta", "only with epsilon"]),
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


# ------------------------------------------------------------------------------ issue 20: hostile use, new inputs
def test_every_option_that_takes_an_epsilon_takes_ln3():
    """Typer refused `--at-epsilon ln3` ("Input should be a valid number"): every ε option of every command is
    read as text (and parsed by parse_epsilon, which the tests of each command check)."""
    import inspect
    import typing

    import typer

    from privrisk.cli import app

    found = []
    for info in app.registered_commands:
        hints = typing.get_type_hints(info.callback)
        for name, parameter in inspect.signature(info.callback).parameters.items():
            default = parameter.default
            if not isinstance(default, typer.models.OptionInfo) or hints[name] is bool:
                continue
            options = (
                (default.default, *(default.param_decls or ()))
                if isinstance(default.default, str)
                else tuple(default.param_decls or ())
            )
            if any("epsilon" in str(o) for o in options):
                found.append(f"{info.name} {max(options, key=len) if options else name}")
                assert str in typing.get_args(hints[name]) or hints[name] is str, (
                    info.name,
                    name,
                    hints[name],
                )
    assert any(f.startswith("risk") and "at-epsilon" in f for f in found), found
    assert any(f.startswith("tradeoff") and "epsilon" in f for f in found), found


def test_at_epsilon_takes_ln3_with_a_composition(cli):
    r = cli("risk", "--epsilon", "ln3", "--compose", "2", "--at-epsilon", "ln3", "--json")
    assert r.code == 0, r.err
    # Two releases of pure ln 3 (Kairouz–Oh–Viswanath): at ε = ln 3 the profile is that of 2 × RR(ln 3),
    # δ = Σ_i C(2,i) (e^{(2−i)ε₀ }... written out over the 4 outcomes of two RR answers: losses 2ε₀, 0, 0, −2ε₀
    # with probabilities p², 2pq, q² (p = 3/4): δ(ln 3) = p² − 3q² = 9/16 − 3/16 = 3/8.
    assert r.json["delta_at_epsilon"] == pytest.approx(3 / 8, abs=1e-9)
    assert cli("risk", "--epsilon", "1", "--at-epsilon", "0", "--json").json[
        "delta_at_epsilon"
    ] == pytest.approx((E - 1) / (E + 1))


@pytest.mark.parametrize(
    ("args", "risk_among_n"),
    [
        # β(α) = max(0, 1 − δ − e^ε α, e^(−ε)(1 − δ − α)); the risk among n is 1 − β(1/n).
        (["--epsilon", "1", "--delta", "0.5", "--n", "100", "--max-risk", "0.1"], 0.5 + E / 100),
        (["--epsilon", "1", "--delta", "1e-4", "--n", "1000000", "--max-risk", "1e-5"], 1e-4 + E * 1e-6),
    ],
)
def test_max_risk_counts_delta(cli, args, risk_among_n):
    r = cli("risk", *args, "--json")
    assert r.code == 1, (r.code, r.err)
    assert r.json["reconstruction"] == pytest.approx(risk_among_n, rel=1e-9)
    assert "exceeds --max-risk" in r.err and f"{risk_among_n:.4g}" in r.err
    # Below the risk of the whole guarantee the threshold holds.
    limit = str(risk_among_n * 1.001)
    assert cli("risk", *args[:-1], limit).code == 0


def test_max_risk_of_a_pure_epsilon_is_lee_and_cliftons(cli):
    assert cli("risk", "--epsilon", "ln3", "--n", "10", "--max-risk", "0.25").code == 0  # ρ_mw = 0.25 exactly
    assert cli("risk", "--epsilon", "ln3", "--n", "10", "--max-risk", "0.2499").code == 1


def test_dpsgd_preset_is_the_library_call(cli, tmp_path):
    from privrisk import accounting as A

    doc = cli("risk", "--dpsgd", "10000,100,2", "--sigma", "1.5", "--at-delta", "1e-5", "--json").json
    g = A.dpsgd(dataset_size=10_000, batch_size=100, epochs=2, noise_multiplier=1.5)
    assert "200 releases" in doc["guarantee"] and doc["guarantee"] == g.label
    assert doc["epsilon_at_delta"] == pytest.approx(g.epsilon_at(1e-5), rel=1e-12)
    # Two fixed-size batches (composing many without-replacement steps is the accountant's, not the CLI's, work).
    fixed = cli(
        "risk", "--dpsgd", "1000,500,1", "--sigma", "1.5", "--sampling", "without-replacement", "--json"
    )
    assert fixed.code == 0 and "sample without replacement of rate 0.5" in fixed.json["guarantee"]
    svg = tmp_path / "dpsgd.svg"
    assert (
        cli("tradeoff", "--dpsgd", "10000,100,2", "--sigma", "1.5", "--out", svg).code == 0 and svg.exists()
    )


def test_discrete_mechanisms_kary_rr_and_a_renyi_curve(cli):
    from privrisk import accounting as A

    rr4 = cli("risk", "--mechanism", "rr", "--epsilon", "ln3", "--categories", "4", "--json").json
    assert rr4["advantage"] == pytest.approx((3 - 1) / (3 + 3), abs=1e-12)  # (e^ε − 1)/(e^ε + k − 1)
    dl = cli("risk", "--mechanism", "discrete-laplace", "--scale", "1", "--json").json
    assert dl["advantage"] == pytest.approx(math.tanh(0.5), abs=1e-12)  # (1 − e^(−1))/(1 + e^(−1))
    dg = cli("risk", "--mechanism", "discrete-gaussian", "--sigma", "3", "--json").json
    assert dg["advantage"] == pytest.approx(
        A.membership_risk(A.discrete_gaussian_guarantee(sigma=3)).advantage
    )
    curve = cli("risk", "--renyi", "2:0.5,4:1.1,8:ln10", "--at-delta", "1e-5", "--json").json
    want = A.renyi_dp([2, 4, 8], [0.5, 1.1, math.log(10)]).epsilon_at(1e-5)
    assert curve["epsilon_at_delta"] == pytest.approx(want, rel=1e-12)


RELEASES = """
[[release]]
name = "counts"
mechanism = "laplace"
epsilon = "ln2"
count = 3

[[release]]
name = "training"
mechanism = "gaussian"
sigma = 2
count = 50
sample_rate = 0.1

[[release]]
name = "survey"
mechanism = "rr"
epsilon = 1
categories = 4
"""


def test_releases_file_composes_the_mixture(cli, tmp_path):
    from privrisk import accounting as A

    path = tmp_path / "releases.toml"
    path.write_text(RELEASES)
    doc = cli("risk", "--releases", path, "--at-delta", "1e-6", "--json").json
    g = A.compose(
        [
            A.laplace_guarantee(epsilon=math.log(2)).compose(3),
            A.subsample(A.gaussian_guarantee(sigma=2), 0.1).compose(50),
            A.kary_randomised_response_guarantee(epsilon=1, categories=4),
        ]
    )
    assert doc["epsilon_at_delta"] == pytest.approx(g.epsilon_at(1e-6), rel=1e-12)
    assert path.read_text() == RELEASES  # inputs are never modified


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("[[release]\n", ["--releases", "not valid TOML"]),
        ("[[release]]\nname = 'a'\nsigmaa = 2\n", ["--releases", "release 1 ('a')", "unknown key 'sigmaa'"]),
        (
            "[[release]]\nrho = 1\n[[release]]\nrho = [1]\n",
            ["--releases", "release 2", "rho must be a number"],
        ),
        (
            "[[release]]\n[release.x]\ny = {z = [1, {w = 2}]}\n",
            ["--releases", "release 1", "unknown key 'x'"],
        ),
        ("[[release]]\nmechanism = 'gaussian'\nsigma = -2\n", ["--releases", "release 1", "sigma"]),
        ("[[release]]\nrho = 1\ncount = 0\n", ["--releases", "release 1", "count"]),
        ("x = 1\n", ["--releases", "unknown table or key 'x'"]),
        ("\udcff", ["--releases", "UTF-8"]),
    ],
)
def test_bad_releases_files_are_one_line(cli, tmp_path, text, fragments):
    path = tmp_path / "bad.toml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    one_line_error(cli("risk", "--releases", path), *fragments)


def test_releases_that_are_not_regular_small_files(cli, tmp_path):
    import os

    one_line_error(cli("risk", "--releases", tmp_path / "missing.toml"), "--releases", "cannot read")
    one_line_error(cli("risk", "--releases", tmp_path), "--releases", "not a regular file")
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    one_line_error(cli("risk", "--releases", fifo), "--releases", "not a regular file")  # and no hang
    big = tmp_path / "big.toml"
    big.write_text("#" * 1_000_001)
    one_line_error(cli("risk", "--releases", big), "--releases", "larger than")
    small = tmp_path / "small.toml"
    small.write_text("[[release]]\nrho = 1\n")
    one_line_error(cli("risk", "--releases", small, "--rho", "1"), "exactly one guarantee", "--releases")


def test_opacus_history_file(cli, tmp_path):
    from privrisk import accounting as A

    path = tmp_path / "history.json"
    path.write_text("[[1.1, 0.01, 100], [0.9, 0.01, 50]]")
    doc = cli("risk", "--opacus-history", path, "--at-delta", "1e-5", "--json").json
    want = A.from_opacus([(1.1, 0.01, 100), (0.9, 0.01, 50)]).epsilon_at(1e-5)
    assert doc["epsilon_at_delta"] == pytest.approx(want, rel=1e-12)
    path.write_text('{"history": [[1.1, 0.01, 100], [0.9, 0.01, 50]]}')
    assert cli("risk", "--opacus-history", path, "--json").code == 0
    for bad, fragment in [("[[1.1, 0.01]]", "entry 1"), ("{", "not JSON"), ('"x"', "JSON list"),
                          ("[[1.1, 2, 10]]", "sample rate"), ("[]", "--opacus-history")]:  # fmt: skip
        path.write_text(bad)
        one_line_error(cli("risk", "--opacus-history", path), "--opacus-history", fragment)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dpsgd", "1000,100"], ["--dpsgd", "N,B,EPOCHS"]),
        (["--dpsgd", "1000,100,1"], ["--sigma", "dpsgd", "noise multiplier"]),
        (["--dpsgd", "100,1000,1", "--sigma", "1"], ["--dpsgd", "exceeds"]),
        (["--dpsgd", "1000,100,1", "--sigma", "1", "--compose", "2"], ["--compose", "not with dpsgd"]),
        (["--dpsgd", "1000,100,1", "--sigma", "1", "--sample-rate", "0.1"], ["--sample-rate", "dpsgd"]),
        (["--dpsgd", "1000,100,1", "--epsilon", "1"], ["exactly one guarantee", "got epsilon and dpsgd"]),
        (["--epsilon", "1", "--sampling", "poisson"], ["--sampling", "sample_rate"]),
        (["--epsilon", "1", "--sample-rate", "0.1", "--sampling", "bootstrap"], ["--sampling", "poisson"]),
        (["--mechanism", "rr", "--epsilon", "1", "--categories", "1"], ["--categories", "≥ 2"]),
        (
            ["--mechanism", "laplace", "--epsilon", "1", "--categories", "3"],
            ["--categories", "mechanism rr"],
        ),
        (["--categories", "3"], ["--categories", "only with mechanism"]),
        (
            ["--mechanism", "discrete-gaussian", "--sigma", "1", "--sensitivity", "0.5"],
            ["--sensitivity", "whole"],
        ),
        (["--renyi", "1:0.5"], ["--renyi", "greater than 1"]),
        (["--renyi", "2:x"], ["--renyi", "not a number"]),
        (["--renyi", "2:1", "--rho", "1"], ["exactly one guarantee", "got rho and renyi"]),
        (["--epsilon", "ln0"], ["--epsilon", "not defined"]),
        (["--epsilon", "1", "--at-epsilon", "lnx"], ["--at-epsilon", "not a number"]),
    ],
)
def test_new_options_bad_input(cli, args, fragments):
    one_line_error(cli("risk", *args), *fragments)
