"""Rounding counts to a base: randomised rounding is a guarantee (exact), deterministic rounding is not.

**Unbiased random rounding** to base b publishes a count c = qb + r (0 ≤ r < b) as (q + 1)b with probability r/b
and as qb otherwise (so E = c; Statistics New Zealand's RR3 is b = 3). A neighbouring count c + 1 moves that
probability by 1/b; where c is a multiple of b, c is published exactly (qb with certainty) while c + 1 is published
(q + 1)b with probability 1/b, an outcome c never shows: δ(ε) ≥ 1/b at every ε, and the profile is that of the
worst residue r, exactly (:class:`RandomisedRounding`).

**Deterministic rounding** (to the nearest multiple of b, halves up) is not a guarantee: for one count in b the
person's presence moves the published value, and an attacker who knows everyone else is then certain; δ(ε) = 1
at every ε. What it leaves is an interval: a published R means c ∈ [R − ⌊b/2⌋, R + ⌈b/2⌉ − 1], and two
roundings of nested totals (a total and the same total without a few people) bound their difference
(:func:`difference_bounds`), which discloses a person when the interval leaves only one of "without" and
"with" (:func:`person_disclosed`).

Example:
    >>> g = randomised_rounding_guarantee(3)
    >>> round(g.delta_at(50.0), 4)                 # 1/b: the outcome a multiple of 3 never shows
    0.3333
    >>> difference_bounds(20, 10, base=5)          # total in [18, 22], part in [8, 12]
    (6, 14)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from privrisk._validation import check_whole
from privrisk.accounting.pairwise import Pair, PairFamily
from privrisk.errors import PrivriskError

__all__ = [
    "DeterministicRounding",
    "RandomisedRounding",
    "deterministic_rounding",
    "difference_bounds",
    "parse_rounding",
    "person_disclosed",
    "randomised_rounding_guarantee",
    "rounded_interval",
    "rounding_guarantee",
]


def _rounded_up(count: int, base: int) -> float:
    """P(c is published as the multiple of b above it) under unbiased random rounding: r/b."""
    return (count % base) / base


@dataclass(frozen=True, eq=False)
class RandomisedRounding(PairFamily):
    """Unbiased random rounding to base b (module docstring): the worst residue r of the pairs (c, c + 1).

    Attributes:
        base: b ≥ 2.
    """

    base: int = 2

    def _pairs(self) -> Iterator[Pair]:
        b = self.base
        for r in range(b):
            # Outcomes qb, (q + 1)b, (q + 2)b for c = qb + r and c + 1.
            up0, up1 = _rounded_up(r, b), _rounded_up(r + 1, b)
            q0 = np.array([1.0 - up0, up0, 0.0])
            q1 = np.array([1.0 - up1, up1, 0.0]) if r + 1 < b else np.array([0.0, 1.0, 0.0])
            yield q1, q0

    _label = "unbiased random rounding to base {self.base}"
    _conversion = "exact: the worst residue c mod b of the pairs of counts c and c + 1, in both orders"

    def sentence(self) -> str:
        """What unbiased random rounding gives, in one paragraph.

        Example:
            >>> randomised_rounding_guarantee(3).sentence().split(":")[0]
            'Unbiased random rounding to base 3 is a guarantee with δ = 1/3 at every ε'
        """
        b = self.base
        return (
            f"Unbiased random rounding to base {b} is a guarantee with δ = 1/{b} at every ε: a count that is a "
            f"multiple of {b} is published as it is, and the count one above it is published one step up with "
            f"probability 1/{b}, which the first never shows. At that count an attacker who knows everyone else "
            f"is right {_fraction(1 + 1 / b, 2)} of the time; at the others less often."
        )


def _fraction(numerator: float, denominator: float) -> str:
    from privrisk._format import percent

    return percent(numerator / denominator)


def randomised_rounding_guarantee(base: int) -> RandomisedRounding:
    """Unbiased random rounding of a count to base b (b = 3: RR3).

    Example:
        >>> g = randomised_rounding_guarantee(2)
        >>> g.pure_epsilon is None, round(g.delta_at(0.0), 4)
        (True, 0.5)
    """
    return RandomisedRounding(base=check_whole(base, name="base", minimum=2))


def rounded_interval(published: int, base: int) -> tuple[int, int]:
    """The true counts that round to ``published`` (nearest multiple of b, halves up), never below 0.

    Example:
        >>> rounded_interval(15, 5), rounded_interval(0, 5), rounded_interval(4, 2)
        ((13, 17), (0, 2), (3, 4))
    """
    b = check_whole(base, name="base", minimum=2)
    r = check_whole(published, name="published", minimum=0)
    if r % b:
        raise PrivriskError(f"published: {r} is not a multiple of the base {b}", param="published")
    return max(0, r - b // 2), r + (b + 1) // 2 - 1


def difference_bounds(rounded_total: int, rounded_part: int, *, base: int) -> tuple[int, int]:
    """The least and the largest true difference total − part, for a total and a part of it, both rounded.

    Example:
        >>> difference_bounds(15, 15, base=5)
        (0, 4)
    """
    lo_t, hi_t = rounded_interval(rounded_total, base)
    lo_p, hi_p = rounded_interval(rounded_part, base)
    if hi_t < lo_p:
        raise PrivriskError(
            f"rounded_part: a part rounded to {rounded_part} cannot lie inside a total rounded to {rounded_total}",
            param="rounded_part",
        )
    return max(0, lo_t - hi_p), hi_t - lo_p


def person_disclosed(rounded_total: int, rounded_part: int, *, base: int, others: int) -> bool | None:
    """Whether two roundings disclose one person: the difference total − part holds ``others`` people the
    attacker knows and maybe the person. True: the person is in it; False: the person is not; None: both fit.

    Example:
        >>> person_disclosed(20, 10, base=5, others=5)     # the difference is in [6, 14]: 6, so the person is in
        True
        >>> person_disclosed(15, 15, base=5, others=2)     # [0, 4] holds 2 and 3
    """
    lo, hi = difference_bounds(rounded_total, rounded_part, base=base)
    k = check_whole(others, name="others", minimum=0)
    without, with_person = lo <= k <= hi, lo <= k + 1 <= hi
    if without and with_person:
        return None
    if not without and not with_person:
        raise PrivriskError(
            f"others: neither {k} nor {k + 1} lies in the difference's interval [{lo}, {hi}]", param="others"
        )
    return with_person


@dataclass(frozen=True, eq=False)
class DeterministicRounding(PairFamily):
    """Rounding to the nearest multiple of b, which no ε and no δ < 1 describes (module docstring): its one pair
    is the count just below a point where the rounding changes and the count above it, published as two different
    values for certain, so δ(ε) = 1 at every ε and the best attacker is always right there.

    Attributes:
        base: b ≥ 2.
    """

    base: int = 2

    def _pairs(self) -> Iterator[Pair]:
        # c = qb + ⌈b/2⌉ − 1 is published qb, c + 1 is published (q + 1)b.
        yield np.array([0.0, 1.0]), np.array([1.0, 0.0])

    _label = "rounding to the nearest multiple of {self.base} (deterministic: no privacy guarantee)"
    _conversion = "exact: for one count in b one person moves the published value (δ = 1 at every ε)"

    @property
    def certain_share(self) -> float:
        """The share of counts c at which one person moves the published value (c + 1 rounds elsewhere): 1/b."""
        return 1.0 / self.base

    def differencing(self) -> tuple[int, int, tuple[int, int], int]:
        """The worked differencing example of :meth:`sentence`: (rounded total 4b, rounded part 2b, the interval
        of their difference, the people in it the attacker knows), where the interval leaves the person alone.

        Example:
            >>> deterministic_rounding(5).differencing()
            (20, 10, (6, 14), 5)
        """
        total, part = 4 * self.base, 2 * self.base
        low, high = difference_bounds(total, part, base=self.base)
        return total, part, (low, high), low - 1

    def sentence(self) -> str:
        """What deterministic rounding gives, in one paragraph: no guarantee, and the differencing risk.

        Example:
            >>> deterministic_rounding(5).sentence().split(". ")[0]
            'Rounding to the nearest multiple of 5 is not a privacy guarantee'
        """
        b = self.base
        total, part, (low, high), others = self.differencing()
        assert person_disclosed(total, part, base=b, others=others)
        return (
            f"Rounding to the nearest multiple of {b} is not a privacy guarantee. For one count in {b} (every count "
            f"just below a point where the rounding changes) one person moves the published value, and an attacker "
            f"who knows everyone else is then certain whether the person was counted: δ = 1 at every ε, whatever "
            f"the noise of other cells. Rounding also leaves differences: a total published as {total} and the same "
            f"total without a small group published as {part} put the group at {low} to {high} people; an attacker "
            f"who knows {others} of them knows that the person is the last one. Unbiased random rounding "
            f"(random:{b}) is a guarantee; it still tells one count in {b} apart with probability 1/{b}."
        )


def deterministic_rounding(base: int) -> DeterministicRounding:
    """Deterministic rounding to base b, as a statement of what it does not guarantee.

    Example:
        >>> deterministic_rounding(5).certain_share
        0.2
    """
    return DeterministicRounding(base=check_whole(base, name="base", minimum=2))


#: How a rounding is written (``kind:base``), each kind with its spellings.
ROUNDING_KINDS = {
    "random": ("random", "randomised", "randomized", "unbiased"),
    "deterministic": ("deterministic",),
}


def parse_rounding(value: str | tuple[str, int], *, name: str = "rounding") -> tuple[str, int]:
    """(kind, base) of a rounding written ``random:B`` (unbiased random rounding), ``deterministic:B`` or ``B``
    alone (rounding to the nearest multiple of B).

    Raises:
        PrivriskError: (param ``name``) for anything else.

    Example:
        >>> parse_rounding("random:3"), parse_rounding("Deterministic: 5"), parse_rounding("10")
        (('random', 3), ('deterministic', 5), ('deterministic', 10))
    """
    if isinstance(value, tuple) and len(value) == 2:
        kind_text, base_text = str(value[0]), str(value[1])
    elif ":" not in str(value):  # a base alone: rounding to it, as "rounded to base 5" means
        kind_text, base_text = "deterministic", str(value)
    else:
        kind_text, _, base_text = str(value).partition(":")
    kind = next(
        (k for k, spellings in ROUNDING_KINDS.items() if kind_text.strip().lower() in spellings), None
    )
    try:
        base = int(base_text.strip())
    except ValueError:
        base = 0
    if kind is None or base < 2:
        raise PrivriskError(
            f"{name}: write random:B (unbiased random rounding), or B or deterministic:B (to the nearest multiple), "
            f"B a whole base ≥ 2 such as random:3; got {value!r}",
            param=name,
        )
    return kind, base


def rounding_guarantee(value: str | tuple[str, int], *, name: str = "rounding") -> PairFamily:
    """The guarantee of a rounding written as :func:`parse_rounding` reads it (deterministic rounding: δ = 1).

    Example:
        >>> round(rounding_guarantee("random:4").delta_at(9.0), 4), rounding_guarantee("deterministic:4").delta_at(9.0)
        (0.25, 1.0)
    """
    kind, base = parse_rounding(value, name=name)
    return randomised_rounding_guarantee(base) if kind == "random" else deterministic_rounding(base)
