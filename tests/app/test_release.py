"""The Release page: the same release as ``privrisk release --json`` (noise scale, interval, public statement,
ledger, budget refusal), the ledger downloaded, the internal assessment only on request."""

from __future__ import annotations

import json
import math
import re

import pytest
from playwright.sync_api import expect

from privrisk.cli import main
from privrisk.release.ledger import read_ledger

browser = pytest.mark.browser


def cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def release(page):
    page.get_by_role("button", name="Release", exact=True).click()


@browser
def test_a_release_matches_the_command_line_and_charges_the_downloaded_ledger(
    upload, page, goto, examples, capsys, tmp_path
):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    code, out, _ = cli(capsys, "release", data, "--column", "distance", "--query", "mean", "--epsilon", "1",
                       "--universe", "0,700", "--public-n", "100", "--budget", "2", "--ledger", ledger, "--json")  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    goto(page, "page=release&queries=distance%20mean%201%200,700&public_n=100&budget=2")
    upload(page, "release-file", str(data))
    release(page)
    answer = doc["answers"][0]
    expect(page.locator("#release-answers .release-scale")).to_have_text(
        f"{answer['noise_scale']:.4g}"
    )  # 700/2/1
    assert answer["noise_scale"] == 350.0
    interval = page.locator("#release-answers .release-interval").inner_text()
    noisy = float(page.locator("#release-answers .release-noisy").inner_text())
    lo, hi = (float(x) for x in interval.strip("[]").split(","))
    half = 350 * math.log(20)
    assert lo == pytest.approx(noisy - half, rel=1e-3, abs=0.5) and hi == pytest.approx(
        noisy + half, rel=1e-3, abs=0.5
    )
    statement = doc["public_statement"]
    expect(page.locator("#release-statement")).to_contain_text(statement["sentences"])
    expect(page.locator("#release-statement")).to_contain_text("For the published n = 100")
    expect(page.locator("#release-ledger-line")).to_have_text(
        "Ledger ledger.json: release 1 recorded; plain sum ε = 1; budget ε = 2."
    )
    # The internal assessment is hidden until the operator asks for it.
    expect(page.locator("#release-internal-box")).to_have_count(0)
    assert "NOT FOR PUBLICATION" not in page.locator("body").inner_text()
    page.get_by_label("Show the internal assessment (for you, the operator, only)").check()
    expect(page.locator("#release-internal-box")).to_contain_text("INTERNAL ASSESSMENT — NOT FOR PUBLICATION")
    # The updated ledger, downloaded, records the release with the right ε; the command line reads it.
    with page.expect_download() as info:
        page.get_by_text("Download the updated ledger").click()
    saved = tmp_path / "downloaded.json"
    info.value.save_as(saved)
    entries = read_ledger(saved)
    assert [e["epsilon"] for e in entries] == [1.0]
    code, out, _ = cli(capsys, "ledger", saved, "--json")
    assert code == 0 and json.loads(out)["total_epsilon"] == 1.0


@browser
def test_the_budget_refuses_as_the_command_line_does(page, goto, examples, capsys, tmp_path):
    data = examples / "distance_work.csv"
    ledger = tmp_path / "ledger.json"
    args = ["release", data, "--column", "distance", "--query", "mean", "--epsilon", "0.75", "--universe", "0,700",
            "--budget", "1", "--ledger", ledger]  # fmt: skip
    assert cli(capsys, *args)[0] == 0
    code, _, err = cli(capsys, *args)
    assert code == 1
    message = err.strip().removeprefix("privrisk: ").replace(str(ledger), "ledger.json")
    goto(page, "page=release&example=distance_work&queries=distance%20mean%200.75%200,700&budget=1")
    release(page)
    expect(page.locator("#release-ledger-line")).to_contain_text("plain sum ε = 0.75; budget ε = 1")
    release(page)
    expect(page.locator(".privrisk-error").first).to_have_text(message)
    # nothing was charged by the refused release
    with page.expect_download() as info:
        page.get_by_text("Download the updated ledger").click()
    saved = tmp_path / "after.json"
    info.value.save_as(saved)
    assert [e["epsilon"] for e in read_ledger(saved)] == [0.75]


@browser
def test_an_uploaded_ledger_is_continued_and_not_modified(upload, page, goto, examples, capsys, tmp_path):
    ledger = tmp_path / "mine.json"
    args = ["release", examples / "distance_work.csv", "--column", "distance", "--query", "mean", "--epsilon",
            "0.5", "--universe", "0,700", "--ledger", ledger]  # fmt: skip
    assert cli(capsys, *args)[0] == 0
    before = ledger.read_bytes()
    goto(page, "page=release&example=distance_work&queries=distance%20median%200.25%200,700")
    upload(page, "release-ledger", str(ledger))
    expect(page.locator("#release-ledger-line")).to_have_count(0)
    release(page)
    expect(page.locator("#release-ledger-line")).to_have_text(
        "Ledger mine.json: release 2 recorded; plain sum ε = 0.75."
    )
    assert ledger.read_bytes() == before


