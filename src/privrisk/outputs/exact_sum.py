"""Exact sums of doubles in DuckDB: correctly rounded, the same in any order of the records, and spilled to disk.

A released sum must be the same number however the records come (a file, a DataFrame, DuckDB's threads, Spark's
frequency table) and however large the file. ``FSUM(x ORDER BY x)`` gave the first, but DuckDB holds an ordered
aggregate's values in memory: at 10⁸ records it ran out of its memory limit. The exact sum gives both.

Every finite double is an integer multiple of 2⁻¹⁰⁷⁴. Over a column whose non-zero magnitudes have binary
exponents lo … hi (|x| ∈ [2^lo, 2^(hi+1))), every |x| is a whole multiple of 2^b₀, b₀ = max(lo − 52, −1074), and
below 2^(hi+1). Its binary digits are cut into 64-bit limbs from b₀ up,

    limb_j(x) = ⌊|x| / 2^(b₀ + 64j)⌋ mod 2⁶⁴,   |x| = Σ_j limb_j(x) · 2^(b₀ + 64j)   (exactly),

computed in doubles without rounding (scaling by a power of two, ``floor`` and the remainder are exact). DuckDB adds
each limb, with the value's sign, as a HUGEINT: an ordinary aggregate, in parallel and spilled, exact for fewer
than 2⁶³ records. Python adds the limbs' totals as integers, Σ = Σ_j S_j · 2^(b₀ + 64j), and rounds once (integer
division by a power of two is correctly rounded): the exact sum rounded to the nearest double, as
``math.fsum`` gives it. A mean is that exact sum divided by the count, rounded once.

The limbs' grid is read from the column first (one pass: the least and largest non-zero magnitude). A column with
a NaN or an infinite value has no exact sum; it keeps the ordered compensated sum (:func:`ordered_sum`), whose
result, NaN or infinite, does not depend on the order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Grid", "exact_sum_sql", "from_limbs", "limb_grid", "ordered_sum"]

_LIMB = 64
_TINIEST = -1074  # the exponent of the least subnormal double
_CLAMP = 1000  # a magnitude ≥ 2^(b + 1000) has no digit in the limb at b (its digits lie above b + 900)


@dataclass(frozen=True)
class Grid:
    """The limbs of a column: ``base`` = b₀ (the lowest binary digit any value has) and ``limbs`` of 64 bits each,
    or ``limbs`` 0 when the column has a NaN or an infinite value (then its sum is the ordered ``FSUM``)."""

    base: int
    limbs: int

    @property
    def exact(self) -> bool:
        return self.limbs > 0


def ordered_sum(expr: str, function: str = "FSUM") -> str:
    """SQL of a compensated sum (``FSUM``, or ``FAVG`` for a mean) of ``expr`` added in the order of its values: the
    sum of a column holding a NaN or an infinite value (whose result does not depend on the order); held in
    memory by DuckDB, so not for large files.

    Example:
        >>> ordered_sum("x")
        'FSUM(x ORDER BY x)'
    """
    return f"{function}({expr} ORDER BY {expr})"


def limb_grid(con: Any, expr: str, source: str = "data") -> Grid:
    """The limbs that hold every value of ``expr`` over ``source`` exactly (one pass over the records).

    Example:
        >>> import duckdb
        >>> con = duckdb.connect()
        >>> _ = con.execute("CREATE TABLE data AS SELECT * FROM (VALUES (0.5), (3.0), (NULL)) t(x)")
        >>> limb_grid(con, "x")
        Grid(base=-53, limbs=1)
    """
    row = con.execute(
        f"SELECT MIN(abs(__e)) FILTER (WHERE __e <> 0), MAX(abs(__e)) FILTER (WHERE isfinite(__e)), "
        f"bool_or(NOT isfinite(__e)) FROM (SELECT CAST({expr} AS DOUBLE) AS __e FROM {source})"
    ).fetchall()
    least, largest, odd = row[0] if row else (None, None, None)
    if odd:
        return Grid(0, 0)
    if least is None or largest is None:  # no value other than 0 (or none at all): one limb of zeros
        return Grid(0, 1)
    lo, hi = math.frexp(least)[1] - 1, math.frexp(largest)[1] - 1
    base = max(lo - 52, _TINIEST)
    return Grid(base, (hi - base) // _LIMB + 1)


def _pow2(k: int) -> str:
    return f"pow(2.0, {int(k)})"


def _limb(expr: str, bottom: int) -> str:
    """SQL of ⌊|x| / 2^bottom⌋ mod 2⁶⁴ as an exact double, without overflow: a magnitude whose digits all lie above
    the limb is first lowered to 2^(bottom + 1000) (which has none in it either), and the scaling by 2^−bottom is
    done in two halves so that no step leaves the doubles' range while a digit of the limb is at stake."""
    a = f"abs(CAST({expr} AS DOUBLE))"
    if bottom + _CLAMP <= 1023:
        a = f"least({a}, {_pow2(bottom + _CLAMP)})"
    first = (-bottom) // 2
    t = f"(({a}) * {_pow2(first)} * {_pow2(-bottom - first)})"
    return f"(floor({t}) - floor({t} * {_pow2(-_LIMB)}) * {_pow2(_LIMB)})"


