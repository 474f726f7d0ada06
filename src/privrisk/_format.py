"""One place that turns numbers into text, so a number reads the same in the terminal, on a page and in a figure.

Probabilities are percentages with sensible significant digits (a risk next to 100 % keeps the digits that
tell it apart from certainty), counts carry thousands separators, ranges read "50 % – 99.98 %", ε reads as
the user wrote it when it is the logarithm of a whole number ("ln 3"), times are in words and lists are lists.
:func:`readable` picks the right one from a summary's key, for the pages that show a manifest.

For the app's pages, :func:`percent_for_people` is the one format of a probability (never "0.0 %" for a risk
above 0, "less than 0.1 %", a decimal comma in German), and :func:`count` and :func:`number` take the page's
language for their separators.

Example:
    >>> percent(7 / 16), percent_3g(3.5e-05), whole_percent(0.001)
    ('43.8%', '0.0035 %', 'less than 1 %')
    >>> percent_range(0.5, 0.9998426007315884), count(31857), epsilon_text(1.0986122886681098)
    ('50 % – 99.98 %', '31,857', 'ln 3')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

__all__ = [
    "BELOW_ONE",
    "FREQUENCY_WORDS",
    "PROBABILITY_WORDS",
    "VOCABULARY",
    "Frequency",
    "Verdict",
    "below_certainty",
    "count",
    "decimal",
    "duration",
    "epsilon_text",
    "is_probability_key",
    "label",
    "listing",
    "natural_frequencies",
    "number",
    "percent",
    "percent_3g",
    "percent_for_people",
    "percent_range",
    "plain",
    "readable",
    "share",
    "whole_percent",
]


@dataclass(frozen=True)
class Verdict:
    """A finding in plain words: a short ``headline`` (one number) and one ``sentence``, no symbols."""

    headline: str
    sentence: str


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(exponent: int) -> str:
    """A whole number in superscript digits, for powers of ten written as people write them.

    Example:
        >>> "10" + superscript(-5)
        '10⁻⁵'
    """
    return str(exponent).translate(_SUPERSCRIPT)


def share(x: float, digits: int = 1) -> str:
    """A share as :func:`percent` writes it, and exactly none as "0%" (never "0.0%", which reads as rounded).

    Example:
        >>> share(0.0), share(0.0003), share(0.25, 2)
        ('0%', '0.03%', '25.00%')
    """
    return "0%" if float(x) == 0 else percent(x, digits)


def percent(x: float, digits: int = 1) -> str:
    """A probability as a percentage rounded half up, as the papers print them (7/16 → 43.8 %, not 43.7 %).

    The value is first rounded to 12 significant digits so that a tie computed as 0.43749999999999994 is
    still a tie. A probability above 0 is never written "0.0%" and one below 1 never "100.0%": where the rounding
    would say so, the significant digits of :func:`percent_3g` tell the value apart from the edge ("0.0005%",
    "99.96%", "more than 99.99999%").

    Example:
        >>> percent(7 / 16 - 1e-17), percent(2 / 101), percent(5e-6), percent(0.99996), percent(1.0)
        ('43.8%', '2.0%', '0.0005%', '99.996%', '100.0%')
    """
    x = float(x)
    if math.isnan(x):
        return "—"
    value = Decimal(f"{100 * x:.12g}").quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    if (0 < x and value == 0) or (x < 1 and value == 100):
        return percent_3g(x).replace(" %", "%")
    return f"{value}%"


#: The largest double below 1: a probability that the maths keeps below certainty but double precision rounds to 1.
BELOW_ONE = 1.0 - 2.0**-53


def below_certainty(p: float) -> float:
    """A probability that is known to be below 1, kept below 1 in double precision.

    Every risk of a finite ε (or of any guarantee with δ < 1) is below 1, yet e.g. 1/(1 + e^(−700)) is 1.0 in
    double precision, and "all 100 of 100" or "100 %" would then be false. The formats say "more than
    99.99999 %" or "more than 99 of 100" of the value returned here, which is true.

    Example:
        >>> below_certainty(1.0) < 1, below_certainty(0.25)
        (True, 0.25)
    """
    return min(float(p), BELOW_ONE)


def _power_of_ten(x: float, digits: int) -> str:
    """x as "3.14 × 10⁻⁷": no e-notation, which people do not read."""
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _strip(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def percent_3g(x: float, digits: int = 3) -> str:
    """A probability as a percentage with three significant digits, never 0 % or 100 % unless exact.

    Near certainty the digits go on until the value differs from 100 % (0.99984 → 99.98 %); a percentage below
    0.0001 % is written as a power of ten.

    Example:
        >>> percent_3g(0.7310585786), percent_3g(3.5e-05), percent_3g(1.0), percent_3g(0.9998426007315884)
        ('73.1 %', '0.0035 %', '100 %', '99.98 %')
        >>> percent_3g(3.139027529271432e-05), percent_3g(0.5), percent_3g(2e-12)
        ('0.00314 %', '50 %', '2 × 10⁻¹⁰ %')
    """
    x = float(x)
    if math.isnan(x):
        return "—"
    if x in (0.0, 1.0):
        return f"{100 * x:.0f} %"
    p = 100 * x
    if abs(p) < 1e-4:
        return f"{_power_of_ten(p, digits)} %"
    if x <= 0.5:
        decimals = max(digits - 1 - math.floor(math.log10(abs(p))), 0)
        return f"{_strip(f'{p:.{decimals}f}')} %"
    # Above one half the distance to certainty is what matters: keep its first significant digit.
    rest = 100 * (1 - x)
    decimals = max(digits - 2, 0, -math.floor(math.log10(rest)) if rest > 0 else 0)
    if decimals > 5:
        return "more than 99.99999 %"  # closer to certainty than double precision says reliably
    return f"{_strip(f'{p:.{decimals}f}')} %"


#: The words of :func:`percent_for_people` at its two edges, per language.
EDGE_WORDS: dict[str, tuple[str, str]] = {"en": ("less than", "more than"), "de": ("weniger als", "mehr als")}


def decimal(text: str, lang: str = "en") -> str:
    """A number written in English (``12,345.6``) rewritten with the separators of ``lang``: German swaps them
    (``12.345,6``).

    Example:
        >>> decimal("12,345.6", "de"), decimal("12,345.6", "en"), decimal("3.9 × 10⁻⁵⁶", "de")
        ('12.345,6', '12,345.6', '3,9 × 10⁻⁵⁶')
    """
    if lang == "de":
        return text.translate(_GERMAN_SEPARATORS)
    return text


_GERMAN_SEPARATORS = str.maketrans(",.", ".,")


def percent_for_people(p: float, lang: str = "en", *, decimals: int = 1) -> str:
    """A probability as the pages show it to people: a percentage with ``decimals`` decimals at most, truthful
    at both ends.

    Never "0 %" for a value above 0 nor "100 %" for a value below 1: a value that would show as less than the
    smallest step is "less than 0.1 %", one that close to certainty "more than 99.9 %". No e-notation; German
    writes a decimal comma ("73,1 %"). The rounding is half up (as the papers print percentages), and trailing
    zeros go ("50 %").

    Args:
        p: A probability in [0, 1]; NaN is "—".
        lang: ``"en"`` or ``"de"``.
        decimals: Decimals of the percentage (0 to 6).

    Example:
        >>> percent_for_people(0.7310585786), percent_for_people(0.0002), percent_for_people(0.5, "de")
        ('73.1 %', 'less than 0.1 %', '50 %')
        >>> percent_for_people(0.9999), percent_for_people(0.0123, "de"), percent_for_people(0.0)
        ('more than 99.9 %', '1,2 %', '0 %')
    """
    x = float(p)
    if math.isnan(x):
        return "—"
    if x <= 0 or x >= 1:
        return f"{100 * min(max(x, 0.0), 1.0):.0f} %"
    step = Decimal(1).scaleb(-decimals)  # the smallest percentage shown, 0.1 with one decimal
    less, more = EDGE_WORDS.get(lang, EDGE_WORDS["en"])
    value = Decimal(f"{100 * x:.12g}")
    if value < step:
        return f"{less} {decimal(str(step), lang)} %"
    if value > 100 - step:
        return f"{more} {decimal(str(100 - step), lang)} %"
    shown = value.quantize(step, rounding=ROUND_HALF_UP)
    return f"{decimal(_strip(f'{shown:f}'), lang)} %"


def percent_range(low: float, high: float) -> str:
    """Two probabilities as a range of percentages (an en dash between, spaced).

    Example:
        >>> percent_range(3.139027529271432e-05, 0.9951435547073264)
        '0.00314 % – 99.5 %'
    """
    return f"{percent_3g(low)} – {percent_3g(high)}"


def whole_percent(x: float, *, less: str = "less than 1 %", more: str = "more than 99 %") -> str:
    """A share as a whole percent that never rounds a nonzero share to 0 % nor a share below 1 to 100 %.

    ``less`` and ``more`` are the words for the two edges (a translation passes its own).

    Example:
        >>> whole_percent(0.004), whole_percent(0.5), whole_percent(0.996), whole_percent(1.0)
        ('less than 1 %', '50 %', 'more than 99 %', '100 %')
    """
    if 0 < x < 0.005:
        return less
    if 0.995 <= x < 1:
        return more
    return f"{round(100 * x)} %"


#: The words of a natural frequency per language: ``{count}``, ``{base}`` and ``{base1}`` (base − 1) are filled in.
#: The explainer's ``explain.LANG.json`` repeats them for its translators (tests keep both equal).
FREQUENCY_WORDS: dict[str, dict[str, str]] = {
    "en": {"none": "none", "all": "all {base}", "fewer": "fewer than 1", "more": "more than {base1}",
           "about": "about {count}"},
    "de": {"none": "keiner", "all": "alle {base}", "fewer": "weniger als 1", "more": "mehr als {base1}",
           "about": "etwa {count}"},
}  # fmt: skip
_THOUSANDS = {"en": ",", "de": "."}
#: The largest denominator a natural frequency uses: a count out of a million is still a count of people.
MOST = 1_000_000


@dataclass(frozen=True)
class Frequency:
    """A probability said as a count out of ``base``: ``kind`` is none, fewer (than 1), about, more (than base − 1)
    or all; ``count`` is round(p · base), half to even (what the explainer's script repeats)."""

    kind: str
    count: int
    base: int

    def text(
        self, lang: str = "en", words: Mapping[str, str] | None = None, thousands: str | None = None
    ) -> str:
        """The phrase ("about 6", "fewer than 1", "etwa 6"), in ``lang`` or in the given ``words``.

        Example:
            >>> Frequency("about", 1234, 10_000).text(), Frequency("more", 100, 100).text("de")
            ('about 1,234', 'mehr als 99')
        """
        said = FREQUENCY_WORDS[lang] if words is None else words
        sep = _THOUSANDS[lang] if thousands is None else thousands

        def group(k: int) -> str:
            return f"{k:,}".replace(",", sep)

        values = {"count": group(self.count), "base": group(self.base), "base1": group(self.base - 1)}
        phrase = said[self.kind]
        for key, value in values.items():
            phrase = phrase.replace("{" + key + "}", value)
        return phrase


def _frequency(p: float, base: int) -> Frequency:
    """p as a count out of ``base``, never "none" or "all" for a probability strictly between 0 and 1."""
    k = round(p * base)
    if p == 0:
        kind = "none"
    elif p == 1:
        kind = "all"
    elif k < 1:
        kind = "fewer"
    elif k >= base:
        kind = "more"
    else:
        kind = "about"
    return Frequency(kind, k, base)


def natural_frequencies(
    p: float, guess: float | None = None, *, base: int = 100
) -> tuple[Frequency, Frequency]:
    """The attacker's success ``p`` and the guesser's ``guess`` as counts out of one denominator, both truthful.

    The denominator starts at ``base`` and grows tenfold (up to 1,000,000) until the attacker's count is at least 1
    (as :func:`privrisk.natural_frequency`), then further until the guesser's is too, so that "about 6 in 10,000"
    stands beside "about 2 in 10,000" instead of "about 1 in 1,000" beside a guess that was counted in 10,000.
    When no denominator up to a million gives the guesser a count, the attacker's denominator stays and the
    guess is "fewer than 1" of it. Each count is p · base rounded (half to even), so the stated rate is within
    half a count of the true one, and a larger probability never gets a smaller count (rounding is monotone):
    an attacker at least as good as guessing is never said to be worse.

    Args:
        p: the attacker's probability of success, in [0, 1].
        guess: what guessing alone achieves (1/n, or 1/2), in [0, 1]; None for p alone.
        base: the least denominator (100: a row of an icon array of 100 people).

    Returns:
        The attacker's frequency and the guesser's, over one ``base`` (without ``guess``, p's twice).

    Example:
        >>> a, g = natural_frequencies(0.0005997, 1 / 5000)  # ε = ln 3, n = 5,000
        >>> f"{a.text()} in {a.base:,}; guessing {g.text()} in {g.base:,}"
        'about 6 in 10,000; guessing about 2 in 10,000'
        >>> a, g = natural_frequencies(0.0022, 1e-7)
        >>> a.text(), g.text(), a.base
        ('about 2', 'fewer than 1', 1000)
        >>> [f.text("de") for f in natural_frequencies(0.75, 0.5)]
        ['etwa 75', 'etwa 50']
    """
    p = float(p)
    b = int(base)
    while p > 0 and round(p * b) < 1 and b < MOST:
        b *= 10
    if guess is not None and guess > 0:
        g = float(guess)
        c = b
        while round(g * c) < 1 and c < MOST:
            c *= 10
        if round(g * c) >= 1:
            b = c
    return _frequency(p, b), _frequency(p if guess is None else float(guess), b)


def count(n: float, lang: str = "en") -> str:
    """A whole number with the thousands separators of ``lang`` (en "12,000", de "12.000").

    Example:
        >>> count(31857), count(7), count(-1234567), count(12000, "de")
        ('31,857', '7', '-1,234,567', '12.000')
    """
    return decimal(f"{int(n):,}", lang)


def number(x: float, digits: int = 4, lang: str = "en") -> str:
    """A measured number with ``digits`` significant digits, thousands separators, and no e-notation.

    German (``lang="de"``) writes a decimal comma and a point between thousands.

    Example:
        >>> number(13.31234), number(468.4456255278931), number(1055.0), number(3.9e-56), number(2.5e12)
        ('13.31', '468.4', '1,055', '3.9 × 10⁻⁵⁶', '2.5 × 10¹²')
        >>> number(12345.678, 6, "de")
        '12.345,7'
    """
    return decimal(_number(x, digits), lang)


def _number(x: float, digits: int) -> str:
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    if x == int(x) and abs(x) < 1e12:
        return f"{int(x):,}"
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude >= 12 or magnitude < -4:
        return _power_of_ten(x, digits)
    decimals = max(digits - 1 - magnitude, 0)
    return _strip(f"{x:,.{decimals}f}")


def epsilon_text(epsilon: float | str | None, *, approximate: bool = False) -> str:
    """ε as people write it: "ln 3" when ε is the natural logarithm of a whole number up to 1000, else the number.

    ``approximate`` adds the decimal value ("ln 3 ≈ 1.099").

    Example:
        >>> import math
        >>> epsilon_text(math.log(3)), epsilon_text(1.0), epsilon_text(0.1), epsilon_text(math.log(7), approximate=True)
        ('ln 3', '1', '0.1', 'ln 7 ≈ 1.946')
    """
    if epsilon is None:
        return "—"
    try:
        e = float(epsilon)
    except ValueError:
        return str(epsilon)  # as the user wrote it ("ln3")
    if math.isfinite(e) and 0.5 < e < 7:
        k = round(math.exp(e))
        if 2 <= k <= 1000 and k != 1 and math.isclose(math.log(k), e, rel_tol=1e-12, abs_tol=0.0):
            return f"ln {k} ≈ {number(e)}" if approximate else f"ln {k}"
    return number(e, 6) if math.isfinite(e) else number(e)


def duration(seconds: float) -> str:
    """A time in words: "0.1 seconds", "2.2 seconds", "3 minutes 5 seconds", "1 hour 2 minutes".

    Example:
        >>> duration(0.087), duration(2.189), duration(185), duration(3725), duration(1)
        ('less than 0.1 seconds', '2.2 seconds', '3 minutes 5 seconds', '1 hour 2 minutes', '1 second')
    """
    s = float(seconds)
    if s < 0.1:
        return "less than 0.1 seconds"
    if s < 60:
        text = f"{s:.1f}" if s < 10 else f"{s:.0f}"
        text = _strip(text)
        return f"{text} second{'' if text == '1' else 's'}"

    def unit(value: int, name: str) -> str:
        return f"{value} {name}{'' if value == 1 else 's'}"

    whole = round(s)
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return unit(minutes, "minute") + (f" {unit(rest, 'second')}" if rest else "")
    hours, rest = divmod(whole, 3600)
    minutes = rest // 60
    return unit(hours, "hour") + (f" {unit(minutes, 'minute')}" if minutes else "")


def listing(items: Sequence[Any]) -> str:
    """Items as a list in words: "a, b and c" (items that hold a comma are separated by semicolons).

    Example:
        >>> listing(["mean", "median", "max"]), listing(["a"]), listing(["x, y", "z"])
        ('mean, median and max', 'a', 'x, y; z')
    """
    texts = [str(i) for i in items]
    if not texts:
        return "none"
    if any("," in t for t in texts):
        return "; ".join(texts)
    if len(texts) == 1:
        return texts[0]
    return ", ".join(texts[:-1]) + " and " + texts[-1]


_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?!\w|\.\d)")


