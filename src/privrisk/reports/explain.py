"""The explainer page for data subjects: what an ε means for a person deciding whether to take part.

The page follows 002 §3–4 (Mehner, Nuñez von Voigt and Tschorsch): the global risk P = e^ε/(1 + e^ε) as a natural
frequency with an icon array of 100 guesses, the global leak Γ = 2P − 1 as "how far from a coin toss towards
certainty", the many-worlds risk ρ_mw when the number of people n is known, and the randomized-response coin
that shows heads with probability e^ε/(1 + e^ε) (002 §4.2). A slider recomputes the same formulas in the page.

Every number the page shows is a string made by :func:`explainer_numbers` in Python; the page's script repeats the
same arithmetic (the same rounding of halves to even, the same honest natural frequencies as
:func:`privrisk.natural_frequency`), so the page and Python agree at the precision shown. The browser tests check
this string for string.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from privrisk import risk as R
from privrisk.errors import PrivriskError
from privrisk.reports.html import html_page, json_script

__all__ = ["LANGUAGES", "explainer_numbers", "explainer_page", "explainer_paragraph", "slider_grid"]

LANGUAGES = ("en", "de")
_RATIO_LIMIT = 1e6
_MAX_N = 10**12

# Every sentence of the page, in plain words; {name} marks a number from explainer_numbers.
TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "decimal": ".",
        "thousands": ",",
        "freq": {
            "none": "none",
            "all": "all {base}",
            "fewer": "fewer than 1",
            "more": "more than {base1}",
            "about": "about {count}",
        },
        "pct_less": "less than 1 %",
        "pct_more": "more than 99 %",
        "ratio_more": "more than 1,000,000",
        "title": "Your privacy in this study: what ε = {eps} means",
        "lead": "The results of this study are published with a privacy protection called "
        "<em>differential privacy</em>. How strongly it protects you is set by one number, ε (epsilon). "
        "Here it is <strong>ε = {eps}</strong>. A smaller ε protects you more. This page explains what the "
        "number means for you.",
        "h_risk": "Could someone find out that you took part?",
        "risk_setup": "Think of the worst case: an attacker who already knows everything about everyone else in "
        "the study wants to find out just one thing, whether you are in it. They look at the published results "
        "and make a guess.",
        "risk_big": "Out of {risk_base} such guesses, {risk} would be right. Tossing a coin would get {guess} "
        "right.",
        "icons_caption": "{risk_base} guesses. Blue: right by chance alone ({icons_guess}). Orange: right because "
        "of the published results ({icons_extra}). Only outlined: wrong ({icons_wrong}).",
        "icons_label": "{icons_guess} blue, {icons_extra} orange and {icons_wrong} outlined figures out of "
        "{risk_base}",
        "legend_guess": "right by chance",
        "legend_extra": "right because of the results",
        "legend_wrong": "wrong",
        "risk_note": "This is the worst case. It assumes the attacker knows everything except your data. Real "
        "attackers usually know much less and do worse.",
        "h_leak": "How much does the attacker learn?",
        "leak_big": "The published results take the attacker at most {gamma} of the way from a coin toss to "
        "certainty.",
        "leak_scale_left": "coin toss",
        "leak_scale_right": "certainty",
        "leak_text": "0 % would mean the results tell them nothing about you; 100 % would mean they know for "
        "sure. Put technically: any published result is at most {ratio} times as likely with your data as "
        "without it.",
        "h_n": "Among {n} people",
        "n_text": "If the attacker has to pick out who took part among {n} possible people, {mw} of {mw_base} "
        "attempts would succeed. Guessing alone would succeed in {mw_guess} of {mw_base}.",
        "h_coin": "A way to picture it: answering with a coin",
        "coin_text": "Imagine you are asked a yes-or-no question. Before you answer, you secretly toss a special "
        "coin. It lands heads up in {risk} of {risk_base} throws (probability {coin}). On heads, you answer "
        "truthfully. On tails, you give the opposite answer. Anyone who reads your answer knows that it is "
        "probably true, but can never be sure: it might be the coin speaking. The published results protect "
        "you in the same way, and at least as well as this coin.",
        "coin_heads": "heads: the truth",
        "coin_tails": "tails: the opposite",
        "h_explore": "Try other values of ε",
        "slider_label": "ε (epsilon)",
        "slider_value": "ε = {eps}",
        "explore_help": "Use the arrow keys or drag the slider. The numbers below change with it. The study "
        "itself uses ε = {study_eps}.",
        "reset": "Back to ε = {study_eps}",
        "explore_risk": "Right guesses: {risk} of {risk_base} (a coin toss: {guess})",
        "explore_leak": "Way from a coin toss to certainty: at most {gamma}",
        "explore_ratio": "A result is at most {ratio} times as likely with your data as without it",
        "explore_n": "Among {n} people: {mw} of {mw_base} attempts succeed (guessing: {mw_guess})",
        "live": "ε = {eps}: {risk} of {risk_base} guesses right; at most {gamma} of the way to certainty.",
        "h_compare": "Compared with other values",
        "col_eps": "ε",
        "col_risk": "right guesses of 100",
        "col_leak": "way to certainty",
        "col_n": "successes among {n} people",
        "this_study": "(this study)",
        "h_promise": "What this number promises, and what it does not",
        "promises": "It promises:",
        "promise": [
            "The protection holds however much the attacker already knows, including data from other sources.",
            "It holds for every person in the study, including people with unusual answers.",
            "It covers all results published from the data together, as long as ε is the total for all of "
            "them: each new result adds to the total, and the total is what counts.",
        ],
        "not_promises": "It does not promise:",
        "not_promise": [
            "The results can still show what is typical of groups you belong to (for example, people of your "
            "age). That is the purpose of the study, and it is true whether or not you take part.",
            "It does not protect data that gets out in other ways, for example a stolen file or what you "
            "share yourself.",
            "It depends on the study doing what it says: adding the random noise and counting every release "
            "in ε.",
            "It is a worst case, not a prediction of what will happen to you.",
        ],
        "h_paragraph": "In one paragraph (for example for a consent form)",
        "describe": "",
        "footer": "Formulas (Mehner, Nuñez von Voigt and Tschorsch): right guesses P = e^ε/(1 + e^ε); way to "
        "certainty Γ = 2P − 1; among n people ρ = 1/(1 + (n − 1)·e^(−ε)). Made by privrisk {version}. This "
        "page works offline and loads nothing from the internet.",
    },
    "de": {
        "decimal": ",",
        "thousands": ".",
        "freq": {
            "none": "keiner",
            "all": "alle {base}",
            "fewer": "weniger als 1",
            "more": "mehr als {base1}",
            "about": "etwa {count}",
        },
        "pct_less": "weniger als 1 %",
        "pct_more": "mehr als 99 %",
        "ratio_more": "mehr als 1.000.000",
        "title": "Ihre Privatsphäre in dieser Studie: Was ε = {eps} bedeutet",
        "lead": "Die Ergebnisse dieser Studie werden mit einem Schutz veröffentlicht, der "
        "<em>Differential Privacy</em> heißt. Wie stark er Sie schützt, legt eine Zahl fest: ε (Epsilon). "
        "Hier ist <strong>ε = {eps}</strong>. Je kleiner ε ist, desto besser sind Sie geschützt. Diese Seite "
        "erklärt, was die Zahl für Sie bedeutet.",
        "h_risk": "Könnte jemand herausfinden, dass Sie teilgenommen haben?",
        "risk_setup": "Denken Sie an den schlimmsten Fall: Ein Angreifer weiß bereits alles über alle anderen "
        "Personen in der Studie. Er möchte nur eines herausfinden: ob Sie dabei sind. Dazu schaut er sich die "
        "veröffentlichten Ergebnisse an und rät.",
        "risk_big": "Von {risk_base} solchen Versuchen wären {risk} richtig. Mit einem Münzwurf wären es "
        "{guess}.",
        "icons_caption": "{risk_base} Versuche. Blau: richtig durch bloßes Raten ({icons_guess}). Orange: richtig "
        "wegen der veröffentlichten Ergebnisse ({icons_extra}). Nur umrandet: falsch ({icons_wrong}).",
        "icons_label": "{icons_guess} blaue, {icons_extra} orange und {icons_wrong} umrandete Figuren von "
        "{risk_base}",
        "legend_guess": "richtig durch Raten",
        "legend_extra": "richtig wegen der Ergebnisse",
        "legend_wrong": "falsch",
        "risk_note": "Das ist der schlimmste Fall. Er nimmt an, dass der Angreifer alles außer Ihren Angaben "
        "kennt. Echte Angreifer wissen meist viel weniger und liegen öfter falsch.",
        "h_leak": "Wie viel erfährt der Angreifer?",
        "leak_big": "Die veröffentlichten Ergebnisse bringen den Angreifer höchstens {gamma} des Weges vom "
        "Münzwurf zur Gewissheit.",
        "leak_scale_left": "Münzwurf",
        "leak_scale_right": "Gewissheit",
        "leak_text": "0 % hieße: Die Ergebnisse verraten nichts über Sie. 100 % hieße: Der Angreifer weiß es "
        "sicher. Technisch gesagt: Jedes veröffentlichte Ergebnis ist mit Ihren Angaben höchstens {ratio}-mal "
        "so wahrscheinlich wie ohne sie.",
        "h_n": "Unter {n} Personen",
        "n_text": "Muss der Angreifer unter {n} möglichen Personen herausfinden, wer teilgenommen hat, wären "
        "{mw} von {mw_base} Versuchen erfolgreich. Durch bloßes Raten wären es {mw_guess} von {mw_base}.",
        "h_coin": "Ein Bild dafür: Antworten mit einer Münze",
        "coin_text": "Stellen Sie sich vor, man stellt Ihnen eine Ja-Nein-Frage. Bevor Sie antworten, werfen Sie "
        "heimlich eine besondere Münze. Sie zeigt in {risk} von {risk_base} Würfen Kopf (Wahrscheinlichkeit "
        "{coin}). Bei Kopf antworten Sie wahrheitsgemäß. Bei Zahl geben Sie die umgekehrte Antwort. Wer Ihre "
        "Antwort liest, weiß: Sie stimmt wahrscheinlich. Sicher sein kann er aber nie, denn es könnte die "
        "Münze gewesen sein. Die veröffentlichten Ergebnisse schützen Sie auf dieselbe Weise, und mindestens "
        "so gut wie diese Münze.",
        "coin_heads": "Kopf: die Wahrheit",
        "coin_tails": "Zahl: das Gegenteil",
        "h_explore": "Andere Werte für ε ausprobieren",
        "slider_label": "ε (Epsilon)",
        "slider_value": "ε = {eps}",
        "explore_help": "Stellen Sie den Regler mit den Pfeiltasten oder durch Ziehen ein. Die Zahlen darunter "
        "ändern sich mit. Die Studie selbst verwendet ε = {study_eps}.",
        "reset": "Zurück zu ε = {study_eps}",
        "explore_risk": "Richtige Versuche: {risk} von {risk_base} (mit einem Münzwurf: {guess})",
        "explore_leak": "Weg vom Münzwurf zur Gewissheit: höchstens {gamma}",
        "explore_ratio": "Ein Ergebnis ist mit Ihren Angaben höchstens {ratio}-mal so wahrscheinlich wie ohne sie",
        "explore_n": "Unter {n} Personen: {mw} von {mw_base} Versuchen erfolgreich (durch Raten: {mw_guess})",
        "live": "ε = {eps}: {risk} von {risk_base} Versuchen richtig; höchstens {gamma} des Weges zur "
        "Gewissheit.",
        "h_compare": "Im Vergleich mit anderen Werten",
        "col_eps": "ε",
        "col_risk": "richtige Versuche von 100",
        "col_leak": "Weg zur Gewissheit",
        "col_n": "Erfolge unter {n} Personen",
        "this_study": "(diese Studie)",
        "h_promise": "Was diese Zahl verspricht, und was nicht",
        "promises": "Sie verspricht:",
        "promise": [
            "Der Schutz gilt, egal wie viel der Angreifer schon weiß, auch aus anderen Quellen.",
            "Er gilt für jede Person in der Studie, auch für Menschen mit ungewöhnlichen Angaben.",
            "Er gilt für alle Ergebnisse aus den Daten zusammen, solange ε die Summe für alle ist: Jedes neue "
            "Ergebnis erhöht die Summe, und es zählt die Summe.",
        ],
        "not_promises": "Sie verspricht nicht:",
        "not_promise": [
            "Die Ergebnisse können weiterhin zeigen, was für Gruppen typisch ist, zu denen Sie gehören (zum "
            "Beispiel Menschen in Ihrem Alter). Dafür gibt es die Studie, und das gilt, ob Sie teilnehmen oder "
            "nicht.",
            "Der Schutz gilt nicht für Daten, die auf anderen Wegen nach außen gelangen, zum Beispiel durch "
            "eine gestohlene Datei oder durch das, was Sie selbst teilen.",
            "Er hängt davon ab, dass die Studie tut, was sie sagt: zufälliges Rauschen hinzufügen und jede "
            "Veröffentlichung in ε mitzählen.",
            "Es ist der schlimmste Fall, keine Vorhersage darüber, was Ihnen passieren wird.",
        ],
        "h_paragraph": "In einem Absatz (zum Beispiel für eine Einwilligungserklärung)",
        "describe": "Angenommen, ein Angreifer kennt die Daten aller anderen und versucht herauszufinden, ob "
        "Sie dabei sind. Von {risk_base} solchen Versuchen wären {risk} richtig; durch bloßes Raten wären es "
        "{guess}. Die Antwort bringt den Angreifer höchstens {gamma} des Weges vom Münzwurf zur Gewissheit.",
        "describe_n": " Muss der Angreifer stattdessen unter {n} möglichen Personen auswählen, wer in den Daten "
        "ist, wären {mw} von {mw_base} Versuchen erfolgreich; durch bloßes Raten wären es {mw_guess} davon.",
        "footer": "Formeln (Mehner, Nuñez von Voigt und Tschorsch): richtige Versuche P = e^ε/(1 + e^ε); Weg "
        "zur Gewissheit Γ = 2P − 1; unter n Personen ρ = 1/(1 + (n − 1)·e^(−ε)). Erstellt mit privrisk "
        "{version}. Diese Seite funktioniert ohne Internet und lädt nichts nach.",
    },
}


def _language(lang: str) -> dict[str, Any]:
    if lang not in TEXT:
        raise PrivriskError(f"--lang: must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return TEXT[lang]


def _group(number: int, text: dict[str, Any]) -> str:
    """A whole number with thousands separators (1,000 or 1.000)."""
    sign = "-" if number < 0 else ""
    digits = str(abs(int(number)))
    out = ""
    while len(digits) > 3:
        out = text["thousands"] + digits[-3:] + out
        digits = digits[:-3]
    return sign + digits + out


def _fixed(x: float, places: int, text: dict[str, Any]) -> str:
    """x with ``places`` decimals, rounding x·10^places half to even: the page's script does exactly the same."""
    scaled = round(x * 10**places)
    digits = str(abs(scaled)).rjust(places + 1, "0")
    whole, fraction = digits[: len(digits) - places], digits[len(digits) - places :]
    sign = "-" if scaled < 0 else ""
    return sign + _group(int(whole), text) + (text["decimal"] + fraction if places else "")


