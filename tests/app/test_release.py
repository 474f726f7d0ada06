"""The Release page in three steps (issue 22): set up with the query builder, preview (noise scale, expected error,
95 % interval and the warning, before any ledger entry), confirm (charged once, however often clicked; a useless
answer only once acknowledged). The result is the command line's (``privrisk release --json``), the public
statement reads in plain words with the annex folded, and no download holds a path of the server. The ledger is
the app's one file on disk (issue 30): a reload, a second browser and every session see every release, and the
budget holds across them.

Each test has an app (and so a ledger) of its own: a test's count of releases is its own.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from playwright.sync_api import expect
from tests.app.conftest import RunningApp, open_page

from privrisk.cli import main
from privrisk.release.ledger import read_ledger

browser = pytest.mark.browser

# A mean of distance in [0, 700] at ε = 1: its 95 % interval (± 1,049) is wider than the range, so useless.
MEAN_1 = "q1_column=distance&q1_query=mean&q1_epsilon=1&q1_lower=0&q1_upper=700"
# A count at ε = 1 with a published n of 100: ± 3, useful.
COUNT_1 = "q1_column=distance&q1_query=count&q1_epsilon=1&q1_lower=0&q1_upper=700&public_n=100"


@pytest.fixture
def running_app():
    """An app of the test's own, with a fresh ledger in a temporary folder."""
    running = RunningApp()
    yield running
    running.stop()


@pytest.fixture
def app_url(running_app) -> str:
    return running_app.url


def cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# Every select of the page has sent the server the value it shows: a column chosen by the server for an example
# travels back as an input, and a click sent before it would preview the query without its column.
SELECTS_SENT = """() => {
  const sent = (window.Shiny && Shiny.shinyapp && Shiny.shinyapp.$inputValues) || {};
  return Array.from(document.querySelectorAll('.tab-pane.active select[id]')).every(s => {
    const key = Object.keys(sent).find(k => k === s.id || k.startsWith(s.id + ':'));
    return s.multiple || key === undefined || String(sent[key]) === String(s.value);
  });
}"""


# The server's own view of the builder (the command it shows) holds as many queries as the form shows: an
# example's rows are filled by the server and travel back as inputs, and until they have arrived a click would
# preview a release without them. The selects' values alone do not show this: a click can follow the example's
# choice before the server has answered it.
SERVER_HAS_THE_ROWS = """() => {
  const mode = document.querySelector('.tab-pane.active input[name$="queries_from"]:checked');
  if (mode && mode.value === 'spec') { return true; }
  const filled = Array.from(document.querySelectorAll('.tab-pane.active .release-query select[id$="_column"]'))
    .filter(s => s.value).length;
  const line = document.querySelector('.tab-pane.active #release-command-line');
  const toml = document.querySelector('.tab-pane.active #release-spec-toml');
  const shown = toml ? (toml.textContent.match(/\\[\\[query\\]\\]/g) || []).length
    : (line && line.textContent.includes('--column') ? 1 : 0);
  return filled > 0 && shown === filled;
}"""


def preview(page):
    page.wait_for_function(SERVER_HAS_THE_ROWS)
    page.wait_for_function(SELECTS_SENT)
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-preview-table")).to_be_visible()


def confirm(page, *, useless: bool = False):
    """Confirm the preview; ``useless``: the preview flags an answer useless, so the box is ticked first (the
    button stays disabled until it is)."""
    button = page.locator("#release-confirm")
    if useless:
        expect(button).to_be_disabled()
        page.locator("#release-allow_useless").check()
    expect(button).to_be_enabled()
    button.click()
    expect(page.locator("#release-answers")).to_be_visible()


def download(page, text, target):
    with page.expect_download() as info:
        page.get_by_text(text).click()
    info.value.save_as(target)
    return target


