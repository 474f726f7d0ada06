"""The explainer page for data subjects: what an ε means for a person deciding whether to take part.

The page follows Mehner et al. (Mehner, Nuñez von Voigt and Tschorsch), §3–4: the global risk ρ_gl = e^ε/(1 + e^ε)
as a natural frequency with an icon array of 100 guesses, the global leak Γ = 2ρ_gl − 1 as "how far from a coin toss
towards certainty", the many-worlds risk ρ_mw when the number of people n is known (the three columns of their
Table 1), and their randomized-response narrative (§4.2): a coin that shows heads with probability
e^ε/(1 + e^ε), on which a person answers truthfully, protects exactly as ε-differential privacy does. A slider
recomputes the same formulas in the page. ρ_mw is the bound of Lee and Clifton (2011) with Δv/Δf = 1.

Every number the page shows is a string made by :func:`explainer_numbers` in Python; the page's script repeats the
same arithmetic (the same rounding of halves to even, the same honest natural frequencies as
:func:`privrisk._format.natural_frequencies`: the attacker and guessing counted out of one base), so the page and Python agree at the precision shown. The browser tests check
this string for string.

The page's words, style and script are package data (``privrisk/reports/assets``): ``explain.LANG.json`` holds
every sentence of one language, so translators edit text, not Python; ``explain.css`` and ``explain.js`` the
page's own style and slider.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk import risk as R
from privrisk._format import Frequency, below_certainty, natural_frequencies, superscript, whole_percent
from privrisk._validation import check_choice, check_epsilon, check_epsilons, check_whole
from privrisk.errors import PrivriskError
from privrisk.reports.html import asset_text, html_page, json_script

if TYPE_CHECKING:
    from privrisk.accounting import Guarantee

__all__ = [
    "LANGUAGES",
    "explainer_document",
    "explainer_numbers",
    "explainer_page",
    "explainer_paragraph",
    "guarantee_document",
    "guarantee_name",
    "guarantee_numbers",
    "guarantee_page",
    "slider_grid",
]

#: The languages of the page, each with its file ``assets/explain.LANG.json``.
LANGUAGES = ("en", "de")
_RATIO_LIMIT = 1e6
_MAX_N = 10**12

#: Every sentence of the page, per language, in plain words; ``{name}`` marks a number from explainer_numbers.
TEXT: dict[str, dict[str, Any]] = {lang: json.loads(asset_text(f"explain.{lang}.json")) for lang in LANGUAGES}
#: The page's own style (after the shared one) and its script (the slider).
PAGE_CSS = asset_text("explain.css")
SCRIPT = asset_text("explain.js")


def _language(lang: str) -> str:
    """The language's code, one of LANGUAGES (case and surrounding space ignored)."""
    return check_choice(lang, LANGUAGES, name="lang")


def _people(n: Any) -> int:
    """n for the page: a whole number from 2 to 10^12 (the script counts in doubles; beyond 2^53, n − 1 is inexact)."""
    try:
        return check_whole(n, name="n", minimum=2, maximum=_MAX_N)
    except PrivriskError:
        raise PrivriskError(f"n: must be a whole number from 2 to 10^12, got {n!r}", param="n") from None


def _others(compare: Sequence[float | str]) -> list[float]:
    """The ε values to show beside the study's (none is fine), each finite and > 0."""
    if len(compare) == 0:
        return []
    return [float(c) for c in check_epsilons(list(compare), name="compare")]


def _group(number: int, text: dict[str, Any]) -> str:
    """A whole number with thousands separators (1,000 or 1.000)."""
    sign = "-" if number < 0 else ""
    digits = str(abs(int(number)))
    out = ""
    while len(digits) > 3:
        out = text["thousands"] + digits[-3:] + out
        digits = digits[:-3]
    return sign + digits + out


# The attacker is certain (P = 1 in double precision) from ε ≈ 37 on; the page still tells it up to 10⁴, where its
# slider grid stays small, and refuses larger ε rather than draw a grid of millions of steps.
_EPSILON_LIMIT = 1e4


def _fixed(x: float, places: int, text: dict[str, Any]) -> str:
    """x with ``places`` decimals, rounding x·10^places half to even: the page's script does exactly the same."""
    product = x * 10**places
    # a huge but finite x (ε = 1e308) overflows the product; its decimals are then 0 anyway
    scaled = round(product) if math.isfinite(product) else int(x) * 10**places
    digits = str(abs(scaled)).rjust(places + 1, "0")
    whole, fraction = digits[: len(digits) - places], digits[len(digits) - places :]
    sign = "-" if scaled < 0 else ""
    return sign + _group(int(whole), text) + (text["decimal"] + fraction if places else "")


