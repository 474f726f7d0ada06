"""The app's page "Data and sensitivity": a column of an uploaded file, a query and a universe in; the global and
local sensitivity, their ratio and the risks out (``privrisk sensitivity``), with the Lee–Clifton attacker's
simulated success beside the bound (``privrisk attack``). The data is the session's one upload (a file uploaded on
any page, offered here by name with its first numeric non-id column chosen) or an example.

The numbers are those of the two commands: the same library calls in the same order (read the column, choose the
universe with :func:`privrisk.sensitivity.choose_universe`, :func:`privrisk.sensitivity.global_sensitivity`,
:func:`~privrisk.sensitivity.local_sensitivity`, :func:`~privrisk.sensitivity.sensitivity_ratio`, the risks of
:mod:`privrisk.risk`, :func:`privrisk.posterior.simulate_attack`). Allmann et al., §3.2 and eqs. (4)–(6).
"""

from __future__ import annotations

import asyncio
from typing import Any

from shiny import module, reactive, render, req, ui

from privrisk._format import epsilon_text, number, percent_3g
from privrisk._validation import check_query, check_whole
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
    quiet,
    session_upload,
    upload_columns,
    upload_path,
)
from privrisk.errors import PrivriskError

ID = "sensitivity"
TITLE = "Data and sensitivity"

__all__ = ["ID", "TITLE", "attack_document", "page_server", "page_ui", "sensitivity_verdict"]

_INPUTS = ("file", "column", "query", "universe", "universe_min", "universe_column", "epsilon", "missing",
           "neighbours", "method", "trials", "seed", "worlds")  # fmt: skip
_QUERIES = ("count", "sum", "mean", "median", "min", "max", "variance", "std")
MAX_APP_TRIALS = 1_000_000  # the command line allows 10⁷ (about a minute); the page keeps a run short


def attack_document(
    values: Any, *, query: str, epsilon: float, universe: Any, trials: int, seed: int, worlds: str
) -> dict[str, Any]:
    """``privrisk attack --json``'s numbers: the simulated success, the exact values and the bound.

    Example:
        >>> import numpy as np
        >>> from privrisk.sensitivity import Universe
        >>> d = attack_document(np.array([1.0, 3, 10, 17, 675]), query="mean", epsilon=1.0,
        ...     universe=Universe.from_values([1.0, 3, 10, 17, 675]), trials=20_000, seed=1, worlds="many")
        >>> d["n_worlds"], round(d["exact_risk"], 4), round(d["bound"], 4)
        (5, 0.2908, 0.2919)
    """
    from privrisk.attack import AttackSettings, run_attack

    # The page keeps a run short; every other rule is AttackSettings', the command line's own.
    check_whole(trials, name="trials", minimum=1, maximum=MAX_APP_TRIALS)
    settings = AttackSettings(query=query, epsilon=epsilon, universe=universe, trials=trials, seed=seed,
                              worlds=worlds)  # fmt: skip
    return run_attack(values, settings).to_dict()


def sensitivity_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """The page's first number and sentence, in plain words, from ``privrisk sensitivity``'s document.

    With ε: the two-worlds risk ρ_tw (Allmann et al., eq. 6), how often an attacker who knows every other record
    would tell from the answer whether one person is in the data, beside guessing, as natural frequencies.
    Without ε: the ratio Δv/Δf, how much of the worst case one record moves the answer on this data.

    Example:
        >>> doc = {"query": "mean", "column": "distance", "n": 5, "global_sensitivity": 337.0,
        ...        "local_sensitivity": 133.46, "ratio": 0.396, "epsilon": 1.0, "two_worlds": 0.5977}
        >>> sensitivity_verdict(doc)
        ('59.8 %', 'At a privacy loss of 1, an attacker who knows every other record would tell from the mean of distance whether one person is in the data right about 60 times in 100; guessing, about 50 in 100.')
        >>> sensitivity_verdict({**doc, "epsilon": None})[1]
        'One record moves the mean of distance by at most 133.5 on your data: 39.6 % of the 337 the universe allows, which lowers the risk of releasing it.'
    """
    from privrisk._format import natural_frequencies

    what = f"the {doc['query']} of {doc['column']}"
    if doc.get("epsilon") is None:
        return percent_3g(doc["ratio"]), (
            f"One record moves {what} by at most {number(doc['local_sensitivity'])} on your data: "
            f"{percent_3g(doc['ratio'])} of the {number(doc['global_sensitivity'])} the universe allows, which lowers "
            "the risk of releasing it."
        )
    attacker, guess = natural_frequencies(doc["two_worlds"], 0.5)
    base = f"{attacker.base:,}"
    return percent_3g(doc["two_worlds"]), (
        f"At a privacy loss of {epsilon_text(doc['epsilon'])}, an attacker who knows every other record would tell "
        f"from {what} "
        f"whether one person is in the data right {attacker.text()} times in {base}; guessing, {guess.text()} "
        f"in {base}."
    )


