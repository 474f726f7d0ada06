"""The app's page "Release": noisy answers in three steps, set up → preview → confirm (``privrisk release``).

The page only maps its inputs onto :class:`privrisk.release.run.ReleaseSettings`
(:mod:`~privrisk.app.pages._release_settings`) and calls :func:`~privrisk.release.run.run_release`, first with
``preview=True``, then with the preview's id, as the command line does. The preview shows, before any ε is spent, each answer's noise scale, expected error and 95 % interval and
warns when an answer would be useless (it is released only once the operator ticks that they release it anyway);
confirming publishes that preview once (a double-click or a repeated confirm returns the same release and charges
the ledger once). The ledger is the app's one ledger on disk (``privrisk app --ledger FILE``, by default in the
user's data folder), charged by every browser session: a reload, a second tab or a restart of the server sees
every release, and the budget holds across them. The page says where it is and what it records; the ledger can be
downloaded, with the public statement as a readable page and the public release as JSON (neither holds a path of
the server). The internal assessment (local sensitivity, record counts) is shown only on request, inside a box
marked NOT FOR PUBLICATION.

A bound is kept as typed or refused: ``0,5`` (a decimal comma, or a thousands separator) is refused with a message
at its query, never read as 5 or as 0.5 (:mod:`privrisk.release.typed`). The builder is filled by
:mod:`~privrisk.app.pages._release_builder`; what the page shows is :mod:`~privrisk.app.pages._release_outputs`.

The data is the session's one upload (:func:`privrisk.app._shared.session_upload`): a file uploaded on any page is
offered here by name, without a second upload, with the builder's first query on its first numeric column that is
not an id and none of an example's ε or bounds left in place.
"""

from __future__ import annotations

import warnings
from typing import Any, cast

from shiny import module, reactive, ui

from privrisk._validation import QUERIES
from privrisk.app._examples import EXAMPLES
from privrisk.app._shared import (
    KeptUpload,
    app_settings,
    error_input,
    error_message,
    keep_upload,
    preset_inputs,
    query_params,
    session_upload,
)
from privrisk.app.pages._release_builder import ROW_KINDS, builder_columns, fill_builder
from privrisk.app.pages._release_form import ROWS, AtRow, parse_bound, parse_queries
from privrisk.app.pages._release_outputs import ReleaseState, register_errors, register_outputs
from privrisk.app.pages._release_settings import inputs_stamp, page_settings
from privrisk.app.pages._release_views import paths_named, preview_view, public_view, statement_view
from privrisk.errors import PrivriskError, ThresholdExceeded

ID = "release"
TITLE = "Release"

__all__ = [
    "ID",
    "TITLE",
    "page_server",
    "page_ui",
    "parse_bound",
    "parse_queries",
    "preview_view",
    "public_view",
    "statement_view",
]

_INPUTS = (
    "file",
    "spec",
    "public_n",
    "budget",
    "allow_useless",
    *(f"q{i}" for i in range(1, ROWS + 1)),
)
#: Library parameters whose input has another name on this page.
_PARAM_INPUTS = {"data": "file", "queries": "q1", "budget_epsilon": "budget", "budget_rho": "budget"}


def _row_ui(i: int) -> Any:
    """One query of the builder: column, query, noise, ε (or ρ), and the universe's two bounds."""
    optional = "" if i == 1 else " (optional)"
    return ui.div(
        ui.tags.fieldset(
            ui.tags.legend(f"Query {i}{optional}", class_="fs-6 fw-semibold mb-1"),
            ui.input_select(f"q{i}_column", "Column", {"": "(none)"}),
            ui.input_select(f"q{i}_query", "Statistic", list(QUERIES), selected="mean"),
            ui.input_select(
                f"q{i}_mechanism",
                "Noise",
                {"laplace": "Laplace (spends ε)", "gaussian": "Gaussian (spends ρ)"},
            ),
            ui.input_text(
                f"q{i}_epsilon", "ε (ρ for Gaussian noise): a number or ln3", placeholder="e.g. 0.5"
            ),
            # Text fields, empty until typed: a bound is never a placeholder taken for a value, and it is read as
            # typed (a browser's number field turns "0,5" into 5 or nothing, in silence).
            ui.div(
                ui.input_text(f"q{i}_lower", "Lowest possible value", placeholder="e.g. 0"),
                ui.input_text(f"q{i}_upper", "Highest possible value", placeholder="e.g. 700"),
                class_="d-flex gap-2",
            ),
            ui.output_ui(f"q{i}_error"),
        ),
        class_="release-query mb-2",
        id=f"release-query-{i}",
    )


