"""How much noise a statistic needs: the smallest Laplace scale that brings the empirical δ under a target.

Burchard and Daoud (2022, §2, end): when a deterministic query is not empirically private enough, a smaller amount
of noise than classical differential privacy would add, combined with the natural randomness of the databases,
can achieve the privacy wanted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import check_epsilons, check_probability
from privrisk.empirical.measure import empirical_privacy
from privrisk.empirical.periods import quiet_dependence

__all__ = ["smallest_noise"]


def smallest_noise(
    table: pd.DataFrame,
    *,
    target_delta: float,
    epsilons: Any = (0.03, 0.1, 0.3),
    steps: int = 12,
    progress: Callable[[int], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """The smallest Laplace scale b that brings the empirical δ(ε) under ``target_delta``, per ε.

    For each ε: b = 0 is tried first; then b doubles from 1 % of the answers' spread until δ ≤ target, and a
    bisection on log b (``steps`` halvings) narrows the bracket. Every evaluation uses the same noise draws
    (``seed``), so δ(b) is a smooth function of b for the search; it is an estimate and need not be monotone, so
    the scale returned is one where δ ≤ target was measured.

    Args:
        table: as for :func:`~privrisk.empirical.measure.empirical_privacy`, and so are ``kwargs`` (``noise``
            is what is searched for, and left out).
        target_delta: the δ wanted, in (0, 1).
        epsilons: the ε at which δ must reach it.
        steps: halvings of the bracket.
        progress: called with 1 after each measurement of δ (for a progress display; their number depends on
            the data).

    Returns:
        One row per ε: ``epsilon``, ``scale`` (the smallest found; NaN if none up to 10⁴ × spread),
        ``delta`` (at that scale), ``delta_without_noise``.

    Example:
        >>> rng = np.random.default_rng(4)
        >>> df = pd.DataFrame({"m": np.repeat(np.arange(30), 10), "id": rng.integers(0, 40, 300),
        ...                    "v": rng.gamma(2.0, 1.0, 300)})
        >>> found = smallest_noise(df, target_delta=0.02, epsilons=[0.1], steps=3, period="m", individual="id",
        ...                        query="mean", value="v", draws=4)
        >>> bool(found["delta"].iloc[0] <= 0.02 < found["delta_without_noise"].iloc[0])
        True
    """
    target_delta = float(check_probability(target_delta, name="target_delta", open_low=True, open_high=True))
    eps = check_epsilons(epsilons, name="epsilons")
    kwargs.pop("noise", None)
    tick = progress or (lambda k: None)
    base = empirical_privacy(table, epsilons=eps, **kwargs)
    tick(1)
    spread = float(np.nanstd(base.series.to_numpy())) or 1.0
    rows = []
    for j, e in enumerate(eps):

        def delta_at(b: float, e: float = float(e)) -> float:
            with quiet_dependence():  # the same answers as ``base``: warned about once
                result = empirical_privacy(table, epsilons=[e], noise=b, **kwargs)
            tick(1)
            return float(result.summary["delta"].iloc[0])

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
