"""``privrisk outputs --engine spark`` (issue 36, items 1 and 4): the same document and the same written files as
DuckDB's, byte for byte, on a local Spark session; the refusals of what needs every record on one machine.

Spark groups the file by the columns the outputs read and DuckDB checks the frequency table with each combination
repeated; sums are added in the order of their values, so that the records' order never changes their last bits
(the awkward floats below would otherwise show it). The refusals and the order of sums need no Spark.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.io.files import to_jsonable
from privrisk.outputs import OutputSpec, OutputsSettings, run_outputs
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.policy import Policy

# Sums of these differ in their last bits with the order of adding, even compensated: 1e16 + 1 - 1e16 is 0 or 1
# (or 2) by order; 0.1 + 0.2 + 0.3 is 0.6000000000000001 or 0.6.
AWKWARD = [1e16, 1.0, -1e16, 0.1, 0.2, 0.3, 2.0**53 + 2, -3.5, 1e-300, 7.25]

# Few grouping variables: the differencing's atoms stay few and each run takes seconds.
SPECS = (
    OutputSpec(name="T1", kind="count", rows=("region",), columns=("sex",), margins=True),
    OutputSpec(name="T2", kind="sum", rows=("region",), variable="income", where="age >= 30"),
    OutputSpec(name="T3", kind="mean", rows=("sex",), variable="x"),
    OutputSpec(name="T4", kind="count", rows=("sex",), weights="w"),
    OutputSpec(name="T5", kind="median", rows=("region",), variable="age"),
    OutputSpec(name="T6", kind="max", rows=("born",), variable="income"),
    OutputSpec(name="T7", kind="sum", rows=("sex",), variable="x", weights="w"),
    OutputSpec(name="T8", kind="sum", variable="x"),
)


def _frame(seed: int, n: int) -> pd.DataFrame:
    """Text keys (a comma, quotes, ``All``, accents, a line break, missing), whole numbers with missing values, dates, money
    in cents and the awkward floats."""
    rng = np.random.default_rng(seed)
    regions = np.array(["N", "S", 'say "hi"', "a,b", "All", "Zürich", "two\nlines", None], dtype=object)
    sex = pd.array(rng.choice([1, 2], n), dtype="Int64")
    sex[rng.random(n) < 0.1] = pd.NA
    income = np.round(rng.gamma(2.0, 900.0, n), 2)
    income[rng.random(n) < 0.1] = np.nan
    x = rng.choice([*AWKWARD, 1e100, -1e100], n)
    x[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({
        "region": rng.choice(regions, n), "sex": sex, "age": rng.integers(16, 90, n),
        "band": rng.choice([1.5, 2.5, 3.0], n), "income": income, "x": x, "w": rng.choice([0.5, 1.25, 3.0, 1e15], n),
        "born": pd.to_datetime(rng.choice(["1960-01-01", "1975-06-30", "1990-12-31"], n)).date,
        "unused": rng.random(n),
    })  # fmt: skip


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)


def _document_and_files(
    path: Path, folder: Path, specs: tuple[OutputSpec, ...], **kw: Any
) -> tuple[str, dict[str, bytes]]:
    run = run_outputs(OutputsSettings(data=path, spec=specs, **kw))
    run.write(folder)
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "manifest.json"}
    return json.dumps(to_jsonable(run.to_dict()), ensure_ascii=False, sort_keys=True), files


@pytest.mark.spark
@pytest.mark.parametrize(
    ("seed", "n", "suffix", "specs"),
    [
        (1, 1500, ".csv", SPECS),
        (2, 1200, ".parquet", SPECS),
        (3, 150, ".csv", (SPECS[0], SPECS[2], SPECS[7])),
    ],
)
def test_spark_gives_duckdbs_document_and_files_byte_for_byte(
    spark, tmp_path: Path, seed: int, n: int, suffix: str, specs: tuple[OutputSpec, ...]
) -> None:
    # The small file: cells fail, and the remedies are proposed and audited (on the frequency table, for Spark).
    path = tmp_path / f"d{suffix}"
    _write(_frame(seed, n), path)
    doc_duck, files_duck = _document_and_files(path, tmp_path / "duckdb", specs)
    doc_spark, files_spark = _document_and_files(
        path, tmp_path / "spark", specs, engine="spark", spark_master="local[2]"
    )
    assert doc_spark == doc_duck
    assert files_spark == files_duck
    assert json.loads(doc_spark)["summary"]["records"] == n


@pytest.mark.spark
def test_a_file_without_records_gives_what_duckdb_gives(spark, tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("region,income\n")
    for specs in ((SPECS[0],), (OutputSpec(name="S", kind="sum", rows=("region",), variable="income"),)):
        words = []
        for engine in ("duckdb", "spark"):
            try:
                run = run_outputs(OutputsSettings(data=path, spec=specs, engine=engine))
                words.append(json.dumps(to_jsonable(run.to_dict()), sort_keys=True))
            except PrivriskError as exc:  # a header only holds no numbers: the same words on both engines
                words.append(str(exc))
        assert words[0] == words[1]


@pytest.mark.spark
def test_only_the_combinations_of_the_columns_read_come_back(spark, tmp_path: Path) -> None:
    from privrisk.outputs._spark import MULTIPLICITY, frequency_file

    n = 2000
    frame = _frame(4, n)
    path = tmp_path / "d.parquet"
    _write(frame, path)
    spec = (OutputSpec(name="C", kind="count", rows=("region",), columns=("sex",), where="age >= 50"),)
    with frequency_file(path, spec, "local[2]") as (freq, columns):
        table = pd.read_parquet(freq)
    assert columns == list(frame.columns)
    assert list(table.columns) == [MULTIPLICITY, "region", "sex", "age"]  # not income, x, w, unused
    expected = frame.groupby(["region", "sex", "age"], dropna=False).size()
    assert len(table) == len(expected) < n
    assert table[MULTIPLICITY].sum() == n


@pytest.mark.spark
def test_a_bad_where_and_a_missing_column_say_what_duckdb_says(spark, tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    _write(_frame(5, 60), path)
    for spec in (OutputSpec(name="B", kind="count", rows=("region",), where="region = N"),
                 OutputSpec(name="M", kind="count", rows=("nosuch",))):  # fmt: skip
        words = []
        for engine in ("duckdb", "spark"):
            with pytest.raises(PrivriskError) as exc:
                run_outputs(OutputsSettings(data=path, spec=(spec,), engine=engine))
            words.append(str(exc.value))
        assert words[0] == words[1]


# A compensated sum that the order of adding changes (DuckDB's FSUM: ...84 in this order, ...88 reversed).
ORDER_MATTERS = [1e16, 2.0**53 + 2, -1e100, 1e100, 0.3, 2.0**53 + 2, 0.3]


@settings(max_examples=10, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([*AWKWARD, 1e100, -1e100]) | st.floats(-1e12, 1e12, allow_nan=False),
        min_size=1,
        max_size=40,
    ),
    seed=st.integers(0, 2**16),
)
@example(values=ORDER_MATTERS, seed=0)
def test_a_tables_sums_do_not_depend_on_the_records_order(values: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = len(values)
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], n), "x": values, "w": rng.choice([1.0, 0.5, 3.0], n)})
    others = [
        frame.iloc[::-1].reset_index(drop=True),
        frame.sample(frac=1.0, random_state=seed).reset_index(drop=True),
    ]
    for spec in (OutputSpec(name="T", kind="sum", variable="x"),
                 OutputSpec(name="S", kind="sum", rows=("g",), variable="x", margins=False),
                 OutputSpec(name="M", kind="mean", rows=("g",), variable="x"),
                 OutputSpec(name="W", kind="sum", rows=("g",), variable="x", weights="w")):  # fmt: skip
        first = table_cells(connect(frame), spec, Policy())[["value", "total"]].to_numpy().tobytes()
        for other in others:
            assert (
                table_cells(connect(other), spec, Policy())[["value", "total"]].to_numpy().tobytes() == first
            )


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"data": pd.DataFrame({"a": [1]})}, "engine: spark groups a file"),
        ({"ledger": "ledger.json"}, "ledger: not on engine 'spark'"),
        ({"spec": (OutputSpec(name="M", kind="ols", formula="y ~ x"),)}, "spec: output 'M' is a model (ols)"),
    ],
)
def test_what_needs_every_record_on_one_machine_is_refused_on_spark(kw: dict[str, Any], words: str) -> None:
    base: dict[str, Any] = {"data": "d.csv", "spec": "outputs.toml", "engine": "spark"}
    with pytest.raises(PrivriskError) as exc:
        OutputsSettings(**{**base, **kw})
    assert str(exc.value).startswith(words)
    assert "\n" not in str(exc.value)


def test_a_perturbed_output_and_derived_knowledge_are_refused_on_spark(tmp_path: Path) -> None:
    from privrisk.outputs.run import refuse_on_spark
    from privrisk.outputs.spec import read_spec

    spec = tmp_path / "outputs.toml"
    spec.write_text(
        '[derived]\nold = "age >= 65"\n\n[[output]]\nname = "T"\nkind = "count"\nrows = ["old"]\n'
    )
    with pytest.raises(PrivriskError, match=r"^spec: \[derived\]: not on engine 'spark'"):
        refuse_on_spark(read_spec(spec))
    noisy = SimpleNamespace(name="P", kind="count", ptable=object())  # the refusal reads no more of it
    with pytest.raises(PrivriskError, match=r"^spec: output 'P' is perturbed: not on engine 'spark'"):
        refuse_on_spark([noisy])  # type: ignore[list-item]


def test_the_engine_settings_rules() -> None:
    with pytest.raises(PrivriskError, match=r"^spark_master: only with engine 'spark'"):
        OutputsSettings(data="d.csv", spec="o.toml", spark_master="local[2]")
    with pytest.raises(PrivriskError, match=r"^engine: unknown engine"):
        OutputsSettings(data="d.csv", spec="o.toml", engine="hadoop")
    s = OutputsSettings(data="d.csv", spec="o.toml", engine=" Spark ", spark_master=" ")
    assert (s.engine, s.spark_master) == ("spark", None)


def test_the_command_line_refuses_a_model_on_spark_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from privrisk.cli import main

    data = tmp_path / "d.csv"
    data.write_text("y,x\n1,2\n")
    spec = tmp_path / "o.toml"
    spec.write_text('[[output]]\nname = "M"\nkind = "ols"\nformula = "y ~ x"\n')
    assert main(["outputs", str(data), "--spec", str(spec), "--engine", "spark"]) == 2
    err = capsys.readouterr().err
    assert "is a model (ols): not on engine 'spark'" in err
    assert "Traceback" not in err