def plain(text: str) -> str:
    """A sentence with its e-notation numbers written as powers of ten, for a page or a figure.

    Example:
        >>> plain("z = 15.74, p = 3.93e-56; ratio 9.506e+29.")
        'z = 15.74, p = 3.93 × 10⁻⁵⁶; ratio 9.506 × 10²⁹.'
    """

    def power(match: re.Match[str]) -> str:
        mantissa = match.group(1)
        digits = len(mantissa.replace(".", "").lstrip("0")) or 1
        return _power_of_ten(float(match.group(0)), min(max(digits, 1), 6))

    return _E_NOTATION.sub(power, text)


#: Words in a key or column name that mark a probability, shown as a percentage.
PROBABILITY_WORDS = (
    "risk",
    "success",
    "bound",
    "leak",
    "guess",
    "two_worlds",
    "many_worlds",
    "probability",
    "share",
    "ci_low",
    "ci_high",
)


def is_probability_key(key: str) -> bool:
    """Whether a summary key or column name names a probability (a risk, a success, a leak, a share).

    Example:
        >>> is_probability_key("two_worlds_range"), is_probability_key("exact_risk"), is_probability_key("n")
        (True, True, False)
    """
    name = key.lower().replace(" ", "_").replace("-", "_")
    return any(word in name for word in PROBABILITY_WORDS)


