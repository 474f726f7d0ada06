"""The app's page Audit: the verdict first, then the numbers of ``privrisk audit --json`` (Sarathy and Muralidhar's
claims) folded below it; errors at their input; an upload's columns; the page on a phone."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import E_NOTATION, RUN_MS, ZERO_PERCENT
from privrisk._format import number
from privrisk.audit.report import ratio_text

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}


def _shown_command(page, tmp_path, files: dict[str, object] | None = None) -> list[str]:
    """The command line the page shows, with real paths for the files, --out in tmp_path, and --json."""
    args = shlex.split(page.locator("#audit-command-line").inner_text())
    assert args[0] == "privrisk"
    args = [str((files or {}).get(a, a)) for a in args[1:]]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    return [*args, "--json"]


def _measures(page, table_id: str) -> dict[str, str]:
    rows = page.locator(f"#{table_id} tbody tr")
    return dict(tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count()))


def _rows(page, table_id: str) -> list[list[str]]:
    rows = page.locator(f"#{table_id} tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _plain_text(page) -> str:
    return page.locator(".tab-pane.active").inner_text()


def test_the_claims_example_leads_with_the_verdict_and_gives_the_numbers_of_privrisk_audit(
    page, goto, cli, tmp_path, screenshot
):
    goto(page, "page=audit")
    expect(page.locator(".tab-pane.active .privrisk-error")).to_have_count(0)  # nothing before anyone typed
    page.locator("#audit-run").click()
    verdict = page.locator("#audit-verdict")
    expect(verdict).to_be_visible(timeout=RUN_MS)
    # Sarathy and Muralidhar's finding, by hand: the 30th claim (100) is the one exposed; n·q − (n − 1)·f(X*) with
    # the 99.99 % quantile q gives 25.075 as its least value.
    expect(page.locator("#audit-verdict-number")).to_have_text("1 of 30 claims exposed")
    expect(verdict).to_have_text(
        "An intruder who holds the other 29 claims learns from one answer that the missing claim is at least "
        "25.08 (99.99 % sure)."
    )
    expect(page.locator("#audit-global-plain")).to_contain_text("no claim is exposed")
    # The verdict comes before any table, and the tables are folded.
    first = page.evaluate(
        "() => [...document.querySelectorAll('#audit-results .privrisk-verdict, #audit-results table')]"
        ".map(e => e.tagName)[0]"
    )
    assert first == "DIV"
    expect(page.locator("#audit-provider")).to_be_hidden()
    text = _plain_text(page)
    assert not E_NOTATION.search(text) and not ZERO_PERCENT.search(text)
    args = _shown_command(page, tmp_path, {"examples/claims.csv": ROOT / "examples" / "claims.csv"})
    assert args[2:] == ["--column", "claims", "--query", "mean", "--epsilon", "2", "--u", "0.75", "--universe",
                        "0,100", "--out", str(tmp_path / "out"), "--json"]  # fmt: skip
    res = cli(*args)
    assert res.code == 0, res.err
    doc = res.json
    assert doc["sentence"].endswith("the missing claim is at least 25.08 (99.99 % confidence).")
    page.locator("#audit-detail summary").click()
    expect(page.locator("#audit-provider")).to_be_visible()
    expect(page.locator(".privrisk-findings li")).to_have_text([doc["sentence"]])
    provider = _measures(page, "audit-provider")
    assert provider["f_n(X)"] == number(doc["f_n"], 6)
    assert provider["Δf_n(X)"] == number(doc["delta_n"], 6)
    assert provider["b_n = Δf_n(X)/ε"] == number(doc["b_n"], 6)
    assert provider["answer r (u = 0.75)"] == number(doc["response"], 6)
    assert provider["p1 = P[answer ≥ r] with X"] == number(doc["p1"])
    intruder = {row[0]: row for row in _rows(page, "audit-intruder")}
    assert len(intruder) == doc["records_total"] == 30
    for r in doc["records"]:
        row = intruder[str(r["record"])]
        assert row[4:7] == [number(r["p3"]), ratio_text(r["log10_ratio"]), "✗" if r["violates"] else ""]
    expect(page.locator("#audit-violations")).to_contain_text(f"{doc['violations']} of 30 possible missing records")
    page.locator("#audit-figures summary").click()
    expect(page.locator(".privrisk-figure img")).to_have_count(4)
    text = _plain_text(page)  # the detail too: symbols, but no e-notation (the z-test's p is 10⁻ⁿ)
    assert not E_NOTATION.search(text) and not ZERO_PERCENT.search(text)
    screenshot(page, "audit")


def test_an_upload_with_a_sweep_gives_table_3(page, goto, cli, examples, tmp_path):
    goto(page, "page=audit&source=file&sweep_record=30&sweep_values=14,20,30,40&universe=")
    page.set_input_files("#audit-file", str(examples / "claims.csv"))
    # The numeric column is chosen, never the id.
    expect(page.locator("#audit-command-line")).to_contain_text("privrisk audit claims.csv --column claims")
    expect(page.locator("#audit-command-line")).to_contain_text("--sweep-record 30 --sweep-values 14,20,30,40")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-verdict")).to_be_visible(timeout=RUN_MS)
    page.locator("#audit-detail summary").click()
    expect(page.locator("#audit-sweep")).to_be_visible()
    res = cli(*_shown_command(page, tmp_path, {"claims.csv": examples / "claims.csv"}))
    assert res.code == 0, res.err
    rows = res.json["sweep"]["rows"]
    assert _rows(page, "audit-sweep") == [
        [number(r["value"], 6), number(r["response"], 6), ratio_text(r["log10_ratio"]), "✗" if r["violates"] else ""]
        for r in rows
    ]
    with page.expect_download() as download:
        page.locator("#audit-download_records").click()
    assert download.value.path().read_text() == (tmp_path / "out" / "records.csv").read_text()


def test_an_upload_preselects_no_id_or_text_column_and_clears_the_examples_bounds(page, goto, cli, tmp_path):
    bad = tmp_path / "text.csv"
    bad.write_text("id,name,claims\n1,a,x\n2,b,y\n3,c,z\n")
    res = cli("audit", bad, "--column", "claims", "--epsilon", "2")
    assert res.code == 2
    message = "text.csv: column 'claims' is not numeric: 'x' in row 1 (3 such values)"
    assert res.err.strip().endswith(message)
    goto(page, "page=audit&source=file")
    page.set_input_files("#audit-file", str(bad))
    expect(page.locator("#audit-command-line")).to_contain_text("privrisk audit text.csv --column COLUMN")
    expect(page.locator("#audit-universe")).to_have_value("")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-column_error .privrisk-error")).to_contain_text("choose the numeric column")
    expect(page.locator("#audit-status .privrisk-error")).to_have_count(0)
    page.evaluate("() => Shiny.setInputValue('audit-column', 'claims')")
    expect(page.locator("#audit-command-line")).to_contain_text("--column claims")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-status .privrisk-error")).to_have_text(message, timeout=RUN_MS)
    page.locator("#audit-source input[value='example']").check()
    page.locator("#audit-universe").fill("0,100")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-verdict")).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#audit-status .privrisk-error")).to_have_count(0)


def test_epsilon_zero_is_refused_at_its_field(page, goto):
    goto(page, "page=audit&epsilon=0")
    expect(page.locator("#audit-command-line")).to_contain_text("--epsilon 0 ")
    error = page.locator("#audit-epsilon_error .privrisk-error")
    expect(error).to_contain_text("must be greater than 0")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-status .privrisk-error")).to_have_count(0)
    expect(page.locator(".tab-pane.active .privrisk-error")).to_have_count(1)
    page.locator("#audit-epsilon").fill("2")
    expect(error).to_have_count(0)


def test_on_a_phone_the_verdict_is_visible_after_running(browser, app_url, goto):
    from tests.app.conftest import open_page

    context, phone, guard = open_page(browser, app_url)
    try:
        phone.set_viewport_size(PHONE)
        goto(phone, "page=audit")
        layout = phone.locator(".tab-pane.active .bslib-sidebar-layout").first
        run = phone.locator("#audit-run")
        if not run.is_visible():
            layout.locator(":scope > .collapse-toggle").click()
        run.click()
        verdict = phone.locator("#audit-verdict")
        expect(verdict).to_be_visible(timeout=RUN_MS)
        verdict.scroll_into_view_if_needed()
        expect(verdict).to_be_in_viewport()
        expect(phone.locator("#audit-verdict-number")).to_be_in_viewport()
    finally:
        context.close()
    assert guard.foreign == [] and guard.errors == []
