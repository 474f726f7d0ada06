"""The app's page Study: the numbers of ``privrisk demo``/``privrisk study --json``, progress, Cancel, bad files."""

from __future__ import annotations

import re
import shlex
import tempfile
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS, WAIT_MS
from privrisk._format import percent_3g
from privrisk.app.pages.study import study_verdict

pytestmark = pytest.mark.browser


def _table(page, table_id: str) -> list[list[str]]:
    """The rows of a table the page shows (in its folded detail, opened first)."""
    page.evaluate("() => document.querySelectorAll('#study-results details').forEach(d => d.open = true)")
    rows = page.locator(f"#{table_id} tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _expected_rows(doc: dict) -> list[list[str]]:
    """The key figures of the command's JSON, formatted as the terminal prints them."""
    return [
        [
            r["variable"],
            r["query"],
            f"{r['n_smallest']:,}",
            percent_3g(r["tw_smallest_median"]),
            percent_3g(r["mw_smallest_median"]),
            f"{r['n_largest']:,}",
            percent_3g(r["tw_largest_median"]),
            percent_3g(r["mw_largest_median"]),
        ]
        for r in doc["key_figures"]
    ]


def _shown_command(page, tmp_path, files: dict[str, object] | None = None) -> list[str]:
    """The command line the page shows, with the uploads' real paths and --out in tmp_path, and --json."""
    args = shlex.split(page.locator("#study-command-line").inner_text())
    assert args[0] == "privrisk"
    args = [str((files or {}).get(a, a)) for a in args[1:]]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    return [*args, "--json"]


def _run(page) -> None:
    page.locator("#study-run").click()
    expect(page.locator("#study-verdict")).to_be_visible(timeout=RUN_MS)


def test_the_demo_from_a_url_gives_the_numbers_of_privrisk_demo(page, goto, cli, tmp_path, screenshot):
    goto(page, "page=study&queries=mean,max&epsilons=0.5,1&proportions=0.01,0.1,1&repetitions=5&seed=3")
    expect(page.locator("#study-command-line")).to_contain_text(
        "privrisk demo --queries mean,max --epsilons 0.5,1"
    )
    _run(page)
    args = _shown_command(page, tmp_path)
    assert args == [
        "demo",
        "--queries",
        "mean,max",
        "--epsilons",
        "0.5,1",
        "--proportions",
        "0.01,0.1,1",
        "--repetitions",
        "5",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "out"),
        "--json",
    ]
    res = cli(*args)
    assert res.code == 0, res.err
    doc = res.json
    assert _table(page, "study-key-figures") == _expected_rows(doc)
    _table(page, "study-key-figures")  # opens the detail
    shown = page.locator(".privrisk-findings li").all_inner_texts()
    assert [s.strip() for s in shown] == doc["findings"]
    expect(page.locator(".privrisk-figure img")).to_have_count(2)
    screenshot(page, "study")
    with page.expect_download() as download:
        page.locator("#study-download_summary").click()
    summary = download.value.path().read_text(encoding="utf-8")
    assert summary == (tmp_path / "out" / "summary.csv").read_text(encoding="utf-8")


def test_an_uploaded_file_gives_the_numbers_of_privrisk_study(page, goto, cli, examples, tmp_path):
    goto(page, "page=study&source=file&repetitions=10&proportions=0.2,0.5,1&queries=mean,max,median")
    page.set_input_files("#study-file", str(examples / "claims.csv"))
    expect(page.locator("#study-command-line")).to_contain_text("privrisk study claims.csv --column claims")
    _run(page)
    args = _shown_command(page, tmp_path, {"claims.csv": examples / "claims.csv"})
    assert args[:4] == ["study", str(examples / "claims.csv"), "--column", "claims"]
    assert args[4:12] == [
        "--queries",
        "mean,median,max",
        "--proportions",
        "0.2,0.5,1",
        "--repetitions",
        "10",
        "--out",
        str(tmp_path / "out"),
    ]
    res = cli(*args)
    assert res.code == 0, res.err
    assert _table(page, "study-key-figures") == _expected_rows(res.json)


def test_a_text_column_shows_the_command_lines_message_and_the_app_keeps_running(page, goto, cli, tmp_path):
    bad = tmp_path / "text.csv"
    bad.write_text("name,claims\na,x\nb,y\nc,z\n")
    goto(page, "page=study&source=file")
    page.set_input_files("#study-file", str(bad))
    expect(page.locator("#study-command-line")).to_contain_text("privrisk study text.csv --column claims")
    page.locator("#study-run").click()
    res = cli("study", bad, "-c", "claims", "--out", tmp_path / "out")
    assert res.code == 2
    message = "text.csv: column 'claims' is not numeric: 'x' in row 1 (3 such values)"
    assert res.err.strip().endswith(message)
    expect(page.locator("#study-status .privrisk-error")).to_have_text(message, timeout=RUN_MS)
    # The app still answers: the demo runs in the same session. The command line is drawn by the server from the
    # inputs it has: once it shows them, Run runs with them (not with 100 repetitions still on their way).
    page.locator("#study-source input[value='demo']").check()
    page.locator("#study-repetitions").fill("3")
    expect(page.locator("#study-command-line")).to_contain_text("privrisk demo")
    expect(page.locator("#study-command-line")).to_contain_text("--repetitions 3")
    _run(page)


