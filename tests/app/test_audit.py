"""The app's page Audit: the numbers of ``privrisk audit --json`` (Sarathy and Muralidhar's claims), bad files."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS
from privrisk.audit.report import ratio_text

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_claims_example_gives_the_numbers_of_privrisk_audit(page, goto, cli, tmp_path, screenshot):
    goto(page, "page=audit")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-provider")).to_be_visible(timeout=RUN_MS)
    args = _shown_command(page, tmp_path, {"examples/claims.csv": ROOT / "examples" / "claims.csv"})
    assert args[2:] == [
        "--column",
        "claims",
        "--query",
        "mean",
        "--epsilon",
        "2",
        "--u",
        "0.75",
        "--universe",
        "0,100",
        "--out",
        str(tmp_path / "out"),
        "--json",
    ]
    res = cli(*args)
    assert res.code == 0, res.err
    doc = res.json
    # The README's (and Sarathy and Muralidhar's) figure: the missing claim is at least 25.08.
    assert doc["sentence"].endswith("the missing claim is at least 25.08 (99.99 % confidence).")
    expect(page.locator(".privrisk-findings li")).to_have_text([doc["sentence"]])
    provider = _measures(page, "audit-provider")
    assert provider["f_n(X)"] == f"{doc['f_n']:.6g}"
    assert provider["Δf_n(X)"] == f"{doc['delta_n']:.6g}"
    assert provider["b_n = Δf_n(X)/ε"] == f"{doc['b_n']:.6g}"
    assert provider["answer r (u = 0.75)"] == f"{doc['response']:.6g}"
    assert provider["p1 = P[answer ≥ r] with X"] == f"{doc['p1']:.4g}"
    intruder = {row[0]: row for row in _rows(page, "audit-intruder")}
    assert len(intruder) == doc["records_total"] == 30
    for r in doc["records"]:
        row = intruder[str(r["record"])]
        assert row[4:7] == [f"{r['p3']:.4g}", ratio_text(r["log10_ratio"]), "✗" if r["violates"] else ""]
    expect(page.locator("#audit-violations")).to_contain_text(
        f"{doc['violations']} of 30 possible missing records"
    )
    expect(page.locator(".privrisk-figure img")).to_have_count(4)
    screenshot(page, "audit")


def test_an_upload_with_a_sweep_gives_table_3(page, goto, cli, examples, tmp_path):
    goto(page, "page=audit&source=file&sweep_record=30&sweep_values=14,20,30,40&universe=")
    page.set_input_files("#audit-file", str(examples / "claims.csv"))
    expect(page.locator("#audit-command-line")).to_contain_text("privrisk audit claims.csv --column claims")
    expect(page.locator("#audit-command-line")).to_contain_text(
        "--sweep-record 30 --sweep-values 14,20,30,40"
    )
    page.locator("#audit-run").click()
    expect(page.locator("#audit-sweep")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path, {"claims.csv": examples / "claims.csv"}))
    assert res.code == 0, res.err
    rows = res.json["sweep"]["rows"]
    assert _rows(page, "audit-sweep") == [
        [
            f"{r['value']:.6g}",
            f"{r['response']:.6g}",
            ratio_text(r["log10_ratio"]),
            "✗" if r["violates"] else "",
        ]
        for r in rows
    ]
    with page.expect_download() as download:
        page.locator("#audit-download_records").click()
    assert download.value.path().read_text() == (tmp_path / "out" / "records.csv").read_text()


def test_a_text_column_shows_the_command_lines_message_and_the_app_keeps_running(page, goto, cli, tmp_path):
    bad = tmp_path / "text.csv"
    bad.write_text("name,claims\na,x\nb,y\nc,z\n")
    res = cli("audit", bad, "--column", "claims", "--epsilon", "2")
    assert res.code == 2
    message = "text.csv: column 'claims' is not numeric: 'x' in row 1 (3 such values)"
    assert res.err.strip().endswith(message)
    goto(page, "page=audit&source=file")
    page.set_input_files("#audit-file", str(bad))
    expect(page.locator("#audit-command-line")).to_contain_text("privrisk audit text.csv --column claims")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-status .privrisk-error")).to_have_text(message, timeout=RUN_MS)
    page.locator("#audit-source input[value='example']").check()
    page.locator("#audit-run").click()
    expect(page.locator("#audit-provider")).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#audit-status .privrisk-error")).to_have_count(0)


def test_epsilon_zero_is_refused_with_the_options_name(page, goto):
    goto(page, "page=audit&epsilon=0")
    expect(page.locator("#audit-command-line")).to_contain_text("--epsilon 0 ")
    page.locator("#audit-run").click()
    expect(page.locator("#audit-status .privrisk-error")).to_have_text(
        "--epsilon: must be greater than 0, got '0'"
    )
