"""Microdata risk on Spark: the passes of :mod:`~privrisk.microdata._grouped` run in Spark, only the key
combinations and one row per household come back.

Rows are numbered in Spark's reading order (``monotonically_increasing_id``: partition, then position; a single
CSV or Parquet file is read in file order, so the numbers are the file's). Pass 1 brings back one row per key
combination (the weights are checked in one row over the records). Household risk stays in Spark but for one row
per household (:func:`_household_sql`): each household's combinations are found by their first record (a window
over the household-combination pairs), joined to the combinations' log1p(−r) computed here by numpy, and summed in
order of first appearance from 0.0, as numpy's ``bincount`` sums them on a file read into memory (IEEE additions
and products in Java and numpy alike), so the risks are the same to the last bit. The riskiest records are those of
the candidate combinations, found by a broadcast join on their first records' keys and ranked in Spark. What needs
every record (a reduction, SUDA2, ℓ and t) is refused by :class:`~privrisk.microdata.settings.MicrodataSettings`.

What comes to this machine grows with the combinations and the households, never the records, and arrives in
result partitions of at most about :data:`ROWS_PER_PARTITION` records' worth (the shuffle partitions raised for
these passes, never lowered): Spark's Arrow collection holds a whole partition's batches in the driver, which on
a local JVM shares the heap with the tasks. At 10⁷ records the household pairs (one row per record, nearly) and a
combination's six weight checks came back in two partitions, and the local JVM's 1 GB heap ran out
(``OutOfMemoryError`` in ``ArrowConverters.serializeBatch``; the Python side saw ``Connection refused``). Now
10⁷ records (8.2·10⁶ combinations, 3.2·10⁶ households) take 423 s (320 s CPU, 303 s of it the JVM's) and 4,042 MB
with the JVM (its heap 2 GB, :func:`privrisk.io.driver_memory.local_driver_memory`), the same ``--json`` document as
DuckDB's (``python benchmarks/microdata_scale.py --rows 10000000 --engines grouped,spark``, load 5–7).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata._grouped import (
    GroupedMicrodataResult,
    check_weights,
    grouping_sql,
    measure_grouped,
    missing_household,
    weight_checks_sql,
)
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, report

__all__ = ["SparkMicrodataResult", "measure_on_spark"]

SparkMicrodataResult = GroupedMicrodataResult
"""The result grouped in Spark (the name kept for the earlier import)."""

# monotonically_increasing_id(): the partition in the upper 31 bits, the position in the lower 33.
_POSITION_BITS = 33

ROWS_PER_PARTITION = 500_000
"""Records per shuffle partition of the passes (at least the session's partitions): a result partition, held
whole by Spark's driver while it goes to Python, then holds the combinations or households of so many records."""


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _partition_sql(view: str) -> str:
    """The records of each partition of the reading, to turn Spark's row ids into row numbers."""
    return (f"SELECT shiftright(__id, {_POSITION_BITS}) AS p, COUNT(*) AS n FROM "
            f"(SELECT monotonically_increasing_id() AS __id FROM {view}) GROUP BY 1")  # fmt: skip


class _Rows:
    """Spark's row ids → 1-based row numbers in reading order (ids are increasing, not consecutive)."""

    def __init__(self, partitions: pd.DataFrame):
        order = partitions.sort_values("p")
        self.parts = order["p"].to_numpy(np.int64)
        self.offsets = np.r_[0, np.cumsum(order["n"].to_numpy(np.int64))[:-1]]

    def __call__(self, ids: Any) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        at = np.searchsorted(self.parts, ids >> _POSITION_BITS)
        return self.offsets[at] + (ids & ((1 << _POSITION_BITS) - 1)) + 1


_INTEGER_TYPES = ("tinyint", "smallint", "int", "bigint")


def _arrow_table(frame: Any) -> Any:
    """A Spark DataFrame's rows as one Arrow table (``toArrow`` from pyspark 4; the same batches before)."""
    to_arrow = getattr(frame, "toArrow", None)
    if to_arrow is not None:
        return to_arrow()
    import pyarrow as pa  # type: ignore[import-untyped]

    batches = frame._collect_as_arrow()
    if not batches:  # (a file without records) the schema of an empty result
        return pa.Table.from_pandas(frame.toPandas(), preserve_index=False)
    return pa.Table.from_batches(batches)


def _as_read_here(table: pd.DataFrame, schema: dict[str, str], keys: list[str]) -> pd.DataFrame:
    """The key columns in the types a file read on this machine gives (whole numbers nullable Int64, text as
    text, dates as datetimes), so that both engines print the same values."""
    out = table.copy()
    for k in keys:
        kind = schema[k]
        if kind in ("tinyint", "smallint", "int", "bigint"):
            out[k] = out[k].astype("Int64")
        elif kind == "string":
            out[k] = out[k].astype("str")
        elif kind in ("date", "timestamp", "timestamp_ntz"):
            out[k] = pd.to_datetime(out[k])
    return out


def _household_sql(view: str, keys: list[str], household: str, cells: str, floats: bool) -> str:
    """The household pass: one row per household, its first row, size, whether its id is missing, and
    Σ m_c·log(1 − r_c) over its combinations c (m_c of its members in c) added in order of c from 0.0.

    A combination is named by its first record (``MIN(__first)`` over the household-combination pairs of its keys:
    the ``__first`` of pass 1, and NULL keys partition together as they group together); ``cells`` (that name and
    log1p(−r), from numpy) gives each pair its log. A pair whose combination is not in ``cells`` makes the sum NULL.
    """
    key_cols = ", ".join(_quote(k) for k in keys)
    h = _quote(household)
    missing = "__h IS NULL" + (" OR isnan(__h)" if floats else "")
    return f"""WITH r AS (SELECT {h} AS __h, {key_cols}, monotonically_increasing_id() AS __id FROM {view}),
p AS (SELECT __h, {key_cols}, COUNT(*) AS __n, MIN(__id) AS __first FROM r GROUP BY __h, {key_cols}),
q AS (SELECT __h, __n, __first, MIN(__first) OVER (PARTITION BY {key_cols}) AS __cell FROM p)
SELECT MAX({missing}) AS __missing, MIN(q.__first) AS __hfirst, SUM(q.__n) AS __size,
  aggregate(array_sort(collect_list(named_struct('c', q.__cell, 't', q.__n * c.__l))), CAST(0 AS DOUBLE),
            (a, x) -> a + x.t) AS __s
FROM q LEFT JOIN {cells} c ON q.__cell = c.__cell GROUP BY __h"""


class _SparkPasses:
    """The passes of :mod:`~privrisk.microdata._grouped` in Spark SQL over a view of the file."""

    engine = "spark"

    def __init__(
        self, spark: Any, frame: Any, view: str, schema: dict[str, str], settings: MicrodataSettings
    ):
        self.spark, self.frame, self.view, self.schema, self.settings = spark, frame, view, schema, settings
        self.keys = list(settings.keys)
        partitions = spark.sql(_partition_sql(view)).toPandas()
        self.rows = _Rows(partitions)
        self.records = int(partitions["n"].sum())
        # the combinations' and the households' first records (Spark's ids), in order of first appearance
        self.first_ids = np.zeros(0, dtype=np.int64)
        self.household_firsts = np.zeros(0, dtype=np.int64)
        self.per_household = np.zeros(0)

    def _collect(self, query: Any, *, arrow: bool = False) -> Any:
        """``query().toPandas()`` (an Arrow table with ``arrow``) with its shuffles in partitions of
        :data:`ROWS_PER_PARTITION` records (the session's own number if larger) that adaptive execution does not
        merge again (it would make partitions of 64 MB of shuffled rows, whose Arrow batches, serialized twice,
        filled a 1 GB heap): no result partition of more than so many records' combinations or households is held
        whole by the driver. The session's settings are given back after."""
        conf = self.spark.conf
        wanted = -(-self.records // ROWS_PER_PARTITION)
        before = str(conf.get("spark.sql.shuffle.partitions"))
        if before.isdigit() and wanted <= int(before):
            return _arrow_table(query()) if arrow else query().toPandas()
        settings = {
            "spark.sql.shuffle.partitions": str(wanted),
            "spark.sql.adaptive.coalescePartitions.enabled": "false",
        }
        kept = {key: conf.get(key, None) for key in settings}
        try:
            for key, value in settings.items():
                conf.set(key, value)
            return _arrow_table(query()) if arrow else query().toPandas()
        finally:
            for key, value in kept.items():
                if value is None:
                    conf.unset(key)
                else:
                    conf.set(key, value)

    def _numbered(self, table: pd.DataFrame, columns: tuple[str, ...]) -> None:
        """Spark's row ids → row numbers, in place (missing ones stay missing)."""
        for column in columns:
            if column in table:
                known = table[column].notna().to_numpy()
                numbers = np.full(len(table), np.nan)
                numbers[known] = self.rows(table.loc[known, column].to_numpy(np.int64))
                table[column] = numbers.astype(np.int64) if known.all() else numbers

    def groups(self) -> pd.DataFrame:
        """Pass 1: the weights checked in one row over the records, then one row per combination, in order of
        first appearance."""
        rows = f"(SELECT *, monotonically_increasing_id() AS __id FROM {self.view})"
        weights = self.settings.weights
        if weights is not None:
            checks = self.spark.sql(weight_checks_sql(rows, weights, _quote)).toPandas()
            if checks["__bad"].notna().iloc[0]:  # a file without records is refused after this pass
                self._numbered(checks, ("__bad_id", "__neg_id"))
                check_weights(checks, weights)
        statement = grouping_sql(rows, self.keys, weights, _quote, checks=False)
        # a census's codes: the combinations as Arrow columns, narrowed column by column
        if all(self.schema[k] in _INTEGER_TYPES for k in self.keys):
            return self._integer_groups(self._collect(lambda: self.spark.sql(statement), arrow=True))
        groups = self._collect(lambda: self.spark.sql(statement))
        groups = groups.sort_values("__first", kind="stable", ignore_index=True)
        self.first_ids = groups["__first"].to_numpy(np.int64).copy()
        self._numbered(groups, ("__first",))
        return _as_read_here(groups, self.schema, self.keys)

    def _integer_groups(self, got: Any) -> pd.DataFrame:
        """Pass 1's Arrow table of integer keys as :meth:`groups` gives it, a column at a time: in order of first
        appearance (one argsort of the first rows), each key in the smallest integer type holding its values
        (nullable when one is missing), so that Python holds about 30 bytes a combination of a census's 8 keys
        beside the Arrow table, not pandas' copy of its eight-byte columns and two more copies while sorting and
        typing (10⁷ records, 8.2·10⁶ combinations: 3.1 GB before)."""
        first = got.column("__first").to_numpy()
        order = np.argsort(first, kind="stable")
        self.first_ids = first[order]
        del first
        columns: dict[str, Any] = {}
        for name in got.column_names:
            column = got.column(name)
            got = got.drop_columns([name])
            if name == "__first":
                columns[name] = self.rows(self.first_ids)
            elif name in self.keys:
                values = column.fill_null(0).to_numpy()[order]
                missing = column.is_null().to_numpy(zero_copy_only=False)
                narrow = pd.to_numeric(values, downcast="integer") if values.size else values
                columns[name] = pd.arrays.IntegerArray(narrow, missing[order]) if missing.any() else narrow
            else:
                columns[name] = column.to_numpy()[order]
            del column
        return pd.DataFrame(columns, copy=False)

    def households(self, table: pd.DataFrame, cell_risk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each household's risk and size, households in order of first appearance: one row per household from
        Spark (:func:`_household_sql`), never its members."""
        column = str(self.settings.household)
        with np.errstate(divide="ignore"):
            logs = np.log1p(-cell_risk)  # as household_cells_risk takes them (−inf for a risk of 1)
        cells_view = f"{self.view}_cells"
        cells = self.spark.createDataFrame(pd.DataFrame({"__cell": self.first_ids, "__l": logs}))
        cells.createOrReplaceTempView(cells_view)
        floats = self.schema[column] in ("float", "double")
        statement = _household_sql(self.view, self.keys, column, cells_view, floats)
        try:
            got = self._collect(lambda: self.spark.sql(statement))
        finally:
            self.spark.catalog.dropTempView(cells_view)
        first = got["__hfirst"].to_numpy(np.int64)
        size = got["__size"].to_numpy(np.int64)
        missing = got["__missing"].to_numpy(bool)
        if missing.any():
            at = int(self.rows([first[missing].min()])[0])
            raise missing_household(column, int(size[missing].sum()), at)
        if int(size.sum()) != self.records:
            raise PrivriskError(
                f"engine: Spark gave {int(size.sum()):,} of {self.records:,} records to households"
            )
        order = np.argsort(first, kind="stable")
        sums = got["__s"].to_numpy(float)[order]
        del got
        if np.isnan(sums).any():  # a pair's combination not among pass 1's (never: the same GROUP BY keys)
            raise PrivriskError("engine: Spark's households hold a key combination its grouping did not give")
        self.household_firsts = first[order]
        np.expm1(sums, out=sums)  # 1 − Π(1 − r) = −expm1(Σ log(1 − r)), in place
        self.per_household = np.negative(sums, out=sums)
        return self.per_household, size[order]

    def riskiest(self, table: pd.DataFrame, chosen: np.ndarray) -> pd.DataFrame:
        """The records of the chosen combinations, ranked by row in Spark; with households, each picked record's
        household by its first row (found in Spark for those households only).

        A chosen combination is found by its first record (pass 1's ``__first``): those few records, their keys as
        Spark read them, are broadcast and every record joined to them null-safe on the keys (one scan; a CASE of
        every chosen combination's values on every record took minutes at 10⁷ records)."""
        from functools import reduce

        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        keys, household = self.keys, self.settings.household
        extra = [F.col(str(household)).alias("__h")] if household is not None else []
        firsts = [int(i) for i in self.first_ids[chosen]]

        def numbered() -> Any:  # the records with Spark's row ids (the same ids in every scan of the file)
            return self.frame.select(*[F.col(k) for k in keys], *extra).withColumn(
                "__id", F.monotonically_increasing_id()
            )

        alias = {k: f"__k{j}" for j, k in enumerate(keys)}
        heads = (numbered().where(F.col("__id").isin(firsts))
                 .select(*[F.col(k).alias(alias[k]) for k in keys], F.col("__id").alias("__cell_id")))  # fmt: skip
        records = numbered()
        same = reduce(lambda a, b: a & b, [records[k].eqNullSafe(heads[alias[k]]) for k in keys])
        picked = records.join(F.broadcast(heads), same, "inner").select(
            "__cell_id", "__id", *(["__h"] if extra else [])
        )
        ranked = picked.withColumn(
            "__rank", F.row_number().over(Window.partitionBy("__cell_id").orderBy("__id"))
        ).where(F.col("__rank") <= self.settings.top)
        if household is None:
            got = ranked.select("__cell_id", "__id").toPandas()
        else:
            # the picked records' households' first rows: a scan kept to those households (a semi-join), grouped
            members = self.frame.select(F.col(str(household)).alias("__h")).withColumn(
                "__i", F.monotonically_increasing_id()
            )
            heads_h = (members.join(ranked.select("__h").distinct(), "__h", "left_semi")
                       .groupBy("__h").agg(F.min("__i").alias("__hfirst")))  # fmt: skip
            got = ranked.join(heads_h, "__h", "left").select("__cell_id", "__id", "__hfirst").toPandas()
        cell_ids = got["__cell_id"].to_numpy(np.int64)
        got["__cell"] = np.searchsorted(self.first_ids, cell_ids)
        if cell_ids.size and not np.array_equal(self.first_ids[got["__cell"].to_numpy()], cell_ids):
            raise PrivriskError(
                "engine: Spark found a combination of the riskiest records that it did not count"
            )
        got["row"] = self.rows(got["__id"].to_numpy(np.int64))
        if household is None:
            return got
        hfirst = got["__hfirst"].to_numpy(np.int64)
        at = np.searchsorted(self.household_firsts, hfirst)
        known = self.household_firsts[np.minimum(at, max(self.household_firsts.size - 1, 0))] == hfirst
        if hfirst.size and (self.household_firsts.size == 0 or not bool(known.all())):
            raise PrivriskError(
                "engine: Spark found a household of the riskiest records that it did not count"
            )
        got["household_risk"] = self.per_household[at]
        return got


def measure_on_spark(
    settings: MicrodataSettings, *, progress: Progress | None = None
) -> GroupedMicrodataResult:
    """The measures of :func:`~privrisk.microdata.measure.measure_microdata`, with the group-bys run in Spark.

    Args:
        settings: a :class:`MicrodataSettings` with ``engine="spark"`` and the file (CSV or Parquet, a folder of
            their part files, or a URI) in ``data``.
        progress: told the share done and each stage (:class:`privrisk.progress.Progress`), or None.
    """
    from privrisk.io.data import check_columns
    from privrisk.io.engine import check_spark_source, spark_frame

    keys = list(settings.keys)
    needed = [*keys, *(c for c in (settings.weights, settings.household) if c)]
    report(progress, 0.0, "grouping the file in Spark")
    check_spark_source(settings.data, needed)
    frame, label = spark_frame(settings.data, settings.spark_master)
    spark = frame.sparkSession
    from pathlib import Path

    check_columns(Path(label), needed, list(frame.columns))
    schema = {f.name: f.dataType.simpleString() for f in frame.schema}
    view = f"__privrisk_microdata_{abs(hash((label, tuple(needed)))) % 10**9}"
    frame.createOrReplaceTempView(view)
    try:
        return _measured(spark, frame, view, label, schema, settings, progress)
    except PrivriskError:
        raise
    except Exception as exc:  # one line naming the file, not a JVM trace
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise PrivriskError(f"{label}: Spark could not group it: {first}", param="data") from None
    finally:
        spark.catalog.dropTempView(view)


def _measured(spark: Any, frame: Any, view: str, label: str, schema: dict[str, str], settings: MicrodataSettings,
              progress: Progress | None) -> GroupedMicrodataResult:  # fmt: skip
    """:func:`measure_on_spark` once the file is a view of Spark's."""
    return measure_grouped(_SparkPasses(spark, frame, view, schema, settings), label, settings, progress)
