"""A perturbation table's protection in the words of a census user, in English and German.

The sentences are those of ``assets/census.LANG.json`` (translators edit text, not Python), filled with numbers of
:mod:`privrisk.accounting.cellkey`: the largest change to a published count and the share of counts published as
they are; the best attacker's success (who knows everyone else, at prior ½: (1 + δ(0))/2) as a natural frequency
against guessing, 5 in 10; and, where the table never changes a zero, the zero-cell disclosure and the success
against a person who is not alone in the cell. A table that fully reveals someone (deterministic rounding, as
ONS's shipped table) is said to hide no one.

Example:
    >>> from privrisk.accounting.cellkey import perturbation_table
    >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.25, 0: 0.5, 1: 0.25}, 2: {-1: 0.25, 0: 0.5, 1: 0.25}})
    >>> print(cell_key_words(t).attacker)     # a 1 is published above 0 three times in four
    An attacker who knows everyone else can tell whether a person was counted about 9 times in 10, guessing about 5 in 10.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from privrisk._format import natural_frequencies, percent_for_people
from privrisk._validation import check_choice, check_whole
from privrisk.accounting.cellkey import PerturbationTable, cell_key_guarantee, cell_key_release
from privrisk.reports.html import asset_text

__all__ = ["LANGUAGES", "CensusWords", "cell_key_words"]

LANGUAGES = ("en", "de")
TEXT: dict[str, dict[str, Any]] = {lang: json.loads(asset_text(f"census.{lang}.json")) for lang in LANGUAGES}
# From this share of counts published unchanged on, a change is "usually not at all".
USUALLY = 0.5


@dataclass(frozen=True)
class CensusWords:
    """The sentences, each ready to print.

    Attributes:
        noise: how much the table changes a count ("" when it reveals someone anyway: rounding, not noise).
        attacker: the best attacker's success against guessing.
        alone: the zero-cell disclosure and the success against a person not alone ("" when zeros are changed,
            for several cells, or when the table reveals someone anyway).
        assumption: what the numbers assume.
        success: the attacker's success the sentence states, (1 + δ(0))/2.
    """

    noise: str
    attacker: str
    alone: str
    assumption: str
    success: float

    def paragraph(self) -> str:
        """Every sentence, in order."""
        return " ".join(s for s in (self.noise, self.attacker, self.alone, self.assumption) if s)


def _fill(template: str, **values: Any) -> str:
    for key, value in values.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def _in_ten(p: float, lang: str) -> tuple[str, str, str]:
    """p and ½ as "about k in 10" (or out of a larger base when p needs it)."""
    risk, guess = natural_frequencies(p, 0.5, base=10)
    return risk.text(lang), guess.text(lang), f"{risk.base:,}".replace(",", "." if lang == "de" else ",")


def cell_key_words(table: PerturbationTable, *, cells: int = 1, lang: str = "en") -> CensusWords:
    """What a perturbation table means for the people counted, in plain sentences.

    Args:
        table: the perturbation table.
        cells: how many published cells hold one person (each a different cell with its own key); 1 by default.
        lang: ``"en"`` or ``"de"``.

    Example:
        >>> from privrisk.accounting.cellkey import perturbation_table
        >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}})
        >>> print(cell_key_words(t, lang="de").noise)
        Das Amt ändert jede veröffentlichte Zahl um höchstens 1 (nach oben oder unten) und meist gar nicht: 50 % der Zahlen werden unverändert veröffentlicht.
    """
    language = check_choice(lang, LANGUAGES, name="lang")
    text = TEXT[language]
    k = check_whole(cells, name="cells", minimum=1)
    counts = range(1, max(table.top, 1) + 1)
    unchanged = min(table.unchanged_probability(c) for c in counts)
    if table.max_noise == 0:  # (the sentence is dropped below for a table that reveals anyone)
        noise = text["noise_none"]
    else:
        key = "noise_usually" if unchanged >= USUALLY else "noise_often"
        noise = _fill(
            text[key],
            max_noise=table.max_noise,
            unchanged=percent_for_people(unchanged, language, decimals=0),
        )
    g = cell_key_guarantee(table) if k == 1 else cell_key_release([(table, k)])
    advantage = g.delta_at(0.0)
    success = (1.0 + advantage) / 2.0
    if advantage >= 1.0:  # some count is always told apart: rounding, not noise
        return CensusWords("", text["certain"], "", "", success)
    risk, guess, base = _in_ten(success, language)
    if k == 1:
        attacker = _fill(text["attacker"], risk=risk, guess=guess, base=base)
    else:
        attacker = _fill(text["attacker_cells"], risk=risk, guess=guess, base=base, cells=k)
    alone = ""
    if k == 1 and table.zeros_unperturbed and table.zero_cell_disclosure > 0:
        among, _, base_among = _in_ten(
            (1.0 + cell_key_guarantee(table, least_count=1).delta_at(0.0)) / 2.0, language
        )
        zero, _, base_zero = _in_ten(table.zero_cell_disclosure, language)
        if base_among == base_zero:
            alone = _fill(text["alone"], zero=zero, among=among, base=base_zero)
    return CensusWords(noise, attacker, alone, text["assumption"], success)
