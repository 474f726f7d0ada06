"""Data universes: the values a record may take, an interval [lo, hi] or a finite set (Allmann et al. 2024, §3.2).

Example:
    >>> u, how = choose_universe([1, 3, 10, 17, 675], universe_min=0)
    >>> u.lo, u.size, how
    (0.0, 6, "the column's own 5 distinct values (as Allmann et al., §3.2 do), with its minimum set to 0")
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import parse_bounds
from privrisk.errors import PrivriskError

__all__ = ["Universe", "as_universe", "choose_universe"]


@dataclass(frozen=True)
class Universe:
    """The values a record may take: an interval [lo, hi] or a finite set of values.

    Allmann et al. (§3.2) take every valid value of a variable as its universe (``from_values``); a
    questionnaire item with known limits (hours per day: 0 to 24) is an interval (``from_bounds``), from which any
    real value may join.

    Example:
        >>> u = Universe.from_values([675, 1, 3, 10, 17, 3])
        >>> u.lo, u.hi, u.size
        (1.0, 675.0, 5)
        >>> Universe.from_bounds(0, 24)
        Universe.from_bounds(0, 24)
    """

    lo: float
    hi: float
    values: np.ndarray | None = None  # sorted unique values for a finite set; None for an interval

    def __post_init__(self) -> None:
        # ±1e308 are finite but their distance is not: a sensitivity that overflows would read as a smaller risk
        if np.isfinite(self.lo) and np.isfinite(self.hi) and not np.isfinite(self.hi - self.lo):
            raise PrivriskError(
                f"universe: the width {self.hi:g} − ({self.lo:g}) overflows a float, so no sensitivity "
                "(and no risk) can be computed; rescale the values",
                param="universe",
            )

    @classmethod
    def from_bounds(cls, lo: float, hi: float) -> Universe:
        """Every real number in [lo, hi]."""
        lo, hi = float(lo), float(hi)
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise PrivriskError(f"universe: bounds must be finite numbers, got [{lo}, {hi}]")
        if lo > hi:
            raise PrivriskError(f"universe: lower bound {lo:g} is above the upper bound {hi:g}")
        return cls(lo, hi, None)

    @classmethod
    def from_values(cls, values: ArrayLike) -> Universe:
        """The finite set of the given values (duplicates and order do not matter)."""
        arr = np.asarray(values, dtype=float).ravel()
        if arr.size == 0:
            raise PrivriskError("universe: no values given")
        if np.any(~np.isfinite(arr)):
            raise PrivriskError("universe: values must be finite numbers (drop missing values first)")
        uniq = np.unique(arr)
        return cls(float(uniq[0]), float(uniq[-1]), uniq)

    @property
    def is_interval(self) -> bool:
        return self.values is None

    @property
    def size(self) -> int | float:
        """The number of distinct values (infinite for an interval with lo < hi)."""
        if self.values is None:
            return 1 if self.lo == self.hi else float("inf")
        return int(self.values.size)

    @property
    def width(self) -> float:
        """R = hi − lo."""
        return self.hi - self.lo

    def with_min(self, lo: float) -> Universe:
        """The same universe with its minimum lowered to ``lo`` (Allmann et al., §4.2: 0 where 0 is a valid answer).

        Raises:
            PrivriskError: if ``lo`` is above the smallest value; its parameter is ``universe_min``, the name the
                sampling study and the command line give this minimum.
        """
        if lo > self.lo:
            raise PrivriskError(
                f"universe_min: {lo:g} is above the smallest value {self.lo:g} of the universe",
                param="universe_min",
            )
        if self.values is None:
            return Universe.from_bounds(lo, self.hi)
        return Universe.from_values(np.concatenate([[lo], self.values]))

    def nearest(self, x: ArrayLike) -> np.ndarray:
        """The universe value nearest to each x (for an interval: x clipped to [lo, hi])."""
        x = np.asarray(x, dtype=float)
        if self.values is None:
            return np.clip(x, self.lo, self.hi)
        vals = self.values
        idx = np.clip(np.searchsorted(vals, x), 1, max(vals.size - 1, 1))
        if vals.size == 1:
            return np.full_like(x, vals[0])
        left, right = vals[idx - 1], vals[idx]
        return np.where(np.abs(x - left) <= np.abs(right - x), left, right)

    def check_sample(self, sample: ArrayLike, *, name: str = "sample") -> None:
        """Raise if any sample value lies outside the universe."""
        arr = np.asarray(sample, dtype=float)
        if arr.size == 0:
            return
        if np.any(~np.isfinite(arr)):
            raise PrivriskError(f"{name}: contains NaN or infinite values; drop missing values first")
        if self.values is None:
            bad = arr[(arr < self.lo) | (arr > self.hi)]
        else:
            bad = arr[~np.isin(arr, self.values)]
        if bad.size:
            raise PrivriskError(
                f"{name}: value {bad.flat[0]:g} lies outside the universe {self.describe()}"
                + (f" ({bad.size} values in all)" if bad.size > 1 else "")
            )

    def describe(self) -> str:
        """A short description such as ``[0, 24]`` or ``{5 values from 1 to 675}``."""
        if self.values is None:
            return f"[{self.lo:g}, {self.hi:g}]"
        return f"{{{self.values.size} values from {self.lo:g} to {self.hi:g}}}"

    def __repr__(self) -> str:
        if self.values is None:
            return f"Universe.from_bounds({self.lo:g}, {self.hi:g})"
        return f"Universe.from_values(<{self.values.size} values from {self.lo:g} to {self.hi:g}>)"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Universe):
            return NotImplemented
        if self.values is None or other.values is None:
            same_values = self.values is None and other.values is None
        else:
            same_values = np.array_equal(self.values, other.values)
        return self.lo == other.lo and self.hi == other.hi and same_values

    def __hash__(self) -> int:
        return hash((self.lo, self.hi, None if self.values is None else self.values.tobytes()))


def as_universe(universe: Universe | tuple[float, float] | ArrayLike) -> Universe:
    """A :class:`Universe` from a universe, a ``(lo, hi)`` tuple (an interval) or the universe's values.

    Example:
        >>> as_universe((0, 24)), as_universe([3, 1, 3])
        (Universe.from_bounds(0, 24), Universe.from_values(<2 values from 1 to 3>))
    """
    if isinstance(universe, Universe):
        return universe
    if isinstance(universe, tuple) and len(universe) == 2:
        return Universe.from_bounds(*universe)
    return Universe.from_values(universe)


def choose_universe(
    values: ArrayLike,
    universe: str | tuple[float, float] | None = None,
    universe_file: str | os.PathLike[str] | None = None,
    universe_column: str | None = None,
    universe_min: float | None = None,
    missing: str | None = None,
) -> tuple[Universe, str]:
    """The universe a user chose, and a sentence saying which it is (Allmann et al., §3.2 and §4.2).

    One of: ``universe`` bounds (``"LO,HI"`` or a pair), the distinct values of ``universe_column`` in
    ``universe_file`` (read with the missing codes ``missing``), or, by default, the sample's own distinct
    ``values`` (as Allmann et al., §3.2 take all valid values of the variable). ``universe_min`` then lowers the
    minimum (0 where 0 is a valid answer, §4.2).

    Raises:
        PrivriskError: (parameter ``universe``) bounds and a file both given, or bounds that are not LO < HI;
            (``universe_column``) a file without its column.

    Example:
        >>> u, how = choose_universe([1, 3, 10, 17, 675])
        >>> u.size, how
        (5, "the column's own 5 distinct values (as Allmann et al., §3.2 do)")
        >>> choose_universe([1, 3], "0,100", universe_min=-5)[1]
        'the interval [0, 100], with its minimum set to -5'
    """
    if universe is not None and universe_file is not None:
        raise PrivriskError(
            "universe: give either the bounds LO,HI or a universe file, not both", param="universe"
        )
    if universe is not None:
        bounds = parse_bounds(universe, name="universe") if isinstance(universe, str) else universe
        u = Universe.from_bounds(*bounds)
        how = f"the interval {u.describe()}"
    elif universe_file is not None:
        if not universe_column:
            raise PrivriskError(
                "universe_column: name the column of the universe file that holds the universe",
                param="universe_column",
            )
        from privrisk.io.data import read_column

        col = read_column(universe_file, universe_column, missing=missing)
        u = Universe.from_values(col.values)
        how = f"the {u.size:,} distinct values of {universe_column!r} in {universe_file}"
    else:
        u = Universe.from_values(values)
        how = f"the column's own {u.size:,} distinct values (as Allmann et al., §3.2 do)"
    if universe_min is not None:
        u = u.with_min(universe_min)
        how += f", with its minimum set to {universe_min:g}"
    return u, how
