"""Δf, the global sensitivity of a query over a data universe: closed forms (Allmann et al. 2024, eq. 2).

Neighbours are unbounded by default (add or remove one record, never leaving an empty database);
``neighbours="bounded"`` replaces one record and keeps the size n. Every closed form is checked in the tests
against brute-force enumeration over small universes.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import Query, check_choice, check_whole
from privrisk.errors import PrivriskError
from privrisk.sensitivity.queries import NEIGHBOURS, Neighbours, _query
from privrisk.sensitivity.universe import Universe, as_universe

__all__ = ["global_sensitivity"]


def global_sensitivity(
    query: Query | str,
    universe: Universe | tuple[float, float] | ArrayLike,
    *,
    neighbours: Neighbours = "unbounded",
    n: int | None = None,
) -> float:
    """Δf, the global sensitivity of a query over a data universe: Allmann et al., eq. (2).

    Unbounded neighbours (add or remove one record, databases never empty; R = hi − lo):
    count 1, sum max(|lo|, |hi|), mean R/2, median R/2, min and max R, variance R²/4, std R/2.

    Bounded neighbours (replace one record in a database of n records; n must be given):
    count 0, sum R, mean R/n, median R for odd n and R/2 for even n (a replacement moves the middle pair only
    half-way), min and max R, variance (n − 1)·R²/n², std R·√(n − 1)/n. (For the variance: the n − 1 shared
    records with mean μ and variance s² give ((n − 1)/n)·(s² + (y − μ)²/n) with the new record y, so the change is
    (n − 1)/n²·|(y − μ)² − (y′ − μ)²| ≤ (n − 1)R²/n², reached when all shared records sit at one end.)

    For the variance over the data set of Allmann et al., Table 1 ({1, 3, 10, 17, 675}), this is R²/4 =
    (674/2)² = 113569, the value they print; their variance example around it (1838.75, 76737, 111730.25) does
    not follow from that data set (docs/errata.md).

    Args:
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        universe: a :class:`Universe`, a ``(lo, hi)`` tuple, or an array of the universe's values.
        neighbours: ``"unbounded"`` (default) or ``"bounded"``.
        n: the database size, required for bounded neighbours.

    Example:
        >>> u = Universe.from_values([1, 3, 10, 17, 675])
        >>> global_sensitivity("mean", u), global_sensitivity("variance", u)    # Allmann et al., §3.2
        (337.0, 113569.0)
        >>> global_sensitivity("median", (0, 10), neighbours="bounded", n=4)
        5.0
    """
    q = _query(query)
    u = as_universe(universe)
    nb = check_choice(neighbours, NEIGHBOURS, name="neighbours")
    r = u.width
    if nb == "unbounded":
        return float(
            {
                "count": 1.0,
                "sum": max(abs(u.lo), abs(u.hi)),
                "mean": r / 2,
                "median": r / 2,
                "min": r,
                "max": r,
                "variance": r * r / 4,
                "std": r / 2,
            }[q]
        )
    if n is None:
        raise PrivriskError("n: bounded neighbours keep the database size fixed; give n")
    size = check_whole(n, name="n", minimum=1)
    return float(
        {
            "count": 0.0,
            "sum": r,
            "mean": r / size,
            "median": r if size % 2 else r / 2,
            "min": r,
            "max": r,
            "variance": (size - 1) * r * r / (size * size),
            "std": r * np.sqrt(size - 1) / size,
        }[q]
    )