def _data_choices(kept: KeptUpload | None) -> dict[str, str]:
    """The data choices: the session's upload by name once there is one (the empty choice), or an example."""
    examples = {name: f"{path} ({what})" for name, (path, _, what) in EXAMPLES.items()}
    return {"": "(none)" if kept is None else kept.label, **examples}


@module.ui
def page_ui() -> Any:
    """The page's layout: the data and settings on the left, the results on the right."""
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_file(
                "file",
                "Data file (CSV, Parquet, Stata .dta, SPSS .sav)",
                accept=[".csv", ".tsv", ".txt", ".gz", ".parquet", ".pq", ".dta", ".sav", ".zsav"],
            ),
            ui.output_ui("file_error"),
            ui.input_select("example", "… or an example", _data_choices(None)),
            ui.input_select("column", "Column (numeric)", []),
            ui.output_ui("column_error"),
            ui.input_select("query", "Query", list(_QUERIES), selected="mean"),
            ui.input_radio_buttons(
                "universe_kind",
                "Universe: the values a record may take",
                {
                    "own": "the column's own values",
                    "bounds": "bounds LO,HI",
                    "file": "the values of another file",
                },
            ),
            ui.panel_conditional(
                "input.universe_kind === 'bounds'",
                ui.input_text("universe", "Bounds LO,HI", placeholder="1,675"),
            ),
            ui.panel_conditional(
                "input.universe_kind === 'file'",
                ui.input_file("universe_file", "Universe file"),
                ui.input_select("universe_column", "Its column", []),
            ),
            ui.output_ui("universe_error"),
            ui.input_text("universe_min", "Lower the universe's minimum to (optional)", placeholder="e.g. 0"),
            ui.output_ui("universe_min_error"),
            ui.input_text("missing", "Missing codes (negative, or -1,-3)", placeholder="negative"),
            ui.output_ui("missing_error"),
            ui.input_text("epsilon", "ε (a number, or ln3)", value="1"),
            ui.output_ui("epsilon_error"),
            ui.input_select("neighbours", "Neighbours", ["unbounded", "bounded"]),
            ui.input_select(
                "method", "Local sensitivity", {"exact": "exact", "paper": "paper (Allmann et al.)"}
            ),
            width=360,
            title="Data",
        ),
        ui.h2("Sensitivity of a query on your data"),
        ui.p(
            "The global sensitivity Δf is how much one record can change the answer over every data set the "
            "universe allows; the local sensitivity Δv how much it changes on your data. Their ratio Δv/Δf "
            "lowers the risk of a release (Allmann et al., §3.2). Uploads stay in this browser session and are "
            "deleted when it ends.",
            class_="privrisk-help",
        ),
        ui.output_ui("results"),  # the verdict first, then what was read and the universe
        ui.output_ui("summary"),
        ui.card(
            ui.card_header("The attacker, simulated (privrisk attack)"),
            ui.p(
                "The attacker knows every record but one and guesses which is missing from one noisy answer "
                "(Lee and Clifton). The simulated success stays below the bound ρ_mw.",
                class_="privrisk-help",
            ),
            ui.layout_columns(
                ui.input_numeric("trials", "Simulated attacks", value=100_000, min=1, max=MAX_APP_TRIALS),
                ui.input_numeric("seed", "Seed", value=1, min=0),
                ui.input_select("worlds", "Worlds", {"many": "many: all n", "two": "two: most different"}),
                fill=False,
            ),
            ui.output_ui("trials_error"),
            ui.div(
                ui.input_task_button("run_attack", "Simulate the attack"),
                ui.input_action_button("cancel_attack", "Cancel", class_="btn-outline-secondary ms-2"),
            ),
            ui.output_ui("attack"),
            fill=False,
        ),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic; the uploaded table lives in this session only."""
    from privrisk.io.data import numeric_values, parse_missing
    from privrisk.sensitivity import SensitivitySettings, run_sensitivity

    params = query_params(session)
    preset_inputs(
        session,
        {"query": "select", "universe": "text", "universe_min": "text", "missing": "text", "epsilon": "text",
         "neighbours": "select", "method": "select", "trials": "numeric", "seed": "numeric", "worlds": "select",
         "example": "select"},
    )  # fmt: skip
    if "universe" in params:
        ui.update_radio_buttons("universe_kind", selected="bounds")
    wanted_column = reactive.value(params.get("column"))

    uploads = session_upload(session, max_bytes=max_upload)
    keep_problem: reactive.Value[PrivriskError | None] = reactive.value(None)

    # This page's upload becomes the session's: every page that takes data offers it.
    keep_upload("file", input, uploads, keep_problem)

    @uploads.on_new
    def _offer(kept: KeptUpload) -> None:
        # A file uploaded on any page of this session: offered as the data (the example is unselected).
        keep_problem.set(None)
        ui.update_select("example", choices=_data_choices(kept), selected="")

    @reactive.calc
    def source() -> tuple[str, list[str], Any]:
        """(the file's name for messages and the command line, its columns, a reader of one column)."""
        failed = keep_problem.get()
        if failed is not None:
            raise failed
        example = input.example()
        if example:
            frame = example_frame(example)
            return EXAMPLES[example][0], list(frame.columns), lambda col: frame[col]
        kept = uploads.current()
        if kept is None:
            req(False)  # no data chosen yet: the page waits without a message
            return "", [], None
        return kept.name, uploads.columns(), lambda col: uploads.read(columns=[col])[col]

    @reactive.calc
    def measured() -> list[str] | None:
        """The upload's columns a query may run on (numeric, not an id); None for an example or an unread file."""
        if input.example() or uploads.current() is None:
            return None
        try:
            return list(uploads.profile().numeric)  # read once per upload, for every page
        except PrivriskError:
            return None

    @reactive.effect
    def _columns() -> None:
        try:
            _, columns, _ = source()
        except PrivriskError:
            columns = []
        numeric = measured()
        wanted = wanted_column.get()
        with reactive.isolate():
            current = input.column()
        sensible = numeric if numeric else [c for c in columns if c.lower() != "id"]
        selected = wanted if wanted in columns else current if current in sensible else None
        if selected is None:
            selected = sensible[0] if sensible else columns[0] if columns else None
        ui.update_select("column", choices=columns, selected=selected)

    @reactive.calc
    def column_values() -> Any:
        name, columns, read = source()
        column = input.column()
        req(column)
        if column not in columns:
            req(False)
        missing = input.missing().strip() or None
        parse_missing(missing)
        return numeric_values(read(column), name=column, missing=missing, source=name)

    @reactive.calc
    def universe_file_values() -> tuple[str, Any] | None:
        if input.universe_kind() != "file":
            return None
        fileinfo = input.universe_file()
        if not fileinfo:
            raise PrivriskError(
                "universe_file: upload the file whose column is the universe", param="universe_file"
            )
        path, name = upload_path(fileinfo)
        columns = upload_columns(fileinfo, max_bytes=max_upload)
        return name, (path, columns)

    @reactive.effect
    def _universe_columns() -> None:
        try:
            found = universe_file_values()
        except PrivriskError:
            found = None
        columns = found[1][1] if found else []
        wanted = params.get("universe_column")
        ui.update_select("universe_column", choices=columns, selected=wanted if wanted in columns else None)

    @reactive.calc
    def settings() -> Any:
        """The inputs as :class:`privrisk.sensitivity.SensitivitySettings`, as ``privrisk sensitivity`` reads them."""
        kind = input.universe_kind()
        bounds = input.universe().strip() if kind == "bounds" else None
        if kind == "bounds" and not bounds:
            raise PrivriskError("universe: give the bounds LO,HI", param="universe")
        found = universe_file_values()
        return SensitivitySettings(
            query=input.query(), universe=bounds, universe_file=found[1][0] if found else None,
            universe_column=(input.universe_column() or None) if found else None,
            universe_min=input.universe_min().strip() or None, neighbours=input.neighbours(),
            method=input.method(), epsilon=input.epsilon().strip() or None, missing=input.missing().strip() or None,
        )  # fmt: skip

    @reactive.calc
    def chosen() -> tuple[Any, Any, str]:
        """(the column, its universe, the universe's description), for the summary and the attack."""
        col = column_values()
        found = universe_file_values()
        u, how = settings().universe_for(
            col.values,
            universe_file_name=found[0] if found else None,
            name=f"{source()[0]}: column {col.name!r}",
        )
        return col, u, how

    @reactive.calc
    def epsilon() -> float | None:
        return settings().epsilon

    @reactive.calc
    def document() -> dict[str, Any]:
        col = column_values()
        found = universe_file_values()
        return run_sensitivity(
            col.values, settings(), column=col.name, source=source()[0], data=col.as_dict(),
            universe_file_name=found[0] if found else None,
        )  # fmt: skip

    def _problem() -> tuple[str, str] | None:
        """(the input it belongs to, the one-line message) of the first thing wrong, or None."""
        for step in (source, column_values, settings, chosen, document):
            try:
                step()
            except PrivriskError as exc:
                return error_input(exc, _INPUTS, "file"), error_message(exc, "sensitivity")
            except Exception as exc:  # req(): nothing chosen yet
                if type(exc).__name__ == "SilentException":
                    return None
                raise
        return None

    def _error_output(name: str) -> Any:
        problem = _problem()
        return error_ui(problem[1]) if problem and problem[0] == name else None

    for _name in ("file", "column", "universe", "universe_min", "missing", "epsilon"):

        def _make(name: str = _name) -> None:
            def _out() -> Any:
                return _error_output(name)

            _out.__name__ = f"{name}_error"  # the renderer takes the output's id from the function's name
            render.ui(_out)

        _make()

    @render.ui
    def summary() -> Any:
        col, _, how = quiet(chosen)
        return ui.div(
            ui.p(col.summary(), id="sensitivity-data-summary"),
            ui.p(f"Universe: {how}.", id="sensitivity-universe-text"),
            class_="privrisk-help",
        )

    @render.ui
    def results() -> Any:
        doc = quiet(document)
        rows = [
            ("global_sensitivity", "global sensitivity Δf", doc["global_sensitivity"]),
            ("local_sensitivity", f"local sensitivity Δv ({doc['method']})", doc["local_sensitivity"]),
            ("ratio", "ratio Δv/Δf", doc["ratio"]),
        ]
        if "epsilon" in doc:
            rows += [
                ("many_worlds", f"many-worlds risk ρ_mw (n = {doc['n']:,}, ε = {epsilon_text(doc['epsilon'])})",
                 doc["many_worlds"]),
                ("two_worlds", "two-worlds risk ρ_tw", doc["two_worlds"]),
                ("global_risk", "global risk ρ_gl", doc["global_risk"]),
            ]  # fmt: skip
        body = [
            ui.tags.tr(
                ui.tags.td(label),
                ui.tags.td(number(value, 6), id=f"sensitivity-value-{key}", class_="text-end font-monospace"),
            )
            for key, label, value in rows
        ]
        title = f"{doc['query']} of {doc['column']!r} (n = {doc['n']:,}, {doc['neighbours']} neighbours)"
        figure, sentence = sensitivity_verdict(doc)
        return ui.TagList(
            ui.div(
                ui.p(figure, id="sensitivity-verdict-number", class_="display-6 fw-semibold mb-0"),
                ui.p(sentence, id="sensitivity-verdict", class_="lead"),
                class_="privrisk-verdict mb-3",
            ),
            ui.tags.details(
                ui.tags.summary(f"The measures in detail: {title}"),
                ui.tags.table(
                    ui.tags.tbody(*body), class_="table table-sm privrisk-risk-table", style="max-width:40rem"
                ),
                id="sensitivity-details",
            ),
        )

    @ui.bind_task_button(button_id="run_attack")
    @reactive.extended_task
    async def attack_task(values: Any, query: str, eps: float, universe: Any, trials: int, seed: int,
                          worlds: str) -> dict[str, Any]:  # fmt: skip
        return await asyncio.to_thread(
            attack_document, values, query=query, epsilon=eps, universe=universe, trials=trials, seed=seed,
            worlds=worlds,
        )  # fmt: skip

    attack_error = reactive.value("")

    @reactive.effect
    @reactive.event(input.run_attack)
    def _run_attack() -> None:
        attack_error.set("")
        try:
            col, u, _ = chosen()
            eps = epsilon()
            if eps is None:
                raise PrivriskError("epsilon: the attack needs ε", param="epsilon")
            trials = check_whole(input.trials(), name="trials", minimum=1, maximum=MAX_APP_TRIALS)
            seed = check_whole(input.seed(), name="seed", minimum=0)
            query = check_query(input.query())
        except PrivriskError as exc:
            attack_error.set(error_message(exc, "attack"))
            return
        attack_task(col.values, query, eps, u, trials, seed, input.worlds())

    @reactive.effect
    @reactive.event(input.cancel_attack)
    def _cancel_attack() -> None:
        attack_task.cancel()

    @render.ui
    def trials_error() -> Any:
        return error_ui(attack_error.get())

    @render.ui
    def attack() -> Any:
        status = attack_task.status()
        if status == "initial":
            return ui.p("Press the button to run the attack.", class_="privrisk-help")
        if status == "running":
            return ui.p("Simulating …", class_="privrisk-help")
        if status == "cancelled":
            return ui.p("Cancelled.", class_="privrisk-help")
        try:
            doc = attack_task.result()
        except PrivriskError as exc:
            return error_ui(error_message(exc, "attack"))
        rows = [
            ("guess", "guessing alone (1/n)", percent_3g(doc["guess"])),
            ("simulated_success", f"simulated success ({doc['trials']:,} trials, seed {doc['seed']})",
             f"{percent_3g(doc['simulated_success'])} [{percent_3g(doc['ci_low'])}, {percent_3g(doc['ci_high'])}]"),
            ("expected_success", "expected success (exact)", percent_3g(doc["expected_success"])),
            ("exact_risk", "exact risk (most telling answer)", percent_3g(doc["exact_risk"])),
            ("bound", "Lee–Clifton bound ρ_mw", percent_3g(doc["bound"])),
        ]  # fmt: skip
        body = [
            ui.tags.tr(
                ui.tags.td(label), ui.tags.td(value, id=f"sensitivity-attack-{key}", class_="text-end")
            )
            for key, label, value in rows
        ]
        return ui.tags.table(ui.tags.tbody(*body), class_="table table-sm", style="max-width:40rem")

    @render.ui
    def command() -> Any:
        name, _, _ = quiet(source)
        kind = input.universe_kind()
        options = {
            "file": name,
            "column": input.column() or None,
            "query": input.query(),
            "universe": input.universe().strip() if kind == "bounds" else None,
            "universe_file": "UNIVERSE_FILE" if kind == "file" else None,
            "universe_column": (input.universe_column() or None) if kind == "file" else None,
            "universe_min": input.universe_min().strip() or None,
            "neighbours": input.neighbours() if input.neighbours() != "unbounded" else None,
            "method": input.method() if input.method() != "exact" else None,
            "epsilon": input.epsilon().strip() or None,
            "missing": input.missing().strip() or None,
        }
        attack = {k: v for k, v in options.items() if k not in ("neighbours", "method")}
        attack |= {"trials": input.trials(), "seed": input.seed(), "worlds": input.worlds()}
        return ui.TagList(
            ui.div(
                command_line("sensitivity", **options),
                class_="privrisk-command",
                id="sensitivity-command-line",
            ),
            ui.div(
                command_line("attack", **attack), class_="privrisk-command mt-2", id="sensitivity-attack-line"
            ),
        )
