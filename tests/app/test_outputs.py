"""The Outputs page: upload data and outputs.toml; the verdict first, the differencing sentence of the command."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from browser_helpers import OUTPUTS_DATA, OUTPUTS_SPEC, RUN_MS
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
    # Every group is examined: the first finding, and the number of them, as the command gives them.
    finding, found = doc["disclosures"][0], len(doc["disclosures"])
    goto(page, "page=outputs")
    upload(page, "outputs-file", data)
    upload(page, "outputs-spec", spec)
    expect(page.locator("#outputs-ledger-note")).to_contain_text("ledger")
    page.locator("#outputs-run").click()
    report = page.locator("#outputs-check")
    expect(report.locator("#verdict")).to_contain_text("May not be released", timeout=RUN_MS)
    expect(report).to_contain_text(finding["sentence"])
    # The verdict is a sentence and comes first; the cells, coloured by status, are folded after it.
    expect(report.locator("#verdict")).to_contain_text(
        f"{found} disclosure{'s' if found != 1 else ''} by differencing"
    )
    expect(report.locator("table.cells")).to_have_count(2)
    expect(report.locator("td.pass").first).not_to_be_visible()
    report.locator("details.output summary").first.click()
    expect(report.locator("td.pass").first).to_be_visible()
    screenshot(page, "outputs")


TABLE_1, TABLE_3 = (f"[[output]]{part}" for part in SPEC.split("[[output]]")[1:])


def _library_records_outputs(tmp_path) -> bool:
    """Whether ``check_outputs`` with a ledger records a set that passes (issue 30, item 1: the library checks and
    appends under one lock; before that, only the command line appended)."""
    from privrisk.outputs import OutputSpec, OutputsSettings, run_outputs

    ledger = tmp_path / "probe" / "ledger.json"
    ledger.parent.mkdir()
    frame = __import__("pandas").DataFrame({"region": ["N"] * 12})
    run_outputs(OutputsSettings(data=frame, spec=(OutputSpec(name="P", kind="count", rows=("region",)),),
                                  ledger=ledger))  # fmt: skip
    return ledger.exists()


def test_outputs_checked_in_the_app_go_into_its_ledger_and_the_next_check_is_held_to_them(
    page, goto, upload, tmp_path, running_app
):
    """Issue 30: the outputs checked in the app join the app's one ledger, so a table that differences against
    one released before (Table 3 against Table 1, one 18-year-old woman in West) does not pass in a later check."""
    if not _library_records_outputs(tmp_path):
        pytest.skip("the library does not record outputs that pass yet (issue 30, item 1)")
    data = tmp_path / "survey.csv"
    data.write_text(DATA)
    first, second = tmp_path / "table1.toml", tmp_path / "table3.toml"
    first.write_text(TABLE_1)
    second.write_text(TABLE_3)
    goto(page, "page=outputs")
    upload(page, "outputs-file", data)
    upload(page, "outputs-spec", first)
    page.locator("#outputs-run").click()
    verdict = page.locator("#outputs-check #verdict")
    expect(verdict).to_contain_text("May be released", timeout=RUN_MS)
    assert running_app.ledger.exists()
    # Alone, Table 3 passes too; after Table 1 was released, the two together give the woman away.
    upload(page, "outputs-spec", second)
    page.locator("#outputs-run").click()
    expect(verdict).to_contain_text("May not be released", timeout=RUN_MS)
    expect(page.locator("#outputs-check")).to_contain_text("differencing")


def test_a_spec_of_too_many_outputs_and_a_column_of_too_many_categories_are_refused(
    page, goto, upload, tmp_path
):
    """Issue 30: a spec of 3,000 tables, or a grouping column of 10⁵ categories, is refused with one line, and
    the page keeps working."""
    data = tmp_path / "wide.csv"
    data.write_text("code,region\n" + "".join(f"c{i},{'NS'[i % 2]}\n" for i in range(100_000)))
    many = tmp_path / "many.toml"
    many.write_text(
        "".join(f'[[output]]\nname = "T{i}"\nkind = "count"\nrows = ["region"]\n' for i in range(3000))
    )
    wide = tmp_path / "wide.toml"
    wide.write_text('[[output]]\nname = "Codes"\nkind = "count"\nrows = ["code"]\n')
    goto(page, "page=outputs")
    upload(page, "outputs-file", data)
    upload(page, "outputs-spec", many)
    page.locator("#outputs-run").click()
    status = page.locator("#outputs-status .privrisk-error")
    expect(status).to_have_text(
        # The spec itself refuses more than 1,000 outputs (one request), before the app's own limit of 200.
        "Specification: many.toml lists 3,000 outputs, more than the 1,000 one request may have",
        timeout=RUN_MS,
    )
    upload(page, "outputs-spec", wide)
    page.locator("#outputs-run").click()
    expect(status).to_contain_text("the grouping column 'code' has 100,000 categories", timeout=RUN_MS)


def test_an_earlier_version_of_the_data_uploaded_beside_todays_finds_the_newcomer(
    page, goto, upload, tmp_path, running_app
):
    """Issue 31, item 4: Table 1 released on January's data; February's data has one newcomer. The same table
    on February's data is refused until January's file is uploaded as an earlier version; then the newcomer is
    found by differencing the two versions."""
    january, february = tmp_path / "january.csv", tmp_path / "february.csv"
    january.write_text(DATA)
    february.write_text(DATA + "West,f,40\n")
    first, again = tmp_path / "table1.toml", tmp_path / "again.toml"
    # Names of their own: the page's ledger is the module's app's, and Table 1 may be in it from another test.
    first.write_text(TABLE_1.replace('"Table 1"', '"January table"'))
    again.write_text(TABLE_1.replace('"Table 1"', '"February table"'))
    goto(page, "page=outputs")
    upload(page, "outputs-file", january)
    upload(page, "outputs-spec", first)
    page.locator("#outputs-run").click()
    verdict = page.locator("#outputs-check #verdict")
    expect(verdict).to_contain_text("May be released", timeout=RUN_MS)
    upload(page, "outputs-file", february)
    upload(page, "outputs-spec", again)
    page.locator("#outputs-run").click()
    status = page.locator("#outputs-status .privrisk-error")
    expect(status).to_contain_text("another version of the data", timeout=RUN_MS)
    upload(page, "outputs-earlier", january)
    expect(page.locator("#outputs-command-line")).to_contain_text("--earlier-data january.csv")
    page.locator("#outputs-run").click()
    expect(verdict).to_contain_text("May not be released", timeout=RUN_MS)
    expect(page.locator("#outputs-check")).to_contain_text("data_version = today")
