"""The Risk page's headline: whether it follows the guarantee of "Other guarantees", and its verdict in plain
words (the many-worlds risk ρ_mw beside guessing, as natural frequencies)."""

from __future__ import annotations

from typing import Any

from privrisk._format import natural_frequencies, percent_for_people

__all__ = ["headline_follows_the_guarantee", "verdict"]


def headline_follows_the_guarantee(
    kind: str, compose: Any = None, group: Any = None, sample_rate: Any = None
) -> bool:
    """Whether the page's other fields describe another guarantee than ε (and δ) above: another kind, or ε
    composed, for groups, or subsampled. Then the headline is that guarantee's risk, not the pure ε's.

    Example:
        >>> headline_follows_the_guarantee("epsilon"), headline_follows_the_guarantee("epsilon", compose="1")
        (False, False)
        >>> headline_follows_the_guarantee("epsilon", compose="1000000"), headline_follows_the_guarantee("mu")
        (True, True)
    """
    if kind != "epsilon":
        return True
    for value in (compose, group, sample_rate):
        text = "" if value is None else str(value).strip()
        if not text:
            continue
        try:
            if float(text) == 1.0:
                continue
        except ValueError:
            pass
        return True
    return False


def verdict(many_worlds: float, n: int) -> tuple[str, str]:
    """The page's first number and sentence, in plain words: how often the attacker who knows everyone else
    would be right (ρ_mw, Mehner et al. eq. (1)), beside guessing (1/n), as natural frequencies.

    Example:
        >>> verdict(0.75, 2)
        ('75 %', 'An attacker who knows everyone else would be right about 75 times in 100; guessing, about 50 in 100.')
        >>> verdict(0.25, 10)[1]
        'An attacker who knows everyone else would pick the right one of 10 possible data sets about 25 times in 100; guessing, about 10 in 100.'
    """
    attacker, guess = natural_frequencies(many_worlds, 1.0 / n)
    base = f"{attacker.base:,}"
    what = "be right" if n == 2 else f"pick the right one of {n:,} possible data sets"
    return (
        percent_for_people(many_worlds),
        f"An attacker who knows everyone else would {what} {attacker.text()} times in {base}; "
        f"guessing, {guess.text()} in {base}.",
    )
