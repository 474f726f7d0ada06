"""``privrisk tradeoff``: the figure, its curves, one-line errors (``calibrate``'s tests moved with it to test_calibrate.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from statistics import NormalDist

import pytest

from helpers import one_line_error

PHI, Z = NormalDist().cdf, NormalDist().inv_cdf
HAIR = 1e-6


def risk(cli, *args):
    r = cli("risk", *args, "--json")
    assert r.code == 0, r.err
    return r.json


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


def test_tradeoff_takes_every_guarantee_option(cli, tmp_path):
    releases = tmp_path / "r.toml"
    releases.write_text("[[release]]\nmechanism = 'laplace'\nepsilon = 'ln2'\ncount = 2\n[[release]]\nrho = 0.1\n")
    for args in (
        ["--renyi", "2:0.5,4:1.1"],
        ["--mechanism", "rr", "--categories", "3", "--epsilon", "ln3"],
        ["--mechanism", "discrete-laplace", "--epsilon", "ln3"],
        ["--releases", releases],
        ["--mu", "1", "--sample-rate", "0.5", "--sampling", "without-replacement"],
    ):
        out = tmp_path / "c.svg"
        doc = cli("tradeoff", *args, "--out", out, "--json").json
        assert out.exists() and all(0 <= b <= 1 for b in doc["beta"]), args
        out.unlink()
    one_line_error(cli("tradeoff", "--renyi", "2:x", "--out", tmp_path / "c.svg"), "--renyi")
    assert releases.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]
