"""The census user's words, English and German, with numbers worked out by hand; the one way in of a table's risk."""

from __future__ import annotations

from pathlib import Path

import pytest

from privrisk.accounting.cellkey import additive_noise_table, perturbation_table
from privrisk.accounting.cellkey_run import CellKeySettings, run_cell_key
from privrisk.accounting.perturbation_files import read_perturbation_table
from privrisk.errors import PrivriskError
from privrisk.reports.census_words import cell_key_words

DATA = Path(__file__).resolve().parents[1] / "data" / "census"


@pytest.fixture(scope="module")
def ptable():
    return read_perturbation_table(DATA / "ptable_D2_V1.csv")


def test_ptable_in_english(ptable):
    # Hand: the zero cell, P(published > 0 | 1) = 1 − 0.36648551 = 0.6335 → "about 6 in 10"; the attacker's
    # success (1 + 0.6335)/2 = 0.817 → "about 8 in 10"; a count of 1 is kept with 0.3665 (the least) → 37 %.
    w = cell_key_words(ptable)
    assert w.noise == (
        "The office changes any published count by at most 2 (up or down); 37 % of counts are published as they are."
    )
    assert w.attacker == (
        "An attacker who knows everyone else can tell whether a person was counted about 8 times in 10, "
        "guessing about 5 in 10."
    )
    assert "gives the person away about 6 times in 10" in w.alone
    assert "the attacker is right about 7 times in 10" in w.alone  # (1 + 0.4245)/2 = 0.712 among others
    assert w.success == pytest.approx((1 + 0.63351449) / 2, abs=1e-9)


def test_ptable_in_german(ptable):
    w = cell_key_words(ptable, lang="de")
    assert w.noise.startswith("Das Amt ändert jede veröffentlichte Zahl um höchstens 2")
    assert "in etwa 8 von 10 Fällen" in w.attacker and "durch Raten in etwa 5 von 10" in w.attacker
    assert "Datensatzschlüssel geheim" in w.assumption


def test_usually_not_at_all_and_several_cells():
    t = additive_noise_table({-1: 0.2, 0: 0.6, 1: 0.2})
    w = cell_key_words(t)
    assert "by at most 1 (up or down) and usually not at all: 60 % of counts" in w.noise
    # Hand: the shifted pair's total variation ½(0.2 + 0.4 + 0.4 + 0.2) = 0.6 → success 0.8.
    assert "about 8 times in 10" in w.attacker and w.alone == ""
    two = cell_key_words(t, cells=2)
    assert "the 2 cells that hold a person" in two.attacker and two.success > w.success


def test_a_rounding_table_hides_no_one():
    t = perturbation_table({0: {0: 1.0}, 1: {-1: 1.0}, 2: {0: 1.0}})
    w = cell_key_words(t)
    assert w.noise == "" and "does not hide anyone" in w.attacker and w.success == 1.0
    assert "verbirgt niemanden" in cell_key_words(t, lang="de").paragraph()


def test_run_cell_key(ptable, tmp_path):
    doc = run_cell_key(CellKeySettings(DATA / "ptable_D2_V1.csv", at_delta=0.7)).to_dict()
    assert doc["zero_cell_disclosure"] == pytest.approx(0.63351449)
    assert doc["max_noise"] == 2 and doc["worst_count"] == 0 and doc["epsilon_at_delta"] == 0.0
    among = run_cell_key(CellKeySettings(ptable, least_count=1)).to_dict()
    assert among["zero_cell_disclosure"] == 0.0 and among["success"] == pytest.approx(0.7122, abs=1e-4)
    assert run_cell_key(CellKeySettings(ptable, cells=3)).to_dict()["cells"] == 3
    with pytest.raises(PrivriskError) as info:
        CellKeySettings(ptable, cells=2, least_count=1)
    assert info.value.param == "least_count"
    with pytest.raises(PrivriskError, match="no such file"):
        CellKeySettings(tmp_path / "none.csv")
    with pytest.raises(PrivriskError) as info:
        CellKeySettings(ptable, cells=0)
    assert info.value.param == "cells"
