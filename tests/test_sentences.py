"""Every sentence true at every value (issue 30, item 4): the numbers a reader takes from the words, read back.

Over ε from 10⁻¹² to 700 and n from 2 to 10⁹ (and the other kinds of guarantee: ρ, μ, Rényi curves, mechanisms,
compositions, DP-SGD), every sentence and table cell of the release's public statement (its verdict, its
findings and ``statement.html``), of the explainer (:func:`privrisk.reports.explain.explainer_numbers`, its
paragraph and :func:`~privrisk.reports.explain.guarantee_numbers`) and of ``privrisk risk``'s human output is
parsed back into numbers, and each is checked against the exact value, computed here with mpmath from the
papers' formulas (sharing no code with privrisk), or, where no closed form exists, against the library's own
float with the same reading rules:

- "about k in m" (or "k of m") is within half a count of the truth;
- "X %" is within half a unit of its last digit of the truth; "0 %" (or "0.0%") only for a risk that is 0,
  "100 %" only for one that is 1 (no finite ε is either);
- "less than X" and "more than X" are true; "all" and "none" only for certainty; "the same as guessing" only
  when it is.

The cases of the issue are examples: ε = 10⁻⁶ said "more than 999,999 times in 1,000,000" for about 1 in 2, and
ε = 0.001 said "Γ = 0.0%" and "advantage 0.0%".
"""

from __future__ import annotations

import contextlib
import html
import io
import math
import re
import warnings
from collections.abc import Callable

import mpmath
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivacyLeakWarning

mpmath.mp.dps = 60

LOG_EPSILON = st.floats(min_value=math.log(1e-12), max_value=math.log(700.0)).map(math.exp)
N = st.integers(min_value=2, max_value=10**9)
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


# ------------------------------------------------------------------------------------------- exact values
def rho_gl(eps: float) -> mpmath.mpf:
    """ρ_gl = 1/(1 + e^(−ε)) (Mehner et al., eq. 3)."""
    return 1 / (1 + mpmath.exp(-mpmath.mpf(eps)))


def gamma(eps: float) -> mpmath.mpf:
    """Γ = 2ρ_gl − 1."""
    return 2 * rho_gl(eps) - 1


def rho_mw(eps: float, n: int, ratio: float = 1.0) -> mpmath.mpf:
    """ρ_mw = 1/(1 + (n − 1)e^(−εr)) (Mehner et al., eq. 1)."""
    return 1 / (1 + (n - 1) * mpmath.exp(-mpmath.mpf(eps) * ratio))


def leak(eps: float, n: int, ratio: float = 1.0) -> mpmath.mpf:
    """γ = (ρ_mw − 1/n)/(1 − 1/n)."""
    guess = mpmath.mpf(1) / n
    return (rho_mw(eps, n, ratio) - guess) / (1 - guess)


def pure_tpr(eps: float, alpha: float) -> mpmath.mpf:
    """1 − β(α), β(α) = max(0, 1 − e^ε α, e^(−ε)(1 − α)) (Dong, Roth and Su 2022, eq. 5)."""
    e, a = mpmath.mpf(eps), mpmath.mpf(alpha)
    return 1 - max(0, 1 - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - a))


def laplace_advantage(eps: float) -> mpmath.mpf:
    """The total variation between Lap(0, 1/ε) and Lap(1, 1/ε): 1 − e^(−ε/2)."""
    return 1 - mpmath.exp(-mpmath.mpf(eps) / 2)


def gdp_advantage(mu: float) -> mpmath.mpf:
    """2Φ(μ/2) − 1 (Dong, Roth and Su 2022, Cor. 2.13 at ε = 0)."""
    return 2 * mpmath.ncdf(mpmath.mpf(mu) / 2) - 1


def gdp_tpr(mu: float, alpha: float) -> mpmath.mpf:
    """1 − Φ(Φ⁻¹(1 − α) − μ)."""
    return 1 - mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(alpha) - 1) - mu)


# ------------------------------------------------------------------------------------------- reading back
def _number(text: str) -> tuple[float, float]:
    """A number as shown ("1,234.5", "3.1 × 10⁻⁷") and half the unit of its last digit."""
    mantissa, _, power = text.partition(" × 10")
    mantissa = mantissa.replace(",", "")
    decimals = len(mantissa.partition(".")[2])
    exponent = int(power.translate(SUPERSCRIPT)) if power else 0
    return float(mantissa) * 10.0**exponent, 0.5 * 10.0 ** (exponent - decimals)


