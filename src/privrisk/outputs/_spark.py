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

__all__ = ["MULTIPLICITY", "check_on_spark", "columns_read", "frequency_file"]

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
    from privrisk.io.engine import _sniff_delimiter, _spark_kind, check_spark_source, spark_session

    check_spark_source(source)
    path = os.fspath(source)
    kind = _spark_kind(path)
    spark = spark_session(master)
    if kind == "parquet":
        frame = spark.read.parquet(path)
    else:
        reader = spark.read.option("header", True).option("sep", _sniff_delimiter(path))
        frame = reader.option("encoding", "UTF-8").option("escape", '"').csv(path)
        first = frame.columns[0] if frame.columns else ""
        if first.startswith("\ufeff"):
            frame = frame.withColumnRenamed(first, first.lstrip("\ufeff"))
    return frame, kind, path


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

    from privrisk.io.engine import _spark_failure

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
        raise _spark_failure(label, "group", exc) from None
    with tempfile.TemporaryDirectory(prefix="privrisk-spark-") as tmp:
        path = Path(tmp) / f"frequencies.{kind}"
        if kind == "parquet":
            pq.write_table(table, path)
        else:
            pa_csv.write_csv(table, path, pa_csv.WriteOptions(quoting_style="needed"))
        yield path, columns


def check_on_spark(
    data: Any, specs: Sequence[OutputSpec], policy: Any, *, max_atoms: int, master: str | None
) -> Any:
    """The :class:`~privrisk.outputs.run.OutputsRun` of the outputs on a file grouped by Spark (module
    docstring); the same as the DuckDB engine's, without the data versions."""
    from privrisk.io.engine import interruptible
    from privrisk.outputs._checked import checked
    from privrisk.outputs._source import file_data
    from privrisk.outputs.run import OutputsRun, check_frame

    with frequency_file(data, specs, master) as (path, columns):
        with file_data(path, multiplicity=MULTIPLICITY) as viewed:
            if viewed is not None:
                return interruptible(viewed.con, lambda: OutputsRun(**checked(
                    viewed.con, specs, policy, columns=columns, records=viewed.records, rows=_no_rows,
                    versions=lambda named: {}, max_atoms=max_atoms,
                    knowledge=getattr(specs, "knowledge", None), record_key=getattr(specs, "record_key", None),
                )))  # fmt: skip
        # No records, or a column of a type the view does not give (times, lists): the records in memory.
        frame = _records_in_memory(path, columns)
    run = check_frame(frame, specs, policy, max_atoms=max_atoms)  # type: ignore[arg-type]  # its knowledge kept
    import dataclasses

    return dataclasses.replace(run, versions={})


def _records_in_memory(path: Path, columns: list[str]) -> Any:
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


def _no_rows(where: str | None) -> Any:  # pragma: no cover - models are refused on Spark
    raise PrivriskError("spec: a model's fit is not on engine 'spark'; use engine 'duckdb'", param="spec")
