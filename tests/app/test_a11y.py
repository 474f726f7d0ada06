"""The app's accessible frame, checked in Chromium: axe-core finds no serious or critical violation on any page;
``lang``, a title and one h1 per page, ``main`` and ``nav`` landmarks; and at phone size (390 × 844) the menu
closes after a choice and the Risk page's inputs stand in reach, not behind an overlay.

axe-core's ``axe.min.js`` comes from the PyPI package ``axe-playwright-python`` (the test extra), injected into
the page as an inline script: nothing is fetched from another host.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest
from playwright.sync_api import expect

from privrisk.app.pages import PAGES

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def axe_script() -> str:
    axe = pytest.importorskip("axe_playwright_python")
    return (resources.files(axe) / "axe.min.js").read_text(encoding="utf-8")


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is (rule: the first offending element)."""
    # Outputs fading while Shiny recalculates would be measured at half opacity: wait until none is.
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.recalculating')).every(e => e.offsetParent === null)"
    )
    page.add_script_tag(content=axe_script())
    # A download link Shiny has not bound yet is drawn faded with the class "disabled": an inactive control, which
    # WCAG 1.4.3 exempts from the contrast rule; the same link, bound, is measured as soon as it is.
    result = page.evaluate(
        """async () => await axe.run(
               {include: [document], exclude: [['a.shiny-download-link.disabled']]},
               {resultTypes: ['violations']})"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {v['nodes'][0]['target']}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("page_id", [p.ID for p in PAGES])
def test_every_page_has_its_landmarks_labels_and_no_serious_axe_violation(page, goto, page_id):
    """One load of each page for all three checks (three tests loaded every page three times): ``lang``, the
    title, one h1 inside ``main``, ``nav``, no jumped heading level and no id twice; a label on every control, the
    file boxes' text fields too (issue 30: "No file selected" had none); and axe-core's serious violations."""
    title = next(p.TITLE for p in PAGES if p.ID == page_id)
    goto(page, f"page={page_id}")
    assert page.locator("html").get_attribute("lang") == "en"
    expect(page).to_have_title(f"{title} — privrisk")
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("h1")).to_have_text(f"{title} — privrisk")
    expect(page.locator("[role=main], main")).to_have_count(1)
    expect(page.locator("nav")).to_have_count(1)
    # Issue 30: the h1 inside a landmark, headings without a jumped level, and every id once.
    expect(page.locator("[role=main] h1, main h1")).to_have_count(1)
    assert heading_jumps(page) == []
    assert duplicate_ids(page) == []
    assert unlabelled_controls(page) == []
    boxes = page.locator(".tab-pane.active .input-group input[type='text'][readonly]")
    for i in range(boxes.count()):
        assert boxes.nth(i).get_attribute("aria-label").endswith(": the file chosen")
    # Shiny draws a download button faded ("disabled") until the server has bound it: axe must see the page as
    # the user does once it has settled, not that first frame.
    page.wait_for_function(
        """() => !document.documentElement.classList.contains('shiny-busy')
                 && document.querySelectorAll('.tab-pane.active a.shiny-download-link.disabled').length === 0"""
    )
    assert serious_violations(page) == []


HEADING_JUMPS_JS = """() => {
  const shown = Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
    .filter(h => h.closest('.tab-pane') === null || h.closest('.tab-pane.active') !== null);
  const jumps = [];
  let level = 0;
  for (const h of shown) {
    const next = Number(h.tagName[1]);
    if (next > level + 1) { jumps.push(`h${level} → ${h.tagName.toLowerCase()}: ${h.textContent.trim().slice(0, 40)}`); }
    level = next;
  }
  return jumps;
}"""

DUPLICATE_IDS_JS = """() => {
  const seen = {};
  document.querySelectorAll('[id]').forEach(e => { seen[e.id] = (seen[e.id] || 0) + 1; });
  return Object.keys(seen).filter(id => seen[id] > 1);
}"""


def heading_jumps(page) -> list[str]:
    """Headings of the page as shown (the active tab) that go down more than one level at once."""
    return page.evaluate(HEADING_JUMPS_JS)


def duplicate_ids(page) -> list[str]:
    """Ids that more than one element of the document carries (``microdata-reduction`` did)."""
    return page.evaluate(DUPLICATE_IDS_JS)


def test_the_title_follows_the_tab(page, goto):
    goto(page, "page=risk")
    explain = next(p for p in PAGES if p.ID == "explain")
    page.locator(".nav-link[data-value='explain']").click()
    expect(page).to_have_title(f"{explain.TITLE} — privrisk")
    expect(page.locator("h1")).to_have_text(f"{explain.TITLE} — privrisk")


def unlabelled_controls(page) -> list[str]:
    """Inputs and selects of the active page with neither a label nor an ARIA name."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.tab-pane.active input, .tab-pane.active select'))
              .filter(e => e.type !== 'hidden' && !e.classList.contains('irs-hidden-input'))
              .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                           && !e.getAttribute('aria-labelledby'))
              // selectize hides the select it replaces (class selectized) and labels its own field instead
              .filter(e => !e.classList.contains('selectized'))
              .map(e => e.id || e.name || e.outerHTML.slice(0, 80))"""
    )


def _focus_ring(locator) -> str:
    """The element's outline or box shadow while focused ('' when it draws none)."""
    return locator.evaluate(
        """e => { const s = getComputedStyle(e);
                  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? s.outlineStyle : '';
                  return outline || (s.boxShadow !== 'none' ? s.boxShadow : ''); }"""
    )