def _frequency(p: float, base: int = 100) -> tuple[str, int, int]:
    """The kind, count and base of :func:`privrisk.natural_frequency`, so the phrase can be said in any language."""
    while p > 0 and round(p * base) < 1 and base < 1_000_000:
        base *= 10
    count = round(p * base)
    if p == 0:
        kind = "none"
    elif p == 1:
        kind = "all"
    elif count < 1:
        kind = "fewer"
    elif count >= base:
        kind = "more"
    else:
        kind = "about"
    return kind, count, base


def _phrase(kind: str, count: int, base: int, text: dict[str, Any]) -> str:
    return _fill(text["freq"][kind], {"count": _group(count, text), "base": _group(base, text),
                                      "base1": _group(base - 1, text)})  # fmt: skip


def _percent(x: float, text: dict[str, Any]) -> str:
    """A whole percent as :func:`privrisk.describe` says it (never 0 % for a nonzero share, nor 100 % below 1)."""
    if 0 < x < 0.005:
        return text["pct_less"]
    if 0.995 <= x < 1:
        return text["pct_more"]
    return f"{round(100 * x)} %"


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace each ``{name}`` by its value; names without a value stay as they are (as the script does)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def explainer_numbers(epsilon: float, n: int | None = None, *, lang: str = "en") -> dict[str, str]:
    """Every number the explainer page shows for one ε, as the exact strings the page prints.

    The probabilities are :func:`privrisk.global_risk` (P, eq. 3 of 002), :func:`privrisk.global_leak`
    (Γ, eq. 4 of 002) and :func:`privrisk.many_worlds` (ρ_mw, eq. 2 of 002, ratio 1); P and ρ_mw are said as
    natural frequencies with the rounding of :func:`privrisk.natural_frequency`, Γ as a whole percent as in
    :func:`privrisk.describe`.

    Args:
        epsilon: ε > 0.
        n: the number of people the attacker picks among (2 to 10¹²), or None.
        lang: ``en`` or ``de``.

    Returns:
        Strings keyed ``eps, ratio, risk, risk_base, guess, gamma, gamma_width, coin, heads_width,
        icons_guess, icons_extra, icons_wrong`` and, with n, ``n, mw, mw_base, mw_guess``.

    Example:
        >>> v = explainer_numbers(math.log(3), n=100)
        >>> v["risk"], v["guess"], v["gamma"], v["mw"], v["mw_base"], v["mw_guess"]
        ('about 75', '50', '50 %', 'about 3', '100', 'about 1')
        >>> explainer_numbers(math.log(3), lang="de")["coin"]
        '0,750'
    """
    text = _language(lang)
    eps = float(R._epsilon(epsilon))
    p = float(R.global_risk(eps))
    gamma = float(R.global_leak(eps))
    kind, count, base = _frequency(p)
    # The icons show the natural frequency: honest rounding never fills all 100 for P < 1.
    shown = {"about": count, "more": base - 1, "all": base, "fewer": 0, "none": 0}[kind]
    guess = base // 2
    ratio = math.exp(eps) if eps < math.log(_RATIO_LIMIT) + 1 else math.inf
    values = {
        "eps": _fixed(eps, 2, text),
        "ratio": _fixed(ratio, 1, text) if ratio < _RATIO_LIMIT else text["ratio_more"],
        "risk": _phrase(kind, count, base, text),
        "risk_base": _group(base, text),
        "guess": _group(guess, text),
        "gamma": _percent(gamma, text),
        "gamma_width": _fixed(100 * gamma, 1, TEXT["en"]),
        "coin": _fixed(p, 3, text),
        "heads_width": _fixed(100 * p, 1, TEXT["en"]),
        "icons_guess": str(min(guess, shown)),
        "icons_extra": str(max(shown - guess, 0)),
        "icons_wrong": str(base - max(shown, guess)),
    }
    if n is not None:
        n_ = int(R._n(n, minimum=2))
        if n_ > _MAX_N:
            # The page's script counts in doubles; beyond 2^53 n − 1 would not be exact there.
            raise PrivriskError(f"--n: must be at most 10^12, got {n_:,}")
        rho = float(R.many_worlds(eps, n_))
        mkind, mcount, mbase = _frequency(rho)
        gkind, gcount, gbase = _frequency(1.0 / n_, mbase)
        values.update(
            {
                "n": _group(n_, text),
                "mw": _phrase(mkind, mcount, mbase, text),
                "mw_base": _group(mbase, text),
                "mw_guess": _phrase(gkind, gcount, gbase, text),
            }
        )
    return values


