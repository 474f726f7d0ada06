"""The Explain page: the numbers of ``privrisk explain --json``, the preview, and a download that is byte for byte
the file ``privrisk explain --out`` writes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from privrisk.cli import main

pytestmark = pytest.mark.browser


def cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("lang", "n"), [("en", 100), ("de", None)])
def test_the_page_is_the_command_lines(page, goto, capsys, tmp_path, lang, n):
    target = tmp_path / "cli.html"
    args = ["explain", "--epsilon", "ln3", "--lang", lang, "--compare", "ln2,ln7", "--out", target, "--json"]
    if n:
        args += ["--n", n]
    code, out, _ = cli(capsys, *args)
    assert code == 0
    doc = json.loads(out)
    goto(page, f"page=explain&epsilon=ln3&lang={lang}&compare=ln2,ln7" + (f"&n={n}" if n else ""))
    expect(page.locator("#explain-paragraph-text")).to_have_text(doc["paragraph"])
    # Mehner et al., Table 1: at ε = ln 3 the attacker is right about 75 times in 100.
    expect(page.locator("#explain-shown")).to_contain_text(doc["shown"]["risk"])
    assert doc["shown"]["risk"] in ("about 75", "etwa 75")
    frame = page.frame_locator("#explain-preview-frame")
    expect(frame.locator("html")).to_have_attribute("lang", lang)
    expect(frame.locator("#risk-icons .person.guess")).to_have_count(50)
    with page.expect_download() as info:
        page.get_by_text("Download the page (one HTML file)").click()
    saved = tmp_path / "app.html"
    info.value.save_as(saved)
    assert saved.read_bytes() == target.read_bytes()


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        # The page names an input by its label (privrisk/app/_labels.py), never by the command line's option.
        ("epsilon=0", "epsilon", "Privacy loss ε: "),
        ("epsilon=ln3&n=1", "n", "Number of people n: "),
        ("epsilon=ln3&n=abc", "n", "Number of people n: 'abc' is not a whole number"),
        ("epsilon=ln3&compare=x", "compare", "Other ε to show: "),
    ],
)
def test_bad_input_shows_the_message_next_to_the_input(page, goto, query, field, message):
    goto(page, f"page=explain&{query}")
    expect(page.locator(f"#explain-{field}_error .privrisk-error")).to_contain_text(message)
    expect(page.locator("#explain-preview-frame")).to_have_count(0)
    page.locator(f"#explain-{field}").fill({"epsilon": "1", "n": "10", "compare": "ln2"}[field])
    page.locator(f"#explain-{field}").press("Enter")
    expect(page.locator("#explain-preview-frame")).to_have_count(1)
    expect(page.locator(".privrisk-error")).to_have_count(0)


def test_screenshot(page, goto, screenshot):
    goto(page, "page=explain&epsilon=ln3&n=100&lang=de")
    expect(page.frame_locator("#explain-preview-frame").locator("h1")).to_be_visible()
    screenshot(page, "explain")
