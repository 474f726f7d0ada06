"""Empirical differential privacy over a sequence of databases (Burchard and Daoud 2022).

Many statistics are published without noise, period after period. Burchard and Daoud (2022) measure how private
such a statistic already is from the randomness of the data: the periods are t databases X¹, …, Xᵗ drawn from one
distribution; for every individual i the t answers f(Xˢ) with everyone are compared with the t answers f(Xˢ₋ᵢ)
without i's rows, through their densities p and pᵢ (:mod:`privrisk.empirical.density`). Per ε,

- δᵢ(ε) = max(∫(p − e^ε pᵢ)₊, ∫(pᵢ − e^ε p)₊) (Theorem 1),
- δ(ε) = maxᵢ δᵢ(ε): the query is empirically (ε, δ)-differentially private (Definition 2),
- δ*(ε) = 1 − Πᵢ (1 − δᵢ(ε)) (Definition 3, the total risk): an estimate of the probability that *some*
  individual's privacy is compromised by more than ε. Summed in log space (log1p), so that 32,000 tiny δᵢ keep
  their digits.

Decomposable queries (``count``, ``sum``, ``mean``, ``rate``) are evaluated without ever re-running f: one pass
builds per-(period, individual) aggregates (rows, Σ value, Σ weight); f(Xˢ₋ᵢ) is the period total minus i's
share, and only the periods where i appears differ from f(Xˢ). Individuals with the same footprint (the same
answers without them in the same periods, as most establishments inspected once are) have the same δᵢ, so δᵢ
is computed once per distinct footprint, in chunks of rows vectorised with numpy.

A period that has **no rows left** without i has no answer (for every query: a published statistic over an empty
database is "no data", not 0). That outcome is counted as its own value: P has no mass there and Pᵢ has mass
(number of such periods)/t, which adds fully to δᵢ. The individuals table reports how many periods each individual
appears in (§2: the individuals must be representative) and how many it alone makes up.

The assumptions behind the number (§2) are checked rather than assumed (:mod:`privrisk.empirical.periods`): the
Ljung–Box test measures the autocorrelation of the series of answers and :class:`~privrisk.errors.DependenceWarning`
says when it is significant; ``aggregate`` merges consecutive periods; ``rolling_privacy`` repeats the analysis on
windows (secular change).

Note: US patent 11,593,360 ("Empirically providing data privacy with reduced noise", assigned to Goldman Sachs)
claims this method; check it before commercial use.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk._validation import check_choice, check_epsilons, check_whole
from privrisk.empirical.deltas import (
    Pairs,
    aggregate_pairs,
    answers,
    build_result,
    check_weights,
    checked_answers,
    measure_deltas,
    total_risk,
    without_answers,
)
from privrisk.empirical.density import (
    DENSITIES,
    Density,
    default_k,
)
from privrisk.empirical.inputs import (
    EMPIRICAL_QUERIES,
    Coded,
    EmpiricalQuery,
    QuerySpec,
    check_periods,
    check_query,
    noise_draws,
    prepare,
    query_spec,
)
from privrisk.empirical.periods import warn_dependence
from privrisk.empirical.result import EmpiricalPrivacy, delta_column
from privrisk.errors import PrivacyLeakWarning, PrivriskError

__all__ = [
    "EMPIRICAL_QUERIES",
    "ENGINES",
    "EmpiricalPrivacy",
    "EmpiricalQuery",
    "Engine",
    "delta_column",
    "empirical_privacy",
    "empirical_privacy_of",
    "query_spec",
    "total_risk",
]

Engine = Literal["duckdb", "spark"]
ENGINES: tuple[Engine, ...] = ("duckdb", "spark")  # as privrisk.io.engine.ENGINES


# ------------------------------------------------------------------------------------------ the measurement


def empirical_privacy(
    table: Any,
    *,
    period: str,
    individual: str,
    query: EmpiricalQuery | str,
    value: str | None = None,
    weight: str | None = None,
    epsilons: Any = (0.03, 0.1, 0.3),
    density: Density | str = "kde-box",
    k: int | None = None,
    period_unit: str | None = None,
    aggregate: int = 1,
    lags: int | None = None,
    joint: str | None = None,
    condition_on: str | None = None,
    buckets: int = 4,
    noise: float | None = None,
    draws: int = 20,
    seed: int | None = 0,
    chunk_size: int = 2048,
    grid: int = 1024,
    progress: Callable[[int], None] | None = None,
    engine: Engine | str = "duckdb",
    spark_master: str | None = None,
    deltas_path: str | None = None,
) -> EmpiricalPrivacy:
    """Empirical (ε, δ) and total risk δ* of a statistic published once per period (Burchard and Daoud 2022).

    Args:
        table: one row per record, with a period column and an individual column (with ``engine="spark"`` also
            a CSV/Parquet path, folder or URI, or a Spark DataFrame).
        period: the column whose values are the databases (sorted; dates with ``period_unit``).
        individual: the column that identifies individuals (no missing ids).
        query: ``count`` (rows), ``sum``/``mean`` of ``value``, or ``rate`` = Σ value / Σ weight (weight 1 per
            row by default). For any other statistic use :func:`empirical_privacy_of` (slow).
        epsilons: the ε at which δ is measured (each > 0).
        density: ``kde-box`` (the paper's, §5), ``kde-triangle``, ``kde-gauss`` or ``ecdf``
            (:mod:`privrisk.empirical.density`).
        k: points per local estimate; default round(√t), where t is the number of periods; k < t.
        period_unit: ``day``, ``week``, ``month``, ``quarter`` or ``year`` when ``period`` holds dates.
        aggregate: merge this many consecutive periods into one database (§2, against autocorrelation); an
            incomplete last group is dropped.
        lags: lags of the Ljung–Box test (default min(10, t // 5)). A significant autocorrelation gives a
            :class:`~privrisk.errors.DependenceWarning`.
        joint: a second query ``QUERY[:VALUE[/WEIGHT]]`` published beside the first: δᵢ is measured on the
            two-dimensional density of the pairs (§2, composition); box kernels only.
        condition_on: what the adversary knows per period (§3, Definition 4): a column (its mean per period)
            or a query ``QUERY[:VALUE[/WEIGHT]]`` on the database with everyone. The periods are split into
            ``buckets`` quantile buckets of it; δᵢ is measured within each bucket and the largest is kept.
            A bucket with fewer than 10 periods gives a :class:`~privrisk.errors.PrivacyLeakWarning` (too few to
            estimate a density); one with fewer than 3 is skipped.
        noise: the scale b of Laplace noise added to every published answer (§2, end): the randomised
            query is measured by ``draws`` noise draws per database (seeded by ``seed``), the same draws with
            and without i; k then defaults to round(√(t·draws)).
        engine: ``"spark"`` runs the per-(period, individual) aggregation in Apache Spark and computes the δᵢ of
            chunks of individuals on the executors (``applyInPandas``) with the same kernel; the aggregates and
            δᵢ come back to the driver, where δ and δ* are reduced in log space as locally. Ties between
            individuals are broken by their id on Spark (first appearance locally). Not with ``joint`` or
            ``condition_on``.
        spark_master: Spark master URL (default ``local[*]``; an active SparkSession is reused).
        deltas_path: with Spark, δᵢ per individual is also written there by Spark as Parquet.

    Example:
        >>> rng = np.random.default_rng(1)
        >>> df = pd.DataFrame({"month": np.repeat(np.arange(40), 25), "shop": rng.integers(0, 200, 1000),
        ...                    "failed": rng.random(1000) < 0.2})
        >>> r = empirical_privacy(df, period="month", individual="shop", query="rate", value="failed",
        ...                       epsilons=[0.1, 1.0])
        >>> r.periods, r.k, list(r.summary.columns)
        (40, 6, ['epsilon', 'delta', 'total_risk', 'worst_individual'])
        >>> bool(r.summary["delta"].is_monotonic_decreasing)
        True
    """
    density = check_choice(density, DENSITIES, name="density")
    eps = check_epsilons(epsilons, name="epsilons")
    second = query_spec(joint, "joint") if joint is not None else None
    if second is not None and density != "kde-box":
        raise PrivriskError(
            "joint: joint queries use two-dimensional box kernels; use density='kde-box'", param="joint"
        )
    if second is not None and (noise is not None or condition_on is not None):
        raise PrivriskError("joint: cannot be combined with noise or condition_on", param="joint")
    knowledge: QuerySpec | None = None
    if condition_on is not None:
        column = condition_on in table.columns
        knowledge = ("column", condition_on, None) if column else query_spec(condition_on, "condition_on")
    specs = {"joint": second, "condition_on": knowledge}
    extra = [(p, c) for p, spec in specs.items() if spec is not None for c in spec[1:] if c is not None]
    engine = check_choice(engine, ENGINES, name="engine")
    if engine == "spark":
        if second is not None or knowledge is not None:
            raise PrivriskError(
                "engine: spark measures one query without joint or condition_on", param="engine"
            )
        from privrisk.empirical._spark import empirical_spark

        result = empirical_spark(table, period=period, individual=individual, query=query, value=value,
                                 weight=weight, eps=eps, density=density, k=k, period_unit=period_unit,
                                 aggregate=aggregate, lags=lags, noise=noise, draws=draws, seed=seed,
                                 chunk_size=chunk_size, grid=grid, master=spark_master,
                                 deltas_path=deltas_path)  # fmt: skip
        warn_dependence(result, aggregate)
        return result
    if deltas_path is not None:
        raise PrivriskError("deltas_path: only with engine='spark'", param="deltas_path")
    query = check_query(query)
    coded = prepare(table, period=period, individual=individual, query=query, value=value, weight=weight,
                    period_unit=period_unit, aggregate=aggregate, extra=extra)  # fmt: skip
    t, n = coded.t, coded.n
    check_periods(t, period, k)
    pairs = aggregate_pairs(coded.ind_codes, coded.per_codes, coded.values, coded.weights, t)
    full, answer = checked_answers(query, pairs, coded.per_labels)
    if second is not None:
        other = _other_pairs(second, coded, "joint")
        full = np.column_stack(
            [full, answers(second[0], other.totals_rows, other.totals_value, other.totals_weight)]
        )
        answer = np.column_stack([answer, without_answers(second[0], other)])
    draws_ = noise_draws(noise, t, draws, seed)
    kk = default_k(t if draws_ is None else t * draws_.shape[1]) if k is None else int(k)
    options: dict[str, Any] = dict(
        density=density, k=kk, chunk_size=chunk_size, progress=progress, grid=grid, noise=draws_
    )
    conditional = None
    if knowledge is None:
        deltas, bound, prints = measure_deltas(
            pairs.individual, pairs.period, answer, full, n, eps, **options
        )
    else:
        g = _knowledge(knowledge, coded)
        deltas, bound, prints, conditional = _conditional(pairs, answer, full, n, eps, g, buckets, k, options)
    second_series = None
    if second is not None:  # the result's series is the first query's; the second's is kept beside it
        second_series = pd.Series(full[:, 1], index=pd.Index(coded.per_labels, name="period"), name=joint)
        full, answer = full[:, 0], answer[:, 0]
    result = build_result(pairs, full, answer, deltas, bound, eps, coded.per_labels, coded.ind_labels,
                          kk, density, query, lags, coded.dropped, prints, conditional=conditional,
                          condition_on=None if conditional is None else condition_on, joint=second_series,
                          noise=noise, draws=None if noise is None else draws,
                          seed=None if noise is None else seed)  # fmt: skip
    warn_dependence(result, aggregate)
    return result


def _other_pairs(spec: QuerySpec, coded: Coded, param: str) -> Pairs:
    """The (individual, period) aggregates of another query on other columns, its weights checked."""
    query, value, weight = spec
    pairs = aggregate_pairs(
        coded.ind_codes,
        coded.per_codes,
        coded.extras[value] if value else np.zeros(len(coded.per_codes)),
        coded.extras[weight] if weight else np.ones(len(coded.per_codes)),
        coded.t,
    )
    check_weights(query, pairs, coded.per_labels, param)
    return pairs


def _knowledge(spec: QuerySpec, coded: Coded) -> np.ndarray:
    """g(Xˢ) per period: a column's mean per period, or a query on the database with everyone."""
    kind, value, _ = spec
    if kind == "column":
        assert value is not None
        total = np.bincount(coded.per_codes, weights=coded.extras[value], minlength=coded.t)
        return total / np.bincount(coded.per_codes, minlength=coded.t)
    agg = _other_pairs(spec, coded, "condition_on")
    return answers(kind, agg.totals_rows, agg.totals_value, agg.totals_weight)


def _buckets(g: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Quantile buckets of the adversary's knowledge g(Xˢ): a bucket code per period, and the bucket edges."""
    buckets = check_whole(buckets, name="buckets", minimum=1)
    edges = np.unique(np.quantile(g, np.linspace(0.0, 1.0, buckets + 1)))
    codes = np.clip(np.searchsorted(edges, g, side="right") - 1, 0, max(edges.size - 2, 0))
    return codes, edges


def _conditional(
    pairs: Pairs,
    answer: np.ndarray,
    full: np.ndarray,
    n: int,
    eps: np.ndarray,
    g: np.ndarray,
    buckets: int,
    k: int | None,
    options: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, int, pd.DataFrame]:
    """δᵢ within quantile buckets of the adversary's knowledge g, the largest kept (Definition 4)."""
    codes, edges = _buckets(g, buckets)
    draws_ = options["noise"]
    deltas = np.zeros((n, eps.size))
    bound = np.zeros(eps.size)
    prints = 0
    rows = []
    t = full.shape[0]
    for b in range(int(codes.max()) + 1):
        chosen = np.flatnonzero(codes == b)
        tb = chosen.size
        if tb < 10:
            warnings.warn(
                f"buckets: bucket {b + 1} of the adversary's knowledge holds only {tb} periods, too few to "
                "estimate a density" + ("; it is skipped" if tb < 3 else ""),
                PrivacyLeakWarning,
                stacklevel=3,
            )
        if tb < 3:
            continue
        recode = np.full(t, -1)
        recode[chosen] = np.arange(tb)
        keep = recode[pairs.period] >= 0
        kb = default_k(tb * (1 if draws_ is None else draws_.shape[1])) if k is None else min(int(k), tb - 1)
        sub_noise = None if draws_ is None else draws_[chosen]
        d, bb, fp = measure_deltas(
            pairs.individual[keep],
            recode[pairs.period[keep]],
            answer[keep],
            full[chosen],
            n,
            eps,
            **{**options, "k": kb, "noise": sub_noise},
        )
        deltas = np.maximum(deltas, d)
        bound = np.maximum(bound, bb)
        prints += fp
        rows.append(
            {
                "bucket": b + 1,
                "low": edges[b],
                "high": edges[min(b + 1, edges.size - 1)],
                "periods": tb,
                **{delta_column(e): d[:, j].max() for j, e in enumerate(eps)},
            }
        )
    return deltas, bound, prints, pd.DataFrame(rows)


def empirical_privacy_of(
    table: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    *,
    period: str,
    individual: str,
    epsilons: Any = (0.03, 0.1, 0.3),
    density: Density | str = "kde-box",
    k: int | None = None,
    period_unit: str | None = None,
    name: str = "statistic",
) -> EmpiricalPrivacy:
    """:func:`empirical_privacy` for any statistic of a period's rows, given as a Python callable. **Slow.**

    ``statistic(rows)`` is called once per period and once per (period, individual present in it) on the rows
    without that individual: O(Σₛ nₛ) calls, each on a DataFrame. Use the built-in queries where they fit. An
    empty database is never passed: it has no answer (see the module docstring). A significant autocorrelation
    of the answers gives a :class:`~privrisk.errors.DependenceWarning`.

    Example:
        >>> rng = np.random.default_rng(2)
        >>> df = pd.DataFrame({"m": np.repeat(np.arange(20), 10), "id": rng.integers(0, 30, 200),
        ...                    "v": rng.normal(size=200)})
        >>> r = empirical_privacy_of(df, lambda rows: rows["v"].median(), period="m", individual="id",
        ...                          epsilons=[1.0])
        >>> r.periods, r.query
        (20, 'statistic')
    """
    density = check_choice(density, DENSITIES, name="density")
    eps = check_epsilons(epsilons, name="epsilons")
    coded = prepare(table, period=period, individual=individual, query="count", value=None, weight=None,
                    period_unit=period_unit, aggregate=1)  # fmt: skip
    t, per_codes, ind_codes = coded.t, coded.per_codes, coded.ind_codes
    check_periods(t, period, k)
    frame = table.reset_index(drop=True)
    full = np.empty(t)
    who: list[int] = []
    when: list[int] = []
    said: list[float] = []
    for s in range(t):
        rows_s = np.flatnonzero(per_codes == s)
        part = frame.iloc[rows_s]
        full[s] = float(statistic(part))
        present = ind_codes[rows_s]
        for i in np.unique(present):
            rest = part.iloc[np.flatnonzero(present != i)]
            who.append(int(i))
            when.append(s)
            said.append(float(statistic(rest)) if len(rest) else np.nan)
    if not np.all(np.isfinite(full)):
        raise PrivriskError(
            f"statistic: gave no finite answer for period {coded.per_labels[np.flatnonzero(~np.isfinite(full))[0]]}",
            param="statistic",
        )
    order = np.lexsort((np.asarray(when), np.asarray(who)))
    ind, per, ans = np.asarray(who)[order], np.asarray(when)[order], np.asarray(said, dtype=float)[order]
    kk = default_k(t) if k is None else int(k)
    deltas, bound, prints = measure_deltas(
        ind, per, ans, full, coded.n, eps, density=density, k=kk, chunk_size=2048, progress=None, grid=1024
    )
    keys, sizes = np.unique(ind_codes.astype(np.int64) * t + per_codes, return_counts=True)
    counts = sizes[np.searchsorted(keys, ind.astype(np.int64) * t + per)].astype(float)
    pairs = Pairs(
        ind, per, counts, np.zeros(ind.size), np.zeros(ind.size), np.zeros(t), np.zeros(t), np.zeros(t)
    )
    result = build_result(pairs, full, ans, deltas, bound, eps, coded.per_labels, coded.ind_labels, kk, density,
                          name, None, 0, prints)  # fmt: skip
    warn_dependence(result, None)
    return result
