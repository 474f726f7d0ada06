"""Rolling windows over the sequence of databases: empirical privacy measured window by window.

Burchard and Daoud (2022, §2) ask for databases drawn independently from one distribution, and name the two ways
a time series breaks that assumption, with a remedy for each:

- **autocorrelation**: measure it (:func:`~privrisk.empirical.periods.ljung_box`); when it is significant,
  aggregate consecutive databases into longer periods (``aggregate``,
  :func:`~privrisk.empirical.periods.merge_periods`). :func:`~privrisk.empirical.measure.empirical_privacy` warns
  with :class:`~privrisk.errors.DependenceWarning` when the test finds dependence; these live in
  :mod:`privrisk.empirical.periods`;
- **secular change**: repeat the analysis on windows wide enough to be valid and narrow enough to avoid the
  change (:func:`rolling_privacy`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import check_whole
from privrisk.empirical.measure import empirical_privacy
from privrisk.empirical.periods import period_values, quiet_dependence
from privrisk.errors import PrivriskError

__all__ = ["rolling_privacy"]


def rolling_privacy(
    table: pd.DataFrame,
    *,
    window: int,
    step: int | None = None,
    progress: Callable[[int], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """:func:`~privrisk.empirical.measure.empirical_privacy` on windows of ``window`` consecutive periods.

    Secular change (Burchard and Daoud 2022, §2): δ on windows shows whether the privacy of the statistic drifts.
    The windows are parts of one table, so their autocorrelation is not warned about again.

    Args:
        window: periods per window (at least 3); ``step`` periods between window starts (default window // 2).
        progress: called with 1 after each window is measured (for a progress display).
        kwargs: as for :func:`~privrisk.empirical.measure.empirical_privacy` (``period`` is required).

    Returns:
        One row per window and ε: ``first``, ``last`` (period labels), ``periods``, ``epsilon``, ``delta``,
        ``total_risk``, ``worst_individual``.

    Example:
        >>> rng = np.random.default_rng(3)
        >>> df = pd.DataFrame({"m": np.repeat(np.arange(12), 8), "id": rng.integers(0, 20, 96)})
        >>> w = rolling_privacy(df, window=6, period="m", individual="id", query="count", epsilons=[1.0])
        >>> w["first"].tolist(), w["last"].tolist()
        ([0, 3, 6], [5, 8, 11])
    """
    period = kwargs["period"]
    per = period_values(table, period, kwargs.get("period_unit"))
    if per.isna().any():
        raise PrivriskError(
            f"period: column {period!r} has {int(per.isna().sum()):,} missing values", param="period"
        )
    labels = np.sort(per.unique())
    t = labels.size
    if not 3 <= window <= t:
        raise PrivriskError(
            f"window: must be between 3 and the number of periods ({t}), got {window}", param="window"
        )
    step = max(1, window // 2) if step is None else check_whole(step, name="step", minimum=1)
    frames = []
    for start in range(0, t - window + 1, step):
        chosen = labels[start : start + window]
        sub = table.loc[per.isin(chosen).to_numpy()]
        with quiet_dependence():
            result = empirical_privacy(sub, **kwargs)
        if progress is not None:
            progress(1)
        part = result.summary.copy()
        part.insert(0, "periods", window)
        part.insert(0, "last", chosen[-1])
        part.insert(0, "first", chosen[0])
        frames.append(part)
    return pd.concat(frames, ignore_index=True)
