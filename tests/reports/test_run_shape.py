"""The one shape of explain, report and tradeoff (issue 33): ``privrisk.reports.run`` holds the settings, the run
functions and results with ``to_dict``, ``sentence`` and ``write(folder)``; the earlier names keep working."""

from __future__ import annotations

import json
import math

import pytest

from privrisk.accounting.spec import GuaranteeSpec
from privrisk.errors import PrivriskError
from privrisk.reports import run as R
from privrisk.reports.manifest import read_manifest, write_manifest


def test_the_earlier_module_lends_the_same_objects():
    import privrisk.reports.settings as old

    for name in R.__all__:
        assert getattr(old, name) is getattr(R, name)


def test_explain_folder_holds_the_page_its_numbers_and_a_manifest(tmp_path):
    run = R.run_explain(R.ExplainSettings(epsilon="ln3", n=100))
    written = run.write(tmp_path / "out")
    assert [p.name for p in written] == ["explain.html", "explain.json", "manifest.json"]
    assert (tmp_path / "out" / "explain.html").read_text(encoding="utf-8") == run.page
    doc = json.loads((tmp_path / "out" / "explain.json").read_text(encoding="utf-8"))
    # ρ_gl of ε = ln 3 is e^ε/(1 + e^ε) = 3/4 (Mehner et al.), first key the schema's version
    assert next(iter(doc)) == "schema_version" and doc["global_risk"] == pytest.approx(0.75)
    manifest = read_manifest(tmp_path / "out")
    assert manifest["kind"] == "explain" and manifest["findings"] == [run.sentence()]


def test_explain_write_of_an_html_file_is_the_earlier_call_and_warns(tmp_path):
    run = R.run_explain(R.ExplainSettings(epsilon=1.0))
    with pytest.warns(DeprecationWarning, match="write_page"):
        path = run.write(tmp_path / "page.html")
    assert path.read_text(encoding="utf-8") == run.page
    assert run.write_page(tmp_path / "again.html").read_text(encoding="utf-8") == run.page


@pytest.mark.parametrize(
    ("typed", "n"), [("1,000", 1000), (" 1_000 ", 1000), ("", None), ("  ", None), (21, 21)]
)
def test_explain_reads_n_as_typed(typed, n):
    assert R.ExplainSettings(epsilon=1.0, n=typed).n == n


@pytest.mark.parametrize("typed", ["ten", "2.5", "1e3x"])
def test_explain_refuses_n_that_is_no_whole_number_naming_n(typed):
    with pytest.raises(PrivriskError, match=r"^n: ") as caught:
        R.ExplainSettings(epsilon=1.0, n=typed)
    assert caught.value.param == "n"


def test_explain_n_as_typed_keeps_its_range():
    # 1 person leaves the attacker no one to pick among: the range's message, not "not a whole number"
    with pytest.raises(PrivriskError, match="from 2 to 10"):
        R.ExplainSettings(epsilon=1.0, n="1")


def test_a_page_must_go_somewhere():
    with pytest.raises(PrivriskError, match=r"^out: give the HTML file to write \(or --json") as caught:
        R.page_target(None, numbers_only=False, numbers_name="--json")
    assert caught.value.param == "out"
    assert R.page_target(None, numbers_only=True) is None


def test_tradeoff_folder_has_the_figure_curves_and_manifest(tmp_path):
    run = R.run_tradeoff(R.TradeoffSettings(GuaranteeSpec(mu=1.0), grid=[0.0, 0.5, 1.0]))
    names = [p.name for p in run.write(tmp_path / "t")]
    assert names == ["tradeoff.svg", "tradeoff.png", "tradeoff.csv", "tradeoff.json", "manifest.json"]
    rows = (tmp_path / "t" / "tradeoff.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "alpha,beta,beta_worst_case"
    # μ-GDP: β(½) = Φ(−μ) = 0.158655… (Dong, Roth and Su 2022)
    assert float(rows[2].split(",")[1]) == pytest.approx(0.5 * math.erfc(1 / math.sqrt(2)), rel=1e-9)
    figures = read_manifest(tmp_path / "t")["figures"]
    assert figures[0]["svg"] == "tradeoff.svg" and figures[0]["png"] == "tradeoff.png"


def test_tradeoff_write_of_a_figure_file_warns_and_draws_it(tmp_path):
    run = R.run_tradeoff(R.TradeoffSettings(GuaranteeSpec(epsilon=1.0), grid=[0.0, 1.0]))
    with pytest.warns(DeprecationWarning, match="write_figure"):
        path = run.write(tmp_path / "curve.svg")
    assert path.read_bytes() == run.write_figure(tmp_path / "same.svg").read_bytes()


def test_report_gathers_a_folder_and_can_itself_be_gathered(tmp_path):
    source = tmp_path / "study"
    write_manifest(source, kind="study", title="Sampling study")
    run = R.run_report(R.ReportSettings(folders=[source]))
    assert run.sentence() == "The page gathers 1 result folder (study); every figure and table is shown."
    run.write(tmp_path / "page")
    again = R.run_report(R.ReportSettings(folders=[tmp_path / "page"]))
    assert again.to_dict()["sections"][0]["kind"] == "report"
    with pytest.raises(PrivriskError, match=r"^out: ") as caught:
        run.write(source)
    assert caught.value.param == "out"


def test_run_functions_tell_their_progress():
    told = []
    R.run_explain(R.ExplainSettings(epsilon=1.0), progress=lambda done, message: told.append(done))
    R.run_tradeoff(
        R.TradeoffSettings(GuaranteeSpec(mu=1.0), grid=[0.5]), progress=lambda d, m: told.append(d)
    )
    assert told == [1.0, 1.0]


def test_to_dict_starts_with_the_schema_version():
    for doc in (R.run_explain(R.ExplainSettings(epsilon=1.0)).to_dict(),
                R.run_tradeoff(R.TradeoffSettings(GuaranteeSpec(mu=1.0), grid=[0.5])).to_dict()):  # fmt: skip
        assert next(iter(doc.items())) == ("schema_version", 1)
