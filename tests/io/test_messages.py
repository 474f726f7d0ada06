"""Errors in the user's words: no database text (DuckDB's error classes, its types, SQL) reaches the user.

Small hostile files (text in a numeric column, below the 20,480 rows DuckDB types a CSV's columns by; text in a
count column; unknown columns) go through every command of the reading and grouping paths; each error is one
line that names the file, the column and the value, with none of DuckDB's words.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.errors import PrivriskError
from privrisk.io.data import duckdb_error_text, plain_type, read_table
from privrisk.io.engine import group_counts

# What only a database says.
DATABASE_WORDS = re.compile(
    r"Conversion Error|Binder Error|Parser Error|Invalid Input Error|Exception|BIGINT|VARCHAR|DOUBLE|SELECT|"
    r"FROM clause|sample_size|read_csv|duckdb",
    flags=re.IGNORECASE,
)
ROWS = 21_000  # beyond DuckDB's sample of 20,480 rows


@pytest.fixture
def late_text(tmp_path):
    """A CSV whose last row holds text in two numeric columns, below the rows DuckDB types its columns by."""
    path = tmp_path / "late.csv"
    lines = ["zip,age,hours,n"] + [
        f"{10000 + i % 50},{20 + i % 40},{i % 60},{1 + i % 3}" for i in range(ROWS)
    ]
    path.write_text("\n".join([*lines, "10001,abc,x,many"]) + "\n")
    return path


def test_a_late_text_cell_in_another_column_does_not_stop_the_read(late_text):
    assert read_table(late_text, ["zip"])["zip"].size == ROWS + 1


def test_a_late_text_cell_is_named_by_the_column_check(cli, late_text):
    result = cli("sensitivity", late_text, "--column", "hours", "--query", "mean")
    one_line_error(
        result, "late.csv", "column 'hours' is not numeric", "'x'", f"row {ROWS + 1}", "(1 such value)"
    )
    assert not DATABASE_WORDS.search(result.err), result.err


def test_grouping_types_every_row_when_a_late_cell_does_not_fit(late_text):
    hist, _ = group_counts(late_text, ["zip", "age"])
    assert int(hist["__n"].sum()) == ROWS + 1  # the text age is a class of its own, not a failure
    with pytest.raises(PrivriskError) as caught:
        group_counts(late_text, ["zip"], count="n")
    assert "the count column 'n' holds text, not numbers of records" in str(caught.value)
    assert not DATABASE_WORDS.search(str(caught.value))


@pytest.mark.parametrize(
    "args",
    [
        ["presence", "{t}", "-p", "{late}", "--population-count", "n", "--qi", "zip"],
        ["presence", "{late}", "--qi", "zip,nope", "--kmap", "2", "--population-size", "1e6"],
        ["study", "{late}", "-c", "hours", "--out", "{out}", "--repetitions", "2"],
        ["audit", "{late}", "-c", "hours", "-q", "mean", "-e", "1"],
        ["attack", "{late}", "--column", "hours", "--query", "mean", "--epsilon", "1"],
        [
            "derived",
            "--values",
            "{late}",
            "--column",
            "hours",
            "--epsilon",
            "1",
            "--target",
            "sum",
            "--via",
            "mean",
        ],
        [
            "empirical",
            "{late}",
            "--period",
            "zip",
            "--individual",
            "age",
            "--query",
            "sum",
            "--value",
            "hours",
        ],
        ["empirical", "{late}", "--period", "nope", "--individual", "age", "--query", "count"],
    ],
)
def test_no_command_speaks_the_databases_words(cli, tmp_path, late_text, trial_and_census, args):
    t, _ = trial_and_census
    filled = [a.format(t=t, late=late_text, out=tmp_path / "out") for a in args]
    result = cli(*filled)
    one_line_error(result)
    assert not DATABASE_WORDS.search(result.err), result.err


def test_duckdb_errors_read_as_sentences():
    class ConversionException(Exception):
        pass

    message = (
        'Conversion Error: CSV Error on Line: 30002\nOriginal Line: 10001,abc\nError when converting column "age". '
        "Could not convert string \"abc\" to 'BIGINT'\n\nColumn age is being converted as type BIGINT"
    )
    assert duckdb_error_text(ConversionException(message)) == (
        "line 30002, column 'age': 'abc' where the rows before hold whole numbers"
    )
    assert (
        duckdb_error_text(Exception("Invalid Input Error: No open result set\nmore")) == "No open result set"
    )
    assert [plain_type(t) for t in ("BIGINT", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP", "BOOLEAN", "string")] == [
        "whole numbers", "numbers", "text", "dates", "dates and times", "true or false", "text",
    ]  # fmt: skip


def test_a_bad_count_names_the_kind_of_values_in_words(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"zip": ["1", "2"], "n": ["five", "six"]}).to_csv(path, index=False)
    with pytest.raises(
        PrivriskError, match=r"p\.csv: the count column 'n' holds text, not numbers of records"
    ):
        group_counts(path, ["zip"], count="n")