def slider_grid(epsilon: float, compare: tuple[float, ...] | list[float] = ()) -> list[float]:
    """The ε values the slider steps through: 0.05 to 5 in steps of 0.05, coarser above, plus the given ones.

    Example:
        >>> g = slider_grid(math.log(3), [math.log(7)])
        >>> g[0], math.log(3) in g, math.log(7) in g, g == sorted(g)
        (0.05, True, True, True)
    """
    top = max([5.0, float(epsilon), *map(float, compare)])
    grid = [round(0.05 * k, 10) for k in range(1, 101)]
    if top > 5:
        grid += [round(5 + 0.25 * k, 10) for k in range(1, 21) if 5 + 0.25 * k <= max(top, 10)]
    if top > 10:
        grid += [float(v) for v in range(11, math.ceil(top) + 1)]
    values = sorted({*grid, float(epsilon), *map(float, compare)})
    # Drop grid points within a hair of a given value, so that one key press always changes the numbers.
    given = np.array([float(epsilon), *map(float, compare)])
    return [v for v in values if v in given or np.min(np.abs(given - v)) > 1e-6]


def _icons(values: dict[str, str], text: dict[str, Any], *, element_id: str, size: str = "") -> str:
    """The icon array of 100 people (10 × 10) as inline SVG; classes say which are right and why."""
    guess, extra = int(values["icons_guess"]), int(values["icons_extra"])
    label = html.escape(_fill(text["icons_label"], values))
    cells = []
    for i in range(100):
        x, y = (i % 10) * 24 + 12, (i // 10) * 30
        cls = "guess" if i < guess else "extra" if i < guess + extra else "wrong"
        cells.append(
            f'<g class="person {cls}" transform="translate({x} {y})"><circle cx="0" cy="7" r="5"/>'
            '<path d="M-8 27 v-6 a8 8 0 0 1 16 0 v6 z"/></g>'
        )
    style = f' style="max-width:{size}"' if size else ""
    return (
        f'<svg id="{element_id}" class="icons" viewBox="0 0 240 300" role="img" aria-label="{label}"{style} '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(cells)}</svg>'
    )


