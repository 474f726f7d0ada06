"""The three files in one encoding, and the nearest records of a mixed-type distance.

Every column is encoded once over the union of the three files, so a value has the same code in each: a numeric
column as floats scaled by its range over the union (so one column adds at most 1 to a distance), any other
column as integer codes (a missing value is a code of its own). The distance of two records is the Gower-type
distance of Anonymeter (Giomi et al. 2023, §3): the sum over the columns of |x − y|/range for numeric columns and
of [x ≠ y] for the others; two missing values are equal (distance 0: Anonymeter counts them as 1), a missing value
and a present one differ by 1.

The nearest records are found by brute force in blocks (exact, no index), ties broken at random but the same way
for every search in a run: the candidates are searched in one random order fixed by the seed, and the first of
equally near ones wins (as Anonymeter's stable search in file order, without the file's order as a bias). Rows
that are equal on the searched columns are searched once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError

__all__ = ["Encoded", "Table", "encode", "nearest"]

#: Cells of one block of the distance matrix (float32): 2²¹ cells are 8 MB, near the cache.
_BLOCK_CELLS = 1 << 21


@dataclass(frozen=True)
class Table:
    """One file encoded: ``values[:, j]`` is column j (floats scaled to [0, 1] for numeric columns, codes as
    floats otherwise; NaN marks a missing numeric value)."""

    values: np.ndarray = field(repr=False)

    @property
    def rows(self) -> int:
        return int(self.values.shape[0])

    def take(self, rows: np.ndarray) -> Table:
        return Table(self.values[rows])


@dataclass(frozen=True)
class Encoded:
    """The files of one run in one encoding.

    Attributes:
        columns: the column names, in the files' order.
        numeric: for each column, whether it is numeric (scaled distance) or categorical (equal or not).
        categories: for each categorical column, its values by code (the code is the position).
        scale: for each numeric column, (minimum, range) over the union; the codes of the others.
        original, synthetic, control: the files (control None when not given).
    """

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    categories: dict[str, np.ndarray] = field(repr=False)
    scale: dict[str, tuple[float, float]]
    original: Table
    synthetic: Table
    control: Table | None

    def index(self, names: Sequence[str]) -> list[int]:
        return [self.columns.index(n) for n in names]

    def encode_frame(self, frame: pd.DataFrame) -> Table:
        """Another frame with the same columns in this encoding (values it has not seen get new codes, which
        match nothing)."""
        blocks = []
        for j, name in enumerate(self.columns):
            if self.numeric[j]:
                low, width = self.scale[name]
                x = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
                blocks.append((x - low) / width)
            else:
                known = {_key(v): i for i, v in enumerate(self.categories[name])}
                unseen = len(known)
                blocks.append(
                    np.array([known.get(_key(v), unseen) for v in frame[name].astype(object)], dtype=float)
                )
        return Table(np.column_stack(blocks) if blocks else np.zeros((len(frame), 0)))

    def decode(self, table: Table) -> pd.DataFrame:
        """An encoded table as a frame of the files' own values."""
        out = {}
        for j, name in enumerate(self.columns):
            x = table.values[:, j]
            if self.numeric[j]:
                low, width = self.scale[name]
                out[name] = low + x * width
            else:
                out[name] = self.categories[name][x.astype(int)]
        return pd.DataFrame(out).infer_objects()

    def value(self, column: int, code: float) -> object:
        """The value a code or scaled number stands for, as the file holds it."""
        name = self.columns[column]
        if self.numeric[column]:
            if np.isnan(code):
                return None
            low, width = self.scale[name]
            return float(low + code * width)
        return self.categories[name][int(code)]


def _key(value: object) -> object:
    return "<NA>" if value is None or (isinstance(value, float) and np.isnan(value)) else value


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def encode(original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None) -> Encoded:
    """The three frames in one encoding (their columns must agree; the caller checks them)."""
    frames = [original, synthetic] + ([control] if control is not None else [])
    sizes = [len(f) for f in frames]
    columns = tuple(str(c) for c in original.columns)
    blocks, numeric, categories, scale = [], [], {}, {}
    for name in original.columns:
        parts = [f[name] for f in frames]
        joined = pd.concat(parts, ignore_index=True)
        if all(_is_numeric(p) for p in parts):
            x = joined.to_numpy(dtype=float)
            finite = x[np.isfinite(x)]
            low = float(finite.min()) if finite.size else 0.0
            width = float(finite.max() - low) if finite.size else 0.0
            width = width if width > 0 else 1.0
            x = np.where(np.isfinite(x), (x - low) / width, np.nan)
            blocks.append(x)
            numeric.append(True)
            scale[str(name)] = (low, width)
        else:
            codes, uniques = pd.factorize(joined.astype(object), use_na_sentinel=False)
            blocks.append(codes.astype(float))
            numeric.append(False)
            categories[str(name)] = np.asarray(uniques, dtype=object)
    matrix = np.column_stack(blocks) if blocks else np.zeros((sum(sizes), 0))
    edges = np.cumsum([0, *sizes])
    tables = [Table(np.ascontiguousarray(matrix[edges[i] : edges[i + 1]])) for i in range(len(frames))]
    return Encoded(
        columns,
        tuple(numeric),
        categories,
        scale,
        tables[0],
        tables[1],
        tables[2] if control is not None else None,
    )


