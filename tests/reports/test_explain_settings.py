"""ExplainSettings, ReportSettings and TradeoffSettings: one way in for ``explain``, ``report``, ``tradeoff`` and the
app's Explain page.

Each rule is checked with the field its error names; the numbers against hand calculations: the global risk of ε
is e^ε/(1 + e^ε) and its leak 2ρ − 1 (Mehner et al., eqs. 3–4), the many-worlds risk among n is
1/(1 + (n − 1)e^(−ε)) (Lee and Clifton with ratio 1), μ-GDP's advantage is 2Φ(μ/2) − 1 and its trade-off curve
Φ(Φ⁻¹(1 − α) − μ), pure ε's is max(0, 1 − e^ε α, e^(−ε)(1 − α)). Each result's ``to_dict`` is the command's
``--json`` (``schema_version`` first), and each file is written whole or not at all.
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist

import pytest

from explain_fixtures import make_results
from privrisk.accounting import GuaranteeSpec
from privrisk.errors import PrivriskError
from privrisk.reports.manifest import write_manifest
from privrisk.reports.run import (
    ExplainSettings,
    ReportSettings,
    TradeoffSettings,
    run_explain,
    run_report,
    run_tradeoff,
)

PHI, Z = NormalDist().cdf, NormalDist().inv_cdf
LN3 = math.log(3)


def fails(make, param, words=""):
    with pytest.raises(PrivriskError) as caught:
        make()
    assert caught.value.param == param, str(caught.value)
    assert str(caught.value).startswith(f"{param}:") and words in str(caught.value), str(caught.value)


# ------------------------------------------------------------------------------------------ explain: rules
@pytest.mark.parametrize(
    ("fields", "param", "words"),
    [
        ({}, "epsilon", "give exactly one guarantee"),
        ({"epsilon": 1.0, "guarantee": GuaranteeSpec(rho=0.1)}, "guarantee", "not both"),
        ({"guarantee": GuaranteeSpec(rho=0.1), "compare": "ln2"}, "compare", "beside a pure ε only"),
        ({"guarantee": GuaranteeSpec(rho=0.1), "compare": [1.0]}, "compare", "beside a pure ε only"),
        ({"guarantee": GuaranteeSpec(rho=0.1, mu=1.0)}, "mu", "exactly one guarantee"),
        ({"epsilon": 0}, "epsilon", "greater than 0"),
        ({"epsilon": "abc"}, "epsilon", "not a number"),
        ({"epsilon": 2e4}, "epsilon", "nothing is left to explain"),
        ({"epsilon": 1.0, "n": 1}, "n", "from 2 to 10^12"),
        ({"guarantee": GuaranteeSpec(mu=1.0), "n": 10**13}, "n", "from 2 to 10^12"),
        ({"epsilon": 1.0, "lang": "fr"}, "lang", "en, de"),
        ({"epsilon": 1.0, "compare": "ln2,zero"}, "compare", ""),
        ({"epsilon": 1.0, "compare": [0.0]}, "compare", ""),
    ],
)
def test_explain_rules_name_their_field(fields, param, words):
    fails(lambda: ExplainSettings(**fields), param, words)


def test_explain_names_the_guarantee_fields_as_the_caller_does():
    names = {"epsilon": "--epsilon", "compare": "--compare", "mu": "--mu", "rho": "--rho"}
    with pytest.raises(PrivriskError, match=r"^--compare: .*give --epsilon alone"):
        ExplainSettings(guarantee=GuaranteeSpec(rho=0.1), compare="ln2", names=names)
    with pytest.raises(PrivriskError, match=r"^--mu: give exactly one") as caught:
        ExplainSettings(guarantee=GuaranteeSpec(rho=0.1, mu=1.0), names=names)
    assert caught.value.param == "mu"


def test_a_pure_epsilon_keeps_the_slider_page_however_stated():
    for spec in (GuaranteeSpec(epsilon="ln3"), GuaranteeSpec(epsilon=LN3, delta=0.0)):
        s = ExplainSettings(guarantee=spec, compare="ln2, ln7", lang=" DE ")
        assert s.guarantee is None and s.epsilon == pytest.approx(LN3, rel=1e-15)
        assert s.compare == pytest.approx([math.log(2), math.log(7)]) and s.lang == "de"
    s = ExplainSettings(guarantee=GuaranteeSpec(epsilon=1.0, delta=1e-6))
    assert s.guarantee is not None and s.epsilon is None
    assert ExplainSettings(epsilon=1.0, compare="  ").compare == []  # an empty box compares nothing


def test_explain_settings_are_frozen():
    s = ExplainSettings(epsilon=1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n = 5  # type: ignore[misc]
    assert ExplainSettings(epsilon=1.0, names={"n": "--n"}) == s


# ------------------------------------------------------------------------------------------ explain: numbers
@pytest.mark.parametrize(("epsilon", "n"), [(LN3, None), (1.0, 21), (0.1, 1000)])
def test_explain_numbers_by_hand(epsilon, n):
    doc = run_explain(ExplainSettings(epsilon=epsilon, n=n)).to_dict()
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    assert doc["global_risk"] == pytest.approx(p, rel=1e-12)
    assert doc["global_leak"] == pytest.approx(2 * p - 1, rel=1e-12)
    if n is None:
        assert doc["many_worlds"] is None
    else:
        assert doc["many_worlds"] == pytest.approx(1 / (1 + (n - 1) * math.exp(-epsilon)), rel=1e-12)


def test_explain_any_guarantee_by_hand():
    run = run_explain(ExplainSettings(guarantee=GuaranteeSpec(mu=1.0, compose=4)))
    advantage = 2 * PHI(2.0 / 2) - 1  # μ = √4 · 1 = 2
    doc = run.to_dict()
    assert doc["advantage"] == pytest.approx(advantage, abs=1e-9)
    assert doc["success"] == pytest.approx((1 + advantage) / 2, abs=1e-9)
    assert run.name == "μ = 1, 4 releases" and "<script" not in run.page


@pytest.mark.parametrize(
    ("args", "fields"),
    [
        (["--epsilon", "ln3", "--n", "100", "--compare", "ln2,ln7", "--lang", "de"],
         {"epsilon": "ln3", "n": 100, "compare": "ln2,ln7", "lang": "de"}),
        (["--rho", "0.1", "--compose", "3", "--group", "2", "--n", "50"],
         {"guarantee": GuaranteeSpec(rho=0.1, compose=3, group=2), "n": 50}),
        (["--mechanism", "laplace", "--scale", "2", "--sample-rate", "0.1"],
         {"guarantee": GuaranteeSpec(mechanism="laplace", scale=2.0, sample_rate=0.1)}),
    ],
)  # fmt: skip
def test_explain_to_dict_and_page_are_the_commands(cli, tmp_path, args, fields):
    target = tmp_path / "page.html"
    r = cli("explain", *args, "--out", target, "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert next(iter(doc.items())) == ("schema_version", 1)
    run = run_explain(ExplainSettings(**fields))
    assert run.to_dict(out=target) == doc
    assert run.page == target.read_text(encoding="utf-8")


def test_explain_writes_whole_or_refuses(tmp_path):
    run = run_explain(ExplainSettings(epsilon=1.0))
    written = run.write_page(tmp_path / "p.html")
    assert written.read_text(encoding="utf-8") == run.page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.html"]  # nothing temporary left
    fails(lambda: run.write_page(tmp_path), "out", "is a folder")
    fails(lambda: run.write_page(tmp_path / "missing" / "p.html"), "out", "does not exist")


# ------------------------------------------------------------------------------------------ report
def test_report_rules_name_their_field(tmp_path):
    fails(lambda: ReportSettings(folders=[]), "folders", "at least one folder")
    fails(lambda: ReportSettings(folders=[tmp_path], max_rows=0), "max_rows", "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ReportSettings(folders=[tmp_path]).title = "x"  # type: ignore[misc]


def test_report_to_dict_is_the_commands_json(cli, tmp_path):
    folders = make_results(tmp_path / "results")
    target = tmp_path / "report.html"
    r = cli("report", *folders, "--out", target, "--title", "SOEP", "--max-rows", "10", "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert next(iter(doc.items())) == ("schema_version", 1)
    run = run_report(ReportSettings(folders=folders, title="SOEP", max_rows=10))
    assert run.to_dict(out=target) == doc
    assert [s["kind"] for s in doc["sections"]] == ["study", "release", "presence"]


def test_report_never_writes_over_what_it_reads(tmp_path):
    write_manifest(tmp_path / "a", kind="study", title="S")
    settings = ReportSettings(folders=[tmp_path / "a"])
    assert tmp_path / "a" / "manifest.json" in settings.inputs()
    run = run_report(settings)
    fails(lambda: run.write_page(tmp_path / "a" / "manifest.json"), "out", "one of the inputs")
    assert run.write_page(tmp_path / "r.html").read_text(encoding="utf-8") == run.page


# ------------------------------------------------------------------------------------------ tradeoff
@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"at_delta": 1.0}, "at_delta"),
        ({"at_delta": -0.1}, "at_delta"),
        ({"at_delta": math.nan}, "at_delta"),
        ({"grid": []}, "grid"),
        ({"grid": [0.5, 1.5]}, "grid"),
    ],
)
def test_tradeoff_rules_name_their_field(fields, param):
    fails(lambda: TradeoffSettings(GuaranteeSpec(mu=1.0), **fields), param)


def test_tradeoff_names_the_guarantee_fields_as_the_caller_does():
    names = {"rho": "--rho", "mu": "--mu", "at_delta": "--at-delta"}
    with pytest.raises(PrivriskError, match=r"^--mu: give exactly one guarantee: .*--rho, --mu") as caught:
        TradeoffSettings(GuaranteeSpec(mu=1.0, rho=1.0), names=names)
    assert caught.value.param == "mu"
    with pytest.raises(PrivriskError, match=r"^--at-delta: must be in \[0, 1\)"):
        TradeoffSettings(GuaranteeSpec(mu=1.0), at_delta=2.0, names=names)


def test_tradeoff_curves_by_hand():
    alpha = [0.0, 0.001, 0.1, 0.5, 0.9, 1.0]
    run = run_tradeoff(TradeoffSettings(GuaranteeSpec(mu=1.0), grid=alpha))
    for a, b in zip(alpha[1:-1], run.beta[1:-1], strict=True):
        assert b == pytest.approx(PHI(Z(1 - a) - 1.0), abs=1e-9)
    run = run_tradeoff(TradeoffSettings(GuaranteeSpec(epsilon=1.0), grid=alpha))
    for a, b in zip(alpha, run.beta, strict=True):
        assert b == pytest.approx(max(0.0, 1 - math.e * a, (1 - a) / math.e), abs=1e-12)
    # The worst case of pure ε is randomized response: the same curve.
    assert run.beta_worst_case == pytest.approx(run.beta, abs=1e-12)


def test_tradeoff_to_dict_is_the_commands_json(cli, tmp_path):
    target = tmp_path / "c.svg"
    r = cli("tradeoff", "--mechanism", "gaussian", "--sigma", "2", "--compose", "3", "--at-delta", "1e-5",
            "--out", target, "--json")  # fmt: skip
    assert r.code == 0, r.err
    doc = r.json
    assert next(iter(doc.items())) == ("schema_version", 1)
    settings = TradeoffSettings(GuaranteeSpec(mechanism="gaussian", sigma=2.0, compose=3), at_delta=1e-5)
    assert run_tradeoff(settings).to_dict(out=target) == doc


def test_tradeoff_writes_whole_or_refuses(tmp_path):
    run = run_tradeoff(TradeoffSettings(GuaranteeSpec(rho=0.5)))
    assert run.write_figure(tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fails(lambda: run.write_figure(tmp_path / "c.pdf"), "out", ".svg or .png")
    (tmp_path / "file").write_text("x")
    fails(lambda: run.write_figure(tmp_path / "file" / "c.svg"), "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.png", "file"]
