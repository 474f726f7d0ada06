"""The app's page "Release": noisy answers with the public statement, a budget and a ledger (``privrisk release``).

The release is :func:`privrisk.release.mechanisms.noisy_release`, as on the command line: Laplace noise of scale
b = Δf/ε from OpenDP, the public statement at the total ε (Mehner et al., eqs. 2–4; sequential composition, §3.4),
the budget checked before any noise is drawn, and a ledger charged only with a finished release. The ledger is
the operator's uploaded file, copied into this session's private folder; the updated ledger is downloaded. The
internal assessment (local sensitivity, record counts) is shown only on request, inside a box marked NOT FOR
PUBLICATION: beside a noisy mean it gives back the true value.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

from shiny import module, reactive, render, ui

from privrisk._validation import parse_epsilon
from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app._shared import (
    command_line,
    error_input,
    error_message,
    error_ui,
    preset_inputs,
    read_upload,
    session_folder,
    upload_path,
)
from privrisk.errors import PrivriskError, ThresholdExceeded

ID = "release"
TITLE = "Release"

__all__ = ["ID", "TITLE", "page_server", "page_ui", "parse_queries", "public_view"]

_INPUTS = ("file", "queries", "spec", "public_n", "budget", "ledger", "ledger_key")
_EXAMPLE_QUERIES = "distance mean ln3 0,700\ndistance median 0.5 0,700"


def parse_queries(text: str, *, missing: str | None = None) -> list[Any]:
    """The release's queries from lines ``column query epsilon LO,HI`` (as ``--column --query --epsilon
    --universe``); blank lines and ``#`` comments are skipped.

    Example:
        >>> [q.label for q in parse_queries("hours mean ln3 0,24\\nhours max 0.5 0,24")]
        ['mean(hours)', 'max(hours)']
    """
    from privrisk.release.spec import ReleaseQuery

    queries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4:
            raise PrivriskError(
                f"queries: line {number} has {len(parts)} parts; write 'column query epsilon LO,HI', "
                "e.g. 'hours mean ln3 0,24'",
                param="queries",
            )
        column, query, epsilon, universe = parts
        bounds = universe.split(",")
        try:
            lo, hi = (float(b) for b in bounds)
        except ValueError:
            raise PrivriskError(
                f"queries: line {number}: the universe {universe!r} is not two numbers LO,HI", param="queries"
            ) from None
        try:
            queries.append(ReleaseQuery(column, query, epsilon, (lo, hi), missing))
        except PrivriskError as exc:
            raise PrivriskError(f"queries: line {number}: {exc}", param="queries") from None
    if not queries:
        raise PrivriskError("queries: give at least one line 'column query epsilon LO,HI'", param="queries")
    return queries


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    examples = {name: f"{path} ({what})" for name, (path, _, what) in EXAMPLES.items()}
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_file("file", "Data file (CSV, Parquet, Stata .dta, SPSS .sav)"),
            ui.output_ui("file_error"),
            ui.input_select("example", "… or an example", {"": "(none)", **examples}),
            ui.input_radio_buttons(
                "queries_from", "Queries", {"form": "typed here", "spec": "from a release.toml"}, inline=True
            ),
            ui.panel_conditional(
                "input.queries_from === 'form'",
                ui.input_text_area(
                    "queries",
                    "One per line: column query ε LO,HI",
                    value="",
                    placeholder=_EXAMPLE_QUERIES,
                    rows=3,
                ),
                ui.input_text("missing", "Missing codes (negative, or -1,-3)", placeholder="negative"),
            ),
            ui.panel_conditional("input.queries_from === 'spec'", ui.input_file("spec", "release.toml")),
            ui.output_ui("queries_error"),
            ui.input_text("public_n", "Published number of people (optional)", placeholder="e.g. 30000"),
            ui.output_ui("public_n_error"),
            ui.input_text("budget", "Budget: the largest total ε (optional)", placeholder="e.g. 2"),
            ui.output_ui("budget_error"),
            ui.input_file("ledger", "Ledger (JSON, optional: a new one is started otherwise)"),
            ui.input_password("ledger_key", "Ledger key (for a keyed ledger)"),
            ui.output_ui("ledger_error"),
            ui.input_checkbox("allow_large_epsilon", "Release even with a total ε above 20", value=False),
            width=380,
            title="The release",
        ),
        ui.h2("Release noisy answers"),
        ui.p(
            "Each press of the button draws fresh Laplace noise (from OpenDP, not seeded) and charges the ledger "
            "with the release's ε. The universe LO,HI must be fixed before looking at the data: values outside "
            "are clamped. A release that would exceed the budget is refused before any noise is drawn.",
            class_="privrisk-help",
        ),
        # Disabled by the click itself, before a second click of a double-click can land; the server enables it
        # again when the release is done (or refused): one click, one release, one entry in the ledger.
        ui.input_action_button("release", "Release", class_="btn-primary", onclick="this.disabled = true"),
        ui.output_ui("release_error"),
        ui.output_ui("public"),
        ui.output_ui("downloads"),
        ui.input_checkbox(
            "show_internal", "Show the internal assessment (for you, the operator, only)", value=False
        ),
        ui.output_ui("internal"),
        ui.h5("The same on the command line"),
        ui.output_ui("command"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: the ledger of this session is a private copy; nothing is released without the
    button."""
    from privrisk.release.mechanisms import noisy_release
    from privrisk.release.spec import check_public_n, read_release_spec

    used = preset_inputs(
        session,
        {"queries": "text", "missing": "text", "public_n": "text", "budget": "text", "example": "select",
         "allow_large_epsilon": "checkbox"},
    )  # fmt: skip
    if "queries" not in used:
        ui.update_text_area("queries", value=_EXAMPLE_QUERIES)
    result: reactive.Value[Any] = reactive.value(None)
    problem: reactive.Value[tuple[str, str] | None] = reactive.value(None)
    ledger_name = reactive.value("ledger.json")
    notes: reactive.Value[list[str]] = reactive.value([])

    def ledger_path() -> Path:
        return session_folder(session) / "ledger.json"

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

    def _data() -> tuple[str, Any]:
        fileinfo = input.file()
        if fileinfo:
            _, name = upload_path(fileinfo)
            return name, read_upload(fileinfo, max_bytes=max_upload)
        if input.example():
            return EXAMPLES[input.example()][0], example_frame(input.example())
        raise PrivriskError("upload a data file or choose an example", param="file")

    def _public_n() -> int | None:
        text = input.public_n().strip().replace(",", "").replace("_", "")
        if not text:
            return None
        try:
            value: Any = float(text)
        except ValueError:
            value = text
        return check_public_n(value)

    def _queries() -> tuple[list[Any], int | None]:
        public_n = _public_n()
        if input.queries_from() == "spec":
            fileinfo = input.spec()
            path, name = upload_path(fileinfo)
            try:
                spec = read_release_spec(path)
            except PrivriskError as exc:
                raise PrivriskError(str(exc).replace(str(path), name), param="spec") from None
            if public_n is None:
                public_n = spec.public_n
            return list(spec.queries), public_n
        return parse_queries(input.queries(), missing=input.missing().strip() or None), public_n

    @reactive.effect
    @reactive.event(input.release)
    def _release() -> None:
        try:
            _release_once()
        finally:
            ui.update_action_button("release", disabled=False)

    def _release_once() -> None:
        problem.set(None)
        notes.set([])
        try:
            name, frame = _data()
            queries, public_n = _queries()
            budget = input.budget().strip() or None
            if budget is not None:
                parse_epsilon(budget, name="budget")
            key = input.ledger_key() or None
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = noisy_release(
                    frame,
                    queries,
                    public_n=public_n,
                    budget=budget,
                    ledger=ledger_path(),
                    source=name,
                    allow_large_epsilon=bool(input.allow_large_epsilon()),
                    key=key,
                )
            notes.set([f"warning: {w.message}" for w in caught])
        except ThresholdExceeded as exc:
            text = _named(str(exc))
            problem.set(("budget", "--" + text if text.startswith("budget:") else text))
            return
        except PrivriskError as exc:
            message = _named(error_message(exc, "release"))
            problem.set((error_input(message, _INPUTS, "file"), message))
            return
        result.set(r)

    def _named(text: str) -> str:
        return text.replace(str(ledger_path()), ledger_name.get())

    for _name in ("file", "queries", "public_n", "budget", "ledger"):

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

    @render.ui
    def public() -> Any:
        r = result.get()
        if r is None:
            return ui.p("Nothing released yet in this session.", class_="privrisk-help")
        return public_view(r, ledger=str(ledger_path()), ledger_name=ledger_name.get(), notes=notes.get())

    @render.ui
    def downloads() -> Any:
        if result.get() is None:
            return None
        return ui.div(
            ui.download_button("download_ledger", "Download the updated ledger"),
            ui.download_button("download_public", "Download the public release (JSON)", class_="ms-2"),
            class_="my-2",
        )

    @render.download_button(filename=lambda: ledger_name.get())
    def download_ledger() -> Any:
        yield ledger_path().read_bytes()

    @render.download_button(filename="release.json")
    def download_public() -> Any:
        from privrisk.io.files import to_jsonable

        r = result.get()
        doc = {"schema_version": 1, **r.public_dict()}
        if doc.get("ledger"):
            doc["ledger"] = {**doc["ledger"], "path": ledger_name.get()}
        yield json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2)

    @render.ui
    def internal() -> Any:
        r = result.get()
        if r is None or not input.show_internal():
            return None
        frame = r.internal
        head = [str(c) for c in frame.columns]
        rows = [
            ui.tags.tr(*(ui.tags.td("withheld" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v))
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
        try:
            name = (
                upload_path(input.file())[1] if input.file() else EXAMPLES.get(input.example(), ("DATA",))[0]
            )
        except PrivriskError:
            name = "DATA"
        options: dict[str, Any] = {"file": name}
        lines = [ln.split("#", 1)[0].split() for ln in input.queries().splitlines()]
        lines = [ln for ln in lines if ln]
        spec_text = None
        if input.queries_from() == "spec" or len(lines) != 1 or len(lines[0]) != 4:
            options["spec"] = "release.toml"
            if input.queries_from() == "form":
                spec_text = _spec_toml(lines, input.missing().strip() or None)
        else:
            column, query, epsilon, universe = lines[0]
            options |= {"column": column, "query": query, "epsilon": epsilon, "universe": universe,
                        "missing": input.missing().strip() or None}  # fmt: skip
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


#: The columns of :meth:`Release.answer_rows` and the class each cell carries on the page (the tests find them).
_ANSWER_HEAD = ("answer", "noise", "ε or ρ", "universe", "scale", "noisy value", "95 % interval")
_ANSWER_CLASSES = ("", "", "text-end", "", "text-end release-scale", "text-end release-noisy", "release-interval")


def public_view(release: Any, *, ledger: str | None = None, ledger_name: str = "ledger.json",
                notes: list[str] | tuple[str, ...] = ()) -> Any:  # fmt: skip
    """The public part of a release as the page shows it, from the library's own rows and sentences
    (:meth:`~privrisk.release.statement.Release.answer_rows`, ``findings``, ``ledger_line``), as the command line
    prints them: a Gaussian answer (ρ, no ε) is shown like a Laplace one. ``ledger`` (the session's private
    path) is shown as ``ledger_name``.

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
        ui.tags.tr(*(ui.tags.td(cell, class_=cls or None) for cell, cls in zip(row, _ANSWER_CLASSES, strict=True)))
        for row in release.answer_rows()
    ]
    parts = [
        ui.h4("Public: the noisy answers (the true values are never shown)"),
        ui.tags.table(
            ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in _ANSWER_HEAD))),
            ui.tags.tbody(*rows),
            class_="table table-sm",
            id="release-answers",
        ),
        ui.p(NOISE_NOTE, class_="privrisk-help"),
        ui.h4("Public statement (depends only on ε and the published n; safe to publish)"),
        ui.tags.ul(*(ui.tags.li(line) for line in release.findings()), id="release-statement"),
    ]
    line = release.ledger_line()
    if line is not None:
        if ledger is not None:
            line = line.replace(ledger, ledger_name)
        parts.append(ui.p(line, id="release-ledger-line"))
    note = release.budget_note()
    for text in [*notes, *([f"Note: {note}."] if note else [])]:
        parts.append(ui.p(text, class_="text-warning-emphasis"))
    return ui.TagList(*parts)


def _spec_toml(lines: list[list[str]], missing: str | None) -> str:
    """The release.toml of the typed queries (for the command line with --spec)."""
    out = []
    if missing:
        out.append(f"missing = {json.dumps(missing)}\n")
    for parts in lines:
        if len(parts) != 4:
            continue
        column, query, epsilon, universe = parts
        try:
            eps = json.dumps(float(epsilon))
        except ValueError:
            eps = json.dumps(epsilon)
        out.append(
            f"[[query]]\ncolumn = {json.dumps(column)}\nquery = {json.dumps(query)}\nepsilon = {eps}\n"
            f"universe = [{universe}]\n"
        )
    return "\n".join(out)
