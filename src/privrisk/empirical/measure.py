"""Empirical differential privacy over a sequence of databases (Burchard and Daoud, 004).

Many statistics are published without noise, period after period. 004 measures how private such a statistic
already is from the randomness of the data: the periods are t databases X¹, …, Xᵗ drawn from one distribution;
for every individual i the t answers f(Xˢ) with everyone are compared with the t answers f(Xˢ₋ᵢ) without i's
rows, through their densities p and pᵢ (:mod:`privrisk.empirical.density`). Per ε,

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
appears in (004 §2: the individuals must be representative) and how many it alone makes up.

The assumptions behind the number (004 §2) are checked rather than assumed: :func:`ljung_box` measures the
autocorrelation of the series of answers; ``aggregate`` merges consecutive periods; :func:`rolling_privacy`
repeats the analysis on windows (secular change).

Note: US patent 11,593,360 ("Empirically providing data privacy with reduced noise", assigned to Goldman Sachs)
claims this method; check it before commercial use.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privrisk.empirical.density import DENSITIES, default_k, hockey_stick_delta
from privrisk.errors import PrivacyLeakWarning, PrivriskError

__all__ = [
    "EMPIRICAL_QUERIES",
    "EmpiricalPrivacy",
    "chicago_clean",
    "chicago_like",
    "empirical_privacy",
    "empirical_privacy_of",
    "ljung_box",
    "query_spec",
    "rolling_privacy",
    "smallest_noise",
    "total_risk",
]

EMPIRICAL_QUERIES = ("count", "sum", "mean", "rate")
PERIOD_UNITS = {"day": "D", "week": "W", "month": "M", "quarter": "Q", "year": "Y"}


def total_risk(deltas, axis: int = 0):
    """Total risk δ* = 1 − Πᵢ (1 − δᵢ) (004, Definition 3), summed in log space.

    Args:
        deltas: δᵢ in [0, 1]; reduced along ``axis``.

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


