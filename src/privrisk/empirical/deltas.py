"""The core of empirical differential privacy: per-(period, individual) aggregates, δᵢ per footprint, the result.

What :func:`privrisk.empirical.measure.empirical_privacy` and its Spark path (:mod:`privrisk.empirical._spark`)
share: the aggregates of every (period, individual) pair (:class:`Pairs`, :func:`aggregate_pairs`), the answers
without each individual (:func:`answers`, :func:`without_answers`, :func:`checked_answers`), the grouping of
individuals with the same footprint (:func:`footprints`), δᵢ(ε) from the hockey-stick divergence
(:func:`measure_deltas`, Burchard and Daoud 2022, Theorem 1), the total risk δ* (:func:`total_risk`,
Definition 3) and the result (:func:`build_result`). Both paths import it; neither imports the other's module
at its top, so the subpackage has no import circle.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privrisk.empirical.density import hockey_stick_delta, joint_hockey_stick_delta
from privrisk.empirical.periods import ljung_box
from privrisk.empirical.result import EmpiricalPrivacy, delta_column
from privrisk.errors import PrivriskError

__all__ = [
    "Pairs",
    "aggregate_pairs",
    "answers",
    "build_result",
    "check_weights",
    "checked_answers",
    "footprints",
    "measure_deltas",
    "total_risk",
    "without_answers",
]


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
