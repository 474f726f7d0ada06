"""The census methods through the one way in of ``privrisk risk``: GuaranteeSpec's census fields, RiskSettings
and run_risk, the method's own numbers (census_facts) and its words (census_paragraph)."""

from __future__ import annotations

import math

import pytest

from privrisk.accounting import GuaranteeSpec
from privrisk.accounting.cellkey import additive_noise_table, perturbation_table, truncated_discrete_laplace
from privrisk.accounting.census_facts import census_facts, census_method
from privrisk.accounting.risk_report import RiskSettings, run_risk
from privrisk.accounting.rounding import parse_rounding
from privrisk.errors import PrivriskError
from privrisk.reports.census_words import census_paragraph

# P(published = c + v | c): a zero is never changed, a 1 is published as 0 or 1 with probability ½ each.
HALF = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}})


def test_a_table_given_as_an_object_runs_and_its_words_follow_the_language():
    run = run_risk(RiskSettings(GuaranteeSpec(cell_key=HALF), lang="de"))
    # Counts 0 and 1: 0 always, or 0 and 1 with ½ each: total variation ½, success ¾ (by hand).
    assert run.to_dict()["success"] == pytest.approx(0.75)
    assert run.census is not None and run.census["zero_cell_disclosure"] == pytest.approx(0.5)
    assert "Angreifer" in census_paragraph(run)
    english = run_risk(RiskSettings(GuaranteeSpec(cell_key=HALF)))
    assert "attacker" in census_paragraph(english)


def test_rinott_table_through_run_risk():
    # Rinott et al. (2018), ε = 1.5, D = 7: δ(1.5) is p₇ ≈ 2·10⁻⁵, the value the shifted count cannot reach.
    table = additive_noise_table(truncated_discrete_laplace(1.5, 7))
    doc = run_risk(RiskSettings(GuaranteeSpec(cell_key=table), at_epsilon=1.5)).to_dict()
    assert doc["delta_at_epsilon"] == pytest.approx(1.75e-5, rel=0.02)
    assert doc["census"]["max_noise"] == 7


def test_other_guarantees_have_no_census_facts_and_no_german():
    assert census_facts(GuaranteeSpec(epsilon=1.0)) is None
    assert run_risk(RiskSettings(GuaranteeSpec(epsilon=1.0))).census is None
    assert census_method(GuaranteeSpec(cell_key=HALF, rounding="3")) is None  # two: build() says so
    with pytest.raises(PrivriskError) as info:
        RiskSettings(GuaranteeSpec(rounding="random:3"), lang="de")
    assert info.value.param == "lang"
    with pytest.raises(PrivriskError) as info:
        RiskSettings(GuaranteeSpec(cell_key=HALF), lang="fr")
    assert info.value.param == "lang"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("5", ("deterministic", 5)), ("random:3", ("random", 3)), (" unbiased : 10 ", ("random", 10))],
)
def test_rounding_is_written_as_a_base_or_a_kind_and_a_base(text, expected):
    assert parse_rounding(text) == expected


@pytest.mark.parametrize("text", ["1", "random", "random:x", "up:3", ""])
def test_bad_rounding_names_the_field(text):
    with pytest.raises(PrivriskError) as info:
        GuaranteeSpec(rounding=text).build()
    assert info.value.param == "rounding"


def test_pram_with_a_zero_has_no_finite_epsilon():
    facts = census_facts(GuaranteeSpec(pram=[[1.0, 0.0], [0.5, 0.5]]))
    assert facts is not None and facts["variables"][0]["epsilon"] is None and facts["epsilon"] is None
    doc = run_risk(RiskSettings(GuaranteeSpec(pram=[[1.0, 0.0], [0.5, 0.5]]))).to_dict()
    assert doc["advantage"] == pytest.approx(0.5)  # rows (1, 0) and (½, ½): total variation ½
    assert math.isfinite(doc["success"])
