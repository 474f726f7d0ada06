"""What the pages Study, Presence, Audit and Empirical DP share: runs of a command's library code in a worker thread
with progress and Cancel, a private folder per browser session for their outputs, and that folder shown as its
findings, figures, tables and downloads.

Every run writes its output folder with the very function its command calls for ``--out`` (the study's
``write_bundle``, ``PresenceReport.write_outputs``, the audit's and empirical's ``write_outputs``) into a folder of
the session's own temporary directory, removed when the session ends; the page shows what the folder's
``manifest.json`` lists and offers the files for download.

Example:
    >>> counter = StepCounter(Job(), total=4, text="sampling")
    >>> counter(); counter(2); counter.job.status_text()
    'sampling (75 %)'
"""

from __future__ import annotations

import asyncio
import base64
import html
import io
import json
import os
import shutil
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk.app._shared import Cancelled, Job, error_message
from privrisk.app._shared import session_folder as _session_folder
from privrisk.app._uploads import _checked_upload
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Runner",
    "StepCounter",
    "TimeLimit",
    "call_in_process",
    "checked_upload",
    "figures_ui",
    "findings_ui",
    "folded_ui",
    "frame_ui",
    "long_page_ui",
    "main_panel",
    "more_options",
    "named_error",
    "session_folder",
    "verdict_ui",
    "zip_bytes",
]


class TimeLimit(Exception):
    """The work in :func:`call_in_process` ran longer than its time limit and was stopped."""


# Imported once by the fork server, so that each worker starts with them: the accountant (Risk), and pandas, the
# output checker and the microdata measures (Outputs, Microdata).
_PRELOAD = ["privrisk.accounting", "privrisk.app._guarantee", "pandas", "privrisk.outputs.run",
            "privrisk.microdata.run", "privrisk.app._work"]  # fmt: skip


def _context() -> Any:
    import multiprocessing
    import tempfile

    # The fork server listens on a Unix socket at <temporary folder>/pymp-XXXXXXXX/listener-XXXXXXXX, and a socket's
    # path holds at most 107 bytes: under a deeper temporary folder the workers are spawned instead (each imports
    # what it needs, so it starts more slowly; the results are the same).
    if len(os.fsencode(tempfile.gettempdir())) + len("/pymp-XXXXXXXX/listener-XXXXXXXX") > 100:
        return multiprocessing.get_context("spawn")
    # A fork server forks each worker from a single-threaded process that imported the accountant once: a worker
    # starts in milliseconds, and never inherits the locks of the app's threads (as a plain fork would).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def _child(connection: Any, work: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        result: tuple[str, Any] = ("ok", work(*args))
    except PrivriskError as exc:
        result = ("privrisk", (str(exc), exc.param))
    except Exception as exc:  # reported as the page's one-line internal error
        result = ("error", f"{type(exc).__name__}: {exc}")
    connection.send(result)
    connection.close()


async def call_in_process(
    work: Callable[..., Any], *args: Any, time_limit: float | None = 60.0, job: Job | None = None
) -> Any:
    """``work(*args)`` in a worker process, awaited without blocking the event loop; killed when it is cancelled
    (a newer input, the session ended, ``job`` cancelled: :class:`~privrisk.app._shared.Cancelled`) or after
    ``time_limit`` seconds (:class:`TimeLimit`; None: no limit).

    ``work`` must be a module-level function, its arguments and result picklable. A :class:`PrivriskError` in
    the worker is raised again here with its ``param``. Unlike a thread, a process can be stopped in the middle
    of a library call that has no progress callback (the accountant composing a guarantee 10⁶ times, an output
    check of many tables).

    Example:
        >>> asyncio.run(call_in_process(abs, -5))
        5
    """
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, work, args), daemon=True)
    process.start()
    sender.close()
    loop = asyncio.get_running_loop()
    deadline = None if time_limit is None else loop.time() + time_limit
    try:
        while not receiver.poll():
            if not process.is_alive() and not receiver.poll():
                raise RuntimeError(f"the worker process stopped (exit code {process.exitcode})")
            if deadline is not None and loop.time() > deadline:
                raise TimeLimit(f"stopped after {time_limit:g} s")
            if job is not None and job.cancelled:
                raise Cancelled("cancelled")
            await asyncio.sleep(0.05)
        kind, value = receiver.recv()
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
        receiver.close()
    if kind == "ok":
        return value
    if kind == "privrisk":
        raise PrivriskError(value[0], param=value[1])
    raise RuntimeError(value)


