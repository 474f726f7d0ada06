"""Microdata risk on Spark: the group-bys over the records run in Spark, only the key combinations come back.

Two passes over the file, both in Spark:

1. ``GROUP BY`` the keys: each combination's records (its count), sum of weights (F_k's terms), first row, and the
   checks of the weights (missing, not a number, negative: how many, and the first row). Only this table — one row
   per distinct combination, not per record — comes back to the driver.
2. After the driver has computed f_k, F_k (a missing key value matching any value, :mod:`~privrisk.microdata.
   frequencies`, on the combinations) and the individual risk of each combination, the riskiest records: Spark
   keeps the records of the few combinations that can hold the ``top`` riskiest (at most 2·top combinations, see
   :func:`_candidates`) and returns the first ``top`` in the order risk, then row.

Rows are numbered in Spark's reading order (``monotonically_increasing_id``: partition, then position; a single
CSV or Parquet file is read in file order, so the numbers are the file's). Every measure is then computed by the
same code as for a file read on this machine (:func:`~privrisk.microdata.measure.cell_measures`), on the
combinations in order of first appearance, so that ``--json`` is the same document to the last byte when the sums
of weights are exact (whole weights, or halves and quarters; other weights may differ in the last bit of F_k, as
sums in another order do). Household risk groups once more, by household and key combination (pass 1b: the household sums), and sums each
household's combinations in one order on both engines. What needs every record (a reduction, SUDA2, ℓ and t) is
refused by
:class:`~privrisk.microdata.settings.MicrodataSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata.frequencies import Cells, _matching, key_codes
from privrisk.microdata.measure import (
    MAX_WEIGHT_SUM,
    MicrodataResult,
    add_household_measures,
    cell_measures,
    household_cells_risk,
)
from privrisk.microdata.risk import individual_risk
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, report

__all__ = ["SparkMicrodataResult", "measure_on_spark"]

# monotonically_increasing_id(): the partition in the upper 31 bits, the position in the lower 33.
_POSITION_BITS = 33


@dataclass(frozen=True, eq=False)
class SparkMicrodataResult(MicrodataResult):
    """A :class:`~privrisk.microdata.measure.MicrodataResult` grouped in Spark: ``frame`` holds one row per key
    combination (its values), ``riskiest`` the ``top`` riskiest records; every record's risk stays in Spark."""

    riskiest: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def n(self) -> int:
        """The number of records (``frame`` holds the combinations)."""
        return int(self.cells.count.sum())

    def combinations(self) -> pd.DataFrame:
        """One row per distinct key combination, riskiest first (as :meth:`MicrodataResult.combinations`)."""
        c = self.cells
        table = self.frame[list(self.settings.keys)].reset_index(drop=True)
        table["records"] = c.count
        table["f_k"] = c.fk
        table["F_k"] = c.Fk
        table["risk"] = individual_risk(c.fk, c.Fk, method=self.settings.method)
        return table.sort_values(["risk", "f_k"], ascending=[False, True], kind="stable").reset_index(
            drop=True
        )

    def records(self) -> pd.DataFrame:
        """Not available: every record's risk stays in Spark (only the riskiest come back, :meth:`top_records`)."""
        raise PrivriskError("engine: with engine 'spark' every record's risk stays in Spark; only the riskiest "
                            f"{self.settings.top} come back (top); use engine 'duckdb' for every record",
                            param="engine")  # fmt: skip

    def top_records(self, top: int | None = None) -> pd.DataFrame:
        """The riskiest records, as :meth:`MicrodataResult.top_records` (at most the settings' ``top``)."""
        count = self.settings.top if top is None else min(top, self.settings.top)
        return self.riskiest.head(count)

    def suda_top(self, top: int | None = None) -> pd.DataFrame:
        """Empty: SUDA2 does not run on Spark."""
        return self.riskiest.head(0)

    def write(self, folder: Any, *, records: bool = True, **kwargs: Any) -> list[str]:
        """As :meth:`MicrodataResult.write`, without ``records.csv`` (the records stay in Spark)."""
        return super().write(folder, records=False, **kwargs)


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _grouping_sql(view: str, keys: list[str], weights: str | None) -> str:
    """Pass 1: per key combination, its records, sum of weights, first row and the weights' checks."""
    cols = ", ".join(_quote(k) for k in keys)
    aggs = ["COUNT(*) AS __n", "MIN(__id) AS __first"]
    if weights is not None:
        w = f"CAST({_quote(weights)} AS DOUBLE)"
        bad = f"({w} IS NULL OR isnan({w}) OR {w} IN (double('inf'), double('-inf')))"
        aggs += [f"SUM(CASE WHEN {bad} THEN 0.0 ELSE {w} END) AS __w",
                 f"SUM(CASE WHEN {bad} THEN 1 ELSE 0 END) AS __bad", f"MIN(CASE WHEN {bad} THEN __id END) AS __bad_id",
                 f"SUM(CASE WHEN {w} < 0 THEN 1 ELSE 0 END) AS __neg",
                 f"MIN(CASE WHEN {w} < 0 THEN __id END) AS __neg_id",
                 f"MIN_BY({w}, CASE WHEN {w} < 0 THEN __id END) AS __neg_value"]  # fmt: skip
    rows = f"(SELECT *, monotonically_increasing_id() AS __id FROM {view})"
    return f"SELECT {cols}, {', '.join(aggs)} FROM {rows} GROUP BY {cols}"


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


