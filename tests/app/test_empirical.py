"""The app's page Empirical DP: the verdict first in words that fit its number, then the numbers of ``privrisk
empirical --json`` (the Chicago preset and chosen columns) folded below it; errors at their input; an upload's
columns; bad files; the page on a phone."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pytest
from playwright.sync_api import expect

from browser_helpers import E_NOTATION, RUN_MS, ZERO_PERCENT
from privrisk._format import number, percent_3g
from privrisk.empirical.report import short_number
from privrisk.empirical.settings import chance_words

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def _shown_command(page, tmp_path, files: dict[str, object] | None = None) -> list[str]:
    """The command line the page shows, with real paths for the files, --out in tmp_path, and --json."""
    args = shlex.split(page.locator("#empirical-command-line").inner_text())
    assert args[0] == "privrisk"
    args = [str((files or {}).get(a, a)) for a in args[1:]]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    return [*args, "--json"]


def _rows(page, table_id: str) -> list[list[str]]:
    rows = page.locator(f"#{table_id} tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _expected(doc: dict) -> list[list[str]]:
    return [
        [number(r["epsilon"]), short_number(r["delta"]), short_number(r["total_risk"]), str(r["worst_individual"])]
        for r in doc["rows"]
    ]


def _check_verdict(page, doc: dict) -> None:
    """The verdict's number is δ* at the largest ε, and its words fit that number."""
    row = max(doc["rows"], key=lambda r: r["epsilon"])
    p = row["total_risk"]
    expect(page.locator("#empirical-verdict-number")).to_have_text(f"{percent_3g(p)} chance that someone is exposed")
    sentence = page.locator("#empirical-verdict").inner_text()
    assert sentence.startswith(f"It is {chance_words(p)} that ")
    if p >= 0.99:
        assert "more likely than not" not in sentence
    assert f"a factor of {number(np.exp(row['epsilon']), 3)}" in sentence
    assert not re.search("[εδΔ]", sentence)


def _no_bad_numbers(page) -> None:
    text = page.locator(".tab-pane.active").inner_text()
    assert not E_NOTATION.search(text) and not ZERO_PERCENT.search(text)


def test_the_chicago_example_leads_with_the_verdict_and_gives_the_numbers_of_privrisk_empirical(
    page, goto, cli, tmp_path, screenshot
):
    goto(page, "page=empirical")
    expect(page.locator(".tab-pane.active .privrisk-error")).to_have_count(0)
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-verdict")).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#empirical-privacy")).to_be_hidden()  # folded below the verdict
    _no_bad_numbers(page)
    with page.expect_download() as download:
        page.locator("#empirical-download_example").click()
    example = tmp_path / "inspections.csv"
    download.value.save_as(example)
    args = _shown_command(page, tmp_path, {"inspections.csv": example})
    assert args[:4] == ["empirical", str(example), "--preset", "chicago"]
    res = cli(*args)
    assert res.code == 0, res.err
    doc = res.json
    _check_verdict(page, doc)
    page.locator("#empirical-detail summary").click()
    expect(page.locator("#empirical-privacy")).to_be_visible()
    assert _rows(page, "empirical-privacy") == _expected(doc)
    riskiest = _rows(page, "empirical-riskiest")
    assert [r[0] for r in riskiest] == [str(t["individual"]) for t in doc["top"]]
    assert len(riskiest) == 10
    page.locator("#empirical-figures summary").click()
    expect(page.locator(".privrisk-figure img")).not_to_have_count(0)
    _no_bad_numbers(page)
    screenshot(page, "empirical")


