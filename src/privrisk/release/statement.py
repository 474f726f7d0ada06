"""The public statement of a release: the risk it states, in numbers and in plain words.

The **public statement** depends only on the ε values (and a published n), so it may be printed beside the
numbers: the total ε by sequential composition (Mehner et al., §3.4), the global risk ρ_gl and leak Γ at that ε
(Mehner et al., eq. 3–4), the many-worlds risk ρ_mw with Δv/Δf = 1 for a published n (Mehner et al., eq. 2), and
:func:`privrisk.describe`'s sentences. :func:`statement_html` writes it as a page a reader without the papers can
follow, with the technical annex folded.

The data-dependent internal assessment is :mod:`privrisk.release.result`; the files a release writes,
:mod:`privrisk.release.outputs`; a ledger's history, :mod:`privrisk.release.history`.

Example:
    >>> s = public_statement(composed_epsilon([0.5, 0.5]), n=100)
    >>> round(s["global_risk"], 4), round(s["many_worlds"], 4)
    (0.7311, 0.0267)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from privrisk._format import below_certainty, natural_frequencies, number, percent, plain
from privrisk._validation import check_epsilons
from privrisk.release.composition import composition_statement, plain_epsilon, plain_rho
from privrisk.release.spec import check_public_n
from privrisk.risk import describe, global_leak, global_risk, local_leak, many_worlds

if TYPE_CHECKING:
    from privrisk.release.result import Release

__all__ = [
    "NOISE_NOTE",
    "USELESS_NOTE",
    "composed_epsilon",
    "ledger_spending",
    "odds_phrase",
    "public_statement",
    "release_statement",
    "statement_html",
    "verdict",
]


def _percent(x: float) -> str:
    """As the papers print a percentage (one decimal); :func:`privrisk._format.percent` never writes a risk that is
    not zero as "0.0%" nor one below 1 as "100.0%"."""
    return percent(x)


def composed_epsilon(epsilons: Iterable[float]) -> float:
    """The total ε of answers from the same data: their sum (sequential composition, Mehner et al., §3.4).

    Summed with ``math.fsum`` so that the order of the answers does not change the total.

    Example:
        >>> composed_epsilon([0.1, 0.2, 0.3])
        0.6
    """
    values = check_epsilons(list(epsilons), name="epsilons")
    return math.fsum(values.tolist())


def public_statement(epsilon: float, n: int | None = None) -> dict[str, Any]:
    """The data-independent risk statement for a total ε (and a published n): safe to print with the numbers.

    ρ_gl = 1/(1 + e^(−ε)) (Mehner et al., eq. 3), Γ = 2ρ_gl − 1 (Mehner et al., eq. 4), and for a published n the
    many-worlds risk with Δv/Δf = 1, ρ_mw = 1/(1 + (n − 1)e^(−ε)) (Mehner et al., eq. 2), its leak γ and
    guessing 1/n.

    Example:
        >>> s = public_statement(math.log(3), n=10)
        >>> round(s["global_risk"], 3), round(s["global_leak"], 3), round(s["many_worlds"], 3)
        (0.75, 0.5, 0.25)
    """
    eps = float(epsilon)
    n_ = check_public_n(n, "n")
    rho = None if n_ is None else float(many_worlds(eps, n_))
    return {
        "epsilon": eps,
        "global_risk": float(global_risk(eps)),
        "global_leak": float(global_leak(eps)),
        "n": n_,
        "many_worlds": rho,
        "local_leak": None if rho is None or n_ is None else float(local_leak(eps, n_)),
        "guess": None if n_ is None else 1.0 / n_,
        "sentences": describe(eps, n_),
    }


def release_statement(
    records: Sequence[Mapping[str, Any]], n: int | None = None, *, delta: float | None = None
) -> dict[str, Any]:
    """The public statement of recorded answers: :func:`public_statement` at the plain sum of ε when every answer
    is Laplace (pure ε-DP), with ``composition`` (:func:`composition_statement`) beside it.

    With a Gaussian answer there is no pure ε: ``epsilon`` is the plain sum of the Laplace answers' ε, ``rho``
    the sum of the Gaussian answers' ρ, the pure-ε risks (``global_risk``, ``global_leak``, ``many_worlds``,
    ``local_leak``) are None, and the sentences tell the composed guarantee's risk.

    Example:
        >>> s = release_statement([{"mechanism": "gaussian", "rho": 0.5}], n=100)
        >>> s["global_risk"] is None, round(s["composition"]["advantage"], 4)  # μ = 1: 2Φ(1/2) − 1
        (True, 0.3829)
    """
    n_ = check_public_n(n, "n")
    composition = composition_statement(records, n_, delta=delta)
    if not any(r.get("mechanism") == "gaussian" for r in records):
        return {**public_statement(plain_epsilon(records), n_), "composition": composition}
    c = composition
    success, advantage = percent(below_certainty(c["success"])), percent(below_certainty(c["advantage"]))
    sentences = (
        f"An attacker who wants to tell whether one person is in the data is right {success} of the time at best "
        f"(guessing: 50 %); the release takes them {advantage} of the way from guessing to certainty."
    )
    return {
        "epsilon": c["plain_epsilon"],
        "rho": plain_rho(records),
        "global_risk": None,
        "global_leak": None,
        "n": n_,
        "many_worlds": None,
        "local_leak": None,
        "guess": None if n_ is None else 1.0 / n_,
        "sentences": sentences,
        "composition": composition,
    }


#: What the noise of the answers is, in one sentence under their table.
NOISE_NOTE = (
    "Noise: Laplace with scale b = Δf/ε, or Gaussian with σ = Δf/√(2ρ) (global sensitivity Δf); the 95 % "
    "interval holds the value of the clamped data in 95 % of releases."
)


def _number(x: float) -> str:
    return f"{x:.6g}"


def ledger_spending(c: Mapping[str, Any]) -> str:
    """What recorded answers spent, from their :func:`composition_statement`: the plain sums of ε (Laplace) and ρ
    (Gaussian, zCDP) and, when there is a Gaussian answer, the ε of everything at δ (tight composition).

    Example:
        >>> ledger_spending(composition_statement([{"epsilon": 0.4}, {"mechanism": "gaussian", "rho": 0.1}]))
        'plain sums ε = 0.4 (Laplace answers) and ρ = 0.1 (Gaussian answers, zCDP); in all ε = 2.33104 at δ = 1e-06 (tight composition)'
    """
    if c["plain_rho"] is None:
        return f"plain sum ε = {_number(c['plain_epsilon'])}"
    eps = c["epsilon_at_delta"]
    at = "no finite ε" if eps is None or not math.isfinite(eps) else f"ε = {_number(eps)}"
    gauss = f"ρ = {_number(c['plain_rho'])} (Gaussian answers, zCDP)"
    sums = (
        f"plain sums ε = {_number(c['plain_epsilon'])} (Laplace answers) and {gauss}"
        if c["plain_epsilon"] > 0
        else f"plain sum {gauss}"
    )
    return f"{sums}; in all {at} at δ = {_number(c['delta'])} (tight composition)"


# --------------------------------------------------------------------------------------------------------------
# In plain words
# --------------------------------------------------------------------------------------------------------------

#: Denominators of "about k times in m", smallest first; all even, so that guessing (1 in 2) is a whole count.
_BASES = (2, 4, 10, 20, 100, 1000, 10_000, 100_000, 1_000_000)


def odds_phrase(p: float, guess: float = 0.5) -> str:
    """An attacker's success ``p`` beside guessing, as counts out of one small denominator.

    The smallest denominator is taken whose count is within a quarter of the distance to the nearer end (0 or 1)
    of p, and that tells the attacker from the guesser (different counts whenever p differs from guessing):
    "about 3 times in 4; guessing, 2 in 4". Every count is p times the denominator rounded, so "about k in m"
    is within half a count of p. Near certainty the denominator grows until the count is truthful; past a million
    it says "more than 999,999 times in 1,000,000". When no denominator up to a million tells p from guessing
    (ε = 10⁻⁶: p = 0.50000025), the counts are guessing's and the difference is said in words; "the same as
    guessing" only when p is guessing exactly.

    Example:
        >>> odds_phrase(0.75), odds_phrase(0.7311)
        ('about 3 times in 4; guessing, 2 in 4', 'about 3 times in 4; guessing, 2 in 4')
        >>> odds_phrase(0.525), odds_phrase(0.5)
        ('about 52 times in 100; guessing, 50 in 100', '1 time in 2, the same as guessing')
        >>> odds_phrase(1 - 2e-9)
        'more than 999,999 times in 1,000,000; guessing, 500,000 in 1,000,000'
        >>> odds_phrase(0.50000025)
        'about 1 time in 2; guessing, 1 in 2 (the difference is less than 1 in 1,000,000)'
    """
    p, g = float(p), float(guess)
    exact = next((m for m in _BASES if round(g * m) >= 1 and round(g * m) / m == g), _BASES[-1])
    if p == g:
        count = round(g * exact)
        return f"{count:,} time{'s' if count != 1 else ''} in {exact:,}, the same as guessing"
    tolerance = 0.25 * min(p, 1 - p)
    for m in _BASES:
        k, kg = round(p * m), round(g * m)
        if 0 < k < m and k != kg and abs(k / m - p) <= tolerance:
            return f"about {k:,} time{'s' if k != 1 else ''} in {m:,}; guessing, {kg:,} in {m:,}"
    m = _BASES[-1]
    kg = round(g * m)
    if round(p * m) >= m:
        return f"more than {m - 1:,} times in {m:,}; guessing, {kg:,} in {m:,}"
    if round(p * m) < 1:
        return f"fewer than once in {m:,}; guessing, {kg:,} in {m:,}"
    # p and guessing round to the same count out of a million: say guessing's, and that they differ.
    k = round(p * exact)
    return (
        f"about {k:,} time{'s' if k != 1 else ''} in {exact:,}; guessing, {round(g * exact):,} in {exact:,} "
        f"(the difference is less than 1 in {m:,})"
    )


def verdict(statement: Mapping[str, Any]) -> str:
    """The public statement in one sentence: how often an attacker who knows everyone else would be right.

    For pure ε it is the most that ε allows any noise: the attacker tells two worlds apart (ρ_gl = 1/(1 +
    e^(−ε)), Mehner et al., eq. 3); the noise actually added may allow less (the tight composition's success,
    said beside it in the findings). For Gaussian answers it is the best success of the tight composition.
    Guessing is right half the time in both.

    Example:
        >>> verdict(public_statement(math.log(3)))
        'An attacker who knows everyone else in the data and wants to tell whether one person is in it would be right about 3 times in 4 at most (the most that ε = ln 3 allows any noise); guessing, 2 in 4.'
    """
    from privrisk._format import epsilon_text

    pure = statement.get("global_risk") is not None
    p = below_certainty(statement["global_risk"] if pure else statement["composition"]["success"])
    odds = odds_phrase(p)
    if pure:
        phrase, _, guessing = odds.partition("; ")
        bound = " at most" if phrase.startswith("about") else ""  # never "at most more than"
        odds = f"{phrase}{bound} (the most that ε = {epsilon_text(statement['epsilon'])} allows any noise)"
        odds += f"; {guessing}" if guessing else ""
    return (
        "An attacker who knows everyone else in the data and wants to tell whether one person is in it would be "
        f"right {odds}."
    )


#: What the public statement says of an answer whose 95 % interval is wider than the range the answer can take.
USELESS_NOTE = "the noise is larger than the range of the data: this answer tells nothing reliable"


def useless_sentence(labels: Sequence[str]) -> str | None:
    """The sentence a public statement gives for answers released although their noise exceeds their range.

    Example:
        >>> useless_sentence(["mean(x)"])
        'mean(x): the noise is larger than the range of the data: this answer tells nothing reliable.'
        >>> useless_sentence([]) is None
        True
    """
    if not labels:
        return None
    return " ".join(f"{label}: {USELESS_NOTE}." for label in labels)


_CSS = """
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; }
main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
.verdict { font-size: 1.2rem; border-left: 4px solid #0b5394; padding-left: .75rem; }
.useless { border-left: 4px solid #a61b1b; padding-left: .75rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #ccc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin-top: 2rem; } summary { cursor: pointer; font-weight: 600; }
"""


def _cost(statement: Mapping[str, Any]) -> str:
    """What a release spent, in words with the parameter in brackets."""
    eps, rho = statement.get("epsilon") or 0.0, statement.get("rho")
    parts = []
    if eps > 0:
        parts.append(f"ε = {number(eps)}")
    if rho is not None:
        parts.append(f"ρ = {number(rho)} of zero-concentrated differential privacy")
    return " and ".join(parts)


def statement_html(release: Release, *, title: str = "Public statement of a release") -> str:
    """The public statement as a page for readers without the papers: the verdict first, what was released,
    what it cost, and the technical annex (ρ_gl, Γ, the equations) folded in ``<details>``.

    Only public quantities appear (the noisy answers, ε or ρ, the published n, the ledger's totals); no path.

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, noisy_release
        >>> page = statement_html(noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", "ln3", (0, 24))))
        >>> "3 times in 4" in page, "<details>" in page
        (True, True)
    """
    from html import escape

    s = release.statement
    rows = "".join(
        f"<tr><td>{escape(str(a['label']))}</td><td class=num>{escape(number(a['noisy_value']))}</td>"
        f"<td class=num>{escape(number(a['interval_lo']))} to {escape(number(a['interval_hi']))}</td>"
        f"<td>{escape(number(a['universe_lo']))} to {escape(number(a['universe_hi']))}</td></tr>"
        for a in release.answers.to_dict(orient="records")
    )
    k = len(release.answers)
    useless = useless_sentence(release.useless_labels)
    warning = "" if useless is None else f'<p class="useless"><strong>{escape(useless)}</strong></p>'
    cost = [f"<p>This release spent {escape(_cost(s))}. The smaller this number, the less anyone can learn about "
            "one person from the published numbers.</p>"]  # fmt: skip
    if s.get("n") is not None and s.get("many_worlds") is not None:
        a, g = natural_frequencies(below_certainty(s["many_worlds"]), s["guess"])
        cost.append(
            f"<p>Of the {s['n']:,} people in the data, an attacker who tries to pick out one of them from the "
            f"answers would be right in {escape(a.text())} of {a.base:,} attempts at most; guessing, in "
            f"{escape(g.text())} of them.</p>"
        )
    c = s.get("cumulative")
    if c is not None:
        spent = (
            _cost(c)
            if c.get("composition", {}).get("plain_rho") is None
            else ledger_spending(c["composition"])
        )
        whole = verdict(c).replace("would be right", "would now be right")
        cost.append(
            f"<p>The data's privacy ledger records {c['releases']:,} release{'s' if c['releases'] != 1 else ''} "
            f"in all, which spent {escape(plain(spent))} together. {escape(whole)}</p>"
        )
    # The annex keeps the command line's sentences, with powers of ten where they print e-notation (δ = 1e-06).
    annex = "".join(f"<li>{escape(plain(line))}</li>" for line in release.findings())
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_CSS}</style></head>
<body><main>
<h1>{escape(title)}</h1>
<p class="verdict"><strong>{escape(verdict(s))}</strong></p>
<h2>What was released</h2>
<p>{k} number{"s" if k != 1 else ""} computed from the data, each with random noise added so that no one person
can be seen in it. The true values were never shown to anyone.</p>
<table><thead><tr><th>Answer</th><th>Published value</th><th>95 % interval</th><th>Values counted between</th></tr>
</thead><tbody>{rows}</tbody></table>
<p>In 95 of 100 releases like this one the interval holds the value the data gave (each value first moved into
the range in the last column).</p>
{warning}
<h2>How much privacy it cost</h2>
{"".join(cost)}
<details><summary>Technical annex</summary>
<ul>{annex}</ul>
<p>{escape(NOISE_NOTE)}</p>
<p>Global risk ρ_gl = 1/(1 + e^(−ε)) and leak Γ = 2ρ_gl − 1 (Mehner et al., eq. 3–4); many-worlds risk
ρ_mw = 1/(1 + (n − 1)e^(−ε)) for a published n (Mehner et al., eq. 2); ε adds up over answers (sequential
composition, §3.4); Gaussian answers are composed tightly as ρ-zCDP (Bun and Steinke 2016).</p>
</details>
</main></body></html>
"""