def _households(spark: Any, view: str, table: pd.DataFrame, schema: dict[str, str], rows: _Rows,
                settings: MicrodataSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[Any, int]]:  # fmt: skip
    """Each household's combinations (household, combination, members; sorted), each household's size (households
    in order of first appearance) and the index of each household id."""
    keys, column = list(settings.keys), str(settings.household)
    pairs = spark.sql(_household_sql(view, keys, column)).toPandas()
    missing = pairs[column].isna().to_numpy()
    if missing.any():
        first = int(rows([pairs.loc[missing, "__first"].min()])[0])
        raise PrivriskError(f"household: {column!r} is missing in {int(pairs.loc[missing, '__n'].sum()):,} record(s) "
                            f"(first: record {first}); every member needs its household's id", param="household")  # fmt: skip
    first = pairs.groupby(column, sort=False)["__first"].min().sort_values(kind="stable")
    index = {value: i for i, value in enumerate(first.index)}
    h = pairs[column].map(index).to_numpy(np.int64)
    cells = table[keys].assign(__cell=np.arange(len(table)))
    typed = _as_read_here(pairs, schema, keys)
    c = typed[keys].merge(cells, on=keys, how="left", sort=False)["__cell"].to_numpy(np.int64)
    members = pairs["__n"].to_numpy(np.int64)
    order = np.lexsort((c, h))
    h, c, members = h[order], c[order], members[order]
    size = np.bincount(h, weights=members, minlength=len(index)).astype(np.int64)
    return h, c, members, size, index


def _check_weights(groups: pd.DataFrame, rows: _Rows, column: str) -> None:
    """The weights' errors of a file read here (:func:`privrisk.microdata.measure._weights`), from the groups."""
    bad = int(groups["__bad"].sum())
    if bad:
        first = int(rows([groups["__bad_id"].dropna().min()])[0])
        raise PrivriskError(f"weights: {column!r} is missing or not a number in {bad:,} record(s) (first: record "
                            f"{first})", param="weights")  # fmt: skip
    negative = int(groups["__neg"].sum())
    if negative:
        at = int(np.nanargmin(groups["__neg_id"].to_numpy(float)))
        first = int(rows([groups["__neg_id"].iloc[at]])[0])
        value = float(groups["__neg_value"].iloc[at])
        raise PrivriskError(f"weights: {column!r} is negative in {negative:,} record(s) (first: record {first}, "
                            f"{value:g})", param="weights")  # fmt: skip
    total = float(groups["__w"].sum())
    if not np.isfinite(total) or total > MAX_WEIGHT_SUM:
        raise PrivriskError(f"weights: {column!r} sums to more than {MAX_WEIGHT_SUM:g} people; a sampling weight "
                            "is the number of people a record stands for", param="weights")  # fmt: skip


def _candidates(risk: np.ndarray, count: np.ndarray, first: np.ndarray, top: int) -> np.ndarray:
    """The combinations that can hold the ``top`` riskiest records (ordered by risk, then row).

    With r* the risk of the ``top``-th riskiest record: every combination riskier than r* (fewer than ``top``
    records in all) and, of those at r*, the ``top`` with the earliest first rows — a combination whose first row
    comes after the first rows of ``top`` others at r* cannot hold one of the first ``top`` records at r*.
    """
    if top <= 0 or risk.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-risk, kind="stable")
    reached = np.cumsum(count[order]) >= top
    last = order[int(np.argmax(reached))] if reached.any() else order[-1]
    cutoff = risk[last]
    above = np.flatnonzero(risk > cutoff)
    tied = np.flatnonzero(risk == cutoff)
    tied = tied[np.argsort(first[tied], kind="stable")[:top]]
    return np.concatenate([above, tied])


def _value(v: Any) -> Any:
    """A key value as Spark's literal: missing → NULL, numpy scalars → Python."""
    if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
        return None
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    return v.item() if isinstance(v, np.generic) else v