@browser
def test_the_preview_comes_before_any_ledger_entry_and_the_release_matches_the_command_line(
    upload, page, goto, examples, capsys, tmp_path, running_app
):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    code, out, _ = cli(capsys, "release", data, "--column", "distance", "--query", "mean", "--epsilon", "1",
                       "--universe", "0,700", "--public-n", "100", "--budget", "2", "--ledger", ledger, "--allow-useless",
                       "--json")  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    goto(page, f"page=release&{MEAN_1}&public_n=100&budget=2")
    upload(page, "release-file", str(data))
    preview(page)
    # By hand: Δf = 700/2 for a mean, b = Δf/ε = 350, E|Lap(b)| = b, 95 % half-width b·ln 20 = 1,048.5.
    expect(page.locator("#release-preview-table .preview-scale")).to_have_text("350")
    expect(page.locator("#release-preview-table .preview-error")).to_have_text("350")
    expect(page.locator("#release-preview-table .preview-interval")).to_have_text("± 1,049")
    # The interval (± 1,049) is wider than the whole range of a mean in [0, 700]: the answer would be useless.
    expect(page.locator(".release-warning")).to_contain_text("the answer would be useless")
    expect(page.locator("#release-verdict")).to_contain_text("If you release this: An attacker")
    # Nothing is charged by a preview: the ledger is not there yet, and the page says so and where it is.
    assert not running_app.ledger.exists()
    expect(page.locator("#release-ledger-path")).to_have_text(str(running_app.ledger))
    expect(page.locator("#release-ledger-state")).to_contain_text("no release recorded yet")
    # The answer is useless: Confirm waits for the operator's word, and the page says it was released anyway.
    confirm(page, useless=True)
    expect(page.locator("#release-useless-note")).to_contain_text("the answer would be useless")
    assert [e["epsilon"] for e in read_ledger(running_app.ledger)] == [1.0]
    expect(page.locator("#release-ledger-state")).to_contain_text("1 release recorded; plain sum ε = 1")
    answer = doc["answers"][0]
    assert answer["noise_scale"] == 350.0
    expect(page.locator("#release-answers .release-scale")).to_have_text(f"{answer['noise_scale']:.4g}")
    interval = page.locator("#release-answers .release-interval").inner_text()
    noisy = float(page.locator("#release-answers .release-noisy").inner_text())
    lo, hi = (float(x) for x in interval.strip("[]").split(","))
    half = 350 * math.log(20)
    assert lo == pytest.approx(noisy - half, rel=1e-3, abs=0.5)
    assert hi == pytest.approx(noisy + half, rel=1e-3, abs=0.5)
    # Verdict first, in plain words: ε = 1, 1/(1 + e^−1) = 0.731 ≈ 3 in 4.
    verdict = page.locator("#release-verdict")
    expect(verdict).to_contain_text(
        "Released. An attacker who knows everyone else in the data and wants to tell whether one person is in it "
        "would be right about 3 times in 4"
    )
    expect(verdict).to_contain_text("guessing, 2 in 4.")
    expect(page.locator("#release-ledger-line")).to_have_text(
        "Ledger ledger.json: release 1 recorded; plain sum ε = 1; budget ε = 2."
    )
    # The internal assessment is hidden until the operator asks for it.
    expect(page.locator("#release-internal-box")).to_have_count(0)
    assert "NOT FOR PUBLICATION" not in page.locator("body").inner_text()
    page.get_by_label("Show the internal assessment (for you, the operator, only)").check()
    expect(page.locator("#release-internal-box")).to_contain_text("INTERNAL ASSESSMENT — NOT FOR PUBLICATION")
    saved = download(page, "Download the updated ledger", tmp_path / "downloaded.json")
    assert [e["epsilon"] for e in read_ledger(saved)] == [1.0]
    code, out, _ = cli(capsys, "ledger", saved, "--json")
    assert code == 0 and json.loads(out)["total_epsilon"] == 1.0


