"""Microdata risk of a file grouped by an engine: the passes DuckDB (over the file, beyond memory) and Spark share.

Two passes over the records run in the engine; only the key combinations come back:

1. ``GROUP BY`` the keys (:func:`grouping_sql`): each combination's records (its count), sum of weights (F_k's
   terms), first row, and the checks of the weights (missing, not a number, negative: how many, and the first
   row). One row per distinct combination, not per record, comes back.
2. After f_k, F_k (a missing key value matching any value, :mod:`~privrisk.microdata.frequencies`, on the
   combinations) and each combination's individual risk are computed here, the household sums (per household
   Σ log(1 − r) over its members, summed in the order of its combinations) and the riskiest records: the
   engine keeps the records of the few combinations that can hold the ``top`` riskiest (:func:`_candidates`).

The combinations are taken in order of first appearance, the order of a file read into memory, so the codes, the
sums and the ties of the sorted tables are the same; every measure is computed by the same code
(:func:`~privrisk.microdata.measure.cell_measures`, whose sums over the records follow numpy's on the repeated
values, :mod:`~privrisk.microdata._repeated`), and ``--json`` is the same document to the last byte. The engines
differ only in how they run SQL and number the rows (:class:`Passes`: :mod:`~privrisk.microdata._duckdb`,
:mod:`~privrisk.microdata._spark`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata.frequencies import Cells, _matching
from privrisk.microdata.measure import (
    MAX_WEIGHT_SUM,
    MicrodataResult,
    add_household_measures,
    cell_measures,
)
from privrisk.microdata.risk import individual_risk
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, report

__all__ = [
    "GroupedMicrodataResult",
    "Passes",
    "check_weights",
    "grouping_sql",
    "measure_grouped",
    "weight_checks_sql",
]


class Passes(Protocol):
    """What an engine does over the records; everything else is shared."""

    engine: str

    def groups(self) -> pd.DataFrame:
        """Pass 1 (:func:`grouping_sql`), ``__first``, ``__bad_id`` and ``__neg_id`` as 1-based row numbers, the
        keys in the types of a file read into memory."""

    def households(self, table: pd.DataFrame, cell_risk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each household's risk 1 − Π(1 − r) and size, households in order of first appearance."""

    def riskiest(self, table: pd.DataFrame, chosen: np.ndarray) -> pd.DataFrame:
        """The first ``top`` records (``row``) of each chosen combination (``__cell``), and their household's risk
        (``household_risk``) with a household."""


