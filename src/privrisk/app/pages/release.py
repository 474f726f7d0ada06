"""The app's page "Release": noisy answers in three steps, set up → preview → confirm (``privrisk release``).

The page only maps its inputs onto :class:`privrisk.release.request.ReleaseRequest` and calls
:func:`~privrisk.release.request.preview` and :func:`~privrisk.release.transaction.publish`, as the command line
does. The preview shows, before any ε is spent, each answer's noise scale, expected error and 95 % interval and
warns when an answer would be useless; confirming publishes that preview once (a double-click or a repeated
confirm returns the same release and charges the ledger once). The ledger is the operator's uploaded file, copied
into this session's private folder; the updated ledger is downloaded, with the public statement as a readable page
and the public release as JSON (neither holds a path of the server). The internal assessment (local sensitivity,
record counts) is shown only on request, inside a box marked NOT FOR PUBLICATION.

The data is the session's one upload (:func:`privrisk.app._shared.session_upload`): a file uploaded on any page is
offered here by name, without a second upload, with the builder's first query on its first numeric column that is
not an id and none of an example's ε or bounds left in place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

from shiny import module, reactive, render, ui

from privrisk._format import number, plain
from privrisk._validation import QUERIES
from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app._shared import (
    KeptUpload,
    command_line,
    error_input,
    error_message,
    error_ui,
    keep_upload,
    preset_inputs,
    query_params,
    session_folder,
    session_upload,
    upload_path,
)
from privrisk.errors import PrivriskError, ThresholdExceeded

ID = "release"
TITLE = "Release"

__all__ = ["ID", "TITLE", "page_server", "page_ui", "parse_queries", "public_view", "statement_view"]

#: How many queries the builder offers (rows whose column is empty are left out).
ROWS = 3
_ROW_FIELDS = ("column", "query", "mechanism", "epsilon", "lower", "upper")
_INPUTS = (
    "file",
    "spec",
    "public_n",
    "budget",
    "ledger",
    "ledger_key",
    *(f"q{i}" for i in range(1, ROWS + 1)),
)
#: The example's queries: (column, query, mechanism, ε or ρ, lower, upper).
_EXAMPLE_ROWS = {
    "distance_work": [("distance", "mean", "laplace", "ln3", 0.0, 700.0),
                      ("distance", "median", "laplace", "0.5", 0.0, 700.0)],
    "claims": [("claims", "mean", "laplace", "1", 0.0, 100_000.0)],
}  # fmt: skip
#: Library parameters whose input has another name on this page.
_PARAM_INPUTS = {"key": "ledger_key", "key_file": "ledger_key", "data": "file", "queries": "q1"}
_ID_NAME = re.compile(r"(^|[_\W])id$", re.IGNORECASE)


def parse_queries(text: str, *, missing: str | None = None) -> list[Any]:
    """Queries from lines ``column query epsilon LO,HI`` (the ``queries`` URL preset of earlier versions, which
    fills the query builder); blank lines and ``#`` comments are skipped.

    Example:
        >>> [q.label for q in parse_queries("hours mean ln3 0,24\\nhours max 0.5 0,24")]
        ['mean(hours)', 'max(hours)']
    """
    from privrisk.release.spec import ReleaseQuery

    queries = []
    for number_, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4:
            raise PrivriskError(
                f"queries: line {number_} has {len(parts)} parts; write 'column query epsilon LO,HI'",
                param="queries",
            )
        column, query, epsilon, universe = parts
        try:
            lo, hi = (float(b) for b in universe.split(","))
        except ValueError:
            raise PrivriskError(
                f"queries: line {number_}: the universe {universe!r} is not two numbers LO,HI",
                param="queries",
            ) from None
        try:
            queries.append(ReleaseQuery(column, query, epsilon, (lo, hi), missing))
        except PrivriskError as exc:
            raise PrivriskError(f"queries: line {number_}: {exc}", param="queries") from None
    return queries


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
            # Empty until typed (Shiny renders None as an empty field): a bound is never a placeholder taken
            # for a value, and two number fields read decimals as the browser's language writes them.
            ui.div(
                ui.input_numeric(f"q{i}_lower", "Lowest possible value", value=None),  # type: ignore[arg-type]
                ui.input_numeric(f"q{i}_upper", "Highest possible value", value=None),  # type: ignore[arg-type]
                class_="d-flex gap-2",
            ),
            ui.output_ui(f"q{i}_error"),
        ),
        class_="release-query mb-2",
        id=f"release-query-{i}",
    )


@module.ui
def page_ui() -> Any:
    """The page's layout: the set-up in the sidebar; verdict, preview, confirm and result in the main panel."""
    return ui.layout_sidebar(
        ui.sidebar(
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
            ui.input_file("ledger", "Ledger (JSON, optional: a new one is started otherwise)"),
            ui.input_password("ledger_key", "Ledger key (for a keyed ledger)"),
            ui.output_ui("ledger_error"),
            ui.output_ui("ledger_key_error"),
            ui.input_checkbox("allow_large_epsilon", "Release even with a total ε above 20", value=False),
            width=380,
            title="The release",
        ),
        ui.h2("Release noisy answers"),
        ui.output_ui("verdict"),
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
        ui.h5("The same on the command line"),
        ui.output_ui("command"),
    )