PERCENT = re.compile(
    r"(?P<edge>less than |more than )?(?P<num>\d[\d,]*(?:\.\d+)?(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)\s?%"
)


def check_percent(text: str, truth: float | mpmath.mpf, what: str = "") -> None:
    """One percentage read back against the truth (a probability)."""
    m = PERCENT.fullmatch(text.strip())
    assert m, f"{what}: {text!r} is not a percentage"
    shown, half = _number(m["num"])
    t = mpmath.mpf(truth) * 100
    if m["edge"] == "more than ":
        assert t > shown, f"{what}: {text!r} but the truth is {mpmath.nstr(t, 20)} %"
    elif m["edge"] == "less than ":
        assert t < shown, f"{what}: {text!r} but the truth is {mpmath.nstr(t, 20)} %"
    else:
        assert shown != 0 or t == 0, f"{what}: {text!r} for a risk of {mpmath.nstr(t, 5)} %"
        assert shown != 100 or t == 100, f"{what}: {text!r} for a risk of {mpmath.nstr(t, 20)} %"
        assert abs(t - shown) <= half * (1 + 1e-9) + 1e-9 * abs(t), (
            f"{what}: {text!r} for {mpmath.nstr(t, 12)} %"
        )


def check_count(kind: str, count: int, base: int, truth: float | mpmath.mpf, what: str = "") -> None:
    """A natural frequency read back: "about k" of base, "more than k", "fewer than 1", "all", "none"."""
    p = mpmath.mpf(truth)
    if kind == "about":
        assert 0 < p < 1 and abs(p * base - count) <= mpmath.mpf("0.5") + mpmath.mpf(10) ** -9, (
            what,
            count,
            base,
            p,
        )
    elif kind == "more":
        assert p > mpmath.mpf(count) / base, (what, count, base, p)
    elif kind == "fewer":
        assert p < mpmath.mpf(count) / base, (what, count, base, p)
    elif kind == "all":
        assert p == 1, (what, base, p)
    elif kind == "none":
        assert p == 0, (what, base, p)
    else:  # pragma: no cover - a phrase the reader does not know
        raise AssertionError(f"{what}: unknown kind {kind}")


def _int(text: str) -> int:
    return int(text.replace(",", "").replace(".", ""))


FREQUENCY = re.compile(
    r"(?P<kind>about|more than|fewer than|all)\s+(?P<count>[\d,.]+)|(?P<none>none|keiner)|(?P<etwa>etwa|mehr als|weniger als|alle)\s+(?P<c2>[\d,.]+)"
)


def check_frequency(phrase: str, base: int, truth: float | mpmath.mpf, what: str = "") -> None:
    """A phrase of :class:`privrisk._format.Frequency` ("about 73", "more than 99", "fewer than 1", "all 100")."""
    m = FREQUENCY.fullmatch(phrase.strip())
    assert m, f"{what}: {phrase!r}"
    if m["none"]:
        check_count("none", 0, base, truth, what)
        return
    word = (
        m["kind"] or {"etwa": "about", "mehr als": "more", "weniger als": "fewer", "alle": "all"}[m["etwa"]]
    )
    kind = {"about": "about", "more than": "more", "fewer than": "fewer", "all": "all"}.get(word, word)
    check_count(kind, _int(m["count"] or m["c2"]), base, truth, what)


# ------------------------------------------------------------------------------------------- the statement
ODDS = re.compile(
    r"(?:about (?P<k>[\d,]+) times? in (?P<m>[\d,]+)(?: at most)?|more than (?P<more>[\d,]+) times in (?P<mm>[\d,]+)"
    r"|fewer than once in (?P<fm>[\d,]+))"
    r"(?: \(the most that ε = [^)]* allows any noise\))?; guessing, (?P<g>[\d,]+) in (?P<gm>[\d,]+)"
    r"(?: \(the difference is less than 1 in (?P<diff>[\d,]+)\))?"
)


def check_verdict(sentence: str, p: float | mpmath.mpf, guess: float = 0.5) -> None:
    """The verdict of :func:`privrisk.release.statement.verdict`, read back against the attacker's success p."""
    assert "the same as guessing" not in sentence or p == guess, sentence
    m = ODDS.search(sentence)
    assert m, sentence
    if m["k"]:
        check_count("about", _int(m["k"]), _int(m["m"]), p, sentence)
    elif m["more"]:
        check_count("more", _int(m["more"]), _int(m["mm"]), p, sentence)
    else:
        check_count("fewer", 1, _int(m["fm"]), p, sentence)
    assert _int(m["g"]) / _int(m["gm"]) == guess, sentence
    if m["diff"]:
        assert 0 < abs(mpmath.mpf(p) - guess) < mpmath.mpf(1) / _int(m["diff"]), sentence