def _bar(width: str, left: str, right: str, element_id: str, *, fill_class: str = "fill") -> str:
    return (
        f'<div class="bar" aria-hidden="true"><div id="{element_id}" class="{fill_class}" '
        f'style="width:{width}%"></div></div><div class="scale" aria-hidden="true"><span>{html.escape(left)}</span>'
        f"<span>{html.escape(right)}</span></div>"
    )


def _span(key: str, values: dict[str, str]) -> str:
    return f'<span data-k="{key}">{html.escape(values[key])}</span>'


def _dynamic(template: str, values: dict[str, str]) -> str:
    """A sentence whose numbers are spans the script can update (``data-k`` names the number)."""
    return _fill(template, {k: _span(k, values) for k in values})


def _static(template: str, values: dict[str, str]) -> str:
    return _fill(template, {k: html.escape(v) for k, v in values.items()})


PAGE_CSS = """
.icons .person.guess { fill: var(--accent); }
.icons .person.extra { fill: var(--warm); }
.icons .person.wrong { fill: #ffffff; stroke: #5f5f5f; stroke-width: 1.5; }
.icons { display: block; width: 100%; max-width: 20rem; margin: 0.5rem 0; }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
.legend li::before { content: ""; display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em;
                     vertical-align: -0.1em; border-radius: 0.2em; }
.legend .guess::before { background: var(--accent); }
.legend .extra::before { background: var(--warm); }
.legend .wrong::before { background: #ffffff; border: 1.5px solid #5f5f5f; }
.bar { height: 1.1rem; background: #e4e4e4; border: 1px solid #8a8a8a; border-radius: 0.3rem; overflow: hidden;
       max-width: 28rem; }
.bar .fill { height: 100%; background: var(--warm); }
.bar .heads { height: 100%; background: var(--accent); }
.scale { display: flex; justify-content: space-between; max-width: 28rem; color: var(--muted); font-size: 0.9rem; }
.explore { background: var(--soft); border-radius: 0.5rem; padding: 0.75rem 1rem 1rem; }
.explore label { font-weight: 650; display: block; }
.explore input[type=range] { width: 100%; max-width: 28rem; min-height: 2.75rem; accent-color: var(--accent); }
.explore output { font-size: 1.3rem; font-weight: 650; display: block; }
.explore ul { padding-left: 1.2rem; }
.explore button { font: inherit; padding: 0.45rem 0.9rem; min-height: 2.75rem; border: 1px solid var(--accent);
                  border-radius: 0.3rem; background: #ffffff; color: var(--accent); cursor: pointer; }
.cols { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; }
.cols > * { flex: 1 1 14rem; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("privrisk-data").textContent);
  var T = D.text;
  // Python's round(): halves go to the even neighbour.
  function roundHalfEven(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return (f % 2 === 0) ? f : f + 1;
  }
  function group(n) {
    var s = String(Math.abs(n)), out = "";
    while (s.length > 3) { out = T.thousands + s.slice(-3) + out; s = s.slice(0, -3); }
    return (n < 0 ? "-" : "") + s + out;
  }
  function fixed(x, places, decimal) {
    var r = roundHalfEven(x * Math.pow(10, places));
    var s = String(Math.abs(r));
    while (s.length < places + 1) s = "0" + s;
    var whole = s.slice(0, s.length - places), fraction = s.slice(s.length - places);
    return (r < 0 ? "-" : "") + group(Number(whole)) + (places ? decimal + fraction : "");
  }
  // privrisk.natural_frequency: never "none" or "all" for a probability strictly between 0 and 1.
  function frequency(p, base) {
    while (p > 0 && roundHalfEven(p * base) < 1 && base < 1000000) base *= 10;
    var count = roundHalfEven(p * base), kind;
    if (p === 0) kind = "none";
    else if (p === 1) kind = "all";
    else if (count < 1) kind = "fewer";
    else if (count >= base) kind = "more";
    else kind = "about";
    return {kind: kind, count: count, base: base};
  }
  function fill(template, values) {
    for (var key in values) template = template.split("{" + key + "}").join(values[key]);
    return template;
  }
  function phrase(f) {
    return fill(T.freq[f.kind], {count: group(f.count), base: group(f.base), base1: group(f.base - 1)});
  }
  function percent(x) {
    if (x > 0 && x < 0.005) return T.pct_less;
    if (x >= 0.995 && x < 1) return T.pct_more;
    return roundHalfEven(100 * x) + " %";
  }
  function expit(x) { return 1 / (1 + Math.exp(-x)); }
  function numbers(eps) {
    var p = expit(eps);                          // global risk P, eq. (3) of 002
    var gamma = Math.min(Math.tanh(eps / 2), 1); // global leak Γ = 2P − 1
    var f = frequency(p, 100);
    var shown = {about: f.count, more: f.base - 1, all: f.base, fewer: 0, none: 0}[f.kind];
    var guess = Math.floor(f.base / 2);
    var ratio = eps < Math.log(D.ratio_limit) + 1 ? Math.exp(eps) : Infinity;
    var v = {
      eps: fixed(eps, 2, T.decimal),
      ratio: ratio < D.ratio_limit ? fixed(ratio, 1, T.decimal) : T.ratio_more,
      risk: phrase(f),
      risk_base: group(f.base),
      guess: group(guess),
      gamma: percent(gamma),
      gamma_width: fixed(100 * gamma, 1, "."),
      coin: fixed(p, 3, T.decimal),
      heads_width: fixed(100 * p, 1, "."),
      icons_guess: String(Math.min(guess, shown)),
      icons_extra: String(Math.max(shown - guess, 0)),
      icons_wrong: String(f.base - Math.max(shown, guess))
    };
    if (D.n !== null) {
      var rho = expit(eps - Math.log(D.n - 1));  // many-worlds risk ρ_mw, eq. (2) of 002
      var m = frequency(rho, 100), g = frequency(1 / D.n, m.base);
      v.n = group(D.n); v.mw = phrase(m); v.mw_base = group(m.base); v.mw_guess = phrase(g);
    }
    return v;
  }
  window.privriskNumbers = numbers;

  var slider = document.getElementById("eps-slider");
  var box = document.getElementById("explore");
  var live = document.getElementById("explore-live");
  var icons = document.getElementById("explore-icons");
  function show(index, announce) {
    var eps = D.grid[index];
    var v = numbers(eps);
    box.setAttribute("data-epsilon", String(eps));
    var spans = box.querySelectorAll("[data-k]");
    for (var i = 0; i < spans.length; i++) {
      var key = spans[i].getAttribute("data-k");
      if (key in v) spans[i].textContent = v[key];
    }
    slider.setAttribute("aria-valuetext", fill(T.slider_value, v));
    document.getElementById("explore-gamma-bar").style.width = v.gamma_width + "%";
    var guess = Number(v.icons_guess), extra = Number(v.icons_extra);
    var people = icons.querySelectorAll(".person");
    for (var j = 0; j < people.length; j++) {
      people[j].setAttribute("class", "person " + (j < guess ? "guess" : j < guess + extra ? "extra" : "wrong"));
    }
    icons.setAttribute("aria-label", fill(T.icons_label, v));
    if (announce) live.textContent = fill(T.live, v);
  }
  slider.addEventListener("input", function () { show(Number(slider.value), true); });
  document.getElementById("explore-reset").addEventListener("click", function () {
    slider.value = String(D.start); show(D.start, true);
  });
  document.getElementById("explore-section").hidden = false;
})();
"""


