"""The interval of every unknown of a released system, over all of its solutions: :class:`privrisk.outputs.
intervals.Region`'s ends of each unknown, with the equations that bound those asked for and the rank.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privrisk.outputs.extremes import _TOL, Ends
from privrisk.outputs.intervals import Region

__all__ = ["Intervals", "intervals"]

# Every block up to this many unknowns gets all its atoms' intervals exactly; larger blocks only where ``need``
# asks (see :func:`intervals`).
FULL_LIMIT = 200


@dataclass(frozen=True)
class Intervals:
    """The interval [lo, hi] of each unknown, and the equations (rows of A) that bound it.

    ``tight`` marks the intervals known to be exact (both ends); the others are valid but perhaps wider.
    ``rank`` is the rank of A, or -1 where a block was too large to factor. ``points`` are whole solutions other
    than ``known`` met on the way. ``undecided`` marks the unknowns ``need`` still asked for when a budget ran out.
    """

    lo: np.ndarray
    hi: np.ndarray
    rank: int
    witnesses: dict[int, tuple[int, ...]]
    tight: np.ndarray
    points: tuple[np.ndarray, ...] = ()
    undecided: np.ndarray | None = None


def intervals(
    a: sp.csr_matrix,
    b: np.ndarray,
    *,
    integer: bool,
    lower: np.ndarray,
    upper: np.ndarray | None = None,
    explain: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
    full_limit: int = FULL_LIMIT,
    known: np.ndarray | None = None,
    need: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
    with_rank: bool = True,
    reached: tuple[np.ndarray, np.ndarray] | None = None,
) -> Intervals:
    """The interval of every unknown x_j over {x : A·x = b, lower ≤ x ≤ upper, x whole if ``integer``}.

    ``known`` is one solution (the true data). ``need(lo, hi, seen_lo, seen_hi, cols)`` picks, in blocks above
    ``full_limit`` unknowns, the unknowns whose exact interval is wanted (without it, every interval is exact),
    each unknown's answer from its own values alone.
    ``explain(lo, hi, cols)`` picks the unknowns whose determining equations are wanted (``witnesses``).
    ``reached`` = (low, high): values some solution gives each unknown (they certify like ``known``).

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> a = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]]))   # x0+x1=3, x1+x2=4, all = 5
        >>> r = intervals(a, np.array([3., 4., 5.]), integer=True, lower=np.zeros(3))
        >>> r.lo.tolist(), r.hi.tolist()
        ([1.0, 2.0, 2.0], [1.0, 2.0, 2.0])
    """
    a = sp.csr_matrix(a, dtype=float)
    n = a.shape[1]
    region = Region(a, b, lower=lower, upper=upper, integer=np.full(n, integer), known=known)
    cols = np.arange(n)
    big = np.zeros(n, dtype=bool)
    for k, c in region._cols.items():
        if c.size > full_limit and k in region._rows:
            big[c] = True

    def wants(ends: Ends) -> tuple[np.ndarray, np.ndarray]:
        if need is None or not big.any():
            return np.ones(n, bool), np.ones(n, bool)
        s_lo = ends.seen_lo if reached is None else np.minimum(ends.seen_lo, reached[0])
        s_hi = ends.seen_hi if reached is None else np.maximum(ends.seen_hi, reached[1])
        asked = np.asarray(need(ends.lo, ends.hi, s_lo, s_hi, cols), dtype=bool)
        return asked | ~big, asked | ~big

    ends = region.extremes(sp.identity(n, format="csr"), need=wants)
    if reached is not None and region.known is not None:
        ends.lo_exact |= reached[0] <= ends.lo + _TOL
        ends.hi_exact |= reached[1] >= ends.hi - _TOL
    witnesses: dict[int, tuple[int, ...]] = {}
    if explain is not None:
        asked = np.zeros(n, dtype=bool)
        asked[np.asarray(explain(ends.lo, ends.hi, cols), dtype=np.int64)] = True
        for j in np.flatnonzero(asked).tolist():
            used: set[int] = set()
            for sign in (1.0, -1.0):
                *_, rows = region.optimise(np.array([j]), np.array([1.0]), sign)
                used |= rows
            witnesses[j] = tuple(sorted(used))
    tight = ends.lo_exact & ends.hi_exact
    undecided = ends.undecided.copy()
    if need is not None:
        w_lo, w_hi = wants(ends)
        undecided |= (w_lo & ~ends.lo_exact) | (w_hi & ~ends.hi_exact)
        undecided &= big
    rank_ = region.rank() if with_rank else -1
    return Intervals(ends.lo, ends.hi, rank_, witnesses, tight, tuple(region.points), undecided)