@dataclass(frozen=True, eq=False)
class GroupedMicrodataResult(MicrodataResult):
    """A :class:`~privrisk.microdata.measure.MicrodataResult` grouped by an engine: ``frame`` holds one row per key
    combination (its values), ``risk`` each combination's individual risk, ``riskiest`` the ``top`` riskiest
    records; every record's risk stays with the engine (``records`` reads them again when it can). ``cells.codes``
    are the keys' codes when some key value is missing, else zeros broadcast (no memory: nothing reads them then
    but to find the missing values)."""

    riskiest: pd.DataFrame = field(default_factory=pd.DataFrame)
    household_sizes: np.ndarray | None = None
    engine: str = "spark"
    records_reader: Any = None

    @property
    def n(self) -> int:
        """The number of records (``frame`` holds the combinations)."""
        return int(self.cells.count.sum())

    def combinations(self) -> pd.DataFrame:
        """One row per distinct key combination, riskiest first (as :meth:`MicrodataResult.combinations`)."""
        return self._combination_rows(self._riskiest_first())

    def records_per_risk(self) -> np.ndarray | None:
        """Each combination's records (``risk`` holds one risk per combination)."""
        return self.cells.count

    def _combination_rows(self, cells: np.ndarray) -> pd.DataFrame:
        """The rows of :meth:`combinations` of these combinations (indices, in this order)."""
        c = self.cells
        table = self.frame[list(self.settings.keys)].iloc[cells].reset_index(drop=True)
        table["records"] = c.count[cells]
        table["f_k"] = c.fk[cells]
        table["F_k"] = c.Fk[cells]
        table["risk"] = self.risk[cells]
        return table

    def _riskiest_first(self, cells: np.ndarray | None = None) -> np.ndarray:
        """The combinations (all, or these, given in increasing order) riskiest first as
        :meth:`MicrodataResult.combinations` sorts them (risk descending, then f_k, ties in order): ``np.lexsort``
        is stable, as pandas' sort of two columns, and needs no table of every combination."""
        if cells is None:
            return np.lexsort((self.cells.fk, -self.risk))
        return cells[np.lexsort((self.cells.fk[cells], -self.risk[cells]))]

    def top_combinations(self, rows: int | None) -> pd.DataFrame:
        """The ``rows`` riskiest combinations (:meth:`MicrodataResult.top_combinations`), sorted among those at or
        above the ``rows``-th highest risk only: they come first however the rest is ordered."""
        risk = self.risk
        if rows is None or rows >= risk.size or np.isnan(risk).any():  # (risks are never NaN)
            return self.combinations() if rows is None else self.combinations().head(rows)
        if rows <= 0:
            return self._combination_rows(np.zeros(0, dtype=np.int64))
        bound = np.partition(risk, risk.size - rows)[risk.size - rows]
        return self._combination_rows(self._riskiest_first(np.flatnonzero(risk >= bound))[:rows])

    def _write_combinations(self, path: Path) -> None:
        """``combinations.csv`` written :data:`COMBINATIONS_CHUNK` rows at a time, in the order of
        :meth:`combinations`: never a table of every combination (nor write_csv's copy of it)."""
        from privrisk.io.files import write_csv

        if np.isnan(self.risk).any():  # (risks are never NaN) pandas' order of NaN: the whole table
            write_csv(self.combinations(), path)
            return
        order = self._riskiest_first()
        _write_chunks(
            (
                self._combination_rows(order[start : start + COMBINATIONS_CHUNK])
                for start in range(0, max(order.size, 1), COMBINATIONS_CHUNK)
            ),
            path,
        )

    def records(self) -> pd.DataFrame:
        """Every record's risk, as :meth:`MicrodataResult.records`: read again from the file on DuckDB; not
        available on Spark (only the riskiest come back, :meth:`top_records`)."""
        if self.records_reader is None:
            raise PrivriskError("engine: with engine 'spark' every record's risk stays in Spark; only the riskiest "
                                f"{self.settings.top} come back (top); use engine 'duckdb' for every record",
                                param="engine")  # fmt: skip
        return pd.concat(list(self.records_reader(self)), ignore_index=True)

    def top_records(self, top: int | None = None) -> pd.DataFrame:
        """The riskiest records, as :meth:`MicrodataResult.top_records` (at most the settings' ``top``)."""
        count = self.settings.top if top is None else min(top, self.settings.top)
        return self.riskiest.head(count)

    def suda_top(self, top: int | None = None) -> pd.DataFrame:
        """Empty: SUDA2 does not run on grouped combinations."""
        return self.riskiest.head(0)

    def write(self, folder: Any, *, records: bool = True, **kwargs: Any) -> list[str]:
        """As :meth:`MicrodataResult.write`; ``records.csv`` streamed from the file on DuckDB, left out on Spark."""
        return super().write(folder, records=records and self.records_reader is not None, **kwargs)

    def _write_records(self, path: Path) -> None:
        assert self.records_reader is not None
        _write_chunks(self.records_reader(self), path)

    def _records_above(self, risk: float) -> int:
        return int(self.cells.count[self.risk > risk].sum())

    def _records_below(self, k: float) -> int:
        return int(self.cells.count[self.cells.fk < k].sum())

    def _household_records_above(self, risk: float) -> int:
        if self.household is None or self.household_sizes is None:
            return 0
        return int(self.household_sizes[self.household > risk].sum())