def test_the_slider_and_the_selectize_fields_show_a_focus_ring(page, goto):
    """Issue 30: no visible focus on the ε slider or on a selectize field (keyboard users lost their place)."""
    goto(page, "page=risk")
    line = page.locator("#risk-epsilon_slider").locator("xpath=..").locator(".irs-line")
    line.focus()
    assert _focus_ring(line) != ""
    handle = page.locator("#risk-epsilon_slider").locator("xpath=..").locator(".irs-handle").first
    assert _focus_ring(handle) != ""
    goto(page, "page=presence")
    field = page.locator("#presence-qi + .selectize-control .selectize-input")
    field.locator("input").focus()
    expect(field).to_have_class(re.compile(r"\bfocus\b"))
    assert _focus_ring(field) != ""
    page.keyboard.press("Escape")


def test_the_release_set_up_comes_before_preview_in_the_keyboard_order(page, goto):
    """Issue 30: Tab reached "Preview the release" before the fields of "1. Set up" (a sidebar layout puts its
    main column first in the document)."""
    goto(page, "page=release")
    order = page.evaluate(
        """() => {
            const tabbable = Array.from(document.querySelectorAll('.tab-pane.active input, .tab-pane.active select,'
                + ' .tab-pane.active button, .tab-pane.active textarea'))
              .filter(e => !e.disabled && e.offsetParent !== null && e.tabIndex >= 0);
            return tabbable.map(e => e.id);
        }"""
    )
    assert order.index("release-example") < order.index("release-preview")
    assert order.index("release-budget") < order.index("release-preview")


@pytest.fixture
def phone(browser, app_url):
    from tests.app.conftest import open_page

    context, pg, guard = open_page(browser, app_url)
    pg.set_viewport_size(PHONE)
    yield pg
    context.close()
    assert guard.foreign == [] and guard.errors == []


def test_on_a_phone_the_menu_closes_after_a_choice(phone, goto):
    goto(phone, "page=risk")
    toggler = phone.locator(".navbar-toggler")
    expect(toggler).to_be_visible()
    toggler.click()
    menu = phone.locator(".navbar-collapse")
    expect(menu).to_have_class(re.compile(r"\bshow\b"))
    phone.locator(".nav-link[data-value='explain']").click()
    expect(menu).not_to_have_class(re.compile(r"\bshow\b"))
    expect(phone).to_have_title(re.compile(r"— privrisk$"))


def test_on_a_phone_the_risk_inputs_are_in_reach_and_the_result_visible(phone, goto, wait_idle):
    goto(phone, "page=risk&epsilon=ln3&n=10")
    epsilon = phone.locator("#risk-epsilon")
    expect(epsilon).to_be_visible()
    # nothing lies over the field: a click at its centre reaches it
    box = epsilon.bounding_box()
    hit = phone.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).id", [box["x"] + box["width"] / 2, box["y"] + 5]
    )
    assert hit == "risk-epsilon"
    epsilon.fill("ln 9")
    epsilon.press("Enter")
    verdict = phone.locator("#risk-verdict")
    expect(verdict).to_contain_text("possible data sets")
    wait_idle(phone)
    # Shiny may redraw the verdict between finding and scrolling it: scroll whichever element is there now,
    # until it stands in the viewport (a state, polled; no fixed wait).
    phone.wait_for_function(
        """() => {
            const v = document.getElementById('risk-verdict');
            if (!v) return false;
            v.scrollIntoView({block: 'center'});
            const r = v.getBoundingClientRect();
            return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
        }"""
    )
    expect(verdict).to_be_in_viewport()


def test_on_a_phone_the_sidebar_closes_when_the_result_comes(phone, goto):
    # The Audit page's example (as in test_audit.py): its inputs lie in a sidebar over the page on a phone.
    goto(phone, "page=audit")
    layout = phone.locator(".tab-pane.active .bslib-sidebar-layout").first
    run = phone.locator("#audit-run")
    if not run.is_visible():
        layout.locator(":scope > .collapse-toggle").click()
    expect(run).to_be_visible()
    run.click()
    expect(phone.locator("#audit-verdict")).to_be_visible(timeout=120_000)
    expect(layout).to_have_class(re.compile(r"\bsidebar-collapsed\b"))
    phone.locator("#audit-verdict").scroll_into_view_if_needed()
    expect(phone.locator("#audit-verdict")).to_be_in_viewport()