#: One name per concept: the JSON key (or column) and what every page, table and figure calls it.
VOCABULARY: dict[str, str] = {
    "many_worlds": "many-worlds risk ρ_mw",
    "two_worlds": "two-worlds risk ρ_tw",
    "global_risk": "global risk ρ_gl",
    "global_leak": "global leak Γ",
    "local_leak": "local leak γ",
    "many_worlds_range": "many-worlds risk ρ_mw, lowest – highest",
    "two_worlds_range": "two-worlds risk ρ_tw, lowest – highest",
    "global_sensitivity": "global sensitivity Δf",
    "local_sensitivity": "local sensitivity Δv",
    "violates": "beyond e^ε",
    "epsilon": "ε",
    "epsilons": "ε",
    "figure_epsilon": "ε of the figures",
    "figure_query": "query of the figures",
    "effective_epsilon": "effective ε",
    "total_risk": "total risk δ*",
    "seconds": "time computing (reading and writing not included)",
    "rows": "rows",
}


def label(key: str) -> str:
    """The one name of a JSON key or column for people to read (the key with spaces when it has none).

    Example:
        >>> label("global_risk"), label("two_worlds_range"), label("sample_sizes")
        ('global risk ρ_gl', 'two-worlds risk ρ_tw, lowest – highest', 'sample sizes')
    """
    return VOCABULARY.get(key, key.replace("_", " "))


