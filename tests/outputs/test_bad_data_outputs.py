"""Data a centre really has, and mistakes a researcher really makes: one line and exit 2 (or the right result),
never a traceback, never the database's words (issue 30 item 8, issue 37 item 3)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.outputs.ledger import Released
from privrisk.outputs.run import check_frame
from privrisk.outputs.spec import OutputSpec

# Words of the database or of SQL that a checker must never read in a message.
DATABASE_WORDS = (
    "Binder",
    "Error:",
    "Exception",
    "SELECT",
    "LINE 1",
    "VARCHAR",
    "INTEGER",
    "INT32",
    "CAST",
    "__",
)

BAD_VALUES = {"text": "abc", "inf": "inf", "-inf": "-inf", "true": "true", "date": "2024-01-05"}
OUTPUTS = {
    "sum": ('kind = "sum"\nvariable = "x"\nrows = ["region"]', "variable 'x'"),
    "mean": ('kind = "mean"\nvariable = "x"\nrows = ["region"]', "variable 'x'"),
    "median": ('kind = "median"\nvariable = "x"\nrows = ["region"]', "variable 'x'"),
    "quantile": ('kind = "quantile"\nvariable = "x"\nq = 0.3\nrows = ["region"]', "variable 'x'"),
    "min": ('kind = "min"\nvariable = "x"\nrows = ["region"]', "variable 'x'"),
    "max": ('kind = "max"\nvariable = "x"\nrows = ["region"]', "variable 'x'"),
    "weighted count": ('kind = "count"\nweights = "x"\nrows = ["region"]', "weights 'x'"),
    "weighted sum": ('kind = "sum"\nvariable = "y"\nweights = "x"\nrows = ["region"]', "weights 'x'"),
    "ols response": ('kind = "ols"\nformula = "x ~ y"', "the response 'x'"),
    "ols term": ('kind = "ols"\nformula = "y ~ x"', "column 'x'"),
    "logit term": ('kind = "logit"\nformula = "b ~ x"', "column 'x'"),
}


def _data(tmp_path: Path, x3: str) -> Path:
    """30 people in two regions (North, South); the fourth one's x is ``x3``."""
    rows = [f"{('North', 'South')[i % 2]},{x3 if i == 3 else i * 1.5},{i},{i % 2}" for i in range(30)]
    path = tmp_path / "data.csv"
    path.write_text("region,x,y,b\n" + "\n".join(rows) + "\n")
    return path


