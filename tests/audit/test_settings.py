"""The one way in to the audit: every bad combination of AuditSettings and DerivedSettings names its field; the run
gives Sarathy and Muralidhar's numbers; the verdict's words and number; the deprecated names still work."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from privrisk.audit import AuditSettings, DerivedSettings, run_audit, run_derived
from privrisk.audit.report import audit_document, write_outputs
from privrisk.errors import PrivriskError

# Table 1 of Sarathy and Muralidhar (2009): 30 insurance claims ('000 $); the 30th is Terry Gross's.
CLAIMS = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18, 9.45, 12.65,
          9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08, 10.38, 12.32, 9.92, 100.00]  # fmt: skip


@pytest.mark.parametrize(
    ("given", "param"),
    [
        ({}, "data"),  # neither a file nor values
        ({"data": "c.csv", "values": CLAIMS}, "values"),  # the old name and the new
        ({"data": "c.csv"}, "column"),
        ({"data": "c.csv", "column": "  "}, "column"),
        ({"data": CLAIMS, "missing": "negative"}, "missing"),
        ({"data": "c.csv", "column": "claims", "missing": "-1,x"}, "missing"),
        ({"data": CLAIMS, "query": "mode"}, "query"),
        ({"data": CLAIMS, "epsilon": ""}, "epsilon"),
        ({"data": CLAIMS, "epsilon": "0"}, "epsilon"),
        ({"data": CLAIMS, "epsilon": "ln(1)"}, "epsilon"),
        ({"data": CLAIMS, "epsilon": "two"}, "epsilon"),
        ({"data": CLAIMS, "u": "0.5", "response": "14"}, "u"),
        ({"data": CLAIMS, "u": 0}, "u"),
        ({"data": CLAIMS, "u": "1"}, "u"),
        ({"data": CLAIMS, "u": "x"}, "u"),
        ({"data": CLAIMS, "response": "inf"}, "response"),
        ({"data": CLAIMS, "event": "peak"}, "event"),
        ({"data": CLAIMS, "alpha": 0.5}, "alpha"),
        ({"data": CLAIMS, "alpha": "0"}, "alpha"),
        ({"data": CLAIMS, "universe": "0"}, "universe"),
        ({"data": CLAIMS, "universe": (5, 5)}, "universe"),
        ({"data": CLAIMS, "universe": "100,0"}, "universe"),
        ({"data": CLAIMS, "seed": -1}, "seed"),
        ({"data": CLAIMS, "seed": "1.5"}, "seed"),
        ({"data": CLAIMS, "sweep_record": 30}, "sweep_record"),  # without values
        ({"data": CLAIMS, "sweep_values": "14,20"}, "sweep_record"),  # without a record
        ({"data": CLAIMS, "sweep_record": 0, "sweep_values": "14"}, "sweep_record"),
        ({"data": CLAIMS, "sweep_record": "x", "sweep_values": "14"}, "sweep_record"),
        ({"data": CLAIMS, "sweep_record": 30, "sweep_values": "14,x"}, "sweep_values"),
        ({"data": CLAIMS, "sweep_record": 30, "sweep_values": [14, math.nan]}, "sweep_values"),
        ({"data": CLAIMS, "top": -1}, "top"),
    ],
)
def test_every_bad_combination_names_its_field(given, param):
    args = {"epsilon": 2, **given}
    with pytest.raises(PrivriskError) as caught:
        AuditSettings(**args)
    assert caught.value.param == param
    assert str(caught.value).startswith(param + ":")


def test_text_as_a_page_holds_it_is_normalised():
    s = AuditSettings(data="c.csv", column=" claims ", epsilon="ln3", u="0.75", response="", alpha="",
                      universe="0,100", seed="", sweep_record="30", sweep_values="14, 20", top="")  # fmt: skip
    assert (s.column, s.u, s.response, s.alpha, s.universe, s.seed) == (
        "claims",
        0.75,
        None,
        1e-4,
        (0.0, 100.0),
        None,
    )
    assert s.epsilon == pytest.approx(math.log(3)) and (s.sweep_record, s.sweep_values, s.top) == (
        30,
        (14.0, 20.0),
        20,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.epsilon = 1  # type: ignore[misc]


def test_the_run_gives_sarathy_and_muralidhars_numbers():
    run = run_audit(AuditSettings(data=CLAIMS, epsilon=2, u=0.75, universe=(0, 100), sweep_record=30,
                                  sweep_values=[14, 20, 30]))  # fmt: skip
    res = run.result
    # Table 1 by hand: the mean 13.312, without Terry Gross 10.323; the largest change (100 − 10.323)/30 = 2.989.
    x = np.array(CLAIMS)
    assert res.f_n == pytest.approx(x.mean()) and res.f_star == pytest.approx(x[:-1].mean())
    assert res.delta_n == pytest.approx((100 - x[:-1].mean()) / 30)
    assert (round(res.p1, 2), round(res.p2, 4), round(res.b_star, 3), round(res.bound, 3)) == (
        0.25,
        0.0338,
        0.058,
        25.075,
    )
    assert run.violations == 1 and run.sweep["ratio"].round().tolist() == [9.0, 925.0, 2201886.0]  # Table 3
    doc = run.to_dict()
    assert doc["sweep"]["record"] == 30 and "file" not in doc and doc["violations"] == 1
    v = run.verdict()
    assert v.headline == "1 of 30 records exposed"
    assert v.sentence.endswith("the missing record is at least 25.08 (99.99 % sure).")
    assert "no record is exposed" in run.global_finding()
    assert str(run.leak()).startswith("fail_on_leak: 1 possible missing record break")


def test_a_run_that_leaks_nothing_says_so():
    run = run_audit(AuditSettings(data=CLAIMS, epsilon=2, u=0.75, query="count"))
    assert run.violations == 0 and run.leak() is None
    e2 = f"{math.exp(2):,.3f}".rstrip("0")  # the limit e^ε in words: 7.389 times
    assert (
        run.verdict().headline == "0 of 30 records exposed"
        and f"at most {e2} times" in run.verdict().sentence
    )


def test_a_file_run_reads_the_column_and_checks_what_needs_the_data(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("claims\n" + "\n".join(map(str, [*CLAIMS, -1])) + "\n")
    run = run_audit(
        AuditSettings(data=path, column="claims", missing="negative", epsilon=2, u=0.75, name="c.csv")
    )
    assert run.result.n == 30 and run.to_dict()["file"] == "c.csv" and run.to_dict()["data"]["n_used"] == 30
    with pytest.raises(PrivriskError, match="sweep_record: there is no record 32") as caught:
        run_audit(AuditSettings(data=path, column="claims", epsilon=2, sweep_record=32, sweep_values="1"))
    assert caught.value.param == "sweep_record"
    with pytest.raises(PrivriskError, match="outside the universe"):
        run_audit(AuditSettings(data=path, column="claims", epsilon=2, universe="0,50"))
    with pytest.raises(PrivriskError, match="at least 3") as caught:
        run_audit(AuditSettings(data=[1, 2], epsilon=2))
    assert caught.value.param == "data"


def test_the_run_reports_its_steps_and_writing_reports_each_figure(tmp_path):
    seen: list[tuple[float, str]] = []
    run = run_audit(AuditSettings(data=CLAIMS, epsilon=2, u=0.75), progress=lambda f, t: seen.append((f, t)))
    manifest = json.loads(run.write(tmp_path / "out", progress=lambda f, t: seen.append((f, t))).read_text())
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0
    assert [t for _, t in seen if t.startswith("Drawing")] == [
        f"Drawing figure {i} of 4" for i in (1, 2, 3, 4)
    ]
    assert len(manifest["figures"]) == 4


def test_the_old_names_warn_and_give_the_same(tmp_path):
    run = run_audit(AuditSettings(data=CLAIMS, epsilon=2, u=0.75))
    with pytest.warns(DeprecationWarning, match="audit_document is deprecated"):
        assert audit_document(run.result) == run.to_dict()
    with pytest.warns(DeprecationWarning, match="write_outputs is deprecated"):
        path = write_outputs(run.result, tmp_path / "old")
    assert json.loads(path.read_text())["kind"] == "audit"


@pytest.mark.parametrize(
    ("given", "param"),
    [
        ({"epsilon": "0"}, "epsilon"),
        ({"alpha": 0.7}, "alpha"),
        ({"target": "median"}, "target"),
        ({"via": "std"}, "via"),
        ({"target": "count", "via": "sum"}, "via"),  # count = sum/mean: not linear
        ({"values": " "}, "values"),
    ],
)
def test_derived_settings_name_their_field(given, param):
    with pytest.raises(PrivriskError) as caught:
        DerivedSettings(**{"values": "1..10", "epsilon": 2, **given})
    assert caught.value.param == param


@pytest.mark.parametrize(
    ("values", "param"),
    [("nosuchfile.csv", "values"), ("5..1", "values"), ("1..x", "values"), ("1,2", "values")],
)
def test_derived_values_that_cannot_be_read(values, param):
    with pytest.raises(PrivriskError) as caught:
        run_derived(DerivedSettings(values=values, epsilon=2))
    assert caught.value.param == param


@pytest.mark.parametrize(("values", "eff_eps"), [("1..10", 4), ("101..110", 44), ("50001..50010", 20004)])
def test_derived_run_is_table_4(values, eff_eps):
    d = run_derived(DerivedSettings(values=values, epsilon="2"))  # Table 4 of Sarathy and Muralidhar (2009)
    assert d.effective_scale == pytest.approx(2.5) and d.effective_epsilon == pytest.approx(eff_eps)
    assert next(iter(d.to_dict())) == "source" and d.to_dict()["source"] == values


def test_derived_from_a_file(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("v\n" + "\n".join(str(v) for v in range(101, 111)) + "\n")
    d = run_derived(DerivedSettings(values=str(path), epsilon=2))  # its only column
    assert d.source == f"{path}: v" and d.effective_epsilon == pytest.approx(44)


def test_the_old_data_names_and_module_warn_and_give_the_same(tmp_path):
    import importlib

    import pandas as pd

    path = tmp_path / "claims.csv"
    path.write_text("claims\n" + "\n".join(map(str, CLAIMS)) + "\n")
    new = run_audit(AuditSettings(data=path, column="claims", epsilon=2, u=0.75, name="c.csv")).to_dict()
    with pytest.warns(DeprecationWarning, match=r"AuditSettings\(file=…\) is deprecated"):
        old_file = AuditSettings(file=path, column="claims", epsilon=2, u=0.75)
    with pytest.warns(DeprecationWarning, match=r"run_audit\(…, name=…\) is deprecated"):
        assert run_audit(old_file, name="c.csv").to_dict() == new
    table = pd.DataFrame({"claims": CLAIMS})
    assert (
        run_audit(AuditSettings(data=table, column="claims", epsilon=2, u=0.75, name="c.csv")).to_dict()
        == new
    )
    with pytest.warns(DeprecationWarning, match=r"AuditSettings\(values=…\) is deprecated"):
        old_values = AuditSettings(values=CLAIMS, epsilon=2, u=0.75)
    assert old_values == AuditSettings(data=CLAIMS, epsilon=2, u=0.75)
    shim = importlib.import_module("privrisk.audit.settings")
    for name in ("AuditSettings", "AuditRun", "run_audit", "Verdict", "DEFAULT_ALPHA"):
        with pytest.warns(DeprecationWarning, match=f"use privrisk.audit.run.{name}"):
            assert getattr(shim, name) is getattr(importlib.import_module("privrisk.audit.run"), name)
