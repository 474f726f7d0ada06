"""What the page "Data and sensitivity" shows: the verdict and the measures of a
:class:`~privrisk.sensitivity.run.SensitivityRun`, the attack's table, the same on the command line, and each
error beside its input. Formatting only; the numbers are the library's (:mod:`privrisk.sensitivity.run`,
:mod:`privrisk.attack.run`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shiny import render, ui

from privrisk._format import epsilon_text, number, percent_3g
from privrisk.app._shared import command_line, error_input, error_message, error_ui
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.sensitivity.run import SensitivityRun

__all__ = [
    "ERROR_INPUTS",
    "INPUTS",
    "attack_ui",
    "column_choice",
    "command_ui",
    "error_outputs",
    "numeric_columns",
    "problem",
    "results_ui",
    "summary_ui",
]

#: The inputs an error may be shown beside (a parameter among them names its input; any other, the data file).
INPUTS = ("file", "column", "query", "universe", "universe_min", "universe_column", "epsilon", "missing",
          "neighbours", "method", "trials", "seed", "worlds")  # fmt: skip
#: The inputs with an error output of their own.
ERROR_INPUTS = ("file", "column", "universe", "universe_min", "missing", "epsilon")
#: The universe file and its column show their errors beside the universe's choice.
_SHOWN_AT = {"universe_file": "universe", "universe_column": "universe"}


def problem(steps: tuple[Callable[[], Any], ...]) -> tuple[str, str] | None:
    """(the input it belongs to, the one-line message) of the first step that fails, or None.

    A step that waits for input (Shiny's silent ``req``) means nothing is wrong yet.
    """
    for step in steps:
        try:
            step()
        except PrivriskError as exc:
            shown = _SHOWN_AT.get(exc.param or "", exc.param)
            where = shown if shown in INPUTS else error_input(exc, INPUTS, "file")
            return where, error_message(exc, "sensitivity")
        except Exception as exc:  # req(): nothing chosen yet
            if type(exc).__name__ == "SilentException":
                return None
            raise
    return None


def error_outputs(steps: tuple[Callable[[], Any], ...]) -> None:
    """One output ``<input>_error`` for each of :data:`ERROR_INPUTS`, showing the first problem where it belongs."""
    for name in ERROR_INPUTS:

        def _make(name: str = name) -> None:
            def _out() -> Any:
                found = problem(steps)
                return error_ui(found[1]) if found and found[0] == name else None

            _out.__name__ = f"{name}_error"  # the renderer takes the output's id from the function's name
            render.ui(_out)

        _make()


def column_choice(
    columns: list[str], numeric: list[str] | None, wanted: str | None, current: str | None
) -> str | None:
    """The column to select: the one asked for (a link's ``column=``), else the one selected if it is still
    sensible, else the first numeric non-id column (the first column of a file not read yet).

    Example:
        >>> column_choice(["id", "age", "name"], ["age"], None, None), column_choice(["id", "x"], None, "x", None)
        ('age', 'x')
    """
    sensible = numeric if numeric else [c for c in columns if c.lower() != "id"]
    selected = wanted if wanted in columns else current if current in sensible else None
    if selected is None:
        selected = sensible[0] if sensible else columns[0] if columns else None
    return selected


def numeric_columns(uploads: Any) -> list[str] | None:
    """The session upload's columns a query may run on (numeric, not an id), read once per upload for every
    page; None without an upload, or for one that cannot be read."""
    if uploads.current() is None:
        return None
    try:
        return list(uploads.profile().numeric)
    except PrivriskError:
        return None


def summary_ui(run: SensitivityRun) -> Any:
    """What was read and the universe chosen, in a sentence each."""
    return ui.div(
        ui.p(run.data.summary(), id="sensitivity-data-summary"),
        ui.p(f"Universe: {run.universe_description}.", id="sensitivity-universe-text"),
        class_="privrisk-help",
    )


def results_ui(run: SensitivityRun) -> Any:
    """The verdict first (one number, one sentence), then the measures folded in a table."""
    doc = run.to_dict()
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
    figure, sentence = run.verdict()
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


def attack_ui(status: str, result: Callable[[], dict[str, Any]]) -> Any:
    """The attack's state while it runs, then its table (``privrisk attack``'s numbers) or its error."""
    if status == "initial":
        return ui.p("Press the button to run the attack.", class_="privrisk-help")
    if status == "running":
        return ui.p("Simulating …", class_="privrisk-help")
    if status == "cancelled":
        return ui.p("Cancelled.", class_="privrisk-help")
    try:
        doc = result()
    except PrivriskError as exc:
        return error_ui(error_message(exc, "attack"))
    pct = percent_3g
    rows = [
        ("guess", "guessing alone (1/n)", pct(doc["guess"])),
        ("simulated_success", f"simulated success ({doc['trials']:,} trials, seed {doc['seed']})",
         f"{pct(doc['simulated_success'])} [{pct(doc['ci_low'])}, {pct(doc['ci_high'])}]"),
        ("expected_success", "expected success (exact)", pct(doc["expected_success"])),
        ("exact_risk", "exact risk (most telling answer)", pct(doc["exact_risk"])),
        ("bound", "Lee–Clifton bound ρ_mw", pct(doc["bound"])),
    ]  # fmt: skip
    body = [
        ui.tags.tr(ui.tags.td(label), ui.tags.td(value, id=f"sensitivity-attack-{key}", class_="text-end"))
        for key, label, value in rows
    ]
    return ui.tags.table(ui.tags.tbody(*body), class_="table table-sm", style="max-width:40rem")


def command_ui(name: str, input: Any) -> Any:
    """``privrisk sensitivity`` and ``privrisk attack`` with the page's inputs as their options."""
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
            command_line("sensitivity", **options), class_="privrisk-command", id="sensitivity-command-line"
        ),
        ui.div(
            command_line("attack", **attack), class_="privrisk-command mt-2", id="sensitivity-attack-line"
        ),
    )