def _spec(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "outputs.toml"
    path.write_text(f'[[output]]\nname = "T"\n{body}\n')
    return path


@pytest.mark.parametrize("value", list(BAD_VALUES))
@pytest.mark.parametrize("output", list(OUTPUTS))
def test_a_value_that_is_not_a_finite_number_is_one_line_naming_the_output_and_column(
    cli, tmp_path: Path, value: str, output: str
) -> None:
    body, field = OUTPUTS[output]
    r = cli("outputs", _data(tmp_path, BAD_VALUES[value]), "--spec", _spec(tmp_path, body))
    one_line_error(r, "--spec: output 'T'", field)
    assert not any(w in r.err for w in DATABASE_WORDS), r.err


@pytest.mark.parametrize("output", list(OUTPUTS))
def test_nan_is_a_missing_value(cli, tmp_path: Path, output: str) -> None:
    # "NaN" in a CSV is a missing value: the output is computed from the other 29 values.
    body, _ = OUTPUTS[output]
    r = cli("outputs", _data(tmp_path, "NaN"), "--spec", _spec(tmp_path, body), "--json")
    assert r.code in (0, 1), r.err
    doc = json.loads(r.out)
    if output in ("ols response", "ols term", "logit term"):
        assert doc["outputs"][0]["n"] == 29
    elif output not in ("weighted count", "weighted sum"):
        # South (the odd rows) has 15 people, one of them without x.
        cell = next(c for c in doc["outputs"][0]["cells"] if c["labels"] == {"region": "South"})
        assert cell["n"] == 14


@pytest.mark.parametrize("output", ["sum", "mean", "median", "quantile", "min", "max", "weighted sum"])
def test_a_group_whose_every_value_is_missing_is_a_cell_without_a_value(cli, tmp_path: Path, output: str) -> None:
    # Two people in East, neither with x (or y): DuckDB's NULL list of top values reached pandas as NA, and the
    # p % rule's largest contributions were a TypeError. The cell has no value and fails the threshold (0 people).
    path = _data(tmp_path, "1")
    path.write_text(path.read_text() + "East,,,0\nEast,,,1\n")
    r = cli("outputs", path, "--spec", _spec(tmp_path, OUTPUTS[output][0]), "--json")
    assert r.code == 1, r.err
    [east] = [c for c in json.loads(r.out)["outputs"][0]["cells"] if c["labels"] == {"region": "East"}]
    assert east["value"] is None and east["n"] == 0 and east["status"] == "fail"


def test_a_grouping_by_an_identifier_is_refused_at_once_naming_the_output_and_column(
    cli, tmp_path: Path
) -> None:
    # 10⁵ levels: refused before any differencing (issue 30: no answer in 90 s).
    path = tmp_path / "ids.csv"
    path.write_text("id,sex\n" + "".join(f"{i},{'fm'[i % 2]}\n" for i in range(100_000)))
    r = cli("outputs", path, "--spec", _spec(tmp_path, 'rows = ["id"]\ncolumns = ["sex"]'))
    one_line_error(r, "output 'T'", "'id' has 100,000 levels", "group id into fewer levels")


def test_a_two_way_table_whose_where_selects_nobody_has_no_cells(cli, tmp_path: Path) -> None:
    data = _data(tmp_path, "1")
    r = cli(
        "outputs",
        data,
        "--spec",
        _spec(tmp_path, 'rows = ["region"]\ncolumns = ["b"]\nwhere = "y > 500"'),
        "--json",
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["outputs"][0]["cells"] == []
    # With margins the grand total is released: 0, an empty cell, which fails the zeros rule.
    spec = _spec(tmp_path, 'rows = ["region"]\ncolumns = ["b"]\nwhere = "y > 500"\nmargins = true')
    r = cli("outputs", data, "--spec", spec, "--json")
    assert r.code == 1, r.err
    [cell] = json.loads(r.out)["outputs"][0]["cells"]
    assert cell["value"] == 0 and cell["status"] == "fail"


@pytest.mark.parametrize("output", ["sum", "mean", "weighted sum"])
def test_a_parquet_file_without_records_has_no_cells_and_no_traceback(
    cli, tmp_path: Path, output: str
) -> None:
    # Without atoms every kind of unknown starts at 0; ordering None beside a magnitude's name was a TypeError.
    path = tmp_path / "empty.parquet"
    pd.DataFrame(
        {c: pd.Series([], dtype=t) for c, t in (("region", str), ("x", float), ("y", float))}
    ).to_parquet(path)
    r = cli("outputs", path, "--spec", _spec(tmp_path, OUTPUTS[output][0]), "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["outputs"][0]["cells"] == []


def test_a_csv_header_without_records_says_the_variable_has_no_values(cli, tmp_path: Path) -> None:
    # DuckDB types a column without values as text; "it holds values of another kind" was not true.
    path = tmp_path / "header.csv"
    path.write_text("region,x,y\n")
    r = cli("outputs", path, "--spec", _spec(tmp_path, OUTPUTS["sum"][0]))
    one_line_error(r, "--spec: output 'T'", "variable 'x' has no values")


def test_a_level_named_all_never_collides_with_the_margin() -> None:
    # Issue 30: a category literally named "All" with margins gave duplicate labels, and the same table from
    # the ledger then differed from today's data in 3 numbers although nothing had changed.
    frame = pd.DataFrame({"g": ["All"] * 12 + ["B"] * 11 + ["Total"] * 10, "sex": [*"fm" * 16, "f"]})
    spec = OutputSpec(name="T", kind="count", rows=("g",), columns=("sex",), margins=True)
    result = check_frame(frame, [spec])
    labels = [tuple(c["labels"].values()) for c in result.outputs[0]["cells"]]
    assert len(labels) == len(set(labels)) == 3 * 2 + 3 + 2 + 1
    # "All" and "Total" are levels of g: its margin is the next label that is not one (sex keeps "All").
    assert ("All", "f") in labels and ("All (total)", "All") in labels
    released = Released(
        spec,
        tuple((tuple(str(v) for v in c["labels"].values()), c["value"]) for c in result.outputs[0]["cells"]),
    )
    other = OutputSpec(name="U", kind="count", rows=("sex",))
    again = check_frame(frame, [other], earlier=(released,))
    assert again.summary["earlier_numbers_changed"] == 0


def test_a_policy_with_a_huge_dominance_n_is_one_line(cli, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("safe_nk_n: 1000000000\n")
    r = cli(
        "outputs",
        _data(tmp_path, "1"),
        "--spec",
        _spec(tmp_path, 'kind = "sum"\nvariable = "x"'),
        "--policy",
        policy,
    )
    one_line_error(r, "--policy", "safe_nk_n", "1,000")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_device_as_the_policy_is_refused_without_reading(cli, tmp_path: Path) -> None:
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)
    spec = _spec(tmp_path, 'rows = ["region"]')
    one_line_error(
        cli("outputs", _data(tmp_path, "1"), "--spec", spec, "--policy", fifo),
        "--policy",
        "not a regular file",
    )
    if Path("/dev/zero").exists():
        r = cli("outputs", _data(tmp_path, "1"), "--spec", spec, "--policy", "/dev/zero")
        one_line_error(r, "--policy", "not a regular file")
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    one_line_error(cli("outputs", _data(tmp_path, "1"), "--spec", spec, "--policy", big), "--policy", "bytes")


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        # Issue 37: DuckDB's "Referenced column "West" not found in FROM clause!".
        ('rows = ["region"]\nwhere = "region = South"', ["South is not a column", "region = 'South'"]),
        (
            'rows = ["region"]\nwhere = "region IN (North, \'South\')"',
            ["North is not a column", "region IN ('North', 'South')"],
        ),
        (
            'rows = ["region"]\nwhere = "regio = 1"',
            ["there is no column regio (did you mean region?)", "region, x, y, b"],
        ),
        # Issue 37: a ConversionException with raw SQL.
        ('rows = ["b"]\nweights = "region"', ["weights 'region' is not numeric", "text such as 'North'"]),
        ('rows = ["b"]\nwhere = "region = 5"', ["region holds text", "region = '5'"]),
        ('rows = ["b"]\nwhere = "y = \'abc\'"', ["'abc' is not a number"]),
        ('rows = ["b"]\nwhere = "y >="', ["cannot be read", "ends too early"]),
        ('rows = ["b"]\nwhere = "y + 1"', ["is not a condition", "gives numbers, not true or false"]),
        ('rows = ["b"]\nwhere = "foo(y) > 1"', ["there is no function foo"]),
        ('rows = ["b"]\nwhere = "lower(y) = \'x\'"', ["the function lower does not take numbers"]),
        ('rows = ["b"]\nwhere = "y > 1; DROP TABLE data"', ["must be one condition"]),
        (
            'rows = ["b"]\nwhere = "EXISTS (SELECT * FROM read_csv(\'/etc/passwd\'))"',
            ["the data's columns only"],
        ),
    ],
)
def test_a_bad_where_or_weights_is_said_in_the_checkers_words(
    cli, tmp_path: Path, body: str, fragments: list[str]
) -> None:
    spec = _spec(tmp_path, body)
    r = cli("outputs", _data(tmp_path, "1"), "--spec", spec)
    one_line_error(r, "--spec: output 'T'", *fragments)
    # The user's own condition is quoted back; nothing else of SQL or of the database appears.
    where = tomllib.loads(spec.read_text())["output"][0].get("where", "")
    rest = r.err.replace(repr(where), "")
    assert not any(w in rest for w in DATABASE_WORDS), r.err