def check_describe(text: str, eps: float, n: int | None, ratio: float = 1.0) -> None:
    """:func:`privrisk.describe`'s sentences read back."""
    m = re.search(
        r"In ([\d,]+) such attempts the attacker would be right (.+?) times; guessing alone would be right ([\d,]+) times\.",
        text,
    )
    assert m, text
    base = _int(m[1])
    check_frequency(m[2], base, rho_gl(eps), "describe: ρ_gl")
    assert _int(m[3]) == base // 2
    m = re.search(
        r"At best, the answer takes the attacker (.+?) of the way from a coin toss to certainty\.", text
    )
    assert m, text
    check_percent(m[1], gamma(eps), "describe: Γ")
    if n is not None:
        m = re.search(
            r"among ([\d,]+) possible people, (.+?) of ([\d,]+) attempts would succeed; guessing alone would succeed (.+?) of them\.",
            text,
        )
        assert m, text
        assert _int(m[1]) == n
        base = _int(m[3])
        check_frequency(m[2], base, rho_mw(eps, n, ratio), "describe: ρ_mw")
        check_frequency(m[4], base, mpmath.mpf(1) / n, "describe: 1/n")


def _release(eps: float, n: int):
    from privrisk.release import ReleaseQuery, noisy_release

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return noisy_release(
            pd.DataFrame({"x": [1.0, 2.0, 3.0]}),
            ReleaseQuery("x", "count", eps, (0, 10)),
            public_n=n,
            allow_large_epsilon=True,
        )


def _text(page: str) -> str:
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body)).replace("\u00a0", " ")


@settings(max_examples=40, deadline=None)
@given(LOG_EPSILON, N)
@example(1e-6, 100)  # issue 30: "more than 999,999 times in 1,000,000" for about 1 in 2
@example(0.001, 1000)  # issue 30: "Γ = 0.0%" and "advantage 0.0%"
@example(700.0, 10**9)
@example(1e-12, 2)
@example(40.0, 2)  # ρ_gl is 1.0 in double precision: never "all" or "100"
def test_the_public_statement_reads_back_true(eps, n):
    r = _release(eps, n)
    s = r.statement
    from privrisk.release.statement import statement_html, verdict

    check_verdict(verdict(s), rho_gl(eps))
    check_describe(s["sentences"], eps, n)
    findings = " ".join(r.findings())
    m = re.search(
        r"ρ_gl = (.+?), the most that ε allows any noise, and the global leak Γ = (.+?) \(", findings
    )
    assert m, findings
    check_percent(m[1], rho_gl(eps), "findings: ρ_gl")
    check_percent(m[2], gamma(eps), "findings: Γ")
    m = re.search(r"ρ_mw = (.+?) \(guessing: (.+?)\)\.", findings)
    assert m, findings
    check_percent(m[1], rho_mw(eps, n), "findings: ρ_mw")
    check_percent(m[2], mpmath.mpf(1) / n, "findings: 1/n")
    # The tight composition of one count (a Laplace mechanism of scale 1/ε): advantage 1 − e^(−ε/2).
    m = re.search(
        r"the best attacker is right (.+?) of the time \(advantage (.+?)\), and the risk of singling out one of n = ([\d,]+) people is (.+?) \(",
        findings,
    )
    assert m, findings
    check_percent(m[1], (1 + laplace_advantage(eps)) / 2, "composition: success")
    check_percent(m[2], laplace_advantage(eps), "composition: advantage")
    c = s["composition"]
    check_percent(m[4], c["many_worlds"], "composition: risk among n")  # no closed form: the library's float
    assert not re.search(r"(?<![\d.])(0\.0|100\.0)%", findings), findings
    page = _text(statement_html(r))
    m = re.search(r"would be right in (.+?) of ([\d,]+) attempts at most; guessing, in (.+?) of them\.", page)
    assert m, page
    base = _int(m[2])
    check_frequency(m[1], base, rho_mw(eps, n), "statement.html: ρ_mw")
    check_frequency(m[3], base, mpmath.mpf(1) / n, "statement.html: 1/n")
    check_verdict(page, rho_gl(eps))
    for bad in ("all 100", "at most less", "at most more"):
        assert bad not in page, bad
    assert not re.search(r"(?<![\d.])(0\.0|100\.0)%", page), page


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=1e-12, max_value=3.0), st.integers(min_value=2, max_value=10**9))
def test_gaussian_releases_read_back_true(rho, n):
    # μ = √(2ρ): the composition's success Φ(μ/2) and advantage 2Φ(μ/2) − 1, exactly.
    from privrisk.release.statement import release_statement, verdict

    s = release_statement([{"mechanism": "gaussian", "rho": rho}], n)
    mu = math.sqrt(2 * rho)
    check_verdict(verdict(s), (1 + gdp_advantage(mu)) / 2)
    m = re.search(
        r"right (.+?) of the time at best \(guessing: 50 %\); the release takes them (.+?) of the way",
        s["sentences"],
    )
    assert m, s["sentences"]
    check_percent(m[1], (1 + gdp_advantage(mu)) / 2, "Gaussian: success")
    check_percent(m[2], gdp_advantage(mu), "Gaussian: advantage")


