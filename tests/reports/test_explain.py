"""The explainer page: its numbers against the core's formulas and Table 1 of Mehner et al., its wording."""

from __future__ import annotations

import html
import math
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

import privrisk as pr
from privrisk import risk as R
from privrisk._format import FREQUENCY_WORDS, below_certainty, natural_frequencies, whole_percent
from privrisk.reports.explain import (
    TEXT,
    _fixed,
    explainer_document,
    explainer_numbers,
    explainer_page,
    slider_grid,
)

LN3 = math.log(3)


# --- numbers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("epsilon", "risk", "gamma", "mw10", "mw100"),
    [  # Table 1 of Mehner et al.: P, Γ, ρ(n = 10), ρ(n = 100) said as natural frequencies and whole percents
        (math.log(2), "about 67", "33 %", "about 18", "about 2"),
        (math.log(3), "about 75", "50 %", "about 25", "about 3"),
        (math.log(7), "about 88", "75 %", "about 44", "about 7"),
    ],
)
def test_table_1_of_mehner_et_al(epsilon, risk, gamma, mw10, mw100):
    assert explainer_numbers(epsilon)["risk"] == risk
    assert explainer_numbers(epsilon)["gamma"] == gamma
    assert explainer_numbers(epsilon, 10)["mw"] == mw10
    assert explainer_numbers(epsilon, 100)["mw"] == mw100


def test_running_example_icons_split_right_answers_into_chance_and_leak():
    v = explainer_numbers(LN3, 100)
    # 75 right of 100: 50 by the coin toss, 25 because of the release (Γ = 25/50 = 50 %).
    assert (v["icons_guess"], v["icons_extra"], v["icons_wrong"]) == ("50", "25", "25")
    assert v["coin"] == "0.750" and v["ratio"] == "3.0" and v["eps"] == "1.10"
    assert (v["mw"], v["mw_base"], v["mw_guess"]) == ("about 3", "100", "about 1")


@given(st.floats(min_value=1e-9, max_value=60.0, allow_nan=False))
def test_english_numbers_are_the_core_natural_frequency_and_describe(epsilon):
    v = explainer_numbers(epsilon)
    # A finite ε never makes the attacker certain, even where P rounds to 1.0 in double precision (ε ≥ 37).
    p = min(R.global_risk(epsilon), below_certainty(1.0))
    phrase, base = R.natural_frequency(p)
    assert v["risk"] == phrase and v["risk_base"] == f"{base:,}"
    assert v["gamma"] == whole_percent(min(R.global_leak(epsilon), below_certainty(1.0)))
    sentence = R.describe(epsilon)
    assert (
        f"right {v['risk']} times" in sentence
        and f"At best, the answer takes the attacker {v['gamma']} of the way" in sentence
    )
    shown = int(v["icons_guess"]) + int(v["icons_extra"])
    assert int(v["icons_guess"]) == 50 and shown + int(v["icons_wrong"]) == 100
    # The icons never show all 100 right (P < 1 at every finite ε), nor fewer right than the phrase says.
    assert shown < 100 and "all" not in v["risk"]
    if phrase.startswith("about"):
        assert shown == int(phrase.split()[1])


@given(
    st.floats(min_value=1e-6, max_value=40.0, allow_nan=False),
    st.integers(min_value=2, max_value=10**9),
)
def test_many_worlds_numbers_follow_the_core(epsilon, n):
    v = explainer_numbers(epsilon, n)
    rho = min(R.many_worlds(epsilon, n), below_certainty(1.0))
    mw, guess = natural_frequencies(rho, 1 / n)  # one base for the attacker and for guessing
    assert v["mw"] == mw.text() and v["mw_base"] == f"{mw.base:,}" and v["mw_guess"] == guess.text()
    sentence = R.describe(epsilon, n)
    assert (
        f"{mw.text()} of {mw.base:,} attempts" in sentence
        and f"succeed {v['mw_guess']} of them" in sentence
    )


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_pages_frequency_words_are_the_formatters(lang):
    assert TEXT[lang]["freq"] == FREQUENCY_WORDS[lang]


@given(st.floats(min_value=0.0, max_value=1.0))
def test_a_rate_alone_is_natural_frequency(p):
    f, _ = natural_frequencies(p)
    assert (f.text(), f.base) == R.natural_frequency(p)


