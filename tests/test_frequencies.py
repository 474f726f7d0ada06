"""Natural frequencies that never lie (issue 20): the attacker's and the guesser's rates, counted out of one base.

Every sentence that says a risk beside what guessing achieves — the terminal's (``privrisk risk``), the app's Risk
page, the release statement and the explainer page in English and German — is parsed back into numbers here. The
stated attacker rate must never be below the stated guessing rate, and each stated rate must be within rounding
of the true one (an "about K of B" within half a count, "fewer than 1 of B" below 1/B, "more than B − 1 of B"
above (B − 1)/B).
"""

from __future__ import annotations

import html
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import risk as R
from privrisk._format import natural_frequencies
from privrisk.app.pages.risk import risk_values
from privrisk.release.statement import public_statement
from privrisk.reports.explain import TEXT, explainer_numbers, explainer_page, guarantee_numbers

LN3 = math.log(3)
EPSILONS = st.floats(min_value=0.0, max_value=40.0, allow_nan=False)
PEOPLE = st.integers(min_value=2, max_value=10**12)

# The phrases of a natural frequency, per language: (kind, pattern with the count as group 1).
PHRASES = {
    "en": [("about", r"about ([\d,]+)"), ("fewer", r"fewer than 1"), ("more", r"more than ([\d,]+)"),
           ("all", r"all ([\d,]+)"), ("none", r"none")],
    "de": [("about", r"etwa ([\d.]+)"), ("fewer", r"weniger als 1"), ("more", r"mehr als ([\d.]+)"),
           ("all", r"alle ([\d.]+)"), ("none", r"keiner")],
}  # fmt: skip


def whole(text: str) -> int:
    return int(text.replace(",", "").replace(".", ""))


def stated(phrase: str, base: int, lang: str = "en") -> tuple[float, float, float]:
    """The phrase as (the count it states, the least and the greatest rate it allows) out of ``base``."""
    for kind, pattern in PHRASES[lang]:
        m = re.fullmatch(pattern, phrase)
        if m is None:
            continue
        if kind == "about":
            k = whole(m.group(1))
            return k, (k - 0.5) / base, (k + 0.5) / base
        if kind == "fewer":
            return 0.0, 0.0, 1 / base
        if kind == "more":
            assert whole(m.group(1)) == base - 1
            return base - 0.5, (base - 1) / base, 1.0
        if kind == "all":
            return base, 1.0, 1.0
        return 0.0, 0.0, 0.0
    raise AssertionError(f"not a natural frequency: {phrase!r}")


def check(p: float, guess: float, attacker_phrase: str, guess_phrase: str, base: int, lang: str = "en") -> None:
    a, a_low, a_high = stated(attacker_phrase, base, lang)
    g, g_low, g_high = stated(guess_phrase, base, lang)
    assert a >= g, f"the attacker ({attacker_phrase} of {base}) is said to do worse than guessing ({guess_phrase})"
    tol = 1e-12  # the probabilities themselves are rounded doubles
    assert a_low - tol <= p <= a_high + tol, (p, attacker_phrase, base)
    assert g_low - tol <= guess <= g_high + tol, (guess, guess_phrase, base)


SENTENCE = re.compile(
    r"(?P<mw>.+?) of (?P<base>[\d,]+) attempts would succeed; guessing alone would succeed (?P<guess>.+?) of them\."
)


def check_describe(sentence: str, epsilon: float, n: int, ratio: float = 1.0) -> None:
    """The sentence about n people of :func:`privrisk.describe` against ρ_mw and 1/n."""
    m = SENTENCE.search(sentence.split("among", 1)[1].split("people, ", 1)[1])
    assert m is not None, sentence
    check(float(R.many_worlds(epsilon, n, ratio)), 1 / n, m["mw"], m["guess"], whole(m["base"]))


@pytest.mark.parametrize(
    ("n", "said"),
    [  # issue 20: "about 1 of 1,000 … guessing … about 2 of them" said the attacker was worse than guessing
        (5000, "about 6 of 10,000 attempts would succeed; guessing alone would succeed about 2 of them."),
        (500, "about 6 of 1,000 attempts would succeed; guessing alone would succeed about 2 of them."),
        (10, "about 25 of 100 attempts would succeed; guessing alone would succeed about 10 of them."),
        (10**8, "fewer than 1 of 1,000,000 attempts would succeed; guessing alone would succeed fewer than 1 of them."),
    ],
)
def test_the_terminals_sentence_counts_both_out_of_one_base(cli, n, said):
    r = cli("risk", "--epsilon", "ln3", "--n", str(n))
    assert r.code == 0 and said in " ".join(r.out.split())


