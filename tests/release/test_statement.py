"""Statements of a release: composition, the public statement, the internal assessment, outputs and the ledger.

Oracles: Mehner et al., Table 1 for the public statement; Allmann et al., §3.2 (Table 1b: X = {1, 3, 10, 17} in the
universe of the commuting distances, 1 to 675) for the internal assessment.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import privrisk
from privrisk._format import percent
from privrisk.errors import PrivriskError
from privrisk.release.spec import ReleaseQuery
from privrisk.release.statement import composed_epsilon, public_statement
from privrisk.release.transaction import noisy_release
from release_helpers import never_written


def test_composition_adds_epsilons_exactly():
    assert composed_epsilon([0.1] * 10) == 1.0  # fsum: a naive sum gives 0.9999999999999999
    assert composed_epsilon([math.log(3), math.log(3)]) == pytest.approx(math.log(9))
    with pytest.raises(PrivriskError):
        composed_epsilon([0.5, 0.0])
    with pytest.raises(PrivriskError):
        composed_epsilon([])


# ------------------------------------------------------------------------------------------ statements
@pytest.mark.parametrize(
    ("eps", "p", "gamma", "rho10", "rho100"),
    [
        (math.log(2), "66.7%", "33.3%", "18.2%", "2.0%"),
        (math.log(3), "75.0%", "50.0%", "25.0%", "2.9%"),
        (math.log(7), "87.5%", "75.0%", "43.8%", "6.6%"),
    ],
)
def test_public_statement_reproduces_table_1_of_mehner_et_al(eps, p, gamma, rho10, rho100):
    s10, s100 = public_statement(eps, 10), public_statement(eps, 100)
    assert percent(s10["global_risk"]) == p and percent(s10["global_leak"]) == gamma
    assert percent(s10["many_worlds"]) == rho10 and percent(s100["many_worlds"]) == rho100
    assert s10["guess"] == 0.1


def test_public_statement_without_n_has_no_many_worlds_risk():
    s = public_statement(1.0)
    assert s["n"] is None and s["many_worlds"] is None
    assert s["sentences"] == privrisk.describe(1.0)


def test_public_statement_composes_the_answers():
    frame = pd.DataFrame({"h": [1.0, 2.0, 3.0]})
    qs = [ReleaseQuery("h", "mean", "ln3", (0, 24)), ReleaseQuery("h", "max", "ln3", (0, 24))]
    r = noisy_release(frame, qs)
    assert r.total_epsilon == pytest.approx(math.log(9))
    assert r.statement["global_risk"] == pytest.approx(0.9)  # 9/(1 + 9)
    assert r.statement["global_leak"] == pytest.approx(0.8)


def test_internal_assessment_follows_allmann_et_al_table_1b():
    # X = {1, 3, 10, 17} in the universe [1, 675]: Δv(mean) = 133.45, Δf = 337 (Allmann et al., §3.2).
    frame = pd.DataFrame({"distance": [1.0, 3.0, 10.0, 17.0]})
    r = noisy_release(frame, ReleaseQuery("distance", "mean", 1.0, (1, 675)))
    row = r.internal.iloc[0]
    assert row["local_sensitivity"] == pytest.approx(133.45)
    assert row["global_sensitivity"] == 337.0
    ratio = 133.45 / 337
    assert row["ratio"] == pytest.approx(ratio)
    assert row["two_worlds"] == pytest.approx(1 / (1 + math.exp(-ratio)))
    assert row["many_worlds"] == pytest.approx(1 / (1 + 3 * math.exp(-ratio)))  # n = 4 records
    assert row["n"] == 4 and row["n_clamped"] == 0


def test_median_local_sensitivity_of_allmann_et_al():
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0, 675.0]})
    r = noisy_release(frame, ReleaseQuery("d", "median", 1.0, (1, 675)))
    assert r.internal.loc[0, "local_sensitivity"] == 3.5


def test_values_outside_the_universe_are_clamped_and_counted():
    # Hours per day: 30 and 25 are clamped to 24, −2 to 0 (no missing codes given).
    frame = pd.DataFrame({"h": [8.0, 30.0, 25.0, -2.0, 6.0]})
    r = noisy_release(frame, ReleaseQuery("h", "max", 1.0, (0, 24)))
    assert r.internal.loc[0, "n_clamped"] == 3
    # After clamping the sample {0, 6, 8, 24, 24} lies in [0, 24]: Δv(max) = max(24 − 24, 24 − 24) = 0.
    assert r.internal.loc[0, "local_sensitivity"] == 0.0


def test_missing_codes_are_dropped_before_clamping():
    frame = pd.DataFrame({"h": [8.0, -1.0, 4.0, -3.0]})
    r = noisy_release(frame, ReleaseQuery("h", "mean", 1.0, (0, 24), missing="negative"))
    assert r.internal.loc[0, "n"] == 2 and r.internal.loc[0, "n_clamped"] == 0
    assert r.data["h"]["dropped_codes"] == {"-3": 1, "-1": 1}


def test_a_count_withholds_every_record_count():
    frame = pd.DataFrame({"h": [8.0, 7.0, 4.0], "g": [1.0, 2.0, None]})
    qs = [ReleaseQuery("h", "count", 1.0, (0, 24)), ReleaseQuery("g", "mean", 1.0, (0, 5))]
    r = noisy_release(frame, qs, public_n=50)
    assert r.withheld and r.data == {}
    assert all(v is None for v in r.internal["n"])
    # ρ_mw then uses the published n; the count's ratio is 1: ρ_mw = 1/(1 + (n − 1)·e^(−ε)) = 1/(1 + 49/e).
    assert r.internal.loc[0, "many_worlds"] == pytest.approx(1 / (1 + 49 / math.e), rel=1e-12)
    assert r.internal.loc[0, "ratio"] == 1.0


def test_the_true_value_is_never_in_the_result():
    # The true mean of {1, 3, 10, 17} is 7.75; nothing the release returns holds it.
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0]})
    r = noisy_release(frame, ReleaseQuery("d", "mean", 1.0, (0, 700)))
    assert never_written(7.75, repr(r.to_dict())) and never_written(7.75, repr(r))
    assert r.answers.loc[0, "noisy_value"] != 7.75


# ------------------------------------------------------------------------------------------ result objects
def test_release_is_frozen_and_its_budget_refusal_names_the_parameter():
    import dataclasses

    frame = pd.DataFrame({"h": [1.0, 2.0]})
    r = noisy_release(frame, ReleaseQuery("h", "mean", 0.5, (0, 24)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.budget = 1.0  # type: ignore[misc]
    with pytest.raises(privrisk.ThresholdExceeded) as info:
        noisy_release(frame, ReleaseQuery("h", "mean", 0.5, (0, 24)), budget="0.25")
    assert str(info.value).startswith("budget: this release needs ε = 0.5")
    with pytest.raises(PrivriskError) as bad:
        noisy_release(frame, ReleaseQuery("h", "mean", 0.5, (0, 24)), budget=0)
    assert bad.value.param == "budget" and "--" not in str(bad.value)


def test_findings_and_budget_note_with_a_ledger(tmp_path):
    frame = pd.DataFrame({"h": [1.0, 2.0, 3.0]})
    led = tmp_path / "ledger.json"
    first = noisy_release(frame, ReleaseQuery("h", "mean", "ln3", (0, 24)), public_n=10, budget=2, ledger=led)
    assert first.budget_note() is None
    assert first.findings()[:3] == [
        f"The release has 1 noisy answer with total ε = {math.log(3):.6g} (sequential composition: the ε of the "
        "answers add up).",
        "At that ε the global risk is ρ_gl = 75.0%, the most that ε allows any noise, and the global leak Γ = 50.0% "
        "(Mehner et al., eq. 3–4).",
        "For the published n = 10 the many-worlds risk is ρ_mw = 25.0% (guessing: 10.0%).",
    ]
    second = noisy_release(frame, ReleaseQuery("h", "max", "ln3", (0, 24)), public_n=10, budget=3, ledger=led)
    assert second.budget_note() == "the ledger's budget changed from 2 to 3 with this release"
    *lines, useless = second.findings()
    # The max on [0, 24] at ε = ln 3 (± 65.4 for a range of 24) was released although useless, and says so.
    assert useless == "max(h): the noise is larger than the range of the data: this answer tells nothing reliable."  # fmt: skip
    assert lines[-2] == "Over all 2 releases in the ledger the total is ε = 2.19722: ρ_gl = 90.0%, Γ = 80.0%."
    # Two Laplace answers of ln 3 composed tightly: never above the plain sum ln 9 at any δ.
    assert lines[-1].startswith("Composed tightly, all 2 releases in the ledger are ε = ")
    c = second.statement["cumulative"]["composition"]
    assert c["plain_epsilon"] == pytest.approx(math.log(9)) and c["epsilon_at_delta"] <= math.log(9) + 1e-9


def test_write_outputs_without_the_command_line(tmp_path):
    import json

    from privrisk.release.outputs import release_parameters, write_outputs

    # The true mean of {1, 3, 10, 17} is 7.75; no file may hold it.
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0]})
    qs = [ReleaseQuery("d", "mean", 1.0, (0, 700), missing="negative")]
    r = noisy_release(frame, qs, public_n=100)
    asked = release_parameters(qs, file="d.csv", public_n=100, budget=None)
    names = write_outputs(r, tmp_path, asked, include_internal=True)
    assert sorted(names) == sorted(p.name for p in tmp_path.iterdir())
    assert (tmp_path / "internal_assessment.json").stat().st_mode & 0o777 == 0o600
    assert set(names) >= {"release.json", "internal_assessment.csv", "manifest.json", "release_risk.svg"}
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["parameters"]["queries"] == [
        {"column": "d", "query": "mean", "epsilon": 1.0, "universe": [0.0, 700.0],
         "missing": {"negative": True, "codes": []}}
    ]  # fmt: skip
    assert manifest["findings"] == r.findings()
    assert manifest["figures"][1]["title"] == "Global risk and leak at this release's total ε"
    public = json.loads((tmp_path / "release.json").read_text())
    assert public["schema_version"] == 1 and public["public_statement"]["n"] == 100
    for path in tmp_path.glob("*.[jc]s*"):
        assert never_written(7.75, path.read_text()), path


# ------------------------------------------------------------------------------------------ the ledger's history
def test_summarize_ledger(tmp_path):
    from privrisk.release.history import summarise_ledger
    from privrisk.release.ledger import record_release

    led = tmp_path / "ledger.json"
    with pytest.raises(PrivriskError, match="no such ledger"):
        summarise_ledger(led)
    record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": math.log(3)}], data="a.csv")
    record_release(led, queries=[{"column": "h", "query": "max", "epsilon": math.log(3)}], data="a.csv")
    s = summarise_ledger(led, budget="ln(27)")
    assert s.total_epsilon == pytest.approx(math.log(9)) and s.left == pytest.approx(math.log(3))
    assert s.statement is not None and s.statement["global_risk"] == pytest.approx(0.9)
    doc = s.to_dict()
    assert list(doc) == [
        "ledger",
        "releases",
        "total_epsilon",
        "budget",
        "left",
        "public_statement",
        "entries",
        "spent",
        "total_rho",
        "recorded_budget",
        "outputs",
    ]
    assert (
        doc["total_rho"] is None and doc["recorded_budget"] is None
    )  # only ε answers, kept without a budget
    assert doc["releases"] == 2 and set(doc["entries"][0]) == {
        "seq",
        "time",
        "epsilon",
        "queries",
        "data",
        "budget",
    }
    assert summarise_ledger(led, budget=1).left == 0.0
    with pytest.raises(PrivriskError) as info:
        summarise_ledger(led, budget="-1")
    assert info.value.param == "budget"


def test_findings_never_write_a_risk_that_is_not_zero_as_zero():
    # n = 5,000 at ε = ln 3: ρ_mw = 1/(1 + 4,999/3) = 0.05998 % → 0.1 %; guessing 1/5,000 = 0.02 %, not "0.0%".
    frame = pd.DataFrame({"h": [1.0, 2.0, 3.0]})
    r = noisy_release(frame, ReleaseQuery("h", "mean", "ln3", (0, 24)), public_n=5000)
    line = next(f for f in r.findings() if "many-worlds" in f)
    assert "0.0%" not in line
    assert "ρ_mw = 0.1% (guessing: 0.02%)" in line
