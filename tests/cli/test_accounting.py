"""``privrisk calibrate`` and ``privrisk tradeoff``: round trips at exact boundaries, the figure, one-line errors."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from statistics import NormalDist

import pytest

from helpers import one_line_error

PHI, Z = NormalDist().cdf, NormalDist().inv_cdf
HAIR = 1e-6


def calibrated(cli, *args):
    r = cli("calibrate", *args, "--json")
    assert r.code == 0, r.err
    return r.json


def risk(cli, *args):
    r = cli("risk", *args, "--json")
    assert r.code == 0, r.err
    return r.json


def test_laplace_scale_for_a_target_success(cli):
    doc = calibrated(cli, "--target-success", "0.6", "--mechanism", "laplace")
    # success 1 − e^(−1/(2b))/2 = 0.6  ⇔  b = −1/(2 ln 0.8)
    b = -1 / (2 * math.log(0.8))
    assert doc["solve_for"] == "scale" and doc["parameter"] == pytest.approx(b, rel=1e-6)
    assert risk(cli, "--mechanism", "laplace", "--scale", str(doc["parameter"]))["success"] <= 0.6 + 1e-12
    assert risk(cli, "--mechanism", "laplace", "--scale", str(doc["parameter"] * (1 - HAIR)))["success"] > 0.6


def test_pure_epsilon_for_a_target_advantage(cli):
    doc = calibrated(cli, "--target-advantage", "0.1")
    eps = math.log(1.1 / 0.9)  # (e^ε − 1)/(e^ε + 1) = 0.1
    assert doc["solve_for"] == "epsilon" and doc["parameter"] == pytest.approx(eps, rel=1e-6)
    assert risk(cli, "--epsilon", str(doc["parameter"]))["advantage"] <= 0.1 + 1e-12
    assert risk(cli, "--epsilon", str(doc["parameter"] * (1 + HAIR)))["advantage"] > 0.1


def test_gaussian_sigma_for_a_target_tpr(cli):
    doc = calibrated(cli, "--target-tpr", "0.1@0.01", "--mechanism", "gaussian")
    sigma = 1 / (Z(0.99) - Z(0.9))  # 1 − Φ(Φ⁻¹(0.99) − 1/σ) = 0.1
    assert doc["fpr"] == 0.01 and doc["parameter"] == pytest.approx(sigma, rel=1e-6)
    tpr = risk(cli, "--mechanism", "gaussian", "--sigma", str(doc["parameter"]), "--fpr", "0.01")[
        "tpr_at_fpr"
    ]
    assert tpr[0]["tpr"] <= 0.1 + 1e-12
    tpr = risk(cli, "--mechanism", "gaussian", "--sigma", str(doc["parameter"] * (1 - HAIR)), "--fpr", "0.01")
    assert tpr["tpr_at_fpr"][0]["tpr"] > 0.1


def test_epsilon_for_a_target_risk_among_n(cli):
    doc = calibrated(cli, "--target-risk", "0.05", "--n", "100")
    eps = math.log(99 * 0.05 / 0.95)  # ρ_mw = 1/(1 + 99 e^(−ε)) = 0.05
    assert doc["parameter"] == pytest.approx(eps, rel=1e-6)
    assert risk(cli, "--epsilon", str(doc["parameter"]), "--n", "100")["many_worlds"] <= 0.05 + 1e-12
    assert risk(cli, "--epsilon", str(doc["parameter"] * (1 + HAIR)), "--n", "100")["many_worlds"] > 0.05


def test_rho_and_mu_and_text(cli):
    mu = calibrated(cli, "--target-advantage", "0.3829249225480262", "--solve-for", "mu")["parameter"]
    assert mu == pytest.approx(1.0, rel=1e-6)  # 2Φ(μ/2) − 1
    rho = calibrated(cli, "--target-success", "0.6", "--solve-for", "rho")
    assert risk(cli, "--rho", str(rho["parameter"]))["success"] <= 0.6 + 1e-12
    assert risk(cli, "--rho", str(rho["parameter"] * (1 + HAIR)))["success"] > 0.6
    r = cli("calibrate", "--target-success", "0.6", "--mechanism", "laplace")
    assert r.code == 0 and "least Laplace scale b is 2.24" in r.out and "Method:" in r.err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ([], ["--target-advantage", "exactly one", "got none"]),
        (["--target-success", "0.6", "--target-advantage", "0.1"], ["exactly one", "--target-success"]),
        (["--target-risk", "0.1"], ["--n"]),
        (["--target-success", "0.6", "--n", "10"], ["--n"]),
        (["--target-tpr", "0.1"], ["--target-tpr"]),
        (["--target-tpr", "x@0.1"], ["--target-tpr"]),
        (["--target-success", "0.6", "--mechanism", "cauchy"], ["--mechanism"]),
        (["--target-success", "0.6", "--solve-for", "k"], ["--solve-for"]),
        (["--target-success", "0.6", "--delta", "2"], ["--delta"]),
    ],
)
def test_calibrate_bad_input(cli, args, fragments):
    one_line_error(cli("calibrate", *args), *fragments)


# ------------------------------------------------------------------------------------------------ tradeoff
def test_tradeoff_writes_a_valid_svg_and_png_atomically(cli, tmp_path):
    svg = tmp_path / "curve.svg"
    r = cli("tradeoff", "--mechanism", "laplace", "--epsilon", "1", "--out", svg)
    assert r.code == 0, r.err
    root = ET.fromstring(svg.read_bytes())
    assert root.tag.endswith("svg") and b"random guessing" in svg.read_bytes()
    first = svg.read_bytes()
    assert cli("tradeoff", "--mechanism", "laplace", "--epsilon", "1", "--out", svg).code == 0
    assert svg.read_bytes() == first  # deterministic: no dates, no random ids
    png = tmp_path / "curve.png"
    assert cli("tradeoff", "--rho", "0.5", "--out", png).code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.png", "curve.svg"]  # nothing temporary left


def test_tradeoff_json_is_the_gaussian_curve(cli, tmp_path):
    doc = cli("tradeoff", "--mu", "1", "--out", tmp_path / "c.svg", "--json").json
    for a, b in list(zip(doc["alpha"], doc["beta"], strict=True))[1:-1:25]:
        assert b == pytest.approx(PHI(Z(1 - a) - 1), abs=1e-9)  # β(α) = Φ(Φ⁻¹(1 − α) − μ)
    # The worst case with the same (ε, δ) is never a weaker attacker: its curve is at or below.
    assert all(w <= b + 1e-9 for b, w in zip(doc["beta"], doc["beta_worst_case"], strict=True))


def test_tradeoff_bad_output(cli, tmp_path):
    one_line_error(cli("tradeoff", "--mu", "1", "--out", tmp_path / "c.pdf"), "--out", ".svg or .png")
    one_line_error(cli("tradeoff", "--mu", "1", "--rho", "1", "--out", tmp_path / "c.svg"), "exactly one")
    one_line_error(cli("tradeoff", "--mu", "1", "--at-delta", "1", "--out", tmp_path / "c.svg"), "--at-delta")
    (tmp_path / "file").write_text("x")
    one_line_error(cli("tradeoff", "--mu", "1", "--out", tmp_path / "file" / "c.svg"), "--out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