# ------------------------------------------------------------------------------------------- the explainer
@settings(max_examples=60, deadline=None)
@given(LOG_EPSILON, N, st.sampled_from(["en", "de"]))
@example(1e-6, 2, "en")
@example(60.0, 10**9, "de")
@example(700.0, 2, "en")
def test_the_explainer_reads_back_true(eps, n, lang):
    from privrisk.reports.explain import explainer_numbers, explainer_paragraph

    v = explainer_numbers(eps, n, lang=lang)
    en = {k: value.replace(".", "").replace(",", ".") if lang == "de" else value for k, value in v.items()}
    en = {
        k: value.replace("weniger als", "less than").replace("mehr als", "more than")
        for k, value in en.items()
    }
    base = _int(v["risk_base"])
    check_frequency(v["risk"], base, rho_gl(eps), "explainer: risk")
    assert _int(v["guess"]) * 2 == base
    check_percent(en["gamma"], gamma(eps), "explainer: Γ")
    if en["coin"].startswith("more than"):
        assert rho_gl(eps) > float(en["coin"].split()[-1])
    else:
        assert abs(rho_gl(eps) - float(en["coin"])) <= 0.0005 + 1e-12 and float(en["coin"]) < 1
    check_ratio(en["ratio"], eps)
    mw_base = _int(v["mw_base"])
    check_frequency(v["mw"], mw_base, rho_mw(eps, n), "explainer: ρ_mw")
    check_frequency(v["mw_guess"], mw_base, mpmath.mpf(1) / n, "explainer: 1/n")
    assert int(v["icons_guess"]) + int(v["icons_extra"]) < 100  # the icons never show certainty
    if lang == "en":
        check_describe(explainer_paragraph(eps, n), eps, n)
    else:
        assert "höchstens weniger" not in explainer_paragraph(eps, n, lang="de")


def check_ratio(text: str, eps: float) -> None:
    """e^ε as the explainer prints it: "3.0", "1.00010", "1 + 1.0 × 10⁻¹²", "4.9 × 10⁸"."""
    truth = mpmath.exp(mpmath.mpf(eps))
    if text.startswith("1 + "):
        shown, half = _number(text[4:])
        assert abs(truth - 1 - shown) <= half * (1 + 1e-9), (text, eps)
        return
    shown, half = _number(text)
    assert shown != 1, (text, eps)  # "1.0" would say that nothing changes
    assert abs(truth - shown) <= half * (1 + 1e-6) + abs(truth) * 1e-12, (text, eps)


def _guarantees() -> dict[str, Callable[[float], object]]:
    """Guarantee kinds, each from a parameter in (0, 1] scaled to its own range."""
    from privrisk import accounting as A

    return {
        "pure": lambda t: A.pure_dp(700 * t),
        "approximate": lambda t: A.approximate_dp(50 * t, 1e-6),
        "zcdp": lambda t: A.zcdp(100 * t),
        "gdp": lambda t: A.gaussian_dp(40 * t),
        "renyi": lambda t: A.renyi_dp([2.0, 4.0, 8.0], [t, 3 * t, 7 * t]),
        "laplace": lambda t: A.laplace_guarantee(epsilon=100 * t),
        "gaussian": lambda t: A.gaussian_guarantee(sigma=1 / (20 * t)),
        "rr": lambda t: A.randomised_response_guarantee(epsilon=100 * t),
        "composed": lambda t: A.pure_dp(50 * t).compose(50),
        "subsampled": lambda t: A.subsample(A.gaussian_guarantee(sigma=1 / (10 * t)), 0.1),
        "dpsgd": lambda t: A.dpsgd(dataset_size=1000, batch_size=100, epochs=2, noise_multiplier=0.5 / t),
    }


