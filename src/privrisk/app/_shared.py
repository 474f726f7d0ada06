"""What every page of ``privrisk app`` shares: URL presets, uploads, one-line errors, the equivalent command line,
and long work with progress and a cancel button.

A page never re-implements a number: it calls the library functions its command calls and shows their result.
Errors are the library's one-line messages with the parameter named by the input's label, never by a command-line
option (:func:`error_message`), shown next to the input (:func:`error_ui`) while the app keeps running.

Example:
    >>> command_line("risk", epsilon="ln3", n=10, json=False)
    'privrisk risk --epsilon ln3 --n 10'
"""

from __future__ import annotations

import shlex
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from privrisk._validation import parse_size
from privrisk.app._labels import PAGE_LABELS, label
from privrisk.app._sessions import DEFAULT_MAX_UPLOAD, AppSettings, app_settings, session_folder
from privrisk.app._uploads import (
    KeptUpload,
    SessionUpload,
    UploadColumns,
    format_bytes,
    id_like,
    keep_upload,
    numeric_columns,
    read_upload,
    session_upload,
    upload_columns,
    upload_path,
)
from privrisk.errors import PrivriskError, ThresholdExceeded, named_message, warning_text

if TYPE_CHECKING:
    from htmltools import Tag

__all__ = [
    "DEFAULT_MAX_UPLOAD",
    "AppSettings",
    "Cancelled",
    "Job",
    "KeptUpload",
    "SessionUpload",
    "UploadColumns",
    "app_settings",
    "command_line",
    "error_input",
    "error_message",
    "error_ui",
    "format_bytes",
    "id_like",
    "keep_upload",
    "numeric_columns",
    "parse_size",
    "preset_inputs",
    "query_params",
    "quiet",
    "read_upload",
    "session_folder",
    "session_upload",
    "upload_columns",
    "upload_path",
    "warning_message",
    "warning_ui",
]

_QUERY_KEY = "_privrisk_query_params"


def query_params(session: Any) -> dict[str, str]:
    """The query parameters of the page's URL (``?page=risk&epsilon=ln3``), parsed once per browser session.

    The first value of a repeated parameter wins. Works with a module's session proxy as with the root session.
    """
    root = session.root_scope() if hasattr(session, "root_scope") else session
    cached = getattr(root, _QUERY_KEY, None)
    if cached is None:
        from shiny import reactive

        with reactive.isolate():
            search = root.clientdata.url_search()
        cached = {}
        for key, value in urllib.parse.parse_qsl(str(search or "").lstrip("?"), keep_blank_values=True):
            cached.setdefault(key, value)
        setattr(root, _QUERY_KEY, cached)
    return dict(cached)


def preset_inputs(session: Any, kinds: Mapping[str, str]) -> dict[str, str]:
    """Set a page's inputs from the URL: ``kinds`` maps an input (named like its option) to its kind.

    Kinds: ``text`` (also text areas), ``numeric``, ``slider``, ``select``, ``radio``, ``checkbox``. A value that
    does not fit a numeric input is put in anyway as text would not be; it is skipped, and the page's own check of
    the input reports the problem. Returns the parameters that were used.
    """
    from shiny import ui

    params = query_params(session)
    used: dict[str, str] = {}
    for name, kind in kinds.items():
        if name not in params:
            continue
        value = params[name]
        if kind == "text":
            ui.update_text(name, value=value)
        elif kind in ("numeric", "slider"):
            try:
                number = float(value)
            except ValueError:
                continue
            (ui.update_numeric if kind == "numeric" else ui.update_slider)(name, value=number)
        elif kind == "select":
            ui.update_select(name, selected=value)
        elif kind == "radio":
            ui.update_radio_buttons(name, selected=value)
        elif kind == "checkbox":
            ui.update_checkbox(name, value=value.lower() in ("1", "true", "yes", "on"))
        else:  # pragma: no cover - a page's own mistake
            raise ValueError(f"unknown input kind {kind!r}")
        used[name] = value
    return used


def error_message(exc: BaseException, command: str | None = None, options: Sequence[str] = ()) -> str:
    """The one line the app shows for an error: the library's message with its parameter named by the page's label.

    The label is the app's own word for the input ("Largest acceptable risk"), from the library's one table of
    parameters (:mod:`privrisk.app._labels`), never the command line's option; ``command`` is the page (a command's
    name), whose own label wins where it has one. A parameter the table does not label is humanised
    (``by_hand`` → "By hand"). ``options`` is kept for the pages that still pass it; labels need no list.

    Example:
        >>> error_message(PrivriskError("epsilon: must be greater than 0, got -1"), "risk")
        'Privacy loss ε: must be greater than 0, got -1'
        >>> error_message(PrivriskError("by_hand: too many"))
        'By hand: too many'
    """
    del options  # every parameter has a label: nothing to look up per command any more
    if isinstance(exc, PrivriskError | ThresholdExceeded):
        message = str(exc).splitlines()[0] if str(exc) else "bad input"
        param = exc.param
        page = command.split()[0] if command else None
        return named_message(message, param, label(param, page)) if param else message
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"internal error: {type(exc).__name__}: {exc}"


def warning_message(warning: Warning | str, command: str | None = None) -> str:
    """The one line the app shows for a library warning: the command line's format, its parameter labelled.

    Example:
        >>> warning_message("window:  fewer than 10 periods", "empirical")
        'Window: fewer than 10 periods'
    """
    page = command.split()[0] if command else None
    return warning_text(warning, lambda param: label(param, page))