@module.ui
def page_ui() -> Any:
    """The page's layout: the set-up first (in the document, so in the keyboard order, and above the rest on a
    phone, where no sidebar lies over the preview), then the verdict, preview, confirm and result beside it."""
    setup = ui.tags.section(
        ui.h3("1. Set up", class_="fs-5"),
        ui.input_file("file", "Data file (CSV, Parquet, Stata .dta, SPSS .sav)"),
        ui.output_ui("file_error"),
        ui.input_select("example", "… or an example", _data_choices(None)),
        ui.input_radio_buttons(
            "queries_from", "Queries", {"form": "built here", "spec": "from a release.toml"}, inline=True
        ),
        ui.panel_conditional(
            "input.queries_from === 'form'",
            *(_row_ui(i) for i in range(1, ROWS + 1)),
            ui.input_text("missing", "Missing codes to drop (negative, or -1,-3)", placeholder="none"),
        ),
        ui.panel_conditional("input.queries_from === 'spec'", ui.input_file("spec", "release.toml")),
        ui.output_ui("spec_error"),
        ui.input_text("public_n", "Published number of people (optional)", placeholder="e.g. 30000"),
        ui.output_ui("public_n_error"),
        ui.input_text("budget", "Budget: the largest total ε (optional)", placeholder="e.g. 2"),
        ui.output_ui("budget_error"),
        ui.input_checkbox("allow_large_epsilon", "Release even with a total ε above 20", value=False),
        class_="privrisk-inputs release-setup",
        **{"aria-label": "1. Set up"},
    )
    result = ui.div(
        ui.output_ui("verdict"),
        ui.output_ui("ledger_state"),
        ui.p(
            "2. Preview: see how noisy each answer would be before any ε is spent. 3. Confirm: draw the noise "
            "(from OpenDP, not seeded) and charge the ledger once. The bounds must be fixed before looking at "
            "the data: values outside them are moved onto them.",
            class_="privrisk-help",
        ),
        ui.input_action_button("preview", "Preview the release", class_="btn-primary"),
        ui.output_ui("release_error"),
        ui.output_ui("preview_panel"),
        ui.output_ui("public"),
        ui.output_ui("downloads"),
        ui.input_checkbox(
            "show_internal", "Show the internal assessment (for you, the operator, only)", value=False
        ),
        ui.output_ui("internal"),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    )
    return ui.TagList(
        ui.h2("Release noisy answers"),
        ui.layout_columns(setup, result, col_widths=cast(Any, {"sm": (12, 12), "lg": (4, 8)})),
    )


