"""The audit as a JSON document and as an output folder, through the library's earlier names (deprecated, still
kept one release; the new way in is tests/audit/test_settings.py)."""

from __future__ import annotations

import json

import pytest

from privrisk.audit import audit_data_dependent, audit_document, audit_sweep, write_outputs
from privrisk.audit.report import record_nouns, write_records
from privrisk.errors import PrivriskError

pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated:DeprecationWarning")

CLAIMS = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18, 9.45, 12.65,
          9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08, 10.38, 12.32, 9.92, 100.00]  # fmt: skip


@pytest.fixture(scope="module")
def audited():
    res = audit_data_dependent(CLAIMS, "mean", 2, u=0.75, universe=(0, 100))
    return res, audit_sweep(CLAIMS, "mean", 2, 30, [14, 20], u=0.75)


def test_document_keys_in_order(audited):
    res, sweep = audited
    doc = audit_document(
        res, sweep=sweep, sweep_record=30, file="claims.csv", column="claims", data={"n": 30}
    )
    keys = list(doc)
    assert keys[:3] == ["file", "column", "query"]
    assert keys[-8:] == [
        "hypothesis_test", "sentence", "records_total", "records_shown", "records", "data", "global", "sweep"
    ]  # fmt: skip
    assert doc["records_total"] == 30 and len(doc["records"]) == 20 == doc["records_shown"]
    assert "log_ratio" not in doc["records"][0] and doc["sweep"]["record"] == 30
    assert "the missing claim is at least 25.08" in doc["sentence"]
    assert doc["global"]["sentence"] == res.global_sentence()
    bare = audit_document(res)
    assert "file" not in bare and "data" not in bare and "sweep" not in bare
    assert "the missing record is at least" in bare["sentence"]


def test_write_records_has_every_record(audited, tmp_path):
    res, _ = audited
    path = write_records(res, tmp_path / "sub" / "records.csv")
    lines = path.read_text().splitlines()
    assert len(lines) == 31 and lines[30].startswith("30,100.0,")


def test_write_outputs(audited, tmp_path):
    res, sweep = audited
    path = write_outputs(res, tmp_path / "out", sweep=sweep, sweep_record=30, column="claims")
    manifest = json.loads(path.read_text())
    assert manifest["kind"] == "audit" and manifest["title"].endswith("mean of 'claims'")
    assert [t["path"] for t in manifest["tables"]] == [
        "records.csv",
        "provider.csv",
        "global.csv",
        "sweep.csv",
    ]
    assert len(manifest["figures"]) == 4 and manifest["parameters"]["universe"] == "[0, 100]"
    assert "records" not in manifest["summary"] and "sentence" not in manifest["summary"]
    assert len(manifest["findings"]) == 2
    assert all((tmp_path / "out" / t["path"]).exists() for t in manifest["tables"])


def test_record_nouns():
    assert record_nouns("claims") == ("claim", "claims")
    assert record_nouns("address") == ("record", "records")
    assert record_nouns(None) == ("record", "records")


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [({"u": 1.5}, "u"), ({"event": "odds"}, "event"), ({"alpha": 0.7}, "alpha"), ({"seed": -1}, "seed"),
     ({"u": 0.5, "response": 3.0}, "u")],
)  # fmt: skip
def test_errors_name_the_parameter_not_an_option(kwargs, param):
    with pytest.raises(PrivriskError) as info:
        audit_data_dependent(CLAIMS, "mean", 2, **kwargs)
    assert (
        info.value.param == param and str(info.value).startswith(param + ":") and "--" not in str(info.value)
    )


def test_sweep_errors_name_the_parameter():
    with pytest.raises(PrivriskError, match=r"^record: there is no record 31") as info:
        audit_sweep(CLAIMS, "mean", 2, 31, [14], u=0.75)
    assert info.value.param == "record"
    with pytest.raises(PrivriskError, match=r"^sweep_values:"):
        audit_sweep(CLAIMS, "mean", 2, 30, [float("inf")], u=0.75)
