"""The Outputs page: upload data and outputs.toml; the verdict first, the differencing sentence of the command."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from browser_helpers import OUTPUTS_DATA, OUTPUTS_SPEC
from privrisk.cli import main

pytestmark = pytest.mark.browser

DATA, SPEC = OUTPUTS_DATA, OUTPUTS_SPEC


def test_the_page_shows_the_verdict_and_the_sentence_of_the_command(
    page, goto, upload, capsys, tmp_path, screenshot
):
    data = tmp_path / "survey.csv"
    data.write_text(DATA)
    spec = tmp_path / "outputs.toml"
    spec.write_text(SPEC)
    capsys.readouterr()
    assert main(["outputs", str(data), "--spec", str(spec), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    [finding] = doc["disclosures"]
    goto(page, "page=outputs")
    upload(page, "outputs-file", data)
    upload(page, "outputs-spec", spec)
    report = page.locator("#outputs-check")
    expect(report.locator("#verdict")).to_contain_text("May not be released")
    expect(report).to_contain_text(finding["sentence"])
    # The verdict is a sentence and comes first; the cells, coloured by status, are folded after it.
    expect(report.locator("#verdict")).to_contain_text("1 disclosure by differencing")
    expect(report.locator("table.cells")).to_have_count(2)
    expect(report.locator("td.pass").first).not_to_be_visible()
    report.locator("details.output summary").first.click()
    expect(report.locator("td.pass").first).to_be_visible()
    screenshot(page, "outputs")
