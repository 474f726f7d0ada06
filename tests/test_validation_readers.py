"""The readers every settings object shares (privrisk._validation): blank, numbers, whole numbers, bounds, old names.

Each was written once per capability before (audit, empirical, synthetic, study, attack, sensitivity); these tests
pin what they all relied on, against Python's own float() and hand-made cases.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privrisk._validation import (
    check_bounds,
    check_number,
    is_blank,
    optional_number,
    optional_whole,
    read_number,
    take_old_data,
    text_or_none,
)
from privrisk.errors import PrivriskError


@pytest.mark.parametrize("value", [None, "", " ", "\t\n"])
def test_nothing_given_is_blank_and_reads_as_none(value):
    assert is_blank(value)
    assert text_or_none(value) is None
    assert optional_number(value, name="u") is None
    assert optional_whole(value, name="seed") is None


@pytest.mark.parametrize("value", [0, 0.0, "0", False, " x ", ()])
def test_a_value_is_not_blank(value):
    assert not is_blank(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_number_typed_as_text_reads_as_the_number(x):
    text = f"  {x!r} "
    assert read_number(text, name="u") == x
    assert optional_number(text, name="u") == x
    assert check_number(text, name="u") == x


@given(st.integers(min_value=0, max_value=10**12))
def test_whole_numbers_read_from_text_ints_and_whole_floats(n):
    assert optional_whole(str(n), name="seed") == n
    assert optional_whole(n, name="seed") == optional_whole(float(n), name="seed") == n
    assert read_number(f"{n:,}", name="n", thousands=True) == n


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: optional_number("abc", name="u"), "u: 'abc' is not a number"),
        (lambda: optional_whole("2.5", name="top"), "top: must be a whole number ≥ 0, got '2.5'"),
        (lambda: optional_whole(2, name="window", minimum=3), "window: must be a whole number ≥ 3, got 2"),
        (lambda: check_number(True, name="universe_min"), "universe_min: True is not a number"),
        (
            lambda: check_number("nan", name="universe_min"),
            "universe_min: must be a finite number, got 'nan'",
        ),
        (lambda: check_bounds((1,), name="universe"), "universe: give two numbers LO,HI"),
        (
            lambda: check_bounds("3,3", name="universe"),
            "universe: the lower bound must be below the upper bound",
        ),
        (lambda: check_bounds((0, math.inf), name="universe"), "universe: bounds must be finite numbers"),
    ],
)
def test_bad_input_is_one_error_naming_its_field(call, message):
    with pytest.raises(PrivriskError) as info:
        call()
    assert str(info.value).startswith(message)
    assert info.value.param == message.split(":")[0]


@given(st.floats(-1e9, 1e9), st.floats(1e-3, 1e9))
def test_bounds_read_the_same_from_text_and_from_a_pair(lo, width):
    hi = lo + width
    assert check_bounds((lo, hi), name="universe") == (lo, hi)
    assert check_bounds(f"{lo!r},{hi!r}", name="universe") == (lo, hi)


@dataclass(frozen=True)
class _Settings:
    data: Any = None

    def take(self, **old: Any) -> None:
        take_old_data(self, old)


def test_an_old_name_of_data_warns_at_the_caller_and_moves_into_data():
    s = _Settings()
    with pytest.warns(DeprecationWarning, match=r"_Settings\(file=…\) is deprecated") as record:
        s.take(file="a.csv", values=None)
    assert s.data == "a.csv"
    assert len(record) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _Settings(data="b.csv").take(file="", table=None)  # nothing given under an old name: no warning


def test_an_old_name_beside_data_is_an_error_naming_the_old_name():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(PrivriskError, match="table: the old name of data") as e,
    ):
        _Settings(data="b.csv").take(table=[1, 2, 3])
    assert e.value.param == "table"
