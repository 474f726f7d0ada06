"""The data of an outputs check as DuckDB's view ``data`` over a CSV or Parquet file, where it lies.

:func:`~privrisk.outputs.run.run_outputs` checks a CSV or Parquet file without reading it into memory: every
table's cells, the differencing's atoms and the remedies' audits are aggregates that DuckDB computes over a view of
the file (:func:`file_data`), with a memory limit (:data:`MEMORY_LIMIT`, or ``PRIVRISK_DUCKDB_MEMORY_LIMIT``) and
the rest spilled to a private temporary folder (:func:`privrisk.io.engine.duckdb_connect`). Only the aggregates
come back to Python, and a model's fit (``ols``, ``logit``) pulls the rows it is fitted on.

The view gives every column the type it has when the file is read into memory
(:func:`privrisk.io.data.read_table`) and registered in DuckDB (:func:`privrisk.outputs.compute.connect`), so that
both give the same labels and numbers: DuckDB's NaN is missing (pandas' NaN is), a DECIMAL is a DOUBLE and a DATE a
TIMESTAMP (pandas holds both so). A file with a column of another type (times, intervals, lists, blobs) is read
into memory as before (:func:`viewable_types` says which). A CSV whose cell below the rows DuckDB typed a column by
does not fit is viewed again typed by every row, as :func:`~privrisk.io.data.read_table` reads it again, and its
errors are the same words.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError

__all__ = ["MEMORY_LIMIT", "FileData", "file_data", "viewable_file", "viewable_types"]

_T = TypeVar("_T")

MEMORY_LIMIT = "1.5GB"
"""DuckDB's memory for an outputs check over a file (its hash tables; the rest spills to disk), unless
``PRIVRISK_DUCKDB_MEMORY_LIMIT`` says otherwise: a census-like file of 10⁸ records is checked within 2 GB."""

_INTEGERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"}
_FLOATS = {"FLOAT", "DOUBLE"}
_PLAIN = _INTEGERS | {"VARCHAR", "BOOLEAN", "TIMESTAMP"}


def _as_in_memory(column: str, sql_type: str) -> str | None:
    """The column as a select expression of the type it has in memory, or None for a type not viewed."""
    t = sql_type.upper()
    c = qi(column)
    if t in _PLAIN:
        return c
    if t in _FLOATS:
        return f"CASE WHEN isnan({c}) THEN NULL ELSE {c} END AS {c}"
    if t.startswith("DECIMAL"):
        return f"CAST({c} AS DOUBLE) AS {c}"
    if t == "DATE":
        return f"CAST({c} AS TIMESTAMP) AS {c}"
    return None


def viewable_types(types: dict[str, str]) -> bool:
    """Whether every column's type is one the view gives as memory has it.

    Example:
        >>> viewable_types({"age": "BIGINT", "w": "DECIMAL(9,2)", "born": "DATE"}), viewable_types({"t": "TIME"})
        (True, False)
    """
    return all(_as_in_memory(c, t) is not None for c, t in types.items())


def viewable_file(data: Any) -> Path | None:
    """The path of data checked by a view: a local CSV or Parquet file (None for a DataFrame or another format).

    Example:
        >>> viewable_file("survey.csv.gz"), viewable_file("survey.dta")
        (PosixPath('survey.csv.gz'), None)
    """
    if not isinstance(data, str | os.PathLike) or "://" in os.fspath(data):
        return None
    from privrisk.io.data import file_kind

    path = Path(os.fspath(data))
    try:
        kind = file_kind(path)
    except PrivriskError:
        return None
    return path if kind in ("csv", "parquet") else None


class FileData:
    """A connection whose ``data`` is the file (see :func:`file_data`), with its columns and number of records."""

    def __init__(self, con: Any, columns: list[str], records: int, path: Path):
        self.con, self.columns, self.records, self.path = con, columns, records, path

    def __len__(self) -> int:
        return self.records

    def frame(self, where: str | None = None) -> pd.DataFrame:
        """The records that meet ``where`` (SQL; all for None), every column: what a model is fitted on."""
        return self.con.sql(f"SELECT * FROM data WHERE {where or 'TRUE'}").df()

    def versions(self, specs: Sequence[Any], file: str | None) -> dict[str, dict[str, Any]]:
        """The data version of each output (:func:`privrisk.outputs.ledger.data_version`), its columns' digests
        streamed from the file (:meth:`digests`), each column once."""
        from privrisk.outputs.ledger import data_version

        cache = _Digests(self)
        return {s.name: data_version(self, s, file=file, cache=cache) for s in specs}  # type: ignore[arg-type]

    def digests(self, columns: Sequence[str]) -> dict[str, str]:
        """The SHA-256 of each column as :func:`privrisk.outputs.ledger.data_version` takes it of the column in
        memory (whole numbers as 64-bit integers, other numbers as 64-bit floats with every NaN alike and −0 as 0,
        anything else as text), streamed from the view in chunks in file order."""
        return {c: self._digest(c) for c in dict.fromkeys(columns)}

    def _digest(self, column: str) -> str:
        c = qi(column)
        nulls = self.con.sql(f"SELECT COUNT(*) - COUNT({c}) FROM data").fetchall()[0][0]
        t = self.con.sql(f"SELECT {c} FROM data LIMIT 0").types[0]
        kind = str(t).upper()
        mode = "i" if (kind in _INTEGERS or kind == "BOOLEAN") and not nulls else "s"
        if mode == "s" and (kind in _INTEGERS or kind in _FLOATS or kind == "BOOLEAN"):
            mode = "f"
        from privrisk.outputs.ledger import digest_chunk

        h = hashlib.sha256(mode.encode())
        cur = self.con
        cur.execute(f"SELECT {c} FROM data")
        first = True
        while len(chunk := cur.fetch_df_chunk(64)):
            h.update(digest_chunk(chunk.iloc[:, 0], mode, first=first))
            first = False
        return h.hexdigest()


class _Digests(dict[str, str]):
    """The columns' digests, each streamed from the file when first asked for (a cache of ``data_version``)."""

    def __init__(self, data: FileData):
        super().__init__()
        self.data = data

    def __contains__(self, column: object) -> bool:
        return True

    def __missing__(self, column: str) -> str:
        self[column] = digest = self.data._digest(column)
        return digest