def explainer_page(
    epsilon: float, *, n: int | None = None, compare: list[float] | tuple[float, ...] = (), lang: str = "en"
) -> str:
    """The explainer page for data subjects as one self-contained HTML document (002 §3–4).

    Args:
        epsilon: ε > 0 of the release (the total, if several results are published).
        n: the number of people the attacker picks among, or None.
        compare: other ε values to show beside it.
        lang: ``en`` or ``de`` (German, in the polite "Sie" form).

    Example:
        >>> page = explainer_page(math.log(3), n=100)
        >>> "about 75" in page and "50 %" in page and 'lang="en"' in page
        True
    """
    from privrisk import __version__

    text = _language(lang)
    eps = float(R._epsilon(epsilon))
    if eps <= 0:
        raise PrivriskError(f"--epsilon: must be greater than 0, got {epsilon!r}")
    others = [float(R._epsilon(c)) for c in compare]
    if any(c <= 0 for c in others):
        raise PrivriskError("--compare: every ε must be greater than 0")
    v = explainer_numbers(eps, n, lang=lang)
    grid = slider_grid(eps, others)
    start = grid.index(eps)
    study = {"study_eps": v["eps"]}
    title = _fill(text["title"], v)

    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="lead">{_fill(text["lead"], {"eps": v["eps"]})}</p>',
    ]
    # 1. The risk as a natural frequency with the icon array.
    parts += [
        f"<h2>{html.escape(text['h_risk'])}</h2>",
        f"<p>{html.escape(text['risk_setup'])}</p>",
        f'<p class="big" id="risk-sentence">{_static(text["risk_big"], v)}</p>',
        '<figure class="card">',
        _icons(v, text, element_id="risk-icons"),
        f'<figcaption id="risk-caption">{_static(text["icons_caption"], v)}</figcaption></figure>',
        f'<p class="note">{html.escape(text["risk_note"])}</p>',
    ]
    # 2. The leak Γ.
    parts += [
        f"<h2>{html.escape(text['h_leak'])}</h2>",
        f'<p class="big" id="leak-sentence">{_static(text["leak_big"], v)}</p>',
        _bar(v["gamma_width"], text["leak_scale_left"], text["leak_scale_right"], "gamma-bar"),
        f"<p>{_static(text['leak_text'], v)}</p>",
    ]
    # 3. Many worlds, when n is known.
    if n is not None:
        parts += [
            f"<h2>{_static(text['h_n'], v)}</h2>",
            f'<p class="big" id="n-sentence">{_static(text["n_text"], v)}</p>',
        ]
    # 4. The randomized-response coin.
    parts += [
        f"<h2>{html.escape(text['h_coin'])}</h2>",
        f'<p id="coin-sentence">{_static(text["coin_text"], v)}</p>',
        _bar(v["heads_width"], text["coin_heads"], text["coin_tails"], "heads-bar", fill_class="heads"),
    ]
    # 5. The slider: hidden until the script runs, so a page without scripts shows no dead control.
    explore_items = [text["explore_risk"], text["explore_leak"], text["explore_ratio"]]
    if n is not None:
        explore_items.append(text["explore_n"])
    parts += [
        f'<section id="explore-section" class="no-print" aria-labelledby="h-explore" hidden>'
        f'<h2 id="h-explore">{html.escape(text["h_explore"])}</h2>',
        f'<div id="explore" class="explore" data-epsilon="{eps!r}">',
        f'<label for="eps-slider">{html.escape(text["slider_label"])}</label>',
        f'<input type="range" id="eps-slider" min="0" max="{len(grid) - 1}" step="1" value="{start}" '
        f'aria-valuetext="{html.escape(_fill(text["slider_value"], v))}" aria-describedby="explore-help">',
        f'<output for="eps-slider" id="explore-eps">ε = {_span("eps", v)}</output>',
        f'<p id="explore-help" class="muted">{_static(text["explore_help"], study)}</p>',
        '<div class="cols"><div>',
        _icons(v, text, element_id="explore-icons", size="14rem"),
        '<ul class="legend">'
        f'<li class="guess">{html.escape(text["legend_guess"])}: {_span("icons_guess", v)}</li>'
        f'<li class="extra">{html.escape(text["legend_extra"])}: {_span("icons_extra", v)}</li>'
        f'<li class="wrong">{html.escape(text["legend_wrong"])}: {_span("icons_wrong", v)}</li></ul></div>',
        "<div><ul>" + "".join(f"<li>{_dynamic(item, v)}</li>" for item in explore_items) + "</ul>",
        _bar(v["gamma_width"], text["leak_scale_left"], text["leak_scale_right"], "explore-gamma-bar"),
        f'<p><button type="button" id="explore-reset">{html.escape(_fill(text["reset"], study))}</button></p>',
        "</div></div>",
        '<p id="explore-live" class="visually-hidden" aria-live="polite" aria-atomic="true"></p>',
        "</div></section>",
    ]
    # 6. Comparison values.
    if others:
        parts.append(_comparison(eps, others, n, text, lang))
    # 7. Promises, the paragraph for a consent form, and the formulas.
    parts += [
        f"<h2>{html.escape(text['h_promise'])}</h2>",
        '<div class="cols"><div>',
        f"<h3>{html.escape(text['promises'])}</h3><ul>"
        + "".join(f"<li>{html.escape(s)}</li>" for s in text["promise"])
        + "</ul></div><div>",
        f"<h3>{html.escape(text['not_promises'])}</h3><ul>"
        + "".join(f"<li>{html.escape(s)}</li>" for s in text["not_promise"])
        + "</ul></div></div>",
        f"<h2>{html.escape(text['h_paragraph'])}</h2>",
        f'<p id="paragraph">{html.escape(_paragraph(eps, n, v, text, lang))}</p>',
        f"<footer>{html.escape(_fill(text['footer'], {'version': __version__}))}</footer>",
    ]
    data = {"text": {k: text[k] for k in ("decimal", "thousands", "freq", "pct_less", "pct_more", "ratio_more",
                                          "slider_value", "icons_label", "live")},
            "n": None if n is None else int(n), "grid": grid, "start": start, "ratio_limit": _RATIO_LIMIT}  # fmt: skip
    body = "\n".join(parts) + "\n" + json_script("privrisk-data", data)
    return html_page(title=title, body=body, lang=lang, css=PAGE_CSS, script=SCRIPT)


