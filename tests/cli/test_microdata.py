"""``privrisk microdata``: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from helpers import one_line_error

EXAMPLE = Path(__file__).parents[2] / "examples" / "microdata_survey.csv"


@pytest.fixture
def survey(tmp_path):
    frame = pd.read_csv(EXAMPLE)
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path, frame


BASE = ["--keys", "region,age,sex", "--weights", "weight"]


def test_json_document(cli, survey):
    path, frame = survey
    r = cli("microdata", path, *BASE, "--household", "hid", "--sensitive", "income,diagnosis", "--suda", "2",
            "--top", "3", "--json")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema_version"] == 1
    m = doc["measures"]
    assert m["records"] == len(frame) and m["k_anonymity"]["k"] == 1
    assert {d["variable"] for d in m["diversity"]} == {"income", "diagnosis"}
    assert len(doc["top_records"]) == 3 and "suda2" in m and "household_risk" in m
    assert doc["combinations"]["total"] == m["combinations"]


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [("--k", "2", "--k: 11 record(s)"), ("--max-risk", "0.05", "--max-risk:"), ("--l", "2", "--l: income"),
     ("--t", "0.1", "--t: income")],
)  # fmt: skip
def test_thresholds_exit_1(cli, survey, option, value, fragment):
    path, _ = survey
    r = cli("microdata", path, *BASE, "--sensitive", "income", option, value)
    assert r.code == 1 and fragment in r.err
    r = cli("microdata", path, *BASE, "--sensitive", "income", option, value, "--json")
    assert r.code == 1 and json.loads(r.out)["failures"][0].startswith(option + ":")


def test_thresholds_met_exit_0(cli, survey):
    path, _ = survey
    r = cli("microdata", path, *BASE, "--sensitive", "income", "--k", "1", "--max-risk", "0.1", "--l", "1",
            "--t", "0.6")  # fmt: skip
    assert r.code == 0, r.err


def test_outputs(cli, survey, tmp_path):
    path, frame = survey
    r = cli("microdata", path, *BASE, "--out", tmp_path / "out", "--records", tmp_path / "risks.csv")
    assert r.code == 0, r.err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "combinations.csv", "manifest.json", "records.csv", "report.html"]  # fmt: skip
    risks = pd.read_csv(tmp_path / "risks.csv")
    assert len(risks) == len(frame) and {"row", "f_k", "F_k", "risk"} <= set(risks.columns)


@pytest.mark.parametrize(
    ("change", "args", "fragments"),
    [
        ({}, ["--keys", "region,agegroup"], ["no column 'agegroup'"]),
        ({"weight": -1.0}, BASE, ["--weights:", "negative"]),
        ({"weight": None}, BASE, ["--weights:", "missing"]),
        ({"hid": None}, [*BASE, "--household", "hid"], ["--household:", "missing"]),
        ({}, [*BASE, "--missing", "skip"], ["--missing:", "skip"]),
        ({}, [*BASE, "--risk-method", "fast"], ["--risk-method:"]),
        ({}, [*BASE, "--l", "2"], ["--sensitive:"]),
        ({}, [*BASE, "--suda", "9"], ["--suda:"]),
        ({}, ["--keys", "region", "--population-size", "3"], ["--population-size:"]),
    ],
)
def test_bad_input_one_line_exit_2(cli, survey, tmp_path, change, args, fragments):
    _, frame = survey
    bad = frame.copy()
    for column, value in change.items():
        bad.loc[0, column] = value
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    one_line_error(cli("microdata", path, *args), *fragments)


def test_missing_file(cli, tmp_path):
    one_line_error(cli("microdata", tmp_path / "nope.csv", "--keys", "a"), "nope.csv")


def test_help_shows_an_example(cli):
    r = cli("microdata", "--help")
    assert r.code == 0 and "Example: privrisk microdata" in r.out


def test_suppression_meets_k(cli, survey, tmp_path):
    path, _ = survey
    r = cli("microdata", path, *BASE, "--k", "2", "--suppress", "--importance", "sex,region,age", "--json",
            "--out", tmp_path / "out")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["failures"] == [] and doc["failures_before"][0].startswith("--k:")
    assert doc["suppression"]["measures_after"]["k_anonymity"]["k"] >= 2
    released = pd.read_csv(tmp_path / "out" / "released.csv")
    assert int(released[["region", "age", "sex"]].isna().sum().sum()) == doc["suppression"]["suppressed"]


def test_recoding_meets_k_or_exits_1(cli, survey):
    path, _ = survey
    hier = ["-H", f"age=table:{EXAMPLE.parent / 'microdata_age.csv'}", "-H", "sex=none"]
    r = cli("microdata", path, *BASE, "--k", "2", *hier, "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["failures"] == [] and doc["recoding"]["levels"] == {"age": 2, "sex": 1}
    r = cli("microdata", path, *BASE, "--k", "1000", *hier)
    assert r.code == 1 and "none of the" in r.err
    one_line_error(cli("microdata", path, *BASE, "--k", "2", "--suppress", *hier), "--suppress:")
    one_line_error(cli("microdata", path, *BASE, "--importance", "age"), "--importance:")
