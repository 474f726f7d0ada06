"""The app's frame: it starts, serves every page from the machine only, and listens on loopback."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from privrisk.app.pages import PAGES

pytestmark = pytest.mark.browser


def test_every_page_opens_from_its_url_without_leaving_the_machine(page, goto):
    for p in PAGES:
        goto(page, f"page={p.ID}")
        expect(page.locator(f".nav-link[data-value='{p.ID}']")).to_have_class(re.compile(r"\bactive\b"))


def test_the_server_listens_on_loopback_only(running_app):
    sockets = running_app.server.servers[0].sockets
    assert sockets
    for sock in sockets:
        assert sock.getsockname()[0] == "127.0.0.1"
