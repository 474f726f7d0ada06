"""The inputs of an empirical-privacy measurement: queries, the table of records coded by period and individual.

Every check of :func:`~privrisk.empirical.measure.empirical_privacy`'s table and options is here; each error names
the parameter that was wrong (``weight: column 'w' has negative weights``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk._validation import check_choice, check_k, check_whole
from privrisk.empirical.periods import merge_periods, period_values
from privrisk.errors import PrivriskError

__all__ = ["EMPIRICAL_QUERIES", "EmpiricalQuery", "query_spec"]

EmpiricalQuery = Literal["count", "sum", "mean", "rate"]
EMPIRICAL_QUERIES: tuple[EmpiricalQuery, ...] = ("count", "sum", "mean", "rate")

QuerySpec = tuple[str, str | None, str | None]


def check_query(query: Any) -> EmpiricalQuery:
    """One of :data:`EMPIRICAL_QUERIES`."""
    return check_choice(query, EMPIRICAL_QUERIES, name="query")


def query_spec(text: str, name: str = "joint") -> QuerySpec:
    """Read ``QUERY[:VALUE[/WEIGHT]]``: ``count``, ``sum:hours``, ``mean:hours``, ``rate:failed/inspected``.

    Args:
        text: the specification.
        name: the parameter it was given as (``joint``, ``condition_on``), for the error message.

    Example:
        >>> query_spec("rate:failed/inspected"), query_spec("count")
        (('rate', 'failed', 'inspected'), ('count', None, None))
    """
    head, _, rest = str(text).partition(":")
    query = head.strip().lower()
    if query not in EMPIRICAL_QUERIES:
        raise PrivriskError(
            f"{name}: {text!r} is not a query; write QUERY[:VALUE[/WEIGHT]] with QUERY one of "
            f"{', '.join(EMPIRICAL_QUERIES)}",
            param=name,
        )
    value_text, _, weight_text = rest.partition("/")
    value, weight = value_text.strip() or None, weight_text.strip() or None
    if query != "count" and value is None:
        raise PrivriskError(
            f"{name}: the {query} query needs a value column, e.g. {query}:COLUMN", param=name
        )
    if weight is not None and query != "rate":
        raise PrivriskError(f"{name}: only the rate query takes a weight", param=name)
    return query, value, weight


def check_query_columns(query: str, value: str | None, weight: str | None) -> None:
    """The columns a query needs: a value for all but ``count``; a weight only for ``rate``."""
    if query != "count" and value is None:
        raise PrivriskError(f"value: the {query} query needs a value column", param="value")
    if weight is not None and query != "rate":
        raise PrivriskError("weight: only the rate query takes a weight", param="weight")


def check_periods(t: int, period: str, k: Any) -> None:
    """At least two databases, and 1 ≤ k < t where k is given."""
    if t < 2:
        raise PrivriskError(
            f"period: column {period!r} has {t} period{'s' if t != 1 else ''}; "
            "the method compares distributions over at least two databases",
            param="period",
        )
    if k is None:
        return
    try:
        check_k(k, name="k", below=t)
    except PrivriskError:
        raise PrivriskError(
            f"k: must be between 1 and t − 1 = {t - 1} (there are {t} periods), got {k}", param="k"
        ) from None


def numeric_column(series: pd.Series, param: str) -> np.ndarray:
    """A column as finite floats (booleans as 0/1); ``param`` names the parameter that chose it."""
    if series.dtype == bool:
        series = series.astype(float)
    try:
        values = pd.to_numeric(series, errors="raise").to_numpy(dtype=float)
    except (ValueError, TypeError):
        raise PrivriskError(f"{param}: column {series.name!r} is not numeric", param=param) from None
    bad = ~np.isfinite(values)
    if bad.any():
        raise PrivriskError(
            f"{param}: column {series.name!r} has {int(bad.sum()):,} missing or infinite values", param=param
        )
    return values


def noise_draws(noise: float | None, t: int, draws: int, seed: int | None) -> np.ndarray | None:
    """Laplace noise of scale ``noise`` for every database, ``draws`` per database (t, draws); None without noise."""
    if noise is None:
        return None
    if not np.isfinite(noise) or noise < 0:
        raise PrivriskError(
            f"noise: the Laplace scale must be a finite number ≥ 0, got {noise}", param="noise"
        )
    draws = check_whole(draws, name="draws", minimum=1)
    if seed is not None:
        seed = check_whole(seed, name="seed")
    return np.random.default_rng(seed).laplace(0.0, noise, (t, draws)) if noise > 0 else np.zeros((t, draws))


@dataclass(frozen=True, eq=False)
class Coded:
    """The records coded by period (0…t − 1, sorted) and individual (0…n − 1, by first appearance)."""

    per_codes: np.ndarray
    per_labels: Any
    ind_codes: np.ndarray
    ind_labels: Any
    values: np.ndarray
    weights: np.ndarray
    dropped: int = 0
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def t(self) -> int:
        return len(self.per_labels)

    @property
    def n(self) -> int:
        return len(self.ind_labels)


def _check_column(table: pd.DataFrame, param: str, column: str | None) -> None:
    if column is not None and column not in table.columns:
        raise PrivriskError(
            f"{param}: no column {column!r}; columns are {', '.join(map(str, table.columns))}", param=param
        )


def prepare(
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
) -> Coded:
    """Check the columns and code periods and individuals (``query`` is checked already: :func:`check_query`).

    ``extra``: (parameter, column) pairs of further numeric columns (of ``joint`` and ``condition_on``), returned
    in :attr:`Coded.extras` by column.
    """
    for param, column in (
        ("period", period),
        ("individual", individual),
        ("value", value),
        ("weight", weight),
    ):
        _check_column(table, param, column)
    check_query_columns(query, value, weight)
    ids = table[individual]
    if ids.isna().any():
        raise PrivriskError(
            f"individual: column {individual!r} has {int(ids.isna().sum()):,} missing ids; "
            "every row must belong to an individual",
            param="individual",
        )
    per = period_values(table, period, period_unit)
    if per.isna().any():
        raise PrivriskError(
            f"period: column {period!r} has {int(per.isna().sum()):,} missing values", param="period"
        )
    values = np.zeros(len(table))
    if value is not None and query != "count":
        values = numeric_column(table[value], "value")
    weights = np.ones(len(table))
    if weight is not None:
        weights = numeric_column(table[weight], "weight")
        if np.any(weights < 0):
            raise PrivriskError(f"weight: column {weight!r} has negative weights", param="weight")
    extras = {}
    for param, column in extra:
        _check_column(table, param, column)
        extras[column] = numeric_column(table[column], param)
    per_codes, per_labels = pd.factorize(per, sort=True)
    ind_codes, ind_labels = pd.factorize(ids, sort=False)
    per_codes, per_labels, keep, dropped = merge_periods(per_codes, per_labels, aggregate)
    if dropped or not keep.all():
        ind_codes, values, weights = ind_codes[keep], values[keep], weights[keep]
        extras = {c: a[keep] for c, a in extras.items()}
        # Individuals seen only in the periods dropped are gone: number the others afresh.
        ind_codes, ind_labels = pd.factorize(ind_labels[ind_codes], sort=False)
    return Coded(per_codes, per_labels, ind_codes, ind_labels, values, weights, dropped, extras)
