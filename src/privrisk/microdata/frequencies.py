"""Sample frequencies f_k and estimated population frequencies F_k of key combinations (sdcMicro's ``freqCalc``).

For a record i with key values x_i, f_k is the number of sample records that share its key combination and F_k
the sum of their sampling weights (the estimated number of people in the population with that combination;
without weights F_k = f_k). A missing key value matches any value, as in sdcMicro's ``freqCalc``: record j counts
for record i when, on every key where both are observed, their values agree (``missing="any"``). The relation is
not transitive, so these are not the sizes of a partition: a record with a missing value is counted in several
combinations. ``missing="category"`` treats a missing value as a value of its own (a partition again).

Everything is computed on the distinct key combinations (the "cells"), then spread back to the records: with
missing values matching any value, cells are compared pattern by pattern of missing keys (for each pair of
patterns, the keys observed in both are grouped once), so the cost grows with the number of distinct patterns,
not with the number of records squared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["MISSING_RULES", "Cells", "MissingRule", "cell_frequencies", "combine_codes", "first_rows", "key_codes",
           "matching_cells"]

MissingRule = Literal["any", "category"]
MISSING_RULES: tuple[MissingRule, ...] = ("any", "category")

_LIMIT = np.iinfo(np.int64).max // 2


def key_codes(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Integer codes of each key column (n × q, int64), −1 for a missing value.

    Example:
        >>> key_codes(pd.DataFrame({"a": ["x", None, "y", "x"]}), ["a"]).ravel().tolist()
        [0, -1, 1, 0]
    """
    out = np.empty((len(frame), len(keys)), dtype=np.int64)
    for j, key in enumerate(keys):
        codes, _ = pd.factorize(frame[key], use_na_sentinel=True)
        out[:, j] = codes
    return out


def combine_codes(codes: np.ndarray) -> np.ndarray:
    """One dense id (0, 1, …) per distinct row of a matrix of non-negative codes (n × q), in order of appearance.

    Columns are packed in mixed radix while the product of their sizes fits in 62 bits, then re-numbered, so any
    number of columns works without overflow.

    Example:
        >>> combine_codes(np.array([[0, 1], [1, 0], [0, 1]])).tolist()
        [0, 1, 0]
    """
    n = codes.shape[0]
    ids = np.zeros(n, dtype=np.int64)
    size = 1
    for j in range(codes.shape[1]):
        col = codes[:, j]
        width = int(col.max()) + 1 if n else 1
        if size * width >= _LIMIT:
            ids, uniques = pd.factorize(ids)
            ids = ids.astype(np.int64)
            size = len(uniques)
        ids = ids * width + col
        size *= width
    dense, _ = pd.factorize(ids)
    return dense.astype(np.int64)


def first_rows(ids: np.ndarray, size: int) -> np.ndarray:
    """The first row of each id 0 … size−1 (written backwards, so the first row's write is the one that stays).

    Example:
        >>> first_rows(np.array([1, 0, 1, 0]), 2).tolist()
        [1, 0]
    """
    first = np.zeros(size, dtype=np.int64)
    rows = np.arange(ids.size, dtype=np.int64)
    first[ids[::-1]] = rows[::-1]
    return first


@dataclass(frozen=True, eq=False)
class Cells:
    """The distinct key combinations of a sample and their frequencies.

    Attributes:
        cell: the cell of each record (index into the cell arrays).
        codes: the key codes of each cell (cells × keys; −1 missing).
        count: the records with exactly this combination.
        weight: the sum of their weights.
        fk: the sample frequency f_k of the combination (with the matching rule).
        Fk: the estimated population frequency F_k (sum of the weights of the matching records).
    """

    cell: np.ndarray
    codes: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    fk: np.ndarray
    Fk: np.ndarray

    @property
    def record_fk(self) -> np.ndarray:
        """f_k of each record."""
        return self.fk[self.cell]

    @property
    def record_Fk(self) -> np.ndarray:
        """F_k of each record."""
        return self.Fk[self.cell]


