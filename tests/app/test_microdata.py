"""The Microdata page: an upload measured as ``privrisk microdata`` measures it, the verdict first."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS

pytestmark = pytest.mark.browser

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
    page.locator("#microdata-k").fill("1")
    page.locator("#microdata-run").click()
    expect(page.locator("#microdata-verdict-text")).to_contain_text("Every threshold set is met", timeout=RUN_MS)
    expect(page.locator("#microdata-verdict-text")).to_contain_text("Judged against the threshold set: k = 1.")
    expect(page.locator(".privrisk-error")).to_have_count(0)


def test_without_a_threshold_the_page_judges_against_the_stated_defaults(page, goto, cli, examples):
    """Issue 30: with no threshold set, the example was green ("Every threshold set is met") although 4 records
    are unique; the page judges against k = 3 and individual risk at most 0.1 and says so."""
    goto(page, "page=microdata&keys=region,age&example=true")
    expect(page.locator("#microdata-command-line")).to_have_text(
        "privrisk microdata examples/microdata_survey.csv --keys region,age --k 3 --max-risk 0.1"
    )
    page.locator("#microdata-run").click()
    verdict = page.locator("#microdata-verdict-text")
    expect(verdict).to_contain_text("Thresholds exceeded", timeout=RUN_MS)
    expect(verdict).to_have_class(re.compile(r"\balert-danger\b"))
    expect(verdict).to_contain_text(
        "Judged against the default thresholds, as none was set: k = 3 (every key combination shared by at least "
        "3 records) and individual risk at most 0.1."
    )
    # The command line shown gives the same verdict: it exits 1 with the same failures.
    res = cli("microdata", examples / "microdata_survey.csv", "--keys", "region,age", "--k", "3", "--max-risk",
              "0.1", "--json")  # fmt: skip
    assert res.code == 1
    for failure in json.loads(res.out)["failures"]:
        expect(verdict).to_contain_text(failure.split(": ", 1)[1])


def test_suppression_on_the_page_releases_the_command_lines_file(page, goto, cli, examples, tmp_path):
    goto(page, "page=microdata&keys=region,age,sex&weights=weight&k=2&reduction=suppress&importance=sex,region,age")
    page.set_input_files("#microdata-data", str(examples / "microdata_survey.csv"))
    # the control shows the importance order for suppression, not the hierarchies of recoding
    expect(page.locator("#microdata-importance")).to_be_visible()
    expect(page.locator("#microdata-hierarchies")).to_be_hidden()
    expect(page.locator("#microdata-command-line")).to_contain_text(
        "privrisk microdata microdata_survey.csv --keys region,age,sex --weights weight --k 2 --suppress "
        "--importance sex,region,age"
    )
    page.locator("#microdata-run").click()
    verdict = page.locator("#microdata-verdict-text")
    expect(verdict).to_contain_text("Every threshold set is met after local suppression", timeout=RUN_MS)
    res = cli("microdata", examples / "microdata_survey.csv", "--keys", "region,age,sex", "--weights", "weight",
              "--k", "2", "--suppress", "--importance", "sex,region,age", "--json", "--out", tmp_path / "out")  # fmt: skip
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    assert doc["failures"] == [] and doc["failures_before"]
    expect(page.locator("#microdata-reduction-text")).to_have_text(doc["reduction"])
    # the measures of the file as given stay on the page, under their own heading
    expect(page.locator("#microdata-findings p")).to_have_count(len(doc["findings"]))
    expect(page.locator("#microdata-findings h4")).to_have_text("The file as given")
    with page.expect_download() as download:
        page.locator("#microdata-download_released").click()
    released = download.value.path().read_text(encoding="utf-8")
    assert released == (tmp_path / "out" / "released.csv").read_text(encoding="utf-8")


def test_recoding_is_chosen_on_the_page_and_no_typed_file_is_read(page, goto, cli, examples):
    goto(page, "page=microdata&keys=region,age,sex&weights=weight&k=2&example=true")
    expect(page.locator("#microdata-hierarchies")).to_be_hidden()
    page.locator("#microdata-reduction").select_option("recode")
    hierarchies = page.locator("#microdata-hierarchies")
    expect(hierarchies).to_be_visible()
    expect(page.locator("#microdata-importance")).to_be_hidden()
    # a hierarchy table is a path on the server: the page refuses it, naming its own field
    hierarchies.fill(f"age=table:{examples / 'microdata_age.csv'}")
    page.locator("#microdata-run").click()
    expect(page.locator(".privrisk-error")).to_contain_text("Hierarchies: no file named in a hierarchy",
                                                            timeout=RUN_MS)  # fmt: skip
    hierarchies.fill("age=none\nsex=none")
    expect(page.locator("#microdata-command-line")).to_contain_text("--k 2 -H age=none -H sex=none")
    page.locator("#microdata-run").click()
    verdict = page.locator("#microdata-verdict-text")
    expect(verdict).to_contain_text("Every threshold set is met after global recoding", timeout=RUN_MS)
    expect(page.locator(".privrisk-error")).to_have_count(0)
    res = cli("microdata", examples / "microdata_survey.csv", "--keys", "region,age,sex", "--weights", "weight",
              "--k", "2", "-H", "age=none", "-H", "sex=none", "--json")  # fmt: skip
    assert res.code == 0, res.err
    expect(page.locator("#microdata-reduction-text")).to_have_text(json.loads(res.out)["reduction"])
    expect(page.locator("#microdata-download_released")).to_be_visible()
