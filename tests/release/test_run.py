"""The one shape of a release (issue 33): ReleaseSettings takes the queries one of three ways and names the field of
every rule; run_release returns a ReleaseRun (JSON document, verdict, report folder); the ledger's run likewise;
the earlier names warn and do what they did."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privrisk.release as R
import privrisk.release.mechanisms as M
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.release import ReleaseQuery, ReleaseRun, ReleaseSettings, run_release
from privrisk.release.history import LedgerRun, LedgerSettings, run_ledger
from privrisk.release.outputs import PUBLIC_FILES
from privrisk.release.request import Request

FRAME = pd.DataFrame({"hours": [8.0, 6, 30, 7, 9, 12]})
SUM = ReleaseQuery("hours", "sum", 0.5, (0, 24))


@pytest.fixture
def fixed_noise(monkeypatch):
    """Noise of +1 on every answer: two runs of the same settings give the same numbers."""
    monkeypatch.setattr(M, "_draw", lambda values, scale: np.asarray(values, dtype=float) + 1.0)


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "release.toml"
    path.write_text(
        'public_n = 100\n[[query]]\ncolumn = "hours"\nquery = "sum"\nepsilon = 0.5\nuniverse = [0, 24]\n'
    )
    return path


# The settings ---------------------------------------------------------------------------------------------------


def test_the_three_ways_of_giving_the_queries_ask_for_the_same_release(spec):
    one = ReleaseSettings(FRAME, column="hours", query="sum", epsilon=0.5, universe="0,24", public_n=100)
    listed = ReleaseSettings(FRAME, SUM, public_n=100)
    from_spec = ReleaseSettings(FRAME, spec=spec)
    assert one.request.queries == listed.request.queries == from_spec.request.queries == (SUM,)
    assert from_spec.request.public_n == 100
    assert one.digest() == listed.digest()


@pytest.mark.parametrize(
    ("changes", "param"),
    [
        ({"column": "hours"}, "column"),  # a spec and a single query's field
        ({"missing": "negative"}, "missing"),
        ({"queries": (SUM,)}, "queries"),
        ({"public_n": 99}, "public_n"),  # the spec says 100
    ],
)
def test_a_spec_goes_with_nothing_that_gives_the_queries_again(spec, changes, param):
    with pytest.raises(PrivriskError) as caught:
        ReleaseSettings(FRAME, spec=spec, **changes)
    assert caught.value.param == param and str(caught.value).startswith(param + ":")


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"query": "sum", "epsilon": 1, "universe": "0,24"}, "column"),
        ({"column": "hours", "epsilon": 1, "universe": "0,24"}, "query"),
        ({"column": "hours", "query": "sum", "universe": "0,24"}, "epsilon"),
        (
            {"column": "hours", "query": "sum", "mechanism": "gaussian", "epsilon": 1, "universe": "0,24"},
            "rho",
        ),
        ({"column": "hours", "query": "sum", "epsilon": 1}, "universe"),
        ({"column": "hours", "query": "sum", "epsilon": 1, "universe": "24,0"}, "universe"),
        ({"queries": (SUM,), "column": "hours"}, "column"),
        ({"queries": ()}, "queries"),
        ({"queries": (SUM,), "budget_delta": 1e-6}, "budget_delta"),
        ({"queries": (SUM,), "budget": R.Budget(epsilon=1), "budget_epsilon": 1}, "budget_epsilon"),
        ({"queries": (SUM,), "epsilon": 30}, "epsilon"),
    ],
)
def test_each_rule_names_its_field(fields, param):
    with pytest.raises(PrivriskError) as caught:
        ReleaseSettings(FRAME, **fields)
    assert caught.value.param == param and str(caught.value).startswith(param + ":")


def test_a_large_epsilon_is_refused_before_anything_is_read():
    with pytest.raises(PrivriskError, match="total ε = 30 > 20") as caught:
        ReleaseSettings("no such file.csv", ReleaseQuery("hours", "sum", 30, (0, 24)))
    assert caught.value.param == "epsilon"


def test_settings_made_again_are_the_same_settings(spec, tmp_path):
    from dataclasses import replace

    for s in (ReleaseSettings(FRAME, spec=spec, budget_epsilon=1, budget_delta=1e-6, ledger=tmp_path / "l.json"),
              ReleaseSettings(FRAME, column="hours", query="sum", epsilon="ln3", universe="0,24", budget=2)):  # fmt: skip
        assert replace(s, preview=True).digest() == s.digest()


# The run --------------------------------------------------------------------------------------------------------


def test_the_run_is_the_json_document_the_verdict_and_the_folder(tmp_path, fixed_noise):
    s = ReleaseSettings(FRAME, SUM, source="hours.csv", ledger=tmp_path / "ledger.json", out=tmp_path / "out")
    seen: list[tuple[float, str]] = []
    run = run_release(s, progress=lambda done, message: seen.append((done, message)))
    doc = run.to_dict()
    assert list(doc)[:3] == ["schema_version", "file", "answers"] and doc["file"] == "hours.csv"
    # sum of the clamped hours (24 for 30) plus the fixed noise of 1
    assert doc["answers"][0]["noisy_value"] == pytest.approx(8 + 6 + 24 + 7 + 9 + 12 + 1)
    # The internal assessment (local sensitivity, record counts) is never part of the document.
    assert "not_for_publication" not in json.dumps(doc) and "local_sensitivity" not in json.dumps(doc)
    assert run.sentence().startswith("An attacker who knows everyone else") and "ε = 0.5" in run.sentence()
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (1.0, "done")
    again = run.write(tmp_path / "again")
    assert sorted(p.name for p in again) == sorted(PUBLIC_FILES)
    first = json.loads((tmp_path / "out" / "release.json").read_text())
    assert json.loads((tmp_path / "again" / "release.json").read_text()) == first


def test_the_folder_written_again_replaces_no_input(tmp_path, fixed_noise):
    data = tmp_path / "hours.csv"
    FRAME.to_csv(data, index=False)
    run = run_release(ReleaseSettings(data, SUM))
    before = data.read_bytes()
    with pytest.raises(PrivriskError) as caught:
        run.write(data)
    assert caught.value.param == "out" and data.read_bytes() == before


def test_a_failing_write_leaves_no_folder(tmp_path, fixed_noise, monkeypatch):
    import privrisk.release.outputs as O

    run = run_release(ReleaseSettings(FRAME, SUM))

    def broken(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(O, "write_outputs", broken)
    with pytest.raises(OSError):
        run.write(tmp_path / "folder")
    assert not (tmp_path / "folder").exists()


def test_after_is_told_the_run_once_and_a_preview_draws_nothing(monkeypatch):
    told: list[ReleaseRun] = []
    run = run_release(ReleaseSettings(FRAME, SUM), after=told.append)
    assert told == [run] and run.release is not None and run.preview is None

    def boom(*_args):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(M, "_draw", boom)
    p = run_release(ReleaseSettings(FRAME, SUM, preview=True), after=told.append)
    assert len(told) == 1 and p.release is None
    assert p.preview is not None and p.preview.queries[0].scale == 48.0  # Δf = 24, ε = 0.5
    assert p.to_dict()["preview_id"] == p.preview.id
    with pytest.raises(PrivriskError) as caught:
        p.write("anywhere")
    assert caught.value.param == "preview"


def test_a_refusal_names_the_field_that_gave_the_budget(tmp_path, monkeypatch):
    def boom(*_args):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(M, "_draw", boom)
    for fields, param in (({"budget_rho": 0.1}, "budget_rho"), ({"budget_epsilon": 0.1}, "budget_epsilon"),
                          ({"budget": 0.1}, "budget")):  # fmt: skip
        s = ReleaseSettings(FRAME, SUM, ledger=tmp_path / f"{param}.json", **fields)
        with pytest.raises(ThresholdExceeded) as caught:
            run_release(s)
        assert caught.value.param == param and str(caught.value).startswith(param + ":")
        refused = run_release(ReleaseSettings(FRAME, SUM, preview=True, **fields)).exceeded()
        assert refused is not None and refused.param == param
        assert not (tmp_path / f"{param}.json").exists()


# The ledger's run -----------------------------------------------------------------------------------------------


def test_the_ledger_run_writes_its_folder_and_exports_receipts(tmp_path, fixed_noise):
    ledger = tmp_path / "ledger.json"
    run_release(ReleaseSettings(FRAME, SUM, ledger=ledger))
    run = run_ledger(LedgerSettings(ledger, budget=0.4))
    assert run.exceeded and run.sentence().startswith("Over budget: the ledger")
    assert run.threshold() is not None and run.threshold().param == "budget"
    files = run.write(tmp_path / "report")
    assert [p.name for p in files] == ["ledger.json", "releases.csv", "manifest.json"]
    assert json.loads(files[0].read_text())["spent"] == 0.5
    receipts = run_ledger(LedgerSettings(ledger, export="Registry", curator="Office"))
    assert receipts.summary is None and len(receipts.to_dict()["receipts"]) == 1
    assert [p.name for p in receipts.write(tmp_path / "receipts")] == ["release_1.yaml"]


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"export": "csv"}, "export"),
        ({"export": "registry", "budget": 1}, "budget"),
        ({"export": "registry", "budget_rho": 1}, "budget_rho"),
        ({"curator": "Office"}, "curator"),
        ({"region": "Hamburg"}, "region"),
    ],
)
def test_an_export_takes_no_budget_and_its_facts_need_it(options, param):
    with pytest.raises(PrivriskError) as caught:
        LedgerSettings("ledger.json", **options)
    assert caught.value.param == param and str(caught.value).startswith(param + ":")


# The earlier names, kept one release ----------------------------------------------------------------------------


def _warns(old: str):
    return pytest.warns(
        DeprecationWarning, match=f"{old} is deprecated and will be removed in the next release"
    )


def test_release_request_warns_and_is_the_request():
    import privrisk.release.request as module

    with _warns("ReleaseRequest"):
        assert R.ReleaseRequest is Request
    with _warns("ReleaseRequest"):
        old = module.ReleaseRequest(FRAME, (SUM,))
    assert old.digest() == ReleaseSettings(FRAME, SUM).digest()


def test_preview_warns_and_gives_the_same_preview():
    new = run_release(ReleaseSettings(FRAME, SUM, preview=True)).preview
    with _warns("preview"):
        old = R.preview(Request(FRAME, (SUM,)))
    assert old.request_digest == new.request_digest and old.rows() == new.rows()
    assert old.statement == new.statement and old.refusal == new.refusal


def test_publish_warns_and_gives_the_same_release(tmp_path, fixed_noise):
    new = run_release(ReleaseSettings(FRAME, SUM, ledger=tmp_path / "a.json")).release
    with _warns("publish"):
        old = R.publish(Request(FRAME, (SUM,), ledger=tmp_path / "b.json"))
    assert new is not None
    pd.testing.assert_frame_equal(old.answers, new.answers)
    same = {k: v for k, v in old.statement.items() if k != "cumulative"}
    assert same == {k: v for k, v in new.statement.items() if k != "cumulative"}
    assert old.ledger["spent_after"] == new.ledger["spent_after"] == 0.5


def test_check_ledger_and_ledger_check_warn_and_give_the_same_result(tmp_path, fixed_noise):
    ledger = tmp_path / "ledger.json"
    run_release(ReleaseSettings(FRAME, SUM, ledger=ledger))
    settings = LedgerSettings(ledger, budget=1)
    with _warns("check_ledger"):
        old = R.history.check_ledger(settings)
    with _warns("LedgerCheck"):
        assert R.LedgerCheck is LedgerRun
    with _warns("LedgerCheck"):
        assert R.history.LedgerCheck is LedgerRun
    assert old.to_dict() == run_ledger(settings).to_dict()


def test_the_new_names_do_not_warn(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        run_release(ReleaseSettings(FRAME, SUM, preview=True))
        assert Path(R.__file__).exists() and R.ReleaseSettings is ReleaseSettings