def _riskiest(frame: Any, table: pd.DataFrame, cells: Cells, risk: np.ndarray, rows: _Rows,
              settings: MicrodataSettings, households: tuple[np.ndarray, dict[Any, int]] | None) -> pd.DataFrame:  # fmt: skip
    """Pass 2: the ``top`` riskiest records, with the columns of :meth:`MicrodataResult.records`."""
    from functools import reduce

    from pyspark.sql import functions as F

    keys = list(settings.keys)
    chosen = _candidates(risk, cells.count, table["__first"].to_numpy(np.int64), settings.top)
    if chosen.size == 0:
        empty = table.iloc[:0][keys].copy()
        return empty.assign(row=np.zeros(0, np.int64), f_k=np.zeros(0, np.int64), F_k=np.zeros(0), risk=np.zeros(0))[
            ["row", *keys, "f_k", "F_k", "risk"]]  # fmt: skip
    which = F.lit(None).cast("int")
    for i in chosen[::-1]:
        match = reduce(
            lambda a, b: a & b, [F.col(k).eqNullSafe(F.lit(_value(table[k].iloc[i]))) for k in keys]
        )
        which = F.when(match, F.lit(int(i))).otherwise(which)
    extra = [str(settings.household)] if households is not None else []
    picked = (frame.select(*[F.col(k) for k in [*keys, *extra]]).withColumn("__id", F.monotonically_increasing_id())
              .withColumn("__cell", which).where(F.col("__cell").isNotNull()).select("__cell", "__id", *extra))  # fmt: skip
    # The first `top` records of each candidate, then all of them in order of risk and row, on the driver.
    from pyspark.sql.window import Window

    ranked = picked.withColumn("__rank", F.row_number().over(Window.partitionBy("__cell").orderBy("__id")))
    got = ranked.where(F.col("__rank") <= settings.top).select("__cell", "__id", *extra).toPandas()
    cell = got["__cell"].to_numpy(np.int64)
    out = table.iloc[cell][keys].reset_index(drop=True)
    out.insert(0, "row", rows(got["__id"].to_numpy(np.int64)))
    out["f_k"] = cells.fk[cell]
    out["F_k"] = cells.Fk[cell]
    out["risk"] = risk[cell]
    if households is not None:
        per_household, index = households
        out["household_risk"] = per_household[got[str(settings.household)].map(index).to_numpy(np.int64)]
    return out.sort_values(["risk", "row"], ascending=[False, True], kind="stable").head(settings.top).reset_index(
        drop=True)  # fmt: skip


def measure_on_spark(
    settings: MicrodataSettings, *, progress: Progress | None = None
) -> SparkMicrodataResult:
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
              progress: Progress | None) -> SparkMicrodataResult:  # fmt: skip
    """:func:`measure_on_spark` once the file is a view of Spark's."""
    keys = list(settings.keys)
    groups = spark.sql(_grouping_sql(view, keys, settings.weights)).toPandas()
    rows = _Rows(spark.sql(_partition_sql(view)).toPandas())
    if groups.empty:
        raise PrivriskError(f"data: {label} has no records", param="data")
    if settings.weights is not None:
        _check_weights(groups, rows, settings.weights)
    report(progress, 0.5, "frequencies and individual risk")
    # The combinations in order of first appearance: the order of a file read here, so the codes, the sums and the
    # ties of the sorted tables are the same.
    table = _as_read_here(groups.sort_values("__first", kind="stable").reset_index(drop=True), schema, keys)
    codes = key_codes(table, keys)
    count = table["__n"].to_numpy(np.int64)
    weight = table["__w"].to_numpy(float) if settings.weights is not None else count.astype(float)
    if settings.missing == "category" or not (codes < 0).any():
        fk, Fk = count.copy(), weight.copy()
    else:
        fk, Fk = _matching(codes, count, weight)
    ids = np.arange(len(count), dtype=np.int64)
    cells = Cells(np.repeat(ids, count), codes, count, weight, fk, Fk)
    cell_risk = individual_risk(fk, Fk, method=settings.method)
    measures = cell_measures(settings, cells, cell_risk)
    household, households = None, None
    if settings.household is not None:
        report(progress, 0.6, "household risk")
        h, c, members, size, index = _households(spark, view, table, schema, rows, settings)
        per_household = household_cells_risk(cell_risk, h, c, members, len(index))
        add_household_measures(measures, per_household, size, settings.risk_threshold)
        household, households = np.repeat(per_household, size), (per_household, index)
    measures["diversity"] = []
    report(progress, 0.8, "the riskiest records")
    riskiest = _riskiest(frame, table, cells, cell_risk, rows, settings, households)
    report(progress, 1.0, "measured")
    return SparkMicrodataResult(settings, label, table, cells, cell_risk[cells.cell], household, (), None, measures,
                                riskiest=riskiest)  # fmt: skip
