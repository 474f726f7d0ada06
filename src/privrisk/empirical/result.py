"""The result of an empirical-privacy measurement, and the JSON document made from it.

:class:`EmpiricalPrivacy` is frozen: the measuring functions build it once. :meth:`EmpiricalPrivacy.to_dict` is the
document the command ``privrisk empirical`` prints as JSON; labels of periods and individuals become plain JSON
(dates as ISO dates, numpy scalars as numbers).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DEPENDENCE_LEVEL", "EmpiricalPrivacy", "delta_column", "plain_label", "records"]

# A Ljung–Box p-value below this says the answers are autocorrelated (Burchard and Daoud 2022, §2).
DEPENDENCE_LEVEL = 0.05


def delta_column(epsilon: float) -> str:
    """Column name of δᵢ at ε in the individuals table.

    Example:
        >>> delta_column(0.1), delta_column(1 / 3)
        ('delta_0.1', 'delta_0.333333')
    """
    return f"delta_{epsilon:.6g}"


@dataclass(frozen=True, eq=False)
class EmpiricalPrivacy:
    """The result of :func:`~privrisk.empirical.measure.empirical_privacy` (Burchard and Daoud 2022).

    Attributes:
        summary: one row per ε: ``epsilon``, ``delta`` (maxᵢ δᵢ, Definition 2), ``total_risk`` (δ*, Definition 3),
            ``worst_individual``.
        individuals: one row per individual: ``individual``, ``periods`` (how many it appears in), ``rows``,
            ``sole_periods`` (periods with no answer without it) and ``delta_<ε>`` per ε; riskiest first.
        series: the answer f(Xˢ) per period (index: the period).
        without_worst: the answers without ``worst`` (NaN: no answer), for the analogue of Figure 1.
        k: points per local estimate of the densities.
        density: the density estimate (:data:`~privrisk.empirical.density.DENSITIES`).
        query: the query measured (or the name of a callable statistic).
        epsilons: the ε at which δ was measured.
        independence: :func:`~privrisk.empirical.windows.ljung_box` of the series (None: too few periods).
        error_bound: for ``kde-gauss``, the bound on |computed δ − exact δ| per ε (0 otherwise).
        dropped_periods: periods left out by ``aggregate`` (an incomplete last group).
        footprints: distinct (periods, answers-without) footprints, i.e. how many δᵢ were actually computed.
        conditional: with ``condition_on``, one row per bucket: ``bucket``, ``low``, ``high``, ``periods`` and the
            largest δᵢ per ε within it (Definition 4).
        noise: the Laplace scale measured (None: the query as published).
        joint: with ``joint``, the second query's answers per period (named by the query).
        worst: the individual with the largest δᵢ at ``figure_epsilon``.
        figure_epsilon: the ε nearest 0.1, as in Figure 1 of Burchard and Daoud (2022).
        engine: where the aggregation and the δᵢ ran (``duckdb``: this machine; ``spark``).
        condition_on: the adversary's knowledge as given (a column or a query).
        draws: with ``noise``, the noise draws per database.
        seed: with ``noise``, the seed of the draws.
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
    worst: Any = None
    figure_epsilon: float | None = None
    engine: str = "duckdb"
    condition_on: str | None = None
    draws: int | None = None
    seed: int | None = None

    @property
    def periods(self) -> int:
        """The number of databases t."""
        return int(self.series.size)

    @property
    def n_individuals(self) -> int:
        """The number of individuals."""
        return len(self.individuals)

    @property
    def dependent(self) -> bool:
        """Whether the Ljung–Box test finds the answers autocorrelated (p below :data:`DEPENDENCE_LEVEL`)."""
        ind = self.independence
        return ind is not None and float(ind["p_value"].iloc[-1]) < DEPENDENCE_LEVEL

    def top(self, n: int = 10) -> pd.DataFrame:
        """The n riskiest individuals."""
        return self.individuals.head(n)

    def rows(self) -> list[dict[str, Any]]:
        """The summary as plain records: ``epsilon``, ``delta``, ``total_risk``, ``worst_individual``."""
        return records(self.summary, "worst_individual")

    def to_dict(
        self,
        *,
        top: int = 10,
        file: str | None = None,
        preset: str | None = None,
        cleaning: Mapping[str, int] | None = None,
        windows: pd.DataFrame | None = None,
        smallest_noise: pd.DataFrame | None = None,
        target_delta: float | None = None,
        out: str | None = None,
    ) -> dict[str, Any]:
        """The JSON document the command ``privrisk empirical`` prints (without its ``schema_version``).

        Args:
            top: how many of the riskiest individuals to list.
            file: the file measured; ``preset`` and ``cleaning`` (rows dropped per reason) with a preset.
            windows: :func:`~privrisk.empirical.windows.rolling_privacy` of the same table, if run.
            smallest_noise: :func:`~privrisk.empirical.search.smallest_noise` for ``target_delta``, if run.
            out: the folder the outputs were written to, if any.

        Example:
            >>> from privrisk.empirical import empirical_privacy
            >>> rng = np.random.default_rng(0)
            >>> df = pd.DataFrame({"m": np.repeat(np.arange(12), 5), "id": rng.integers(0, 9, 60)})
            >>> doc = empirical_privacy(df, period="m", individual="id", query="count").to_dict(top=2)
            >>> doc["periods"], doc["k"], len(doc["top"]), sorted(doc["rows"][0])
            (12, 3, 2, ['delta', 'epsilon', 'total_risk', 'worst_individual'])
        """
        ind = self.independence
        doc: dict[str, Any] = {
            "file": None if file is None else str(file),
            "preset": preset,
            "query": self.query,
            "periods": self.periods,
            "individuals": self.n_individuals,
            "k": self.k,
            "density": self.density,
            "rows": self.rows(),
            "top": records(self.top(top), "individual"),
            "footprints": self.footprints,
            "appearances": _appearances(self.individuals["periods"]),
            "dropped_periods": self.dropped_periods,
            "independence": None
            if ind is None
            else {
                "lags": int(ind["lag"].iloc[-1]),
                "statistic": float(ind["statistic"].iloc[-1]),
                "p_value": float(ind["p_value"].iloc[-1]),
                "autocorrelation": ind["autocorrelation"].tolist(),
                "significant": self.dependent,
            },
            "error_bound": self.error_bound if self.density == "kde-gauss" else None,
            "cleaning": None if cleaning is None else dict(cleaning),
            "engine": self.engine,
        }
        if windows is not None:
            doc["windows"] = records(windows, "first", "last", "worst_individual")
        if self.joint is not None:
            doc["joint"] = str(self.joint.name)
        if self.conditional is not None:
            doc["condition_on"] = self.condition_on
            doc["conditional"] = self.conditional.to_dict(orient="records")
        if self.noise is not None:
            doc["noise"] = {
                "distribution": "laplace",
                "scale": self.noise,
                "draws": self.draws,
                "seed": self.seed,
            }
        if smallest_noise is not None:
            doc["target_delta"] = target_delta
            doc["smallest_noise"] = smallest_noise.to_dict(orient="records")
        if out is not None:
            doc["out"] = str(out)
        return doc


def plain_label(value: Any) -> Any:
    """A period or individual label as plain JSON: dates as ISO dates, numpy scalars as numbers, else text.

    Example:
        >>> plain_label(pd.Timestamp("2010-01-01")), plain_label(np.int64(7)), plain_label(("a", 1))
        ('2010-01-01', 7, "('a', 1)")
    """
    if isinstance(value, pd.Timestamp | dt.datetime):
        ts = pd.Timestamp(value)
        return ts.date().isoformat() if ts == ts.normalize() else ts.isoformat()
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def records(frame: pd.DataFrame, *labels: str) -> list[dict[str, Any]]:
    """The rows of ``frame`` as dicts, with the ``labels`` columns made plain (:func:`plain_label`)."""
    rows: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in frame.to_dict(orient="records")]
    for row in rows:
        for c in labels:
            row[c] = plain_label(row[c])
    return rows


def _appearances(periods: pd.Series) -> dict[str, Any]:
    """How many periods the individuals appear in (Burchard and Daoud 2022, §2: they should be representative)."""
    return {
        "min": int(periods.min()),
        "median": float(periods.median()),
        "max": int(periods.max()),
        "in_one_period": int((periods == 1).sum()),
    }
