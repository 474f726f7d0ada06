"""The core commands: risk, epsilon, table, sensitivity. JSON keys, exit codes, one-line errors."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import one_line_error

EXAMPLE = Path(__file__).parents[1] / "examples" / "distance_work.csv"


def test_risk_json(cli):
    r = cli("risk", "--epsilon", "ln(3)", "--n", "10", "--json")
    assert r.code == 0
    doc = r.json
    assert doc["schema_version"] == 1
    assert set(doc) >= {"epsilon", "n", "ratio", "many_worlds", "two_worlds", "global_risk", "global_leak",
                        "local_leak", "guess"}  # fmt: skip
    assert doc["many_worlds"] == pytest.approx(0.25)
    assert doc["global_risk"] == pytest.approx(0.75)
    assert doc["local_leak"] == pytest.approx(1 / 6)
    assert doc["guess"] == pytest.approx(0.1)


def test_risk_ratio_from_dv_df(cli):
    doc = cli("risk", "--epsilon", "ln3", "--n", "21", "--dv", "0.2", "--df", "25", "--json").json
    assert round(doc["many_worlds"], 3) == 0.048 and doc["ratio"] == pytest.approx(0.008)


def test_risk_human_output_has_the_sentences(cli):
    r = cli("risk", "--epsilon", "1")
    assert r.code == 0 and "about 73 times" in r.out


def test_risk_threshold_exit_code_1(cli):
    assert cli("risk", "--epsilon", "ln3", "--max-risk", "0.75").code == 0
    r = cli("risk", "--epsilon", "ln3", "--max-risk", "0.7499")
    assert r.code == 1 and "exceeds" in r.err


def test_epsilon_json(cli):
    doc = cli("epsilon", "--risk", "0.75", "--json").json
    assert doc["epsilon"] == pytest.approx(math.log(3))


def test_table_json_and_text(cli):
    doc = cli("table", "--epsilons", "ln2,ln3,ln7", "--n", "2,10,100", "--json").json
    assert len(doc["rows"]) == 9 and set(doc["rows"][0]) == {"epsilon", "n", "risk", "leak"}
    text = cli("table").out
    for cell in ("66.7%", "33.3%", "18.2%", "9.1%", "43.8%", "37.5%", "6.6%", "5.7%"):
        assert cell in text


def test_sensitivity_on_the_example(cli):
    doc = cli(
        "sensitivity", EXAMPLE, "--column", "distance", "--query", "variance", "--epsilon", "1", "--json"
    ).json
    assert doc["global_sensitivity"] == 113569.0 and doc["n"] == 5
    assert "column's own" in doc["universe"]["description"]
    assert {"many_worlds", "two_worlds", "global_risk"} <= set(doc)
    assert doc["global_risk"] == pytest.approx(0.7310585786)


def test_sensitivity_universe_file(cli, tmp_path):
    sample = tmp_path / "s.csv"
    sample.write_text("d\n1\n3\n10\n17\n")
    doc = cli("sensitivity", sample, "--column", "d", "--query", "mean", "--universe-file", EXAMPLE,
              "--universe-column", "distance", "--json").json  # fmt: skip
    assert doc["local_sensitivity"] == pytest.approx(133.45) and doc["global_sensitivity"] == 337.0


def test_sensitivity_bounded(cli):
    doc = cli("sensitivity", EXAMPLE, "-c", "distance", "-q", "mean", "--universe", "0,700",
              "--neighbours", "bounded", "--json").json  # fmt: skip
    assert doc["global_sensitivity"] == pytest.approx(140.0)


def test_sensitivity_missing_codes_in_output(cli, tmp_path):
    path = tmp_path / "soep.csv"
    path.write_text("h\n8\n-1\n4\n-2\n6\n")
    doc = cli("sensitivity", path, "-c", "h", "-q", "max", "--missing", "negative", "--json").json
    assert doc["data"]["dropped_codes"] == {"-2": 1, "-1": 1} and doc["n"] == 3


# ------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["risk", "--epsilon", "0"], ["--epsilon", "greater than 0"]),
        (["risk", "--epsilon", "-1"], ["--epsilon"]),
        (["risk", "--epsilon", "abc"], ["--epsilon", "not a number"]),
        (["risk", "--epsilon", "ln(0)"], ["--epsilon"]),
        (["risk", "--epsilon", "1", "--n", "1"], ["--n"]),
        (["risk", "--epsilon", "1", "--dv", "1"], ["--dv"]),
        (["risk", "--epsilon", "1", "--dv", "1", "--df", "0"], ["--df"]),
        (["risk", "--epsilon", "1", "--ratio", "1", "--dv", "1", "--df", "2"], ["--ratio"]),
        (["risk", "--epsilon", "1", "--delta", "2"], ["--delta"]),
        (["risk"], ["--epsilon"]),
        (["risk", "--epsilonn", "1"], ["--epsilonn"]),
        (["epsilon", "--risk", "0.5"], ["1/n"]),
        (["epsilon", "--risk", "1.5"], ["risk"]),
        (["table", "--epsilons", "ln2,x"], ["--epsilons"]),
        (["table", "--n", "1,10"], ["--n"]),
        (["sensitivity", "nope.csv", "-c", "x", "-q", "mean"], ["nope.csv", "no such file"]),
        (["sensitivity", str(EXAMPLE), "-c", "dist", "-q", "mean"], ["no column 'dist'", "distance"]),
        (["sensitivity", str(EXAMPLE), "-c", "distance", "-q", "mode"], ["unknown query"]),
        (
            ["sensitivity", str(EXAMPLE), "-c", "distance", "-q", "mean", "--universe", "0,100"],
            ["outside the universe"],
        ),
        (["sensitivity", str(EXAMPLE), "-c", "distance", "-q", "mean", "--universe", "5,1"], ["--universe"]),
        (["sensitivity", str(EXAMPLE), "-c", "distance", "-q", "mean", "--epsilon", "0"], ["--epsilon"]),
        (
            [
                "sensitivity",
                str(EXAMPLE),
                "-c",
                "distance",
                "-q",
                "count",
                "--neighbours",
                "bounded",
                "--universe",
                "0,700",
            ],
            ["undefined"],
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, args, fragments):
    one_line_error(cli(*args), *fragments)


def test_sensitivity_text_column(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x\n1\nabc\n")
    one_line_error(cli("sensitivity", path, "-c", "x", "-q", "mean"), "not numeric")


def test_sensitivity_empty_file(cli, tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("")
    one_line_error(cli("sensitivity", path, "-c", "x", "-q", "mean"), "empty")


def test_every_command_has_help_with_an_example(cli):
    from privrisk.cli import app

    names = [c.name for c in app.registered_commands]
    assert {"risk", "epsilon", "table", "sensitivity"} <= set(names)
    for name in names:
        r = cli(name, "--help")
        assert r.code == 0 and "Example" in r.out, name


def test_console_script_runs_as_a_process():
    proc = subprocess.run(
        [sys.executable, "-m", "privrisk", "risk", "--epsilon", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