@pytest.mark.parametrize(
    ("n", "lang", "text"),
    [  # issue 20: the attacker (ρ_mw, ε = ln 3) and guessing (1/n) counted out of one base
        (
            500,
            "en",
            "about 6 of 1,000 attempts would succeed. Guessing alone would succeed in about 2 of 1,000.",
        ),
        (
            5000,
            "en",
            "about 6 of 10,000 attempts would succeed. Guessing alone would succeed in about 2 of 10,000.",
        ),
        (
            500,
            "de",
            "wären etwa 6 von 1.000 Versuchen erfolgreich. Durch bloßes Raten wären es etwa 2 von 1.000.",
        ),
    ],
)
def test_the_attacker_and_guessing_share_one_base(n, lang, text):
    page = explainer_page(LN3, n=n, lang=lang)
    assert text in re.sub(r"<[^>]+>", "", html.unescape(page))


def test_extreme_epsilon_is_honest():
    near = explainer_numbers(20.0)  # P = 1 − 2·10⁻⁹: not all, but more than 99 of 100
    assert near["risk"] == "more than 99" and near["icons_wrong"] == "1" and near["gamma"] == "more than 99 %"
    # P rounds to 1.0 in double precision, but no finite ε makes the attacker certain (issue 30): not "all 100".
    certain = explainer_numbers(60.0)
    assert R.global_risk(60.0) == 1.0 and certain["risk"] == "more than 99" and certain["icons_wrong"] == "1"
    assert certain["coin"] == "more than 0.999" and certain["gamma"] == "more than 99 %"
    # e^800 would overflow; "at most more than 1,000,000 times" was not English: a power of ten instead.
    assert explainer_numbers(800.0)["ratio"] == "2.7 × 10³⁴⁷"  # e^800 = 2.73 × 10³⁴⁷
    assert explainer_numbers(20.0)["ratio"] == "4.9 × 10⁸" and explainer_numbers(13.0)["ratio"] == "442,413.4"
    # A ratio next to 1 keeps the digits that tell it from 1 ("1.0" would say nothing changes).
    assert explainer_numbers(1e-4)["ratio"] == "1.00010" and explainer_numbers(0.01)["ratio"] == "1.010"
    assert (
        explainer_numbers(1e-12)["ratio"] == "1 + 1.0 × 10⁻¹²" and explainer_numbers(0.04)["ratio"] == "1.041"
    )
    tiny = explainer_numbers(1e-4)
    assert tiny["risk"] == "about 50" and tiny["gamma"] == "less than 1 %" and tiny["icons_extra"] == "0"


def test_german_numbers_use_decimal_comma_and_point_for_thousands():
    v = explainer_numbers(LN3, 10_000, lang="de")
    assert v["eps"] == "1,10" and v["coin"] == "0,750" and v["ratio"] == "3,0"
    assert v["risk"] == "etwa 75" and v["n"] == "10.000" and v["mw_base"] == "10.000"
    assert explainer_numbers(LN3, 10_000)["n"] == "10,000"
    assert explainer_numbers(20.0, lang="de")["risk"] == "mehr als 99"
    assert explainer_numbers(1e-4, lang="de")["gamma"] == "weniger als 1 %"


def test_fixed_rounds_halves_to_even_like_python_round():
    en = TEXT["en"]
    assert _fixed(0.125, 2, en) == "0.12" and _fixed(0.375, 2, en) == "0.38"  # exact binary halves
    assert _fixed(2.5, 0, en) == "2" and _fixed(1234567.25, 1, en) == "1,234,567.2"
    # 0.05·10 is exactly 0.5 in double precision, and halves go to the even neighbour: 0,0 (the script agrees).
    assert _fixed(0.0, 3, en) == "0.000" and _fixed(0.05, 1, TEXT["de"]) == "0,0"


