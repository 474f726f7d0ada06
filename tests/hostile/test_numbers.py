"""Regression cases of issue #12 on numbers: thresholds, extreme values and sizes (one test per case)."""

from __future__ import annotations

import math

import pytest

from helpers import one_line_error

CLAIMS = "examples/claims.csv"


def _no_warning(result) -> None:
    assert "Warning" not in result.err, result.err
    assert "Traceback" not in result.err, result.err


# item 6: thresholds that are not enforced ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["nan", "-1", "2", "inf"])
def test_risk_max_risk_not_a_probability(cli, bad):
    one_line_error(cli("risk", "--epsilon", "ln3", "--max-risk", bad), "--max-risk")


@pytest.mark.parametrize("bad", ["nan", "-1", "2"])
def test_sensitivity_max_risk_not_a_probability(cli, bad):
    r = cli("sensitivity", CLAIMS, "-c", "claims", "-q", "mean", "-e", "1", "--max-risk", bad)
    one_line_error(r, "--max-risk")


def test_risk_max_risk_gate_still_works(cli):
    # ρ_mw(ln3, n = 2) = 3/4 by hand
    assert cli("risk", "--epsilon", "ln3", "--max-risk", "0.7").code == 1
    assert cli("risk", "--epsilon", "ln3", "--max-risk", "0.8").code == 0


def test_epsilon_tiny_ratio_is_not_finite(cli):
    one_line_error(cli("epsilon", "--risk", "0.75", "--ratio", "1e-320"), "--ratio", "finite")


# item 7: risk understated on extreme values ----------------------------------------------------------------------


def test_sensitivity_overflow_is_an_error(cli, tmp_path):
    data = tmp_path / "x.csv"
    data.write_text("x\n1e308\n-1e308\n1e308\n-1e308\n")
    r = cli("sensitivity", str(data), "-c", "x", "-q", "mean", "-e", "1", "--json")
    one_line_error(r, "overflow")


def test_describe_uses_the_ratio(cli):
    r = cli("risk", "--epsilon", "ln3", "--n", "21", "--dv", "0.2", "--df", "25", "--json")
    assert r.code == 0
    doc = r.json
    hand = 1 / (1 + 20 * 3 ** (-0.2 / 25))
    assert doc["many_worlds"] == pytest.approx(hand)
    assert round(hand * 100) == 5
    assert "about 5 of 100" in doc["description"], doc["description"]


# tracebacks → exit 2 -----------------------------------------------------------------------------------------------


def test_audit_huge_epsilon(cli):
    r = cli("audit", CLAIMS, "-c", "claims", "-q", "mean", "-e", "1000", "--u", "0.75", "--universe", "0,100")
    assert r.code in (0, 2), (r.code, r.err)
    assert "Traceback" not in r.err
    if r.code == 2:
        one_line_error(r, "--epsilon")
    _no_warning(r)


def test_explain_huge_epsilon(cli, tmp_path):
    r = cli("explain", "--epsilon", "1e308", "--out", str(tmp_path / "e.html"))
    assert "Traceback" not in r.err
    if r.code != 0:
        one_line_error(r, "--epsilon")
    _no_warning(r)


def test_derived_range_too_long(cli):
    one_line_error(cli("derived", "--values", "1..1000000000000", "-e", "2"), "--values")


def test_derived_values_overflow(cli):
    r = cli("derived", "--values", "1e308,1e308,-1e308", "-e", "2")
    one_line_error(r, "--values")


def test_derived_values_empty(cli):
    r = cli("derived", "--values", "", "-e", "2")
    one_line_error(r, "--values", "empty")
    assert "folder" not in r.err


def test_attack_trials_capped(cli):
    r = cli("attack", CLAIMS, "-c", "claims", "-q", "mean", "-e", "1", "--trials", "100000000000")
    one_line_error(r, "--trials", "10,000,000")


def test_attack_negative_seed(cli):
    r = cli("attack", CLAIMS, "-c", "claims", "-q", "mean", "-e", "1", "--seed", "-1")
    one_line_error(r, "--seed")


def test_audit_negative_seed(cli):
    r = cli("audit", CLAIMS, "-c", "claims", "-q", "mean", "-e", "1", "--seed", "-1", "--universe", "0,100")
    one_line_error(r, "--seed")


def test_hand_check_epsilon(cli):
    # ε for ρ = 3/4, n = 2, ratio 1 is ln 3 by hand
    r = cli("epsilon", "--risk", "0.75", "--json")
    assert r.json["epsilon"] == pytest.approx(math.log(3))