def check_same_columns(names: dict[str, pd.DataFrame]) -> None:
    """Every file has the columns of the first (in any order); else an error naming the file's parameter."""
    first_name, first = next(iter(names.items()))
    wanted = [str(c) for c in first.columns]
    if len(set(wanted)) != len(wanted):
        raise PrivriskError(f"{first_name}: a column name appears twice", param=first_name)
    for name, frame in names.items():
        got = [str(c) for c in frame.columns]
        missing = [c for c in wanted if c not in got]
        extra = [c for c in got if c not in wanted]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"lacks {', '.join(map(repr, missing[:5]))}")
            if extra:
                parts.append(f"has {', '.join(map(repr, extra[:5]))} that {first_name} has not")
            raise PrivriskError(
                f"{name}: its columns differ from {first_name}'s: it {' and '.join(parts)}", param=name
            )


def _distances(queries: np.ndarray, candidates: list[np.ndarray], numeric: Sequence[bool],
               out: np.ndarray, work: np.ndarray, same: np.ndarray) -> np.ndarray:  # fmt: skip
    """The distance matrix of a block of queries to every candidate, into ``out`` (float32; no allocation)."""
    b = queries.shape[0]
    o, w, e = out[:b], work[:b], same[:b]
    o.fill(0)
    for j, is_numeric in enumerate(numeric):
        q = queries[:, j, None]
        c = candidates[j][None, :]
        if is_numeric:
            np.subtract(q.astype(np.float32), c, out=w)
            np.abs(w, out=w)
            if np.isnan(w).any():
                both = np.isnan(q) & np.isnan(c)
                w[np.isnan(w)] = 1.0
                w[both] = 0.0
            np.add(o, w, out=o)
        else:
            np.not_equal(q.astype(c.dtype), c, out=e)
            np.add(o, e, out=o)
    return o


def nearest(
    queries: Table,
    candidates: Table,
    columns: Sequence[int],
    numeric: Sequence[bool],
    *,
    k: int = 1,
    order: np.ndarray | None = None,
    progress: object = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest candidates of every query on the given columns: (indices, distances), each (queries, k).

    Args:
        queries, candidates: encoded tables.
        columns: the columns compared (positions).
        numeric: for every column of the tables, whether it is numeric.
        k: how many neighbours (nearest first).
        order: the order in which candidates are searched (ties go to the earlier); default their own.
    """
    cols = list(columns)
    kinds = [numeric[j] for j in cols]
    q = queries.values[:, cols]
    perm = np.arange(candidates.rows) if order is None else np.asarray(order)
    c_all = candidates.values[perm][:, cols]
    # Equal rows are searched once; the first of them in the search order stands for all (np.unique keeps the
    # first occurrence), so a tie still goes to the earliest candidate in the order.
    keyed = np.where(np.isnan(c_all), -1.0, c_all)
    _, first = np.unique(keyed, axis=0, return_index=True)
    first = np.sort(first)
    if k > 1:
        # Duplicates matter for the k nearest: keep every row then (k > 1 is for densities and NNDR).
        first = np.arange(c_all.shape[0])
    c = c_all[first]
    kk = min(k, c.shape[0])
    if kk == 0:
        raise PrivriskError("synthetic: the file has no records", param="synthetic")
    block = max(1, _BLOCK_CELLS // max(1, c.shape[0]))
    # One contiguous array per column: codes as integers (an exact comparison), numbers as float32.
    columns_c = [c[:, i].astype(np.float32) if kind else np.where(np.isnan(c[:, i]), -1, c[:, i]).astype(np.int32)
                 for i, kind in enumerate(kinds)]  # fmt: skip
    q = np.where(np.isnan(q) & ~np.array(kinds)[None, :], -1.0, q) if q.size else q
    out = np.empty((min(block, q.shape[0]), c.shape[0]), dtype=np.float32)
    work = np.empty_like(out)
    same = np.empty(out.shape, dtype=bool)
    index = np.empty((q.shape[0], kk), dtype=np.int64)
    dist = np.empty((q.shape[0], kk), dtype=np.float64)
    for start in range(0, q.shape[0], block):
        d = _distances(q[start : start + block], columns_c, kinds, out, work, same)
        if kk == 1:
            best = np.argmin(d, axis=1)[:, None]  # the first minimum: the earliest in the search order
        else:
            part = np.argpartition(d, kk - 1, axis=1)[:, :kk]
            part_d = np.take_along_axis(d, part, axis=1)
            # Sort by distance, then by search position, so that ties go to the earlier candidate.
            rank = np.lexsort((part, part_d))
            best = np.take_along_axis(part, rank, axis=1)
        index[start : start + block] = perm[first[best]]
        dist[start : start + block] = np.take_along_axis(d, best, axis=1)
        if callable(progress):
            progress()
    return index, dist