def _data_choices(kept: KeptUpload | None) -> dict[str, str]:
    """The data choices: the session's upload by name once there is one (the empty choice), or an example."""
    examples = {name: f"{path} ({what})" for name, (path, _, what) in EXAMPLES.items()}
    return {"": "(none)" if kept is None else kept.label, **examples}


def _rows(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The builder's rows that name a column."""
    rows = []
    for i in range(1, ROWS + 1):
        row = {f: values.get(f"q{i}_{f}") for f in _ROW_FIELDS}
        if row["column"]:
            rows.append({"i": i, **row})
    return rows


def _query_of(row: dict[str, Any], missing: str | None) -> Any:
    """A builder row as a :class:`~privrisk.release.spec.ReleaseQuery` (its errors name the parameter)."""
    from privrisk.release.spec import ReleaseQuery

    text = (row["epsilon"] or "").strip()
    if not text:
        raise PrivriskError("epsilon: required", param="epsilon")
    bounds = []
    for name, label in (("lower", "lowest"), ("upper", "highest")):
        if row[name] is None or row[name] == "":
            raise PrivriskError(f"universe: give the {label} possible value", param="universe")
        bounds.append(float(row[name]))
    gaussian = row["mechanism"] == "gaussian"
    rho: Any = None
    if gaussian:
        try:
            rho = float(text)
        except ValueError:
            raise PrivriskError(f"rho: must be a number > 0, got {text!r}", param="rho") from None
    return ReleaseQuery(
        row["column"], row["query"], None if gaussian else text, bounds, missing,
        mechanism=row["mechanism"] or "laplace", rho=rho,
    )  # fmt: skip


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: the ledger of this session is a private copy; nothing is charged without a
    preview and its confirmation."""
    from privrisk.release.budget import as_budget
    from privrisk.release.request import ReleaseRequest, preview
    from privrisk.release.spec import check_public_n, read_release_spec
    from privrisk.release.transaction import publish

    row_kinds = {f"q{i}_{f}": "numeric" if f in ("lower", "upper") else "text" if f == "epsilon" else "select"
                 for i in range(1, ROWS + 1) for f in _ROW_FIELDS}  # fmt: skip
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
                for q, epsilon in zip(parse_queries(params["queries"]), _epsilon_texts(params["queries"]), strict=True)
            ]  # fmt: skip
        except PrivriskError:
            url_rows = []
    url_columns = {i: params[f"q{i}_column"] for i in range(1, ROWS + 1) if f"q{i}_column" in params}
    first_fill = reactive.value(True)

    result: reactive.Value[Any] = reactive.value(None)
    shown: reactive.Value[tuple[Any, tuple[Any, ...], list[str]] | None] = reactive.value(None)
    problem: reactive.Value[tuple[str, str] | None] = reactive.value(None)
    ledger_name = reactive.value("ledger.json")

    def ledger_path() -> Path:
        return session_folder(session) / "ledger.json"

    def _named(text: str) -> str:
        path = ledger_path()
        return text.replace(os.path.realpath(path), ledger_name.get()).replace(str(path), ledger_name.get())

    @reactive.effect
    @reactive.event(input.ledger)
    def _take_ledger() -> None:
        # A new uploaded ledger replaces this session's copy; the upload itself is never written to.
        try:
            path, name = upload_path(input.ledger())
        except PrivriskError as exc:
            problem.set(("ledger", error_message(exc, "release")))
            return
        shutil.copyfile(path, ledger_path())
        ledger_name.set(name)
        problem.set(None)

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
            defaults = [dict(zip(_ROW_FIELDS, r, strict=True)) for r in _EXAMPLE_ROWS[example]]
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
                ui.update_numeric(f"q{i}_lower", value=row["lower"])
                ui.update_numeric(f"q{i}_upper", value=row["upper"])
            elif upload and not first:
                # A new file clears the example's settings: its ε and bounds belong to another column. (Shiny's
                # update_numeric leaves a field alone for None; the input's own message empties it.)
                ui.update_text(f"q{i}_epsilon", value="")
                for bound in ("lower", "upper"):
                    session.send_input_message(f"q{i}_{bound}", {"value": ""})

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
        rows = tuple(input[f"q{i}_{f}"]() for i in range(1, ROWS + 1) for f in _ROW_FIELDS)
        return (uploads.current(), input.example(), input.queries_from(), input.spec(), rows, input.missing(),
                input.public_n(), input.budget(), input.ledger(), input.ledger_key(), input.allow_large_epsilon(),
                ledger_name.get())  # fmt: skip

    def _queries() -> tuple[list[Any], int | None]:
        public_n = _public_n()
        if input.queries_from() == "spec":
            path, name = upload_path(input.spec())
            try:
                spec = read_release_spec(path)
            except PrivriskError as exc:
                raise PrivriskError(str(exc).replace(str(path), name), param="spec") from None
            return list(spec.queries), public_n if public_n is not None else spec.public_n
        rows = _rows({k: input[k]() for k in row_kinds})
        if not rows:
            raise _AtRow("q1", "Choose a column for the first query.")
        missing = input.missing().strip() or None
        queries = []
        for row in rows:
            try:
                queries.append(_query_of(row, missing))
            except PrivriskError as exc:
                # The error goes next to its row, worded as the command line words it.
                raise _AtRow(f"q{row['i']}", error_message(exc, "release")) from None
        return queries, public_n

    def _request() -> tuple[Any, list[str]]:
        name, frame = _data()
        queries, public_n = _queries()
        budget = as_budget(input.budget().strip() or None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            request = ReleaseRequest(
                frame,
                tuple(queries),
                public_n=public_n,
                budget=budget,
                ledger=ledger_path(),
                key=input.ledger_key() or None,
                source=name,
                ledger_label=ledger_name.get(),
                allow_large_epsilon=bool(input.allow_large_epsilon()),
            )
        return request, [
            f"Warning: {error_message(PrivriskError(str(w.message)), 'release')}" for w in caught
        ]

    def _fail(exc: Exception) -> None:
        if isinstance(exc, _AtRow):
            problem.set((exc.row, exc.message))
            return
        if isinstance(exc, ThresholdExceeded):
            # A threshold is reported as an error of the budget's field, worded as the command line's.
            exc = PrivriskError(str(exc), param=exc.param)
        message = _named(error_message(exc, "release"))
        param = getattr(exc, "param", None)
        problem.set((_PARAM_INPUTS.get(param or "") or error_input(exc, _INPUTS, "file"), message))

    @reactive.effect
    @reactive.event(input.preview)
    def _preview() -> None:
        problem.set(None)
        shown.set(None)
        try:
            request, notes = _request()
            p = preview(request)
        except (PrivriskError, ThresholdExceeded) as exc:
            _fail(exc)
            return
        if p.refusal is not None:
            _fail(ThresholdExceeded(p.refusal))
        with reactive.isolate():
            shown.set((p, _settings(), notes))

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
        p, settings, _ = found
        if settings != _settings():
            problem.set(("file", "The settings changed since the preview; preview the release again."))
            return
        problem.set(None)
        try:
            request, _ = _request()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # Idempotent per preview: a second confirm of this preview returns the same release, uncharged.
                r = publish(request, preview_id=p.id)
        except (PrivriskError, ThresholdExceeded) as exc:
            _fail(exc)
            return
        result.set((p.id, r))

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
        p, settings, notes = found
        if settings != _settings():
            return ui.p(
                "The settings changed since the preview; preview the release again.", class_="privrisk-help"
            )
        if _published(p.id):
            return None
        return preview_view(p, notes=notes, confirm=p.refusal is None)

    @render.ui
    def public() -> Any:
        done = result.get()
        if done is None:
            return ui.p("Nothing released yet in this session.", class_="privrisk-help")
        return public_view(done[1], ledger=str(ledger_path()), ledger_name=ledger_name.get())

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

    @render.download_button(filename=lambda: ledger_name.get())
    def download_ledger() -> Any:
        yield ledger_path().read_bytes()

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
            ui.h4("INTERNAL ASSESSMENT — NOT FOR PUBLICATION", class_="text-danger"),
            ui.p(
                "Shown only to you, the operator. It depends on the data (local sensitivity, record counts, "
                "clamping): beside a noisy mean, min or max it gives back the true value. The command line writes "
                "it only with --internal FILE.",
            ),
            ui.div(
                ui.tags.table(
                    ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in head))),
                    ui.tags.tbody(*rows),
                    class_="table table-sm",
                ),
                style="overflow-x:auto",
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
        rows = _rows({k: input[k]() for k in row_kinds})
        missing = input.missing().strip() or None
        spec_text = None
        if input.queries_from() == "spec" or len(rows) != 1:
            options["spec"] = "release.toml"
            if input.queries_from() == "form":
                spec_text = _spec_toml(rows, missing)
        else:
            options |= _single_options(rows[0]) | {"missing": missing}
        options |= {
            "public_n": input.public_n().strip() or None,
            "budget": input.budget().strip() or None,
            "ledger": ledger_name.get(),
            "ledger_key": "KEY_FILE" if input.ledger_key() else None,
            "allow_large_epsilon": bool(input.allow_large_epsilon()),
            "internal": "internal.json" if input.show_internal() else None,
        }
        line = command_line("release", **options)
        parts = [ui.div(line, class_="privrisk-command", id="release-command-line")]
        if spec_text:
            parts += [ui.p("with this release.toml:", class_="privrisk-help mt-2 mb-1"),
                      ui.tags.pre(spec_text, class_="privrisk-command", id="release-spec-toml")]  # fmt: skip
        return ui.TagList(*parts)


class _AtRow(PrivriskError):
    """An error of one query of the builder, shown next to that row (worded already)."""

    def __init__(self, row: str, message: str) -> None:
        super().__init__(message, param=row)
        self.row, self.message = row, message


def _epsilon_texts(text: str) -> list[str]:
    """The ε of each ``column query ε LO,HI`` line as written (``ln3`` stays ``ln3``)."""
    return [ln.split("#", 1)[0].split()[2] for ln in text.splitlines() if ln.split("#", 1)[0].strip()]


def _bound(x: Any) -> str:
    return f"{float(x):g}" if x is not None and x != "" else "?"


def _single_options(row: dict[str, Any]) -> dict[str, Any]:
    """The command line's single-query options of a builder row."""
    gaussian = row["mechanism"] == "gaussian"
    return {
        "column": row["column"],
        "query": row["query"],
        "mechanism": "gaussian" if gaussian else None,
        "rho" if gaussian else "epsilon": (row["epsilon"] or "").strip() or "?",
        "universe": f"{_bound(row['lower'])},{_bound(row['upper'])}",
    }


def _spec_toml(rows: list[dict[str, Any]], missing: str | None) -> str:
    """The release.toml of the builder's queries (for the command line with --spec)."""
    out = []
    if missing:
        out.append(f"missing = {json.dumps(missing)}\n")
    for row in rows:
        text = (row["epsilon"] or "").strip()
        try:
            value = json.dumps(float(text))
        except ValueError:
            value = json.dumps(text)
        gaussian = row["mechanism"] == "gaussian"
        noise = f'mechanism = "gaussian"\nrho = {value}\n' if gaussian else f"epsilon = {value}\n"
        out.append(
            f"[[query]]\ncolumn = {json.dumps(row['column'])}\nquery = {json.dumps(row['query'])}\n{noise}"
            f"universe = [{_bound(row['lower'])}, {_bound(row['upper'])}]\n"
        )
    return "\n".join(out)


#: The columns of :meth:`ReleasePreview.rows` and the class each cell carries on the page (the tests find them).
_PREVIEW_HEAD = ("answer", "noise", "ε or ρ", "noise scale", "expected error", "95 % interval", "")
_PREVIEW_CLASSES = ("", "", "text-end", "text-end preview-scale", "text-end preview-error", "preview-interval",
                    "preview-warning text-danger")  # fmt: skip


def preview_view(p: Any, *, notes: list[str] | tuple[str, ...] = (), confirm: bool = True) -> Any:
    """A preview as the page shows it: the noise of each answer (:meth:`ReleasePreview.rows`), the warnings, and
    the button that confirms it (disabled by its own click, so a double-click sends one confirmation).

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, ReleaseRequest, preview
        >>> q = ReleaseQuery("income", "mean", 1, (0, 500_000))
        >>> "useless" in str(preview_view(preview(ReleaseRequest(pd.DataFrame({"income": [1.0]}), (q,)))))
        True
    """
    rows = [
        ui.tags.tr(*(ui.tags.td(c, class_=k or None) for c, k in zip(row, _PREVIEW_CLASSES, strict=True)))
        for row in p.rows()
    ]
    eps = sum(q.epsilon or 0.0 for q in p.queries)
    rho = sum(q.rho or 0.0 for q in p.queries)
    cost = " and ".join([*([f"ε = {number(eps)}"] if eps else []), *([f"ρ = {number(rho)}"] if rho else [])])
    parts = [
        ui.h3("2. Preview: nothing is drawn or spent yet", class_="fs-5 mt-3"),
        ui.div(
            ui.tags.table(
                ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in _PREVIEW_HEAD))),
                ui.tags.tbody(*rows),
                class_="table table-sm",
                id="release-preview-table",
            ),
            style="overflow-x:auto",
        ),
        ui.p(
            "Expected error: how far the published value lies from the data's on average. 95 % interval: in 95 of "
            "100 releases the noise is smaller than this.",
            class_="privrisk-help",
        ),
        *(ui.p(w + ".", class_="text-danger release-warning") for w in p.warnings),
        *(ui.p(n, class_="text-warning-emphasis") for n in notes),
    ]
    if confirm:
        parts += [
            ui.h3("3. Confirm", class_="fs-5"),
            # Disabled by the click itself, before a second click of a double-click can land; the server enables
            # it again when it is done, and a second confirmation of this preview charges nothing.
            ui.input_action_button(
                "confirm", f"Release and spend {cost}", class_="btn-danger", onclick="this.disabled = true"
            ),
        ]
    return ui.div(*parts, id="release-preview-panel")