def exact_sum_sql(expr: str, grid: Grid, *, mean: bool = False) -> str:
    """SQL of an aggregate whose text :func:`from_limbs` turns into the exact sum (or mean) of ``expr``: the limbs'
    signed HUGEINT totals, as text (a HUGEINT is not a pandas type), NULL when ``expr`` has no value.

    Example:
        >>> import duckdb
        >>> con = duckdb.connect()
        >>> _ = con.execute("CREATE TABLE data AS SELECT * FROM (VALUES (1e16), (1.0), (-1e16), (1.0)) t(x)")
        >>> grid = limb_grid(con, "x")
        >>> text = con.execute(f"SELECT {exact_sum_sql('x', grid)} FROM data").fetchall()[0][0]
        >>> from_limbs(pd.Series([text]), grid).tolist()  # a plain float sum in this order gives 0.0
        [2.0]
    """
    if not grid.exact:
        return f"CAST({ordered_sum(f'CAST({expr} AS DOUBLE)', 'FAVG' if mean else 'FSUM')} AS VARCHAR)"
    signed = f"sign(CAST({expr} AS DOUBLE))"
    parts = [
        f"CAST(SUM(CAST({_limb(expr, grid.base + _LIMB * j)} AS HUGEINT) * {signed}) AS VARCHAR)"
        for j in range(grid.limbs)
    ]
    if mean:
        parts.insert(0, f"CAST(COUNT({expr}) AS VARCHAR)")
    return f"CASE WHEN COUNT({expr}) = 0 THEN NULL ELSE concat_ws(',', {', '.join(parts)}) END"


def from_limbs(texts: pd.Series | Any, grid: Grid, *, mean: bool = False) -> np.ndarray:
    """The exact sums (or means) that :func:`exact_sum_sql` gave as text, each rounded once to the nearest double;
    NaN where there was no value. A sum beyond the doubles' range is ±infinity.

    Example:
        >>> from_limbs(pd.Series(["3", None]), Grid(-1, 1)).tolist()  # 3 · 2⁻¹, no value
        [1.5, nan]
    """
    out = np.full(len(texts), np.nan)
    for i, text in enumerate(texts):
        if text is None or (isinstance(text, float) and math.isnan(text)) or text is pd.NA:
            continue
        if not grid.exact:
            out[i] = float(text)
            continue
        numbers = [int(p) for p in str(text).split(",")]
        count = numbers.pop(0) if mean else 1
        total = sum(s << (_LIMB * j) for j, s in enumerate(numbers))
        out[i] = _rounded(total, grid.base, count)
    return out


def _rounded(total: int, base: int, count: int) -> float:
    """total · 2^base / count rounded once to the nearest double (±infinity beyond its range)."""
    try:
        if base >= 0:
            return (total << base) / count
        return total / (count << -base)
    except OverflowError:
        return math.inf if total > 0 else -math.inf