COMBINATIONS_CHUNK = 1 << 18
"""Rows of ``combinations.csv`` written at a time by a grouped result."""


def _write_chunks(chunks: Iterable[pd.DataFrame], path: Path) -> None:
    """One CSV from tables of the same columns, written as they come: the header once, then each table's lines."""
    from privrisk.io.files import write_csv

    with open(path, "w", newline="", encoding="utf-8") as out:
        for i, chunk in enumerate(chunks):
            if i == 0:
                write_csv(chunk, out)  # type: ignore[arg-type]  # pandas writes to a text handle
            else:
                buffer = _Lines()
                write_csv(chunk, buffer)  # type: ignore[arg-type]
                out.write(buffer.text.split("\n", 1)[1] if "\n" in buffer.text else "")


class _Lines:
    """A text sink for :func:`~privrisk.io.files.write_csv` (pandas writes to anything with ``write``)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


def grouping_sql(rows: str, keys: list[str], weights: str | None, quote: Any, *, checks: bool = True) -> str:
    """Pass 1: per key combination, its records, sum of weights, first row (``__id``) and the weights' checks.

    ``checks=False`` leaves the checks to one row over the records (:func:`weight_checks_sql`), which is
    cheaper than six more aggregates for each of a few million combinations.

    Example:
        >>> grouping_sql("t", ["a"], None, lambda c: f'"{c}"')
        'SELECT "a", COUNT(*) AS __n, MIN(__id) AS __first FROM t GROUP BY "a"'
    """
    cols = ", ".join(quote(k) for k in keys)
    aggs = ["COUNT(*) AS __n", "MIN(__id) AS __first"]
    if weights is not None:
        aggs += _weight_aggregates(weights, quote, checks)
    return f"SELECT {cols}, {', '.join(aggs)} FROM {rows} GROUP BY {cols}"


def weight_checks_sql(rows: str, weights: str, quote: Any) -> str:
    """The weights' checks of :func:`grouping_sql` as one row over all the records (what :func:`check_weights`
    reads).

    Example:
        >>> weight_checks_sql("t", "w", lambda c: f'"{c}"').startswith('SELECT SUM(CASE WHEN (TRY_CAST("w"')
        True
    """
    return f"SELECT {', '.join(_weight_aggregates(weights, quote, True))} FROM {rows}"


def _weight_aggregates(weights: str, quote: Any, checks: bool) -> list[str]:
    w = f"TRY_CAST({quote(weights)} AS DOUBLE)"
    # not finite: missing, NaN (above every number in both engines) or ±infinity
    bad = f"({w} IS NULL OR NOT ({w} >= -1.7976931348623157e308 AND {w} <= 1.7976931348623157e308))"
    aggs = [f"SUM(CASE WHEN {bad} THEN 0.0 ELSE {w} END) AS __w"]
    if checks:
        aggs += [f"SUM(CASE WHEN {bad} THEN 1 ELSE 0 END) AS __bad", f"MIN(CASE WHEN {bad} THEN __id END) AS __bad_id",
                 f"SUM(CASE WHEN {w} < 0 THEN 1 ELSE 0 END) AS __neg",
                 f"MIN(CASE WHEN {w} < 0 THEN __id END) AS __neg_id",
                 f"MIN_BY({w}, CASE WHEN {w} < 0 THEN __id END) AS __neg_value"]  # fmt: skip
    return aggs


def check_weights(groups: pd.DataFrame, column: str) -> None:
    """The weights' errors of a file read into memory (:func:`privrisk.microdata.measure._weights`), from the
    combinations' checks (or one row of their sums and firsts)."""
    bad = int(groups["__bad"].sum())
    if bad:
        first = int(groups["__bad_id"].dropna().min())
        raise PrivriskError(f"weights: {column!r} is missing or not a number in {bad:,} record(s) (first: record "
                            f"{first})", param="weights")  # fmt: skip
    negative = int(groups["__neg"].sum())
    if negative:
        at = int(np.nanargmin(groups["__neg_id"].to_numpy(float)))
        first = int(groups["__neg_id"].iloc[at])
        value = float(groups["__neg_value"].iloc[at])
        raise PrivriskError(f"weights: {column!r} is negative in {negative:,} record(s) (first: record {first}, "
                            f"{value:g})", param="weights")  # fmt: skip
    total = float(groups["__w"].sum())
    if not np.isfinite(total) or total > MAX_WEIGHT_SUM:
        raise PrivriskError(f"weights: {column!r} sums to more than {MAX_WEIGHT_SUM:g} people; a sampling weight "
                            "is the number of people a record stands for", param="weights")  # fmt: skip


