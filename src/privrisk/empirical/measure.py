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

The assumptions behind the number (§2) are checked rather than assumed (:mod:`privrisk.empirical.windows`): the
Ljung–Box test measures the autocorrelation of the series of answers and :class:`~privrisk.errors.DependenceWarning`
says when it is significant; ``aggregate`` merges consecutive periods; ``rolling_privacy`` repeats the analysis on
windows (secular change).

Note: US patent 11,593,360 ("Empirically providing data privacy with reduced noise", assigned to Goldman Sachs)
claims this method; check it before commercial use.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk._validation import check_choice, check_epsilons, check_whole
from privrisk.empirical.density import (
    DENSITIES,
    Density,
    default_k,
    hockey_stick_delta,
    joint_hockey_stick_delta,
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
from privrisk.empirical.result import EmpiricalPrivacy, delta_column
from privrisk.empirical.windows import ljung_box, warn_dependence
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


def total_risk(deltas: Any, axis: int = 0) -> Any:
    """Total risk δ* = 1 − Πᵢ (1 − δᵢ) (Burchard and Daoud 2022, Definition 3), summed in log space.

    Args:
        deltas: δᵢ in [0, 1]; reduced along ``axis``.

    Returns:
        A float for one row of δᵢ, else an array.

    Example:
        >>> round(total_risk([0.5, 0.5]), 6), total_risk([0.1, 1.0])
        (0.75, 1.0)
        >>> round(total_risk([1e-6] * 1000), 9)  # 1 − (1 − 10⁻⁶)¹⁰⁰⁰
        0.000999501
    """
    d = np.clip(np.asarray(deltas, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        value = -np.expm1(np.sum(np.log1p(-d), axis=axis))
    value = np.clip(value, 0.0, 1.0)
    return float(value) if np.ndim(value) == 0 else value


# --------------------------------------------------------------------------- per-(period, individual) aggregates


@dataclass(frozen=True, eq=False)
class Pairs:
    """Per-(period, individual) aggregates, sorted by individual then period, and per-period totals."""

    individual: np.ndarray  # codes, sorted
    period: np.ndarray
    rows: np.ndarray
    value: np.ndarray
    weight: np.ndarray
    totals_rows: np.ndarray
    totals_value: np.ndarray
    totals_weight: np.ndarray


def aggregate_pairs(
    ind_codes: np.ndarray,
    per_codes: np.ndarray,
    value: np.ndarray,
    weight: np.ndarray,
    t: int,
    rows: np.ndarray | None = None,
) -> Pairs:
    """Sum the records per (individual, period) and per period, in one pass.

    ``rows``: records behind each input row when the rows are already partial sums (Spark's aggregates); one each
    by default.
    """
    key = ind_codes.astype(np.int64) * t + per_codes
    uniq, inverse = np.unique(key, return_inverse=True)
    return Pairs(
        individual=uniq // t,
        period=uniq % t,
        rows=np.bincount(inverse, weights=rows).astype(float),
        value=np.bincount(inverse, weights=value),
        weight=np.bincount(inverse, weights=weight),
        totals_rows=np.bincount(per_codes, weights=rows, minlength=t).astype(float),
        totals_value=np.bincount(per_codes, weights=value, minlength=t),
        totals_weight=np.bincount(per_codes, weights=weight, minlength=t),
    )


def answers(query: str, rows: Any, value: Any, weight: Any) -> np.ndarray:
    """f from the aggregates of a database; NaN where the database is empty (no answer)."""
    rows, value, weight = (np.asarray(a, dtype=float) for a in (rows, value, weight))
    empty = rows <= 0
    if query == "count":
        out = rows.copy()
    elif query == "sum":
        out = value.copy()
    elif query == "mean":
        out = value / np.where(empty, 1.0, rows)
    else:
        # A weight that cancels to (almost) nothing leaves no answer; compare with the scale of the totals.
        empty = empty | (weight <= 1e-12 * np.maximum(1.0, np.abs(weight)))
        out = value / np.where(empty, 1.0, weight)
    out[empty] = np.nan
    return out


def without_answers(query: str, pairs: Pairs) -> np.ndarray:
    """f(Xˢ₋ᵢ) for every (individual, period) pair: the period's totals minus the individual's share."""
    return answers(
        query,
        pairs.totals_rows[pairs.period] - pairs.rows,
        pairs.totals_value[pairs.period] - pairs.value,
        pairs.totals_weight[pairs.period] - pairs.weight,
    )


def check_weights(query: str, pairs: Pairs, per_labels: Any, param: str = "weight") -> None:
    """A rate needs a positive weight in every period."""
    if query != "rate":
        return
    zero = np.flatnonzero(pairs.totals_weight <= 0)
    if zero.size:
        raise PrivriskError(
            f"{param}: the weight sums to zero in period {per_labels[zero[0]]} "
            f"({zero.size} period{'s' if zero.size > 1 else ''}); the rate has no value there",
            param=param,
        )


def checked_answers(query: str, pairs: Pairs, per_labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """f(Xˢ) per period and f(Xˢ₋ᵢ) per pair, once the rate is known to have a weight everywhere."""
    check_weights(query, pairs, per_labels)
    full = answers(query, pairs.totals_rows, pairs.totals_value, pairs.totals_weight)
    if np.isnan(full).any():
        raise PrivriskError(
            f"weight: the weight is (almost) zero in period {per_labels[np.flatnonzero(np.isnan(full))[0]]}; "
            "the rate has no value there",
            param="weight",
        )
    return full, without_answers(query, pairs)


# --------------------------------------------------------------------------------------------- δᵢ per footprint

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser: a bijective scramble of 64-bit integers."""
    with np.errstate(over="ignore"):
        z = x + _MIX
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def footprints(
    individual: np.ndarray, period: np.ndarray, answer: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Group individuals whose answers-without-them coincide (same periods, same values): 128-bit hashes.

    Returns (representative individual per group, group of each individual).
    """
    clean = np.ascontiguousarray(np.where(np.isnan(answer), np.nan, answer + 0.0))
    bits = clean.view(np.uint64)
    if bits.ndim == 2:  # a joint query: both answers make the footprint
        bits = bits[:, 0] ^ _mix64(bits[:, 1] ^ np.uint64(0x2545F4914F6CDD1D))
    h1 = _mix64(bits ^ _mix64(period.astype(np.uint64)))
    h2 = _mix64(h1 ^ np.uint64(0x632BE59BD9B4E019) ^ _mix64(period.astype(np.uint64) + np.uint64(7)))
    with np.errstate(over="ignore"):
        s1 = np.zeros(n, dtype=np.uint64)
        s2 = np.zeros(n, dtype=np.uint64)
        np.add.at(s1, individual, h1)
        np.add.at(s2, individual, h2)
    # np.unique(axis=0) took 1 s at 10⁶ individuals (it sorts the pairs as structured rows); lexsort takes 0.15 s
    order = np.lexsort((s2, s1))
    a1, a2 = s1[order], s2[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (a1[1:] != a1[:-1]) | (a2[1:] != a2[:-1])
    group = np.empty(n, dtype=np.intp)
    group[order] = np.cumsum(new) - 1
    return order[new], group


def measure_deltas(
    individual: np.ndarray,
    period: np.ndarray,
    answer: np.ndarray,
    full: np.ndarray,
    n: int,
    epsilons: np.ndarray,
    *,
    density: str,
    k: int | None,
    chunk_size: int,
    progress: Callable[[int], None] | None,
    grid: int,
    noise: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """δᵢ(ε) for every individual code 0…n − 1 (shape (n, len(ε))), the error bound per ε, the footprint count.

    ``individual``/``period``/``answer`` list, per (individual, period) pair sorted by individual, the answer
    without that individual; ``full`` the answers with everyone. A 2-D ``answer``/``full`` (a second column) is
    a joint query. ``noise`` (t, R): noise draws added to every database's answer (a randomised query).
    """
    joint = full.ndim == 2
    reps, group = footprints(individual, period, answer, n)
    starts = np.searchsorted(individual, np.arange(n + 1))
    deltas = np.zeros((reps.size, epsilons.size))
    bound = np.zeros(epsilons.size)
    reference = full if noise is None else (full[:, None] + noise).ravel()
    if joint:
        chunk_size = max(1, min(chunk_size, 64))
    elif noise is not None:
        chunk_size = max(1, chunk_size // noise.shape[1])
    for lo in range(0, reps.size, chunk_size):
        chunk = reps[lo : lo + chunk_size]
        begin, count = starts[chunk], starts[chunk + 1] - starts[chunk]
        offsets = np.repeat(begin - np.concatenate([[0], np.cumsum(count)[:-1]]), count)
        idx = offsets + np.arange(int(count.sum()))
        row = np.repeat(np.arange(chunk.size), count)
        y = np.broadcast_to(full, (chunk.size, *full.shape)).copy()
        y[row, period[idx]] = answer[idx]
        if joint:
            d = joint_hockey_stick_delta(full, y, epsilons, k=k)
            b = np.zeros_like(d)
        else:
            if noise is not None:
                y = (y[:, :, None] + noise[None]).reshape(chunk.size, -1)
            d, b = hockey_stick_delta(
                reference, y, epsilons, density=density, k=k, grid=grid, return_bound=True
            )
        deltas[lo : lo + chunk.size] = d
        bound = np.maximum(bound, b.max(axis=0))
        if progress is not None:
            progress(chunk.size)
    return deltas[group], bound, int(reps.size)


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


def _without(pairs: Pairs, full: np.ndarray, answer: np.ndarray, code: int) -> np.ndarray:
    y = np.array(full, dtype=float)
    mine = pairs.individual == code
    y[pairs.period[mine]] = answer[mine]
    return y


def build_result(
    pairs: Pairs,
    full: np.ndarray,
    answer: np.ndarray,
    deltas: np.ndarray,
    bound: np.ndarray,
    eps: np.ndarray,
    per_labels: Any,
    ind_labels: Any,
    k: int,
    density: str,
    query: str,
    lags: int | None,
    dropped: int,
    prints: int,
    **more: Any,
) -> EmpiricalPrivacy:
    """The result: δᵢ per individual (riskiest first), δ and δ* per ε, the Ljung–Box test of the series.

    ``more``: further fields of :class:`EmpiricalPrivacy` (``conditional``, ``noise``, ``joint``, ``engine``, …).
    """
    n = len(ind_labels)
    periods = np.bincount(pairs.individual, minlength=n)
    rows = np.bincount(pairs.individual, weights=pairs.rows, minlength=n).astype(np.int64)
    sole = np.bincount(pairs.individual, weights=np.isnan(answer), minlength=n).astype(np.int64)
    individuals = pd.DataFrame(
        {"individual": np.asarray(ind_labels), "periods": periods, "rows": rows, "sole_periods": sole}
    )
    for e, epsilon in enumerate(eps):
        individuals[delta_column(epsilon)] = deltas[:, e]
    order = np.lexsort([-deltas[:, e] for e in reversed(range(eps.size))])
    individuals = individuals.iloc[order].reset_index(drop=True)
    worst = deltas.argmax(axis=0)
    summary = pd.DataFrame(
        {
            "epsilon": eps,
            "delta": deltas.max(axis=0),
            "total_risk": total_risk(deltas, axis=0),
            "worst_individual": [ind_labels[w] for w in worst],
        }
    )
    # Figure 1 of Burchard and Daoud (2022) drops the establishment with the largest δ at ε = 0.1: use the ε
    # nearest to 0.1
    figure_eps = int(np.argmin(np.abs(np.log(eps) - math.log(0.1))))
    top = int(worst[figure_eps])
    independence = None
    finite = full[np.isfinite(full)]
    if finite.size >= 3 and (lags is None or lags < finite.size):
        independence = ljung_box(finite, lags)
    return EmpiricalPrivacy(
        summary=summary,
        individuals=individuals,
        series=pd.Series(full, index=pd.Index(per_labels, name="period"), name=query),
        without_worst=_without(pairs, full, answer, top),
        worst=ind_labels[top],
        figure_epsilon=float(eps[figure_eps]),
        k=k,
        density=density,
        query=query,
        epsilons=[float(e) for e in eps],
        independence=independence,
        error_bound=[float(b) for b in bound],
        dropped_periods=dropped,
        footprints=prints,
        **more,
    )


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