@browser
def test_a_double_click_on_confirm_charges_once(page, goto, running_app):
    goto(page, f"page=release&example=distance_work&{COUNT_1}")
    preview(page)
    assert not running_app.ledger.exists()
    page.locator("#release-confirm").dblclick()
    expect(page.locator("#release-ledger-line")).to_contain_text("release 1 recorded")
    # A second confirmation of the same preview reaches the server however the button is pressed (here sent
    # past the disabled button): the preview is published once, the ledger charged once.
    page.evaluate("Shiny.setInputValue('release-confirm', 99, {priority: 'event'})")
    page.wait_for_function("() => !document.documentElement.classList.contains('shiny-busy')")
    expect(page.locator("#release-ledger-line")).to_contain_text("release 1 recorded")
    entries = read_ledger(running_app.ledger)
    assert [e["epsilon"] for e in entries] == [1.0] and len(entries[0]["preview"]) == 64
    # A new release needs a new preview.
    expect(page.locator("#release-confirm")).to_have_count(0)
    preview(page)
    confirm(page)
    expect(page.locator("#release-ledger-line")).to_contain_text("release 2 recorded")
    assert len(read_ledger(running_app.ledger)) == 2


@browser
def test_a_changed_setting_needs_a_new_preview(page, goto, running_app):
    goto(page, f"page=release&example=distance_work&{MEAN_1}")
    preview(page)
    page.locator("#release-q1_epsilon").fill("2")
    page.locator("#release-q1_epsilon").blur()
    expect(page.locator("#release-confirm")).to_have_count(0)
    expect(page.locator("#release-preview_panel")).to_contain_text("preview the release again")
    assert not running_app.ledger.exists()


@browser
def test_the_statement_reads_in_plain_words_and_no_download_holds_a_server_path(
    page, goto, tmp_path, running_app
):
    goto(page, f"page=release&example=distance_work&{MEAN_1}&public_n=100")
    preview(page)
    confirm(page, useless=True)
    statement = page.locator("#release-statement-page")
    expect(statement).to_contain_text("would be right about 3 times in 4")
    expect(statement).to_contain_text("guessing, 2 in 4")
    # The answer was useless and released anyway: the public statement says so (the library's sentence).
    expect(statement).to_contain_text("this answer tells nothing reliable")
    expect(statement).to_contain_text("This release spent ε = 1.")
    # The technical annex (ρ_gl, Γ, the equations) is folded.
    annex = statement.locator("details")
    expect(annex).to_have_count(1)
    assert annex.get_attribute("open") is None
    expect(annex.locator("summary")).to_have_text("Technical annex")
    expect(statement.get_by_text("Mehner et al., eq. 3–4").first).to_be_hidden()
    body = (
        page.locator("main").inner_text()
        if page.locator("main").count()
        else page.locator("body").inner_text()
    )
    assert not re.search(r"\d[eE][-+]?\d", body), "e-notation on the page"
    assert "0.0%" not in body and "0.0 %" not in body
    texts = []
    for name, text in (("statement.html", "Download the public statement (HTML)"),
                       ("release.json", "Download the public release (JSON)"),
                       ("ledger.json", "Download the updated ledger")):  # fmt: skip
        texts.append(download(page, text, tmp_path / name).read_text(encoding="utf-8"))
    for text in texts:
        assert "/tmp" not in text and str(running_app.folder) not in text and "privrisk-app-" not in text
    html, doc = texts[0], json.loads(texts[1])
    assert "<details>" in html and "3 times in 4" in html
    assert doc["ledger"]["path"] == "ledger.json"


@browser
def test_a_gaussian_release_from_the_builder(page, goto):
    """Issue 21: the page built its own answer table, which failed for a Gaussian release."""
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=max&q1_mechanism=gaussian"
               "&q1_epsilon=0.125&q1_lower=0&q1_upper=700")  # fmt: skip
    preview(page)
    # By hand: Δf = 700 for a max, σ = Δf/√(2ρ) = 700/√0.25 = 1,400; E|N(0, σ²)| = σ√(2/π) = 1,117; 1.96σ = 2,744.
    expect(page.locator("#release-preview-table .preview-scale")).to_have_text("1,400")
    expect(page.locator("#release-preview-table .preview-error")).to_have_text("1,117")
    expect(page.locator("#release-preview-table .preview-interval")).to_have_text("± 2,744")
    confirm(page, useless=True)
    expect(page.locator("#release-answers")).to_contain_text("ρ = 0.125")
    expect(page.locator("#release-verdict")).to_contain_text("Released. An attacker")


