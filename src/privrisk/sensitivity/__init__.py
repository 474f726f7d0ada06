"""Queries, data universes and neighbourhoods; exact global and local sensitivity (Allmann et al. 2024, §2.1, §3.2).

Conventions (docs/architecture.md): neighbours are unbounded by default (add or remove one record, never leaving
an empty database); ``neighbours="bounded"`` replaces one record and keeps the size n. The median of an even count is the
mean of the two middle values; the variance is the population variance (ddof = 0) and ``std`` its square root.

Why the exact local sensitivity needs only a handful of candidate neighbours
---------------------------------------------------------------------------
Every query here, evaluated on X ∪ {v}, is either monotone in v (count, sum, mean, median, min, max) or a convex
quadratic in v (variance; std is its square root, so the same points are extreme). The largest |f(X′) − f(X)|
over v in the universe is therefore reached at an end of the universe or, for the variance, at the universe value
nearest the mean (where the variance falls most). Removing a record x works the same way: monotone in x, or a
decreasing function of (x − mean)², so the candidates are the smallest and largest record and the record nearest
the mean. Replacing a record (bounded) is a removal followed by an addition; for the variance the nearest
universe value depends on which record left, so all n removals are tried, vectorised. The property tests check
all of this against brute-force enumeration over small universes.

Example:
    >>> u = Universe.from_values([1, 3, 10, 17, 675])        # Allmann et al., Table 1
    >>> global_sensitivity("mean", u), round(local_sensitivity("mean", [1, 3, 10, 17], u), 2)
    (337.0, 133.45)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import QUERIES, Query, check_choice, check_query, check_whole, parse_bounds
from privrisk.errors import PrivriskError

__all__ = [
    "METHODS",
    "NEIGHBOURS",
    "QUERIES",
    "Neighbours",
    "Query",
    "SensitivityMethod",
    "SensitivitySettings",
    "Universe",
    "as_universe",
    "choose_universe",
    "evaluate",
    "global_sensitivity",
    "local_sensitivity",
    "run_sensitivity",
    "sensitivity_ratio",
]

Neighbours = Literal["unbounded", "bounded"]
"""Unbounded: add or remove one record (the default); bounded: replace one record, n fixed."""
NEIGHBOURS: tuple[Neighbours, ...] = ("unbounded", "bounded")

SensitivityMethod = Literal["exact", "paper"]
"""Exact local sensitivity, or the four-case rule of Allmann et al., §3.2."""
METHODS: tuple[SensitivityMethod, ...] = ("exact", "paper")


def _query(query: Query | str) -> Query:
    """A query of the core by name (``var`` for ``variance``, any case)."""
    return cast(Query, check_query(query))


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


# numpy's reducers: the median of an even count is the mean of the two middle values; variance with ddof = 0.
_REDUCERS: dict[str, Callable[..., Any]] = {"sum": np.sum, "mean": np.mean, "median": np.median, "min": np.min,
                                            "max": np.max, "variance": np.var, "std": np.std}  # fmt: skip


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


def evaluate(query: Query | str, sample: ArrayLike, axis: int = -1) -> float | np.ndarray:
    """f(X) for a query by name, along ``axis`` (numpy's median; population variance).

    Example:
        >>> evaluate("median", [1, 3, 10, 17])
        6.5
        >>> evaluate("variance", [1, 675])
        113569.0
    """
    q = _query(query)
    x = np.asarray(sample, dtype=float)
    if x.shape[axis] == 0:
        raise PrivriskError("sample: is empty; a query needs at least one record")
    if q == "count":
        result = np.full(np.delete(x.shape, axis % x.ndim), x.shape[axis], dtype=float)
    else:
        result = _REDUCERS[q](x, axis=axis)
    return float(result) if np.ndim(result) == 0 else np.asarray(result)


# --------------------------------------------------------------------------------------------------------------
# Global sensitivity
# --------------------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------------------
# Local sensitivity
# --------------------------------------------------------------------------------------------------------------


def _median_sorted(s: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Median of the first m entries of each sorted row (m ≥ 1 per row)."""
    rows = np.arange(s.shape[0])
    lo = s[rows, (m - 1) // 2]
    hi = s[rows, m // 2]
    return (lo + hi) / 2


def _median_after_add(s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Median of each sorted row with one value v[row] added, without re-sorting."""
    rows, m = s.shape[0], s.shape[1]
    r = np.arange(rows)
    k = np.sum(s < v[:, None], axis=1)  # v sits at position k in the merged row

    def order_stat(j):  # the j-th smallest (0-based) of the merged row of m + 1 values
        below = s[r, np.clip(j, 0, m - 1)]
        above = s[r, np.clip(j - 1, 0, m - 1)]
        return np.where(j < k, below, np.where(j == k, v, above))

    m1 = m + 1
    a = order_stat(np.full(rows, (m1 - 1) // 2))
    b = order_stat(np.full(rows, m1 // 2))
    return (a + b) / 2


def _median_after_remove(s: np.ndarray, i: int) -> np.ndarray:
    """Median of each sorted row with its i-th value removed (m ≥ 2)."""
    return np.median(np.delete(s, i, axis=1), axis=1)


def _ls_unbounded(q: Query, s: np.ndarray, u: Universe, method: SensitivityMethod) -> np.ndarray:
    """Exact (or the paper's four-case) unbounded local sensitivity for each sorted row of s."""
    rows, m = s.shape
    lo, hi = u.lo, u.hi
    can_remove = m >= 2
    if q == "count":
        return np.ones(rows)
    if q == "sum":
        rem = np.maximum(np.abs(s[:, 0]), np.abs(s[:, -1])) if can_remove else np.zeros(rows)
        return np.maximum(max(abs(lo), abs(hi)), rem)
    if q == "mean":
        mu = s.mean(axis=1)
        add = np.maximum(hi - mu, mu - lo) / (m + 1)
        rem = np.maximum(s[:, -1] - mu, mu - s[:, 0]) / (m - 1) if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "min":
        add = s[:, 0] - lo
        rem = s[:, 1] - s[:, 0] if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "max":
        add = hi - s[:, -1]
        rem = s[:, -1] - s[:, -2] if can_remove else np.zeros(rows)
        return np.maximum(add, rem)
    if q == "median":
        med = _median_sorted(s, np.full(rows, m))
        cands = [
            _median_after_add(s, np.full(rows, hi)),
            _median_after_add(s, np.full(rows, lo)),
        ]
        if can_remove:
            cands += [_median_after_remove(s, 0), _median_after_remove(s, m - 1)]
        return np.max(np.abs(np.stack(cands) - med), axis=0)
    # variance and std
    mu = s.mean(axis=1)
    var = np.mean((s - mu[:, None]) ** 2, axis=1)
    add_points = [np.full(rows, lo), np.full(rows, hi)]
    if method == "exact":
        add_points.append(u.nearest(mu))
    # X ∪ {v}: var' = m/(m+1)·(var + (v − μ)²/(m + 1))
    new_vars = [m / (m + 1) * (var + (v - mu) ** 2 / (m + 1)) for v in add_points]
    if can_remove:
        # Removing x: var' falls with (x − μ)², so the extremes and the record nearest μ are the candidates. Their
        # variances are computed directly, not as var − (x − μ)²/(m − 1): that difference cancels when the
        # others are all equal, and the std's square root would turn a 1e−15 residue into 3e−8.
        new_vars += [np.var(s[:, 1:], axis=1), np.var(s[:, :-1], axis=1)]
        if method == "exact":
            near = np.argmin(np.abs(s - mu[:, None]), axis=1)
            keep = np.ones(s.shape, dtype=bool)
            keep[np.arange(rows), near] = False
            new_vars.append(np.var(s[keep].reshape(rows, m - 1), axis=1))
    stacked = np.stack(new_vars)
    if q == "std":
        return np.max(np.abs(np.sqrt(stacked) - np.sqrt(var)), axis=0)
    return np.max(np.abs(stacked - var), axis=0)


def _ls_bounded(q: Query, s: np.ndarray, u: Universe, method: SensitivityMethod) -> np.ndarray:
    """Exact bounded (replace-one) local sensitivity for each sorted row of s."""
    rows, m = s.shape
    lo, hi = u.lo, u.hi
    if q == "count":
        return np.zeros(rows)
    if q in ("sum", "mean"):
        change = np.maximum(hi - s[:, 0], s[:, -1] - lo)
        return change / (m if q == "mean" else 1)
    if m == 1:
        # X′ = {v}: every query but count, sum and mean is v itself, or 0 for the spread.
        if q in ("variance", "std"):
            return np.zeros(rows)
        return np.maximum(hi - s[:, 0], s[:, 0] - lo)
    if q == "min":
        return np.maximum(s[:, 1] - s[:, 0], s[:, 0] - lo)
    if q == "max":
        return np.maximum(s[:, -1] - s[:, -2], hi - s[:, -1])
    if q == "median":
        med = _median_sorted(s, np.full(rows, m))
        up = _median_after_add(np.delete(s, 0, axis=1), np.full(rows, hi))
        down = _median_after_add(np.delete(s, m - 1, axis=1), np.full(rows, lo))
        return np.maximum(np.abs(up - med), np.abs(down - med))
    # variance and std: try every removal i, then the best addition for the remaining n − 1 records.
    mu = s.mean(axis=1)
    dev = s - mu[:, None]
    var = np.mean(dev**2, axis=1)
    k = m - 1
    mu_s = (mu[:, None] * m - s) / k  # mean without record i
    # Σ(x − μ_S)² over the others = Σ(x − μ)² − (x_i − μ)² − k(μ_S − μ)²
    total = m * var[:, None]
    ss = np.maximum(total - dev**2 * (m / k), 0.0)
    # That difference cancels when the other records are (nearly) all equal; recompute those few exactly.
    for r, i in np.argwhere(ss < 1e-6 * total):
        rest = np.delete(s[r], i)
        ss[r, i] = np.sum((rest - rest.mean()) ** 2)
    var_s = ss / k
    candidates = [np.full_like(mu_s, lo), np.full_like(mu_s, hi)]
    if method == "exact":
        candidates.append(u.nearest(mu_s))
    new = [(k / m) * (var_s + (v - mu_s) ** 2 / m) for v in candidates]
    stacked = np.stack(new)
    base = var[None, :, None]
    if q == "std":
        diff = np.abs(np.sqrt(stacked) - np.sqrt(base))
    else:
        diff = np.abs(stacked - base)
    return diff.max(axis=(0, 2))


def local_sensitivity(
    query: Query | str,
    sample: ArrayLike | list[ArrayLike],
    universe: Universe | tuple[float, float] | ArrayLike,
    *,
    neighbours: Neighbours = "unbounded",
    method: SensitivityMethod = "exact",
) -> float | np.ndarray:
    """Δv, the local sensitivity of a query on a sample within a universe: Allmann et al., eq. (3).

    The largest |f(X′) − f(X)| over every neighbour X′ of the sample X: adding any value the universe allows
    (an interval admits every real in [lo, hi], so the variance's biggest drop comes from adding the mean itself)
    or removing any record (never leaving an empty database). Bounded neighbours replace one record instead.

    ``method="paper"`` is the four-case rule of Allmann et al., §3.2 (add the universe's smallest or largest
    value, remove the sample's smallest or largest record). It is exact for every query but the variance and std,
    where adding a value near the mean or removing the record nearest the mean can move the result further.

    Args:
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        sample: a 1-D array (one sample), a 2-D array (one sample per row, batched) or a list of 1-D arrays
            of different sizes.
        universe: a :class:`Universe`, a ``(lo, hi)`` tuple, or an array of the universe's values.
        neighbours: ``"unbounded"`` (default) or ``"bounded"``.
        method: ``"exact"`` (default) or ``"paper"``.

    Returns:
        A float for one sample; an array with one value per sample for a batch.

    Raises:
        PrivriskError: for an empty sample, a value outside the universe, an unknown query or method.

    Example:
        >>> u = Universe.from_values([1, 3, 10, 17, 675])
        >>> round(local_sensitivity("mean", [1, 3, 10, 17], u), 2)        # Allmann et al., §3.2: 133.45
        133.45
        >>> local_sensitivity("median", [1, 3, 10, 17, 675], u)           # Allmann et al., §3.2: 3.5
        3.5
        >>> local_sensitivity("max", [[1, 3, 10], [3, 10, 17]], u)        # a batch of two samples
        array([665., 658.])
    """
    q = _query(query)
    u = as_universe(universe)
    nb = check_choice(neighbours, NEIGHBOURS, name="neighbours")
    how = check_choice(method, METHODS, name="method")
    if nb == "bounded" and how == "paper":
        raise PrivriskError("method: the paper's four-case rule is defined for unbounded neighbours only")

    if isinstance(sample, list | tuple) and len(sample) and np.ndim(sample[0]) == 1:
        samples: Sequence[Any] = sample
        if len({len(x) for x in samples}) > 1:  # samples of different sizes: one at a time
            return np.array(
                [local_sensitivity(q, x, u, neighbours=nb, method=how) for x in samples], dtype=float
            )
    arr = np.asarray(sample, dtype=float)
    single = arr.ndim == 1
    if arr.ndim not in (1, 2):
        raise PrivriskError("sample: must be one sample (1-D) or a batch of samples (2-D)")
    s = np.sort(np.atleast_2d(arr), axis=1)
    if s.shape[1] == 0:
        raise PrivriskError("sample: is empty; a query needs at least one record")
    u.check_sample(s)
    kernel = _ls_unbounded if nb == "unbounded" else _ls_bounded
    result = kernel(q, s, u, how)
    return float(result[0]) if single else result


def sensitivity_ratio(local: ArrayLike, global_: ArrayLike) -> float | np.ndarray:
    """Δv/Δf, the ratio that scales ε in ρ_mw and ρ_tw (it may exceed 1: docs/architecture.md).

    Raises:
        PrivriskError: when Δf = 0, where the ratio is undefined.

    Example:
        >>> round(sensitivity_ratio(133.45, 337.0), 4)
        0.396
    """
    lv, gv = np.asarray(local, dtype=float), np.asarray(global_, dtype=float)
    if np.any(gv == 0):
        raise PrivriskError(
            "global sensitivity is 0 (the universe holds a single value): the ratio Δv/Δf is undefined"
        )
    out = lv / gv
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------------------------
# The one way in: ``privrisk sensitivity`` and the app's page "Data and sensitivity"
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SensitivitySettings:
    """What ``privrisk sensitivity`` and the app's page ask: a query, a universe, neighbours, a method, and ε.

    Checked and normalised when made; every error names its field (``param``), so the command line shows the
    option and the app the input. The universe is one of: the column's own values (the default), ``universe``
    bounds (``"LO,HI"`` or a pair), or the distinct values of ``universe_column`` in ``universe_file``;
    ``universe_min`` then lowers its minimum (Allmann et al., §3.2 and §4.2). ``max_risk`` (a threshold on the
    two-worlds risk) needs ε.

    Example:
        >>> s = SensitivitySettings(query="MEAN", universe="1,675", epsilon="ln3")
        >>> s.query, s.universe, round(s.epsilon, 4)
        ('mean', (1.0, 675.0), 1.0986)
        >>> SensitivitySettings(query="mean", max_risk=0.6)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: max_risk: needs epsilon (the risk is computed at an ε)
    """

    query: str
    universe: str | tuple[float, float] | None = None
    universe_file: str | os.PathLike[str] | None = None
    universe_column: str | None = None
    universe_min: float | None = None
    neighbours: Neighbours | str = "unbounded"
    method: SensitivityMethod | str = "exact"
    epsilon: float | str | None = None
    max_risk: float | None = None
    missing: str | None = None

    def __post_init__(self) -> None:
        from privrisk._validation import check_epsilon, check_probability, parse_epsilon

        checked: dict[str, Any] = {
            "query": check_query(self.query),
            "neighbours": check_choice(self.neighbours, NEIGHBOURS, name="neighbours"),
            "method": check_choice(self.method, METHODS, name="method"),
        }
        universe = self.universe
        if isinstance(universe, str):
            universe = parse_bounds(universe, name="universe") if universe.strip() else None
        elif universe is not None:
            try:
                lo, hi = (float(x) for x in universe)
            except (TypeError, ValueError):
                raise PrivriskError(
                    f"universe: bounds (lo, hi), got {universe!r}", param="universe"
                ) from None
            if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
                raise PrivriskError(
                    f"universe: give finite bounds lo < hi, got ({lo:g}, {hi:g})", param="universe"
                )
            universe = (lo, hi)
        if universe is not None and self.universe_file is not None:
            raise PrivriskError(
                "universe: give either the bounds LO,HI or a universe file, not both", param="universe"
            )
        if self.universe_file is not None and not self.universe_column:
            raise PrivriskError(
                "universe_column: name the column of the universe file that holds the universe",
                param="universe_column",
            )
        if self.universe_column and self.universe_file is None:
            raise PrivriskError(
                "universe_column: only meaningful with a universe file", param="universe_column"
            )
        universe_min = self.universe_min
        if universe_min is not None:
            try:
                universe_min = float(universe_min)
            except (TypeError, ValueError):
                raise PrivriskError(
                    f"universe_min: {self.universe_min!r} is not a number", param="universe_min"
                ) from None
            if not np.isfinite(universe_min):
                raise PrivriskError(
                    f"universe_min: must be finite, got {universe_min:g}", param="universe_min"
                )
            if universe is not None and universe_min > universe[0]:
                raise PrivriskError(
                    f"universe_min: {universe_min:g} is above the universe's lower bound {universe[0]:g}",
                    param="universe_min",
                )
        epsilon = self.epsilon
        if isinstance(epsilon, str):
            epsilon = parse_epsilon(epsilon, name="epsilon") if epsilon.strip() else None
        elif epsilon is not None:
            epsilon = check_epsilon(epsilon, name="epsilon")
        if self.max_risk is not None:
            if epsilon is None:
                raise PrivriskError(
                    "max_risk: needs epsilon (the risk is computed at an ε)", param="max_risk"
                )
            check_probability(self.max_risk, name="max_risk")
        missing = self.missing.strip() or None if isinstance(self.missing, str) else self.missing
        if missing is not None:
            from privrisk.io.data import parse_missing

            parse_missing(missing)
        checked.update(
            universe=universe,
            universe_column=self.universe_column or None,
            universe_min=universe_min,
            epsilon=epsilon,
            max_risk=None if self.max_risk is None else float(self.max_risk),
            missing=missing,
        )
        for name, value in checked.items():  # a frozen dataclass normalises itself once, while it is made
            object.__setattr__(self, name, value)

    def universe_for(
        self, values: ArrayLike, *, universe_file_name: str | None = None, name: str | None = None
    ) -> tuple[Universe, str]:
        """The universe these settings choose for ``values`` (:func:`choose_universe`) and its description.

        ``universe_file_name`` replaces the universe file's path in the description and the messages (the
        app's uploads live under a temporary path the user never saw). With ``name`` (``"data.csv: column
        'x'"``) the values are checked to lie in the universe; a value outside is an error of parameter
        ``universe``.

        Example:
            >>> SensitivitySettings(query="max", universe_min=0).universe_for([3, 5, 9])[1]
            "the column's own 3 distinct values (as Allmann et al., §3.2 do), with its minimum set to 0"
        """
        file = self.universe_file
        try:
            u, how = choose_universe(values, self.universe, file, self.universe_column, self.universe_min,
                                     self.missing)  # fmt: skip
        except PrivriskError as exc:
            if universe_file_name is None or file is None:
                raise
            raise PrivriskError(str(exc).replace(str(file), universe_file_name), param=exc.param) from None
        if universe_file_name is not None and file is not None:
            how = how.replace(str(file), universe_file_name)
        if name is not None:
            try:
                u.check_sample(np.asarray(values, dtype=float), name=name)
            except PrivriskError as exc:
                raise PrivriskError(str(exc), param="universe") from None
        return u, how


def run_sensitivity(
    values: ArrayLike,
    settings: SensitivitySettings,
    *,
    column: str,
    source: str | None = None,
    data: dict[str, Any] | None = None,
    universe_file_name: str | None = None,
) -> dict[str, Any]:
    """Δf, Δv, their ratio and, with ε, the risks of one query on one column: ``privrisk sensitivity --json``.

    The universe is chosen by :func:`choose_universe` from ``settings``; the values must lie in it. With ε the
    risks are ρ_mw (Allmann et al., eq. 4, n the number of values), ρ_tw (eq. 6) and ρ_gl (eq. 5).

    Args:
        values: the column's values, missing values dropped.
        settings: the checked settings.
        column: the column's name (for the document and the messages).
        source: the file's name, for the messages (``data.csv: column 'x' …``).
        data: what was read (:meth:`privrisk.io.data.NumericColumn.as_dict`), kept in the document.
        universe_file_name: the universe file's name to show instead of its path (the app's uploads).

    Raises:
        PrivriskError: a value outside the universe (parameter ``universe``), or a sensitivity that overflows
            a float (parameter ``query``).

    Example:
        >>> doc = run_sensitivity(np.array([1.0, 3, 10, 17, 675]), SensitivitySettings(query="mean",
        ...                       universe="1,675", epsilon=1.0), column="distance")
        >>> doc["global_sensitivity"], round(doc["ratio"], 4), round(doc["two_worlds"], 4)
        (337.0, 0.396, 0.5977)
    """
    from privrisk import risk as R

    x = np.asarray(values, dtype=float)
    s = settings
    name = f"{source}: column {column!r}" if source else f"column {column!r}"
    u, how = s.universe_for(x, universe_file_name=universe_file_name, name=name)
    n = int(x.size)
    # Checked words, normalised when the settings were made.
    nb, rule = cast(Neighbours, s.neighbours), cast(SensitivityMethod, s.method)
    gs = global_sensitivity(s.query, u, neighbours=nb, n=n if nb == "bounded" else None)
    ls = float(local_sensitivity(s.query, x, u, neighbours=nb, method=rule))
    if not (np.isfinite(gs) and np.isfinite(ls)):
        raise PrivriskError(
            f"query: the sensitivity of the {s.query} over {u.describe()} overflows a float; rescale the values",
            param="query",
        )
    ratio = float(sensitivity_ratio(ls, gs))
    doc: dict[str, Any] = {
        "query": s.query,
        "column": column,
        "n": n,
        "universe": {
            "kind": "interval" if u.is_interval else "values",
            "lo": u.lo,
            "hi": u.hi,
            "description": how,
        },
        "neighbours": s.neighbours,
        "method": s.method,
        "global_sensitivity": gs,
        "local_sensitivity": ls,
        "ratio": ratio,
        "data": data if data is not None else {},
    }
    if s.epsilon is not None:
        doc.update(
            epsilon=s.epsilon,
            many_worlds=float(R.many_worlds(s.epsilon, n, ratio)),
            two_worlds=float(R.two_worlds(s.epsilon, ratio)),
            global_risk=float(R.global_risk(s.epsilon)),
        )
    return doc