def test_slider_grid_contains_the_given_values_once_and_is_sorted():
    grid = slider_grid(LN3, [math.log(2), 1.1, 12.0])
    assert grid == sorted(grid) and len(grid) == len(set(grid))
    for value in (LN3, math.log(2), 1.1, 12.0, 0.05, 5.0, 10.0):
        assert value in grid
    assert grid[-1] == 12.0
    # A grid point within a hair of a given ε is dropped, so every step changes ε visibly.
    near = slider_grid(0.3 + 1e-9)
    assert 0.3 + 1e-9 in near and 0.3 not in near and 0.25 in near


def test_bad_parameters_raise():
    with pytest.raises(pr.PrivriskError, match="lang"):
        explainer_numbers(1.0, lang="fr")
    with pytest.raises(pr.PrivriskError, match="n"):
        explainer_numbers(1.0, n=1)
    with pytest.raises(pr.PrivriskError, match="epsilon"):
        explainer_page(-1.0)
    with pytest.raises(pr.PrivriskError, match="epsilon"):
        explainer_page(0.0)


# --- the page ------------------------------------------------------------------------------------------------


class _Spans(HTMLParser):
    """Collects the text of every element with data-k, and every tag and attribute."""

    def __init__(self):
        super().__init__()
        self.spans: dict[str, list[str]] = {}
        self.tags: list[tuple[str, dict]] = []
        self._open: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag in {"circle", "path", "input", "meta", "br"}:
            return
        self._open.append(attrs.get("data-k"))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in {"circle", "path", "input", "meta", "br"}:
            return
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        if self._open and self._open[-1]:
            self.spans.setdefault(self._open[-1], []).append(data)


def _parse(page: str) -> _Spans:
    parser = _Spans()
    parser.feed(page)
    return parser


@pytest.mark.parametrize("lang", ["en", "de"])
def test_page_shows_the_python_numbers(lang):
    page = explainer_page(LN3, n=100, compare=[math.log(2), math.log(7)], lang=lang)
    v = explainer_numbers(LN3, 100, lang=lang)
    spans = _parse(page).spans
    assert spans, "the slider section has no numbers"
    for key, texts in spans.items():
        assert all(t == v[key] for t in texts), (key, texts, v[key])
    assert f'lang="{lang}"' in page
    assert page.count('class="person guess"') == 100 and page.count('class="person extra"') == 50


def test_english_page_has_the_issue_content():
    page = explainer_page(LN3, n=100, compare=[math.log(2), math.log(7)])
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "Out of 100 such guesses, about 75 would be right. Tossing a coin would get 50 right." in text
    assert (
        "At best, the published results take the attacker 50 % of the way from a coin toss to certainty"
        in text
    )
    assert "among 100 possible people, about 3 of 100 attempts would succeed" in text
    assert "heads up in about 75 of 100 throws (probability 0.750)" in text
    assert R.describe(LN3, 100) in text
    assert "What this number promises, and what it does not" in text
    for cell in ("0.69", "about 67", "33 %", "1.95", "about 88", "75 %"):
        assert f">{cell}<" in page or f">{cell} " in page
    assert "@media print" in page and "aria-live" in page


def test_german_page_is_german_and_polite():
    page = explainer_page(LN3, n=100, lang="de")
    text = html.unescape(re.sub(r"<[^>]+>", "", page.split("<main>")[1].split("</main>")[0]))
    assert "Von 100 solchen Versuchen wären etwa 75 richtig. Mit einem Münzwurf wären es 50." in text
    assert "bestenfalls 50 % des Weges vom Münzwurf zur Gewissheit" in text
    assert "Wahrscheinlichkeit 0,750" in text
    # The polite form throughout: no informal "du", "dich", "dir", "dein".
    assert not re.search(r"\b(du|dich|dir|dein\w*)\b", text, flags=re.IGNORECASE)
    assert "Sie" in text


def test_page_is_self_contained():
    page = explainer_page(LN3, n=100, compare=[math.log(2)])
    parsed = _parse(page)
    for tag, attrs in parsed.tags:
        assert tag not in {"link", "img", "iframe", "object", "embed"}, tag
        assert "src" not in attrs, (tag, attrs)
        for key in ("href", "xlink:href", "action"):
            assert not attrs.get(key, "#").strip() or attrs.get(key, "#").startswith("#"), (tag, attrs)
    assert "@import" not in page and "url(" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert "default-src 'none'" in page


# --- contrast ------------------------------------------------------------------------------------------------