KIND = st.sampled_from(
    ["pure", "approximate", "zcdp", "gdp", "renyi", "laplace", "gaussian", "rr", "composed", "subsampled", "dpsgd"]
)  # fmt: skip
SCALE = st.floats(min_value=1e-9, max_value=1.0)


@settings(max_examples=20, deadline=None)
@given(KIND, SCALE, N)
@example("composed", 1.0, 10)  # 50 × ε = 50: once TPR 1 at FPR 0
@example("gdp", 1e-9, 10**9)
def test_the_explainer_of_any_guarantee_reads_back_true(kind, t, n):
    from privrisk import accounting as A
    from privrisk.reports.explain import guarantee_numbers

    g = _guarantees()[kind](t)
    v = guarantee_numbers(g, n)
    m = A.membership_risk(g)
    success, advantage = m.success, m.advantage
    if kind == "pure":
        success, advantage = rho_gl(700 * t), gamma(700 * t)
    elif kind == "gdp":
        advantage = gdp_advantage(40 * t)
        success = (1 + advantage) / 2
    elif kind == "laplace":
        advantage = laplace_advantage(100 * t)
        success = (1 + advantage) / 2
    # Below certainty: δ < 1 everywhere, so the truth is below 1 even where the float is 1.0.
    success = min(mpmath.mpf(success), 1 - mpmath.mpf(10) ** -40)
    advantage = min(mpmath.mpf(advantage), 1 - mpmath.mpf(10) ** -40)
    check_frequency(v["risk"], _int(v["risk_base"]), success, f"{kind}: success")
    check_percent(v["gamma"], advantage, f"{kind}: advantage")
    among = min(mpmath.mpf(A.reconstruction_risk(g, n)), 1 - mpmath.mpf(10) ** -40)
    check_frequency(v["mw"], _int(v["mw_base"]), among, f"{kind}: risk among n")


# ------------------------------------------------------------------------------------------- privrisk risk
def _risk_output(*args: str) -> str:
    """``privrisk risk ARGS`` in this process, on a console wide enough that no cell wraps."""
    from privrisk.cli import _common, main

    buffer = io.StringIO()
    width = _common.out.width
    _common.out.width = 400
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
            code = main(["risk", *args])
    finally:
        _common.out.width = width
    assert code == 0, (args, buffer.getvalue())
    return buffer.getvalue()


def _printed(doc: dict, n: int, at_delta: float) -> str:
    """What ``privrisk risk`` prints for ``doc`` (its JSON), without computing the guarantee again."""
    from privrisk.cli import _common
    from privrisk.cli.risk import _print_risks

    buffer = io.StringIO()
    width = _common.out.width
    _common.out.width = 400
    try:
        with contextlib.redirect_stdout(buffer):
            _print_risks(doc, n, at_delta)
    finally:
        _common.out.width = width
    return buffer.getvalue()


