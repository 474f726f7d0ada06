"""``privrisk explain`` and ``privrisk report``: the pages they write, their JSON, messages that name options."""

from __future__ import annotations

import json
import math

import pytest

from explain_fixtures import make_results
from helpers import one_line_error
from privrisk import risk as R
from privrisk.reports.manifest import write_manifest

LN3 = math.log(3)


# --- privrisk explain -------------------------------------------------------------------------------------


def test_explain_writes_the_page_and_prints_describe(cli, tmp_path):
    target = tmp_path / "explain.html"
    r = cli("explain", "--epsilon", "ln3", "--n", "100", "--compare", "ln2,ln7", "--out", target)
    assert r.code == 0, r.err
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert R.describe(LN3, 100) in r.out
    assert [p.name for p in tmp_path.iterdir()] == ["explain.html"]  # no temporary file left behind


def test_explain_json(cli, tmp_path):
    doc = cli("explain", "-e", "ln(3)", "--lang", "de", "--json").json
    assert doc["schema_version"] == 1 and doc["global_risk"] == pytest.approx(0.75)
    assert doc["shown"]["risk"] == "etwa 75" and doc["many_worlds"] is None and doc["out"] is None
    assert doc["paragraph"].startswith("Angenommen, ein Angreifer") and "etwa 75 richtig" in doc["paragraph"]
    doc = cli("explain", "-e", "1", "--n", "21", "--json", "--out", tmp_path / "p.html").json
    assert doc["many_worlds"] == pytest.approx(1 / (1 + 20 / math.e)) and (tmp_path / "p.html").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--epsilon", "0"], ["--epsilon", "greater than 0"]),
        (["--epsilon", "-1"], ["--epsilon"]),
        (["--epsilon", "abc"], ["--epsilon", "not a number"]),
        (["--epsilon", "inf"], ["--epsilon", "finite"]),
        (["--epsilon", "1", "--n", "1"], ["--n", "from 2 to 10^12"]),
        (["--epsilon", "1", "--n", "2000000000000"], ["--n", "from 2 to 10^12"]),
        (["--epsilon", "1", "--lang", "fr"], ["--lang", "en, de"]),
        (["--epsilon", "1", "--compare", "ln2,zero"], ["--compare"]),
        (["--epsilon", "1", "--compare", "0"], ["--compare"]),
        (["--epsilon", "1"], ["--out"]),
    ],
)
def test_explain_bad_input(cli, tmp_path, args, fragments):
    extra = ["--out", str(tmp_path / "x.html")] if args != ["--epsilon", "1"] else []
    r = cli("explain", *args, *extra)
    one_line_error(r, *fragments)
    assert not (tmp_path / "x.html").exists()


def test_explain_out_is_a_folder_or_in_a_missing_folder(cli, tmp_path):
    one_line_error(cli("explain", "--epsilon", "1", "--out", tmp_path), "--out", "folder")
    one_line_error(
        cli("explain", "--epsilon", "1", "--out", tmp_path / "no" / "x.html"), "--out", "does not exist"
    )


def test_guide_explain_examples_run(cli, tmp_path, monkeypatch):
    import shlex
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "docs" / "guide" / "explain.md").read_text(encoding="utf-8")
    lines = [
        line.split("#")[0].strip() for line in readme.splitlines() if line.startswith("privrisk explain ")
    ]
    assert len(lines) == 3
    monkeypatch.chdir(tmp_path)
    for line in lines:
        r = cli(*shlex.split(line)[1:])
        assert r.code == 0, (line, r.err)
    assert (tmp_path / "explain.html").exists() and (tmp_path / "erklaerung.html").exists()


# --- privrisk report --------------------------------------------------------------------------------------


def test_report_command(cli, tmp_path):
    folders = make_results(tmp_path / "results")
    target = tmp_path / "report.html"
    r = cli("report", *folders, "--out", target, "--title", "SOEP release 2026")
    assert r.code == 0, r.err
    assert "study: Sampling study of SOEP hours" in r.out and "could not be shown" in r.err
    assert "<title>SOEP release 2026</title>" in target.read_text(encoding="utf-8")
    doc = cli("report", *folders, "--out", target, "--json").json
    assert doc["schema_version"] == 1 and len(doc["sections"]) == 3 and doc["problems"] == 1


def test_report_missing_folder(cli, tmp_path):
    r = cli("report", tmp_path / "nowhere", "--out", tmp_path / "r.html")
    one_line_error(r, "nowhere", "no such folder")
    assert not (tmp_path / "r.html").exists()


def test_report_folder_without_manifest(cli, tmp_path):
    one_line_error(cli("report", tmp_path, "--out", tmp_path / "r.html"), "manifest.json")


def test_report_corrupt_manifest(cli, tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    one_line_error(cli("report", tmp_path, "--out", tmp_path / "r.html"), "manifest.json", "not valid JSON")
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "study"}))
    one_line_error(cli("report", tmp_path, "--out", tmp_path / "r.html"), "not a privrisk manifest")


def test_report_bad_out_and_rows(cli, tmp_path):
    write_manifest(tmp_path / "a", kind="study", title="S")
    one_line_error(cli("report", tmp_path / "a", "--out", tmp_path), "--out", "folder")
    one_line_error(
        cli("report", tmp_path / "a", "--out", tmp_path / "r.html", "--max-rows", "0"), "--max-rows"
    )


def test_report_needs_a_folder(cli, tmp_path):
    r = cli("report", "--out", tmp_path / "r.html")
    assert r.code == 2 and "Traceback" not in r.err


def test_explain_takes_every_guarantee_risk_takes(cli, tmp_path):
    """The page for DP-SGD, a Rényi curve or a mixed composition states the same advantage as `risk --json`."""
    releases = tmp_path / "releases.toml"
    releases.write_text('[[release]]\nmechanism = "laplace"\nscale = 2\ncount = 3\n', encoding="utf-8")
    for args in (
        ["--dpsgd", "6000,256,1", "--sigma", "1.1"],
        ["--renyi", "2:0.5,4:1.1,8:2.3"],
        ["--releases", releases],
        ["--rho", "0.1", "--compose", "3", "--group", "2"],
        ["--mechanism", "laplace", "--scale", "2", "--sample-rate", "0.1", "--compose", "3"],
    ):
        page = cli("explain", *args, "--json").json
        risk = cli("risk", *args, "--json").json
        assert page["advantage"] == pytest.approx(risk["advantage"], rel=1e-9), args
    r = cli("explain", "--releases", tmp_path / "missing.toml", "--json")
    assert r.code == 2 and "--releases" in r.err
