"""The Release page in three steps (issue 22): set up with the query builder, preview (noise scale, expected error,
95 % interval and the warning, before any ledger entry), confirm (charged once, however often clicked). The result
is the command line's (``privrisk release --json``), the public statement reads in plain words with the annex
folded, and no download holds a path of the server."""

from __future__ import annotations

import json
import math
import re
import tempfile

import pytest
from playwright.sync_api import expect

from privrisk.cli import main
from privrisk.release.ledger import read_ledger

browser = pytest.mark.browser

MEAN_1 = "q1_column=distance&q1_query=mean&q1_epsilon=1&q1_lower=0&q1_upper=700"


def cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def session_root(tmp_path, monkeypatch):
    """The app runs in this process: its sessions' private folders (and so their ledgers) go under tmp_path."""
    root = tmp_path / "sessions"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def session_ledgers(root) -> list:
    return sorted(root.glob("privrisk-app-*/ledger.json"))


# Every select of the page has sent the server the value it shows: a column chosen by the server for an example
# travels back as an input, and a click sent before it would preview the query without its column.
SELECTS_SENT = """() => {
  const sent = (window.Shiny && Shiny.shinyapp && Shiny.shinyapp.$inputValues) || {};
  return Array.from(document.querySelectorAll('.tab-pane.active select[id]')).every(s => {
    const key = Object.keys(sent).find(k => k === s.id || k.startsWith(s.id + ':'));
    return s.multiple || key === undefined || String(sent[key]) === String(s.value);
  });
}"""


def preview(page):
    page.wait_for_function(SELECTS_SENT)
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-preview-table")).to_be_visible()


def confirm(page):
    page.locator("#release-confirm").click()
    expect(page.locator("#release-answers")).to_be_visible()


def download(page, text, target):
    with page.expect_download() as info:
        page.get_by_text(text).click()
    info.value.save_as(target)
    return target


@browser
def test_the_preview_comes_before_any_ledger_entry_and_the_release_matches_the_command_line(
    upload, page, goto, examples, capsys, tmp_path, session_root
):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    code, out, _ = cli(capsys, "release", data, "--column", "distance", "--query", "mean", "--epsilon", "1",
                       "--universe", "0,700", "--public-n", "100", "--budget", "2", "--ledger", ledger, "--json")  # fmt: skip
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
    # Nothing is charged by a preview: no session has a ledger yet.
    assert session_ledgers(session_root) == []
    confirm(page)
    [ledger_file] = session_ledgers(session_root)
    assert [e["epsilon"] for e in read_ledger(ledger_file)] == [1.0]
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
    expect(page.locator("#release-verdict")).to_have_text(
        "Released. An attacker who knows everyone else in the data and wants to tell whether one person is in it "
        "would be right about 3 times in 4; guessing, 2 in 4."
    )
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
def test_a_double_click_on_confirm_charges_once(page, goto, session_root):
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=mean&q1_epsilon=0.5"
               "&q1_lower=0&q1_upper=700")  # fmt: skip
    preview(page)
    assert session_ledgers(session_root) == []
    page.locator("#release-confirm").dblclick()
    expect(page.locator("#release-ledger-line")).to_contain_text("release 1 recorded")
    # A second confirmation of the same preview reaches the server however the button is pressed (here sent
    # past the disabled button): the preview is published once, the ledger charged once.
    page.evaluate("Shiny.setInputValue('release-confirm', 99, {priority: 'event'})")
    page.wait_for_function("() => !document.documentElement.classList.contains('shiny-busy')")
    expect(page.locator("#release-ledger-line")).to_contain_text("release 1 recorded")
    [ledger_file] = session_ledgers(session_root)
    entries = read_ledger(ledger_file)
    assert [e["epsilon"] for e in entries] == [0.5] and len(entries[0]["preview"]) == 64
    # A new release needs a new preview.
    expect(page.locator("#release-confirm")).to_have_count(0)
    preview(page)
    confirm(page)
    expect(page.locator("#release-ledger-line")).to_contain_text("release 2 recorded")
    assert len(read_ledger(ledger_file)) == 2


@browser
def test_a_changed_setting_needs_a_new_preview(page, goto, session_root):
    goto(page, f"page=release&example=distance_work&{MEAN_1}")
    preview(page)
    page.locator("#release-q1_epsilon").fill("2")
    page.locator("#release-q1_epsilon").blur()
    expect(page.locator("#release-confirm")).to_have_count(0)
    expect(page.locator("#release-preview_panel")).to_contain_text("preview the release again")
    assert session_ledgers(session_root) == []


