"""What the Release page shows of its state: the verdict, the preview, the public release, the app's ledger, the
downloads, the internal assessment on request, the errors at their inputs, and the command line of the same release.

The page's state is three values (:class:`ReleaseState`): the preview shown (with the inputs it was made of), the
release published in this session, and the problem to show at an input. Every number and sentence comes from the
library's run (:class:`~privrisk.release.run.ReleaseRun`); the downloads hold no path of the server.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from shiny import reactive, render, ui

from privrisk.app._examples import EXAMPLES
from privrisk.app._shared import command_line, error_message, error_ui
from privrisk.app.pages._release_builder import ROW_KINDS
from privrisk.app.pages._release_form import builder_rows, single_options, spec_toml
from privrisk.app.pages._release_settings import inputs_stamp
from privrisk.app.pages._release_views import (
    file_stamp,
    internal_view,
    ledger_summary,
    ledger_view,
    preview_view,
    public_view,
)
from privrisk.errors import PrivriskError

__all__ = ["ReleaseState", "command_view", "register_errors", "register_outputs"]


@dataclass(frozen=True)
class ReleaseState:
    """The page's reactive state.

    Attributes:
        shown: ``(preview, inputs, notes, acknowledged)``: the preview shown, the inputs it was made of
            (:func:`~privrisk.app.pages._release_settings.inputs_stamp`), the warnings, and whether the operator
            consented to a useless answer; or None.
        result: ``(preview id, run, useless warnings)`` of the release published in this session, or None.
        problem: ``(input, message)`` to show at that input, or None.
    """

    shown: reactive.Value[Any]
    result: reactive.Value[Any]
    problem: reactive.Value[Any]

    @classmethod
    def made(cls) -> ReleaseState:
        """Nothing shown, released or wrong yet."""
        return cls(reactive.value(None), reactive.value(None), reactive.value(None))

    def published(self, preview_id: str) -> bool:
        """Whether this session released the preview ``preview_id``."""
        done = self.result.get()
        return done is not None and done[0] == preview_id


def register_errors(state: ReleaseState, inputs: tuple[str, ...]) -> None:
    """One output per input (``<input>_error``) that shows the problem found at it, and ``release_error``."""
    for name in inputs:

        def _make(name: str = name) -> None:
            def _out() -> Any:
                found = state.problem.get()
                return error_ui(found[1]) if found and found[0] == name else None

            _out.__name__ = f"{name}_error"
            render.ui(_out)

        _make()

    @render.ui
    def release_error() -> Any:
        found = state.problem.get()
        if found:
            return ui.div(error_ui(found[1]), ui.p("Nothing was released.", class_="privrisk-help"))
        return None


def register_outputs(input: Any, state: ReleaseState, uploads: Any, app: Any, named: Any) -> None:
    """The page's outputs and downloads, following ``state`` and the app's ledger (``app``: the server's
    settings); ``named`` writes a message's server paths as the names shown."""
    ledger, ledger_name = app.ledger_path(), app.ledger_name

    @reactive.poll(lambda: file_stamp(ledger), 1.0)
    def ledger_stamp() -> tuple[int, int] | None:
        # Another session (or the command line) may charge the ledger at any time: the page follows the file.
        return file_stamp(ledger)

    @render.ui
    def verdict() -> Any:
        done, found = state.result.get(), state.shown.get()
        if (
            found is not None
            and not state.published(found[0].id)
            and found[1] == inputs_stamp(input, uploads)
        ):
            said: Any = (ui.strong("If you release this: "), found[0].verdict())
        elif done is not None:
            said = (ui.strong("Released. "), done[1].sentence())
        else:
            said = ("Set up the queries, then preview the release: nothing is spent before you confirm.",)
        return ui.p(*said, class_="lead", id="release-verdict-text")

    @render.ui
    def preview_panel() -> Any:
        found = state.shown.get()
        if found is None:
            return None
        p, asked, notes, acknowledged = found
        if asked != inputs_stamp(input, uploads):
            return ui.p(
                "The settings changed since the preview; preview the release again.", class_="privrisk-help"
            )
        if state.published(p.id):
            return None
        return preview_view(p, notes=notes, confirm=p.refusal is None, acknowledged=acknowledged)

    @render.ui
    def public() -> Any:
        done = state.result.get()
        if done is None:
            return ui.p("Nothing released yet in this session.", class_="privrisk-help")
        return public_view(done[1].release, ledger=str(ledger), ledger_name=ledger_name, useless=done[2])

    @render.ui
    async def ledger_state() -> Any:
        ledger_stamp()
        state.result.get()  # this session's own release changes it too
        if file_stamp(ledger) is None:
            return ledger_view(ledger, None)
        try:
            # Summarised in a thread: a long ledger's composition takes a while, and the event loop serves others.
            summary = await asyncio.to_thread(ledger_summary, ledger, app.key)
        except PrivriskError as exc:
            return ledger_view(ledger, None, named(error_message(exc, "release")))
        return ledger_view(ledger, summary)

    @render.ui
    def downloads() -> Any:
        if state.result.get() is None:
            return None
        return ui.div(
            ui.download_button("download_statement", "Download the public statement (HTML)"),
            ui.download_button("download_public", "Download the public release (JSON)", class_="ms-2"),
            ui.download_button("download_ledger", "Download the updated ledger", class_="ms-2"),
            class_="my-2 d-flex flex-wrap gap-2",
        )

    @render.download_button(filename=lambda: ledger_name)
    def download_ledger() -> Any:
        yield ledger.read_bytes()

    @render.download_button(filename="statement.html")
    def download_statement() -> Any:
        from privrisk.release.statement import statement_html

        yield statement_html(state.result.get()[1].release)

    @render.download_button(filename="release.json")
    def download_public() -> Any:
        from privrisk.io.files import to_jsonable

        yield json.dumps(to_jsonable(state.result.get()[1].to_dict()), ensure_ascii=False, indent=2)

    @render.ui
    def internal() -> Any:
        done = state.result.get()
        if done is None or not input.show_internal():
            return None
        return internal_view(done[1].release)

    @render.ui
    def command() -> Any:
        return command_view(input, uploads, app)


def command_view(input: Any, uploads: Any, app: Any) -> Any:
    """The ``privrisk release`` command (with its ``release.toml`` for several queries) of the page's release."""
    kept = uploads.current()
    if input.example():
        name = EXAMPLES.get(input.example(), ("DATA",))[0]
    else:
        name = "DATA" if kept is None else kept.name
    options: dict[str, Any] = {"file": name}
    rows = builder_rows({k: input[k]() for k in ROW_KINDS})
    missing = input.missing().strip() or None
    spec_text = None
    if input.queries_from() == "spec" or len(rows) != 1:
        options["spec"] = "release.toml"
        if input.queries_from() == "form":
            spec_text = spec_toml(rows, missing)
    else:
        options |= single_options(rows[0]) | {"missing": missing}
    options |= {
        "public_n": input.public_n().strip() or None,
        "budget": input.budget().strip() or None,
        "ledger": app.ledger_name,
        "ledger_key": "KEY_FILE" if app.key is not None else None,
        "allow_large_epsilon": bool(input.allow_large_epsilon()),
        "internal": "internal.json" if input.show_internal() else None,
    }
    line = command_line("release", **options)
    parts = [ui.div(line, class_="privrisk-command", id="release-command-line")]
    if spec_text:
        parts += [ui.p("with this release.toml:", class_="privrisk-help mt-2 mb-1"),
                  ui.tags.pre(spec_text, class_="privrisk-command", id="release-spec-toml")]  # fmt: skip
    return ui.TagList(*parts)
