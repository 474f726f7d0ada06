"""The explainer page for any guarantee: the same story told from the trade-off curve, in English and German."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from helpers import one_line_error
from privrisk import risk as R
from privrisk.accounting import gaussian_dp, laplace_guarantee, pure_dp, zcdp
from privrisk.reports.explain import (
    explainer_numbers,
    guarantee_document,
    guarantee_name,
    guarantee_numbers,
    guarantee_page,
)

PHI = NormalDist().cdf
LN3 = math.log(3)


def test_a_pure_epsilon_tells_the_same_numbers_both_ways():
    # The page of Mehner et al. computes P and ρ_mw in ε; the curve of pure ε-DP gives the very same strings.
    for eps, n in [(LN3, 100), (1.0, 10), (0.1, 2), (5.0, 1000)]:
        old, new = explainer_numbers(eps, n, lang="de"), guarantee_numbers(pure_dp(eps), n, lang="de")
        for key in ("risk", "risk_base", "guess", "gamma", "icons_guess", "icons_extra", "icons_wrong", "mw"):
            assert new[key] == old[key], (eps, key)


def test_gaussian_dp_numbers():
    v = guarantee_numbers(gaussian_dp(1.0), n=100)
    # success Φ(μ/2) = 0.6915: about 69 of 100; advantage 2Φ(1/2) − 1 = 0.383: 38 %.
    assert PHI(0.5) == pytest.approx(0.6915, abs=1e-4)
    assert v["risk"] == "about 69" and v["gamma"] == "38 %" and v["icons_extra"] == "19"
    doc = guarantee_document(laplace_guarantee(epsilon=1.0), lang="de")
    assert doc["success"] == pytest.approx(1 - math.exp(-0.5) / 2) and doc["shown"]["risk"] == "etwa 70"
    assert doc["paragraph"].startswith("Angenommen, ein Angreifer") and doc["many_worlds"] is None


def test_guarantee_page_is_one_offline_file_in_both_languages():
    en = guarantee_page(zcdp(0.5), n=100, name="ρ = 0.5")
    de = guarantee_page(zcdp(0.5), n=100, lang="de", name=guarantee_name(rho=0.5, lang="de"))
    for page in (en, de):
        assert (
            page.startswith("<!DOCTYPE html>")
            and "<script" not in page
            and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
        )
        assert "https://" not in page and 'class="icons"' in page
    assert 'lang="en"' in en and "what ρ = 0.5 means" in en and "Among 100 people" in en
    assert 'lang="de"' in de and "Was ρ = 0,5 bedeutet" in de and "Unter 100 Personen" in de
    assert "Dong, Roth und Su" in de and "Canonne" in de  # the conversion used is named


def test_guarantee_names():
    assert guarantee_name(epsilon=1.0, delta=1e-6) == "ε = 1, δ = 1e-06"
    assert guarantee_name(mechanism="laplace", epsilon=0.5, sensitivity=2.0, compose=3, lang="de") == (
        "Laplace-Rauschen, ε = 0,5, Sensitivität 2, 3 Veröffentlichungen"
    )


# ------------------------------------------------------------------------------------------- the command
def test_explain_rho_and_mu_in_english_and_german(cli, tmp_path):
    target = tmp_path / "p.html"
    r = cli("explain", "--rho", "0.5", "--n", "100", "--lang", "de", "--out", target)
    assert r.code == 0, r.err
    assert "Unter 100 Personen" in target.read_text(encoding="utf-8") and r.out.startswith("Angenommen")
    doc = cli("explain", "--mu", "1", "--json").json
    assert doc["success"] == pytest.approx(PHI(0.5), abs=1e-9) and doc["shown"]["risk"] == "about 69"
    four = cli("explain", "--mu", "0.5", "--compose", "4", "--json").json
    assert four["success"] == pytest.approx(PHI(0.5), abs=1e-9) and four["name"] == "μ = 0.5, 4 releases"
    lap = cli("explain", "--mechanism", "laplace", "--epsilon", "1", "--n", "10", "--json").json
    assert lap["success"] == pytest.approx(1 - math.exp(-0.5) / 2) and lap["many_worlds"] <= R.many_worlds(
        1, 10
    )
    approx = cli("explain", "--epsilon", "1", "--delta", "0.01", "--json").json
    assert approx["advantage"] == pytest.approx((math.e - 1 + 0.02) / (math.e + 1), abs=1e-9)
    # δ = 0 is a pure ε: the page of Mehner et al., with its slider.
    assert cli("explain", "--epsilon", "ln3", "--delta", "0", "--json").json["global_risk"] == pytest.approx(
        0.75
    )


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--rho", "0.5", "--compare", "ln2"], ["--compare"]),
        (["--rho", "0.5", "--mu", "1"], ["exactly one guarantee"]),
        ([], ["--epsilon", "exactly one guarantee"]),
        (["--rho", "-1"], ["--rho"]),
        (["--mu", "1", "--compose", "0"], ["--compose"]),
        (["--rho", "0.5", "--lang", "fr"], ["--lang"]),
        (["--rho", "0.5", "--n", "1"], ["--n"]),
    ],
)
def test_explain_guarantee_bad_input(cli, tmp_path, args, fragments):
    one_line_error(cli("explain", *args, "--out", tmp_path / "x.html"), *fragments)
    assert not (tmp_path / "x.html").exists()


@pytest.mark.browser
def test_guarantee_page_in_a_real_browser(browser, tmp_path):
    from browser_helpers import Opened

    target = tmp_path / "rho.html"
    target.write_text(guarantee_page(zcdp(0.5), n=100, lang="de", name="ρ = 0,5"), encoding="utf-8")
    opened = Opened(browser, target, width=380)  # phone width
    try:
        opened.assert_clean()
        v = guarantee_numbers(zcdp(0.5), n=100, lang="de")
        counts = opened.page.evaluate(
            "() => ['guess', 'extra', 'wrong'].map(c => document.querySelectorAll('#risk-icons .person.' + c).length)"
        )
        assert counts == [int(v["icons_guess"]), int(v["icons_extra"]), int(v["icons_wrong"])]
        assert v["risk"] in opened.page.locator("#risk-sentence").inner_text()
    finally:
        opened.context.close()
