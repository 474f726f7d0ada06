"""The app's page "Release": noisy answers in three steps, set up → preview → confirm (``privrisk release``).

The page only maps its inputs onto :class:`privrisk.release.request.ReleaseRequest` and calls
:func:`~privrisk.release.request.preview` and :func:`~privrisk.release.transaction.publish`, as the command line
does. The preview shows, before any ε is spent, each answer's noise scale, expected error and 95 % interval and
warns when an answer would be useless (it is released only once the operator ticks that they release it anyway);
confirming publishes that preview once (a double-click or a repeated confirm returns the same release and charges
the ledger once). The ledger is the app's one ledger on disk (``privrisk app --ledger FILE``, by default in the
user's data folder), charged by every browser session: a reload, a second tab or a restart of the server sees
every release, and the budget holds across them. The page says where it is and what it records; the ledger can be
downloaded, with the public statement as a readable page and the public release as JSON (neither holds a path of
the server). The internal assessment (local sensitivity, record counts) is shown only on request, inside a box
marked NOT FOR PUBLICATION.

A bound is kept as typed or refused: ``0,5`` (a decimal comma, or a thousands separator) is refused with a message
at its query, never read as 5 or as 0.5.

The data is the session's one upload (:func:`privrisk.app._shared.session_upload`): a file uploaded on any page is
offered here by name, without a second upload, with the builder's first query on its first numeric column that is
not an id and none of an example's ε or bounds left in place.
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from dataclasses import fields
from typing import Any, cast

from shiny import module, reactive, render, ui

from privrisk._format import number
from privrisk._validation import QUERIES
from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app._shared import (
    KeptUpload,
    app_settings,
    command_line,
    error_input,
    error_message,
    error_ui,
    keep_upload,
    preset_inputs,
    query_params,
    session_upload,
    upload_path,
)
from privrisk.app.pages._release_form import (
    ROW_FIELDS,
    ROWS,
    AtRow,
    bound_text,
    builder_rows,
    epsilon_texts,
    parse_bound,
    parse_queries,
    row_query,
    single_options,
    spec_toml,
)
from privrisk.app.pages._release_views import (
    file_stamp,
    ledger_summary,
    ledger_view,
    paths_named,
    preview_view,
    public_view,
    scrolled,
    statement_view,
)
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
#: The example's queries: (column, query, mechanism, ε or ρ, lower, upper).
_EXAMPLE_ROWS = {
    "distance_work": [("distance", "mean", "laplace", "ln3", 0.0, 700.0),
                      ("distance", "median", "laplace", "0.5", 0.0, 700.0)],
    "claims": [("claims", "mean", "laplace", "1", 0.0, 100_000.0)],
}  # fmt: skip
#: Library parameters whose input has another name on this page.
_PARAM_INPUTS = {"data": "file", "queries": "q1"}
_ID_NAME = re.compile(r"(^|[_\W])id$", re.IGNORECASE)


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
    from privrisk.release.budget import as_budget
    from privrisk.release.request import ReleaseRequest, preview
    from privrisk.release.spec import check_public_n, read_release_spec
    from privrisk.release.transaction import publish

    # Whether the library's ReleaseRequest takes the operator's consent to a useless answer (``allow_useless``);
    # until it does, the page alone holds the release back without it.
    takes_useless = "allow_useless" in {f.name for f in fields(ReleaseRequest)}

    row_kinds = {f"q{i}_{f}": "text" if f in ("lower", "upper", "epsilon") else "select"
                 for i in range(1, ROWS + 1) for f in ROW_FIELDS}  # fmt: skip
    preset_inputs(
        session,
        {"missing": "text", "public_n": "text", "budget": "text", "example": "select",
         "allow_large_epsilon": "checkbox", **{k: v for k, v in row_kinds.items() if not k.endswith("_column")}},
    )  # fmt: skip
    params = query_params(session)
    # Rows asked for in the URL (q1_column=…, or the older queries=column query ε LO,HI lines) win over an
    # example's defaults, once.
    url_rows: list[dict[str, Any]] = []
    if "queries" in params:
        try:
            url_rows = [
                {"column": q.column, "query": q.query, "mechanism": q.mechanism, "epsilon": epsilon,
                 "lower": q.universe.lo, "upper": q.universe.hi}
                for q, epsilon in zip(parse_queries(params["queries"]), epsilon_texts(params["queries"]), strict=True)
            ]  # fmt: skip
        except PrivriskError:
            url_rows = []
    url_columns = {i: params[f"q{i}_column"] for i in range(1, ROWS + 1) if f"q{i}_column" in params}
    first_fill = reactive.value(True)

    result: reactive.Value[Any] = reactive.value(None)
    shown: reactive.Value[tuple[Any, tuple[Any, ...], list[str], bool] | None] = reactive.value(None)
    problem: reactive.Value[tuple[str, str] | None] = reactive.value(None)
    settings = app_settings(session)
    ledger = settings.ledger_path()
    ledger_name = settings.ledger_name

    def _named(text: str) -> str:
        return paths_named(text, ledger, ledger_name)

    @reactive.poll(lambda: file_stamp(ledger), 1.0)
    def ledger_stamp() -> tuple[int, int] | None:
        # Another session (or the command line) may charge the ledger at any time: the page follows the file.
        return file_stamp(ledger)

    uploads = session_upload(session, max_bytes=max_upload)

    # This page's upload becomes the session's: every page that takes data offers it.
    keep_upload("file", input, uploads, problem, lambda exc: ("file", error_message(exc, "release")))

    @uploads.on_new
    def _offer(kept: KeptUpload) -> None:
        # A file uploaded on any page of this session: offered as the data (the example is unselected, so the
        # builder's columns and settings follow the file).
        problem.set(None)
        ui.update_select("example", choices=_data_choices(kept), selected="")

    @reactive.calc
    def columns() -> tuple[list[str], list[str]]:
        """The data's columns, and those a query may run on (numeric, not an id) when the data is the upload."""
        if input.example():
            return list(EXAMPLES[input.example()][1]), []
        if uploads.current() is None:
            return [], []
        try:
            profile = uploads.profile()  # read once per upload, for every page
        except PrivriskError:
            try:  # the header of a file whose rows do not read (the preview says why)
                return uploads.columns(), []
            except PrivriskError:
                return [], []
        return list(profile.names), list(profile.numeric)

    @reactive.effect
    def _fill_columns() -> None:
        found, numeric = columns()
        with reactive.isolate():
            first = first_fill.get()
            example = input.example()
        defaults: list[dict[str, Any]] = []
        if first and url_rows:
            defaults = url_rows
        elif example in _EXAMPLE_ROWS and not (first and url_columns):
            defaults = [dict(zip(ROW_FIELDS, r, strict=True)) for r in _EXAMPLE_ROWS[example]]
        upload = not example and bool(found)
        if not defaults and upload:
            sensible = numeric or [c for c in found if not _ID_NAME.search(c)] or found
            defaults = [{"column": sensible[0]}]
        if found:
            first_fill.set(False)
        for i in range(1, ROWS + 1):
            row = defaults[i - 1] if i <= len(defaults) else {}
            wanted = url_columns.get(i) if first and url_columns else row.get("column", "")
            choices = {"": "(none)", **{c: c for c in found}}
            if wanted and wanted not in choices:
                choices[wanted] = wanted  # the page's check names a column the data does not have
            ui.update_select(f"q{i}_column", choices=choices, selected=wanted or "")
            if "query" in row:
                ui.update_select(f"q{i}_query", selected=row["query"])
                ui.update_select(f"q{i}_mechanism", selected=row["mechanism"])
                ui.update_text(f"q{i}_epsilon", value=str(row["epsilon"]))
                ui.update_text(f"q{i}_lower", value=bound_text(row["lower"]))
                ui.update_text(f"q{i}_upper", value=bound_text(row["upper"]))
            elif upload and not first:
                # A new file clears the example's settings: its ε and bounds belong to another column.
                for field_ in ("epsilon", "lower", "upper"):
                    ui.update_text(f"q{i}_{field_}", value="")

    def _data() -> tuple[str, Any]:
        if input.example():
            return EXAMPLES[input.example()][0], example_frame(input.example())
        kept = uploads.current()
        if kept is not None:
            return kept.name, uploads.read()
        raise PrivriskError("file: upload a data file or choose an example", param="file")

    def _public_n() -> int | None:
        text = input.public_n().strip().replace(",", "").replace("_", "")
        if not text:
            return None
        try:
            value: Any = float(text)
        except ValueError:
            value = text
        return check_public_n(value)

    def _settings() -> tuple[Any, ...]:
        """Every input a release depends on: a preview is shown only while they are unchanged."""
        rows = tuple(input[f"q{i}_{f}"]() for i in range(1, ROWS + 1) for f in ROW_FIELDS)
        return (uploads.current(), input.example(), input.queries_from(), input.spec(), rows, input.missing(),
                input.public_n(), input.budget(), input.allow_large_epsilon())  # fmt: skip

    def _queries() -> tuple[list[Any], int | None]:
        public_n = _public_n()
        if input.queries_from() == "spec":
            path, name = upload_path(input.spec())
            try:
                spec = read_release_spec(path)
            except PrivriskError as exc:
                raise PrivriskError(str(exc).replace(str(path), name), param="spec") from None
            return list(spec.queries), public_n if public_n is not None else spec.public_n
        rows = builder_rows({k: input[k]() for k in row_kinds})
        if not rows:
            raise AtRow("q1", "Choose a column for the first query.")
        missing = input.missing().strip() or None
        queries = []
        for row in rows:
            try:
                queries.append(row_query(row, missing))
            except PrivriskError as exc:
                # The error goes next to its row, worded as the command line words it.
                raise AtRow(f"q{row['i']}", error_message(exc, "release")) from None
        return queries, public_n

    def _request(allow_useless: bool) -> tuple[Any, list[str]]:
        name, frame = _data()
        queries, public_n = _queries()
        budget = as_budget(input.budget().strip() or None)
        # The library's own consent to a useless answer, once it has one (the statement then says so).
        useless: dict[str, Any] = {"allow_useless": allow_useless} if takes_useless else {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            request = ReleaseRequest(
                frame,
                tuple(queries),
                public_n=public_n,
                budget=budget,
                ledger=ledger,
                key=settings.key,
                source=name,
                ledger_label=ledger_name,
                allow_large_epsilon=bool(input.allow_large_epsilon()),
                **useless,
            )
        return request, [
            f"Warning: {error_message(PrivriskError(str(w.message)), 'release')}" for w in caught
        ]

    def _fail(exc: Exception) -> None:
        if isinstance(exc, AtRow):
            problem.set((exc.row, exc.message))
            return
        if isinstance(exc, ThresholdExceeded):
            # A threshold is reported as an error of the budget's field, worded as the command line's.
            exc = PrivriskError(str(exc), param=exc.param)
        message = _named(error_message(exc, "release"))
        param = getattr(exc, "param", None)
        problem.set((_PARAM_INPUTS.get(param or "") or error_input(exc, _INPUTS, "file"), message))

    def _make_preview(acknowledged: bool) -> None:
        problem.set(None)
        shown.set(None)
        try:
            request, notes = _request(acknowledged)
            p = preview(request)
        except (PrivriskError, ThresholdExceeded) as exc:
            _fail(exc)
            return
        if p.refusal is not None:
            _fail(ThresholdExceeded(p.refusal))
        with reactive.isolate():
            shown.set((p, _settings(), notes, acknowledged and bool(p.warnings)))

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
            found = shown.get()
            if found is None or not found[0].warnings or found[3] == bool(input.allow_useless()):
                return
            if found[1] != _settings():
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
        found = shown.get()
        if found is None:
            return
        p, asked, _, acknowledged = found
        if asked != _settings():
            problem.set(("file", "The settings changed since the preview; preview the release again."))
            return
        if p.warnings and not acknowledged:
            problem.set(("allow_useless", "Nothing was released: the preview says an answer would be useless; tick "
                                          "the box to release it anyway, or give a narrower universe or a larger ε."))  # fmt: skip
            return
        problem.set(None)
        try:
            request, _ = _request(acknowledged)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # Idempotent per preview: a second confirm of this preview returns the same release, uncharged.
                r = publish(request, preview_id=p.id)
        except (PrivriskError, ThresholdExceeded) as exc:
            _fail(exc)
            return
        result.set((p.id, r, tuple(p.warnings) if acknowledged else ()))

    for _name in _INPUTS:

        def _make(name: str = _name) -> None:
            def _out() -> Any:
                found = problem.get()
                return error_ui(found[1]) if found and found[0] == name else None

            _out.__name__ = f"{name}_error"
            render.ui(_out)

        _make()

    @render.ui
    def release_error() -> Any:
        found = problem.get()
        if found:
            return ui.div(error_ui(found[1]), ui.p("Nothing was released.", class_="privrisk-help"))
        return None

    def _published(preview_id: str) -> bool:
        done = result.get()
        return done is not None and done[0] == preview_id

    @render.ui
    def verdict() -> Any:
        from privrisk.release.statement import verdict as say

        done, found = result.get(), shown.get()
        if found is not None and not _published(found[0].id) and found[1] == _settings():
            return ui.p(
                ui.strong("If you release this: "),
                found[0].verdict(),
                class_="lead",
                id="release-verdict-text",
            )
        if done is not None:
            return ui.p(
                ui.strong("Released. "), say(done[1].statement), class_="lead", id="release-verdict-text"
            )
        return ui.p("Set up the queries, then preview the release: nothing is spent before you confirm.",
                    class_="lead", id="release-verdict-text")  # fmt: skip

    @render.ui
    def preview_panel() -> Any:
        found = shown.get()
        if found is None:
            return None
        p, asked, notes, acknowledged = found
        if asked != _settings():
            return ui.p(
                "The settings changed since the preview; preview the release again.", class_="privrisk-help"
            )
        if _published(p.id):
            return None
        return preview_view(p, notes=notes, confirm=p.refusal is None, acknowledged=acknowledged)

    @render.ui
    def public() -> Any:
        done = result.get()
        if done is None:
            return ui.p("Nothing released yet in this session.", class_="privrisk-help")
        return public_view(done[1], ledger=str(ledger), ledger_name=ledger_name, useless=done[2])

    @render.ui
    async def ledger_state() -> Any:
        ledger_stamp()
        result.get()  # this session's own release changes it too
        if file_stamp(ledger) is None:
            return ledger_view(ledger, None)
        try:
            # Summarised in a thread: a long ledger's composition takes a while, and the event loop serves others.
            summary = await asyncio.to_thread(ledger_summary, ledger, settings.key)
        except PrivriskError as exc:
            return ledger_view(ledger, None, _named(error_message(exc, "release")))
        return ledger_view(ledger, summary)

    @render.ui
    def downloads() -> Any:
        if result.get() is None:
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

        yield statement_html(result.get()[1])

    @render.download_button(filename="release.json")
    def download_public() -> Any:
        from privrisk.io.files import to_jsonable

        doc = {"schema_version": 1, **result.get()[1].public_dict()}
        yield json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2)

    @render.ui
    def internal() -> Any:
        done = result.get()
        if done is None or not input.show_internal():
            return None
        r = done[1]
        frame = r.internal
        head = [str(c) for c in frame.columns]
        rows = [
            ui.tags.tr(*(ui.tags.td("withheld" if v is None else number(v) if isinstance(v, float) else str(v))
                         for v in record))
            for record in frame.itertuples(index=False)
        ]  # fmt: skip
        return ui.div(
            ui.h3("INTERNAL ASSESSMENT — NOT FOR PUBLICATION", class_="h5 text-danger"),
            ui.p(
                "Shown only to you, the operator. It depends on the data (local sensitivity, record counts, "
                "clamping): beside a noisy mean, min or max it gives back the true value. The command line writes "
                "it only with --internal FILE.",
            ),
            scrolled(
                ui.tags.table(
                    ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in head))),
                    ui.tags.tbody(*rows),
                    class_="table table-sm",
                ),
                "The internal assessment",
            ),
            ui.p(r.withheld, class_="privrisk-help") if r.withheld else None,
            class_="privrisk-internal",
            id="release-internal-box",
        )

    @render.ui
    def command() -> Any:
        kept = uploads.current()
        if input.example():
            name = EXAMPLES.get(input.example(), ("DATA",))[0]
        else:
            name = "DATA" if kept is None else kept.name
        options: dict[str, Any] = {"file": name}
        rows = builder_rows({k: input[k]() for k in row_kinds})
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
            "ledger": ledger_name,
            "ledger_key": "KEY_FILE" if settings.key is not None else None,
            "allow_large_epsilon": bool(input.allow_large_epsilon()),
            "internal": "internal.json" if input.show_internal() else None,
        }
        line = command_line("release", **options)
        parts = [ui.div(line, class_="privrisk-command", id="release-command-line")]
        if spec_text:
            parts += [ui.p("with this release.toml:", class_="privrisk-help mt-2 mb-1"),
                      ui.tags.pre(spec_text, class_="privrisk-command", id="release-spec-toml")]  # fmt: skip
        return ui.TagList(*parts)