def cell_frequencies(codes: np.ndarray, weights: np.ndarray | None = None, *, missing: MissingRule = "any") -> Cells:
    """f_k and F_k of every record's key combination (sdcMicro ``freqCalc``), computed on the distinct cells.

    Args:
        codes: key codes (n × q) from :func:`key_codes`, −1 for missing.
        weights: sampling weights (n), or None (then F_k = f_k).
        missing: ``"any"`` (a missing value matches any value, as sdcMicro) or ``"category"``.

    Example (sdcMicro's ``test_freqCalc.R``, the weighted frame with missing values):
        >>> a = [2, 3, 2, 2, 3, 3, 1, 2]; b = [3, 3, 3, 3, 3, 3, 4, 3]; c = [1, 3, None, 2, 1, 1, None, 1]
        >>> w = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
        >>> cells = cell_frequencies(key_codes(pd.DataFrame({"a": a, "b": b, "c": c}), "abc"), w)
        >>> cells.record_fk.tolist(), cells.record_Fk.tolist()
        ([3, 1, 4, 2, 2, 2, 1, 3], [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0])
    """
    n, q = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    cell = combine_codes(codes + 1) if q else np.zeros(n, dtype=np.int64)
    n_cells = int(cell.max()) + 1 if n else 0
    first = first_rows(cell, n_cells)
    cell_codes = codes[first] if n else np.zeros((0, q), dtype=np.int64)
    count = np.bincount(cell, minlength=n_cells).astype(np.int64)
    weight = np.bincount(cell, weights=w, minlength=n_cells)
    if missing == "category" or n_cells == 0 or not (cell_codes < 0).any():
        return Cells(cell, cell_codes, count, weight, count.copy(), weight.copy())
    fk, Fk = _matching(cell_codes, count, weight)
    return Cells(cell, cell_codes, count, weight, fk, Fk)