def ljung_box(series, lags: int | None = None) -> pd.DataFrame:
    """Autocorrelation ρₖ of a series for lags 1…L and the Ljung–Box statistic Q = t(t + 2) Σₖ ρₖ²/(t − k).

    004 §2 asks for independent databases; a significant autocorrelation of the answers says they are not (merge
    periods with ``aggregate``). Under independence Q is χ² with L degrees of freedom (p-value from
    the χ² survival function, ``scipy.special.chdtrc`` = ``scipy.stats.chi2.sf``). L defaults to min(10, t // 5).

    Returns:
        One row per lag: ``lag``, ``autocorrelation``, ``statistic`` (Q up to that lag), ``p_value``.

    Example:
        >>> x = np.sin(np.arange(60) / 3.0)
        >>> bool(ljung_box(x)["p_value"].iloc[-1] < 0.01)
        True
    """
    # chdtrc is the χ² survival function behind scipy.stats.chi2.sf, without importing scipy.stats (~1–3 s)
    from scipy.special import chdtrc

    x = np.asarray(series, dtype=float)
    x = x[np.isfinite(x)]
    t = x.size
    if t < 3:
        raise PrivriskError("series: the autocorrelation needs at least three periods")
    lags = max(1, min(10, t // 5)) if lags is None else int(lags)
    if not 1 <= lags < t:
        raise PrivriskError(f"--lags: must be between 1 and {t - 1}, got {lags}")
    centred = x - x.mean()
    denom = float(centred @ centred)
    ks = np.arange(1, lags + 1)
    if denom == 0:
        acf = np.zeros(lags)
    else:
        acf = np.array([float(centred[k:] @ centred[:-k]) / denom for k in ks])
    q = t * (t + 2) * np.cumsum(acf**2 / (t - ks))
    return pd.DataFrame({"lag": ks, "autocorrelation": acf, "statistic": q, "p_value": chdtrc(ks, q)})


@dataclass
class EmpiricalPrivacy:
    """The result of :func:`empirical_privacy`.

    Attributes:
        summary: one row per ε: ``epsilon``, ``delta`` (maxᵢ δᵢ), ``total_risk`` (δ*), ``worst_individual``.
        individuals: one row per individual: ``individual``, ``periods`` (how many it appears in), ``rows``,
            ``sole_periods`` (periods with no answer without it) and ``delta_<ε>`` per ε; riskiest first.
        series: the answer f(Xˢ) per period (index: the period).
        without_worst: the answers without ``worst`` (NaN: no answer), for Figure 1 of 004.
        worst: the individual with the largest δᵢ at ``figure_epsilon`` (the ε nearest 0.1, as in 004's Figure 1).
        independence: :func:`ljung_box` of the series.
        error_bound: for ``kde-gauss``, the bound on |computed δ − exact δ| per ε (0 otherwise).
        dropped_periods: periods left out by ``aggregate`` (an incomplete last group).
        footprints: distinct (periods, answers-without) footprints, i.e. how many δᵢ were actually computed.
        conditional: with ``condition_on``, one row per bucket: ``bucket``, ``low``, ``high``, ``periods`` and the
            largest δᵢ per ε within it.
        noise: the Laplace scale measured (None: the query as published).
        joint: with ``joint``, the second query's answers per period.
    """

    summary: pd.DataFrame
    individuals: pd.DataFrame
    series: pd.Series
    without_worst: np.ndarray
    k: int
    density: str
    query: str
    epsilons: list[float]
    independence: pd.DataFrame | None = None
    error_bound: list[float] = field(default_factory=list)
    dropped_periods: int = 0
    footprints: int = 0
    conditional: pd.DataFrame | None = None
    noise: float | None = None
    joint: pd.Series | None = None
    worst: object = None
    figure_epsilon: float | None = None

    @property
    def periods(self) -> int:
        return int(self.series.size)

    @property
    def n_individuals(self) -> int:
        return len(self.individuals)

    def top(self, n: int = 10) -> pd.DataFrame:
        """The n riskiest individuals."""
        return self.individuals.head(n)


def delta_column(epsilon: float) -> str:
    """Column name of δᵢ at ε in the individuals table (``delta_0.1``)."""
    return f"delta_{epsilon:.6g}"


def _periods(frame: pd.DataFrame, period: str, unit: str | None) -> pd.Series:
    col = frame[period]
    if unit is None:
        return col
    if unit not in PERIOD_UNITS:
        raise PrivriskError(f"--period-unit: unknown unit {unit!r}; choose one of {', '.join(PERIOD_UNITS)}")
    try:
        dates = pd.to_datetime(col, errors="raise")
    except (ValueError, TypeError) as exc:
        raise PrivriskError(f"--period: column {period!r} is not a date ({exc})") from None
    return dates.dt.to_period(PERIOD_UNITS[unit]).dt.start_time


@dataclass
class _Pairs:
    """Per-(period, individual) aggregates, sorted by individual then period, and per-period totals."""

    individual: np.ndarray  # codes, sorted
    period: np.ndarray
    rows: np.ndarray
    value: np.ndarray
    weight: np.ndarray
    totals_rows: np.ndarray
    totals_value: np.ndarray
    totals_weight: np.ndarray


def _aggregate(
    ind_codes: np.ndarray, per_codes: np.ndarray, value: np.ndarray, weight: np.ndarray, t: int
) -> _Pairs:
    key = ind_codes.astype(np.int64) * t + per_codes
    uniq, inverse = np.unique(key, return_inverse=True)
    rows = np.bincount(inverse).astype(float)
    v = np.bincount(inverse, weights=value)
    w = np.bincount(inverse, weights=weight)
    return _Pairs(
        individual=uniq // t,
        period=uniq % t,
        rows=rows,
        value=v,
        weight=w,
        totals_rows=np.bincount(per_codes, minlength=t).astype(float),
        totals_value=np.bincount(per_codes, weights=value, minlength=t),
        totals_weight=np.bincount(per_codes, weights=weight, minlength=t),
    )


def _answers(query: str, rows, value, weight) -> np.ndarray:
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


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser: a bijective scramble of 64-bit integers."""
    with np.errstate(over="ignore"):
        z = x + _MIX
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _footprints(individual: np.ndarray, period: np.ndarray, answer: np.ndarray, n: int):
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
    pairs = np.stack([s1, s2], axis=1)
    _, first, group = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
    return first, group.ravel()


def _measure(
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
):
    """δᵢ(ε) for every individual code 0…n − 1 (shape (n, len(ε))), the error bound per ε, the footprint count.

    ``individual``/``period``/``answer`` list, per (individual, period) pair sorted by individual, the answer
    without that individual; ``full`` the answers with everyone. A 2-D ``answer``/``full`` (a second column) is
    a joint query. ``noise`` (t, R): noise draws added to every database's answer (a randomised query).
    """
    from privrisk.empirical.density import joint_hockey_stick_delta

    joint = full.ndim == 2
    reps, group = _footprints(individual, period, answer, n)
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
    return deltas[group], bound, reps.size


def _without_answers(query: str, pairs: _Pairs) -> np.ndarray:
    """f(Xˢ₋ᵢ) for every (individual, period) pair: the period's totals minus the individual's share."""
    return _answers(
        query,
        pairs.totals_rows[pairs.period] - pairs.rows,
        pairs.totals_value[pairs.period] - pairs.value,
        pairs.totals_weight[pairs.period] - pairs.weight,
    )


def _without(pairs: _Pairs, full: np.ndarray, answer: np.ndarray, code: int) -> np.ndarray:
    y = np.array(full, dtype=float)
    mine = pairs.individual == code
    y[pairs.period[mine]] = answer[mine]
    return y


def _prepare(
    table: pd.DataFrame,
    *,
    period: str,
    individual: str,
    query: str,
    value: str | None,
    weight: str | None,
    period_unit: str | None,
    aggregate: int,
    extra: Sequence[tuple[str, str]] = (),
):
    """Check the columns and code periods and individuals; returns arrays and labels.

    ``extra``: (option, column) pairs of further numeric columns, returned in a dict by column.
    """
    if query not in EMPIRICAL_QUERIES:
        raise PrivriskError(f"--query: unknown query {query!r}; choose one of {', '.join(EMPIRICAL_QUERIES)}")
    for name, col in (
        ("--period", period),
        ("--individual", individual),
        ("--value", value),
        ("--weight", weight),
    ):
        if col is not None and col not in table.columns:
            raise PrivriskError(
                f"{name}: no column {col!r}; columns are {', '.join(map(str, table.columns))}"
            )
    if query != "count" and value is None:
        raise PrivriskError(f"--value: the {query} query needs a --value column")
    if weight is not None and query != "rate":
        raise PrivriskError("--weight: only the rate query takes a weight")
    ids = table[individual]
    if ids.isna().any():
        raise PrivriskError(
            f"--individual: column {individual!r} has {int(ids.isna().sum()):,} missing ids; "
            "every row must belong to an individual"
        )
    per = _periods(table, period, period_unit)
    if per.isna().any():
        raise PrivriskError(f"--period: column {period!r} has {int(per.isna().sum()):,} missing values")
    values = np.zeros(len(table))
    if value is not None and query != "count":
        values = _numeric(table[value], "--value", value)
    weights = np.ones(len(table))
    if weight is not None:
        weights = _numeric(table[weight], "--weight", weight)
        if np.any(weights < 0):
            raise PrivriskError(f"--weight: column {weight!r} has negative weights")
    extras = {}
    for option, column in extra:
        if column not in table.columns:
            raise PrivriskError(
                f"{option}: no column {column!r}; columns are {', '.join(map(str, table.columns))}"
            )
        extras[column] = _numeric(table[column], option, column)
    per_codes, per_labels = pd.factorize(per, sort=True)
    ind_codes, ind_labels = pd.factorize(ids, sort=False)
    dropped = 0
    if aggregate > 1:
        t_raw = per_labels.size
        whole = (t_raw // aggregate) * aggregate
        dropped = t_raw - whole
        keep = per_codes < whole
        per_codes, ind_codes, values, weights = (a[keep] for a in (per_codes, ind_codes, values, weights))
        extras = {c: a[keep] for c, a in extras.items()}
        per_labels = per_labels[:whole:aggregate]
        per_codes = per_codes // aggregate
        ind_codes, kept = pd.factorize(ind_labels[ind_codes], sort=False)
        ind_labels = kept
    elif aggregate < 1:
        raise PrivriskError(f"--aggregate: must be at least 1, got {aggregate}")
    return per_codes, per_labels, ind_codes, ind_labels, values, weights, dropped, extras


def _numeric(series: pd.Series, option: str, name: str) -> np.ndarray:
    if series.dtype == bool:
        series = series.astype(float)
    try:
        values = pd.to_numeric(series, errors="raise").to_numpy(dtype=float)
    except (ValueError, TypeError):
        raise PrivriskError(f"{option}: column {name!r} is not numeric") from None
    bad = ~np.isfinite(values)
    if bad.any():
        raise PrivriskError(f"{option}: column {name!r} has {int(bad.sum()):,} missing or infinite values")
    return values


def _epsilon_list(epsilons) -> np.ndarray:
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float)).ravel()
    if eps.size == 0:
        raise PrivriskError("--epsilons: give at least one ε")
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise PrivriskError(f"--epsilons: every ε must be a finite number greater than 0, got {eps.tolist()}")
    return eps


def query_spec(text: str, option: str = "--joint") -> tuple[str, str | None, str | None]:
    """Read ``QUERY[:VALUE[/WEIGHT]]``: ``count``, ``sum:hours``, ``mean:hours``, ``rate:failed/inspected``.

    Example:
        >>> query_spec("rate:failed/inspected"), query_spec("count")
        (('rate', 'failed', 'inspected'), ('count', None, None))
    """
    head, _, rest = str(text).partition(":")
    query = head.strip().lower()
    if query not in EMPIRICAL_QUERIES:
        raise PrivriskError(
            f"{option}: {text!r} is not a query; write QUERY[:VALUE[/WEIGHT]] with QUERY one of "
            f"{', '.join(EMPIRICAL_QUERIES)}"
        )
    value, _, weight = rest.partition("/")
    value, weight = value.strip() or None, weight.strip() or None
    if query != "count" and value is None:
        raise PrivriskError(f"{option}: the {query} query needs a value column, e.g. {query}:COLUMN")
    if weight is not None and query != "rate":
        raise PrivriskError(f"{option}: only the rate query takes a weight")
    return query, value, weight


def _noise_draws(noise: float | None, t: int, draws: int, seed: int | None) -> np.ndarray | None:
    if noise is None:
        return None
    if not np.isfinite(noise) or noise < 0:
        raise PrivriskError(f"--noise: the Laplace scale must be a finite number ≥ 0, got {noise}")
    if draws < 1:
        raise PrivriskError(f"--draws: must be at least 1, got {draws}")
    return np.random.default_rng(seed).laplace(0.0, noise, (t, draws)) if noise > 0 else np.zeros((t, draws))


def _buckets(g: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Quantile buckets of the adversary's knowledge g(Xˢ): a bucket code per period, and the bucket edges."""
    if buckets < 1:
        raise PrivriskError(f"--buckets: must be at least 1, got {buckets}")
    edges = np.unique(np.quantile(g, np.linspace(0.0, 1.0, buckets + 1)))
    codes = np.clip(np.searchsorted(edges, g, side="right") - 1, 0, max(edges.size - 2, 0))
    return codes, edges


def empirical_privacy(
    table: pd.DataFrame,
    *,
    period: str,
    individual: str,
    query: str,
    value: str | None = None,
    weight: str | None = None,
    epsilons: Sequence[float] = (0.03, 0.1, 0.3),
    density: str = "kde-box",
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
    engine: str = "duckdb",
    spark_master: str | None = None,
    deltas_path: str | None = None,
) -> EmpiricalPrivacy:
    """Empirical (ε, δ) and total risk δ* of a statistic published once per period (004, Defs 2–4, Thm 1).

    Args:
        table: one row per record, with a period column and an individual column.
        period: the column whose values are the databases (sorted; dates with ``period_unit``).
        individual: the column that identifies individuals (no missing ids).
        query: ``count`` (rows), ``sum``/``mean`` of ``value``, or ``rate`` = Σ value / Σ weight (weight 1 per
            row by default). For any other statistic use :func:`empirical_privacy_of` (slow).
        epsilons: the ε at which δ is measured (each > 0).
        density: ``kde-box`` (004 §5), ``kde-triangle``, ``kde-gauss`` or ``ecdf`` (:mod:`privrisk.empirical.density`).
        k: points per local estimate; default round(√t), where t is the number of periods; k < t.
        period_unit: ``day``, ``week``, ``month``, ``quarter`` or ``year`` when ``period`` holds dates.
        aggregate: merge this many consecutive periods into one database (004 §2, against autocorrelation); an
            incomplete last group is dropped.
        lags: lags of the Ljung–Box test (default min(10, t // 5)).
        joint: a second query ``QUERY[:VALUE[/WEIGHT]]`` published beside the first: δᵢ is measured on the
            two-dimensional density of the pairs (004 §2, composition); box kernels only.
        condition_on: what the adversary knows per period (004 §3, Definition 4): a column (its mean per period)
            or a query ``QUERY[:VALUE[/WEIGHT]]`` on the database with everyone. The periods are split into
            ``buckets`` quantile buckets of it; δᵢ is measured within each bucket and the largest is kept.
            A bucket with fewer than 10 periods gives a :class:`PrivacyLeakWarning` (too few to estimate a
            density); one with fewer than 3 is skipped.
        noise: the scale b of Laplace noise added to every published answer (004 §2, end): the randomised
            query is measured by ``draws`` noise draws per database (seeded by ``seed``), the same draws with
            and without i; k then defaults to round(√(t·draws)).
        engine: ``"spark"`` runs the per-(period, individual) aggregation in Apache Spark (``table`` may then be
            a CSV/Parquet path, folder or URI, or a Spark DataFrame) and computes the δᵢ of chunks of
            individuals on the executors (``applyInPandas``) with the same kernel; the aggregates and δᵢ come
            back to the driver, where δ and δ* are reduced in log space as locally. Ties between individuals
            are broken by their id on Spark (first appearance locally). Not with ``joint``/``condition_on``.
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
    if density not in DENSITIES:
        raise PrivriskError(f"--density: unknown density {density!r}; choose one of {', '.join(DENSITIES)}")
    eps = _epsilon_list(epsilons)
    second = query_spec(joint, "--joint") if joint is not None else None
    if second is not None and density != "kde-box":
        raise PrivriskError("--joint: joint queries use two-dimensional box kernels; use --density kde-box")
    if second is not None and (noise is not None or condition_on is not None):
        raise PrivriskError("--joint: cannot be combined with --noise or --condition-on")
    knowledge = None
    if condition_on is not None:
        knowledge = (
            ("column", condition_on, None)
            if condition_on in table.columns
            else query_spec(condition_on, "--condition-on")
        )
    extra = []
    for option, spec in (("--joint", second), ("--condition-on", knowledge)):
        if spec is not None:
            extra += [(option, c) for c in spec[1:] if c is not None]
    from privrisk.io.engine import check_engine

    engine = check_engine(engine)
    if engine == "spark":
        if second is not None or knowledge is not None:
            raise PrivriskError("--engine: spark measures one query without --joint or --condition-on")
        return _empirical_spark(table, period=period, individual=individual, query=query, value=value,
                                weight=weight, eps=eps, density=density, k=k, period_unit=period_unit,
                                aggregate=aggregate, lags=lags, noise=noise, draws=draws, seed=seed,
                                chunk_size=chunk_size, grid=grid, master=spark_master,
                                deltas_path=deltas_path)  # fmt: skip
    if deltas_path is not None:
        raise PrivriskError("--deltas-parquet: only with --engine spark (use --out for the local tables)")
    per_codes, per_labels, ind_codes, ind_labels, values, weights, dropped, extras = _prepare(
        table,
        period=period,
        individual=individual,
        query=query,
        value=value,
        weight=weight,
        period_unit=period_unit,
        aggregate=aggregate,
        extra=extra,
    )
    t = int(per_labels.size)
    _check_periods(t, period, k)
    n = int(ind_labels.size)
    pairs = _aggregate(ind_codes, per_codes, values, weights, t)
    full, answer = _checked_answers(query, pairs, per_labels)
    if second is not None:
        q2, v2, w2 = second
        other = _checked_pairs(q2, v2, w2, extras, ind_codes, per_codes, t, per_labels, "--joint")
        full = np.column_stack(
            [full, _answers(q2, other.totals_rows, other.totals_value, other.totals_weight)]
        )
        answer = np.column_stack([answer, _without_answers(q2, other)])
    draws_ = _noise_draws(noise, t, draws, seed)
    samples = t if draws_ is None else t * draws_.shape[1]
    kk = default_k(samples) if k is None else int(k)
    options = dict(density=density, k=kk, chunk_size=chunk_size, progress=progress, grid=grid, noise=draws_)
    conditional = None
    if knowledge is None:
        deltas, bound, footprints = _measure(pairs.individual, pairs.period, answer, full, n, eps, **options)
    else:
        g = _knowledge(knowledge, extras, per_codes, ind_codes, t, per_labels)
        codes, edges = _buckets(g, buckets)
        deltas = np.zeros((n, eps.size))
        bound = np.zeros(eps.size)
        footprints = 0
        rows = []
        for b in range(int(codes.max()) + 1):
            chosen = np.flatnonzero(codes == b)
            tb = chosen.size
            if tb < 10:
                warnings.warn(
                    f"--buckets: bucket {b + 1} of the adversary's knowledge holds only {tb} periods, too few to "
                    "estimate a density" + ("; it is skipped" if tb < 3 else ""),
                    PrivacyLeakWarning,
                    stacklevel=2,
                )
            if tb < 3:
                continue
            recode = np.full(t, -1)
            recode[chosen] = np.arange(tb)
            keep = recode[pairs.period] >= 0
            kb = (
                default_k(tb * (1 if draws_ is None else draws_.shape[1]))
                if k is None
                else min(int(k), tb - 1)
            )
            sub_noise = None if draws_ is None else draws_[chosen]
            d, bb, fp = _measure(
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
            footprints += fp
            rows.append(
                {
                    "bucket": b + 1,
                    "low": edges[b],
                    "high": edges[min(b + 1, edges.size - 1)],
                    "periods": tb,
                    **{delta_column(e): d[:, j].max() for j, e in enumerate(eps)},
                }
            )
        conditional = pd.DataFrame(rows)
    result = _result(
        pairs,
        full[:, 0] if full.ndim == 2 else full,
        answer[:, 0] if answer.ndim == 2 else answer,
        deltas,
        bound,
        eps,
        per_labels,
        ind_labels,
        kk,
        density,
        query,
        lags,
        dropped,
        footprints,
    )
    result.conditional = conditional
    result.noise = noise
    if second is not None:
        result.joint = pd.Series(full[:, 1], index=result.series.index, name=joint)
    return result


def _check_periods(t: int, period: str, k) -> None:
    if t < 2:
        raise PrivriskError(
            f"--period: column {period!r} has {t} period{'s' if t != 1 else ''}; "
            "the method compares distributions over at least two databases"
        )
    _check_k(k, t)


def _check_k(k, t: int) -> None:
    if k is not None and not 1 <= int(k) < t:
        raise PrivriskError(f"--k: must be between 1 and t − 1 = {t - 1} (there are {t} periods), got {k}")


def _checked_answers(query: str, pairs: _Pairs, per_labels) -> tuple[np.ndarray, np.ndarray]:
    """f(X_j) per period and f(X_j without i) per pair, once the rate is known to have a weight everywhere."""
    _check_weights(query, pairs, per_labels, "--weight")
    full = _answers(query, pairs.totals_rows, pairs.totals_value, pairs.totals_weight)
    if np.isnan(full).any():
        raise PrivriskError(
            f"--weight: the weight is (almost) zero in period {per_labels[np.flatnonzero(np.isnan(full))[0]]}; "
            "the rate has no value there"
        )
    return full, _without_answers(query, pairs)


def _check_weights(query: str, pairs: _Pairs, per_labels, option: str) -> None:
    if query != "rate":
        return
    zero = np.flatnonzero(pairs.totals_weight <= 0)
    if zero.size:
        raise PrivriskError(
            f"{option}: the weight sums to zero in period {per_labels[zero[0]]} "
            f"({zero.size} period{'s' if zero.size > 1 else ''}); the rate has no value there"
        )


def _checked_pairs(query, value, weight, extras, ind_codes, per_codes, t, per_labels, option) -> _Pairs:
    """The (individual, period) aggregates of another query on other columns, its weights checked like --weight."""
    pairs = _aggregate(
        ind_codes,
        per_codes,
        extras[value] if value else np.zeros(len(per_codes)),
        extras[weight] if weight else np.ones(len(per_codes)),
        t,
    )
    _check_weights(query, pairs, per_labels, option)
    return pairs


def _knowledge(spec, extras, per_codes, ind_codes, t, per_labels) -> np.ndarray:
    """g(Xˢ) per period: a column's mean per period, or a query on the database with everyone."""
    kind, value, weight = spec
    if kind == "column":
        total = np.bincount(per_codes, weights=extras[value], minlength=t)
        return total / np.bincount(per_codes, minlength=t)
    agg = _checked_pairs(kind, value, weight, extras, ind_codes, per_codes, t, per_labels, "--condition-on")
    return _answers(kind, agg.totals_rows, agg.totals_value, agg.totals_weight)


def smallest_noise(
    table: pd.DataFrame,
    *,
    target_delta: float,
    epsilons: Sequence[float] = (0.03, 0.1, 0.3),
    steps: int = 12,
    **kwargs,
) -> pd.DataFrame:
    """The smallest Laplace scale b that brings the empirical δ(ε) under ``target_delta``, per ε (004 §2, end).

    For each ε: b = 0 is tried first; then b doubles from 1 % of the answers' spread until δ ≤ target, and a
    bisection on log b (``steps`` halvings) narrows the bracket. Every evaluation uses the same noise draws
    (``seed``), so δ(b) is a smooth function of b for the search; it is an estimate and need not be monotone, so
    the scale returned is one where δ ≤ target was measured.

    Returns:
        One row per ε: ``epsilon``, ``scale`` (the smallest found; NaN if none up to 10⁴ × spread),
        ``delta`` (at that scale), ``delta_without_noise``.
    """
    if not 0 < target_delta < 1:
        raise PrivriskError(f"--target-delta: must be between 0 and 1, got {target_delta}")
    eps = _epsilon_list(epsilons)
    kwargs.pop("noise", None)
    base = empirical_privacy(table, epsilons=eps, **kwargs)
    spread = float(np.nanstd(base.series.to_numpy())) or 1.0
    rows = []
    for j, e in enumerate(eps):

        def delta_at(b: float, j=j, e=e) -> float:
            return float(empirical_privacy(table, epsilons=[e], noise=b, **kwargs).summary["delta"].iloc[0])

        d0 = float(base.summary["delta"].iloc[j])
        if d0 <= target_delta:
            rows.append({"epsilon": e, "scale": 0.0, "delta": d0, "delta_without_noise": d0})
            continue
        lo, hi = 0.0, 0.01 * spread
        d_hi = delta_at(hi)
        while d_hi > target_delta and hi < 1e4 * spread:
            lo, hi = hi, hi * 2
            d_hi = delta_at(hi)
        if d_hi > target_delta:
            rows.append({"epsilon": e, "scale": np.nan, "delta": d_hi, "delta_without_noise": d0})
            continue
        for _ in range(steps):
            mid = math.sqrt(lo * hi) if lo > 0 else hi / 2
            d_mid = delta_at(mid)
            if d_mid <= target_delta:
                hi, d_hi = mid, d_mid
            else:
                lo = mid
        rows.append({"epsilon": e, "scale": hi, "delta": d_hi, "delta_without_noise": d0})
    return pd.DataFrame(rows)


def _result(
    pairs,
    full,
    answer,
    deltas,
    bound,
    eps,
    per_labels,
    ind_labels,
    k,
    density,
    query,
    lags,
    dropped,
    footprints,
) -> EmpiricalPrivacy:
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
    # Figure 1 of 004 drops the establishment with the largest δ at ε = 0.1: use the ε nearest to 0.1
    figure_eps = int(np.argmin(np.abs(np.log(eps) - math.log(0.1))))
    top = int(worst[figure_eps])
    without = _without(pairs, full, answer, top)
    independence = None
    finite = full[np.isfinite(full)]
    if finite.size >= 3 and (lags is None or lags < finite.size):
        independence = ljung_box(finite, lags)
    return EmpiricalPrivacy(
        summary=summary,
        individuals=individuals,
        series=pd.Series(full, index=pd.Index(per_labels, name="period"), name=query),
        without_worst=without,
        worst=ind_labels[top],
        figure_epsilon=float(eps[figure_eps]),
        k=k,
        density=density,
        query=query,
        epsilons=[float(e) for e in eps],
        independence=independence,
        error_bound=[float(b) for b in bound],
        dropped_periods=dropped,
        footprints=footprints,
    )


def empirical_privacy_of(
    table: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    *,
    period: str,
    individual: str,
    epsilons: Sequence[float] = (0.03, 0.1, 0.3),
    density: str = "kde-box",
    k: int | None = None,
    period_unit: str | None = None,
    name: str = "statistic",
) -> EmpiricalPrivacy:
    """:func:`empirical_privacy` for any statistic of a period's rows, given as a Python callable. **Slow.**

    ``statistic(rows)`` is called once per period and once per (period, individual present in it) on the rows
    without that individual: O(Σₛ nₛ) calls, each on a DataFrame. Use the built-in queries where they fit. An
    empty database is never passed: it has no answer (see the module docstring).

    Example:
        >>> rng = np.random.default_rng(2)
        >>> df = pd.DataFrame({"m": np.repeat(np.arange(20), 10), "id": rng.integers(0, 30, 200),
        ...                    "v": rng.normal(size=200)})
        >>> r = empirical_privacy_of(df, lambda rows: rows["v"].median(), period="m", individual="id",
        ...                          epsilons=[1.0])
        >>> r.periods, r.query
        (20, 'statistic')
    """
    if density not in DENSITIES:
        raise PrivriskError(f"--density: unknown density {density!r}; choose one of {', '.join(DENSITIES)}")
    eps = _epsilon_list(epsilons)
    per_codes, per_labels, ind_codes, ind_labels, _, _, _, _ = _prepare(
        table,
        period=period,
        individual=individual,
        query="count",
        value=None,
        weight=None,
        period_unit=period_unit,
        aggregate=1,
    )
    t = int(per_labels.size)
    if t < 2:
        raise PrivriskError(
            f"--period: column {period!r} has {t} period; the method needs at least two databases"
        )
    _check_k(k, t)
    frame = table.reset_index(drop=True)
    full = np.empty(t)
    ind, per, ans = [], [], []
    for s in range(t):
        rows_s = np.flatnonzero(per_codes == s)
        part = frame.iloc[rows_s]
        full[s] = float(statistic(part))
        present = ind_codes[rows_s]
        for i in np.unique(present):
            rest = part.iloc[np.flatnonzero(present != i)]
            ind.append(i)
            per.append(s)
            ans.append(float(statistic(rest)) if len(rest) else np.nan)
    if not np.all(np.isfinite(full)):
        raise PrivriskError(
            f"statistic: gave no finite answer for period {per_labels[np.flatnonzero(~np.isfinite(full))[0]]}"
        )
    ind, per, ans = np.asarray(ind), np.asarray(per), np.asarray(ans, dtype=float)
    order = np.lexsort((per, ind))
    ind, per, ans = ind[order], per[order], ans[order]
    n = int(ind_labels.size)
    kk = default_k(t) if k is None else int(k)
    deltas, bound, footprints = _measure(
        ind, per, ans, full, n, eps, density=density, k=kk, chunk_size=2048, progress=None, grid=1024
    )
    keys, sizes = np.unique(ind_codes.astype(np.int64) * t + per_codes, return_counts=True)
    counts = sizes[np.searchsorted(keys, ind.astype(np.int64) * t + per)].astype(float)
    pairs = _Pairs(
        ind, per, counts, np.zeros(ind.size), np.zeros(ind.size), np.zeros(t), np.zeros(t), np.zeros(t)
    )
    return _result(
        pairs, full, ans, deltas, bound, eps, per_labels, ind_labels, kk, density, name, None, 0, footprints
    )


def rolling_privacy(table: pd.DataFrame, *, window: int, step: int | None = None, **kwargs) -> pd.DataFrame:
    """:func:`empirical_privacy` on windows of ``window`` consecutive periods (004 §2: secular change).

    Args:
        window: periods per window (at least 3); ``step`` periods between window starts (default window // 2).
        kwargs: as for :func:`empirical_privacy` (``period`` is required).

    Returns:
        One row per window and ε: ``first``, ``last`` (period labels), ``periods``, ``epsilon``, ``delta``,
        ``total_risk``, ``worst_individual``.
    """
    period = kwargs["period"]
    unit = kwargs.get("period_unit")
    per = _periods(table, period, unit)
    if per.isna().any():
        raise PrivriskError(f"--period: column {period!r} has {int(per.isna().sum()):,} missing values")
    labels = np.sort(per.unique())
    t = labels.size
    if window < 3 or window > t:
        raise PrivriskError(f"--window: must be between 3 and the number of periods ({t}), got {window}")
    step = max(1, window // 2) if step is None else int(step)
    if step < 1:
        raise PrivriskError(f"--step: must be at least 1, got {step}")
    frames = []
    for start in range(0, t - window + 1, step):
        chosen = labels[start : start + window]
        sub = table.loc[per.isin(chosen).to_numpy()]
        result = empirical_privacy(sub, **kwargs)
        part = result.summary.copy()
        part.insert(0, "periods", window)
        part.insert(0, "last", chosen[-1])
        part.insert(0, "first", chosen[0])
        frames.append(part)
    return pd.concat(frames, ignore_index=True)


# --- Chicago Food Inspections: a generator in the real schema, and the paper's cleaning (004 §5) -------------------

CHICAGO_COLUMNS = ("Inspection ID", "License #", "Inspection Date", "Inspection Type", "Results")


def chicago_like(
    establishments: int = 32036, months: int = 117, *, start: str = "2010-01-01", seed: int = 0
) -> pd.DataFrame:
    """Inspection-like data in the schema of the Chicago Food Inspections file (004 §5), for testing and demos.

    Each establishment has its own failure propensity (Beta distributed) and is inspected at random times:
    a licence inspection when it opens, canvass inspections about once a year, and occasional complaints. Each
    month has its own inspection climate (a random shift of every failure odds), so the monthly failure rate
    varies the way real series do. A failure is followed within weeks by a re-inspection that usually passes;
    a few inspections end as "Out of Business", "No Entry" or "Pass w/ Conditions".

    Example:
        >>> df = chicago_like(200, 24, seed=1)
        >>> list(df.columns) == list(CHICAGO_COLUMNS), bool(df["Results"].isin(["Pass", "Fail"]).mean() > 0.7)
        (True, True)
    """
    rng = np.random.default_rng(seed)
    first = pd.Timestamp(start)
    days = int((first + pd.DateOffset(months=months) - first).days)
    propensity = rng.beta(2.0, 8.0, establishments)
    opening = np.where(rng.random(establishments) < 0.6, 0, rng.integers(0, days, establishments))
    span = days - opening
    canvass = rng.poisson(span / 365.0 * 0.4)
    complaint = rng.poisson(span / 365.0 * 0.15)
    owner = np.concatenate(
        [
            np.arange(establishments),
            np.repeat(np.arange(establishments), canvass),
            np.repeat(np.arange(establishments), complaint),
        ]
    )
    kind = np.concatenate(
        [
            np.full(establishments, "License"),
            np.full(int(canvass.sum()), "Canvass"),
            np.full(int(complaint.sum()), "Complaint"),
        ]
    )
    day = opening[owner] + (rng.random(owner.size) * span[owner]).astype(np.int64)
    day[:establishments] = opening
    month_index = np.array(
        [
            (first + pd.Timedelta(days=int(d))).year * 12 + (first + pd.Timedelta(days=int(d))).month
            for d in range(days)
        ]
    )
    month_index -= month_index[0]
    climate = rng.normal(0.0, 0.3, months + 1)
    logit = np.log(propensity[owner] / (1 - propensity[owner])) + climate[month_index[day]]
    logit += np.where(kind == "Complaint", 0.6, 0.0)
    fail = rng.random(owner.size) < 1.0 / (1.0 + np.exp(-logit))
    results = np.where(fail, "Fail", np.where(rng.random(owner.size) < 0.12, "Pass w/ Conditions", "Pass"))
    odd = rng.random(owner.size)
    results = np.where(odd < 0.03, "Out of Business", np.where(odd < 0.045, "No Entry", results))
    failed = results == "Fail"
    re_owner = owner[failed]
    re_day = np.minimum(day[failed] + rng.integers(7, 35, re_owner.size), days - 1)
    re_kind = np.char.add(kind[failed].astype(str), " Re-Inspection")
    re_results = np.where(rng.random(re_owner.size) < 0.85, "Pass", "Fail")
    all_owner = np.concatenate([owner, re_owner])
    all_day = np.concatenate([day, re_day])
    frame = pd.DataFrame(
        {
            "License #": 1_000_000 + all_owner,
            "Inspection Date": first + pd.to_timedelta(all_day, unit="D"),
            "Inspection Type": np.concatenate([kind.astype(str), re_kind]),
            "Results": np.concatenate([results, re_results]),
        }
    )
    frame = frame.sort_values(["Inspection Date", "License #"], kind="stable").reset_index(drop=True)
    frame.insert(0, "Inspection ID", np.arange(1, len(frame) + 1) + 100_000)
    return frame


def chicago_clean(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The cleaning of 004 §5: drop re-inspections and outcomes other than Pass and Fail; add ``failed``, ``month``.

    Kept: inspections triggered by licensing, canvassing or complaints (``Inspection Type`` containing "license",
    "canvass" or "complaint" and not "re-insp"/"reinsp"); results "Pass", "Pass w/ Conditions" (a pass) and
    "Fail". Rows without a licence number (missing or 0, as in the real file) cannot be attributed and are
    dropped. Returns the cleaned rows and how many rows each step dropped.

    Example:
        >>> clean, dropped = chicago_clean(chicago_like(100, 12, seed=2))
        >>> set(clean["Results"]) <= {"Pass", "Fail", "Pass w/ Conditions"}, sorted(dropped)
        (True, ['no licence', 're-inspection or other type', 'result not pass or fail'])
    """
    missing = [
        c for c in ("License #", "Inspection Date", "Inspection Type", "Results") if c not in frame.columns
    ]
    if missing:
        raise PrivriskError(
            f"--preset chicago: the file lacks the column(s) {', '.join(map(repr, missing))} of the Chicago "
            "Food Inspections schema"
        )
    kind = frame["Inspection Type"].astype("string").str.lower().fillna("")
    primary = kind.str.contains("license|licence|canvass|complaint", regex=True) & ~kind.str.contains(
        "re-insp|reinsp|re insp", regex=True
    )
    result = frame["Results"].astype("string").str.strip().str.lower().fillna("")
    passfail = result.isin(["pass", "fail", "pass w/ conditions"])
    licence = pd.to_numeric(frame["License #"], errors="coerce")
    has_licence = licence.notna() & (licence != 0)
    dropped = {
        "re-inspection or other type": int((~primary).sum()),
        "result not pass or fail": int((primary & ~passfail).sum()),
        "no licence": int((primary & passfail & ~has_licence).sum()),
    }
    keep = (primary & passfail & has_licence).to_numpy()
    clean = frame.loc[keep].copy()
    clean["License #"] = licence[keep].astype(np.int64)
    clean["failed"] = (result[keep] == "fail").astype(float).to_numpy()
    try:
        dates = pd.to_datetime(clean["Inspection Date"], errors="raise")
    except (ValueError, TypeError) as exc:
        raise PrivriskError(f"--preset chicago: 'Inspection Date' is not a date ({exc})") from None
    clean["month"] = dates.dt.to_period("M").dt.start_time
    return clean, dropped


def _warn_dependence(independence: pd.DataFrame | None, level: float = 0.05) -> None:
    if independence is not None and float(independence["p_value"].iloc[-1]) < level:
        warnings.warn(
            "the answers are autocorrelated (Ljung–Box p = "
            f"{float(independence['p_value'].iloc[-1]):.3g}); the databases are not independent draws, so δ may "
            "be understated: merge periods with aggregate/--aggregate",
            PrivacyLeakWarning,
            stacklevel=3,
        )


# --------------------------------------------------------------------------------------------------- Spark


def _empirical_spark(table, *, period, individual, query, value, weight, eps, density, k, period_unit,
                     aggregate, lags, noise, draws, seed, chunk_size, grid, master,
                     deltas_path) -> EmpiricalPrivacy:  # fmt: skip
    """The Spark path of :func:`empirical_privacy`: the aggregation and the δᵢ run in Spark, the rest is shared."""
    from privrisk.io.engine import spark_pairs, spark_session

    if query not in EMPIRICAL_QUERIES:
        raise PrivriskError(f"--query: unknown query {query!r}; choose one of {', '.join(EMPIRICAL_QUERIES)}")
    if query != "count" and value is None:
        raise PrivriskError(f"--value: the {query} query needs a --value column")
    if weight is not None and query != "rate":
        raise PrivriskError("--weight: only the rate query takes a weight")
    if period_unit is not None and period_unit not in PERIOD_UNITS:
        raise PrivriskError(
            f"--period-unit: unknown unit {period_unit!r}; choose one of {', '.join(PERIOD_UNITS)}"
        )
    if aggregate < 1:
        raise PrivriskError(f"--aggregate: must be at least 1, got {aggregate}")
    source = table
    if isinstance(table, pd.DataFrame):
        source = spark_session(master).createDataFrame(table)
    raw = spark_pairs(source, period=period, individual=individual, value=value if query != "count" else None,
                      weight=weight, period_unit=period_unit, master=master)  # fmt: skip
    if raw["individual"].isna().any():
        raise PrivriskError(
            f"--individual: column {individual!r} has missing ids; every row must belong to an individual"
        )
    if raw["period"].isna().any():
        raise PrivriskError(f"--period: column {period!r} has missing values")
    bad = int(raw["__bad"].sum())
    if bad:
        raise PrivriskError(f"--value: {bad:,} missing or infinite values in {value!r} or {weight!r}")
    if weight is not None and (raw["__weight"] < 0).any():
        raise PrivriskError(f"--weight: column {weight!r} has negative weights")
    per_codes, per_labels = pd.factorize(raw["period"], sort=True)
    dropped = 0
    if aggregate > 1:
        t_raw = per_labels.size
        whole = (t_raw // aggregate) * aggregate
        dropped = t_raw - whole
        raw = raw[per_codes < whole]
        per_codes = per_codes[per_codes < whole] // aggregate
        per_labels = per_labels[:whole:aggregate]
    ind_codes, ind_labels = pd.factorize(raw["individual"], sort=True)
    t = int(per_labels.size)
    _check_periods(t, period, k)
    pairs = _aggregate_pairs(ind_codes, per_codes, raw["__rows"].to_numpy(float), raw["__value"].to_numpy(float),
                             raw["__weight"].to_numpy(float), t)  # fmt: skip
    full, answer = _checked_answers(query, pairs, per_labels)
    draws_ = _noise_draws(noise, t, draws, seed)
    kk = default_k(t if draws_ is None else t * draws_.shape[1]) if k is None else int(k)
    n = int(ind_labels.size)
    deltas, bound, footprints = _measure_spark(pairs, answer, full, n, eps, density=density, k=kk,
                                               chunk_size=chunk_size, grid=grid, noise=draws_, master=master,
                                               labels=ind_labels, deltas_path=deltas_path)  # fmt: skip
    result = _result(pairs, full, answer, deltas, bound, eps, per_labels, ind_labels, kk, density, query, lags,
                     dropped, footprints)  # fmt: skip
    result.noise = noise
    return result


def _aggregate_pairs(ind_codes, per_codes, rows, value, weight, t: int) -> _Pairs:
    """:func:`_aggregate` over rows that are already partial sums (``rows`` records each)."""
    key = ind_codes.astype(np.int64) * t + per_codes
    uniq, inverse = np.unique(key, return_inverse=True)
    return _Pairs(
        individual=uniq // t,
        period=uniq % t,
        rows=np.bincount(inverse, weights=rows),
        value=np.bincount(inverse, weights=value),
        weight=np.bincount(inverse, weights=weight),
        totals_rows=np.bincount(per_codes, weights=rows, minlength=t),
        totals_value=np.bincount(per_codes, weights=value, minlength=t),
        totals_weight=np.bincount(per_codes, weights=weight, minlength=t),
    )


def _measure_spark(pairs: _Pairs, answer, full, n, eps, *, density, k, chunk_size, grid, noise, master, labels,
                   deltas_path):  # fmt: skip
    """δᵢ on Spark: one representative per footprint (as locally), chunks of them measured by :func:`_measure`."""
    from privrisk.io.engine import spark_map_groups, spark_session

    reps, group = _footprints(pairs.individual, pairs.period, answer, n)
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
        d, b, _ = _measure(local.astype(np.int64), part["period"].to_numpy(np.int64), part["answer"].to_numpy(float),
                           full_, ids.size, eps_, density=density, k=k, chunk_size=per_chunk, progress=None,
                           grid=grid, noise=noise)  # fmt: skip
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
    return deltas[group], bound, reps.size
