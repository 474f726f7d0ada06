"""The app's frame: every page from its URL, no request leaving the machine, loopback only by default, the
network warning, the upload limit, the sessions kept apart, and ``privrisk app`` itself."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from browser_helpers import WAIT_MS
from privrisk._validation import parse_size
from privrisk.app.pages import PAGES
from privrisk.app.server import is_loopback, network_warning
from privrisk.errors import PrivriskError

pytestmark = pytest.mark.browser


def test_every_page_opens_from_its_url_and_nothing_leaves_the_machine(page, goto):
    ids = [p.ID for p in PAGES]
    assert ids[0] == "risk" and ids[-1] == "explain" and len(set(ids)) == len(ids)
    for p in PAGES:
        goto(page, f"page={p.ID}")
        expect(page.locator(f".nav-link[data-value='{p.ID}']")).to_have_class(re.compile(r"\bactive\b"))
        expect(page.locator(".tab-pane.active h2")).to_be_visible()
    guard = page.guard
    # Every script, style sheet and font came from the app (the fixture fails on any other host).
    assert guard.count > 10 and guard.foreign == []


def test_moving_to_another_tab_puts_it_in_the_address(page, goto):
    goto(page, "page=risk&epsilon=2")
    page.locator(".nav-link[data-value='explain']").click()
    page.wait_for_url(re.compile(r"\?page=explain$"))


def test_an_unknown_page_opens_the_first(page, goto):
    goto(page, "page=nosuch")
    expect(page.locator(".nav-link[data-value='risk']")).to_have_class(re.compile(r"\bactive\b"))


def test_the_server_listens_on_loopback_only(running_app):
    sockets = running_app.server.servers[0].sockets
    assert sockets
    assert all(sock.getsockname()[0] == "127.0.0.1" for sock in sockets)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True), ("0.0.0.0", False),
     ("::", False), ("192.168.1.5", False), ("example.org", False)],
)  # fmt: skip
def test_which_hosts_are_loopback(host, loopback):
    assert is_loopback(host) is loopback
    assert (network_warning(host) is None) is loopback


@pytest.mark.parametrize(
    ("text", "size"),
    [("500MB", 500_000_000), ("2GB", 2_000_000_000), ("100k", 100_000), ("1MiB", 1 << 20), ("7", 7)],
)
def test_sizes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "-1MB", "5x", "MB", "nan"])
def test_bad_sizes(text):
    with pytest.raises(PrivriskError, match=r"^max_upload: "):
        parse_size(text)


def _start(*args: str):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "privrisk", "app", "--port", "0", "--no-browser", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines = []
    for line in proc.stderr:
        lines.append(line.strip())
        if line.startswith("privrisk app on "):
            break
    return proc, lines


def _stop(proc) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=WAIT_MS / 1000)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_privrisk_app_listens_on_loopback_and_serves_the_page(tmp_path):
    proc, lines = _start("--ledger", str(tmp_path / "ledger.json"))
    try:
        url = lines[-1].removeprefix("privrisk app on ").split()[0]
        # The terminal says where the ledger is (issue 30): every session charges that file.
        assert lines[-1].endswith(f"; ledger: {tmp_path / 'ledger.json'}")
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        assert not any("warning" in line for line in lines)
        with urllib.request.urlopen(url, timeout=WAIT_MS / 1000) as response:
            assert b"privrisk" in response.read()
    finally:
        _stop(proc)


def test_privrisk_app_on_all_interfaces_prints_the_warning(tmp_path):
    proc, lines = _start("--host", "0.0.0.0", "--ledger", str(tmp_path / "ledger.json"))
    try:
        assert any(
            line.startswith("privrisk: warning: listening on 0.0.0.0: the app and any data uploaded to it are "
                            "reachable from the network") for line in lines
        ), lines  # fmt: skip
    finally:
        _stop(proc)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-upload", "lots"], "--max-upload: 'lots' is not a size"),
        (["--port", "70000"], "--port: must be"),
        (["--ledger", "/nonexistent-folder/ledger.json"], "--ledger: the folder /nonexistent-folder does not exist"),
        (["--ledger", "/"], "--ledger: / is a folder"),
        (["--ledger-key", "/nonexistent.key"], "--ledger-key: cannot read /nonexistent.key"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(cli, args, message):
    result = cli("app", "--no-browser", *args)
    assert result.code == 2
    assert result.err.startswith(f"privrisk: error: {message}") and result.err.count("\n") == 1


LIMIT = 2_000


@pytest.fixture(scope="module")
def small_app(start_app):
    return start_app(max_upload=LIMIT)


def test_an_upload_above_the_limit_is_refused_with_a_clear_message(browser, small_app, tmp_path, examples):
    big = tmp_path / "big.csv"
    big.write_text("x\n" + "\n".join(str(i) for i in range(1000)) + "\n")
    assert big.stat().st_size > LIMIT
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(small_app.url + "?page=sensitivity")
        page.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'")
        page.locator("#sensitivity-file").set_input_files(str(big))
        expect(page.locator("#sensitivity-file_progress")).to_contain_text("above the upload limit of 2 kB")
        # the app keeps running: a small file goes through
        page.locator("#sensitivity-file").set_input_files(str(examples / "distance_work.csv"))
        expect(page.locator("#sensitivity-value-global_sensitivity")).to_have_text("337")
    finally:
        context.close()


def test_the_upload_limit_refuses_before_anything_is_written(small_app):
    request = urllib.request.Request(
        small_app.url + "session/x/upload/y?w=", data=b"0" * (LIMIT + 1), method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=WAIT_MS / 1000)
    assert info.value.code == 413
    assert info.value.read().decode() == "the file is above the upload limit of 2 kB"


def test_a_forged_path_is_never_opened(tmp_path):
    from privrisk.app._shared import read_upload

    secret = tmp_path / "0.csv"
    secret.write_text("a\n1\n")
    with pytest.raises(PrivriskError, match="not an upload of this session"):
        read_upload([{"name": "x.csv", "datapath": str(secret)}], max_bytes=LIMIT)
    with pytest.raises(PrivriskError, match="no file uploaded yet"):
        read_upload(None, max_bytes=LIMIT)


class _StubSession:
    """What session_folder needs of a Shiny session: a root and on_ended."""

    def __init__(self):
        self.ended = []

    def root_scope(self):
        return self

    def on_ended(self, callback):
        self.ended.append(callback)


def test_a_sessions_folder_is_private_and_removed_when_it_ends():
    from privrisk.app._shared import session_folder

    one, two = _StubSession(), _StubSession()
    a, b = session_folder(one), session_folder(two)
    assert a != b and session_folder(one) == a  # one folder per session, made once
    assert (a.stat().st_mode & 0o777) == 0o700
    (a / "ledger.json").write_text("{}")
    for callback in one.ended:
        callback()
    assert not a.exists() and b.exists()
    for callback in two.ended:
        callback()
    assert not b.exists()