def test_an_attacker_counted_in_thousands_beside_a_guess_below_one_in_a_million():
    a, g = natural_frequencies(0.0022, 1e-7)  # ε = 10 among 10⁷ people: 2 in 1,000; guessing below a millionth
    assert (a.text(), g.text(), a.base, g.base) == ("about 2", "fewer than 1", 1000, 1000)


@given(EPSILONS, PEOPLE)
def test_describe_never_says_the_attacker_is_worse_than_guessing(epsilon, n):
    """:func:`privrisk.describe` is the terminal's, the app's and the release statement's sentence."""
    check_describe(R.describe(epsilon, n), epsilon, n)


@given(EPSILONS, PEOPLE, st.floats(min_value=0.0, max_value=5.0))
def test_the_app_and_the_release_statement_say_it_truthfully(epsilon, n, ratio):
    if epsilon > 0:  # the page's ε, like the command line's (GuaranteeSpec), is > 0
        check_describe(risk_values(epsilon, max(n, 3), ratio)["description"], epsilon, max(n, 3), ratio)
    check_describe(public_statement(epsilon, n)["sentences"], epsilon, n)


@pytest.mark.parametrize("lang", ["en", "de"])
@given(epsilon=st.floats(min_value=0.0, max_value=1e4, allow_nan=False), n=PEOPLE)
def test_the_explainer_never_says_the_attacker_is_worse_than_guessing(lang, epsilon, n):
    v = explainer_numbers(epsilon, n, lang=lang)
    base = whole(v["mw_base"])
    check(float(R.many_worlds(epsilon, n)), 1 / n, v["mw"], v["mw_guess"], base, lang)
    two = whole(v["risk_base"])
    about = "about" if lang == "en" else "etwa"  # the page says guessing's 50 of 100 as a bare count
    check(float(R.global_risk(epsilon)), 0.5, v["risk"], f"{about} {v['guess']}", two, lang)


@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0))
def test_any_pair_of_rates_is_stated_truthfully(p, guess):
    a, g = natural_frequencies(max(p, guess), min(p, guess))
    assert a.base == g.base and a.base in {10**k for k in range(2, 7)}
    check(max(p, guess), min(p, guess), a.text(), g.text(), a.base)
    check(max(p, guess), min(p, guess), a.text("de"), g.text("de"), a.base, "de")


def test_the_german_page_says_the_issues_example_truthfully():
    text = re.sub(r"<[^>]+>", "", html.unescape(explainer_page(LN3, n=500, lang="de")))
    assert "etwa 6 von 1.000 Versuchen erfolgreich. Durch bloßes Raten wären es etwa 2 von 1.000." in text
    assert TEXT["de"]["freq"]["about"] == "etwa {count}"


@pytest.mark.parametrize("lang", ["en", "de"])
@settings(max_examples=60)
@given(mu=st.floats(min_value=1e-6, max_value=50.0, allow_nan=False), n=PEOPLE)
def test_the_guarantee_page_never_says_the_attacker_is_worse_than_guessing(lang, mu, n):
    """The explainer of any guarantee (here Gaussian DP, μ) says its risks the same way."""
    from privrisk.accounting import gaussian_dp
    from privrisk.accounting import reconstruction_risk as among

    g = gaussian_dp(mu)
    v = guarantee_numbers(g, n, lang=lang)
    check(float(among(g, n)), 1 / n, v["mw"], v["mw_guess"], whole(v["mw_base"]), lang)


def test_the_attack_commands_sentence_counts_both_out_of_one_base():
    from privrisk.attack import attack_sentence as _sentence

    doc = {"n_worlds": 5000, "n": 5000, "worlds": "many", "query": "mean", "epsilon": LN3,
           "expected_success": 3 / 5002, "guess": 1 / 5000, "simulated_success": 0.0006, "exact_risk": 0.0007,
           "bound": 0.0008}  # fmt: skip
    said = _sentence(doc)
    assert "is right about 6 times in 10,000" in said and "would be right about 2 times" in said
