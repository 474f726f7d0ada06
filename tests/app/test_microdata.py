"""The Microdata page: an upload measured as ``privrisk microdata`` measures it, the verdict first."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RUN_MS = 60_000  # a run under load on two cores; the test waits for the state, not for a time
QUERY = "page=microdata&keys=region,age,sex&weights=weight&household=hid&k=2"


def test_upload_gives_the_command_lines_verdict_and_findings(page, goto, cli, examples, screenshot):
    goto(page, QUERY)
    page.set_input_files("#microdata-data", str(examples / "microdata_survey.csv"))
    expect(page.locator("#microdata-command-line")).to_contain_text(
        "privrisk microdata microdata_survey.csv --keys region,age,sex --weights weight --household hid --k 2"
    )
    page.locator("#microdata-run").click()
    verdict = page.locator("#microdata-verdict-text")
    expect(verdict).to_contain_text("Thresholds exceeded", timeout=RUN_MS)
    res = cli("microdata", examples / "microdata_survey.csv", "--keys", "region,age,sex", "--weights", "weight",
              "--household", "hid", "--k", "2", "--json")  # fmt: skip
    assert res.code == 1
    doc = json.loads(res.out)
    # The command line names its option (--k), the app its own field: the same finding after the name.
    expect(verdict).to_contain_text(doc["failures"][0].split(": ", 1)[1])
    findings = page.locator("#microdata-findings p")
    expect(findings).to_have_count(len(doc["findings"]))
    for i, line in enumerate(doc["findings"]):
        expect(findings.nth(i)).to_have_text(line)
    # the verdict comes before the measures on the page
    assert verdict.bounding_box()["y"] < findings.first.bounding_box()["y"]
    expect(page.locator("#microdata-top tbody tr")).to_have_count(10)
    screenshot(page, "microdata")


def test_the_built_in_example_and_a_bad_key(page, goto):
    goto(page, "page=microdata&keys=region,agegroup&example=true")
    page.locator("#microdata-run").click()
    expect(page.locator(".privrisk-error")).to_contain_text("no column 'agegroup'", timeout=RUN_MS)
    page.locator("#microdata-keys").fill("region,age")
    page.locator("#microdata-run").click()
    expect(page.locator("#microdata-verdict-text")).to_contain_text("Every threshold set is met", timeout=RUN_MS)
    expect(page.locator(".privrisk-error")).to_have_count(0)