def _patterns(codes: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The distinct patterns of missing keys (bit masks) and the cells of each."""
    q = codes.shape[1]
    bits = (codes < 0).astype(np.int64) @ (np.int64(1) << np.arange(q, dtype=np.int64))
    patterns, of = np.unique(bits, return_inverse=True)
    order = np.argsort(of, kind="stable")
    bounds = np.searchsorted(of[order], np.arange(len(patterns) + 1))
    return patterns, [order[bounds[i] : bounds[i + 1]] for i in range(len(patterns))]


def _radix(codes: np.ndarray, cols: list[int], widths: np.ndarray) -> np.ndarray | None:
    """One int64 key per row on ``cols`` (mixed radix of the codes), or None if the key would not fit."""
    size = 1
    for j in cols:
        size *= int(widths[j])
        if size >= _LIMIT:
            return None
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for j in cols:
        key = key * int(widths[j]) + codes[:, j]
    return key


def _pair_ids(codes_a: np.ndarray, codes_b: np.ndarray, union: int,
              widths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Keys of two groups of cells (their codes) on the keys observed in both patterns (``union`` is their
    missing keys): equal keys, equal values. A mixed-radix key where it fits (no hashing: the big group of
    complete cells is read once per pattern, not factorised), dense ids of the two groups' rows otherwise."""
    q = codes_a.shape[1]
    cols = [j for j in range(q) if not (union >> j) & 1]
    if not cols:
        return np.zeros(codes_a.shape[0], dtype=np.int64), np.zeros(codes_b.shape[0], dtype=np.int64)
    ka, kb = _radix(codes_a, cols, widths), _radix(codes_b, cols, widths)
    if ka is not None and kb is not None:
        return ka, kb
    ids = combine_codes(np.concatenate([codes_a, codes_b])[:, cols])
    return ids[: codes_a.shape[0]], ids[codes_a.shape[0] :]


TABLE_LIMIT = 1 << 24
"""The widest range of keys summed through a table (16.8 million entries) instead of sorting."""


def _sums(keys_to: np.ndarray, keys_from: np.ndarray, *values: np.ndarray) -> list[np.ndarray]:
    """For each of ``keys_to``, the sums of each of ``values`` over the rows of ``keys_from`` with the same key.

    Keys in a range not much wider than the data are summed into a table and read back (one pass over each
    side); otherwise the smaller side is sorted and the larger looked up in it.
    """
    if keys_from.size == 0 or keys_to.size == 0:
        return [np.zeros(keys_to.size) for _ in values]
    lo = min(int(keys_to.min()), int(keys_from.min()))
    hi = max(int(keys_to.max()), int(keys_from.max()))
    if hi - lo < min(TABLE_LIMIT, 8 * (keys_to.size + keys_from.size) + 1024):  # a table no wider than the data
        at_to, at_from = keys_to - lo, keys_from - lo
        return [np.bincount(at_from, weights=v, minlength=hi - lo + 1)[at_to] for v in values]
    if keys_from.size > keys_to.size:  # sort the smaller side, look the larger up in it
        uniq_to, inv_to = np.unique(keys_to, return_inverse=True)
        at = np.minimum(np.searchsorted(uniq_to, keys_from), uniq_to.size - 1)
        hit = uniq_to[at] == keys_from
        return [np.bincount(at[hit], weights=v[hit], minlength=uniq_to.size)[inv_to.reshape(-1)] for v in values]
    uniq, inverse = np.unique(keys_from, return_inverse=True)
    idx = np.minimum(np.searchsorted(uniq, keys_to), uniq.size - 1)
    found = uniq[idx] == keys_to
    return [np.where(found, np.bincount(inverse.reshape(-1), weights=v, minlength=uniq.size)[idx], 0.0)
            for v in values]  # fmt: skip


def _matching(codes: np.ndarray, count: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f_k and F_k of each cell when a missing value matches any value: pattern by pattern of missing keys.

    For each pair of patterns the cells of the two are keyed on the keys observed in both and summed by key (the
    lattice of patterns, never a pass per record). Two cells of one pattern match only if they are the same cell
    (cells are distinct), so a pattern adds only its own counts to itself.
    """
    patterns, members = _patterns(codes)
    widths = codes.max(axis=0).astype(np.int64) + 1 if codes.size else np.ones(codes.shape[1], dtype=np.int64)
    sub = [np.asfortranarray(codes[rows]) for rows in members]  # a key column at a time: each one contiguous
    counts = [count[rows].astype(float) for rows in members]
    weights = [weight[rows].astype(float) for rows in members]
    fk = count.astype(np.int64).copy()
    Fk = weight.astype(float).copy()
    for pi, p in enumerate(patterns):
        rows_p = members[pi]
        for qi in range(pi + 1, len(patterns)):
            rows_q = members[qi]
            keys_p, keys_q = _pair_ids(sub[pi], sub[qi], int(p) | int(patterns[qi]), widths)
            f_p, w_p = _sums(keys_p, keys_q, counts[qi], weights[qi])
            f_q, w_q = _sums(keys_q, keys_p, counts[pi], weights[pi])
            fk[rows_p] += np.rint(f_p).astype(np.int64)
            Fk[rows_p] += w_p
            fk[rows_q] += np.rint(f_q).astype(np.int64)
            Fk[rows_q] += w_q
    return fk, Fk


def _join(ids_a: np.ndarray, rows_a: np.ndarray, ids_b: np.ndarray, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (row of a, row of b) with equal ids, by sorting b's ids once (no data frame)."""
    order = np.argsort(ids_b, kind="stable")
    sorted_b = ids_b[order]
    lo = np.searchsorted(sorted_b, ids_a, side="left")
    hi = np.searchsorted(sorted_b, ids_a, side="right")
    take = hi - lo
    total = int(take.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a = np.repeat(rows_a, take)
    pos = np.repeat(lo - (np.cumsum(take) - take), take) + np.arange(total)
    return a, rows_b[order[pos]]


def matching_cells(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b) of cells whose values agree where both show one (a missing value matches any value),
    each cell with itself included: the classes of the records when a missing value matches any value.

    Example:
        >>> a, b = matching_cells(np.array([[0, 0], [0, -1], [1, 1]]))
        >>> sorted(zip(a.tolist(), b.tolist()))
        [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]
    """
    m = codes.shape[0]
    patterns, members = _patterns(codes)
    widths = codes.max(axis=0).astype(np.int64) + 1 if codes.size else np.ones(codes.shape[1], dtype=np.int64)
    out_a, out_b = [np.arange(m, dtype=np.int64)], [np.arange(m, dtype=np.int64)]
    for pi, p in enumerate(patterns):
        for qi in range(pi + 1, len(patterns)):
            rows_p, rows_q = members[pi], members[qi]
            ids_p, ids_q = _pair_ids(codes[rows_p], codes[rows_q], int(p) | int(patterns[qi]), widths)
            # the smaller side is sorted, the larger looked up in it; (a, b): a in q, b in p
            a, b = _join(ids_q, rows_q, ids_p, rows_p) if rows_p.size <= rows_q.size else _join(
                ids_p, rows_p, ids_q, rows_q)[::-1]  # fmt: skip
            out_a += [a, b]
            out_b += [b, a]
    return np.concatenate(out_a), np.concatenate(out_b)
