"""The app's page Synthetic: the example attacked, the verdict first and the same as the library's, the command
line shown, the detail folded; an error on bad input."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS
from privrisk.synthetic import SyntheticSettings, run_synthetic
from privrisk.synthetic.example import example_files

pytestmark = pytest.mark.browser


def test_the_example_leads_with_the_librarys_verdict(page, goto, screenshot) -> None:
    goto(page, "page=synthetic")
    page.locator("#synthetic-run").click()
    verdict = page.locator("#synthetic-verdict")
    expect(verdict).to_be_visible(timeout=RUN_MS)
    train, synthetic, control = example_files("histogram:1")
    run = run_synthetic(SyntheticSettings(original=train, synthetic=synthetic, control=control, queries=1000,
                                          generator_guarantee="epsilon=1", seed=1))  # fmt: skip
    expect(page.locator("#synthetic-verdict-number")).to_have_text(run.verdict().headline)
    expect(verdict).to_have_text(run.verdict().sentence)
    expect(page.locator("#synthetic-attacks")).to_be_hidden()
    page.locator("#synthetic-detail summary").click()
    expect(page.locator("#synthetic-attacks")).to_be_visible()
    command = page.locator("#synthetic-command-line").inner_text()
    assert command.startswith("privrisk synthetic original.csv synthetic.csv --control control.csv")
    assert "--generator-guarantee epsilon=1" in command and "--seed 1" in command
    screenshot(page, "synthetic")


def test_a_bad_guarantee_is_one_message(page, goto) -> None:
    goto(page, "page=synthetic&generator_guarantee=rho%3Dx")
    page.locator("#synthetic-run").click()
    expect(page.locator(".tab-pane.active .privrisk-error")).to_contain_text(
        "rho must be a number", timeout=RUN_MS
    )
