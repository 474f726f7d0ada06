"""The Data and sensitivity page: an upload from examples/, the numbers of ``privrisk sensitivity --json`` and
``privrisk attack --json``; bad uploads show the command line's one-line message and the app keeps running."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from playwright.sync_api import expect

from privrisk._format import number, percent_3g
from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app.pages.sensitivity import sensitivity_verdict
from privrisk.cli import main

pytestmark = pytest.mark.browser


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def values_text(page, key: str):
    return page.locator(f"#sensitivity-value-{key}")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_the_built_in_examples_are_the_files_in_examples(examples, name):
    path, _, _ = EXAMPLES[name]
    pd.testing.assert_frame_equal(
        example_frame(name), pd.read_csv(examples / path.split("/")[-1]), check_dtype=False
    )


@pytest.mark.parametrize(("query", "universe"), [("mean", "1,675"), ("median", None), ("sum", "0,1000")])
def test_an_upload_gives_the_command_lines_numbers(upload, page, goto, examples, capsys, query, universe):
    file = examples / "distance_work.csv"
    args = ["sensitivity", file, "--column", "distance", "--query", query, "--epsilon", "1"]
    url = f"page=sensitivity&column=distance&query={query}&epsilon=1"
    if universe:
        args += ["--universe", universe]
        url += f"&universe={universe}"
    doc = cli_json(capsys, *args)
    goto(page, url)
    upload(page, "sensitivity-file", str(file))
    for key in (
        "global_sensitivity",
        "local_sensitivity",
        "ratio",
        "many_worlds",
        "two_worlds",
        "global_risk",
    ):
        expect(values_text(page, key)).to_have_text(number(doc[key], 6))
    expect(page.locator("#sensitivity-universe-text")).to_contain_text(
        doc["universe"]["description"].split(" (")[0]
    )
    # The verdict leads: one number and one sentence made of the command's numbers; the table is folded.
    figure, sentence = sensitivity_verdict(doc)
    expect(page.locator("#sensitivity-verdict-number")).to_have_text(figure)
    expect(page.locator("#sensitivity-verdict")).to_have_text(sentence)
    expect(page.locator("#sensitivity-results > *").first).to_have_class(re.compile(r"\bprivrisk-verdict\b"))
    expect(values_text(page, "ratio")).to_be_hidden()
    command = f"privrisk sensitivity distance_work.csv --column distance --query {query}"
    expect(page.locator("#sensitivity-command-line")).to_contain_text(command)


def test_the_example_and_the_attack_match_privrisk_attack(page, goto, examples, capsys):
    doc = cli_json(
        capsys, "attack", examples / "distance_work.csv", "--column", "distance", "--query", "mean",
        "--epsilon", "1", "--trials", "20000", "--seed", "3",
    )  # fmt: skip
    goto(
        page,
        "page=sensitivity&example=distance_work&column=distance&query=mean&epsilon=1&trials=20000&seed=3",
    )
    expect(values_text(page, "global_sensitivity")).to_have_text(
        "337"
    )  # (675 − 1)/2: a record added to a data set of one
    page.get_by_role("button", name="Simulate the attack").click()
    pct = percent_3g  # three significant digits: never "0.0%" for a small non-zero rate
    expect(page.locator("#sensitivity-attack-bound")).to_have_text(pct(doc["bound"]))
    expect(page.locator("#sensitivity-attack-exact_risk")).to_have_text(pct(doc["exact_risk"]))
    expect(page.locator("#sensitivity-attack-simulated_success")).to_have_text(
        f"{pct(doc['simulated_success'])} [{pct(doc['ci_low'])}, {pct(doc['ci_high'])}]"
    )


def test_a_file_that_is_not_a_table_shows_the_message_and_the_app_keeps_running(
    upload, page, goto, tmp_path, examples
):
    bad = tmp_path / "photo.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    goto(page, "page=sensitivity&column=distance&query=mean")
    page.locator("#sensitivity-file").set_input_files(str(bad))
    expect(page.locator(".privrisk-error")).to_have_text(
        "photo.png: unknown file type '.png'; use CSV, Parquet (.parquet), Stata (.dta) or SPSS (.sav)"
    )
    upload(page, "sensitivity-file", str(examples / "distance_work.csv"))
    expect(values_text(page, "global_sensitivity")).to_have_text("337")
    expect(page.locator(".privrisk-error")).to_have_count(0)


def test_a_text_column_and_bad_bounds_show_the_command_lines_messages(upload, page, goto, tmp_path, capsys):
    data = tmp_path / "people.csv"
    data.write_text("name,age\nAnna,34\nBen,41\nCem,29\n")
    capsys.readouterr()
    assert main(["sensitivity", str(data), "--column", "name", "--query", "mean"]) == 2
    message = (
        capsys.readouterr().err.strip().removeprefix("privrisk: error: ").replace(str(data), "people.csv")
    )
    goto(page, "page=sensitivity&column=name&query=mean")
    upload(page, "sensitivity-file", str(data))
    expect(page.locator(".privrisk-error")).to_have_text(message)
    page.locator("#sensitivity-column").select_option("age")
    expect(values_text(page, "global_sensitivity")).to_have_text("6")  # (41 − 29)/2
    page.get_by_role("radio", name="bounds LO,HI").check()
    page.locator("#sensitivity-universe").fill("50,10")
    page.locator("#sensitivity-universe").press("Enter")
    expect(page.locator(".privrisk-error")).to_contain_text("Bounds: ")


def test_two_sessions_do_not_see_each_others_data(upload, page, new_page, goto, examples):
    goto(page, "page=sensitivity&column=distance&query=mean")
    upload(page, "sensitivity-file", str(examples / "distance_work.csv"))
    expect(values_text(page, "global_sensitivity")).to_have_text("337")
    other = new_page()
    goto(other, "page=sensitivity&column=distance&query=mean")
    expect(other.locator("#sensitivity-column option")).to_have_count(0)
    expect(other.locator("#sensitivity-value-global_sensitivity")).to_have_count(0)
    upload(other, "sensitivity-file", str(examples / "claims.csv"))
    expect(other.locator("#sensitivity-column")).to_have_value("claims")
    # the first session still has its own file
    expect(page.locator("#sensitivity-column")).to_have_value("distance")
    expect(values_text(page, "global_sensitivity")).to_have_text("337")


def test_screenshot(upload, page, goto, examples, screenshot):
    goto(page, "page=sensitivity&column=distance&query=mean&universe=1,675&epsilon=ln3")
    upload(page, "sensitivity-file", str(examples / "distance_work.csv"))
    expect(page.locator("#sensitivity-verdict")).to_be_visible()
    screenshot(page, "sensitivity")


@pytest.mark.parametrize("suffix", [".parquet", ".dta", ".sav"])
def test_parquet_stata_and_spss_uploads_give_the_same_numbers(
    upload, page, goto, examples, tmp_path, capsys, suffix
):
    frame = pd.read_csv(examples / "distance_work.csv")
    path = tmp_path / f"distance_work{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix == ".dta":
        frame.to_stata(path, write_index=False)
    else:
        import pyreadstat

        pyreadstat.write_sav(frame, str(path))
    doc = cli_json(
        capsys, "sensitivity", path, "--column", "distance", "--query", "median", "--universe", "0,700"
    )
    goto(page, "page=sensitivity&column=distance&query=median&universe=0,700")
    upload(page, "sensitivity-file", path)
    expect(values_text(page, "local_sensitivity")).to_have_text(f"{doc['local_sensitivity']:.6g}")
    expect(values_text(page, "global_sensitivity")).to_have_text(f"{doc['global_sensitivity']:.6g}")


def test_a_universe_from_another_file_gives_the_command_lines_numbers(
    upload, page, goto, examples, tmp_path, capsys
):
    universe = tmp_path / "possible.csv"
    universe.write_text("km\n" + "\n".join(str(v) for v in (0, 1, 3, 10, 17, 50, 675, 700)) + "\n")
    data = examples / "distance_work.csv"
    args = ["sensitivity", data, "--column", "distance", "--query", "mean", "--universe-file", universe]
    doc = cli_json(capsys, *args, "--universe-column", "km")
    goto(page, "page=sensitivity&column=distance&query=mean&universe_column=km")
    upload(page, "sensitivity-file", data)
    page.get_by_role("radio", name="the values of another file").check()
    upload(page, "sensitivity-universe_file", universe)
    page.locator("#sensitivity-universe_column").select_option("km")
    expect(values_text(page, "global_sensitivity")).to_have_text(f"{doc['global_sensitivity']:.6g}")
    expect(values_text(page, "local_sensitivity")).to_have_text(f"{doc['local_sensitivity']:.6g}")
    expect(page.locator("#sensitivity-universe-text")).to_contain_text(
        "the 8 distinct values of 'km' in possible.csv"
    )