def _narrow_codes(table: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """:func:`~privrisk.microdata.frequencies.key_codes` of the combinations as int16 when every key has fewer than
    2¹⁵ − 1 values (a census's ages, regions, districts: a quarter of int64's memory), else int32 (a key has far
    fewer than 2³¹ values); the codes, and so every measure, are the same."""
    out = np.empty((len(table), len(keys)), dtype=np.int16)
    for j, key in enumerate(keys):
        column = pd.factorize(table[key], use_na_sentinel=True)[0]
        if column.size and column.max() >= np.iinfo(out.dtype).max:
            out = out.astype(np.int32)  # once, for a key of 2¹⁵ − 1 values or more
        out[:, j] = column
    return out


def missing_household(column: str, records: int, first: int) -> PrivriskError:
    """The error of a file read into memory (:func:`privrisk.microdata.measure._households`)."""
    return PrivriskError(f"household: {column!r} is missing in {records:,} record(s) (first: record {first}); every "
                         "member needs its household's id", param="household")  # fmt: skip


def _candidates(risk: np.ndarray, count: np.ndarray, first: np.ndarray, top: int) -> np.ndarray:
    """The combinations that can hold the ``top`` riskiest records (ordered by risk, then row).

    With r* the risk of the ``top``-th riskiest record: every combination riskier than r* (fewer than ``top``
    records in all) and, of those at r*, the ``top`` with the earliest first rows — a combination whose first row
    comes after the first rows of ``top`` others at r* cannot hold one of the first ``top`` records at r*.

    r* is found among the combinations at or above the ``top``-th highest risk of a combination (each holds a
    record at least, so those hold ``top`` records): only they are sorted, not millions.
    """
    if top <= 0 or risk.size == 0:
        return np.zeros(0, dtype=np.int64)
    if np.isnan(risk).any():  # (never: risks are in [0, 1]) NaN is below nothing: every combination sorted
        head = np.arange(risk.size)
    else:
        kth = max(risk.size - top, 0)
        bound = np.partition(risk, kth)[kth]  # the top-th highest (the lowest when fewer combinations)
        head = np.flatnonzero(risk >= bound)  # a prefix of every combination ordered by risk, ties whole
    order = head[np.argsort(-risk[head], kind="stable")]
    reached = np.cumsum(count[order]) >= top
    last = order[int(np.argmax(reached))] if reached.any() else order[-1]
    cutoff = risk[last]
    above = np.flatnonzero(risk > cutoff)
    tied = np.flatnonzero(risk == cutoff)
    tied = tied[np.argsort(first[tied], kind="stable")[:top]]
    return np.concatenate([above, tied])


def _riskiest(passes: Passes, table: pd.DataFrame, cells: Cells, risk: np.ndarray, settings: MicrodataSettings,
              households: bool) -> pd.DataFrame:  # fmt: skip
    """The ``top`` riskiest records, with the columns of :meth:`MicrodataResult.records`."""
    keys = list(settings.keys)
    chosen = _candidates(risk, cells.count, table["__first"].to_numpy(np.int64), settings.top)
    got = passes.riskiest(table, chosen) if chosen.size else pd.DataFrame({"__cell": [], "row": []})
    cell = got["__cell"].to_numpy(np.int64)
    out = table.iloc[cell][keys].reset_index(drop=True)
    out.insert(0, "row", got["row"].to_numpy(np.int64))
    out["f_k"] = cells.fk[cell]
    out["F_k"] = cells.Fk[cell]
    out["risk"] = risk[cell]
    if households:
        out["household_risk"] = got["household_risk"].to_numpy(float) if len(got) else np.zeros(0)
    return out.sort_values(["risk", "row"], ascending=[False, True], kind="stable").head(settings.top).reset_index(
        drop=True)  # fmt: skip


def measure_grouped(passes: Passes, label: str, settings: MicrodataSettings, progress: Progress | None = None,
                    records_reader: Any = None) -> GroupedMicrodataResult:  # fmt: skip
    """The measures of :func:`~privrisk.microdata.measure.measure_microdata` from an engine's passes."""
    keys = list(settings.keys)
    groups = passes.groups()
    if groups.empty:
        raise PrivriskError(f"data: {label} has no records", param="data")
    if settings.weights is not None and "__bad" in groups:  # else checked by the engine (DuckDB)
        check_weights(groups, settings.weights)
    report(progress, 0.5, "frequencies and individual risk")
    if groups["__first"].is_monotonic_increasing and isinstance(groups.index, pd.RangeIndex):
        table = groups  # in order already: no copy of a few million combinations
    else:
        table = groups.sort_values("__first", kind="stable").reset_index(drop=True)
    del groups  # (when sorted) not held twice through the measures
    missing = any(bool(table[key].isna().any()) for key in keys)
    # the codes only where a key is missing (the matching and the records with missing keys read them); else
    # zeros that take no memory: every code observed is all the measures read of them
    codes = _narrow_codes(table, keys) if missing else np.broadcast_to(np.int16(0), (len(table), len(keys)))
    count = table["__n"].to_numpy(np.int64)
    weight = table["__w"].to_numpy(float) if settings.weights is not None else count.astype(float)
    if settings.missing == "category" or not missing:
        # the same arrays, not copies (16 bytes a combination): nothing writes into the cells' arrays
        fk, Fk = count, weight
    else:
        fk, Fk = _matching(codes, count, weight)
    cells = Cells(np.zeros(0, dtype=np.int64), codes, count, weight, fk, Fk)
    cell_risk = individual_risk(fk, Fk, method=settings.method)
    measures = cell_measures(settings, cells, cell_risk)
    per_household, size = None, None
    households = settings.household is not None
    # an engine that finds the riskiest records' households by itself does so before the households' arrays
    # exist (DuckDB: its queries then run beside the combinations' arrays only)
    early = bool(getattr(passes, "riskiest_before_households", False))
    if early:
        report(progress, 0.6, "the riskiest records")
        passes.cell_risk = cell_risk  # type: ignore[attr-defined]  # (such an engine's own attribute)
        riskiest = _riskiest(passes, table, cells, cell_risk, settings, households)
    if households:
        report(progress, 0.8 if early else 0.6, "household risk")
        per_household, size = passes.households(table, cell_risk)
        add_household_measures(measures, per_household, size, settings.risk_threshold)
    measures["diversity"] = []
    if not early:
        report(progress, 0.8, "the riskiest records")
        riskiest = _riskiest(passes, table, cells, cell_risk, settings, households)
    report(progress, 1.0, "measured")
    return GroupedMicrodataResult(settings, label, table, cells, cell_risk, per_household, (), None, measures,
                                  riskiest=riskiest, household_sizes=size, engine=passes.engine,
                                  records_reader=records_reader)  # fmt: skip


def _is_local_table(data: Any) -> bool:
    """A CSV or Parquet file's name (what DuckDB can group where it lies)."""
    if not isinstance(data, str | os.PathLike) or "://" in os.fspath(data):
        return False
    p = Path(os.fspath(data))
    return p.is_file() and p.suffix.lower() in (".csv", ".parquet", ".pq", ".txt", ".tsv")