def session_folder(session: Any, page: str) -> Path:
    """The page's folder inside the session's private folder (:func:`privrisk.app._shared.session_folder`, 0700,
    removed when the session ends)."""
    folder = _session_folder(session) / page
    folder.mkdir(exist_ok=True)
    return folder


def checked_upload(
    fileinfo: list[dict[str, Any]] | None, *, max_bytes: int, param: str = "file"
) -> tuple[Path, str]:
    """The server's own copy of an upload and the user's file name, refused above the upload limit.

    The library functions of ``privrisk audit``, ``study`` and ``presence`` read a path, as the command line passes
    them; this is the path of the upload Shiny wrote, never one the user typed. ``param`` names the input when
    nothing was uploaded.
    """
    try:
        return _checked_upload(fileinfo, max_bytes)
    except PrivriskError as exc:
        if not fileinfo:
            raise PrivriskError(str(exc), param=param) from None
        raise


def named_error(exc: BaseException, command: str, uploads: Iterable[tuple[Path, str]] = ()) -> str:
    """The command line's one-line message for ``exc``, naming the user's files instead of the server's copies."""
    message = error_message(exc, command)
    for path, name in uploads:
        message = message.replace(str(path), name)
    return message


class StepCounter:
    """A library's ``progress(steps=1)`` callback that moves a :class:`Job` over a known number of steps.

    Raises :class:`~privrisk.app._shared.Cancelled` inside the library's loop once the user pressed Cancel.
    """

    def __init__(self, job: Job, total: int | None, text: str) -> None:
        self.job, self.total, self.text, self.done = job, total, text, 0
        job.advance(0.0, text)

    def __call__(self, steps: int = 1) -> None:
        self.done += steps
        fraction = self.done / self.total if self.total else 0.0
        self.job.advance(fraction, self.text if self.total else f"{self.text}: {self.done:,}")