@contextmanager
def file_data(
    path: Path, memory_limit: str | None = None, *, multiplicity: str | None = None
) -> Iterator[FileData | None]:
    """The file as DuckDB's view ``data`` (types as in memory), on a connection with a memory limit that spills
    to a private temporary folder and reads no other file; None when a column's type is not viewed
    (:func:`viewable_types`) or the file has no records.

    With ``multiplicity``, each row of the file stands for that column's number of records (a frequency table,
    such as Spark's, :mod:`privrisk.outputs._spark`): ``data`` repeats it so many times and has no such column.

    Raises:
        PrivriskError: the errors of :func:`~privrisk.io.data.read_table` for the file, in its words.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
        >>> _ = p.write_text("region,income\\nN,1.5\\nS,nan\\n")
        >>> with file_data(p) as d:
        ...     d.records, d.con.sql("SELECT COUNT(income) FROM data").fetchall()
        (2, [(1,)])
    """
    from privrisk.io.data import check_file, file_kind, read_typed
    from privrisk.io.engine import duckdb_connect, duckdb_relation, interruptible

    p = check_file(path)
    kind = file_kind(p)
    with duckdb_connect(
        memory_limit or os.environ.get("PRIVRISK_DUCKDB_MEMORY_LIMIT") or MEMORY_LIMIT
    ) as con:
        spill = con.sql("SELECT current_setting('temp_directory')").fetchall()[0][0]

        def attempt(whole_file: bool) -> FileData | None:
            rel = duckdb_relation(con, p, kind, whole_file=whole_file)
            types = {str(c): str(t) for c, t in zip(rel.columns, rel.types, strict=True)}
            types.pop(multiplicity or "", None)
            if not viewable_types(types):
                return None
            rel.create_view("__file", replace=True)
            # One pass that converts every cell (a cell that does not fit its column fails here, as it fails
            # read_table) and counts the records.
            counts = ", ".join([f"COUNT({qi(c)})" for c in types] + [_records(multiplicity)])
            records = int(con.sql(f"SELECT {counts} FROM __file").fetchall()[0][-1] or 0)
            if not records:
                return None  # no rows: pandas types the columns otherwise (and reading them costs nothing)
            select = ", ".join(str(_as_in_memory(c, t)) for c, t in types.items()) or "NULL AS __none"
            source = "__file" if multiplicity is None else f"__file, range(__file.{qi(multiplicity)})"
            con.execute(f"CREATE OR REPLACE TEMP VIEW data AS SELECT {select} FROM {source}")
            return FileData(con, list(types), records, p)

        data = interruptible(con, lambda: read_typed(p, kind, attempt))
        if data is not None:
            # Row order is the file's (the digests read it); the `where` of a user reads this file only.
            allowed = sorted({str(p), str(p.resolve())})
            con.execute("SET preserve_insertion_order = true")
            con.execute(f"SET allowed_paths = [{', '.join(_literal(a) for a in allowed)}]")
            con.execute(f"SET allowed_directories = [{_literal(str(spill))}]")
            con.execute("SET enable_external_access = false")
        yield data


def _records(multiplicity: str | None) -> str:
    return "COUNT(*)" if multiplicity is None else f"SUM(CAST({qi(multiplicity)} AS BIGINT))"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def on_file(data: FileData, work: Callable[[], _T]) -> _T:
    """``work`` on the file's connection, Ctrl-C a :class:`KeyboardInterrupt` (exit 130), not DuckDB's error."""
    from privrisk.io.engine import interruptible

    return interruptible(data.con, work)
