"""Where the big aggregations run: DuckDB (embedded, the default) or Apache Spark (a cluster, or local mode).

The capabilities keep ONE code path for their logic; only the aggregations over rows go through an engine:

- :func:`group_counts` — the histogram pass: one ``SELECT qi…, COUNT(*) … GROUP BY qi…`` over a CSV or Parquet
  table. The SQL text is built once by :func:`group_sql` and run by DuckDB or by Spark SQL (plain SQL through
  each engine rather than Ibis: the statement is a single GROUP BY that both dialects accept verbatim apart from
  identifier quoting, and Ibis would pin ``sqlglot`` against the other packages of the environment).
- :func:`spark_session`, :func:`spark_query` and :func:`spark_map_groups` — what the Spark paths of the
  capabilities share (presence's roll-up, :class:`privrisk.presence._spark.SparkRollUp`, lives with presence).

pyspark is imported only when ``engine="spark"``; an active SparkSession (``spark-submit``, a notebook) is reused.
A local input is checked (it exists, it is CSV or Parquet, it has the columns asked for) before Spark starts, which
takes tens of seconds; a new session's JVM writes its log (log4j's warnings, the JVM's notes) to a temporary file,
not to the user's terminal, and a JVM that cannot start is one line quoting the end of that log.

DuckDB streams a file through the GROUP BY (Parquet row group by row group, CSV block by block): the rows are
never held, only the hash table of the distinct combinations. :func:`duckdb_connect` bounds that table's memory
(``memory_limit``, 1 GB unless ``PRIVRISK_DUCKDB_MEMORY_LIMIT`` says otherwise), lets DuckDB spill what does not
fit to a private temporary folder (not the working directory), drops the row order nobody reads
(``preserve_insertion_order``) and keeps DuckDB's progress bar off the user's terminal. Integer codes of a Parquet
file that span a small grid (a census's ZIP, age, sex, …) skip the hash table: DuckDB streams one packed key per
row and numpy counts them into the grid (:data:`DENSE_GROUP_CELLS`), the same histogram for half the CPU.
"""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.io._interrupt import (
    interruptible,  # its home since the import circle with io.data; still importable here
)
from privrisk.io.driver_memory import local_driver_memory

__all__ = [
    "DEFAULT_MASTER",
    "DENSE_GROUP_CELLS",
    "DUCKDB_MEMORY_LIMIT",
    "ENGINES",
    "SPARK_ROLLUP_CLASSES",
    "check_engine",
    "check_spark_source",
    "duckdb_connect",
    "duckdb_settings",
    "engine_and_master",
    "group_counts",
    "group_sql",
    "spark_frame",
    "spark_map_groups",
    "spark_query",
    "spark_session",
]

ENGINES = ("duckdb", "spark")
DEFAULT_MASTER = "local[*]"
# Above this many finest classes (research subset + population), the lattice roll-ups run in Spark.
SPARK_ROLLUP_CLASSES = 10_000_000

# DuckDB's memory for the grouping pass (its hash table; the rest spills to disk). 1 GB keeps a 10⁸-row census
# with a few million distinct combinations in memory while the whole process stays under 3 GB.
DUCKDB_MEMORY_LIMIT = "1GB"

_NUMERIC = re.compile(r"INT|DOUBLE|FLOAT|DECIMAL|REAL|LONG|SHORT|BYTE")