@browser
def test_the_budget_refuses_at_the_preview_as_the_command_line_does(page, goto, examples, capsys, tmp_path):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    args = ["release", data, "--column", "distance", "--query", "mean", "--epsilon", "0.75", "--universe", "0,700",
            "--budget", "1", "--ledger", ledger, "--allow-useless"]  # fmt: skip
    assert cli(capsys, *args)[0] == 0
    code, _, err = cli(capsys, *args)
    assert code == 1
    message = err.strip().removeprefix("privrisk: ").replace(str(ledger.resolve()), "ledger.json")
    # The same words; the page names the field by its label, the command line by its option.
    message = message.replace("--budget:", "Budget:", 1)
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=mean&q1_epsilon=0.75"
               "&q1_lower=0&q1_upper=700&budget=1")  # fmt: skip
    preview(page)
    confirm(page, useless=True)
    expect(page.locator("#release-ledger-line")).to_contain_text("plain sum ε = 0.75; budget ε = 1")
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-budget_error .privrisk-error")).to_have_text(message)
    expect(page.locator("#release-confirm")).to_have_count(0)
    saved = download(page, "Download the updated ledger", tmp_path / "after.json")
    assert [e["epsilon"] for e in read_ledger(saved)] == [0.75]


@browser
def test_every_session_a_reload_and_a_second_browser_charge_one_ledger_and_the_budget_holds(
    page, goto, new_page, running_app, browser
):
    """Issue 30: release twice, reload, set a budget of 2, release again: refused by the budget; a second browser
    context sees every release and is held to the budget as well (the ledger used to live in the session)."""
    query = f"page=release&example=distance_work&{COUNT_1}"
    goto(page, query)
    for seq in (1, 2):
        preview(page)
        confirm(page)
        expect(page.locator("#release-ledger-line")).to_contain_text(f"release {seq} recorded")
    assert [e["epsilon"] for e in read_ledger(running_app.ledger)] == [1.0, 1.0]
    page.reload()
    goto(page, query + "&budget=2")
    expect(page.locator("#release-ledger-state")).to_have_text("2 releases recorded; plain sum ε = 2.")
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-budget_error .privrisk-error")).to_contain_text("budget")
    expect(page.locator("#release-confirm")).to_have_count(0)
    # A second browser (another session): every release is there, and the budget holds for it too.
    other = new_page()
    goto(other, query + "&budget=2")
    expect(other.locator("#release-ledger-state")).to_have_text("2 releases recorded; plain sum ε = 2.")
    other.get_by_role("button", name="Preview the release").click()
    expect(other.locator("#release-budget_error .privrisk-error")).to_contain_text("budget")
    expect(other.locator("#release-confirm")).to_have_count(0)
    assert len(read_ledger(running_app.ledger)) == 2
    # A restart of the server on the same ledger sees them as well.
    again = RunningApp(ledger=running_app.ledger)
    context, fresh, guard = open_page(browser, again.url)
    try:
        fresh.goto(again.url + "?" + query)
        fresh.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'")
        expect(fresh.locator("#release-ledger-state")).to_have_text("2 releases recorded; plain sum ε = 2.")
        assert guard.foreign == [] and guard.errors == []
    finally:
        context.close()
        again.stop()


@browser
def test_a_useless_answer_is_released_only_once_acknowledged(page, goto, running_app):
    goto(page, f"page=release&example=distance_work&{MEAN_1}")
    preview(page)
    expect(page.locator(".release-warning")).to_contain_text("the answer would be useless")
    button = page.locator("#release-confirm")
    expect(button).to_be_disabled()
    # Sent past the disabled button, a confirmation is refused by the server too: nothing is released.
    page.evaluate("Shiny.setInputValue('release-confirm', 7, {priority: 'event'})")
    expect(page.locator("#release-release_error")).to_contain_text("tick the box to release it anyway")
    assert not running_app.ledger.exists()
    page.locator("#release-allow_useless").check()
    expect(button).to_be_enabled()
    page.locator("#release-allow_useless").uncheck()
    expect(page.locator("#release-confirm")).to_be_disabled()
    confirm(page, useless=True)
    expect(page.locator("#release-useless-note")).to_contain_text("wider than the whole range")
    assert [e["epsilon"] for e in read_ledger(running_app.ledger)] == [1.0]


