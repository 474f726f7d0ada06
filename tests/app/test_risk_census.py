"""The Risk page's panel for a statistical office's method (issue 35): an uploaded perturbation table, PRAM
matrices or registry entry, or rounding, gives the numbers of ``privrisk risk --json`` and the census words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from privrisk.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PTABLE = ROOT / "examples" / "census" / "ptable_D2_V1.csv"
PRAM = ROOT / "examples" / "census" / "pram.toml"


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _open_panel(page, goto) -> None:
    goto(page, "page=risk")
    page.get_by_role("button", name="Other guarantees: a statistical office's method").click()
    expect(page.locator("#risk-census_run")).to_be_visible()


def test_an_uploaded_perturbation_table_gives_the_command_lines_risk_in_german(page, goto, upload, capsys):
    doc = cli_json(capsys, "risk", "--cell-key", str(PTABLE), "--cells", "2", "--at-delta", "1e-6")
    _open_panel(page, goto)
    upload(page, "risk-census_file", PTABLE)
    page.locator("#risk-census_cells").fill("2")
    page.locator("#risk-census_lang").select_option("de")
    page.locator("#risk-census_run").click()
    expect(page.locator("#risk-census-success")).to_have_text(f"{doc['success']:.4f}")
    expect(page.locator("#risk-census-advantage")).to_have_text(f"{doc['advantage']:.4f}")
    expect(page.locator("#risk-census-words")).to_contain_text("Ein Angreifer, der alle anderen kennt")
    expect(page.locator("#risk-census-command-line")).to_have_text(
        "privrisk risk --cell-key ptable_D2_V1.csv --cells 2 --lang de"
    )


def test_pram_and_rounding(page, goto, upload, capsys):
    doc = cli_json(capsys, "risk", "--pram", str(PRAM))
    _open_panel(page, goto)
    page.locator("#risk-census_method").select_option("pram")
    upload(page, "risk-census_file", PRAM)
    page.locator("#risk-census_run").click()
    expect(page.locator("#risk-census-success")).to_have_text(f"{doc['success']:.4f}")
    expect(page.locator("#risk-census-words")).to_contain_text("PRAM is randomised response")
    page.locator("#risk-census_method").select_option("rounding")
    page.locator("#risk-census_rounding").fill("5")
    page.locator("#risk-census_run").click()
    expect(page.locator("#risk-census-success")).to_have_text("1.0000")
    expect(page.locator("#risk-census-words")).to_contain_text("is not a privacy guarantee")


def test_a_file_that_is_no_table_gives_one_line_naming_the_users_file(page, goto, upload, tmp_path):
    bad = tmp_path / "mine.csv"
    bad.write_text("a;b\n1;2\n", encoding="utf-8")
    _open_panel(page, goto)
    upload(page, "risk-census_file", bad)
    page.locator("#risk-census_run").click()
    error = page.locator("#risk-census-error .privrisk-error")
    expect(error).to_contain_text("mine.csv")
    assert "--" not in error.text_content()