class Runner:
    """One page's long work: a Shiny extended task running ``work(job, *args)`` in a worker thread, or
    ``work(*args)`` in a worker process (``start(..., in_process=True)``: killed by Cancel).

    ``start`` replaces the previous result; ``cancel`` stops the work at its next progress step; ``status_ui``
    shows the progress bar with a Cancel button while it runs, the one-line message if it failed, and nothing
    otherwise; ``result()`` is the work's result (None before the first run or after a failure or a cancel).
    Create it inside a page's server function (one per session), with the page's ``folder`` in the session's
    private folder: when the session ends, the work is cancelled, and the session's folder is removed again after
    the work stops if it was still writing (the library's writers would otherwise create the folder anew).
    """

    def __init__(self, command: str, cancel_id: str, session: Any, folder: Path) -> None:
        from shiny import reactive

        self.command, self.cancel_id, self.folder = command, cancel_id, folder
        self.job: Job | None = None
        self.ended = False
        self.uploads: list[tuple[Path, str]] = []
        self.message: reactive.Value[str | None] = reactive.value(None)

        def guarded(work: Callable[..., Any], job: Job, args: tuple[Any, ...]) -> Any:
            try:
                return work(job, *args)
            finally:
                if self.ended:
                    shutil.rmtree(self.folder.parent, ignore_errors=True)

        async def run(work: Callable[..., Any], job: Job, args: tuple[Any, ...], in_process: bool) -> Any:
            if in_process:
                return await call_in_process(work, *args, time_limit=None, job=job)
            return await asyncio.to_thread(guarded, work, job, args)

        self.task = reactive.extended_task(run)
        session.on_ended(self._end)

    def _end(self) -> None:
        self.ended = True
        if self.job is not None:
            self.job.cancel()
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(
        self,
        work: Callable[..., Any],
        *args: Any,
        uploads: Sequence[tuple[Path, str]] = (),
        in_process: bool = False,
        text: str | None = None,
    ) -> None:
        """Run ``work(job, *args)`` in a thread, or ``work(*args)`` in a worker process (``in_process``, with
        ``text`` as its progress line), unless a run is under way (the Run button is ignored meanwhile)."""
        from shiny import reactive

        with reactive.isolate():
            if self.task.status() == "running":
                return
        self.message.set(None)
        self.uploads = list(uploads)
        self.job = Job()
        if text is not None:
            self.job.text = text
        self.task.invoke(work, self.job, args, in_process)

    def fail(self, exc: BaseException, uploads: Sequence[tuple[Path, str]] = ()) -> None:
        """Show ``exc`` as the page's one-line message (a bad input found before the work started)."""
        self.message.set(named_error(exc, self.command, uploads))

    def cancel(self) -> None:
        """Ask the work to stop; the page says it was cancelled."""
        if self.job is not None:
            self.job.cancel()
        self.task.cancel()

    def result(self) -> Any:
        """The last run's result, or None (not run, running, failed or cancelled); reactive."""
        if self.message() is not None or self.task.status() != "success":
            return None
        return self.task.value.get()

    def serve_status(self, input: Any) -> None:
        """Wire the page's Cancel button and its ``status`` output; call it inside the page's server function."""
        from shiny import reactive, render

        @reactive.effect
        @reactive.event(input[self.cancel_id])
        def _cancel() -> None:
            self.cancel()

        @render.ui
        def status() -> Any:
            return self.status_ui()

    def status_ui(self) -> Any:
        """The progress line and Cancel button while running; the error; "Cancelled."; reactive."""
        from shiny import reactive, ui

        from privrisk.app._shared import error_ui

        if self.message() is not None:
            return error_ui(self.message())
        status = self.task.status()
        if status == "running":
            reactive.invalidate_later(0.25)
            job = self.job
            fraction = 0.0 if job is None else job.fraction
            text = "starting" if job is None else job.status_text()
            counted = job is not None and job.counted
            bar = ui.div(
                ui.div(
                    # Work that does not count its steps: a moving bar across the whole width, no share.
                    class_="progress-bar"
                    if counted
                    else "progress-bar progress-bar-striped progress-bar-animated",
                    role="progressbar",
                    style=f"width: {100 * fraction:.0f}%" if counted else "width: 100%",
                    **(
                        {
                            "aria-valuenow": f"{100 * fraction:.0f}",
                            "aria-valuemin": "0",
                            "aria-valuemax": "100",
                        }
                        if counted
                        else {}
                    ),
                    **{"aria-label": "progress"},
                ),
                class_="progress",
                style="height: 1.2em; max-width: 32em;",
            )
            return ui.div(
                ui.p(text, class_="privrisk-progress-text mb-1"),
                bar,
                ui.input_action_button(self.cancel_id, "Cancel", class_="btn-outline-danger btn-sm mt-2"),
                class_="privrisk-progress mb-3",
            )
        if status == "cancelled" or (self.job is not None and self.job.cancelled and status != "success"):
            return ui.p("Cancelled: nothing was computed or written.", class_="privrisk-cancelled text-muted")
        if status == "error":
            exc = self.task.error.get()
            if isinstance(exc, Cancelled):
                return ui.p(
                    "Cancelled: nothing was computed or written.", class_="privrisk-cancelled text-muted"
                )
            return error_ui(named_error(exc, self.command, self.uploads))
        return None


