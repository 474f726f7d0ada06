"""Opening HTML pages offline in headless Chromium (Debian's), driven by Playwright: shared by the browser tests.

The ``browser`` fixture (in conftest.py) skips only when Chromium is missing and the environment variable CI is
unset: in CI a missing Chromium is a failure.

A browser test waits for a state, never for a time. Every wait has a ceiling far above what it takes on an idle
machine, so that a loaded one (the whole suite on 2 cores beside other work) only makes it slower, never failing:
:data:`WAIT_MS` for anything a page shows (Playwright's ``expect`` and every action, instead of its 5 s and 30 s),
:data:`RUN_MS` for a computation the page runs. Screenshots go to the test's temporary folder, never into the
repository (``scripts/screenshots.py`` makes the ones in docs/images/app/).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("PRIVRISK_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 60_000
RUN_MS = 300_000
# A number shown in e-notation (1.19566e-05, 2E+3, 3e4; issue 22, item 4), standing as a word: a temporary folder
# named like "v3e11v5g" in a shown path is not one (it failed CI at stop 44).
E_NOTATION = re.compile(r"(?<![^\W\d_])\d+(?:[.,]\d+)?[eE][-+]?\d+(?![^\W\d_])")
# 0.0%, 0.0 %, 0,00 % (German): a risk rounded to zero; "10.0 %" and "0.05 %" are not.
ZERO_PERCENT = re.compile(r"(?<![\d.,])0[.,]0+\s?%")


class Opened:
    """A page opened offline: every request other than the file itself is aborted and recorded."""

    def __init__(self, browser, path: Path, *, width: int = 1000):
        self.url = path.resolve().as_uri()
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.folder = path.resolve().parent
        self.context = browser.new_context(viewport={"width": width, "height": 900}, offline=True)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.page.route("**/*", self._route)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def _route(self, route):
        if route.request.url == self.url:
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def assert_clean(self):
        assert self.blocked == [], f"requests left the file: {self.blocked}"
        assert self.errors == [], f"console errors: {self.errors}"

    def shot(self, name: str):
        """Save the page as ``name`` beside the opened file (the test's temporary folder)."""
        self.page.screenshot(path=str(self.folder / name), full_page=True)

    def close(self):
        self.context.close()


def launch_browser():
    """Yield a headless Chromium, or skip (outside CI) / fail (in CI) when it cannot be had."""
    if not Path(CHROMIUM).exists():
        message = f"Chromium not found at {CHROMIUM}"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI must run the browser tests (install Debian's chromium)")
        pytest.skip(message)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:  # pragma: no cover - playwright is in the test extra
        if os.environ.get("CI"):
            pytest.fail("playwright is not installed; CI must run the browser tests")
        pytest.skip("playwright is not installed")
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


# The Outputs page's example: a group of one (West, f, 18) that Table 1 and Table 3 give away by differencing.
_OUTPUTS_ROWS = [("West", "f", 18)] + [(r, s, 30) for r in ("West", "East") for s in "fm" for _ in range(12)]
OUTPUTS_DATA = "region,sex,age\n" + "".join(f"{r},{s},{a}\n" for r, s, a in _OUTPUTS_ROWS)
OUTPUTS_SPEC = """[[output]]
name = "Table 1"
kind = "count"
rows = ["region"]
columns = ["sex"]
margins = true

[[output]]
name = "Table 3"
kind = "count"
rows = ["region"]
columns = ["sex"]
where = "age >= 19"
"""


def one_ledger_for_releases_and_outputs() -> bool:
    """Whether the library keeps releases and outputs in one ledger (issue 30, item 1): an output check reads a
    ledger that holds a release. Until it does, the app's Outputs page refuses the ledger a release has written."""
    import tempfile

    import pandas as pd

    from privrisk.errors import PrivriskError
    from privrisk.outputs import OutputSpec, OutputsSettings, run_outputs
    from privrisk.release.ledger import record_release

    with tempfile.TemporaryDirectory() as folder:
        ledger = Path(folder) / "ledger.json"
        record_release(ledger, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
        spec = (OutputSpec(name="P", kind="count", rows=("region",)),)
        try:
            run_outputs(OutputsSettings(data=pd.DataFrame({"region": ["N"] * 12}), spec=spec, ledger=ledger))
        except PrivriskError:
            return False
    return True