def _luminance(colour: str) -> float:
    """Relative luminance of an sRGB colour, WCAG 2.1."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_wcag_contrast_of_the_palette():
    from privrisk.reports.explain import PAGE_CSS
    from privrisk.reports.html import BASE_CSS

    colours = dict(re.findall(r"--(\w+):\s*(#[0-9a-fA-F]{6})", BASE_CSS))
    assert round(_contrast("#000000", "#ffffff"), 1) == 21.0  # the formula itself
    for text in ("ink", "muted", "accent", "warm", "warn"):
        for background in ("paper", "soft"):
            # Normal text needs 4.5:1 (WCAG 2.1 AA); the icons and bars need 3:1 as graphics.
            assert _contrast(colours[text], colours[background]) >= 4.5, (text, background)
    # The outline of the empty figures (icon stroke and legend border, read from the page's CSS rather than
    # copied here) is a graphic: 3:1 against the page and the slider's background.
    outlines = re.findall(
        r"\.wrong(?:::before)? \{[^}]*?(?:stroke|border): (?:[\d.]+px solid )?(#[0-9a-fA-F]{6})", PAGE_CSS
    )
    assert len(outlines) == 2, outlines
    for outline in outlines:
        assert _contrast(outline, colours["paper"]) >= 3.0 and _contrast(outline, colours["soft"]) >= 3.0


# --- package data --------------------------------------------------------------------------------------------


def test_assets_load_through_importlib_resources():
    """The page's words, style and script are package data files, read as an installed package reads them."""
    import importlib.resources
    import json

    from privrisk.reports import explain

    assets = importlib.resources.files("privrisk.reports.assets")
    names = {p.name for p in assets.iterdir()}
    assert {"base.css", "explain.css", "explain.js", "explain.en.json", "explain.de.json"} <= names
    for lang in explain.LANGUAGES:
        text = json.loads(assets.joinpath(f"explain.{lang}.json").read_text(encoding="utf-8"))
        assert text == explain.TEXT[lang]
    assert assets.joinpath("explain.css").read_text(encoding="utf-8") == explain.PAGE_CSS
    assert assets.joinpath("explain.js").read_text(encoding="utf-8") == explain.SCRIPT
    page = explainer_page(LN3)
    assert explain.PAGE_CSS.strip() in page and explain.SCRIPT.strip() in page


def test_every_language_has_every_sentence_with_the_same_placeholders():
    en, de = TEXT["en"], TEXT["de"]
    # English says its consent-form paragraph with privrisk.describe; every other language brings its own.
    assert set(de) - set(en) == {"describe", "describe_n"} and set(en) <= set(de)
    for key, value in en.items():
        if key.startswith("_"):
            continue
        assert type(de[key]) is type(value), key
        if isinstance(value, str):
            assert set(re.findall(r"\{\w+\}", value)) == set(re.findall(r"\{\w+\}", de[key])), key
        if isinstance(value, list):
            assert len(value) == len(de[key]), key


def test_explainer_document_and_language_names():
    doc = explainer_document("ln3", n=100, compare=["ln2", 2.0], lang=" DE ")
    assert doc["lang"] == "de" and doc["n"] == 100 and doc["compare"] == pytest.approx([math.log(2), 2.0])
    assert doc["shown"] == explainer_numbers(LN3, 100, lang="de") and doc["description"] == R.describe(
        LN3, 100
    )
    assert doc["many_worlds"] == pytest.approx(R.many_worlds(LN3, 100))
    assert explainer_page(LN3, lang="DE") == explainer_page(LN3, lang="de")
    with pytest.raises(pr.PrivriskError, match="n: must be a whole number from 2 to 10"):
        explainer_document(1.0, n=2.5)
    with pytest.raises(pr.PrivriskError, match="compare"):
        explainer_page(1.0, compare=[0.0])


def test_the_explainer_stops_at_epsilon_ten_thousand():
    from privrisk.errors import PrivriskError

    # P = 1 in double precision from ε ≈ 37 on, not in truth.
    assert explainer_numbers(1e4)["risk"] == "more than 99"
    with pytest.raises(PrivriskError, match=r"^epsilon: 10000\.1 is above 10,000"):
        explainer_numbers(10_000.1)