@browser
@pytest.mark.parametrize(
    ("query", "where", "message"),
    [
        ("q1_column=distance&q1_epsilon=0&q1_lower=0&q1_upper=700", "q1", "Privacy loss ε: "),
        ("q1_column=distance&q1_epsilon=1&q1_lower=0", "q1", "Bounds: give the highest possible value"),
        ("q1_column=distance&q1_epsilon=1&q1_lower=700&q1_upper=0", "q1", "Bounds: the lower bound 700"),
        # issue 30: "0,5" is neither 5 nor 0.5 in silence: refused at its query
        ("q1_column=distance&q1_epsilon=1&q1_lower=0,5&q1_upper=700", "q1",
         "Bounds: '0,5' for the lowest possible value: write a decimal point (0.5)"),
        ("q1_column=nosuch&q1_epsilon=1&q1_lower=0&q1_upper=700", "file", "examples/distance_work.csv: no column 'nosuch'"),
    ],
)  # fmt: skip
def test_bad_queries_show_one_line_at_the_field_and_the_app_keeps_running(page, goto, query, where, message):
    goto(page, f"page=release&example=distance_work&{query}")
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator(f"#release-{where}_error .privrisk-error")).to_contain_text(message)
    expect(page.locator("#release-preview-table")).to_have_count(0)
    page.locator("#release-q1_column").select_option("distance")
    page.locator("#release-q1_epsilon").fill("1")
    page.locator("#release-q1_lower").fill("0")
    page.locator("#release-q1_upper").fill("700")
    page.locator("#release-q1_upper").blur()
    preview(page)
    expect(page.locator("#release-preview-table .preview-scale")).to_have_text("350")


@browser
def test_an_older_queries_link_fills_the_builder(page, goto):
    goto(page, "page=release&example=distance_work&queries=distance%20mean%201%200,700")
    expect(page.locator("#release-q1_column")).to_have_value("distance")
    expect(page.locator("#release-q1_upper")).to_have_value("700")
    expect(page.locator("#release-q2_column")).to_have_value("")
    preview(page)
    expect(page.locator("#release-preview-table .preview-scale")).to_have_text("350")


@browser
def test_a_bad_data_upload_shows_the_message(upload, page, goto, tmp_path):
    bad = tmp_path / "table.csv"
    bad.write_text("a,b\n1,2\n3\n")
    goto(page, "page=release&q1_column=a&q1_epsilon=1&q1_lower=0&q1_upper=10")
    upload(page, "release-file", str(bad))
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator(".privrisk-error").first).to_contain_text(
        "table.csv: line 3 has 1 fields but the header has 2"
    )


@browser
def test_the_shown_release_toml_gives_the_same_release_on_the_command_line(
    page, goto, examples, capsys, tmp_path
):
    goto(page, "page=release&example=distance_work")  # the example's queries: a mean and a median
    preview(page)
    expect(page.locator("#release-preview-table .preview-scale")).to_have_count(2)
    scales = page.locator("#release-preview-table .preview-scale").all_inner_texts()
    spec = tmp_path / "release.toml"
    spec.write_text(page.locator("#release-spec-toml").inner_text())
    code, out, _ = cli(
        capsys, "release", examples / "distance_work.csv", "--spec", spec, "--preview", "--json"
    )
    assert code == 0
    shown = [q["scale"] for q in json.loads(out)["queries"]]
    # By hand: mean Δf = 350 at ε = ln 3 gives 318.6; median Δf = 350 at ε = 0.5 gives 700.
    assert scales == ["318.6", "700"] and shown == pytest.approx([350 / math.log(3), 700.0])