#: The columns of :meth:`Release.answer_rows` and the class each cell carries on the page (the tests find them).
_ANSWER_HEAD = ("answer", "noise", "ε or ρ", "universe", "scale", "noisy value", "95 % interval")
_ANSWER_CLASSES = (
    "",
    "",
    "text-end",
    "",
    "text-end release-scale",
    "text-end release-noisy",
    "release-interval",
)


def statement_view(release: Any) -> Any:
    """The public statement as on its page (:func:`~privrisk.release.statement.statement_html`): the plain words
    shown, the technical annex folded in ``<details>``."""
    from privrisk.release.statement import statement_html

    page = statement_html(release)
    body = page[page.index("<main>") + len("<main>") : page.index("</main>")]
    # The page's own title is this page's h2; the statement's headings sit one level below.
    body = re.sub(r"<h1>.*?</h1>", "", body, flags=re.S).replace("<h2>", "<h5>").replace("</h2>", "</h5>")
    # The statement's own style is not loaded inside the app: its table takes the app's.
    body = body.replace("<table>", '<table class="table table-sm">')
    return ui.div(ui.HTML(body), id="release-statement-page", class_="release-statement")


def public_view(release: Any, *, ledger: str | None = None, ledger_name: str = "ledger.json") -> Any:
    """The public part of a release as the page shows it, from the library's own rows and sentences
    (:meth:`~privrisk.release.result.Release.answer_rows`, ``findings``, ``ledger_line``), as the command line
    prints them, with the public statement in plain words; a Gaussian answer (ρ, no ε) is shown like a Laplace
    one. ``ledger`` (a private path) is shown as ``ledger_name``.

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, noisy_release
        >>> r = noisy_release(pd.DataFrame({"h": [8.0, 6, 7]}),
        ...                   ReleaseQuery("h", "mean", None, (0, 24), mechanism="gaussian", rho=0.5))
        >>> "ρ = 0.5" in str(public_view(r))
        True
    """
    from privrisk.release.statement import NOISE_NOTE

    rows = [
        ui.tags.tr(
            *(
                ui.tags.td(plain(cell), class_=cls or None)
                for cell, cls in zip(row, _ANSWER_CLASSES, strict=True)
            )
        )
        for row in release.answer_rows()
    ]
    parts = [
        ui.h4("Public: the noisy answers (the true values are never shown)"),
        ui.div(
            ui.tags.table(
                ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in _ANSWER_HEAD))),
                ui.tags.tbody(*rows),
                class_="table table-sm",
                id="release-answers",
            ),
            style="overflow-x:auto",
        ),
        ui.h4("Public statement (depends only on ε and the published n; safe to publish)"),
        statement_view(release),
        ui.tags.details(
            ui.tags.summary("The statement in the command line's words"),
            ui.tags.ul(*(ui.tags.li(plain(line)) for line in release.findings()), id="release-statement"),
            ui.p(NOISE_NOTE, class_="privrisk-help"),
        ),
    ]
    line = release.ledger_line()
    if line is not None:
        if ledger is not None:
            line = line.replace(os.path.realpath(ledger), ledger_name).replace(ledger, ledger_name)
        parts.append(ui.p(plain(line), id="release-ledger-line"))
    note = release.budget_note()
    if note:
        parts.append(ui.p(f"Note: {note}.", class_="text-warning-emphasis"))
    return ui.TagList(*parts)
