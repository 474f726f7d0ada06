"""``privrisk microdata --engine spark``: the same --json as DuckDB; what needs every record is one line, exit 2."""

from __future__ import annotations

import pytest

from helpers import one_line_error

EXAMPLE = "examples/microdata_survey.csv"
BASE = ["--keys", "region,age,sex", "--weights", "weight", "--k", "2"]


@pytest.mark.spark
@pytest.mark.slow
def test_same_json_as_duckdb(cli):
    duck = cli("microdata", EXAMPLE, *BASE, "--json")
    spark = cli("microdata", EXAMPLE, *BASE, "--json", "--engine", "spark", "--spark-master", "local[2]")
    assert duck.code == spark.code == 1, spark.err  # k = 2 is not met
    assert spark.out == duck.out


@pytest.mark.parametrize("extra, option", [(["--suppress"], "--suppress"), (["--suda", "2"], "--suda"),
                                           (["--sensitive", "income"], "--sensitive")])  # fmt: skip
def test_refused_on_spark_before_spark_starts(cli, extra, option):
    one_line_error(cli("microdata", EXAMPLE, *BASE, "--engine", "spark", *extra), option, "engine 'spark'")


def test_spark_master_needs_spark(cli):
    one_line_error(cli("microdata", EXAMPLE, *BASE, "--spark-master", "local[2]"), "--spark-master")
