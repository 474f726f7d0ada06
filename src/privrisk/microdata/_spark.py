"""Microdata risk on Spark: the passes of :mod:`~privrisk.microdata._grouped` run in Spark, only the key
combinations come back.

Rows are numbered in Spark's reading order (``monotonically_increasing_id``: partition, then position; a single
CSV or Parquet file is read in file order, so the numbers are the file's). Household risk groups by household and
key combination (the pairs come back) and sums each household's combinations in one order on both engines; the
riskiest records are those of the candidate combinations, ranked in Spark. What needs every record (a
reduction, SUDA2, ℓ and t) is refused by :class:`~privrisk.microdata.settings.MicrodataSettings`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata._grouped import (
    GroupedMicrodataResult,
    grouping_sql,
    measure_grouped,
    missing_household,
)
from privrisk.microdata.measure import household_cells_risk
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, report

__all__ = ["SparkMicrodataResult", "measure_on_spark"]

SparkMicrodataResult = GroupedMicrodataResult
"""The result grouped in Spark (the name kept for the earlier import)."""

# monotonically_increasing_id(): the partition in the upper 31 bits, the position in the lower 33.
_POSITION_BITS = 33


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


def _household_sql(view: str, keys: list[str], household: str) -> str:
    """Pass 1b: per household and key combination, its members and first row (household sums)."""
    cols = ", ".join(_quote(c) for c in [household, *keys])
    rows = f"(SELECT *, monotonically_increasing_id() AS __id FROM {view})"
    return f"SELECT {cols}, COUNT(*) AS __n, MIN(__id) AS __first FROM {rows} GROUP BY {cols}"


def _value(v: Any) -> Any:
    """A key value as Spark's literal: missing → NULL, numpy scalars → Python."""
    if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
        return None
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    return v.item() if isinstance(v, np.generic) else v


class _SparkPasses:
    """The passes of :mod:`~privrisk.microdata._grouped` in Spark SQL over a view of the file."""

    engine = "spark"

    def __init__(
        self, spark: Any, frame: Any, view: str, schema: dict[str, str], settings: MicrodataSettings
    ):
        self.spark, self.frame, self.view, self.schema, self.settings = spark, frame, view, schema, settings
        self.keys = list(settings.keys)
        self.rows = _Rows(spark.sql(_partition_sql(view)).toPandas())
        self.index: dict[Any, int] = {}
        self.per_household = np.zeros(0)

    def groups(self) -> pd.DataFrame:
        rows = f"(SELECT *, monotonically_increasing_id() AS __id FROM {self.view})"
        groups = self.spark.sql(grouping_sql(rows, self.keys, self.settings.weights, _quote)).toPandas()
        for column in ("__first", "__bad_id", "__neg_id"):  # Spark's row ids → row numbers
            if column in groups:
                known = groups[column].notna().to_numpy()
                numbers = np.full(len(groups), np.nan)
                numbers[known] = self.rows(groups.loc[known, column].to_numpy(np.int64))
                groups[column] = numbers.astype(np.int64) if known.all() else numbers
        return _as_read_here(groups, self.schema, self.keys)

    def households(self, table: pd.DataFrame, cell_risk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each household's combinations come back (household, combination, members), summed here in order."""
        keys, column = self.keys, str(self.settings.household)
        pairs = self.spark.sql(_household_sql(self.view, keys, column)).toPandas()
        missing = pairs[column].isna().to_numpy()
        if missing.any():
            first = int(self.rows([pairs.loc[missing, "__first"].min()])[0])
            raise missing_household(column, int(pairs.loc[missing, "__n"].sum()), first)
        first_ids = pairs.groupby(column, sort=False)["__first"].min().sort_values(kind="stable")
        self.index = {value: i for i, value in enumerate(first_ids.index)}
        h = pairs[column].map(self.index).to_numpy(np.int64)
        cells = table[keys].assign(__cell=np.arange(len(table)))
        typed = _as_read_here(pairs, self.schema, keys)
        c = typed[keys].merge(cells, on=keys, how="left", sort=False)["__cell"].to_numpy(np.int64)
        members = pairs["__n"].to_numpy(np.int64)
        order = np.lexsort((c, h))
        h, c, members = h[order], c[order], members[order]
        size = np.bincount(h, weights=members, minlength=len(self.index)).astype(np.int64)
        self.per_household = household_cells_risk(cell_risk, h, c, members, len(self.index))
        return self.per_household, size

    def riskiest(self, table: pd.DataFrame, chosen: np.ndarray) -> pd.DataFrame:
        """The records of the chosen combinations, matched by their values (null-safe), ranked by row in Spark."""
        from functools import reduce

        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        keys = self.keys
        which = F.lit(None).cast("int")
        for i in chosen[::-1]:
            match = reduce(
                lambda a, b: a & b, [F.col(k).eqNullSafe(F.lit(_value(table[k].iloc[i]))) for k in keys]
            )
            which = F.when(match, F.lit(int(i))).otherwise(which)
        extra = [str(self.settings.household)] if self.settings.household is not None else []
        picked = (self.frame.select(*[F.col(k) for k in [*keys, *extra]])
                  .withColumn("__id", F.monotonically_increasing_id()).withColumn("__cell", which)
                  .where(F.col("__cell").isNotNull()).select("__cell", "__id", *extra))  # fmt: skip
        ranked = picked.withColumn(
            "__rank", F.row_number().over(Window.partitionBy("__cell").orderBy("__id"))
        )
        got = ranked.where(F.col("__rank") <= self.settings.top).select("__cell", "__id", *extra).toPandas()
        got["row"] = self.rows(got["__id"].to_numpy(np.int64))
        if extra:
            got["household_risk"] = self.per_household[got[extra[0]].map(self.index).to_numpy(np.int64)]
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
