"""Rounding: unbiased random rounding against brute force, deterministic rounding's certainty and intervals."""

from __future__ import annotations

import itertools
import math

import pytest

from privrisk.accounting.rounding import (
    deterministic_rounding,
    difference_bounds,
    person_disclosed,
    randomised_rounding_guarantee,
    rounded_interval,
)
from privrisk.errors import PrivriskError


def _random_rounding(count: int, base: int) -> dict[int, float]:
    """Unbiased random rounding written out: down with probability 1 − r/b, up with r/b."""
    low, r = base * (count // base), count % base
    out = {low: 1 - r / base}
    if r:
        out[low + base] = r / base
    return {k: v for k, v in out.items() if v > 0}


def _hockey(p: dict[int, float], q: dict[int, float], eps: float) -> float:
    return sum(max(0.0, v - math.exp(eps) * q.get(x, 0.0)) for x, v in p.items())


@pytest.mark.parametrize("base", [2, 3, 5, 10])
def test_randomised_rounding_matches_brute_force(base):
    g = randomised_rounding_guarantee(base)
    for eps in (0.0, 0.2, 0.7, 1.5, 3.0, 30.0):
        brute = max(
            max(_hockey(_random_rounding(c + 1, base), _random_rounding(c, base), eps),
                _hockey(_random_rounding(c, base), _random_rounding(c + 1, base), eps))
            for c in range(3 * base)
        )  # fmt: skip
        assert g.delta_at(eps) == pytest.approx(brute, abs=1e-12)
    assert g.delta_at(1e6) == pytest.approx(1 / base)  # a multiple of b is never published as the next one
    assert math.isinf(g.epsilon_at(0.5 / base))


def test_rr3_is_unbiased_and_its_risk():
    for c in range(20):
        assert sum(k * p for k, p in _random_rounding(c, 3).items()) == pytest.approx(c)
    g = randomised_rounding_guarantee(3)
    assert (1 + g.delta_at(0.0)) / 2 == pytest.approx(2 / 3)  # told apart 2 times in 3 at the worst count


def _round(c: int, base: int) -> int:
    return base * math.floor(c / base + 0.5)


@pytest.mark.parametrize("base", [2, 3, 5, 10])
def test_deterministic_rounding_is_certain_one_count_in_b(base):
    moved = sum(_round(c + 1, base) != _round(c, base) for c in range(base * 100))
    assert moved / (base * 100) == deterministic_rounding(base).certain_share
    assert deterministic_rounding(base).delta_at(100.0) == 1.0


@pytest.mark.parametrize("base", [2, 3, 5])
def test_intervals_and_differences_match_enumeration(base):
    for published in range(0, 8 * base, base):
        counts = [c for c in range(10 * base) if _round(c, base) == published]
        assert rounded_interval(published, base) == (min(counts), max(counts))
    for total, part in itertools.product(range(0, 6 * base, base), repeat=2):
        diffs = [
            t - a
            for t in range(8 * base)
            for a in range(t + 1)
            if _round(t, base) == total and _round(a, base) == part
        ]
        if not diffs:
            with pytest.raises(PrivriskError):
                difference_bounds(total, part, base=base)
            continue
        assert difference_bounds(total, part, base=base) == (min(diffs), max(diffs))


def test_two_roundings_of_nested_totals_disclose_a_person():
    # Everyone else in the difference is known: 5 people. The total is 20, the total without them 10 (base 5):
    # the difference lies in [6, 14], so there are 6: the person is in it.
    assert difference_bounds(20, 10, base=5) == (6, 14)
    assert person_disclosed(20, 10, base=5, others=5) is True
    assert person_disclosed(20, 10, base=5, others=14) is False
    assert person_disclosed(20, 10, base=5, others=8) is None
    with pytest.raises(PrivriskError, match="neither 20 nor 21"):
        person_disclosed(20, 10, base=5, others=20)
