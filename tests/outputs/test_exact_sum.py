"""Exact sums in DuckDB (privrisk.outputs.exact_sum) against the exact rational sum rounded once (Python's Fraction).

The reference shares no code with the module: it adds the values as fractions and rounds the total to the nearest
double, which is the correctly rounded sum by definition.
"""

from __future__ import annotations

import math
from fractions import Fraction

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.exact_sum import exact_sum_sql, from_limbs, limb_grid
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _reference(values: list[float], mean: bool = False) -> float:
    if not values:
        return math.nan
    total = sum((Fraction(v) for v in values), Fraction(0))
    if mean:
        total /= len(values)
    try:
        return float(total)
    except OverflowError:
        return math.inf if total > 0 else -math.inf


def _duckdb(
    values: list[float | None], groups: list[int] | None = None, mean: bool = False
) -> dict[int, float]:
    con = duckdb.connect()
    frame = pd.DataFrame({"g": groups or [0] * len(values), "x": pd.Series(values, dtype="float64")})
    con.register("data", frame)
    grid = limb_grid(con, "x")
    got = con.execute(
        f"SELECT g, {exact_sum_sql('x', grid, mean=mean)} AS s FROM data GROUP BY g ORDER BY g"
    ).df()
    return dict(zip(got["g"].tolist(), from_limbs(got["s"], grid, mean=mean).tolist(), strict=True))


# the least subnormal, the least normal, the largest double, a sum that a float loses, zeros of both signs
_EDGES = [5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e16, 1.0,
          0.1, -0.0, 0.0]  # fmt: skip
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
spread = st.one_of(
    finite,
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.sampled_from(_EDGES),
)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(spread, max_size=30), st.booleans())
@example([1e16, 1.0, -1e16, 1.0], False)  # a float sum in this order loses both ones
@example([5e-324, 1.7976931348623157e308, -1.7976931348623157e308], False)  # the whole range in one column
@example([1.7976931348623157e308, 1.7976931348623157e308], False)  # beyond the doubles: +infinity
@example([0.1, 0.2, 0.3], True)
def test_the_sum_is_the_exact_sum_rounded_once(values: list[float], mean: bool) -> None:
    got = _duckdb(values, mean=mean)
    if not values:
        assert got == {}
        return
    assert _same(got[0], _reference(values, mean))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), spread), min_size=1, max_size=40), st.randoms(use_true_random=False)
)
def test_groups_and_any_order_of_the_records_give_the_same_sums(rows: list[tuple[int, float]], rnd) -> None:
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    first = _duckdb([v for _, v in rows], [g for g, _ in rows])
    again = _duckdb([v for _, v in shuffled], [g for g, _ in shuffled])
    assert first.keys() == again.keys()
    for g, value in first.items():
        assert _same(value, again[g])
        assert _same(value, _reference([v for h, v in rows if h == g]))


def test_missing_values_add_nothing_and_a_group_without_any_is_missing() -> None:
    got = _duckdb([1.5, None, None, 2.0], [0, 0, 1, 2])
    assert got[0] == 1.5 and math.isnan(got[1]) and got[2] == 2.0


def test_a_column_with_nan_or_infinity_keeps_the_ordered_sum() -> None:
    con = duckdb.connect()
    con.register("data", pd.DataFrame({"x": [1.0, np.inf, 2.0]}))
    grid = limb_grid(con, "x")
    assert not grid.exact
    text = con.execute(f"SELECT {exact_sum_sql('x', grid)} FROM data").df().iloc[0, 0]
    assert from_limbs(pd.Series([text]), grid)[0] == math.inf
    con.unregister("data")  # (a pandas NaN reaches DuckDB as missing: the NaN is made in SQL)
    con.execute("CREATE TABLE data AS SELECT * FROM (VALUES (1.0::DOUBLE), ('nan'::DOUBLE)) t(x)")
    grid = limb_grid(con, "x")
    assert not grid.exact
    text = con.execute(f"SELECT {exact_sum_sql('x', grid)} FROM data").df().iloc[0, 0]
    assert math.isnan(from_limbs(pd.Series([text]), grid)[0])


def test_the_sum_is_read_by_hand_from_its_limbs() -> None:
    # 2⁶⁴ + 3 halves: limbs of 64 bits from 2⁻¹: 3 + 2·2⁶⁴ half-units
    con = duckdb.connect()
    con.register("data", pd.DataFrame({"x": [2.0**64, 1.5]}))
    grid = limb_grid(con, "x")
    assert (grid.base, grid.limbs) == (-52, 2)  # 1.5 = 3·2⁻¹ is read from 2⁰⁻⁵² up; 2⁶⁴ needs a second limb
    text = con.execute(f"SELECT {exact_sum_sql('x', grid)} FROM data").df().iloc[0, 0]
    assert [int(p) for p in text.split(",")] == [3 * 2**51, 2**64 // 2**12]
    assert from_limbs(pd.Series([text]), grid)[0] == 2.0**64  # 2⁶⁴ + 1.5 rounds to 2⁶⁴


class _OutOfMemory:
    """A connection whose table query runs out of memory (DuckDB's own exception), everything else passed on."""

    def __init__(self, con: object) -> None:
        self._con = con

    def __getattr__(self, name: str) -> object:
        return getattr(self._con, name)

    def sql(self, query: str) -> object:
        if "GROUPING SETS" in query:
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 KiB")
        return self._con.sql(query)


def test_a_table_beyond_the_memory_limit_says_so_not_that_the_data_is_wrong() -> None:
    con = connect(pd.DataFrame({"region": ["a", "b", "a"], "income": [1.0, 2.0, 3.0]}))
    spec = OutputSpec(name="S", kind="sum", rows=("region",), variable="income")
    with pytest.raises(PrivriskError) as caught:
        table_cells(_OutOfMemory(con), spec, Policy())
    message = str(caught.value)
    assert "needs more memory than DuckDB's limit" in message and "PRIVRISK_DUCKDB_MEMORY_LIMIT" in message
    assert "\n" not in message and "cannot be computed" not in message