def explainer_paragraph(epsilon: float, n: int | None = None, *, lang: str = "en") -> str:
    """The page's paragraph for a consent form: :func:`privrisk.describe` in English, its translation in German.

    Example:
        >>> explainer_paragraph(math.log(3), lang="de").split(". ")[-1]
        'Die Antwort bringt den Angreifer höchstens 50 % des Weges vom Münzwurf zur Gewissheit.'
    """
    eps = float(R._epsilon(epsilon))
    return _paragraph(eps, n, explainer_numbers(eps, n, lang=lang), _language(lang), lang)


def _paragraph(eps: float, n: int | None, v: dict[str, str], text: dict[str, Any], lang: str) -> str:
    """The consent-form paragraph: :func:`privrisk.describe` in English, its translation in German."""
    if lang == "en":
        return R.describe(eps, n)
    sentence = _fill(text["describe"], v)
    if n is not None:
        sentence += _fill(text["describe_n"], v)
    return sentence


def _comparison(eps: float, others: list[float], n: int | None, text: dict[str, Any], lang: str) -> str:
    rows = []
    for value in sorted({eps, *others}):
        v = explainer_numbers(value, n, lang=lang)
        mark = f' <span class="muted">{html.escape(text["this_study"])}</span>' if value == eps else ""
        cells = [f'<th scope="row">{html.escape(v["eps"])}{mark}</th>', f'<td class="num">{html.escape(v["risk"])}</td>',
                 f'<td class="num">{html.escape(v["gamma"])}</td>']  # fmt: skip
        if n is not None:
            cells.append(f'<td class="num">{html.escape(v["mw"])} / {html.escape(v["mw_base"])}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = [text["col_eps"], text["col_risk"], text["col_leak"]]
    if n is not None:
        head.append(_fill(text["col_n"], {"n": explainer_numbers(eps, n, lang=lang)["n"]}))
    header = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in head)
    return (
        f'<h2>{html.escape(text["h_compare"])}</h2><div class="scroll"><table id="compare">'
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