def test_a_bad_setting_is_named_by_its_option(page, goto):
    goto(page, "page=study&epsilons=0,-1")
    expect(page.locator("#study-command-line")).to_contain_text("--epsilons 0,-1")
    page.locator("#study-run").click()
    expect(page.locator("#study-status .privrisk-error")).to_contain_text("ε values:")


def test_long_work_shows_progress_and_can_be_cancelled(page, goto):
    goto(page, "page=study&repetitions=100000")
    expect(page.locator("#study-command-line")).to_contain_text("--repetitions 100000")
    page.locator("#study-run").click()
    expect(page.locator("#study-status .progress-bar")).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#study-status .privrisk-progress-text")).to_contain_text("Sampling study")
    page.locator("#study-cancel").click()
    expect(page.locator("#study-status .privrisk-cancelled")).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#study-key-figures")).to_have_count(0)


def test_a_sessions_files_are_removed_when_the_session_ends(new_page, goto):
    tmp = Path(tempfile.gettempdir())
    before = set(tmp.glob("privrisk-app-*"))
    page = new_page()
    goto(page, "page=study&repetitions=3&queries=max&epsilons=1&proportions=0.5,1")
    expect(page.locator("#study-command-line")).to_contain_text("--repetitions 3")
    _run(page)
    found = set(tmp.glob("privrisk-app-*")) - before
    mine = [p for p in found if (p / "study" / "study" / "report.html").is_file()]
    assert len(mine) == 1
    assert mine[0].stat().st_mode & 0o077 == 0  # private to the server's user
    page.context.close()
    # The server removes the folder when it notices that the session ended: wait for that state.
    deadline = time.monotonic() + WAIT_MS / 1000
    while mine[0].exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not mine[0].exists()


def test_the_demo_leads_with_a_verdict_and_folds_the_detail(page, goto, cli, tmp_path):
    """The demo as it opens (the default settings): the verdict comes first, one number and one sentence whose
    numbers are those of ``privrisk demo``'s key figures; the findings and tables are folded below it."""
    goto(page, "page=study")
    expect(page.locator("#study-command-line")).to_have_text("privrisk demo --out study/")
    _run(page)
    first = page.locator("#study-results > *").first
    expect(first).to_have_class(re.compile(r"\bprivrisk-verdict\b"))
    res = cli("demo", "--out", tmp_path / "out", "--json")
    assert res.code == 0, res.err
    doc = res.json
    number, sentence, _ = study_verdict(
        doc["key_figures"], doc["parameters"]["figure_epsilon"], doc["parameters"]["repetitions"]
    )
    expect(page.locator("#study-verdict-number")).to_have_text(number)
    expect(page.locator("#study-verdict")).to_have_text(sentence)
    # The detail is there but folded: the findings are not shown until the reader opens it.
    expect(page.locator("#study-details")).not_to_have_attribute("open", "")
    expect(page.locator(".privrisk-findings")).to_be_hidden()
    text = page.locator("#study-results").inner_text()
    assert not re.search(r"\d[eE][-+]?\d", text), text  # no e-notation
    assert "0.0%" not in text and "0.0 %" not in text


def test_on_a_phone_the_demos_result_is_visible(browser, app_url, goto):
    from tests.app.conftest import open_page

    context, phone, guard = open_page(browser, app_url)
    phone.set_viewport_size({"width": 390, "height": 844})
    goto(phone, "page=study&repetitions=5&queries=max&proportions=0.1,1")
    layout = phone.locator(".tab-pane.active .bslib-sidebar-layout").first
    run = phone.locator("#study-run")
    if not run.is_visible():
        layout.locator(":scope > .collapse-toggle").click()
    expect(run).to_be_visible()
    run.click()
    verdict = phone.locator("#study-verdict")
    expect(verdict).to_be_visible(timeout=RUN_MS)
    # Shiny may redraw the verdict between finding and scrolling it: scroll whichever element is there now.
    phone.wait_for_function(
        """() => {
            const v = document.getElementById('study-verdict');
            if (!v) return false;
            v.scrollIntoView({block: 'center'});
            const r = v.getBoundingClientRect();
            return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
        }"""
    )
    expect(verdict).to_be_in_viewport()
    context.close()
    assert guard.foreign == [] and guard.errors == []