def _phrase(f: Frequency, text: dict[str, Any]) -> str:
    """A natural frequency (:func:`privrisk._format.natural_frequencies`) in the page's language."""
    return f.text(words=text["freq"], thousands=text["thousands"])


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace each ``{name}`` by its value; names without a value stay as they are (as the script does)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def explainer_numbers(epsilon: float | str, n: int | None = None, *, lang: str = "en") -> dict[str, str]:
    """Every number the explainer page shows for one ε, as the exact strings the page prints.

    The probabilities are those of Table 1 of Mehner et al.: :func:`privrisk.global_risk` (P, their eq. 3),
    :func:`privrisk.global_leak` (Γ, eq. 4) and :func:`privrisk.many_worlds` (ρ_mw, eq. 2: Lee and Clifton's
    bound with ratio 1). P and ρ_mw are said as natural frequencies with the rounding of
    :func:`privrisk._format.natural_frequencies`, Γ as a whole percent as in :func:`privrisk.describe`.

    Args:
        epsilon: ε ≥ 0.
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
    n_ = None if n is None else _people(n)
    text = TEXT[_language(lang)]
    eps = check_epsilon(epsilon, name="epsilon", allow_zero=True)
    if eps > _EPSILON_LIMIT:
        raise PrivriskError(
            f"epsilon: {eps:g} is above {_EPSILON_LIMIT:,.0f}; the attacker is certain from about 37 on, so "
            "nothing is left to explain",
            param="epsilon",
        )
    # Every risk of a finite ε > 0 is below certainty and above nothing, even where double precision says 1.
    p, gamma = float(R.global_risk(eps)), float(R.global_leak(eps))
    values = {
        "eps": _fixed(eps, 2, text),
        "ratio": _ratio(eps, text),
        **_story(below_certainty(p) if eps > 0 else p, below_certainty(gamma) if eps > 0 else gamma, text),
    }
    if n_ is not None:
        rho = float(R.many_worlds(eps, n_))
        values.update(_among(below_certainty(rho) if eps > 0 else rho, n_, text))
    return values


def _ratio(eps: float, text: dict[str, Any]) -> str:
    """e^ε, the most a result's probability can change, as the page prints it (the script does the same).

    One decimal from 1.05 to a million; below, the two significant digits of e^ε − 1 (ε = 10⁻⁴: "1.00010", never
    "1.0", which would say that nothing changes), and "1 + 1.0 × 10⁻¹²" below 10⁻⁶; above a million a power of
    ten ("4.9 × 10⁸").
    """
    if eps == 0:
        return "1"
    excess = math.expm1(eps) if eps < 1 else math.inf
    if excess < 1e-6:
        return "1 + " + _power(math.log10(excess), text)
    if excess < 0.05:
        places = 1 - math.floor(math.log10(excess))
        return "1" + text["decimal"] + str(round(excess * 10**places)).rjust(places, "0")
    if eps < math.log(_RATIO_LIMIT):
        return _fixed(math.exp(eps), 1, text)
    return _power(eps * math.log10(math.e), text)


def _power(log10: float, text: dict[str, Any]) -> str:
    """10^log10 as "4.9 × 10⁸": two significant digits (half to even, as the script rounds) and a power of ten."""
    k = math.floor(log10)
    mantissa = round(10 ** (log10 - k) * 10)
    if mantissa >= 100:
        mantissa, k = 10, k + 1
    return f"{mantissa // 10}{text['decimal']}{mantissa % 10} × 10{superscript(k)}"


def _story(p: float, gamma: float, text: dict[str, Any]) -> dict[str, str]:
    """The strings of the attacker's success ``p`` and advantage ``gamma``: natural frequency, icons, coin."""
    f, g = natural_frequencies(p, 0.5)
    base, guess = f.base, g.count
    # The icons show the natural frequency: honest rounding never fills all 100 for P < 1.
    shown = {"about": f.count, "more": base - 1, "all": base, "fewer": 0, "none": 0}[f.kind]
    coin = _fixed(p, 3, text)
    if p < 1 and coin == _fixed(1.0, 3, text):
        coin = text["coin_more"]  # "1.000" would say the coin always shows heads
    return {
        "risk": _phrase(f, text),
        "risk_base": _group(base, text),
        "guess": _group(guess, text),
        "gamma": whole_percent(gamma, less=text["pct_less"], more=text["pct_more"]),
        "gamma_width": _fixed(100 * gamma, 1, TEXT["en"]),
        "coin": coin,
        "heads_width": _fixed(100 * p, 1, TEXT["en"]),
        "icons_guess": str(min(guess, shown)),
        "icons_extra": str(max(shown - guess, 0)),
        "icons_wrong": str(base - max(shown, guess)),
    }


