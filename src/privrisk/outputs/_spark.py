"""Output checking with ``engine="spark"``: Spark counts the records, DuckDB checks the counts.

Every number an outputs check gives (each table's cells, the rules' evidence, the differencing's atoms, the
remedies' audits) depends on the records only through the columns the outputs read: their grouping variables,
magnitudes, weights and the columns their conditions name. Spark reads the CSV or Parquet file (a folder of part
files, a URI) and groups it by those columns (:func:`frequency_file`); only that frequency table comes back, one
row per combination with its number of records. DuckDB then views the table with each combination repeated as
many times (:func:`privrisk.outputs._source.file_data` with ``multiplicity``) and the very check of the DuckDB
engine runs over it: the same SQL, the same types (a CSV's cells come back as the file's text and DuckDB types
them as it types the file), the same document byte for byte. Sums are added in the order of their values
(:mod:`privrisk.outputs.compute`), so that the order of the records does not change their last bits.

The frequency table is small when the columns read are categories (a census's keys, a weight with a few hundred
values); a continuous magnitude makes it nearly one row per record. What needs each record on one machine is
refused by :class:`~privrisk.outputs.run.OutputsSettings` (a model's fit, ``[derived]`` knowledge, cell-key
perturbation, a ledger). A ``where`` is DuckDB's SQL, as on the DuckDB engine; the columns it names are found by
their names in its text. The data versions (:attr:`~privrisk.outputs.run.OutputsRun.versions`, the ledger's) are
not computed.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.outputs.spec import OutputSpec

__all__ = ["MULTIPLICITY", "columns_read", "frequency_file", "records_in_memory"]

MULTIPLICITY = "__privrisk_records"
"""The frequency table's column of the number of records of each combination."""


def columns_read(specs: Sequence[OutputSpec], columns: Sequence[str]) -> list[str]:
    """The columns (of ``columns``, in their order) that the outputs read: grouping variables, magnitudes,
    weights, and every column whose name a ``where`` holds (more than it reads is harmless).

    Example:
        >>> t = OutputSpec(name="T", kind="sum", rows=("region",), variable="income", where="age >= 30")
        >>> columns_read([t], ["id", "region", "age", "income", "sex"])
        ['region', 'age', 'income']
    """
    used: set[str] = set()
    wheres = []
    for s in specs:
        used.update(s.columns_used)
        if s.where:
            wheres.append(s.where.lower())
    text = "\n".join(wheres)
    for c in columns:
        name = c.lower()
        if name and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text):
            used.add(c)
    return [c for c in columns if c in used]


def _spark_data(source: Any, master: str | None) -> tuple[Any, str, str]:
    """The file read by Spark, a CSV's columns as text (the file's cells, typed later as DuckDB types the file),
    its kind and its label."""
    from privrisk.io.engine import check_spark_source, spark_session

    check_spark_source(source)
    path = os.fspath(source)
    p = Path(path)
    names = [q.name.lower() for q in p.iterdir()] if "://" not in path and p.is_dir() else [p.name.lower()]
    # check_spark_source let only CSV and Parquet through (a URI without a suffix is Parquet)
    kind = "csv" if any(".csv" in n for n in names) and not any(".parquet" in n for n in names) else "parquet"
    spark = spark_session(master)
    if kind == "parquet":
        return spark.read.parquet(path), kind, path
    sep = _delimiter(p) if "://" not in path and p.is_file() else ","
    # multiLine: a quoted cell may hold a line break, as DuckDB reads it; split by lines, the records would differ.
    frame = spark.read.options(header=True, sep=sep, encoding="UTF-8", escape='"', multiLine=True).csv(path)
    first = frame.columns[0] if frame.columns else ""
    if first.startswith("\ufeff"):  # a byte-order mark Spark can leave on the first name
        frame = frame.withColumnRenamed(first, first.lstrip("\ufeff"))
    return frame, kind, path


def _delimiter(path: Path) -> str:
    """The CSV's delimiter as DuckDB finds it (DuckDB reads the file so on the DuckDB engine)."""
    import duckdb

    try:
        found = duckdb.connect().execute("SELECT Delimiter FROM sniff_csv(?)", [str(path)]).fetchall()
    except duckdb.Error:
        return ","
    return str(found[0][0]) if found and found[0][0] else ","


@contextmanager
def frequency_file(
    source: Any, specs: Sequence[OutputSpec], master: str | None = None
) -> Iterator[tuple[Path, list[str]]]:
    """The frequency table of the columns the outputs read (:func:`columns_read`), grouped by Spark, written to a
    private temporary file of the source's kind (:data:`MULTIPLICITY` first); the file and the source's columns.

    Raises:
        PrivriskError: the source is not a CSV or Parquet file, folder or URI, or Spark cannot read or group it
            (one line naming it).
    """
    import pyarrow.csv as pa_csv  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    frame, kind, label = _spark_data(source, master)
    columns = [str(c) for c in frame.columns]
    keys = columns_read(specs, columns)
    try:
        grouped = frame.groupBy(*[frame[_quote(c)] for c in keys]).count()
        table = _arrow(
            grouped.select(grouped["count"].alias(MULTIPLICITY), *[grouped[_quote(c)] for c in keys])
        )
    except PrivriskError:
        raise
    except Exception as exc:  # AnalysisException and friends: one line naming the file
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise PrivriskError(f"{label}: Spark could not read or group it: {first}") from None
    with tempfile.TemporaryDirectory(prefix="privrisk-spark-") as tmp:
        path = Path(tmp) / f"frequencies.{kind}"
        if kind == "parquet":
            pq.write_table(table, path)
        else:
            pa_csv.write_csv(table, path, pa_csv.WriteOptions(quoting_style="needed"))
        yield path, columns


def records_in_memory(path: Path, columns: list[str]) -> Any:
    """The frequency table read as the source is read (:func:`~privrisk.io.data.read_table`), each row repeated
    by its number of records, with the source's other columns (empty) in their places."""
    from privrisk.io.data import read_table

    table = read_table(path)
    counts = table.pop(MULTIPLICITY).to_numpy(dtype="int64")
    frame = table.loc[table.index.repeat(counts)].reset_index(drop=True)
    for c in columns:
        if c not in frame:
            frame[c] = None
    return frame[columns]


def _arrow(frame: Any) -> Any:
    """The (small) Spark DataFrame as an Arrow table, its types kept (whole numbers with nulls stay whole)."""
    if hasattr(frame, "toArrow"):  # pyspark 4
        return frame.toArrow()
    # pyspark 3.5: its private collector (toPandas makes such columns floats)
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    batches = frame._collect_as_arrow()
    return pa.Table.from_batches(batches, schema=to_arrow_schema(frame.schema))


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
