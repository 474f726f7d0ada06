"""The Spark path of :func:`~privrisk.empirical.measure.empirical_privacy`.

The per-(period, individual) aggregation runs as one Spark SQL statement (:func:`pair_sql`) over a file, folder,
URI or Spark DataFrame; the δᵢ of chunks of footprint representatives run on the executors with the same kernel
as locally (``applyInPandas``). The aggregates and δᵢ come back to the driver, where δ and δ* are reduced in log
space as locally. pyspark is imported only here, and only when ``engine="spark"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier
from privrisk.empirical.deltas import (
    Pairs,
    aggregate_pairs,
    build_result,
    checked_answers,
    footprints,
    measure_deltas,
)
from privrisk.empirical.density import default_k
from privrisk.empirical.inputs import check_periods, check_query, check_query_columns, noise_draws
from privrisk.empirical.periods import check_period_unit, merge_periods
from privrisk.empirical.result import EmpiricalPrivacy, delta_column
from privrisk.errors import PrivriskError

_UNITS = {"day": "DAY", "week": "WEEK", "month": "MONTH", "quarter": "QUARTER", "year": "YEAR"}


def pair_sql(
    table: str,
    period: str,
    individual: str,
    value: str | None = None,
    weight: str | None = None,
    period_unit: str | None = None,
) -> str:
    """The per-(period, individual) aggregates as one Spark SQL statement: rows, Σ value, Σ weight, bad cells.

    ``__bad`` counts missing or non-finite values and weights (the caller rejects them). With ``period_unit``
    the period is truncated to the start of its day, week (Monday), month, quarter or year.

    Example:
        >>> print(pair_sql("t", "month", "shop", period_unit="month"))  # doctest: +NORMALIZE_WHITESPACE
        SELECT date_trunc('MONTH', CAST(`month` AS TIMESTAMP)) AS period, `shop` AS individual,
        COUNT(*) AS __rows, 0.0 AS __value, CAST(COUNT(*) AS DOUBLE) AS __weight, 0 AS __bad
        FROM t GROUP BY 1, 2
    """

    def q(name: str) -> str:
        return quote_identifier(name, "spark")

    per = q(period)
    if period_unit is not None:
        per = f"date_trunc('{_UNITS[period_unit]}', CAST({per} AS TIMESTAMP))"
    out = [f"{per} AS period", f"{q(individual)} AS individual", "COUNT(*) AS __rows"]
    bad = []
    for col, name, default in ((value, "__value", "0.0"), (weight, "__weight", "CAST(COUNT(*) AS DOUBLE)")):
        if col is None:
            out.append(f"{default} AS {name}")
            continue
        v = f"CAST({q(col)} AS DOUBLE)"
        out.append(f"SUM({v}) AS {name}")
        bad.append(f"{q(col)} IS NULL OR isnan({v}) OR abs({v}) = double('inf')")
    out.append(f"SUM(CASE WHEN {' OR '.join(bad)} THEN 1 ELSE 0 END) AS __bad" if bad else "0 AS __bad")
    return f"SELECT {', '.join(out)} FROM {table} GROUP BY 1, 2"


def spark_pairs(
    source: Any,
    *,
    period: str,
    individual: str,
    value: str | None = None,
    weight: str | None = None,
    period_unit: str | None = None,
    master: str | None = None,
) -> pd.DataFrame:
    """Run :func:`pair_sql` in Spark over a CSV/Parquet file, folder or URI, or a Spark DataFrame."""
    from privrisk.io.engine import spark_query

    return spark_query(
        source,
        lambda view: pair_sql(view, period, individual, value, weight, period_unit),
        columns={"period": period, "individual": individual, "value": value, "weight": weight},
        numeric=("value", "weight"),
        name="table",
        doing="aggregate",
        master=master,
    )


def empirical_spark(table: Any, *, period: str, individual: str, query: str, value: str | None,
                    weight: str | None, eps: np.ndarray, density: str, k: int | None, period_unit: str | None,
                    aggregate: int, lags: int | None, noise: float | None, draws: int, seed: int | None,
                    chunk_size: int, grid: int, master: str | None,
                    deltas_path: str | None) -> EmpiricalPrivacy:  # fmt: skip
    """The aggregation and the δᵢ in Spark; the checks, the answers and the result as locally."""
    from privrisk.io.engine import spark_session

    query = check_query(query)
    check_query_columns(query, value, weight)
    check_period_unit(period_unit)
    source = table
    if isinstance(table, pd.DataFrame):
        source = spark_session(master).createDataFrame(table)
    raw = spark_pairs(source, period=period, individual=individual, value=value if query != "count" else None,
                      weight=weight, period_unit=period_unit, master=master)  # fmt: skip
    if raw["individual"].isna().any():
        raise PrivriskError(
            f"individual: column {individual!r} has missing ids; every row must belong to an individual",
            param="individual",
        )
    if raw["period"].isna().any():
        raise PrivriskError(f"period: column {period!r} has missing values", param="period")
    bad = int(raw["__bad"].sum())
    if bad:
        raise PrivriskError(
            f"value: {bad:,} missing or infinite values in {value!r} or {weight!r}", param="value"
        )
    if weight is not None and (raw["__weight"] < 0).any():
        raise PrivriskError(f"weight: column {weight!r} has negative weights", param="weight")
    per_codes, per_labels = pd.factorize(raw["period"], sort=True)
    per_codes, per_labels, keep, dropped = merge_periods(per_codes, per_labels, aggregate)
    raw = raw[keep]
    ind_codes, ind_labels = pd.factorize(raw["individual"], sort=True)
    t = int(per_labels.size)
    check_periods(t, period, k)
    pairs = aggregate_pairs(ind_codes, per_codes, raw["__value"].to_numpy(float), raw["__weight"].to_numpy(float),
                            t, rows=raw["__rows"].to_numpy(float))  # fmt: skip
    full, answer = checked_answers(query, pairs, per_labels)
    draws_ = noise_draws(noise, t, draws, seed)
    kk = default_k(t if draws_ is None else t * draws_.shape[1]) if k is None else int(k)
    n = int(ind_labels.size)
    deltas, bound, prints = _measure_spark(pairs, answer, full, n, eps, density=density, k=kk,
                                           chunk_size=chunk_size, grid=grid, noise=draws_, master=master,
                                           labels=ind_labels, deltas_path=deltas_path)  # fmt: skip
    return build_result(pairs, full, answer, deltas, bound, eps, per_labels, ind_labels, kk, density, query, lags,
                        dropped, prints, engine="spark", noise=noise, draws=None if noise is None else draws,
                        seed=None if noise is None else seed)  # fmt: skip


def _measure_spark(pairs: Pairs, answer: np.ndarray, full: np.ndarray, n: int, eps: np.ndarray, *, density: str,
                   k: int, chunk_size: int, grid: int, noise: np.ndarray | None, master: str | None, labels: Any,
                   deltas_path: str | None) -> tuple[np.ndarray, np.ndarray, int]:  # fmt: skip
    """δᵢ on Spark: one representative per footprint (as locally), chunks of them measured by the local kernel."""
    from privrisk.io.engine import spark_map_groups, spark_session

    reps, group = footprints(pairs.individual, pairs.period, answer, n)
    # The pairs of the representatives only, renumbered 0…R − 1 in order (so each chunk is a contiguous run).
    rep_of = np.full(n, -1, dtype=np.int64)
    rep_of[reps] = np.arange(reps.size)
    mine = rep_of[pairs.individual] >= 0
    frame = pd.DataFrame({
        "rep": rep_of[pairs.individual[mine]],
        "period": pairs.period[mine].astype(np.int64),
        "answer": answer[mine].astype(float),
    })  # fmt: skip
    per_chunk = max(1, int(chunk_size))
    frame["chunk"] = frame["rep"] // per_chunk
    cols = [f"d{j}" for j in range(eps.size)]
    bcols = [f"b{j}" for j in range(eps.size)]
    schema = ", ".join(["rep long", *(f"{c} double" for c in cols + bcols)])
    full_, eps_ = np.asarray(full, float), np.asarray(eps, float)

    def kernel(part: pd.DataFrame) -> pd.DataFrame:
        part = part.sort_values(["rep", "period"], kind="stable")
        local, ids = pd.factorize(part["rep"], sort=True)
        d, b, _ = measure_deltas(local.astype(np.int64), part["period"].to_numpy(np.int64),
                                 part["answer"].to_numpy(float), full_, ids.size, eps_, density=density, k=k,
                                 chunk_size=per_chunk, progress=None, grid=grid, noise=noise)  # fmt: skip
        out = pd.DataFrame(d, columns=cols)
        for j, c in enumerate(bcols):
            out[c] = b[j]
        out.insert(0, "rep", np.asarray(ids, dtype=np.int64))
        return out

    measured = spark_map_groups(frame, "chunk", kernel, schema, master)
    if deltas_path is not None:
        measured = measured.cache()
        lookup = pd.DataFrame({"individual": np.asarray(labels), "rep": group.astype(np.int64)})
        named = spark_session(master).createDataFrame(lookup).join(measured, "rep").drop("rep", *bcols)
        for j, e in enumerate(eps):
            named = named.withColumnRenamed(cols[j], delta_column(float(e)))
        named.write.mode("overwrite").parquet(str(deltas_path))
    got = measured.toPandas().sort_values("rep")
    deltas = np.zeros((reps.size, eps.size))
    deltas[got["rep"].to_numpy(np.int64)] = got[cols].to_numpy(float)
    bound = got[bcols].to_numpy(float).max(axis=0) if len(got) else np.zeros(eps.size)
    return deltas[group], bound, int(reps.size)