def _data_choices(kept: KeptUpload | None) -> dict[str, str]:
    """The data choices: the session's upload by name once there is one (the empty choice), or an example."""
    examples = {name: f"{path} ({what})" for name, (path, _, what) in EXAMPLES.items()}
    return {"": "(none)" if kept is None else kept.label, **examples}


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: every session charges the app's one ledger; nothing is charged without a
    preview and its confirmation, and a useless answer not without its acknowledgement."""
    from privrisk.release.run import run_release

    preset_inputs(
        session,
        {"missing": "text", "public_n": "text", "budget": "text", "example": "select",
         "allow_large_epsilon": "checkbox", **{k: v for k, v in ROW_KINDS.items() if not k.endswith("_column")}},
    )  # fmt: skip
    params = query_params(session)
    state = ReleaseState.made()
    app = app_settings(session)
    ledger, ledger_name = app.ledger_path(), app.ledger_name
    shown_as: dict[str, str] = {}  # an uploaded spec's server path → its name

    def _named(text: str) -> str:
        for path, name in shown_as.items():
            text = text.replace(path, name)
        return paths_named(text, ledger, ledger_name)

    uploads = session_upload(session, max_bytes=max_upload)

    # This page's upload becomes the session's: every page that takes data offers it.
    keep_upload("file", input, uploads, state.problem, lambda exc: ("file", error_message(exc, "release")))

    @uploads.on_new
    def _offer(kept: KeptUpload) -> None:
        # A file uploaded on any page of this session: offered as the data (the example is unselected, so the
        # builder's columns and settings follow the file).
        state.problem.set(None)
        ui.update_select("example", choices=_data_choices(kept), selected="")

    fill_builder(input, builder_columns(input, uploads), params)

    def _fail(exc: Exception) -> None:
        if isinstance(exc, AtRow):
            # The error goes next to its row, worded as the command line words it.
            state.problem.set((exc.row, error_message(exc.error, "release")))
            return
        if isinstance(exc, ThresholdExceeded):
            # A threshold is reported as an error of the budget's field, worded as the command line's.
            exc = PrivriskError(str(exc), param=exc.param)
        message = _named(error_message(exc, "release"))
        param = getattr(exc, "param", None)
        state.problem.set((_PARAM_INPUTS.get(param or "") or error_input(exc, _INPUTS, "file"), message))

    def _settings(acknowledged: bool, **run: Any) -> tuple[Any, list[str]]:
        return page_settings(input, uploads, app, shown_as, acknowledged=acknowledged, **run)

    def _make_preview(acknowledged: bool) -> None:
        state.problem.set(None)
        state.shown.set(None)
        try:
            settings, notes = _settings(acknowledged, preview=True)
            p = run_release(settings).preview
        except (PrivriskError, ThresholdExceeded, AtRow) as exc:
            _fail(exc)
            return
        assert p is not None
        if p.refusal is not None:
            _fail(settings.refusal(p.refusal))
        with reactive.isolate():
            state.shown.set((p, inputs_stamp(input, uploads), notes, acknowledged and bool(p.warnings)))

    @reactive.effect
    @reactive.event(input.preview)
    def _preview() -> None:
        _make_preview(False)

    @reactive.effect
    @reactive.event(input.allow_useless, ignore_init=True)
    def _acknowledge() -> None:
        # Ticking (or unticking) the box makes the preview again with the operator's consent: the release that is
        # confirmed is the one previewed, consent included. Nothing is drawn or spent.
        with reactive.isolate():
            found = state.shown.get()
            if found is None or not found[0].warnings or found[3] == bool(input.allow_useless()):
                return
            if found[1] != inputs_stamp(input, uploads):
                return
        _make_preview(bool(input.allow_useless()))

    @reactive.effect
    @reactive.event(input.confirm)
    def _confirm() -> None:
        try:
            _confirm_once()
        finally:
            ui.update_action_button("confirm", disabled=False)

    def _confirm_once() -> None:
        found = state.shown.get()
        if found is None:
            return
        p, asked, _, acknowledged = found
        if asked != inputs_stamp(input, uploads):
            state.problem.set(("file", "The settings changed since the preview; preview the release again."))
            return
        if p.warnings and not acknowledged:
            state.problem.set(("allow_useless", "Nothing was released: the preview says an answer would be useless; "
                               "tick the box to release it anyway, or give a narrower universe or a larger ε."))  # fmt: skip
            return
        state.problem.set(None)
        try:
            settings, _ = _settings(acknowledged, preview_id=p.id)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # Idempotent per preview: a second confirm of this preview returns the same release, uncharged.
                run = run_release(settings)
        except (PrivriskError, ThresholdExceeded, AtRow) as exc:
            _fail(exc)
            return
        state.result.set((p.id, run, tuple(p.warnings) if acknowledged else ()))

    register_errors(state, _INPUTS)
    register_outputs(input, state, uploads, app, _named)
