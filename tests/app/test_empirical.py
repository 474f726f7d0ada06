"""The app's page Empirical DP: the numbers of ``privrisk empirical --json`` (the Chicago preset and chosen
columns), bad files."""

from __future__ import annotations

import shlex

import numpy as np
import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS
from privrisk.empirical.report import short_number

pytestmark = pytest.mark.browser


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
        [
            f"{r['epsilon']:.4g}",
            short_number(r["delta"]),
            short_number(r["total_risk"]),
            str(r["worst_individual"]),
        ]
        for r in doc["rows"]
    ]


def test_the_chicago_example_gives_the_numbers_of_privrisk_empirical(page, goto, cli, tmp_path, screenshot):
    goto(page, "page=empirical")
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-privacy")).to_be_visible(timeout=RUN_MS)
    with page.expect_download() as download:
        page.locator("#empirical-download_example").click()
    example = tmp_path / "inspections.csv"
    download.value.save_as(example)
    args = _shown_command(page, tmp_path, {"inspections.csv": example})
    assert args[:4] == ["empirical", str(example), "--preset", "chicago"]
    res = cli(*args)
    assert res.code == 0, res.err
    doc = res.json
    assert _rows(page, "empirical-privacy") == _expected(doc)
    riskiest = _rows(page, "empirical-riskiest")
    assert [r[0] for r in riskiest] == [str(t["individual"]) for t in doc["top"]]
    assert len(riskiest) == 10
    expect(page.locator(".privrisk-figure img")).not_to_have_count(0)
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
    expect(page.locator("#empirical-privacy")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path, {"shops.csv": data}))
    assert res.code == 0, res.err
    assert _rows(page, "empirical-privacy") == _expected(res.json)
    # δ* = 1 − Π(1 − δᵢ) over every individual, from the command's own per-individual table.
    import pandas as pd

    deltas = pd.read_parquet(tmp_path / "out" / "individuals.parquet")
    for row in res.json["rows"]:
        column = next(
            c for c in deltas.columns if c.startswith("delta_") and np.isclose(float(c[6:]), row["epsilon"])
        )
        assert np.isclose(1 - np.prod(1 - deltas[column].to_numpy()), row["total_risk"])


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
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-privacy")).to_be_visible(timeout=RUN_MS)