@browser
@pytest.mark.parametrize(
    ("queries", "message"),
    [
        ("distance%20mean%200%200,700", "queries: line 1: epsilon: "),
        ("distance%20mean%201", "queries: line 1 has 3 parts"),
        ("nosuch%20mean%201%200,700", "examples/distance_work.csv: no column 'nosuch'"),
    ],
)
def test_bad_queries_show_one_line_and_the_app_keeps_running(page, goto, queries, message):
    goto(page, f"page=release&example=distance_work&queries={queries}")
    release(page)
    expect(page.locator(".privrisk-error").first).to_contain_text(message)
    page.locator("#release-queries").fill("distance mean 1 0,700")
    page.locator("#release-queries").blur()
    release(page)
    expect(page.locator("#release-answers .release-scale")).to_have_text("350")


@browser
def test_a_bad_data_upload_shows_the_message(upload, page, goto, tmp_path):
    bad = tmp_path / "table.csv"
    bad.write_text("a,b\n1,2\n3\n")
    goto(page, "page=release&queries=a%20mean%201%200,10")
    upload(page, "release-file", str(bad))
    release(page)
    expect(page.locator(".privrisk-error").first).to_have_text(
        "table.csv: line 3 has 1 fields but the header has 2"
    )


@browser
def test_screenshot(page, goto, screenshot):
    goto(page, "page=release&example=distance_work&public_n=30000&budget=2")
    release(page)
    page.get_by_label("Show the internal assessment (for you, the operator, only)").check()
    expect(page.locator("#release-internal-box")).to_be_visible()
    screenshot(page, "release")


@browser
def test_the_shown_release_toml_gives_the_same_release_on_the_command_line(
    page, goto, examples, capsys, tmp_path
):
    goto(page, "page=release&example=distance_work")  # the default queries: a mean and a median
    release(page)
    expect(page.locator("#release-answers .release-scale")).to_have_count(2)
    scales = page.locator("#release-answers .release-scale").all_inner_texts()
    spec = tmp_path / "release.toml"
    spec.write_text(page.locator("#release-spec-toml").inner_text())
    code, out, _ = cli(capsys, "release", examples / "distance_work.csv", "--spec", spec, "--json")
    assert code == 0
    assert scales == [f"{a['noise_scale']:.4g}" for a in json.loads(out)["answers"]] == ["318.6", "700"]


def test_the_page_shows_a_gaussian_release_from_the_librarys_rows(tmp_path):
    """Issue 20: the page formatted row.epsilon, None for a Gaussian answer, and failed after the ledger was
    charged; it now shows what the command line prints (Release.answer_rows, findings, ledger_line)."""
    import pandas as pd

    from privrisk.app.pages.release import public_view
    from privrisk.release import ReleaseQuery, noisy_release
    from privrisk.release.budget import Budget

    ledger = tmp_path / "session" / "ledger.json"
    queries = [ReleaseQuery("h", "mean", None, (0, 24), mechanism="gaussian", rho=0.125),
               ReleaseQuery("h", "max", 0.5, (0, 24))]  # fmt: skip
    r = noisy_release(pd.DataFrame({"h": [8.0, 6, 30, 7]}), queries, ledger=ledger, budget=Budget(rho=1.0))
    html = str(public_view(r, ledger=str(ledger), ledger_name="mine.json"))
    for row in r.answer_rows():
        assert all(cell in html for cell in row)
    assert "ρ = 0.125" in html and "ε = 0.5" in html
    assert r.ledger_line().replace(str(ledger), "mine.json") in html and str(ledger) not in html
    assert not re.search(r"ε = 0(?![.\d])", html)  # never "ε = 0", which reads as perfect privacy


@browser
def test_a_double_click_releases_once(page, goto, tmp_path):
    """Issue 20: a double-click on Release recorded two releases; the click disables the button until the
    server is done, so the ledger has exactly one entry."""
    goto(page, "page=release&example=distance_work&queries=distance%20mean%200.5%200,700")
    button = page.get_by_role("button", name="Release", exact=True)
    button.dblclick()
    expect(page.locator("#release-ledger-line")).to_contain_text("release 1 recorded")
    expect(button).to_be_enabled()  # the server is done with the first click
    with page.expect_download() as info:
        page.get_by_text("Download the updated ledger").click()
    saved = tmp_path / "after.json"
    info.value.save_as(saved)
    assert [e["epsilon"] for e in read_ledger(saved)] == [0.5]
    # A deliberate second click is a second release.
    button.click()
    expect(page.locator("#release-ledger-line")).to_contain_text("release 2 recorded")