def readable(value: Any, key: str = "") -> str:
    """A value of a manifest's summary or parameters as text, chosen by its key.

    A pair under a key ending in ``_range`` is a range; probabilities (see :func:`is_probability_key`) are
    percentages; keys naming ε give "ln 3"; ``seconds`` is a time in words; whole numbers get thousands
    separators (except seeds and years); lists are lists in words; mappings read "key: value; …".

    Example:
        >>> readable([0.5, 0.9998426007315884], "two_worlds_range"), readable(2.189, "seconds")
        ('50 % – 99.98 %', '2.2 seconds')
        >>> readable([0.1, 1.0986122886681098, 2.0], "epsilons"), readable(24000, "rows"), readable(None)
        ('0.1, ln 3 and 2', '24,000', '—')
    """
    name = key.lower()
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, Mapping):
        return "; ".join(f"{label(str(k))}: {readable(v, str(k))}" for k, v in value.items()) or "—"
    if isinstance(value, Sequence):
        items = list(value)
        if name.endswith("_range") and len(items) == 2 and all(isinstance(v, int | float) for v in items):
            if is_probability_key(name):
                return percent_range(items[0], items[1])
            return f"{readable(items[0], name[:-6])} – {readable(items[1], name[:-6])}"
        singular = name[:-1] if name.endswith("s") else name
        return listing([readable(v, singular) for v in items])
    if isinstance(value, int | float):
        if "second" in name:
            return duration(value)
        if "epsilon" in name or name in ("ε", "eps"):
            return epsilon_text(value)
        if is_probability_key(name) and isinstance(value, float) and 0 <= value <= 1:
            return percent_3g(value)
        if isinstance(value, int):
            return str(value) if "seed" in name or "year" in name or "version" in name else count(value)
        return number(value)
    return str(value)
