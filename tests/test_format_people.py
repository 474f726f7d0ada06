"""The app's one number format (privrisk._format.percent_for_people, count, number), checked as properties.

Each property is what a reader of the page relies on: the percentage read back is within half a step of the
truth, a risk above 0 never reads as 0 % (nor one below 1 as 100 %), larger risks never read smaller, there is
no e-notation, and German differs from English only by its separators.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browser_helpers import E_NOTATION
from privrisk._format import count, number, percent_for_people

OPEN_UNIT = st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True, allow_subnormal=True)


def read_back(text: str) -> float:
    """The percentage a reader takes from the text; the two edges read as their bound."""
    number_part = text.removesuffix(" %").split()[-1].replace(",", ".")
    return float(number_part)


@given(OPEN_UNIT)
def test_a_probability_strictly_between_0_and_1_never_reads_as_0_or_100(p):
    text = percent_for_people(p)
    assert not re.fullmatch(r"0(\.0+)? %", text), text
    assert not re.fullmatch(r"100(\.0+)? %", text), text
    assert not E_NOTATION.search(text)


@given(OPEN_UNIT)
def test_the_percentage_read_back_is_within_half_a_step_or_the_edge_is_true(p):
    text = percent_for_people(p)
    shown = read_back(text)
    if text.startswith("less than"):
        assert 100 * p < 0.1 and shown == 0.1
    elif text.startswith("more than"):
        assert 100 * p > 99.9 and shown == 99.9
    else:
        assert 0.1 <= shown <= 99.9
        assert abs(shown - 100 * p) <= 0.05 + 1e-9, (p, text)


@given(OPEN_UNIT, OPEN_UNIT)
def test_a_larger_probability_never_reads_smaller(p, q):
    low, high = sorted((p, q))

    def rank(text: str) -> tuple[int, float]:
        edge = -1 if text.startswith("less") else 1 if text.startswith("more") else 0
        return (edge, read_back(text) if edge == 0 else 0.0)

    assert rank(percent_for_people(low)) <= rank(percent_for_people(high))


@given(st.floats(min_value=0.0, max_value=1.0))
def test_german_differs_from_english_only_by_its_separators_and_words(p):
    en, de = percent_for_people(p), percent_for_people(p, "de")
    words = {"less than": "weniger als", "more than": "mehr als"}
    expected = en.replace(".", ",")
    for english, german in words.items():
        expected = expected.replace(english, german)
    assert de == expected


@pytest.mark.parametrize(
    ("p", "en", "de"),
    [
        (0.0002, "less than 0.1 %", "weniger als 0,1 %"),  # issue 22: 0.0002 was shown as "0.0%"
        (1.19566e-05, "less than 0.1 %", "weniger als 0,1 %"),  # issue 22: was "1.19566e-05"
        (0.001, "0.1 %", "0,1 %"),
        (7 / 16, "43.8 %", "43,8 %"),  # half up, as the papers print it (43.75 → 43.8)
        (0.75, "75 %", "75 %"),
        (0.99984, "more than 99.9 %", "mehr als 99,9 %"),
        (0.0, "0 %", "0 %"),
        (1.0, "100 %", "100 %"),
        (math.nan, "—", "—"),
    ],
)
def test_hand_picked_values(p, en, de):
    assert percent_for_people(p) == en
    assert percent_for_people(p, "de") == de


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_counts_read_back_in_both_languages(n):
    en, de = count(n), count(n, "de")
    assert int(en.replace(",", "")) == n
    assert int(de.replace(".", "")) == n
    assert en.replace(",", ".") == de


def test_thousands_by_language():
    assert (count(12000), count(12000, "de")) == ("12,000", "12.000")
    assert (number(1234.5678), number(1234.5678, lang="de")) == ("1,235", "1.235")
    assert number(0.5, lang="de") == "0,5"


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_numbers_have_no_e_notation_and_read_back_close(x):
    text = number(x)
    assert not E_NOTATION.search(text)
    if "×" not in text:
        assert math.isclose(float(text.replace(",", "")), x, rel_tol=1e-3, abs_tol=1e-4)
