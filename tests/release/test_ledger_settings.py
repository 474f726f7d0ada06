"""The one way in of ``privrisk ledger``: LedgerSettings' rules, and run_ledger's threshold against sums by hand."""

from __future__ import annotations

import json

import pytest

from privrisk.errors import PrivriskError
from privrisk.release import ledger as L
from privrisk.release.budget import Budget
from privrisk.release.history import LedgerRun, LedgerSettings, run_ledger, summarise_ledger
from release_helpers import q


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"budget": 1, "budget_rho": 0.5}, "budget"),
        ({"budget": 1, "budget_epsilon": 1}, "budget"),
        ({"budget_delta": 1e-6}, "budget_delta"),
        ({"budget": -1}, "budget"),
        ({"budget_rho": 0}, "budget_rho"),
        ({"budget_epsilon": "x"}, "budget_epsilon"),
        ({"budget": Budget(epsilon=1.0), "budget_delta": 1e-6}, "budget"),
    ],
)
def test_each_rule_names_its_field(options, param):
    with pytest.raises(PrivriskError) as caught:
        LedgerSettings("ledger.json", **options)
    assert caught.value.param == param and str(caught.value).startswith(param + ":")


def test_a_ledger_is_needed():
    with pytest.raises(PrivriskError) as caught:
        LedgerSettings(" ")
    assert caught.value.param == "ledger"


@pytest.mark.parametrize(
    ("options", "param", "limit"),
    [
        ({}, None, None),
        ({"budget": "ln3"}, "budget", Budget(epsilon=1.0986122886681098)),
        ({"budget": 1, "budget_delta": 1e-6}, "budget", Budget(epsilon=1.0, delta=1e-6)),
        ({"budget_epsilon": 1, "budget_delta": 1e-6}, "budget_epsilon", Budget(epsilon=1.0, delta=1e-6)),
        ({"budget_epsilon": 2}, "budget_epsilon", Budget(epsilon=2.0)),
        ({"budget_rho": 0.25}, "budget_rho", Budget(rho=0.25)),
        ({"budget": Budget(rho=0.5)}, "budget", Budget(rho=0.5)),
    ],
)
def test_the_budget_is_one_budget_and_remembers_its_field(options, param, limit):
    s = LedgerSettings("ledger.json", **options)
    assert s.budget_param == param
    assert s.limit == limit


@pytest.mark.parametrize(
    ("options", "exceeded", "unit", "spent"),
    [
        ({"budget": 0.99}, True, "ε", 1.0),  # 0.5 + 0.25 + 0.25
        ({"budget": 1.0}, False, "ε", 1.0),  # exactly spent is not more than the budget
        ({"budget": 2}, False, "ε", 1.0),
        ({"budget_epsilon": 0.999}, True, "ε", 1.0),
        ({"budget_rho": 0.18}, True, "ρ", 0.1875),  # 0.5²/2 + 2 · 0.25²/2
        ({"budget_rho": 0.1875}, False, "ρ", 0.1875),
    ],
)
def test_the_threshold_against_sums_by_hand(ledger, options, exceeded, unit, spent):
    check = run_ledger(LedgerSettings(ledger, **options))
    assert isinstance(check, LedgerRun)
    assert check.summary.spent == pytest.approx(spent, rel=1e-12)
    assert check.exceeded is exceeded
    limit = check.settings.limit
    assert limit is not None and limit.unit == unit
    if exceeded:
        param = check.settings.budget_param
        assert check.failures() == [
            f"{param}: the ledger {ledger} has spent {unit} = {spent:.6g}, more than the budget {limit.describe()}"
        ]
    else:
        assert check.failures() == []
        assert check.summary.left == pytest.approx(limit.limit - spent, abs=1e-12)


def test_an_epsilon_delta_budget_counts_the_tight_composition(ledger):
    # Composed at δ = 10⁻⁶ the three ε-DP answers cost less than their plain sum (1) and more than the largest (0.5).
    check = run_ledger(LedgerSettings(ledger, budget_epsilon=0.5, budget_delta=1e-6))
    assert 0.5 < (check.summary.spent or 0.0) <= 1.0
    assert check.exceeded and check.failures()[0].startswith("budget_epsilon: the ledger")
    assert not run_ledger(LedgerSettings(ledger, budget_epsilon=1.0, budget_delta=1e-6)).exceeded


def test_a_sum_that_rounds_is_not_over_the_budget(tmp_path):
    path = tmp_path / "l.json"
    for _ in range(10):
        L.record_release(path, queries=q(0.1), budget=1.0)
    assert not run_ledger(LedgerSettings(path, budget=1.0)).exceeded


def test_a_budget_only_recorded_is_reported_but_no_threshold(ledger):
    check = run_ledger(LedgerSettings(ledger))
    assert check.settings.limit is None and not check.exceeded and check.failures() == []
    assert check.summary.budget_from_ledger and check.summary.budget == Budget(epsilon=2.0)
    assert check.to_dict() == summarise_ledger(ledger).to_dict()


def test_a_keyed_ledger_needs_its_key(tmp_path):
    path = tmp_path / "keyed.json"
    L.record_release(path, queries=q(0.5), key=b"secret key of the centre")
    assert (
        run_ledger(LedgerSettings(path, budget=1, key=b"secret key of the centre")).summary.total_epsilon
        == 0.5
    )
    with pytest.raises(PrivriskError):
        run_ledger(LedgerSettings(path, budget=1))


def test_the_command_prints_the_checks_document_and_names_the_option(cli, ledger):
    r = cli("ledger", ledger, "--budget-rho", "0.18", "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc.pop("schema_version") == 1
    check = run_ledger(LedgerSettings(ledger, budget_rho=0.18))
    assert doc == json.loads(json.dumps(check.to_dict()))
    assert f"--budget-rho: the ledger {ledger} has spent ρ = 0.1875" in r.err
    r = cli("ledger", ledger, "--budget", "0.5")
    assert r.code == 1 and "privrisk: --budget: the ledger" in r.err
    assert cli("ledger", ledger, "--budget", "1").code == 0