@browser
def test_at_phone_size_the_result_is_visible(browser, app_url, goto):
    from tests.app.conftest import open_page

    context, page, guard = open_page(browser, app_url, width=390)
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        goto(page, f"page=release&example=distance_work&{COUNT_1}")
        # On a phone the set-up stands above the preview, not over it: the button is reached and nothing covers it.
        button = page.locator("#release-preview")
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('button')?.id",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit == "release-preview"
        preview(page)
        # Every column of the preview's table can be reached: its box scrolls sideways to the last one.
        last = page.locator("#release-preview-table thead th").nth(5)
        last.scroll_into_view_if_needed()
        expect(last).to_be_in_viewport()
        page.locator("#release-confirm").scroll_into_view_if_needed()
        confirm(page)
        expect(page.locator("#release-verdict")).to_contain_text("Released.")
        for element in ("release-verdict-text", "release-answers"):
            # Shiny may redraw an output between finding and scrolling it: scroll whichever element is there
            # now, until it stands in the viewport (a state, polled).
            page.wait_for_function(
                """(id) => {
                    const v = document.getElementById(id);
                    if (!v) return false;
                    v.scrollIntoView({block: 'center'});
                    const r = v.getBoundingClientRect();
                    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
                }""",
                arg=element,
            )
            expect(page.locator(f"#{element}")).to_be_in_viewport()
        assert guard.foreign == [] and guard.errors == []
    finally:
        context.close()


@browser
def test_screenshot(page, goto, screenshot):
    goto(page, "page=release&example=distance_work&public_n=30000&budget=2")
    preview(page)
    confirm(page, useless=True)
    page.get_by_label("Show the internal assessment (for you, the operator, only)").check()
    expect(page.locator("#release-internal-box")).to_be_visible()
    screenshot(page, "release")


def test_the_page_shows_a_gaussian_release_from_the_librarys_rows(tmp_path):
    """Issue 20: the page formatted row.epsilon, None for a Gaussian answer, and failed after the ledger was
    charged; it now shows what the command line prints (Release.answer_rows, findings, ledger_line)."""
    import pandas as pd

    from privrisk._format import plain
    from privrisk.app.pages.release import public_view
    from privrisk.release import ReleaseQuery, noisy_release
    from privrisk.release.budget import Budget

    ledger = tmp_path / "session" / "ledger.json"
    queries = [ReleaseQuery("h", "mean", None, (0, 24), mechanism="gaussian", rho=0.125),
               ReleaseQuery("h", "max", 0.5, (0, 24))]  # fmt: skip
    r = noisy_release(pd.DataFrame({"h": [8.0, 6, 30, 7]}), queries, ledger=ledger, budget=Budget(rho=1.0))
    html = str(public_view(r, ledger=str(ledger), ledger_name="mine.json"))
    # The library's rows and sentences, with e-notation written as powers of ten (δ = 1e-06 → 1 × 10⁻⁶).
    for row in r.answer_rows():
        assert all(plain(cell) in html for cell in row)
    assert "ρ = 0.125" in html and "ε = 0.5" in html
    assert plain(r.ledger_line().replace(str(ledger), "mine.json")) in html and str(ledger) not in html
    assert "1e-06" not in html
    assert not re.search(r"ε = 0(?![.\d])", html)  # never "ε = 0", which reads as perfect privacy


@browser
def test_an_upload_clears_the_examples_queries_and_skips_an_id_column(upload, page, goto, tmp_path):
    goto(page, "page=release&example=distance_work")
    expect(page.locator("#release-q2_column")).to_have_value("distance")
    expect(page.locator("#release-q1_upper")).to_have_value("700")
    data = tmp_path / "survey.csv"
    data.write_text("person_id,income\n1,1200\n2,800\n3,3000\n")
    upload(page, "release-file", str(data))
    expect(page.locator("#release-q1_column")).to_have_value("income")
    expect(page.locator("#release-q2_column")).to_have_value("")
    expect(page.locator("#release-q1_epsilon")).to_have_value("")
    expect(page.locator("#release-q1_lower")).to_have_value("")
    expect(page.locator("#release-q1_upper")).to_have_value("")
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-q1_error .privrisk-error")).to_contain_text("Privacy loss ε: required")
