"""The app's page "Data and sensitivity": a column of an uploaded file, a query and a universe in; the global and
local sensitivity, their ratio and the risks out (``privrisk sensitivity``), with the Lee–Clifton attacker's
simulated success beside the bound (``privrisk attack``). The data is the session's one upload (a file uploaded on
any page, offered here by name with its first numeric non-id column chosen) or an example.

The numbers are those of the two commands: the page maps its inputs onto the settings both commands make
(:class:`privrisk.sensitivity.run.SensitivitySettings`, :class:`privrisk.attack.run.AttackSettings`), calls their
run functions and formats the runs (:mod:`privrisk.app.pages._sensitivity_views`). Allmann et al., §3.2 and
eqs. (4)–(6).
"""

from __future__ import annotations

import asyncio
from typing import Any

from shiny import module, reactive, render, req, ui

from privrisk._validation import check_whole
from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app._shared import (
    KeptUpload,
    error_message,
    error_ui,
    keep_upload,
    preset_inputs,
    query_params,
    quiet,
    session_upload,
    upload_columns,
)
from privrisk.app.pages import _sensitivity_views as views
from privrisk.app.pages._runs import checked_upload
from privrisk.errors import PrivriskError
from privrisk.sensitivity.run import verdict

ID = "sensitivity"
TITLE = "Data and sensitivity"

__all__ = ["ID", "TITLE", "attack_document", "page_server", "page_ui", "sensitivity_verdict"]

_QUERIES = ("count", "sum", "mean", "median", "min", "max", "variance", "std")
MAX_APP_TRIALS = 1_000_000  # the command line allows 10⁷ (about a minute); the page keeps a run short


def attack_document(
    values: Any, *, query: str, epsilon: float | None, universe: Any, trials: int, seed: int, worlds: str
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
    from privrisk.attack.run import AttackSettings, run_attack

    # The page keeps a run short (the app's own limit); every other rule is AttackSettings', the command line's own.
    check_whole(trials, name="trials", minimum=1, maximum=MAX_APP_TRIALS)
    settings = AttackSettings(data=values, query=query, epsilon=epsilon, universe=universe, trials=trials,
                              seed=seed, worlds=worlds)  # fmt: skip
    return run_attack(settings).to_dict()


def sensitivity_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """The page's first number and sentence, in plain words (:func:`privrisk.sensitivity.run.verdict`).

    Example:
        >>> sensitivity_verdict({"query": "mean", "column": "distance", "local_sensitivity": 133.46,
        ...                      "global_sensitivity": 337.0, "ratio": 0.396})[0]
        '39.6 %'
    """
    return verdict(doc)


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
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

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

    # The upload's columns a query may run on (numeric, not an id); None for an example or an unread file.
    measured = reactive.calc(lambda: None if input.example() else views.numeric_columns(uploads))

    @reactive.effect
    def _columns() -> None:
        try:
            _, columns, _ = source()
        except PrivriskError:
            columns = []
        with reactive.isolate():
            selected = views.column_choice(columns, measured(), wanted_column.get(), input.column())
        ui.update_select("column", choices=columns, selected=selected)

    @reactive.calc
    def column_data() -> Any:  # the chosen column as read; the settings drop its missing values
        _, columns, read = source()
        req(input.column() in columns)
        return read(input.column())

    @reactive.calc
    def universe_upload() -> tuple[Any, str, list[str]] | None:
        """(the upload's path, its name, its columns) of the universe file, when the universe is one."""
        if input.universe_kind() != "file":
            return None
        path, name = checked_upload(input.universe_file(), max_bytes=max_upload, param="universe_file")
        return path, name, upload_columns(input.universe_file(), max_bytes=max_upload)

    @reactive.effect
    def _universe_columns() -> None:
        try:
            found = universe_upload()
        except PrivriskError:
            found = None
        columns = found[2] if found else []
        wanted = params.get("universe_column")
        ui.update_select("universe_column", choices=columns, selected=wanted if wanted in columns else None)

    @reactive.calc
    def settings() -> SensitivitySettings:
        """The inputs as ``privrisk sensitivity`` reads them: the column, the query, the universe, ε."""
        kind = input.universe_kind()
        req(kind != "bounds" or input.universe().strip())  # bounds chosen: the page waits for them
        found = universe_upload()
        return SensitivitySettings(
            data=column_data(), column=input.column(), name=source()[0], query=input.query(),
            universe=input.universe() if kind == "bounds" else None, universe_file=found[0] if found else None,
            universe_column=input.universe_column() if found else None,
            universe_file_name=found[1] if found else None, universe_min=input.universe_min(),
            neighbours=input.neighbours(), method=input.method(), epsilon=input.epsilon(), missing=input.missing(),
        )  # fmt: skip

    @reactive.calc
    def current() -> Any:
        return run_sensitivity(settings())

    views.error_outputs((source, settings, current))

    @render.ui
    def summary() -> Any:
        return views.summary_ui(quiet(current))

    @render.ui
    def results() -> Any:
        return views.results_ui(quiet(current))

    @ui.bind_task_button(button_id="run_attack")
    @reactive.extended_task
    async def attack_task(values: Any, query: str, eps: float | None, universe: Any, trials: int, seed: int,
                          worlds: str) -> dict[str, Any]:  # fmt: skip
        return await asyncio.to_thread(attack_document, values, query=query, epsilon=eps, universe=universe,
                                       trials=trials, seed=seed, worlds=worlds)  # fmt: skip

    attack_error = reactive.value("")

    @reactive.effect
    @reactive.event(input.run_attack)
    def _run_attack() -> None:
        attack_error.set("")
        try:
            run = current()
        except PrivriskError as exc:
            attack_error.set(error_message(exc, "attack"))
            return
        s = run.settings
        attack_task(
            run.data.values, s.query, s.epsilon, run.universe, input.trials(), input.seed(), input.worlds()
        )

    @reactive.effect
    @reactive.event(input.cancel_attack)
    def _cancel_attack() -> None:
        attack_task.cancel()

    @render.ui
    def trials_error() -> Any:
        return error_ui(attack_error.get())

    @render.ui
    def attack() -> Any:
        return views.attack_ui(attack_task.status(), attack_task.result)

    @render.ui
    def command() -> Any:
        return views.command_ui(quiet(source)[0], input)