def _among(rho: float, n: int, text: dict[str, Any]) -> dict[str, str]:
    """The strings of the risk ``rho`` of picking the right one of ``n`` people, against guessing 1/n."""
    # One base for both: the sentence says "{mw} of {mw_base} … guessing: {mw_guess} of {mw_base}".
    m, g = natural_frequencies(rho, 1.0 / n)
    return {
        "n": _group(n, text),
        "mw": _phrase(m, text),
        "mw_base": _group(m.base, text),
        "mw_guess": _phrase(g, text),
    }


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


def _risk_leak_worlds(v: dict[str, Any], text: dict[str, Any], leak_text: str, n: int | None) -> list[str]:
    """The sections both pages share: the risk as a natural frequency with its icon array, the leak Γ (closed by
    ``leak_text``, each page's own), and the many-worlds risk when n is known."""
    parts = [
        f"<h2>{html.escape(text['h_risk'])}</h2>",
        f"<p>{html.escape(text['risk_setup'])}</p>",
        f'<p class="big" id="risk-sentence">{_static(text["risk_big"], v)}</p>',
        '<figure class="card">',
        _icons(v, text, element_id="risk-icons"),
        f'<figcaption id="risk-caption">{_static(text["icons_caption"], v)}</figcaption></figure>',
        f'<p class="note">{html.escape(text["risk_note"])}</p>',
        f"<h2>{html.escape(text['h_leak'])}</h2>",
        f'<p class="big" id="leak-sentence">{_static(text["leak_big"], v)}</p>',
        _bar(v["gamma_width"], text["leak_scale_left"], text["leak_scale_right"], "gamma-bar"),
        leak_text,
    ]
    if n is not None:
        parts += [
            f"<h2>{_static(text['h_n'], v)}</h2>",
            f'<p class="big" id="n-sentence">{_static(text["n_text"], v)}</p>',
        ]
    return parts


