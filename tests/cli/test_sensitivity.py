"""``privrisk sensitivity``: JSON keys, universes, missing codes, exit codes, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import one_line_error

EXAMPLE = Path(__file__).parents[2] / "examples" / "distance_work.csv"


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


def test_sensitivity_bad_missing_codes_name_the_option(cli):
    r = cli("sensitivity", EXAMPLE, "-c", "distance", "-q", "mean", "--missing", "-1,abc")
    one_line_error(r, "--missing: 'abc' is neither 'negative' nor a numeric code")