def _rows(text: str) -> dict[str, list[str]]:
    """The cells of every table row, by the row's label (the first cell)."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if len(cells) >= 2 and cells[0] and not set(line) <= set("━┏┓┡┩└┘─┳╇┴┃ "):
            rows[cells[0]] = cells[1:]
    return rows


@settings(max_examples=40, deadline=None)
@given(LOG_EPSILON, N, st.sampled_from([1.0, 0.008, 0.5]))
@example(1e-6, 100, 1.0)
@example(0.001, 1000, 1.0)  # issue 30: the terminal showed "0.0%"
# issue 37: ρ_mw 4.8 % of this query beside 13.0 % among n of any query
@example(1.0986122886681098, 21, 0.008)
@example(700.0, 10**9, 1.0)
def test_privrisk_risk_reads_back_true_for_a_pure_epsilon(eps, n, ratio):
    text = _risk_output("--epsilon", repr(eps), "--n", str(n), "--ratio", repr(ratio))
    rows = _rows(text)
    check_percent(rows["many-worlds risk ρ_mw"][0], rho_mw(eps, n, ratio), "ρ_mw")
    check_percent(rows["two-worlds risk ρ_tw"][0], rho_mw(eps, 2, ratio), "ρ_tw")
    check_percent(rows["global risk ρ_gl"][0], rho_gl(eps), "ρ_gl")
    check_percent(rows["global leak Γ"][0], gamma(eps), "Γ")
    check_percent(rows["local leak γ"][0], leak(eps, n, ratio), "γ")
    check_percent(rows["guessing"][0], mpmath.mpf(1) / n, "1/n")
    check_describe(text, eps, n if n > 2 else None, ratio)  # n = 2 is the two-worlds sentence itself
    # The accountant's table: any query, so Δv = Δf whatever the ratio; the worst case is randomized response.
    for column in (0, 1):
        check_percent(rows["advantage"][column], gamma(eps), "advantage")
        check_percent(rows["success"][column], rho_gl(eps), "success")
        check_percent(rows["largest posterior"][column], rho_gl(eps), "posterior")
        for alpha in (0.001, 0.01, 0.05, 0.1):
            check_percent(rows[f"TPR at FPR α = {alpha:g}"][column], pure_tpr(eps, alpha), f"TPR at {alpha}")
        check_percent(rows[f"risk among n = {n:,}, any query"][column], rho_mw(eps, n), "risk among n")
    # The two risks among n answer two questions, and say which.
    query = "any query (Δv = Δf)" if ratio == 1 else f"this query (Δv/Δf = {ratio:.4g})"
    assert f"for {query}" in text and "any query (Δv = Δf) · worst case: ε = " in text


@settings(max_examples=15, deadline=None)
@given(KIND, SCALE, N)
@example("zcdp", 0.0263, 10)  # issue 37: --rho 2.63 showed every worst-case cell as 100 %
@example("composed", 1.0, 10)
def test_privrisk_risk_reads_back_true_for_every_guarantee(kind, t, n):
    """Every cell against the JSON's float of the same run (and the exact value where a closed form exists)."""
    import json

    args = {
        "pure": ["--epsilon", repr(700 * t)],
        "approximate": ["--epsilon", repr(50 * t), "--delta", "1e-6"],
        "zcdp": ["--rho", repr(100 * t)],
        "gdp": ["--mu", repr(40 * t)],
        "renyi": ["--renyi", f"2:{t!r},4:{3 * t!r},8:{7 * t!r}"],
        "laplace": ["--mechanism", "laplace", "--epsilon", repr(100 * t)],
        "gaussian": ["--mechanism", "gaussian", "--sigma", repr(1 / (20 * t))],
        "rr": ["--mechanism", "rr", "--epsilon", repr(100 * t)],
        "composed": ["--epsilon", repr(50 * t), "--compose", "50"],
        "subsampled": ["--mechanism", "gaussian", "--sigma", repr(1 / (10 * t)), "--sample-rate", "0.1"],
        "dpsgd": ["--dpsgd", "1000,100,2", "--sigma", repr(0.5 / t)],
    }[kind]
    args += ["--n", str(n), "--at-delta", "1e-5"]
    doc = json.loads(_risk_output(*args, "--json"))
    text = _printed(doc, n, 1e-5)  # the command's own printer, on the document it printed as JSON
    rows = _rows(text)
    w = doc["worst_case"]
    columns = [doc] if w["epsilon"] is None else [doc, w]
    for column, values in enumerate(columns):
        for key, label in (
            ("advantage", "advantage"),
            ("success", "success"),
            ("reconstruction", f"risk among n = {n:,}, any query"),
        ):
            check_percent(
                rows[label][column], min(mpmath.mpf(values[key]), 1 - mpmath.mpf(10) ** -40), f"{kind}: {key}"
            )
        for cell in values["tpr_at_fpr"]:
            check_percent(
                rows[f"TPR at FPR α = {cell['fpr']:g}"][column],
                min(mpmath.mpf(cell["tpr"]), 1 - mpmath.mpf(10) ** -40),
                f"{kind}: TPR",
            )
        # Never more than the worst case (issue 30, item 8).
    if w["epsilon"] is not None:
        assert doc["advantage"] <= w["advantage"] and doc["success"] <= w["success"]
        header = "worst case at ε = " if w["delta"] == 0 else "worst case at (ε = "
        assert header in text
        if w["delta"]:
            assert "δ = 1 × 10⁻⁵" in text  # the δ asked for, named
    else:
        assert "No worst case in the (ε, δ) form" in text
    if kind == "gdp":
        check_percent(rows["advantage"][0], gdp_advantage(40 * t), "GDP: exact advantage")
        for alpha in (0.001, 0.01, 0.05, 0.1):
            check_percent(rows[f"TPR at FPR α = {alpha:g}"][0], gdp_tpr(40 * t, alpha), "GDP: exact TPR")
    assert not re.search(r"(?<![\d.])(0\.0|100\.0)%", text), text
