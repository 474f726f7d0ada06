"""``privrisk release`` and ``privrisk ledger``: both forms, outputs, budget and ledger, bad input draws no noise."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from helpers import one_line_error
from privrisk.release import mechanisms as R
from release_helpers import never_written

# The true mean of hours (missing code −1 dropped, 30 clamped to 24) is (8 + 6 + 24 + 7 + 9)/5 = 10.8; the true
# median of income in [0, 600] (700 and 1000 clamped to 600) is (200 + 300)/2 = 250. Neither may appear anywhere.
DATA = "hours,income\n8,100\n6,200\n30,50\n-1,700\n7,1000\n9,300\n"
SPEC = """public_n = 1000
missing = "negative"

[[query]]
column = "hours"
query = "mean"
epsilon = "ln3"
universe = [0, 24]

[[query]]
column = "income"
query = "median"
epsilon = 0.25
universe = [0, 600]
"""


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "survey.csv"
    data.write_text(DATA)
    spec = tmp_path / "release.toml"
    spec.write_text(SPEC)
    return data, spec, tmp_path


@pytest.fixture
def no_noise(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(R, "_draw", boom)


def single(data, *extra, eps="0.5"):
    # A mean at ε < 3 is useless under unbounded neighbours; these tests are about other things.
    return ("release", data, "--allow-useless", "-c", "hours", "-q", "mean", "-e", eps, "--universe", "0,24",
            "--missing", "negative", *extra)  # fmt: skip


def test_single_query_json(cli, files):
    data, _, _ = files
    internal_file = files[2] / "internal.json"
    r = cli(*single(data, "--public-n", "100", "--json", "--internal", internal_file))
    assert r.code == 0, r.err
    doc = r.json
    assert "internal_assessment" not in doc
    assert internal_file.stat().st_mode & 0o777 == 0o600
    assert doc["schema_version"] == 1
    (answer,) = doc["answers"]
    assert answer["noise_scale"] == 24.0 and answer["global_sensitivity"] == 12.0
    assert answer["noise_95"] == pytest.approx(24 * math.log(20))
    assert answer["interval_hi"] - answer["noisy_value"] == pytest.approx(answer["noise_95"])
    s = doc["public_statement"]
    assert s["epsilon"] == 0.5 and s["n"] == 100
    assert s["many_worlds"] == pytest.approx(1 / (1 + 99 * math.exp(-0.5)))
    internal = json.loads(internal_file.read_text())
    assert internal["not_for_publication"] is True
    (row,) = internal["queries"]
    assert row["n"] == 5 and row["n_clamped"] == 1
    assert internal["data"]["hours"]["dropped_codes"] == {"-1": 1}
    assert never_written(10.8, r.out)


def test_spec_json_and_composition(cli, files):
    data, spec, _ = files
    doc = cli(
        "release", data, "--allow-useless", "--spec", spec, "--json", "--internal", files[2] / "i.json"
    ).json
    doc["internal_assessment"] = json.loads((files[2] / "i.json").read_text())
    assert [a["label"] for a in doc["answers"]] == ["mean(hours)", "median(income)"]
    assert doc["public_statement"]["epsilon"] == pytest.approx(math.log(3) + 0.25)
    assert doc["public_statement"]["n"] == 1000
    assert doc["answers"][1]["noise_scale"] == 1200.0  # Δf = 600/2, ε = 0.25
    hours, income = doc["internal_assessment"]["queries"]
    assert (hours["n_clamped"], income["n_clamped"]) == (1, 2)
    # {50, 100, 200, 300, 600, 600}: adding 600 or removing 50 moves the median from 250 to 300; adding 0 or
    # removing 600 moves it to 200. Δv = 50.
    assert income["local_sensitivity"] == 50.0 and income["ratio"] == pytest.approx(50 / 300)


def test_human_output_keeps_the_internal_part_off_stdout(cli, files):
    data, spec, _ = files
    r = cli("release", data, "--allow-useless", "--spec", spec)
    assert r.code == 0
    assert "Public statement" in r.out and "global risk" in r.out and "Suppose an attacker" in r.out
    assert "NOT FOR PUBLICATION" not in r.out and "--internal FILE" in r.err
    assert "local" not in r.out.lower().replace("local leak", "")
    assert "local" not in r.err.lower().replace("local leak", "").replace("local sensitivity, record", "")


def test_out_folder(cli, files):
    data, spec, tmp = files
    out = tmp / "out"
    r = cli("release", data, "--allow-useless", "--spec", spec, "--out", out)
    assert r.code == 0, r.err
    names = {p.name for p in out.iterdir()}
    assert names == {"release.json", "release.csv", "statement.html",
                     "manifest.json", "release_answers.png", "release_answers.svg", "release_risk.png",
                     "release_risk.svg"}  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "release" and manifest["schema_version"] == 1
    assert all((out / t["path"]).exists() for t in manifest["tables"])
    assert len(manifest["figures"]) == 2
    assert all((out / f["svg"]).exists() and (out / f["png"]).exists() for f in manifest["figures"])
    assert manifest["summary"]["total_epsilon"] == pytest.approx(math.log(3) + 0.25)
    assert any("global risk" in f for f in manifest["findings"])
    public = json.loads((out / "release.json").read_text())
    assert "internal_assessment" not in public and len(public["answers"]) == 2
    assert all("internal" not in t["path"] for t in manifest["tables"])
    for path in out.glob("*.[jc]s*"):
        text = path.read_text()
        assert never_written(10.8, text) and never_written(250.0, text), path


def test_budget_and_ledger_work_alike_for_both_forms(cli, files, monkeypatch):
    data, spec, tmp = files
    led = tmp / "ledger.json"
    assert cli(*single(data, "--budget", "2", "--ledger", led, eps="0.5")).code == 0
    doc = cli(
        "release", data, "--allow-useless", "--spec", spec, "--budget", "2", "--ledger", led, "--json"
    ).json
    assert doc["ledger"]["spent_before"] == 0.5
    assert doc["public_statement"]["cumulative"]["epsilon"] == pytest.approx(0.5 + math.log(3) + 0.25)
    assert doc["public_statement"]["cumulative"]["releases"] == 2

    def boom(*args, **kwargs):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(R, "_draw", boom)
    before = led.read_bytes()
    r = cli("release", data, "--allow-useless", "--spec", spec, "--budget", "2", "--ledger", led)
    assert r.code == 1 and "--budget" in r.err and "no noise was drawn" in r.err
    r = cli(*single(data, "--budget", "2", "--ledger", led, eps="0.5"))
    assert r.code == 1
    assert led.read_bytes() == before


def test_budget_already_spent_is_exit_1_and_draws_nothing(cli, files, no_noise):
    from privrisk.release.ledger import record_release

    data, _, tmp = files
    led = tmp / "ledger.json"
    record_release(led, queries=[{"column": "hours", "query": "mean", "epsilon": 1.0}], budget=1.0)
    r = cli(*single(data, "--budget", "1", "--ledger", led, eps="0.01"))
    assert r.code == 1 and "already spent" in r.err and r.out == ""


def test_budget_without_ledger(cli, files, no_noise):
    data, spec, _ = files
    r = cli("release", data, "--allow-useless", "--spec", spec, "--budget", "1")
    # The spec spends ln 3 + 0.25 = 1.34861 > 1.
    assert r.code == 1 and f"ε = {math.log(3) + 0.25:.5f}" in r.err and "--budget" in r.err


def test_ledger_command(cli, files):
    data, _, tmp = files
    led = tmp / "ledger.json"
    cli(*single(data, "--ledger", led, eps="ln3"))
    cli(*single(data, "--ledger", led, eps="ln3"))
    doc = cli("ledger", led, "--budget", "3", "--json").json
    assert doc["releases"] == 2 and doc["total_epsilon"] == pytest.approx(math.log(9))
    assert doc["public_statement"]["global_risk"] == pytest.approx(0.9)
    assert doc["left"] == pytest.approx(3 - math.log(9))
    text = cli("ledger", led).out
    assert "2 releases, checksums verified" in text and "90.0%" in text


def test_ledger_out_writes_the_report_folder_even_over_budget(cli, files):
    data, _, tmp = files
    led = tmp / "ledger.json"
    cli(*single(data, "--ledger", led, eps="0.5"))
    r = cli("ledger", led, "--budget", "0.25", "--out", tmp / "report")
    assert r.code == 1 and r.err.strip().splitlines()[-1].startswith("privrisk: --budget: the ledger")
    doc = json.loads((tmp / "report" / "ledger.json").read_text())
    assert doc["schema_version"] == 1 and doc["spent"] == 0.5 and doc["releases"] == 1
    manifest = json.loads((tmp / "report" / "manifest.json").read_text())
    assert manifest["kind"] == "ledger" and manifest["summary"]["exceeded"] is True


@pytest.mark.parametrize(
    ("args", "option"),
    [(["--curator", "Office"], "--curator"), (["--export", "registry", "--budget-rho", "1"], "--budget-rho"),
     (["--export", "csv"], "--export")],
)  # fmt: skip
def test_ledger_export_rules_name_the_option(cli, files, args, option):
    data, _, tmp = files
    led = tmp / "ledger.json"
    cli(*single(data, "--ledger", led, eps="0.5"))
    one_line_error(cli("ledger", led, *args), option)


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--universe", "5,1"], ["--universe"]),
        (["--universe", "3,3"], ["--universe"]),
        (["--epsilon", "0"], ["--epsilon", "greater than 0"]),
        (["--epsilon", "-0.5"], ["--epsilon"]),
        (["--query", "mode"], ["--query", "unknown query"]),
        (["--column", "hourz"], ["no column 'hourz'", "hours"]),
        (["--budget", "0"], ["--budget"]),
        (["--missing", "x"], ["--missing"]),
        (["--public-n", "1"], ["public"]),
    ],
)
def test_bad_single_query_exits_2_without_noise(cli, files, no_noise, args, fragments):
    data, _, _ = files
    base = {"--column": "hours", "--query": "mean", "--epsilon": "0.5", "--universe": "0,24"}
    extra = []
    for name, value in zip(args[::2], args[1::2], strict=True):
        if name in base:
            base[name] = value
        else:
            extra += [name, value]
    flat = [x for kv in base.items() for x in kv]
    one_line_error(cli("release", data, *flat, *extra), *fragments)


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (('column = "income"', 'column = "salary"'), ["release.toml", "query 2", "'salary'", "income"]),
        (('query = "median"', 'query = "mode"'), ["release.toml", "query 2", "unknown query"]),
        (("epsilon = 0.25", "epsilon = 0"), ["release.toml", "query 2", "epsilon"]),
        (("epsilon = 0.25", "epsilon = -1"), ["release.toml", "query 2", "epsilon"]),
        (("universe = [0, 600]", "universe = [600, 0]"), ["release.toml", "query 2", "universe"]),
        (("universe = [0, 600]", "universe = [7, 7]"), ["release.toml", "query 2", "universe"]),
    ],
)
def test_bad_spec_exits_2_without_noise(cli, files, no_noise, change, fragments):
    data, spec, _ = files
    spec.write_text(SPEC.replace(*change))
    one_line_error(cli("release", data, "--allow-useless", "--spec", spec), *fragments)


def test_spec_and_single_options_together(cli, files, no_noise):
    data, spec, _ = files
    one_line_error(
        cli("release", data, "--allow-useless", "--spec", spec, "--epsilon", "1"), "--epsilon", "release.toml"
    )


def test_single_query_needs_all_options(cli, files, no_noise):
    data, _, _ = files
    one_line_error(cli("release", data, "-c", "hours", "-q", "mean", "-e", "1"), "--universe", "required")


def test_corrupt_ledger_exits_2_without_noise(cli, files, no_noise):
    data, _, tmp = files
    led = tmp / "ledger.json"
    led.write_text('{"schema_version": 1, "entries": []')
    one_line_error(cli(*single(data, "--ledger", led)), "ledger.json", "corrupt")


def test_out_that_is_a_file_exits_2_without_noise(cli, files, no_noise):
    data, _, tmp = files
    target = tmp / "taken"
    target.write_text("x")
    one_line_error(cli(*single(data, "--out", target)), "--out")


def test_missing_data_file(cli, files, no_noise):
    _, _, tmp = files
    one_line_error(cli(*single(tmp / "nope.csv")), "nope.csv", "no such file")


def test_ledger_command_on_corrupt_and_missing(cli, files):
    _, _, tmp = files
    led = tmp / "ledger.json"
    led.write_text("[]")
    one_line_error(cli("ledger", led), "corrupt")
    one_line_error(cli("ledger", tmp / "none.json"), "no such ledger")


def test_help_says_why_there_is_no_local_noise_and_no_seed(cli):
    text = " ".join(cli("release", "--help").out.split())
    assert "privrisk audit" in text and "cannot be seeded" in text and "Example:" in text


@pytest.mark.slow
def test_concurrent_cli_releases_never_overspend(files):
    """Three `privrisk release` processes, each asking for ε = 0.5 of a budget of 1: exactly two may run."""
    data, _, tmp = files
    led = tmp / "ledger.json"
    args = [sys.executable, "-m", "privrisk", "release", str(data), "--allow-useless", "-c", "hours", "-q", "mean", "-e", "0.5",
            "--universe", "0,24", "--missing", "negative", "--budget", "1", "--ledger", str(led), "--json"]  # fmt: skip
    procs = [
        subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)
    ]
    results = [(p.wait(120), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 0, 1], results
    refused = next(err for code, _, err in results if code == 1)
    assert "already spent" in refused
    from privrisk.release.ledger import read_ledger

    assert [e["epsilon"] for e in read_ledger(led)] == [0.5, 0.5]


def test_the_example_spec_runs(cli, tmp_path):
    from pathlib import Path

    root = Path(__file__).parents[2]
    r = cli("release", root / "examples" / "distance_work.csv", "--allow-useless", "--spec", root / "examples" / "release.toml",
            "--public-n", "100", "--json", "--internal", tmp_path / "i.json")  # fmt: skip
    assert r.code == 0, r.err
    doc = r.json
    doc["internal_assessment"] = json.loads((tmp_path / "i.json").read_text())
    # Allmann et al., §3.2: the commuting distances: Δv(mean) = 133.45 (remove 675 from {1, 3, 10, 17, 675}), Δv(median) = 3.5.
    assert [q["local_sensitivity"] for q in doc["internal_assessment"]["queries"]] == pytest.approx(
        [133.45, 3.5]
    )
    assert doc["public_statement"]["epsilon"] == pytest.approx(math.log(3) + 0.5)


def test_ledger_keeps_its_budget_without_the_option(cli, files, no_noise):
    from privrisk.release.ledger import record_release

    data, _, tmp = files
    led = tmp / "ledger.json"
    record_release(led, queries=[{"column": "hours", "query": "mean", "epsilon": 0.8}], budget=1.0)
    r = cli(*single(data, "--ledger", led, eps="0.5"))
    assert r.code == 1 and "budget ε = 1" in r.err


def test_refused_release_writes_no_out_folder(cli, files, no_noise):
    data, spec, tmp = files
    r = cli("release", data, "--allow-useless", "--spec", spec, "--budget", "1", "--out", tmp / "out")
    assert r.code == 1 and not (tmp / "out").exists()
    assert [p.name for p in tmp.iterdir() if p.name.startswith(".out")] == []


def test_parquet_and_labels(cli, tmp_path):
    import pandas as pd

    data = tmp_path / "survey.parquet"
    pd.DataFrame({"hours": [8.0, 6.0, 7.0, 9.0]}).to_parquet(data)
    spec = tmp_path / "r.toml"
    spec.write_text('[[query]]\ncolumn = "hours"\nquery = "sum"\nepsilon = 1\nuniverse = [0, 24]\n'
                    'label = "Hours worked, total"\n')  # fmt: skip
    doc = cli(
        "release", data, "--allow-useless", "--spec", spec, "--json", "--internal", tmp_path / "i.json"
    ).json
    doc["internal_assessment"] = json.loads((tmp_path / "i.json").read_text())
    assert doc["answers"][0]["label"] == "Hours worked, total"
    assert doc["answers"][0]["noise_scale"] == 24.0  # Δf(sum) = max(|0|, |24|)
    assert doc["internal_assessment"]["queries"][0]["local_sensitivity"] == 24.0  # adding 24


def test_release_json_keys_are_unchanged(cli, files):
    data, _, tmp = files
    r = cli(*single(data, "--ledger", tmp / "ledger.json", "--json"))
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert set(doc) == {"schema_version", "file", "answers", "public_statement", "budget", "ledger"}
    assert set(doc["ledger"]) == {"path", "spent_before", "spent_after", "budget", "previous_budget", "entry"}
    assert doc["ledger"]["path"] == str(tmp / "ledger.json")


def test_preview_shows_the_noise_and_charges_nothing(cli, files, no_noise):
    data, spec, tmp = files
    ledger = tmp / "ledger.json"
    r = cli(
        "release",
        data,
        "--allow-useless",
        "--spec",
        spec,
        "--ledger",
        ledger,
        "--out",
        tmp / "out",
        "--preview",
        "--json",
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    # By hand: mean on [0, 24] at ε = ln 3: b = 12/ln 3; median on [0, 600] at ε = 0.25: b = 300/0.25 = 1200.
    scales = [q["scale"] for q in doc["queries"]]
    assert scales == pytest.approx([12 / math.log(3), 1200.0], rel=1e-12)
    assert [q["half_width"] for q in doc["queries"]] == pytest.approx([s * math.log(20) for s in scales])
    # 1200 ln 20 = 3595 > 600/2: the median would be useless; the mean (± 32.7 > 12) too.
    assert [q["useless"] for q in doc["queries"]] == [True, True] and len(doc["warnings"]) == 2
    assert len(doc["preview_id"]) == 64 and doc["refusal"] is None
    assert not ledger.exists() and not (tmp / "out").exists()
    human = cli(*single(data, "--preview"))
    assert human.code == 0, human.err
    assert "nothing is drawn and no ε is spent" in human.out and "would be right about" in human.out


def test_preview_exits_1_when_the_budget_would_refuse(cli, files, no_noise):
    data, _, _ = files
    r = cli(*single(data, "--budget-epsilon", "0.25", "--preview"))
    assert r.code == 1
    assert r.err.strip().splitlines()[-1].startswith("privrisk: --budget-epsilon: this release needs ε = 0.5")


def test_a_large_epsilon_names_the_option_that_allows_it(cli, files, no_noise):
    data, _, _ = files
    one_line_error(
        cli(*single(data, eps="25")), "--epsilon: a release with total ε = 25 > 20", "--allow-large-epsilon"
    )
