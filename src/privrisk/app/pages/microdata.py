"""The app's page "Microdata": the re-identification risk of an uploaded sample file (``privrisk microdata``).

The page calls :func:`privrisk.microdata.run_microdata` with a :class:`~privrisk.microdata.MicrodataSettings`
made from its inputs, as the command line does: the risk measured, then reduced if asked (local suppression of
key values, or global recoding through hierarchies) and measured again. It shows the verdict first, judged on
the file as it will be released, then the reduction with the released file to download, the measures and the
riskiest records.
"""

from __future__ import annotations

import shlex
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
from privrisk.app._work import MICRODATA_DEFAULTS
from privrisk.app.pages._runs import Runner
from privrisk.app.pages._runs import session_folder as run_folder
from privrisk.errors import PrivriskError

ID = "microdata"
TITLE = "Microdata"

# The choices of "Reduce the risk": MicrodataSettings.reduction, in words.
REDUCTIONS = {"none": "none", "suppress": "suppress key values", "recode": "recode with hierarchies"}

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
            ui.input_text("k", "Smallest f_k allowed, k", placeholder="default 3"),
            ui.input_text("max_risk", "Largest individual risk allowed", placeholder="default 0.1"),
            ui.p(
                "With neither set, the file is judged against the defaults k = 3 and individual risk at most 0.1.",
                class_="privrisk-help small",
            ),
            ui.input_select("reduction", "Reduce the risk", REDUCTIONS),
            ui.panel_conditional(
                "input.reduction === 'suppress'",
                ui.input_text(
                    "importance",
                    "Importance order: keys, most important first (optional)",
                    placeholder="sex,region,age",
                ),
                ui.p(
                    "The fewest key values are set to missing, least important key first, until every record meets "
                    "k and the largest risk.",
                    class_="privrisk-help small",
                ),
            ),
            ui.panel_conditional(
                "input.reduction === 'recode'",
                ui.input_text_area(
                    "hierarchies",
                    "Hierarchies: one KEY=SPEC a line",
                    rows=3,
                    placeholder="age=interval:10\nregion=none",
                ),
                ui.p(
                    "SPEC: interval:10, breaks:18,30,45,65/18,45, prefix, date or none (to *). The least recoding "
                    "that meets every threshold set is chosen.",
                    class_="privrisk-help small",
                ),
            ),
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
        ui.output_ui("status"),
        ui.output_ui("results"),
        ui.output_ui("reduced"),
        ui.output_ui("measures"),
        ui.output_ui("records"),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    )


