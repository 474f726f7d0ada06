"""The app's frame: the pages of :data:`privrisk.app.pages.PAGES` in a navigation bar, the upload limit, serving.

``?page=<id>`` selects the page a URL opens on; the other query parameters preset that page's inputs (named like
the command line's options). Everything the browser loads comes from the installed Shiny package and from this
package: no CDN, no web fonts.

Example:
    >>> app = build_app(max_upload=10_000_000)
    >>> from shiny import App
    >>> isinstance(app, App)
    True
"""

from __future__ import annotations

import functools
import ipaddress
import os
import signal
import threading
import warnings
import webbrowser
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from privrisk.app import _source_refs
from privrisk.app._sessions import (
    DEFAULT_MAX_UPLOAD,
    AppSettings,
    attach_settings,
    default_ledger,
    ledger_location,
    remove_session_folders,
    session_folder,
)
from privrisk.app._uploads import format_bytes
from privrisk.app.pages import PAGES
from privrisk.errors import PrivacyLeakWarning

__all__ = [
    "LocalOnly",
    "UploadLimit",
    "bound_url",
    "build_app",
    "host_allowed",
    "is_loopback",
    "network_warning",
    "serve",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_CSS = """
.privrisk-error { font-weight: 500; }
.privrisk-command { font-family: monospace; background: #f4f4f4; padding: .4em .6em; border-radius: 4px;
  white-space: pre-wrap; word-break: break-all; }
.privrisk-internal { border: 3px dashed #b00020; padding: .8em; background: #fff4f4; }
.privrisk-risk-table td, .privrisk-risk-table th { padding: .2em .6em; }
.privrisk-help { color: #555; font-size: .92em; }
/* Links inside help text: Bootstrap's link blue is 4.47:1 on the result panel's #fcfcfd, below WCAG's 4.5:1. */
.privrisk-help a, .privrisk-help .btn-link { color: #0a5c8c; }
/* A visible focus ring where Bootstrap draws none: the slider (its line takes the focus), the selectize fields and
   the file boxes (their file input is moved off screen, so the ring goes on its button). */
.irs-line:focus, .irs-line:focus-visible { outline: 3px solid #0a5c8c !important; outline-offset: 3px; }
.irs:has(.irs-line:focus) .irs-handle { box-shadow: 0 0 0 3px #0a5c8c; }
.selectize-input.focus { outline: 3px solid #0a5c8c !important; outline-offset: 1px; }
.btn-file:focus-within { outline: 3px solid #0a5c8c; outline-offset: 2px; }
"""


# The tab in the address bar (?page=<id>), so that a view can be bookmarked; the other presets belong to the first
# page the URL opened and are dropped.
_JS = """
// Sliders send their value while they move (every 50 ms) instead of Shiny's 250 ms after they stop, so the
// risks follow the ε slider live (the issue's 300 ms).
(function () {
  const names = window.Shiny && Shiny.inputBindings && Shiny.inputBindings.bindingNames;
  const slider = names && names["shiny.sliderInput"];
  if (slider) {
    slider.binding.getRatePolicy = function () { return {policy: "throttle", delay: 50}; };
  }
})();
$(function () {
  // The pages' container is the main landmark (the navigation bar is the nav landmark); Shiny builds the navbar
  // page itself, so the role is given here.
  const pages = document.querySelector(".tab-content[data-tabsetid='page']");
  if (pages) { pages.setAttribute("role", "main"); }
  // The page's one h1 stands inside the main landmark (Shiny puts the navbar page's header above it).
  const heading = document.getElementById("privrisk-h1");
  if (pages && heading) { pages.prepend(heading); }
  // A file box's text field ("No file selected") says which file it is for: its input's label.
  function labelFileBoxes() {
    document.querySelectorAll("input.shiny-input-file[id]").forEach(function (file) {
      const group = file.closest(".input-group");
      const box = group && group.querySelector("input[type='text'][readonly]");
      const label = document.getElementById(file.id + "-label");
      if (box && label && !box.hasAttribute("aria-label")) {
        box.setAttribute("aria-label", label.textContent.trim() + ": the file chosen");
      }
    });
  }
  labelFileBoxes();
  $(document).on("shiny:connected shiny:value", labelFileBoxes);
  Shiny.addCustomMessageHandler("privrisk-page", function (id) {
    const url = new URL(window.location.href);
    url.search = "?page=" + encodeURIComponent(id);
    window.history.replaceState(null, "", url);
  });
  // The tab names the page: the window's title and the page's one h1 follow it.
  $(document).on("shown.bs.tab", ".navbar a[data-bs-toggle='tab']", function (event) {
    const name = event.target.textContent.trim();
    document.title = name + " — privrisk";
    const h1 = document.getElementById("privrisk-h1");
    if (h1) { h1.textContent = name + " — privrisk"; }
    // On a phone the menu stays expanded over the page after a choice unless it is closed.
    const menu = document.querySelector(".navbar-collapse.show");
    if (menu && window.bootstrap) { bootstrap.Collapse.getOrCreateInstance(menu).hide(); }
  });
  // On a phone a page's sidebar lies over its result: close it when the result of a run arrives (the long pages'
  // "results" output), not while live numbers follow the inputs.
  $(document).on("shiny:value", function (event) {
    if (!/(^|-)results$/.test(event.name || "")) { return; }
    const layout = event.target.closest(".bslib-sidebar-layout");
    const Sidebar = window.bslib && window.bslib.Sidebar;
    if (!layout || !Sidebar) { return; }
    const size = getComputedStyle(layout).getPropertyValue("--bslib-sidebar-js-window-size").trim();
    const sidebar = Sidebar.getInstance(layout);
    if (size === "mobile" && sidebar && !sidebar.isClosed) { sidebar.toggle("close"); }
  });
  // bslib's sidebar resize handle is a focusable separator without a value until it is first dragged: screen
  // readers (and axe-core) need aria-valuenow, so it gets the sidebar's width from the start.
  function describeHandles() {
    document.querySelectorAll(".bslib-sidebar-resize-handle[role='separator']").forEach(function (handle) {
      if (handle.hasAttribute("aria-valuenow")) { return; }
      const sidebar = handle.parentElement && handle.parentElement.querySelector(":scope > .sidebar");
      const width = sidebar ? Math.round(sidebar.getBoundingClientRect().width) : 250;
      handle.setAttribute("aria-valuenow", String(width || 250));
      handle.setAttribute("aria-valuemin", "150");
      handle.setAttribute("aria-valuemax", String(Math.max(window.innerWidth - 50, 150)));
    });
  }
  $(document).on("shiny:connected", describeHandles);
  // ion.rangeSlider "clicks" its handle's position when the slider takes the keyboard focus, and the value read
  // back from that pixel is not the value shown (ln 3 became 1.18 on a narrow slider): tabbing past a slider
  // must not move it. Real clicks are bound to the original method when the slider is made; only the focus
  // handler looks the method up on the instance, so the instance's own copy ignores exactly that call.
  function calmSliders() {
    document.querySelectorAll("input.js-range-slider").forEach(function (el) {
      const slider = window.jQuery && jQuery(el).data("ionRangeSlider");
      if (!slider || slider.privriskCalm) { return; }
      const click = slider.pointerClick;
      slider.pointerClick = function (target, event) {
        if (target === "single" && event && !event.originalEvent && !event.type) {
          // What the click would have set for the arrow keys, at the handle's own place: a key then moves the
          // value one step from where it is.
          this.current_plugin = this.plugin_count;
          this.target = "single";
          this.coords.p_gap = 0;
          this.coords.p_pointer = this.coords.p_single_fake;
          return;
        }
        return click.apply(this, arguments);
      };
      slider.privriskCalm = true;
    });
  }
  $(document).on("shiny:connected shiny:bound shiny:value", calmSliders);
  // Set once the server has sent the first results (tests and scripts wait for it).
  Shiny.addCustomMessageHandler("privrisk-ready", function (ready) {
    describeHandles();
    document.documentElement.dataset.privriskReady = ready ? "1" : "0";
  });
});
"""


class UploadLimit:
    """ASGI middleware refusing an upload above ``max_bytes`` before Shiny writes it to disk (HTTP 413), and any
    upload once the session has uploaded ``max_bytes`` in all (so twenty files just under the limit are not).

    Shiny's browser code posts each file to ``/session/<id>/upload/<job>``; the declared length is checked first
    and the streamed body is counted, so a client that lies about the length is cut off as well. The bytes are
    counted per session (the ``<id>``); :meth:`forget` drops a session's count when it ends.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.totals: dict[str, int] = {}

    def forget(self, session_id: str) -> None:
        """Drop the count of a session that ended."""
        self.totals.pop(session_id, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope.get("type") != "http" or scope.get("method") != "POST" or "/upload/" not in path:
            await self.app(scope, receive, send)
            return
        session_id = _upload_session(path)
        before = self.totals.get(session_id, 0)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > self.max_bytes:
                await self._refuse(send, self._message(False))
                return
            if before + int(declared) > self.max_bytes:
                await self._refuse(send, self._message(True))
                return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes or before + seen > self.max_bytes:
                    raise _TooLarge(seen <= self.max_bytes)
            return message

        try:
            await self.app(scope, counting_receive, send)
        except _TooLarge as exc:
            await self._refuse(send, self._message(bool(exc.args[0])))
        finally:
            if session_id:
                self.totals[session_id] = before + seen

    def _message(self, in_all: bool) -> str:
        limit = format_bytes(self.max_bytes)
        if in_all:
            return (
                f"this session has uploaded the most it may in all ({limit}, the upload limit); "
                "reload the page to start a new session"
            )
        return f"the file is above the upload limit of {limit}"

    async def _refuse(self, send: Send, text: str) -> None:
        body = text.encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", b"%d" % len(body)),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _upload_session(path: str) -> str:
    """The session id of Shiny's upload URL ``…/session/<id>/upload/<job>`` ('' if the path has none)."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-2]):
        if part == "session" and parts[i + 2] == "upload":
            return parts[i + 1]
    return ""


class _TooLarge(Exception):
    pass


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _split_host(value: str) -> tuple[str, int | None]:
    """``name`` and port of a Host header (``[::1]:8000`` → ``("[::1]", 8000)``); port None if absent."""
    value = value.strip().lower()
    name, sep, port = value.rpartition(":")
    if not sep or name.endswith("[") or (":" in name and not name.startswith("[")) or value.endswith("]"):
        return value, None
    return name, int(port) if port.isdigit() else -1


def host_allowed(host_header: str, port: int, extra: tuple[str, ...] = ()) -> bool:
    """Whether a request's ``Host`` header names this app: a loopback name (or one of ``extra``) and its port.

    Refusing every other name defeats DNS rebinding: a web page whose name was rebound to 127.0.0.1 sends its own
    name in ``Host``.

    Example:
        >>> host_allowed("127.0.0.1:8000", 8000), host_allowed("localhost:8000", 8000)
        (True, True)
        >>> host_allowed("evil.example:8000", 8000), host_allowed("localhost:9999", 8000)
        (False, False)
        >>> host_allowed("[::1]:8000", 8000), host_allowed("box.lan:8000", 8000, ("box.lan",))
        (True, True)
    """
    name, given = _split_host(host_header)
    names = {*LOOPBACK_NAMES, *(_bracketed(h.lower()) for h in extra)}
    return name in names and (given == port or (given is None and port == 80))


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class LocalOnly:
    """ASGI middleware: only this machine's pages (or the host named with ``hosts``) may talk to the app.

    Every HTTP request and WebSocket whose ``Host`` header is not a loopback name or one of ``hosts`` with the
    port the server listens on is refused (HTTP 421, WebSocket closed before it is accepted): DNS rebinding.
    A WebSocket, and any other request, whose ``Origin`` header is present and is not the app's own address is
    refused too (HTTP 403): cross-site WebSocket hijacking. A request without ``Origin`` passes when its ``Host`` is
    allowed: browsers always send ``Origin`` on a WebSocket, so only programs on this machine omit it. Every HTTP
    answer carries :data:`FRAME_HEADERS`: no other site may frame the app.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], hosts: tuple[str, ...] = ()) -> None:
        self.app = app
        self.hosts = tuple(h for h in hosts if h)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if kind == "http":
            send = _framed(send)
        headers = {k.lower(): v for k, v in scope.get("headers") or []}
        server = scope.get("server") or (None, None)
        port = server[1] if server[1] is not None else 80
        host = headers.get(b"host", b"").decode("latin-1")
        if not host_allowed(host, port, self.hosts):
            await self._refuse(scope, receive, send, 421, "this app answers only on this machine's addresses")
            return
        origin = headers.get(b"origin")
        if origin is not None and not self._own_origin(origin.decode("latin-1"), port):
            await self._refuse(scope, receive, send, 403, "requests from other sites are refused")
            return
        await self.app(scope, receive, send)

    def _own_origin(self, origin: str, port: int) -> bool:
        from urllib.parse import urlsplit

        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and host_allowed(parts.netloc, port, self.hosts)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, text: str) -> None:
        if scope["type"] == "websocket":
            # Closing before accepting makes the server answer the handshake with HTTP 403.
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        body = text.encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", b"%d" % len(body)),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


#: Headers of every HTTP answer: no other site may show the app in a frame (clickjacking: a page that lays the
#: app under its own buttons makes the user confirm a release they did not mean).
FRAME_HEADERS = ((b"content-security-policy", b"frame-ancestors 'none'"), (b"x-frame-options", b"DENY"))


def _framed(send: Send) -> Send:
    """``send`` adding :data:`FRAME_HEADERS` to the start of every HTTP response."""

    async def framed(message: Message) -> None:
        if message.get("type") == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers") or []}
            extra = [(k, v) for k, v in FRAME_HEADERS if k not in names]
            message = {**message, "headers": [*(message.get("headers") or []), *extra]}
        await send(message)

    return framed


def _page_ui(request: Any) -> Any:
    ids = [p.ID for p in PAGES]
    wanted = request.query_params.get("page") if request is not None else None
    return _built_ui(wanted if wanted in ids else ids[0])


@functools.lru_cache(maxsize=len(PAGES))
def _built_ui(selected: str) -> Any:
    """The whole page with ``selected`` open, built once per page: building every page's inputs took about a third
    of the server's answer to each ``GET /`` (the pages' layouts depend on nothing of the request but the page)."""
    from shiny import ui

    panels = [ui.nav_panel(p.TITLE, p.page_ui(p.ID), value=p.ID) for p in PAGES]
    name = next(p.TITLE for p in PAGES if p.ID == selected)
    return ui.page_navbar(
        *panels,
        id="page",
        selected=selected,
        title="privrisk",
        # The page's one h1 names it for screen readers; the visible heading is the page's own h2.
        header=ui.TagList(
            ui.tags.style(_CSS),
            ui.tags.script(_JS),
            ui.h1(f"{name} — privrisk", id="privrisk-h1", class_="visually-hidden"),
        ),
        fillable=False,
        window_title=f"{name} — privrisk",
        lang="en",
    )


@functools.cache
def _app_class() -> Any:
    """shiny's ``App``, rendering each page's document once instead of at every ``GET /``.

    ``_page_ui`` gives one of eleven fixed documents (``_built_ui``); shiny turned it into HTML again for every
    request, tagifying the whole tree (0.3–0.5 s of the server's time per page opened, a profile found). The
    document depends on nothing of the request but the page, so its HTML is kept with it.
    """
    from shiny import App

    class _RenderedOnce(App):
        def _render_page(self, ui: Any, lib_prefix: str) -> Any:
            kept: dict[tuple[int, str], tuple[Any, Any]] = self.__dict__.setdefault("_privrisk_rendered", {})
            key = (id(ui), lib_prefix)
            if key not in kept:  # the document is kept beside its HTML, so that its id is never reused
                kept[key] = (ui, super()._render_page(ui, lib_prefix))
            return kept[key][1]

    return _RenderedOnce


def build_app(
    *,
    max_upload: int = DEFAULT_MAX_UPLOAD,
    hosts: tuple[str, ...] = (),
    ledger: str | os.PathLike[str] | None = None,
    key: bytes | None = None,
) -> Any:
    """The Shiny app: one navigation tab per page of ``PAGES``; uploads limited to ``max_upload`` bytes a file and
    in all per session; every session's releases and output checks charged to the one ``ledger``.

    Args:
        max_upload: the largest upload (bytes), the most one session uploads in all, and the largest size an
            upload may expand to once decompressed.
        hosts: names besides the loopback ones the app answers to (``LocalOnly``).
        ledger: the ledger every session charges (created at the first release); default
            :func:`~privrisk.app._sessions.default_ledger`, in the user's data folder.
        key: the ledger's key, for a keyed ledger.

    Returns a :class:`shiny.App`; ``UploadLimit`` and ``LocalOnly`` wrap its Starlette application.
    """
    from shiny import reactive

    _source_refs.install()  # shiny's source references once per function, not once per session
    settings = AppSettings(
        max_upload=max_upload, ledger=Path(ledger) if ledger is not None else default_ledger(), key=key
    )
    limits: list[UploadLimit] = []

    def server(input: Any, output: Any, session: Any) -> None:
        attach_settings(session, settings)
        session_folder(session)  # made now, so that it is removed however the session ends
        for limit in limits:
            session.on_ended(functools.partial(limit.forget, session.id))
        for page in PAGES:
            page.page_server(page.ID, max_upload=max_upload)

        async def _ready() -> None:
            await session.send_custom_message("privrisk-ready", True)

        session.on_flushed(_ready, once=True)

        @reactive.effect
        @reactive.event(input.page, ignore_init=True)
        async def _remember_page() -> None:
            # Keep ?page= in the address bar in step with the tab, so the view can be bookmarked.
            await session.send_custom_message("privrisk-page", input.page())

    app = _app_class()(_page_ui, server)
    limits.append(UploadLimit(app.starlette_app, max_upload))
    app.starlette_app = LocalOnly(limits[0], hosts)
    return app


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only.

    Example:
        >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
        (True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def network_warning(host: str) -> str | None:
    """The warning :func:`serve` gives when the app listens on an address other machines can reach.

    Example:
        >>> network_warning("127.0.0.1") is None, network_warning("0.0.0.0").startswith("listening on 0.0.0.0:")
        (True, True)
    """
    if is_loopback(host):
        return None
    return (
        f"listening on {host}: the app and any data uploaded to it are reachable from the network; "
        "listen on 127.0.0.1 unless this machine's firewall restricts access"
    )


_WARM = ("pandas", "duckdb", "privrisk.io.data", "privrisk.sensitivity", "privrisk.posterior",
         "privrisk.accounting", "privrisk.release.mechanisms", "privrisk.reports.explain")  # fmt: skip


def _warm_up() -> None:
    import importlib

    for name in _WARM:
        try:
            importlib.import_module(name)
        except Exception:
            return


def bound_url(server: Any) -> str:
    """The address a started uvicorn server listens on (the real port when it was asked for port 0)."""
    sock = server.servers[0].sockets[0]
    host, port = sock.getsockname()[:2]
    shown = (
        "127.0.0.1"
        if host == "0.0.0.0"
        else "[::1]"
        if host == "::"
        else f"[{host}]"
        if ":" in host
        else host
    )
    return f"http://{shown}:{port}/"


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = True,
    max_upload: int | str = DEFAULT_MAX_UPLOAD,
    on_started: Callable[[str, Path], None] | None = None,
    ledger: str | os.PathLike[str] | None = None,
    key: bytes | None = None,
    *,
    key_file: str | os.PathLike[str] | None = None,
) -> None:
    """Run the app with uvicorn until interrupted; once it listens, call ``on_started(url, ledger)`` and open the
    browser.

    The keywords are checked as one :class:`~privrisk.app.settings.AppSettings` before anything starts (the port's
    range, the upload limit as bytes or ``"500MB"``, the ledger key read from ``key_file``, or ``key`` itself).
    On a host other machines can reach it first warns (:class:`~privrisk.errors.PrivacyLeakWarning`): the
    uploaded data are then reachable from the network. ``ledger`` and ``key`` are :func:`build_app`'s. A signal
    (Ctrl-C, SIGTERM) stops the server within :data:`STOP_SECONDS`, however busy it is, and every session's
    folder is removed.
    """
    from privrisk.app.settings import AppSettings

    settings = AppSettings(host=host, port=port, open_browser=open_browser, max_upload=max_upload, ledger=ledger,
                           key_file=key_file)  # fmt: skip
    max_upload, key = int(settings.max_upload), key if key is not None else settings.key
    import uvicorn

    warning = network_warning(host)
    if warning:
        warnings.warn(warning, PrivacyLeakWarning, stacklevel=2)

    # The host the user named is allowed in the Host header besides the loopback names ("0.0.0.0" names no host).
    named = () if host in ("0.0.0.0", "::", "") else (host,)
    where = ledger_location(ledger)
    app = build_app(max_upload=max_upload, hosts=named, ledger=where, key=key)
    # The pages import pandas, DuckDB, OpenDP and the accountant when a session first needs them; importing them
    # while the browser opens saves the first visitor seconds.
    threading.Thread(target=_warm_up, daemon=True).start()
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = _server_class()(config)

    def _announce() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            url = bound_url(server)
            if on_started is not None:
                on_started(url, where)
            if open_browser:
                webbrowser.open(url)

    threading.Thread(target=_announce, daemon=True).start()
    try:
        server.run()
    finally:
        if server.watchdog is not None:
            server.watchdog.cancel()
        remove_session_folders()
    if server.stopped_by is not None:
        # uvicorn before 0.29 swallowed the signal that stopped it (the command then exited 0 on Ctrl-C);
        # newer ones raise it again themselves. Either way the caller sees it: 130 on Ctrl-C, 143 on SIGTERM.
        signal.raise_signal(server.stopped_by)


def _server_class() -> Any:
    """uvicorn's Server with the signal that stopped it (uvicorn is imported only when the app starts)."""
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, remembering the first signal that stopped it, and stopping the process when its
        graceful shutdown takes longer than :data:`STOP_SECONDS` (a thread still in a library call)."""

        stopped_by: int | None = None
        watchdog: threading.Timer | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.stopped_by is None:
                self.stopped_by = sig
                self.watchdog = threading.Timer(STOP_SECONDS, _stop_now, args=(sig,))
                self.watchdog.daemon = True
                self.watchdog.start()
            super().handle_exit(sig, frame)

    return Server


#: A signal stops the server within this many seconds: after it, the process ends whatever is still running.
STOP_SECONDS = 4.0


def _stop_now(sig: int) -> None:
    """End the process now (the graceful shutdown took too long): the sessions' folders and worker processes
    first, then exit 128 + the signal's number, as the signal would have."""
    import multiprocessing

    remove_session_folders()
    for child in multiprocessing.active_children():
        child.kill()
    if sig == signal.SIGINT:
        os.write(2, b"privrisk: error: interrupted\n")
    os._exit(128 + int(sig))