def test_an_upload_with_chosen_columns_gives_the_numbers_of_the_command(page, goto, cli, tmp_path):
    rng = np.random.default_rng(5)
    lines = ["week,shop,failed"]
    for week in range(1, 31):
        for shop in rng.choice(60, size=20, replace=False):
            lines.append(f"{week},s{shop},{int(rng.random() < 0.2)}")
    data = tmp_path / "shops.csv"
    data.write_text("\n".join(lines) + "\n")
    goto(
        page,
        "page=empirical&source=file&preset=&period=week&individual=shop&query=rate&value=failed"
        "&epsilons=0.1,0.5&density=ecdf",
    )
    page.set_input_files("#empirical-file", str(data))
    expect(page.locator("#empirical-command-line")).to_contain_text(
        "privrisk empirical shops.csv --period week --individual shop --query rate --value failed "
        "--epsilons 0.1,0.5 --density ecdf"
    )
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-verdict")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path, {"shops.csv": data}))
    assert res.code == 0, res.err
    _check_verdict(page, res.json)
    page.locator("#empirical-detail summary").click()
    assert _rows(page, "empirical-privacy") == _expected(res.json)
    # δ* = 1 − Π(1 − δᵢ) over every individual, from the command's own per-individual table.
    import pandas as pd

    deltas = pd.read_parquet(tmp_path / "out" / "individuals.parquet")
    for row in res.json["rows"]:
        column = next(
            c for c in deltas.columns if c.startswith("delta_") and np.isclose(float(c[6:]), row["epsilon"])
        )
        assert np.isclose(1 - np.prod(1 - deltas[column].to_numpy()), row["total_risk"])


def test_an_upload_clears_the_example_preset_and_preselects_no_id_or_text_as_the_value(page, goto, tmp_path):
    data = tmp_path / "visits.csv"
    data.write_text("month,shop_id,name,failed\n" + "".join(f"{m},{i},n{i},{(m + i) % 2}\n" for m in range(6)
                                                             for i in range(5)))  # fmt: skip
    goto(page, "page=empirical&source=file")
    page.set_input_files("#empirical-file", str(data))
    expect(page.locator("#empirical-command-line")).to_contain_text(
        "privrisk empirical visits.csv --period month --individual shop_id --query rate --value failed"
    )
    expect(page.locator("#empirical-preset")).to_have_value("")


def test_a_bad_epsilon_is_shown_at_its_field_and_nothing_runs(page, goto):
    goto(page, "page=empirical&epsilons=0.1,0")
    error = page.locator("#empirical-epsilons_error .privrisk-error")
    expect(error).to_contain_text("0")
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-status .privrisk-error")).to_have_count(0)
    expect(page.locator(".tab-pane.active .privrisk-error")).to_have_count(1)
    expect(page.locator("#empirical-verdict")).to_have_count(0)


def test_a_file_that_is_not_a_table_shows_the_command_lines_message(page, goto, cli, tmp_path):
    bad = tmp_path / "notes.parquet"
    bad.write_text("hello world\nthis is not a table\n")
    res = cli("empirical", bad, "--preset", "chicago")
    assert res.code == 2
    message = res.err.strip().removeprefix("privrisk: error: ").replace(str(bad), "notes.parquet")
    goto(page, "page=empirical&source=file")
    page.set_input_files("#empirical-file", str(bad))
    expect(page.locator("#empirical-file_error .privrisk-error")).to_have_text(message)
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-status .privrisk-error")).to_have_text(message, timeout=RUN_MS)
    page.locator("#empirical-source input[value='example']").check()
    page.locator("#empirical-preset").select_option("chicago")
    # The server has both choices before Run is pressed (a click that overtook them ran the file again once, at a
    # load of 9 on 2 cores).
    expect(page.locator("#empirical-command-line")).to_contain_text("inspections.csv --preset chicago")
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-verdict")).to_be_visible(timeout=RUN_MS)


def test_on_a_phone_the_verdict_is_visible_after_running(browser, app_url, goto):
    from tests.app.conftest import open_page

    context, phone, guard = open_page(browser, app_url)
    try:
        phone.set_viewport_size(PHONE)
        goto(phone, "page=empirical")
        layout = phone.locator(".tab-pane.active .bslib-sidebar-layout").first
        run = phone.locator("#empirical-run")
        if not run.is_visible():
            layout.locator(":scope > .collapse-toggle").click()
        run.click()
        verdict = phone.locator("#empirical-verdict")
        expect(verdict).to_be_visible(timeout=RUN_MS)
        verdict.scroll_into_view_if_needed()
        expect(verdict).to_be_in_viewport()
    finally:
        context.close()
    assert guard.foreign == [] and guard.errors == []