def _hierarchy_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: a run measures in a worker process when "Measure" is pressed."""
    from privrisk.app._work import microdata_report

    preset_inputs(session, {"keys": "text", "weights": "text", "household": "text", "sensitive": "text",
                            "k": "text", "max_risk": "text", "example": "checkbox"})  # fmt: skip
    uploads = session_upload(session, max_bytes=max_upload)
    upload_message: reactive.Value[str | None] = reactive.value(None)
    folder = run_folder(session, ID)
    runner = Runner("microdata", "cancel", session, folder)
    runner.serve_status(input)
    # What the last run was judged against: the thresholds set, or the defaults (named on the page).
    judged: reactive.Value[tuple[dict[str, Any], bool]] = reactive.value(({}, False))

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

    def _targets() -> tuple[dict[str, Any], bool]:
        """The thresholds as typed (the settings read them), and whether they are the defaults (none was set)."""
        typed = {"k": input.k().strip() or None, "max_risk": input.max_risk().strip() or None}
        if typed["k"] is None and typed["max_risk"] is None:
            return dict(MICRODATA_DEFAULTS), True
        return typed, False

    @reactive.effect
    @reactive.event(input.run)
    def _measure() -> None:
        from privrisk.microdata import MicrodataSettings

        reduction = input.reduction()
        try:
            targets, default = _targets()
            # Only the inputs the chosen reduction shows are given; the settings check every rule.
            settings = MicrodataSettings(
                keys=input.keys(), weights=input.weights().strip() or None,
                household=input.household().strip() or None, sensitive=input.sensitive(), **targets,
                reduction=reduction, importance=input.importance() if reduction == "suppress" else None,
                hierarchies=_hierarchy_lines(input.hierarchies()) if reduction == "recode" else None,
                hierarchy_files=False,  # the server opens no path a user typed
            )  # fmt: skip
            data = None if input.example() else str(uploads.checked(param="data")[0])
        except PrivriskError as exc:
            runner.fail(exc)
            return
        judged.set(({"k": settings.k, "max_risk": settings.max_risk}, default))
        released = folder / "released.csv"
        released.unlink(missing_ok=True)
        runner.start(microdata_report, settings, data, str(released), in_process=True,
                     text="Measuring the file in a worker process")  # fmt: skip

    @render.ui
    def results() -> Any:
        run = runner.result()
        if run is None:
            return None
        return _verdict_ui(run, *judged.get())

    @render.ui
    def reduced() -> Any:
        run = runner.result()
        return None if run is None or run["how"] is None else _reduced_ui(run)

    @render.download_button(filename="released.csv", media_type="text/csv")
    def download_released() -> Any:
        run = runner.result()
        path = folder / "released.csv"
        if run is None or not run["released"] or not path.is_file():
            return
        # Written by the library's CSV writer (formula-like text cells neutralised) in the session's folder.
        yield path.read_bytes()

    @render.ui
    def measures() -> Any:
        run = runner.result()
        if run is None:
            return None
        heading = [] if run["how"] is None else [ui.h4("The file as given", class_="h5")]
        return ui.div(*heading, *(ui.p(line) for line in run["findings"]), id="microdata-findings")

    @render.ui
    def records() -> Any:
        run = runner.result()
        return None if run is None else _records_ui(run["top"])

    @render.ui
    def command() -> Any:
        found = uploads.current()
        name = found.name if found else "FILE"
        targets, _ = _targets()
        cmd = command_line("microdata", file="examples/microdata_survey.csv" if input.example() else name,
                           keys=input.keys().strip(), weights=input.weights().strip() or None,
                           household=input.household().strip() or None,
                           sensitive=input.sensitive().strip() or None, k=targets.get("k"),
                           max_risk=targets.get("max_risk"))  # fmt: skip
        reduction = input.reduction()
        if reduction == "suppress":
            importance = input.importance().strip()
            cmd += " --suppress" + (f" --importance {shlex.quote(importance)}" if importance else "")
        elif reduction == "recode":
            cmd += "".join(f" -H {shlex.quote(line)}" for line in _hierarchy_lines(input.hierarchies()))
        return ui.div(cmd, class_="privrisk-command", id="microdata-command-line")

    # The reduction's inputs from the page's URL (?reduction=recode&hierarchies=age%3Dinterval:10).
    preset_inputs(session, {"reduction": "select", "importance": "text", "hierarchies": "text"})


def _verdict_ui(run: dict[str, Any], targets: dict[str, Any], default: bool) -> Any:
    """The verdict, judged on the file as it will be released: after the reduction, if there was one."""
    where = "" if run["how"] is None else f" after {run['how']}"
    against = _against(targets, default)
    if run["failures"]:
        items = [ui.tags.li(f) for f in run["failures"]]
        return ui.div(ui.h3(f"Thresholds exceeded{where}", class_="h4"), ui.p(against, class_="mb-1"),
                      ui.tags.ul(*items), id="microdata-verdict-text", class_="alert alert-danger")  # fmt: skip
    heading = f"Every threshold is met{where}" if default else f"Every threshold set is met{where}"
    return ui.div(ui.h3(heading, class_="h4"), ui.p(against, class_="mb-0"), id="microdata-verdict-text",
                  class_="alert alert-success")  # fmt: skip


def _reduced_ui(run: dict[str, Any]) -> Any:
    """The reduction: what it did, the findings after it and the released file to download."""
    before = run["failures_before"]
    given = (f"The file as given exceeded {before} threshold(s)." if before
             else "The file as given met every threshold already.")  # fmt: skip
    return ui.div(
        ui.h3(f"After {run['how']}", class_="h4"),
        ui.p(run["reduction"], id="microdata-reduction-text"),
        ui.p(given, class_="privrisk-help"),
        ui.div(*(ui.p(line) for line in run["reduced_findings"]), id="microdata-reduced-findings"),
        ui.download_button(
            "download_released", "Download the released file (released.csv)", class_="btn-sm btn-success mb-3"
        ),
        id="microdata-reduction-panel",
    )


def _records_ui(top: Any) -> Any:
    """The riskiest records, as a table."""
    head = ui.tags.tr(*(ui.tags.th(c) for c in top.columns))
    rows = [ui.tags.tr(*(ui.tags.td(number(v) if isinstance(v, float) else str(v)) for v in r))
            for r in top.itertuples(index=False)]  # fmt: skip
    return ui.div(ui.h4("The riskiest records", class_="h5"), ui.tags.table(ui.tags.thead(head),
                  ui.tags.tbody(*rows), class_="table table-sm", id="microdata-top"), style="overflow-x: auto;")  # fmt: skip


def _against(targets: dict[str, Any], default: bool) -> str:
    """What the verdict was judged against, in words: the thresholds set, or the defaults named as such.

    Example:
        >>> _against({"k": 3, "max_risk": 0.1}, True)
        'Judged against the default thresholds, as none was set: k = 3 (every key combination shared by at least 3 records) and individual risk at most 0.1.'
        >>> _against({"k": 2, "max_risk": None}, False)
        'Judged against the threshold set: k = 2.'
    """
    parts = []
    if targets.get("k") is not None:
        parts.append(f"k = {targets['k']}" + (f" (every key combination shared by at least {targets['k']} records)"
                                              if default else ""))  # fmt: skip
    if targets.get("max_risk") is not None:
        parts.append(f"individual risk at most {number(float(targets['max_risk']))}")
    what = " and ".join(parts)
    if default:
        return f"Judged against the default thresholds, as none was set: {what}."
    return f"Judged against the threshold{'s' if len(parts) > 1 else ''} set: {what}."
