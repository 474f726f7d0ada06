"""Fixtures of the app's browser tests: the app on a free loopback port, and pages that may not leave it.

``app_url`` runs ``privrisk.app.server.build_app`` under uvicorn in a background thread for the test module;
``page`` is a new Playwright page in its own browser context (its own session) that aborts and records every
request to a host other than the app's, and fails the test if there was one. Waits are for states, with the
ceilings of ``browser_helpers`` (``WAIT_MS``, ``RUN_MS``). ``screenshot`` saves to the test's temporary folder, or
to the folder in ``PRIVRISK_SCREENSHOTS`` when ``scripts/screenshots.py`` runs the tests to make the docs' images.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from browser_helpers import WAIT_MS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Set by scripts/screenshots.py: where the screenshots of the docs go. Unset, they go to tmp_path.
SCREENSHOTS_ENV = "PRIVRISK_SCREENSHOTS"

pytestmark = pytest.mark.browser


class RunningApp:
    """The app under uvicorn in a thread: ``url``, the uvicorn ``server``, its ``ledger``, ``stop()``.

    The ledger is a file in a temporary folder of its own (removed by ``stop()``), never the user's own.
    """

    def __init__(
        self, *, max_upload: int = 500 * 1000**2, host: str = "127.0.0.1", ledger: Path | None = None, key=None
    ) -> None:
        import uvicorn
        from shiny.reactive import _core

        from privrisk.app.server import bound_url, build_app

        self.folder = Path(tempfile.mkdtemp(prefix="privrisk-test-app-"))
        self.ledger = ledger if ledger is not None else self.folder / "ledger.json"

        # Shiny's reactive lock is one per process and binds to the first event loop that waits on it; each test
        # module's server runs a loop of its own (a waiting ExtendedTask then raised "bound to a different event
        # loop" and the Risk page's accountant never answered). A server of its own gets a lock of its own.
        _core._reactive_environment._lock = None
        app = build_app(max_upload=max_upload, ledger=self.ledger, key=key)
        config = uvicorn.Config(app, host=host, port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + WAIT_MS / 1000
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the app did not start")
            time.sleep(0.02)
        self.url = bound_url(self.server)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def running_app():
    """The app, running for the test module."""
    running = RunningApp()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def start_app():
    """``start_app(max_upload=…)``: another app for the module (e.g. with a small upload limit)."""
    started: list[RunningApp] = []

    def start(**options) -> RunningApp:
        started.append(RunningApp(**options))
        return started[-1]

    yield start
    for running in started:
        running.stop()


@pytest.fixture(scope="module")
def app_url(running_app) -> str:
    """The app's address, ``http://127.0.0.1:<port>/``."""
    return running_app.url


class Guard:
    """Counts the requests of a page; any to another host than the app's is aborted and recorded."""

    def __init__(self, app_url: str) -> None:
        self.origin = urlsplit(app_url).netloc
        self.foreign: list[str] = []
        self.errors: list[str] = []
        self.count = 0

    def route(self, route) -> None:
        self.count += 1
        url = route.request.url
        if urlsplit(url).netloc == self.origin or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()


def open_page(browser, app_url: str, *, width: int = 1200):
    """A new browser context and page guarded by a :class:`Guard`; returns (context, page, guard)."""
    guard = Guard(app_url)
    context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.route("**/*", guard.route)
    page.on("pageerror", lambda e: guard.errors.append(str(e)))
    page.guard = guard  # type: ignore[attr-defined]
    return context, page, guard


@pytest.fixture
def page(browser, app_url):
    """A Playwright page on its own browser context; fails the test on a request to another host."""
    context, pg, guard = open_page(browser, app_url)
    yield pg
    context.close()
    assert guard.foreign == [], f"requests left the machine: {guard.foreign}"
    assert guard.errors == [], f"JavaScript errors: {guard.errors}"


def _goto(page, app_url: str, query: str = "") -> None:
    page.goto(app_url + (f"?{query}" if query else ""))
    page.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'")
    _wait_idle(page)


def _wait_idle(page) -> None:
    page.wait_for_function("() => !document.documentElement.classList.contains('shiny-busy')")


@pytest.fixture
def goto(app_url):
    """``goto(page, "page=risk&epsilon=ln3")``: open the app at that query and wait until Shiny is idle."""
    return lambda page, query="": _goto(page, app_url, query)


@pytest.fixture
def wait_idle():
    """``wait_idle(page)``: wait until Shiny has no output being recalculated."""
    return _wait_idle


@pytest.fixture
def screenshot(tmp_path):
    """``screenshot(page, id)``: save the page as <id>.png in tmp_path (or in $PRIVRISK_SCREENSHOTS, whole)."""
    folder = (
        Path(os.environ[SCREENSHOTS_ENV]) if os.environ.get(SCREENSHOTS_ENV) else tmp_path / "screenshots"
    )

    def save(page, page_id: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{page_id}.png"
        partial = folder / f".{page_id}.png.partial"
        # Written whole or not at all: the docs never show half an image.
        partial.write_bytes(page.screenshot(full_page=True))
        partial.replace(target)

    return save


@pytest.fixture
def new_page(browser, app_url):
    """``new_page()``: another guarded page in its own browser context (another session); checked at teardown."""
    opened = []

    def make():
        context, pg, guard = open_page(browser, app_url)
        opened.append((context, guard))
        return pg

    yield make
    for context, guard in opened:
        context.close()
        assert guard.foreign == [], f"requests left the machine: {guard.foreign}"
        assert guard.errors == [], f"JavaScript errors: {guard.errors}"


def _upload(page, input_id: str, path) -> None:
    page.locator(f"#{input_id}").set_input_files(str(path))
    expect(page.locator(f"#{input_id}_progress")).to_contain_text("Upload complete")


@pytest.fixture
def upload():
    """``upload(page, "release-file", path)``: upload a file to a file input and wait until it arrived."""
    return _upload


@pytest.fixture
def examples() -> Path:
    """The repository's examples/ folder (the files the tests upload)."""
    return EXAMPLES
