"""Issue 20, what a ledger and a release say they spent when some answers are Gaussian (ρ-zCDP): never a plain
sum of ε alone (which reads as if the Gaussian answers cost nothing, or as ε = 0, perfect privacy), and the budget
the ledger records. Each test failed before its fix."""

from __future__ import annotations

import math
import re

import pytest

from privrisk.release.history import summarise_ledger
from privrisk.release.ledger import record_release

DATA = "hours\n8\n6\n30\n7\n9\n12\n"
GAUSS = {"column": "hours", "query": "mean", "mechanism": "gaussian", "rho": 0.1}
LAPLACE = {"column": "hours", "query": "mean", "epsilon": 0.4}


@pytest.fixture
def mixed(tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=[GAUSS], budget=None)
    record_release(led, queries=[LAPLACE], budget=None)
    return led


def _reference_epsilon(delta: float) -> float:
    """ε at δ of Laplace(b = 1/0.4) composed with Gaussian(σ = 1/√(2·0.1)), by dp_accounting's PLD."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    lap = pld.from_laplace_mechanism(1 / 0.4, value_discretization_interval=1e-4)
    gau = pld.from_gaussian_mechanism(1 / math.sqrt(0.2), value_discretization_interval=1e-4)
    return float(lap.compose(gau).get_epsilon_for_delta(delta))


def test_a_mixed_ledger_states_rho_and_epsilon_at_delta(mixed):
    s = summarise_ledger(mixed)
    first = s.findings()[0]
    # Before: "Total ε = 0.4 (plain sum: sequential composition)."
    assert not first.startswith("Total ε = 0.4")
    assert "ε = 0.4 (Laplace answers)" in first and "ρ = 0.1 (Gaussian answers, zCDP)" in first
    stated = float(re.search(r"in all ε = ([0-9.]+) at δ = 1e-06", first).group(1))
    assert stated == pytest.approx(_reference_epsilon(1e-6), rel=1e-3)
    assert s.to_dict()["total_rho"] == 0.1 and s.to_dict()["total_epsilon"] == 0.4
    assert [row[2] for row in s.rows()] == ["ρ = 0.1", "ε = 0.4"]


def test_the_ledger_reports_the_budget_it_records(tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=[GAUSS], budget=None)
    from privrisk.release.budget import Budget

    record_release(led, queries=[LAPLACE], budget=Budget(rho=0.3))
    d = summarise_ledger(led).to_dict()
    # Before: budget None while every entry recorded ρ = 0.3.
    assert d["budget"] == {"rho": 0.3} and d["recorded_budget"] == {"rho": 0.3}
    assert d["spent"] == pytest.approx(0.1 + 0.4**2 / 2)  # a pure ε counts ε²/2 (Bun and Steinke, Prop. 1.4)
    assert d["left"] == pytest.approx(0.3 - 0.18)
    assert "(recorded in the ledger)" in summarise_ledger(led).findings()[0]
    # A budget asked about still wins over the recorded one.
    assert summarise_ledger(led, budget=Budget(rho=1.0)).to_dict()["budget"] == {"rho": 1.0}


def test_the_ledger_command_states_rho_and_the_recorded_budget(cli, mixed):
    r = cli("ledger", mixed)
    assert r.code == 0 and "Total ε = 0.4 (plain sum" not in r.out and "ρ = 0.1" in r.out
    j = cli("ledger", mixed, "--json").json
    assert j["total_rho"] == 0.1 and j["budget"] is None  # this ledger was kept without a budget


@pytest.fixture
def data(tmp_path):
    p = tmp_path / "survey.csv"
    p.write_text(DATA)
    return p


def gaussian(data, *extra, rho="0.125"):
    return ("release", data, "-c", "hours", "-q", "mean", "--mechanism", "gaussian", "--rho", rho,
            "--universe", "0,24", "--allow-useless", *extra)  # fmt: skip


def test_a_gaussian_release_never_says_epsilon_0(cli, data, tmp_path):
    r = cli(*gaussian(data, "--ledger", tmp_path / "ledger.json"))
    assert r.code == 0, r.err
    # Before: "Ledger …: release 1 recorded; plain sum ε = 0."
    assert not re.search(r"ε = 0(?![.\d])", r.out)
    line = next(x for x in r.out.splitlines() if x.startswith("Ledger"))
    assert "ρ = 0.125 (Gaussian answers, zCDP)" in line and "at δ = 1e-06 (tight composition)" in line


def test_a_refused_gaussian_release_says_so_in_one_clear_sentence(cli, data, tmp_path):
    led = tmp_path / "ledger2.json"
    r = cli(*gaussian(data, "--budget-epsilon", "2", "--budget-delta", "1e-6", "--ledger", led))
    assert r.code == 1 and not led.exists()
    # Before: "with this release the ledger ledger2.json the total would be ε = 2.254…"
    assert f"this release would take the total of the ledger {led} to ε = 2.25" in r.err
    assert "above the budget (ε, δ) = (2, 1e-06), of which ε = 2 is left" in r.err
    assert r.err.count("\n") == 1


def test_a_gaussian_release_manifest_has_no_total_epsilon_of_0(cli, data, tmp_path):
    import json

    out = tmp_path / "out"
    assert cli(*gaussian(data, "--out", out, "--ledger", tmp_path / "ledger.json")).code == 0
    summary = json.loads((out / "manifest.json").read_text())["summary"]
    # Before: "total_epsilon": 0.0, shown as "total epsilon 0" by privrisk report.
    assert summary["total_epsilon"] is None and summary["ledger_epsilon"] is None
    assert summary["total_rho"] == 0.125