def warning_ui(warning: Warning | str, command: str | None = None) -> Tag:
    """A library warning on a page: :func:`warning_message`'s line (e-notation as powers of ten), marked a warning.

    The command line shows the same warning as ``privrisk: warning: <text>``, with the option named instead.
    """
    from shiny import ui

    from privrisk._format import plain

    return ui.p(
        f"Warning: {plain(warning_message(warning, command))}", class_="text-warning privrisk-warning"
    )


def error_input(error: BaseException | str, inputs: tuple[str, ...], default: str) -> str:
    """The input an error belongs next to: the one its ``param`` names, else ``default``.

    A library error or threshold names its parameter (``param``); for a message alone (the older callers), the
    input its leading ``--option:`` (or ``name:``) names.

    Example:
        >>> error_input(PrivriskError("universe: give two numbers LO,HI"), ("universe", "epsilon"), "file")
        'universe'
        >>> error_input("--universe: give two numbers LO,HI", ("universe", "epsilon"), "file")
        'universe'
        >>> error_input("Bounds: give two numbers LO,HI", ("universe", "epsilon"), "file")
        'universe'
        >>> error_input(PrivriskError("data.csv: no column 'x'"), ("universe",), "file")
        'file'
    """
    if isinstance(error, BaseException):
        param = getattr(error, "param", None)
        return param if param in inputs else default
    message = error
    head, sep, _ = message.partition(":")
    if sep:
        name = head.removeprefix("--").split("/")[0].replace("-", "_")
        if name in inputs:
            return name
        # A message error_message has already labelled: the input whose label (on any page) it starts with.
        for name in inputs:
            labels = {label(name), *PAGE_LABELS.get(name, {}).values()}
            if head in labels:
                return name
    return default


def quiet(calc: Callable[[], Any]) -> Any:
    """``calc()``, or nothing shown (Shiny's silent ``req``) if it raises a :class:`PrivriskError`.

    For outputs whose input's error is shown next to the input already: the output stays empty instead of
    repeating the message (and the server's log stays free of tracebacks for bad input).
    """
    from shiny import req

    try:
        return calc()
    except PrivriskError:
        req(False)


def error_ui(message: str | None) -> Tag | None:
    """The error shown next to an input: one line in red with ``role="alert"``, or nothing."""
    if not message:
        return None
    from shiny import ui

    return ui.div(message, class_="privrisk-error text-danger small mt-1", role="alert")


def command_line(command: str, **options: Any) -> str:
    """The ``privrisk`` command that gives the same result as a page (options in the order given).

    ``True`` is a flag, ``False`` and ``None`` are left out; ``snake_case`` becomes ``--kebab-case``.

    Example:
        >>> command_line("sensitivity", file="my data.csv", column="distance", universe="1,675")
        "privrisk sensitivity 'my data.csv' --column distance --universe 1,675"
    """
    parts = ["privrisk", *command.split()]
    positional = options.pop("file", None)
    if positional is not None:
        parts.append(shlex.quote(str(positional)))
    for key, value in options.items():
        if value is None or value is False or value == "":
            continue
        option = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            parts.append(option)
        else:
            text = f"{value:g}" if isinstance(value, float) else str(value)
            parts += [option, shlex.quote(text)]
    return " ".join(parts)


class Cancelled(Exception):
    """Raised inside a :class:`Job`'s work when the user pressed Cancel."""


class Job:
    """Long work in a worker thread: its progress is read by the page, Cancel sets an event the work checks.

    The pattern: a page runs ``await asyncio.to_thread(work, job, ...)`` in a ``@reactive.extended_task`` bound to
    its Run button; ``work`` calls ``job.advance(fraction, text)`` now and then (which raises :class:`Cancelled`
    after :meth:`cancel`); the page polls :meth:`status_text` with ``reactive.invalidate_later`` while the task
    runs, and its Cancel button calls ``job.cancel()`` and the task's ``cancel()``.

    Example:
        >>> job = Job()
        >>> job.advance(0.5, "half way")
        >>> job.status_text()
        'half way (50 %)'
        >>> job.cancel()
        >>> job.advance(0.6)
        Traceback (most recent call last):
        ...
        privrisk.app._shared.Cancelled: cancelled
    """

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self.fraction = 0.0
        self.text = ""
        self.counted = False  # whether the work reports its progress (else the line counts seconds)
        self.started = time.monotonic()

    def advance(self, fraction: float, text: str | None = None) -> None:
        """Record progress (0 to 1); raise :class:`Cancelled` if the user cancelled."""
        if self._cancel.is_set():
            raise Cancelled("cancelled")
        with self._lock:
            self.fraction = min(max(float(fraction), 0.0), 1.0)
            self.counted = True
            if text is not None:
                self.text = text

    def cancel(self) -> None:
        """Ask the work to stop at its next :meth:`advance`."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def status_text(self) -> str:
        """What the progress line shows: the share done, or the seconds so far for work that does not count."""
        with self._lock:
            if not self.counted:
                return f"{self.text or 'working'} ({time.monotonic() - self.started:.0f} s)"
            return f"{self.text or 'working'} ({self.fraction:.0%})".replace("%)", " %)")

    def callback(self) -> Callable[..., None]:
        """An ``advance(steps=1)``-style callback for library functions that count steps of a known total."""
        return self.advance
