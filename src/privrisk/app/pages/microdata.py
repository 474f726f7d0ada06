"""The app's page "Microdata": the re-identification risk of an uploaded sample file (``privrisk microdata``).

The page calls :func:`privrisk.microdata.measure_microdata` with a
:class:`~privrisk.microdata.MicrodataSettings` made from its inputs, as the command line does, and shows the
verdict first (the thresholds set, met or not), then the measures and the riskiest records.
"""

from __future__ import annotations

from typing import Any

from shiny import module, reactive, render, ui

from privrisk._format import number
from privrisk.app._shared import (
    command_line,
    error_message,
    error_ui,
    keep_upload,
    preset_inputs,
    session_upload,
)
from privrisk.errors import PrivriskError

ID = "microdata"
TITLE = "Microdata"

__all__ = ["ID", "TITLE", "page_server", "page_ui"]


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_file(
                "data", "Sample file (CSV, Parquet, Stata, SPSS)", accept=[".csv", ".parquet", ".dta", ".sav"]
            ),
            ui.output_ui("kept"),
            ui.input_checkbox("example", "Use the example survey instead", value=False),
            ui.input_text("keys", "Key variables (comma-separated)", placeholder="region,age,sex"),
            ui.input_text("weights", "Sampling-weight column (optional)"),
            ui.input_text("household", "Household-id column (optional)"),
            ui.input_text("sensitive", "Sensitive variables (optional)"),
            ui.input_text("k", "Smallest f_k allowed, k (optional)"),
            ui.input_text("max_risk", "Largest individual risk allowed (optional)"),
            ui.input_action_button("run", "Measure", class_="btn-primary"),
            width=340,
            title="The file and its keys",
        ),
        ui.h2("The re-identification risk of a sample file"),
        ui.p(
            "For a scientific-use file with sampling weights: how many records share each combination of key "
            "values (f_k), how many people in the population are estimated to (F_k, the sum of the weights), and "
            "the chance that an intruder who knows a person's key values picks the right record.",
            class_="privrisk-help",
        ),
        ui.output_ui("results"),
        ui.output_ui("measures"),
        ui.output_ui("records"),
        ui.h5("The same on the command line"),
        ui.output_ui("command"),
    )


def _number(text: str, name: str, kind: type) -> Any:
    text = text.strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a number", param=name) from None


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    preset_inputs(session, {"keys": "text", "weights": "text", "household": "text", "sensitive": "text",
                            "k": "text", "max_risk": "text", "example": "checkbox"})  # fmt: skip
    uploads = session_upload(session, max_bytes=max_upload)
    upload_message: reactive.Value[str | None] = reactive.value(None)

    keep_upload("data", input, uploads, upload_message, lambda exc: error_message(exc, "microdata"))

    @reactive.effect
    @reactive.event(uploads.current)
    def _offer() -> None:
        # A file uploaded on any page of this session is the one measured here, instead of the example.
        if uploads.current() is not None:
            ui.update_checkbox("example", value=False)

    @render.ui
    def kept() -> Any:
        if upload_message() is not None:
            return error_ui(upload_message())
        found = uploads.current()
        if found is None:
            return None
        return ui.p(f"{found.label}: measured unless the example is ticked.", class_="privrisk-help small",
                    id="microdata-kept")  # fmt: skip

    @reactive.calc
    @reactive.event(input.run)
    def outcome() -> tuple[Any, str | None]:
        from privrisk.microdata import MicrodataSettings, measure_microdata

        try:
            settings = MicrodataSettings(
                keys=input.keys(), weights=input.weights().strip() or None,
                household=input.household().strip() or None, sensitive=input.sensitive(),
                k=_number(input.k(), "k", int), max_risk=_number(input.max_risk(), "max_risk", float),
            )  # fmt: skip
            if input.example():
                from privrisk.microdata.example import example_survey

                frame: Any = example_survey()
            else:
                frame = uploads.read()
            return measure_microdata(frame, settings), None
        except PrivriskError as exc:
            return None, error_message(exc, "microdata")

    @render.ui
    def results() -> Any:
        result, problem = outcome()
        if problem:
            return error_ui(problem)
        failures = result.failures()
        if failures:
            items = [ui.tags.li(error_message(PrivriskError(f), "microdata")) for f in failures]
            return ui.div(ui.h4("Thresholds exceeded"), ui.tags.ul(*items), id="microdata-verdict-text",
                          class_="alert alert-danger")  # fmt: skip
        return ui.div(ui.h4("Every threshold set is met"), id="microdata-verdict-text", class_="alert alert-success")

    @render.ui
    def measures() -> Any:
        result, problem = outcome()
        if problem:
            return None
        return ui.div(*(ui.p(line) for line in result.findings()), id="microdata-findings")

    @render.ui
    def records() -> Any:
        result, problem = outcome()
        if problem:
            return None
        top = result.top_records(10)
        head = ui.tags.tr(*(ui.tags.th(c) for c in top.columns))
        rows = [ui.tags.tr(*(ui.tags.td(number(v) if isinstance(v, float) else str(v)) for v in r))
                for r in top.itertuples(index=False)]  # fmt: skip
        return ui.div(ui.h5("The riskiest records"), ui.tags.table(ui.tags.thead(head), ui.tags.tbody(*rows),
                      class_="table table-sm", id="microdata-top"))  # fmt: skip

    @render.ui
    def command() -> Any:
        found = uploads.current()
        name = found.name if found else "FILE"
        cmd = command_line("microdata", file="examples/microdata_survey.csv" if input.example() else name,
                           keys=input.keys().strip(), weights=input.weights().strip() or None,
                           household=input.household().strip() or None,
                           sensitive=input.sensitive().strip() or None, k=input.k().strip() or None,
                           max_risk=input.max_risk().strip() or None)  # fmt: skip
        return ui.div(cmd, class_="privrisk-command", id="microdata-command-line")