@browser
def test_the_statement_reads_in_plain_words_and_no_download_holds_a_server_path(
    page, goto, tmp_path, session_root
):
    goto(page, f"page=release&example=distance_work&{MEAN_1}&public_n=100")
    preview(page)
    confirm(page)
    statement = page.locator("#release-statement-page")
    expect(statement).to_contain_text("would be right about 3 times in 4; guessing, 2 in 4")
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
        assert "/tmp" not in text and str(session_root) not in text and "privrisk-app-" not in text
    html, doc = texts[0], json.loads(texts[1])
    assert "<details>" in html and "3 times in 4" in html
    assert doc["ledger"]["path"] == "ledger.json"


@browser
def test_a_gaussian_release_from_the_builder(page, goto, session_root):
    """Issue 21: the page built its own answer table, which failed for a Gaussian release."""
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=max&q1_mechanism=gaussian"
               "&q1_epsilon=0.125&q1_lower=0&q1_upper=700")  # fmt: skip
    preview(page)
    # By hand: Δf = 700 for a max, σ = Δf/√(2ρ) = 700/√0.25 = 1,400; E|N(0, σ²)| = σ√(2/π) = 1,117; 1.96σ = 2,744.
    expect(page.locator("#release-preview-table .preview-scale")).to_have_text("1,400")
    expect(page.locator("#release-preview-table .preview-error")).to_have_text("1,117")
    expect(page.locator("#release-preview-table .preview-interval")).to_have_text("± 2,744")
    confirm(page)
    expect(page.locator("#release-answers")).to_contain_text("ρ = 0.125")
    expect(page.locator("#release-verdict")).to_contain_text("Released. An attacker")


@browser
def test_the_budget_refuses_at_the_preview_as_the_command_line_does(page, goto, examples, capsys, tmp_path):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    args = ["release", data, "--column", "distance", "--query", "mean", "--epsilon", "0.75", "--universe", "0,700",
            "--budget", "1", "--ledger", ledger]  # fmt: skip
    assert cli(capsys, *args)[0] == 0
    code, _, err = cli(capsys, *args)
    assert code == 1
    message = err.strip().removeprefix("privrisk: ").replace(str(ledger.resolve()), "ledger.json")
    # The same words; the page names the field by its label, the command line by its option.
    message = message.replace("--budget:", "Budget:", 1)
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=mean&q1_epsilon=0.75"
               "&q1_lower=0&q1_upper=700&budget=1")  # fmt: skip
    preview(page)
    confirm(page)
    expect(page.locator("#release-ledger-line")).to_contain_text("plain sum ε = 0.75; budget ε = 1")
    page.get_by_role("button", name="Preview the release").click()
    expect(page.locator("#release-budget_error .privrisk-error")).to_have_text(message)
    expect(page.locator("#release-confirm")).to_have_count(0)
    saved = download(page, "Download the updated ledger", tmp_path / "after.json")
    assert [e["epsilon"] for e in read_ledger(saved)] == [0.75]


@browser
def test_an_uploaded_ledger_is_continued_and_not_modified(upload, page, goto, examples, capsys, tmp_path):
    ledger = tmp_path / "mine.json"
    args = ["release", examples / "distance_work.csv", "--column", "distance", "--query", "mean", "--epsilon",
            "0.5", "--universe", "0,700", "--ledger", ledger]  # fmt: skip
    assert cli(capsys, *args)[0] == 0
    before = ledger.read_bytes()
    goto(page, "page=release&example=distance_work&q1_column=distance&q1_query=median&q1_epsilon=0.25"
               "&q1_lower=0&q1_upper=700")  # fmt: skip
    upload(page, "release-ledger", str(ledger))
    preview(page)
    confirm(page)
    expect(page.locator("#release-ledger-line")).to_have_text(
        "Ledger mine.json: release 2 recorded; plain sum ε = 0.75."
    )
    assert ledger.read_bytes() == before


@browser
@pytest.mark.parametrize(
    ("query", "where", "message"),
    [
        ("q1_column=distance&q1_epsilon=0&q1_lower=0&q1_upper=700", "q1", "Privacy loss ε: "),
        ("q1_column=distance&q1_epsilon=1&q1_lower=0", "q1", "Bounds: give the highest possible value"),
        ("q1_column=distance&q1_epsilon=1&q1_lower=700&q1_upper=0", "q1", "Bounds: the lower bound 700"),
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
        goto(page, f"page=release&example=distance_work&{MEAN_1}")
        preview(page)
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
    confirm(page)
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