def _manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def figures_ui(folder: Path) -> Any:
    """The figures the folder's manifest lists, as inline SVG images (``data:`` URLs: nothing is fetched)."""
    from shiny import ui

    shown = []
    for figure in _manifest(folder).get("figures", []):
        svg = folder / figure["svg"]
        if not svg.is_file():
            continue
        data = base64.b64encode(svg.read_bytes()).decode("ascii")
        shown.append(
            ui.tags.figure(
                ui.tags.img(
                    src=f"data:image/svg+xml;base64,{data}",
                    alt=figure.get("title", ""),
                    style="max-width: 100%; height: auto;",
                ),
                ui.tags.figcaption(figure.get("title", ""), class_="privrisk-help"),
                class_="privrisk-figure mb-4",
            )
        )
    return ui.TagList(*shown)


def verdict_ui(page: str, headline: str, sentence: str, *more: Any, sentence_class: str = "lead") -> Any:
    """A run's verdict first: its one number (``<page>-verdict-number``), its sentence in plain words
    (``<page>-verdict``), then ``more``."""
    from shiny import ui

    return ui.div(
        ui.p(headline, id=f"{page}-verdict-number", class_="display-6 fw-semibold mb-0"),
        ui.p(sentence, id=f"{page}-verdict", class_=sentence_class),
        *more,
        class_="privrisk-verdict mb-3",
    )


def folded_ui(summary: str, *parts: Any, id: str, class_: str | None = "mb-3") -> Any:
    """``parts`` folded under ``summary`` (an HTML ``details`` element)."""
    from shiny import ui

    return ui.tags.details(ui.tags.summary(summary), *parts, id=id, class_=class_)


def findings_ui(sentences: Iterable[str]) -> Any:
    """The findings as a list."""
    from shiny import ui

    return ui.tags.ul(*(ui.tags.li(s) for s in sentences), class_="privrisk-findings")


def frame_ui(frame: pd.DataFrame, *, id: str, caption: str | None = None, rows: int | None = None) -> Any:
    """A table shown in the page (HTML-escaped), its first ``rows`` rows, with a caption saying what was cut."""
    from shiny import ui

    shown = frame if rows is None else frame.head(rows)
    table = shown.to_html(
        index=False,
        escape=True,
        border=0,
        classes="table table-sm privrisk-table",
        table_id=id,
        na_rep="–",
        justify="left",
    )
    parts: list[Any] = []
    if caption:
        cut = f" (the first {len(shown):,} of {len(frame):,})" if len(shown) < len(frame) else ""
        parts.append(ui.p(ui.strong(caption + cut), class_="mb-1"))
    parts.append(ui.HTML(table))
    return ui.div(*parts, class_="mb-3", style="overflow-x: auto;")


def zip_bytes(folder: Path) -> bytes:
    """The whole output folder as one ZIP archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def escape(text: object) -> str:
    """Text for HTML."""
    return html.escape(str(text))


def main_panel(title: str, intro: str) -> list[Any]:
    """The main column every long page shares: title, introduction, status, results and the command line."""
    from shiny import ui

    return [
        ui.h2(title),
        ui.p(intro, class_="privrisk-help"),
        ui.output_ui("status"),
        ui.output_ui("results"),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    ]


def more_options(*inputs: Any) -> Any:
    """The options a page folds away, under "More options" (closed at first)."""
    from shiny import ui

    return ui.accordion(ui.accordion_panel("More options", *inputs), open=False)


def long_page_ui(title: str, intro: str, run_label: str, *inputs: Any, width: int = 380) -> Any:
    """A long-job page: its ``inputs`` and the Run button (``run``, labelled ``run_label``) on the left,
    :func:`main_panel` on the right."""
    from shiny import ui

    run = ui.input_action_button("run", run_label, class_="btn-primary mt-2")
    return ui.layout_sidebar(ui.sidebar(*inputs, run, width=width), *main_panel(title, intro))
