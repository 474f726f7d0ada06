"""Sums, means and medians over the records, computed from the key combinations (values repeated by counts).

A file of 10⁸ records has a few million key combinations: a measure over the records (Σ r_k, the mean of 1/f_k, the
median risk) is a function of each combination's value and its count, and repeating the values into an array of
10⁸ numbers (800 MB each) is what keeps such a file from being measured in 2 GB. These functions give the same
numbers **to the last bit** as numpy on the repeated array (``np.repeat(values, counts).sum()``), so that the JSON
of a file measured from its combinations (DuckDB or Spark grouping it) is the document of the file read into
memory: numpy adds a float64 array by pairwise summation (halves cut at a multiple of 8 down to blocks of at most
128), which :func:`repeated_sum` follows until a piece is small enough to be repeated and summed by numpy itself.
"""

from __future__ import annotations

import numpy as np

__all__ = ["repeated_max", "repeated_mean", "repeated_median", "repeated_sum"]

# The longest piece of the repeated array built at once (8 bytes a value: 8 MB).
LEAF = 1 << 20


def _piece(values: np.ndarray, ends: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The repeated array's elements lo … hi−1 (``ends``: the cumulative counts)."""
    first = int(np.searchsorted(ends, lo, side="right"))
    last = int(np.searchsorted(ends, hi - 1, side="right"))
    starts = np.r_[ends[first:last], hi] if last > first else np.array([hi])
    take = np.diff(np.r_[lo, starts])
    return np.repeat(values[first : last + 1], take)


def _pairwise(values: np.ndarray, ends: np.ndarray, lo: int, hi: int, leaf: int) -> float:
    """numpy's pairwise sum of the repeated elements lo … hi−1. (A function of the module, not a closure: a
    recursive closure is a reference cycle that would keep the arrays, 16 bytes a combination, until the
    collector runs.)"""
    m = hi - lo
    if m <= max(leaf, 128):
        return float(np.sum(_piece(values, ends, lo, hi))) if m else 0.0
    half = m // 2
    half -= half % 8
    return _pairwise(values, ends, lo, lo + half, leaf) + _pairwise(values, ends, lo + half, hi, leaf)


def repeated_sum(values: np.ndarray, counts: np.ndarray, *, leaf: int = LEAF) -> float:
    """``np.repeat(values, counts).sum()`` (float64, bit for bit) without building the repeated array.

    Example:
        >>> v, c = np.array([0.1, 0.7, 1e-3]), np.array([3, 1000, 5])
        >>> bool(repeated_sum(v, c, leaf=16) == np.repeat(v, c).sum())
        True
    """
    values = np.asarray(values, dtype=float)
    counts = np.asarray(counts)
    # accumulated in the smallest type holding the total (no int64 copy of a census's household sizes in uint8)
    ends: np.ndarray = np.cumsum(counts, dtype=_ends_type(counts))
    n = int(ends[-1]) if ends.size else 0
    return _pairwise(values, ends, 0, n, leaf)


INT32_TOTAL = 2**31
"""Cumulative counts whose total is below this are held in int32 (10⁸ records: four bytes a value, not eight)."""


def _ends_type(counts: np.ndarray) -> type:
    """int32 for cumulative counts below :data:`INT32_TOTAL`, else int64."""
    return np.int32 if int(np.sum(counts, dtype=np.int64)) < INT32_TOTAL else np.int64


def repeated_mean(values: np.ndarray, counts: np.ndarray) -> float:
    """``np.repeat(values, counts).mean()``: the sum divided by the number of records, as numpy divides it."""
    return float(np.float64(repeated_sum(values, counts)) / np.float64(int(np.sum(counts))))


def repeated_max(values: np.ndarray, counts: np.ndarray) -> float:
    """The largest value held by at least one record (no copy when every value is held).

    Example:
        >>> repeated_max(np.array([0.5, 0.9, 0.2]), np.array([1, 0, 2]))
        0.5
    """
    values = np.asarray(values, dtype=float)
    held = np.asarray(counts) > 0
    # every combination holds a record: the values as they are, else those held (numpy's max of either array)
    return float(np.max(values if held.all() else values[held]))


def repeated_median(values: np.ndarray, counts: np.ndarray) -> float:
    """``np.median(np.repeat(values, counts))``: the middle record's value, or the mean of the two middle ones.

    Example:
        >>> repeated_median(np.array([3.0, 1.0, 2.0]), np.array([1, 2, 1])), np.median([3.0, 1, 1, 2])
        (1.5, np.float64(1.5))
    """
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    counts = np.asarray(counts)
    ends: np.ndarray = counts[order].astype(_ends_type(counts))
    np.cumsum(ends, out=ends)  # in place: one array of the combinations, not two
    n = int(ends[-1])

    def at(i: int) -> float:  # the i-th smallest record's value (0-based)
        return float(values[order[int(np.searchsorted(ends, i, side="right"))]])

    if n % 2:
        return at(n // 2)
    return float(np.mean(np.array([at(n // 2 - 1), at(n // 2)])))