def explainer_page(
    epsilon: float | str, *, n: int | None = None, compare: Sequence[float | str] = (), lang: str = "en"
) -> str:
    """The explainer page for data subjects as one self-contained HTML document (Mehner et al., §3–4).

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
    from privrisk._version import __version__

    lang = _language(lang)
    text = TEXT[lang]
    eps = check_epsilon(epsilon, name="epsilon")
    others = _others(compare)
    n = None if n is None else _people(n)
    v = explainer_numbers(eps, n, lang=lang)
    grid = slider_grid(eps, others)
    start = grid.index(eps)
    study = {"study_eps": v["eps"]}
    title = _fill(text["title"], v)

    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="lead">{_fill(text["lead"], {"eps": v["eps"]})}</p>',
    ]
    # 1. The risk as a natural frequency with the icon array; 2. the leak Γ; 3. many worlds, when n is known.
    parts += _risk_leak_worlds(v, text, f"<p>{_static(text['leak_text'], v)}</p>", n)
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
    data = {"text": {k: text[k] for k in ("decimal", "thousands", "freq", "pct_less", "pct_more", "coin_more",
                                          "slider_value", "icons_label", "live")},
            "n": n, "grid": grid, "start": start, "ratio_limit": _RATIO_LIMIT}  # fmt: skip
    body = "\n".join(parts) + "\n" + json_script("privrisk-data", data)
    return html_page(title=title, body=body, lang=lang, css=PAGE_CSS, script=SCRIPT)


def explainer_document(
    epsilon: float | str, *, n: int | None = None, compare: Sequence[float | str] = (), lang: str = "en"
) -> dict[str, Any]:
    """The page's numbers as one JSON-ready document: the probabilities, the strings shown, the paragraph.

    Keys: ``epsilon``, ``n``, ``lang``, ``compare``, ``global_risk`` (P), ``global_leak`` (Γ), ``many_worlds``
    (ρ_mw, or None without n), ``shown`` (:func:`explainer_numbers`), ``description`` (:func:`privrisk.describe`)
    and ``paragraph`` (:func:`explainer_paragraph`).

    Example:
        >>> doc = explainer_document("ln3", n=100, lang="de")
        >>> round(doc["global_risk"], 2), doc["shown"]["risk"], doc["compare"]
        (0.75, 'etwa 75', [])
    """
    eps = check_epsilon(epsilon, name="epsilon")
    shown = explainer_numbers(eps, n, lang=lang)
    language = _language(lang)
    people = None if n is None else _people(n)
    return {
        "epsilon": eps,
        "n": people,
        "lang": language,
        "compare": _others(compare),
        "global_risk": R.global_risk(eps),
        "global_leak": R.global_leak(eps),
        "many_worlds": R.many_worlds(eps, people) if people is not None else None,
        "shown": shown,
        "description": R.describe(eps, people),
        "paragraph": explainer_paragraph(eps, people, lang=language),
    }


def explainer_paragraph(epsilon: float | str, n: int | None = None, *, lang: str = "en") -> str:
    """The page's paragraph for a consent form: :func:`privrisk.describe` in English, its translation in German.

    Example:
        >>> explainer_paragraph(math.log(3), lang="de").split(". ")[-1]
        'Die Antwort bringt den Angreifer bestenfalls 50 % des Weges vom Münzwurf zur Gewissheit.'
    """
    eps = check_epsilon(epsilon, name="epsilon", allow_zero=True)
    lang = _language(lang)
    return _paragraph(eps, n, explainer_numbers(eps, n, lang=lang), TEXT[lang], lang)


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


# --------------------------------------------------------------------------------------------------------------
# Any guarantee: the same story told from the trade-off curve
# --------------------------------------------------------------------------------------------------------------


def _num(x: float, text: dict[str, Any]) -> str:
    return f"{x:.6g}".replace(".", text["decimal"])


def guarantee_name(
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    rho: float | None = None,
    mu: float | None = None,
    mechanism: str | None = None,
    scale: float | None = None,
    sigma: float | None = None,
    sensitivity: float | None = None,
    compose: int | None = None,
    lang: str = "en",
    categories: int | None = None,
    renyi: str | None = None,
    dpsgd: str | None = None,
) -> str:
    """A guarantee in a few symbols for the page's title, in the page's language, from the options of
    :class:`privrisk.accounting.GuaranteeSpec` (a mechanism without words of its own is named as given).

    Example:
        >>> guarantee_name(rho=0.5, compose=10, lang="de")
        'ρ = 0,5, 10 Veröffentlichungen'
        >>> guarantee_name(mechanism="gaussian", sigma=2.0)
        'Gaussian noise, σ = 2'
        >>> guarantee_name(dpsgd="60000,256,60", sigma=1.1)
        'DP-SGD N,B,EPOCHS = 60000,256,60, σ = 1.1'
    """
    text = TEXT[_language(lang)]
    parts = []
    if mechanism is not None:
        parts.append(text.get(f"mech_{mechanism}", str(mechanism)))
    if dpsgd is not None:
        parts.append(f"DP-SGD N,B,EPOCHS = {dpsgd}")
    if renyi is not None:
        parts.append(f"Rényi DP {renyi}")
    for symbol, value in (("ε", epsilon), ("δ", delta), ("ρ", rho), ("μ", mu), ("b", scale), ("σ", sigma),
                          ("k", categories)):  # fmt: skip
        if value is not None:
            parts.append(f"{symbol} = {_num(value, text)}")
    if sensitivity is not None and sensitivity != 1:
        parts.append(f"{text['sensitivity']} {_num(sensitivity, text)}")
    if compose is not None and compose > 1:
        parts.append(_fill(text["releases"], {"k": _group(compose, text)}))
    return ", ".join(parts)


def guarantee_numbers(
    guarantee: Guarantee, n: int | None = None, *, lang: str = "en", name: str | None = None
) -> dict[str, str]:
    """Every number the page shows for any guarantee, from its trade-off curve, as the exact strings printed.

    The best attacker's success (prior ½) is (1 + advantage)/2 with advantage = max_α (1 − α − β(α)) = δ(0)
    (Dong, Roth and Su, 2022; :func:`privrisk.accounting.membership_risk`); among n people the risk is
    :func:`privrisk.accounting.reconstruction_risk` (ρ_mw for a pure ε, 1 − β(1/n) otherwise). The strings are
    those of :func:`explainer_numbers` (natural frequencies, icons, Γ as the advantage), without ε.

    Returns:
        ``guarantee`` (``name`` or the guarantee's label), ``risk, risk_base, guess, gamma, gamma_width, coin,
        heads_width, icons_guess, icons_extra, icons_wrong`` and, with n, ``n, mw, mw_base, mw_guess``.

    Example:
        >>> from privrisk.accounting import gaussian_dp
        >>> v = guarantee_numbers(gaussian_dp(1.0), n=100)
        >>> v["risk"], v["gamma"]  # success (1 + 0.383)/2 = 0.691
        ('about 69', '38 %')
    """
    from privrisk import accounting as A

    text = TEXT[_language(lang)]
    n_ = None if n is None else _people(n)
    m = A.membership_risk(guarantee)
    # A guarantee with δ < 1 never makes the attacker certain, even where double precision rounds to 1.
    story = _story(below_certainty(m.success), below_certainty(m.advantage), text)
    values = {"guarantee": name or guarantee.label, **story}
    if n_ is not None:
        values.update(_among(below_certainty(A.reconstruction_risk(guarantee, n_)), n_, text))
    return values


def _guarantee_paragraph(v: dict[str, str], text: dict[str, Any]) -> str:
    return _fill(text["describe_g"], v) + (_fill(text["describe_g_n"], v) if "n" in v else "")


def guarantee_page(
    guarantee: Guarantee, *, n: int | None = None, lang: str = "en", name: str | None = None
) -> str:
    """The explainer page for any guarantee: the story of :func:`explainer_page` told from the trade-off curve.

    The page shows the best attacker's success as a natural frequency with the icon array, the advantage as the
    way from a coin toss to certainty, the risk among n people, the promises and a paragraph for a consent form;
    it has no ε slider (the numbers come from the guarantee's curve, not from one formula in ε). One
    self-contained HTML document without scripts.

    Example:
        >>> from privrisk.accounting import zcdp
        >>> page = guarantee_page(zcdp(0.5), n=100, name="ρ = 0.5")
        >>> "ρ = 0.5" in page and "<script" not in page
        True
    """
    from privrisk._version import __version__

    lang = _language(lang)
    text = TEXT[lang]
    v = guarantee_numbers(guarantee, n, lang=lang, name=name)
    title = _fill(text["title_g"], v)
    promises = [*text["promise"][:-1], text["promise_g"]]
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="lead">{_fill(text["lead_g"], {"guarantee": html.escape(v["guarantee"])})}</p>',
        *_risk_leak_worlds(v, text, f"<p>{html.escape(text['leak_text_g'])}</p>", n),
    ]
    parts += [
        f"<h2>{html.escape(text['h_promise'])}</h2>",
        '<div class="cols"><div>',
        f"<h3>{html.escape(text['promises'])}</h3><ul>"
        + "".join(f"<li>{html.escape(s)}</li>" for s in promises)
        + "</ul></div><div>",
        f"<h3>{html.escape(text['not_promises'])}</h3><ul>"
        + "".join(f"<li>{html.escape(s)}</li>" for s in text["not_promise"])
        + "</ul></div></div>",
        f"<h2>{html.escape(text['h_paragraph'])}</h2>",
        f'<p id="paragraph">{html.escape(_guarantee_paragraph(v, text))}</p>',
        f"<footer>{html.escape(_fill(text['footer_g'], {'version': __version__, 'conversion': guarantee.conversion}))}"
        "</footer>",
    ]
    return html_page(title=title, body="\n".join(parts), lang=lang, css=PAGE_CSS)


def guarantee_document(
    guarantee: Guarantee, *, n: int | None = None, lang: str = "en", name: str | None = None
) -> dict[str, Any]:
    """The numbers of :func:`guarantee_page` as one JSON-ready document.

    Keys: ``guarantee`` (the label), ``name``, ``conversion``, ``n``, ``lang``, ``success`` and ``advantage``
    of the best attacker (prior ½), ``many_worlds`` (the risk among n people, or None), ``shown``
    (:func:`guarantee_numbers`) and ``paragraph``.

    Example:
        >>> from privrisk.accounting import pure_dp
        >>> round(guarantee_document(pure_dp(math.log(3)))["success"], 4)
        0.75
    """
    from privrisk import accounting as A

    language = _language(lang)
    people = None if n is None else _people(n)
    shown = guarantee_numbers(guarantee, people, lang=language, name=name)
    m = A.membership_risk(guarantee)
    return {
        "guarantee": guarantee.label,
        "name": shown["guarantee"],
        "conversion": guarantee.conversion,
        "n": people,
        "lang": language,
        "success": float(m.success),
        "advantage": float(m.advantage),
        "many_worlds": None if people is None else float(A.reconstruction_risk(guarantee, people)),
        "shown": shown,
        "paragraph": _guarantee_paragraph(shown, TEXT[language]),
    }
