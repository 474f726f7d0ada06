"""``privrisk study --attack``: the attack's columns, summary, report section, JSON, skipping, one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from browser_helpers import Opened
from cli.test_study import FAST, make_survey, run
from helpers import one_line_error

ATTACK = [
    "-c",
    "hours",
    "-c",
    "distance",
    "--missing",
    "negative",
    *FAST,
    "--attack",
    "--attack-trials",
    "400",
]


@pytest.fixture(scope="module")
def attack_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study_attack")
    survey = make_survey(folder)
    out = folder / "res"
    code, stdout, stderr = run("study", survey, *ATTACK, "--attack-max-n", "100", "--out", out, "--json")
    assert code == 0, stderr
    return survey, out, json.loads(stdout)


def test_results_and_summary_gain_the_attack_columns(attack_run):
    _, out, _ = attack_run
    results = pd.read_parquet(out / "results.parquet")
    for col in ("exact_risk", "expected_success", "simulated_success", "lee_clifton_bound", "attacked"):
        assert col in results.columns
    done = results[results["attacked"]]
    skipped = results[~results["attacked"]]
    assert set(done["n"]) == {18, 20, 72, 80} and set(skipped["n"]) == {360, 400}
    assert skipped[["exact_risk", "expected_success", "simulated_success"]].isna().all().all()
    assert (done["expected_success"] <= done["exact_risk"] + 1e-12).all()
    assert (done["exact_risk"] <= done["lee_clifton_bound"] + 1e-12).all()
    se = np.sqrt(done["expected_success"] * (1 - done["expected_success"]) / 400)
    assert (np.abs(done["simulated_success"] - done["expected_success"]) < 5 * se).all()
    summary = pd.read_csv(out / "summary.csv")
    assert {"exact_risk", "expected_success", "simulated_success"} <= set(summary["risk"])


def test_json_reports_the_attack(attack_run):
    _, _, doc = attack_run
    assert doc["schema_version"] == 1
    a = doc["attack"]
    assert a["trials"] == 400 and a["max_n"] == 100
    assert a["samples_attacked"] == 2 * 2 * 3 and a["samples_skipped"] == 2 * 3
    assert a["skipped_sizes"] == [360, 400]
    row = a["key_figures"][0]
    assert {
        "variable",
        "query",
        "n",
        "many_worlds",
        "exact_risk",
        "expected_success",
        "simulated_success",
    } <= set(row)
    assert any("were not attacked" in s for s in doc["findings"])
    assert doc["parameters"]["attack_trials"] == 400


def test_report_shows_bound_exact_and_simulated_side_by_side(attack_run):
    _, out, _ = attack_run
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "the bound is what the formula promises" in page.lower()
    for head in ("bound ρ_mw", "exact risk", "expected success", "simulated success"):
        assert f"<th>{head}</th>" in page
    assert "<script" not in page and page.count("<svg") == 3
    for ext in ("png", "svg"):
        assert (out / "figures" / f"figure3_attack_by_size.{ext}").stat().st_size > 1000
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["summary"]["attack"]["samples_skipped"] == 6
    assert len(manifest["figures"]) == 3 and all((out / f["svg"]).exists() for f in manifest["figures"])


def test_same_seed_same_attack(attack_run, tmp_path):
    survey, out, _ = attack_run
    code, _, stderr = run(
        "study", survey, *ATTACK, "--attack-max-n", "100", "--out", tmp_path / "again", "--json"
    )
    assert code == 0, stderr
    a = pd.read_parquet(out / "results.parquet")
    b = pd.read_parquet(tmp_path / "again" / "results.parquet")
    pd.testing.assert_frame_equal(a, b)


def test_human_output_has_the_attack_table(tmp_path):
    survey = make_survey(tmp_path)
    code, stdout, stderr = run("study", survey, *ATTACK, "--out", tmp_path / "res")
    assert code == 0, stderr
    assert "exact" in stdout and "the bound is what the formula promises" in stdout.lower()
    assert "were not attacked" not in stdout  # the default limit attacks these small samples


def test_without_attack_the_results_keep_their_columns(tmp_path):
    survey = make_survey(tmp_path)
    code, stdout, stderr = run("study", survey, "-c", "hours", *FAST, "--out", tmp_path / "res", "--json")
    assert code == 0, stderr
    assert "attack" not in json.loads(stdout)
    assert "exact_risk" not in pd.read_parquet(tmp_path / "res" / "results.parquet").columns


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--attack", "--attack-trials", "0"], ("--attack-trials", "≥ 1")),
        (["--attack", "--attack-trials", "-5"], ("--attack-trials",)),
        (["--attack", "--attack-max-n", "1"], ("--attack-max-n", "≥ 2")),
        (["--attack-trials", "100"], ("--attack-trials", "--attack")),
        (["--attack-max-n", "100"], ("--attack-max-n", "--attack")),
    ],
)
def test_bad_attack_options(cli, tmp_path, args, fragments):
    survey = make_survey(tmp_path)
    result = cli("study", survey, "-c", "hours", *FAST, *args, "--out", tmp_path / "res")
    one_line_error(result, *fragments)
    assert not (tmp_path / "res").exists()


@pytest.mark.browser
def test_attack_report_opens_offline_in_chromium(browser, attack_run):
    _, out, _ = attack_run
    opened = Opened(browser, out / "report.html")
    try:
        page = opened.page
        assert page.locator("svg").count() == 3
        assert page.locator("table").count() == 3  # key table, attack table, set-up
        assert page.get_by_text("simulated success").first.is_visible()
        opened.assert_clean()  # no console error, no request beyond the file itself
    finally:
        opened.close()


def test_every_sample_above_the_limit_is_skipped_not_an_error(tmp_path):
    survey = make_survey(tmp_path)
    args = ["-c", "hours", "-c", "distance", "--missing", "negative", "--proportions", "0.05,1", "--repetitions",
            "2", "--epsilons", "1", "--attack"]  # fmt: skip
    code, stdout, stderr = run(
        "study", survey, *args, "--attack-max-n", "5", "--out", tmp_path / "none", "--json"
    )
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert doc["attack"]["samples_attacked"] == 0 and doc["attack"]["key_figures"] == []
    assert not (tmp_path / "none" / "figures" / "figure3_attack_by_size.svg").exists()
    # hours' smallest sample (18) is attacked, distance's (20) is not: its panel says so
    code, stdout, stderr = run(
        "study", survey, *args, "--attack-max-n", "19", "--out", tmp_path / "some", "--json"
    )
    assert code == 0, stderr
    assert json.loads(stdout)["attack"]["samples_attacked"] == 2
    assert "no sample attacked" in (tmp_path / "some" / "figures" / "figure3_attack_by_size.svg").read_text()