def check_engine(engine: str) -> str:
    """The engine's name, checked.

    Example:
        >>> check_engine("Spark")
        'spark'
    """
    name = str(engine).strip().lower()
    if name not in ENGINES:
        raise PrivriskError(f"engine: unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    return name


def engine_and_master(engine: Any, spark_master: Any, data: Any, *, done: str) -> tuple[str, str | None]:
    """A settings object's ``engine`` and ``spark_master``, tidied and checked together: a master only with
    Spark, and Spark only for a file (a DataFrame is already on this machine; ``done`` says what DuckDB does with
    it, for the message).

    Example:
        >>> engine_and_master(" Spark ", "", "people.csv", done="checked")
        ('spark', None)
    """
    from privrisk._validation import check_choice

    name = check_choice(str(engine or "duckdb").strip().lower(), ENGINES, name="engine")
    master = None if spark_master is None or not str(spark_master).strip() else str(spark_master)
    if name != "spark" and master is not None:
        raise PrivriskError("spark_master: only with engine 'spark'", param="spark_master")
    if name == "spark" and isinstance(data, pd.DataFrame):
        raise PrivriskError("engine: spark groups a file, a folder of part files or a URI; a pandas DataFrame "
                            f"is {done} with engine 'duckdb'", param="engine")  # fmt: skip
    return name, master


def spark_session(master: str | None = None):
    """The active SparkSession if there is one (``spark-submit``, a notebook), else a new one on ``master``.

    A new session is started with the UI off, few shuffle partitions (the histograms are small next to the rows)
    and Arrow transfers to pandas; a local one with the heap of :func:`local_driver_memory`. ``master`` defaults
    to ``local[*]``; it is ignored when a session is active (its settings are its own).
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise PrivriskError(
            "engine: spark needs pyspark and a Java runtime (17 or later); pip install 'privrisk[spark]'"
        ) from None
    # pyspark 4.x warns on every pandas transfer under pandas 3; the transfers used here are plain columns.
    warnings.filterwarnings(
        "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
    )
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    master = master or DEFAULT_MASTER
    if master.startswith("local"):
        # Local mode: the Python workers must be this interpreter (with numpy and pandas), not the system's.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(max(2, os.cpu_count() or 2)),
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
    }
    heap = local_driver_memory(master)
    if heap is not None:
        settings["spark.driver.memory"] = heap
    try:
        _start_quiet_jvm(master, settings)
        builder = SparkSession.builder.master(master).appName("privrisk")
        for key, value in settings.items():
            builder = builder.config(key, value)
        session = builder.getOrCreate()
    except PrivriskError:
        raise
    except Exception as exc:  # Java missing, a bad master URL: one line, not a JVM trace
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise PrivriskError(f"spark_master: could not start Spark on {master!r}: {first}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


def _start_quiet_jvm(master: str, settings: Mapping[str, str]) -> None:
    """Start Spark's JVM with its standard error going to a temporary file instead of the user's terminal.

    A new JVM prints half a dozen lines of log4j warnings and notes ("Using Spark's default log4j profile",
    "Setting default log level", a loopback hostname, the native Hadoop library, incubator modules) before the
    first result; none is about the user's data. They go to an anonymous temporary file (gone when privrisk
    exits), or to the file ``PRIVRISK_SPARK_LOG`` names (appended; to read why a JVM went away); a JVM that cannot
    start is one line with the last line it wrote. Under ``spark-submit`` or with a SparkContext already running
    nothing is started here.
    """
    from pyspark import SparkConf, SparkContext

    if SparkContext._active_spark_context is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf().setMaster(master).setAppName("privrisk").setAll(list(settings.items()))
    # PRIVRISK_SPARK_LOG: the log kept in that file (appended), to read why a JVM went away (an OutOfMemoryError);
    # either file is closed below, the JVM holding its own descriptor
    kept = os.environ.get("PRIVRISK_SPARK_LOG")
    log = open(kept, "ab") if kept else tempfile.TemporaryFile()
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stderr": log})
    except Exception as exc:
        log.seek(0)
        said = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        why = f"{first} ({said[-1]})" if said else first
        raise PrivriskError(f"spark_master: could not start Spark on {master!r}: {why}") from None
    finally:
        log.close()  # the JVM holds its own descriptor: the file lives while it runs
    SparkContext(conf=conf, gateway=gateway)


def duckdb_settings(memory_limit: str | None = None, threads: int | None = None) -> dict[str, str]:
    """The DuckDB settings of a pass over rows: bounded memory, every core, no row order, no progress bar.

    ``memory_limit`` defaults to ``PRIVRISK_DUCKDB_MEMORY_LIMIT`` or :data:`DUCKDB_MEMORY_LIMIT`; ``threads`` to
    ``PRIVRISK_DUCKDB_THREADS`` or the number of cores.

    Example:
        >>> duckdb_settings("512MB", 2)["memory_limit"], duckdb_settings("512MB", 2)["threads"]
        ('512MB', '2')
    """
    # An argument is named by its parameter; a value from the environment by its variable.
    env_limit = os.environ.get("PRIVRISK_DUCKDB_MEMORY_LIMIT")
    limit = memory_limit or env_limit or DUCKDB_MEMORY_LIMIT
    if not re.fullmatch(r"\s*\d+(\.\d+)?\s*[KMGT]?i?B\s*", str(limit), flags=re.IGNORECASE):
        name = "memory_limit" if memory_limit else "PRIVRISK_DUCKDB_MEMORY_LIMIT"
        raise PrivriskError(f"{name}: expected a size such as 1GB or 512MB, got {limit!r}",
                            param="memory_limit" if memory_limit else None)  # fmt: skip
    n = threads or os.environ.get("PRIVRISK_DUCKDB_THREADS") or os.cpu_count() or 1
    try:
        n_threads = int(n)
    except ValueError:
        n_threads = 0
    if n_threads < 1:
        name = "threads" if threads else "PRIVRISK_DUCKDB_THREADS"
        raise PrivriskError(f"{name}: expected a whole number of at least 1, got {n!r}",
                            param="threads" if threads else None)  # fmt: skip
    return {
        "memory_limit": str(limit).strip(),
        "threads": str(n_threads),
        "preserve_insertion_order": "false",
        "enable_progress_bar": "false",
    }


@contextmanager
def duckdb_connect(memory_limit: str | None = None, threads: int | None = None) -> Iterator[Any]:
    """An in-memory DuckDB connection with :func:`duckdb_settings`, spilling to a private temporary folder.

    The folder (under the system's temporary directory, never the working directory) is removed on exit.

    Example:
        >>> with duckdb_connect("256MB", 1) as con:
        ...     con.sql("SELECT current_setting('threads') AS t").fetchall()
        [(1,)]
    """
    from privrisk.io._interrupt import import_duckdb

    duckdb = import_duckdb()

    spill = Path(tempfile.gettempdir()) / f"privrisk-duckdb-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    settings = duckdb_settings(memory_limit, threads)
    con = duckdb.connect()
    try:
        for key, value in {**settings, "temp_directory": str(spill)}.items():
            con.execute(f"SET {key} = '{value.replace(chr(39), chr(39) * 2)}'")
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def _quote(name: str, engine: str) -> str:
    if engine == "spark":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def group_sql(table: str, columns: Sequence[str], count: str | None = None, *, engine: str = "duckdb") -> str:
    """The histogram pass as one SQL statement: a row per distinct combination of ``columns``.

    ``__n`` is the number of rows, or the sum of ``count`` (a column of counts per class), and ``__min`` the
    smallest count (to reject negative ones). Only the identifier quoting differs between the engines.

    Example:
        >>> group_sql("t", ["zip", "age"], engine="spark")
        'SELECT `zip`, `age`, COUNT(*) AS __n, 0 AS __min FROM t GROUP BY `zip`, `age`'
    """
    cols = ", ".join(_quote(c, engine) for c in columns)
    if count:
        c = _quote(count, engine)
        agg = f"SUM(CAST({c} AS DOUBLE)) AS __n, MIN({c}) AS __min"
    else:
        agg = "COUNT(*) AS __n, 0 AS __min"
    if not columns:
        return f"SELECT {agg} FROM {table}"
    return f"SELECT {cols}, {agg} FROM {table} GROUP BY {cols}"


def _is_spark_frame(source) -> bool:
    return type(source).__module__.startswith("pyspark.") and hasattr(source, "createOrReplaceTempView")


def duckdb_relation(con, p: Path, kind: str, text: Sequence[str] = (), *, whole_file: bool = False):
    """A DuckDB relation over a file; ``text`` columns of a CSV are read as text (ZIP 01234 keeps its zero).

    ``whole_file`` types a CSV's columns by every row, not DuckDB's first 20,480 (a text cell further down stops DuckDB's read otherwise).
    """
    from privrisk.io._interrupt import import_duckdb

    duckdb = import_duckdb()

    from privrisk.io.data import _duckdb_relation, read_table

    if kind == "csv" and text:
        try:
            extra = {"sample_size": -1} if whole_file else {}
            return con.read_csv(str(p), dtype={c: "VARCHAR" for c in text}, **extra)
        except duckdb.Error:
            pass  # a text column missing: let the column check name it
    if kind in ("csv", "parquet"):
        return _duckdb_relation(con, p, kind, whole_file=whole_file)
    return con.from_df(read_table(p))


def group_counts(
    source,
    columns: Sequence[str],
    *,
    count: str | None = None,
    text: Sequence[str] = (),
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> tuple[pd.DataFrame, str]:
    """Group a table (a file, or a Spark DataFrame) by ``columns`` on the engine; the histogram and its label.

    Returns one row per distinct combination with ``__n`` and ``__min`` (see :func:`group_sql`). Files are CSV
    or Parquet (DuckDB also reads Stata and SPSS); with Spark a path may be a folder of part files or a URI
    (``hdfs://``, ``s3a://``). ``text`` columns of a CSV are read as text.
    """
    engine = check_engine(engine)
    if engine == "spark" or _is_spark_frame(source):
        return _group_spark(source, columns, count, text, spark_master)
    return _group_duckdb(source, columns, count, text)


def _check_count_type(label: str, count: str | None, types: dict[str, str]) -> None:
    from privrisk.io.data import plain_type

    if count and not _NUMERIC.search(types[count].upper()):
        raise PrivriskError(
            f"{label}: the count column {count!r} holds {plain_type(types[count])}, not numbers of records"
        )


def _group_duckdb(source, columns, count, text) -> tuple[pd.DataFrame, str]:
    from privrisk.io._interrupt import import_duckdb

    duckdb = import_duckdb()

    from privrisk.io.data import check_columns, check_file, duckdb_error_text, file_kind

    p = check_file(source)
    label = str(p)
    kind = file_kind(p)

    def group(con: Any, whole_file: bool = False) -> pd.DataFrame:
        rel = duckdb_relation(con, p, kind, text, whole_file=whole_file)
        check_columns(p, [*columns, *([count] if count else [])], list(rel.columns))
        types = dict(zip(rel.columns, [str(t) for t in rel.types], strict=True))
        _check_count_type(label, count, types)
        try:
            hist = None
            if kind == "parquet" and not count:
                hist = _group_dense(rel, columns, types)
            if hist is None:
                hist = rel.query("__t", group_sql("__t", columns, count)).df()
        except duckdb.ConversionException as exc:
            if kind == "csv" and not whole_file:
                # A cell below the rows DuckDB typed its column by: type every column by all of its rows.
                return group(con, whole_file=True)
            raise PrivriskError(f"{label}: could not be grouped: {duckdb_error_text(exc)}") from None
        except duckdb.Error as exc:
            raise PrivriskError(f"{label}: could not be grouped: {duckdb_error_text(exc)}") from None
        return hist

    with duckdb_connect() as con:
        return interruptible(con, lambda: group(con)), label


# Integer columns DuckDB can pack into one key (UBIGINT and HUGEINT may not fit a BIGINT) and their pandas types.
_DENSE_TYPES = {
    "TINYINT": "int8", "SMALLINT": "int16", "INTEGER": "int32", "BIGINT": "int64",
    "UTINYINT": "uint8", "USMALLINT": "uint16", "UINTEGER": "uint32",
}  # fmt: skip
# Rows of packed keys per batch that numpy counts (8 bytes each).
_DENSE_BATCH = 1 << 22
# The largest grid of integer keys counted densely (8 bytes a cell; the size of presence's dense cube).
DENSE_GROUP_CELLS = 1 << 24


def _group_dense(rel, columns: Sequence[str], types: Mapping[str, str]) -> pd.DataFrame | None:
    """The GROUP BY of integer columns spanning a small grid, as DuckDB streams keys and numpy counts them.

    A census register's quasi-identifiers are small integer codes (ZIP, age, sex, …): their ranges multiply to a
    grid of a few million cells. DuckDB reads the ranges from the Parquet statistics (no scan), streams one
    packed BIGINT key per row (``Σ (c_j − min_j)·stride_j``) in Arrow batches, and ``np.bincount`` adds them
    into the grid, which is much lighter than a hash table of five columns. The result has the rows, columns and
    types of :func:`group_sql`'s statement (in key order). A grid larger than :data:`DENSE_GROUP_CELLS` is grouped
    by DuckDB and streamed (:func:`_group_streamed`). None when a column is not such an integer or holds empty
    values (the GROUP BY path reports them).
    """
    if not columns or any(types[c].upper() not in _DENSE_TYPES for c in columns):
        return None
    quoted = [_quote(c, "duckdb") for c in columns]
    stats = ", ".join(f"MIN({q}), MAX({q}), COUNT(*) - COUNT({q})" for q in quoted)
    row = rel.query("__t", f"SELECT {stats} FROM __t").fetchall()[0]
    if row[0] is None or any(row[3 * j + 2] for j in range(len(columns))):
        return None
    lows = [int(row[3 * j]) for j in range(len(columns))]
    sizes = [int(row[3 * j + 1]) - lows[j] + 1 for j in range(len(columns))]
    cells = math.prod(sizes)
    if cells > DENSE_GROUP_CELLS:
        return _group_streamed(rel, columns, types)
    key = f"(CAST({quoted[0]} AS BIGINT) - {lows[0]})"
    for q, lo, size in zip(quoted[1:], lows[1:], sizes[1:], strict=True):
        key = f"({key} * {size} + (CAST({q} AS BIGINT) - {lo}))"
    counts = np.zeros(cells, dtype=np.int64)
    reader = rel.query("__t", f"SELECT {key} AS k FROM __t").to_arrow_reader(_DENSE_BATCH)
    for batch in reader:
        counts += np.bincount(batch.column(0).to_numpy(zero_copy_only=False), minlength=cells)
    present = np.flatnonzero(counts)
    index = np.unravel_index(present, sizes)
    hist = pd.DataFrame(
        {c: (lows[j] + index[j]).astype(_DENSE_TYPES[types[c].upper()]) for j, c in enumerate(columns)}
    )
    hist["__n"] = counts[present]
    hist["__min"] = np.zeros(present.size, dtype=np.int32)
    return hist


def _group_streamed(rel, columns: Sequence[str], types: Mapping[str, str]) -> pd.DataFrame:
    """DuckDB's GROUP BY of integer columns on a grid too large to count densely, streamed in Arrow batches.

    A census on postcodes × single years × … has nearly as many distinct combinations as people (6.6·10⁷ of 10⁸).
    DuckDB's hash table stays under its memory limit (spilling the rest); the result comes over in Arrow batches
    kept in the columns' own integer types, and each column is joined up and its batches let go before the next,
    so the frame (a few bytes per class) is never held twice, as ``.df()`` holds DuckDB's copy and pandas'.
    The rows, columns and order of the columns of :func:`group_sql`'s statement (``__min`` as int8 zeros).
    """
    reader = rel.query("__t", group_sql("__t", columns)).to_arrow_reader(_DENSE_BATCH)
    names = [*columns, "__n"]
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for batch in reader:
        for name, column in zip(names, batch.columns, strict=False):
            parts[name].append(column.to_numpy(zero_copy_only=False))
    out: dict[str, np.ndarray] = {}
    for name in names:
        dtype = np.int64 if name == "__n" else _DENSE_TYPES[types[name].upper()]
        chunks = parts.pop(name)
        out[name] = np.concatenate(chunks).astype(dtype, copy=False) if chunks else np.zeros(0, dtype)
        del chunks
    out["__min"] = np.zeros(out["__n"].size, dtype=np.int8)
    return pd.DataFrame(out, copy=False)


def _spark_kind(path: str) -> str:
    from privrisk.io.data import file_kind

    p = Path(path)
    if "://" not in path and p.is_dir():
        names = [q.name.lower() for q in p.iterdir()]
        if any(".parquet" in n for n in names):
            return "parquet"
        if any(".csv" in n for n in names):
            return "csv"
        raise PrivriskError(f"{path}: a folder without .parquet or .csv part files")
    if "://" in path and not p.suffix:
        return "parquet"
    return file_kind(p)


def _sniff_delimiter(path: str) -> str:
    if "://" in path or Path(path).is_dir():
        return ","
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        head = fh.read(64 * 1024)
    try:
        return csv.Sniffer().sniff(head.split("\n", 1)[0], delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _spark_read(spark, path: str, text: Sequence[str]):
    kind = _spark_kind(path)
    if kind == "parquet":
        return spark.read.parquet(path)
    if kind != "csv":
        raise PrivriskError(
            f"{path}: engine 'spark' reads CSV and Parquet; convert it or use engine 'duckdb'"
        )
    # multiLine: a quoted cell may hold a line break, as DuckDB and pandas read it (not one record split in two).
    reader = (
        spark.read.option("header", True).option("sep", _sniff_delimiter(path)).option("encoding", "UTF-8")
        .option("multiLine", True)
    )  # fmt: skip
    frame = reader.option("inferSchema", True).csv(path)
    if text and any(c in frame.columns for c in text):
        from pyspark.sql.types import StringType, StructField, StructType

        schema = StructType(
            [StructField(f.name, StringType() if f.name in text else f.dataType, True) for f in frame.schema]
        )
        frame = reader.schema(schema).csv(path)
    # A UTF-8 byte-order mark can stay on the first header (Spark keeps it for some inputs).
    first = frame.columns[0] if frame.columns else ""
    if first.startswith("\ufeff"):
        frame = frame.withColumnRenamed(first, first.lstrip("\ufeff"))
    return frame


def check_spark_source(source, columns: Sequence[str] = ()) -> None:
    """Check a local input of Spark before Spark starts: it exists, it is CSV or Parquet (or a folder of their part
    files), and a file has ``columns``. A URI (``hdfs://``) or a Spark DataFrame is left to Spark.

    Example:
        >>> check_spark_source("no/such.csv")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: no/such.csv: no such file
    """
    from privrisk.io.data import check_columns

    if _is_spark_frame(source) or isinstance(source, pd.DataFrame):
        return
    path = os.fspath(source)
    if "://" in path:
        return
    if not Path(path).exists():
        raise PrivriskError(f"{path}: no such file")
    kind = _spark_kind(path)
    if kind not in ("csv", "parquet"):
        raise PrivriskError(
            f"{path}: engine 'spark' reads CSV and Parquet; convert it or use engine 'duckdb'"
        )
    if columns and Path(path).is_file():
        check_columns(Path(path), list(columns), _file_columns(path, kind))


def _file_columns(path: str, kind: str) -> list[str]:
    """The column names of a local CSV (its header) or Parquet file (its schema), without reading the rows."""
    if kind == "parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        return list(pq.read_schema(path).names)
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        header = next(csv.reader(fh, delimiter=_sniff_delimiter(path)), [])
    return [name.strip() for name in header]


def _spark_frame(spark, source, text: Sequence[str]):
    """``source`` if it is a Spark DataFrame, else the CSV/Parquet file, folder or URI it names, read by Spark."""
    if _is_spark_frame(source):
        return source
    path = os.fspath(source)
    if "://" not in path and not Path(path).exists():
        raise PrivriskError(f"{path}: no such file")
    return _spark_read(spark, path, text)


def _spark_failure(label: str, doing: str, exc: Exception) -> PrivriskError:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return PrivriskError(f"{label}: Spark could not read or {doing} it: {first}")


def _group_spark(source, columns, count, text, master) -> tuple[pd.DataFrame, str]:
    from privrisk.io.data import check_columns

    if isinstance(source, pd.DataFrame):
        raise PrivriskError(
            "engine: spark groups files or Spark DataFrames; a pandas DataFrame is grouped locally"
        )
    check_spark_source(source, [*columns, *([count] if count else [])])
    spark = source.sparkSession if _is_spark_frame(source) else spark_session(master)
    label = "dataset (Spark DataFrame)" if _is_spark_frame(source) else str(source)
    try:
        frame = _spark_frame(spark, source, text)
        check_columns(Path(label), [*columns, *([count] if count else [])], list(frame.columns))
        types = {f.name: f.dataType.simpleString() for f in frame.schema}
        _check_count_type(label, count, types)
        view = f"__privrisk_{abs(hash((label, tuple(columns), count))) % 10**9}"
        frame.createOrReplaceTempView(view)
        hist = spark.sql(group_sql(view, columns, count, engine="spark")).toPandas()
        spark.catalog.dropTempView(view)
    except PrivriskError:
        raise
    except Exception as exc:  # AnalysisException and friends: one line naming the file
        raise _spark_failure(label, "group", exc) from None
    # Spark hands DATE columns over as Python dates; DuckDB as datetime64: one form for the hierarchies.
    for f in frame.schema:
        if f.name in columns and f.dataType.simpleString() == "date":
            hist[f.name] = pd.to_datetime(hist[f.name])
    return hist, label


# ------------------------------------------------------------------------ SQL and pandas kernels of capabilities


def spark_query(
    source,
    statement: Callable[[str], str],
    *,
    columns: Mapping[str, str | None] | None = None,
    numeric: Sequence[str] = (),
    name: str = "table",
    doing: str = "query",
    master: str | None = None,
) -> pd.DataFrame:
    """Run one SQL statement in Spark over a CSV/Parquet file, folder or URI, or a Spark DataFrame; pandas back.

    ``statement(view)`` builds the SQL over a temporary view of the source. ``columns`` maps each parameter to the
    column it names (None: not given): a missing column is a one-line error that names the parameter, and so is
    the column of a parameter in ``numeric`` that is neither numeric nor boolean. Any other failure of Spark is one
    line naming the source (``name`` for a Spark DataFrame) and what it was ``doing``.
    """
    given = {param: col for param, col in (columns or {}).items() if col is not None}
    check_spark_source(source)
    if not _is_spark_frame(source) and "://" not in os.fspath(source) and Path(os.fspath(source)).is_file():
        present = _file_columns(os.fspath(source), _spark_kind(os.fspath(source)))
        for param, col in given.items():  # before Spark starts, as Spark would say it
            if col not in present:
                raise PrivriskError(
                    f"{param}: no column {col!r}; columns are {', '.join(present)}", param=param
                )
    spark = source.sparkSession if _is_spark_frame(source) else spark_session(master)
    label = f"{name} (Spark DataFrame)" if _is_spark_frame(source) else str(source)
    try:
        frame = _spark_frame(spark, source, ())
        for param, col in given.items():
            if col not in frame.columns:
                raise PrivriskError(
                    f"{param}: no column {col!r}; columns are {', '.join(frame.columns)}", param=param
                )
        types = {f.name: f.dataType.simpleString() for f in frame.schema}
        for param in numeric:
            kind = types.get(given.get(param) or "", "")
            if param in given and not (_NUMERIC.search(kind.upper()) or kind == "boolean"):
                raise PrivriskError(f"{param}: column {given[param]!r} is not numeric", param=param)
        view = f"__privrisk_query_{uuid.uuid4().hex}"
        frame.createOrReplaceTempView(view)
        result = spark.sql(statement(view)).toPandas()
        spark.catalog.dropTempView(view)
    except PrivriskError:
        raise
    except Exception as exc:
        raise _spark_failure(label, doing, exc) from None
    return result


def spark_map_groups(frame: pd.DataFrame, key: str, fn, schema: str, master: str | None = None):
    """Ship ``frame`` to Spark and run ``fn`` (pandas in, pandas out) on each group of ``key`` (applyInPandas).

    Returns the Spark DataFrame of the results (lazy: write it, or ``toPandas()`` it).
    """
    spark = spark_session(master)
    return spark.createDataFrame(frame).groupBy(key).applyInPandas(fn, schema=schema)


def spark_frame(source, master: str | None = None, text: Sequence[str] = (), *, name: str = "data"):
    """The Spark DataFrame of a CSV/Parquet file, folder or URI (a Spark DataFrame as it is) and its label.

    The local file is checked before Spark starts (:func:`check_spark_source`); a failure of Spark's read is one
    line naming the source (``name`` for a Spark DataFrame).
    """
    check_spark_source(source)
    spark = source.sparkSession if _is_spark_frame(source) else spark_session(master)
    label = f"{name} (Spark DataFrame)" if _is_spark_frame(source) else os.fspath(source)
    try:
        frame = _spark_frame(spark, source, text)
    except PrivriskError:
        raise
    except Exception as exc:
        raise _spark_failure(label, "read", exc) from None
    return frame, label
