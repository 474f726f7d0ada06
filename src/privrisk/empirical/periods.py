"""The sequence of databases: periods from dates, merged periods, and the Ljung–Box test of dependence.

Burchard and Daoud (2022, §2) ask for databases drawn independently from one distribution. Autocorrelation breaks
that assumption: it is measured (:func:`ljung_box`); when it is significant,
:func:`~privrisk.empirical.measure.empirical_privacy` warns with :class:`~privrisk.errors.DependenceWarning`
(:func:`warn_dependence`) and consecutive databases can be aggregated into longer periods (``aggregate``,
:func:`merge_periods`). The other break, secular change, is met by rolling windows
(:mod:`privrisk.empirical.windows`), which build on the measurement and so sit above it.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk._validation import check_whole
from privrisk.empirical.result import EmpiricalPrivacy
from privrisk.errors import DependenceWarning, PrivriskError

__all__ = [
    "PERIOD_UNITS",
    "PeriodUnit",
    "check_period_unit",
    "ljung_box",
    "merge_periods",
    "period_values",
    "quiet_dependence",
    "warn_dependence",
]

PeriodUnit = Literal["day", "week", "month", "quarter", "year"]
PERIOD_UNITS: dict[str, str] = {"day": "D", "week": "W", "month": "M", "quarter": "Q", "year": "Y"}


def check_period_unit(unit: str | None) -> str | None:
    """``unit`` if it is one of :data:`PERIOD_UNITS` (or None)."""
    if unit is not None and unit not in PERIOD_UNITS:
        raise PrivriskError(
            f"period_unit: unknown unit {unit!r}; choose one of {', '.join(PERIOD_UNITS)}",
            param="period_unit",
        )
    return unit


def period_values(frame: pd.DataFrame, period: str, unit: str | None = None) -> pd.Series:
    """The period of every row: the column itself, or its dates truncated to the start of their ``unit``.

    Example:
        >>> df = pd.DataFrame({"day": ["2020-01-31", "2020-02-01"]})
        >>> period_values(df, "day", "month").dt.strftime("%Y-%m-%d").tolist()
        ['2020-01-01', '2020-02-01']
    """
    col = frame[period]
    if check_period_unit(unit) is None:
        return col
    try:
        dates = pd.to_datetime(col, errors="raise")
    except (ValueError, TypeError) as exc:
        raise PrivriskError(f"period: column {period!r} is not a date ({exc})", param="period") from None
    return dates.dt.to_period(PERIOD_UNITS[str(unit)]).dt.start_time


def merge_periods(
    per_codes: np.ndarray, per_labels: Any, aggregate: int
) -> tuple[np.ndarray, Any, np.ndarray, int]:
    """Merge each ``aggregate`` consecutive periods into one database (Burchard and Daoud 2022, §2).

    Args:
        per_codes: the period code 0…t − 1 of every row, in the order of ``per_labels``.
        per_labels: the t period labels, sorted.
        aggregate: periods per merged database (1: unchanged); an incomplete last group is dropped.

    Returns:
        The merged codes of the rows kept, the labels of the merged periods (the first of each group), the mask of
        the rows kept, and the number of periods dropped.

    Example:
        >>> codes, labels, keep, dropped = merge_periods(np.array([0, 1, 2, 3, 4]), np.arange(5) * 10, 2)
        >>> codes.tolist(), labels.tolist(), keep.tolist(), dropped
        ([0, 0, 1, 1], [0, 20], [True, True, True, True, False], 1)
    """
    aggregate = check_whole(aggregate, name="aggregate", minimum=1)
    keep = np.ones(len(per_codes), dtype=bool)
    if aggregate == 1:
        return per_codes, per_labels, keep, 0
    t = len(per_labels)
    if t >= 2 and t // aggregate < 2:
        raise PrivriskError(
            f"aggregate: merging {aggregate:,} periods into each database leaves {t // aggregate}, but the method "
            f"compares at least two; the data has {t:,} periods (at most {t // 2:,} per database)",
            param="aggregate",
        )
    whole = (t // aggregate) * aggregate
    keep = per_codes < whole
    return per_codes[keep] // aggregate, per_labels[:whole:aggregate], keep, len(per_labels) - whole


def ljung_box(series: Any, lags: int | None = None) -> pd.DataFrame:
    """Autocorrelation ρₖ of a series for lags 1…L and the Ljung–Box statistic Q = t(t + 2) Σₖ ρₖ²/(t − k).

    Burchard and Daoud (2022, §2) ask for independent databases; a significant autocorrelation of the answers says
    they are not (merge periods with ``aggregate``). Under independence Q is χ² with L degrees of freedom (p-value
    from the χ² survival function, ``scipy.special.chdtrc`` = ``scipy.stats.chi2.sf``). L defaults to
    min(10, t // 5).

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
        raise PrivriskError("series: the autocorrelation needs at least three periods", param="series")
    lags = (
        max(1, min(10, t // 5)) if lags is None else check_whole(lags, name="lags", minimum=1, maximum=t - 1)
    )
    centred = x - x.mean()
    denom = float(centred @ centred)
    ks = np.arange(1, lags + 1)
    if denom == 0:
        acf = np.zeros(lags)
    else:
        acf = np.array([float(centred[k:] @ centred[:-k]) / denom for k in ks])
    q = t * (t + 2) * np.cumsum(acf**2 / (t - ks))
    return pd.DataFrame({"lag": ks, "autocorrelation": acf, "statistic": q, "p_value": chdtrc(ks, q)})


def warn_dependence(result: EmpiricalPrivacy, aggregate: int | None = 1, *, stacklevel: int = 3) -> None:
    """Warn (:class:`~privrisk.errors.DependenceWarning`) when the Ljung–Box test of the answers finds dependence.

    With ``aggregate`` (the periods merged so far) the message starts with that parameter, the one that helps,
    and says how many periods to merge.
    """
    if not result.dependent or result.independence is None:
        return
    p = float(result.independence["p_value"].iloc[-1])
    text = (
        f"the answers are autocorrelated (Ljung–Box p = {p:.3g}): the periods are not independent draws, so δ may "
        "be understated; "
    )
    if aggregate is None:
        text += "merge consecutive periods first"
    else:
        text = f"aggregate: {text}merge {max(2, 2 * aggregate)} consecutive periods into one"
    warnings.warn(text, DependenceWarning, stacklevel=stacklevel)


@contextlib.contextmanager
def quiet_dependence() -> Iterator[None]:
    """No :class:`~privrisk.errors.DependenceWarning` inside (measurements on parts of a table already checked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DependenceWarning)
        yield
