"""The app's page "Outputs": a researcher's outputs checked by the centre's rules, each alone and all together.

Upload the data and ``outputs.toml`` (and an ACRO policy file if the centre has one); the data is the session's
upload (:func:`privrisk.app._shared.session_upload`), so a file uploaded on another page is used here without a
second upload, while the spec and the policy belong to this page. The page calls
:func:`privrisk.outputs.check_outputs` with the same :class:`~privrisk.outputs.OutputsSettings` as
``privrisk outputs`` and shows the verdict sentence first, then the differencing findings in sentences, the
suggestions, and every output with its cells coloured by status (folded), each cell with its interval over
everything else released (:mod:`privrisk.outputs.cell_bounds`) and whether suppressing it alone protects it.
"""

from __future__ import annotations

from typing import Any

from shiny import module, reactive, render, ui

from privrisk.app._shared import error_message, keep_upload, session_upload, upload_path
from privrisk.errors import PrivriskError

ID = "outputs"
TITLE = "Outputs"

__all__ = ["ID", "TITLE", "page_server", "page_ui"]


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_file("file", "Data file (CSV, Parquet, Stata .dta, SPSS .sav)"),
            ui.output_ui("data"),
            ui.input_file("spec", "outputs.toml (the tables and models to check)"),
            ui.input_file("policy", "Policy (ACRO's YAML, optional: ACRO's defaults otherwise)"),
            ui.output_ui("problem"),
            width=340,
            title="The request",
        ),
        ui.h2("Check a researcher's outputs"),
        ui.p(
            "Each cell is checked by the centre's rules (minimum frequency, dominance, p % rule, zeros, degrees of "
            "freedom); then all counts, sums and means are combined as an intruder would, to find groups below "
            "the threshold that they pin down together. Beside each cell of a table: what an intruder recomputes "
            "of it from everything else released if that cell alone is suppressed, and whether that protects it.",
            class_="privrisk-help",
        ),
        ui.output_ui("report"),
        ui.download_button("download", "Download the report (one HTML file)"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    from privrisk.outputs import OutputsSettings, check_outputs

    def _text_file(fileinfo: Any) -> tuple[Any, str]:
        path, name = upload_path(fileinfo)
        if path.stat().st_size > max_upload:
            raise PrivriskError(f"{name}: the file is too large for the upload limit")
        return path, name

    uploads = session_upload(session, max_bytes=max_upload)
    keep_problem: reactive.Value[str | None] = reactive.value(None)

    # This page's data upload becomes the session's: every page that takes data offers it.
    keep_upload("file", input, uploads, keep_problem, lambda exc: error_message(exc, "outputs"))

    @render.ui
    def data() -> Any:
        kept = uploads.current()
        if kept is None:
            return None
        return ui.p(f"Data: {kept.name} (uploaded)", class_="privrisk-help", id="outputs-data-name")

    @reactive.calc
    def result() -> Any:
        # The page maps its uploads to the settings and calls the run function, as `privrisk outputs` does.
        frame = uploads.read()
        spec, spec_name = _text_file(input.spec())
        policy, policy_name = _text_file(input.policy()) if input.policy() else (None, "")
        try:
            return check_outputs(OutputsSettings(data=frame, spec=spec, policy=policy))
        except PrivriskError as exc:
            message = str(exc).replace(str(spec), spec_name)
            if policy is not None:
                message = message.replace(str(policy), policy_name)
            raise PrivriskError(message, param=exc.param) from None

    def _problem() -> str | None:
        if keep_problem.get() is not None:
            return keep_problem.get()
        if uploads.current() is None or not input.spec():
            return None
        try:
            result()
        except PrivriskError as exc:
            return error_message(exc, "outputs")
        return None

    @render.ui
    def problem() -> Any:
        message = _problem()
        if not message:
            return None
        return ui.div(
            message, class_="privrisk-error text-danger small mt-1", role="alert", id="outputs-problem"
        )

    @render.ui
    def report() -> Any:
        from privrisk.outputs.report import CSS, report_body

        if uploads.current() is None or not input.spec():
            return ui.p("Upload the data and outputs.toml to check them.", class_="privrisk-help")
        if _problem():
            return None
        return ui.div(ui.tags.style(CSS), ui.HTML(report_body(result())), id="outputs-check")

    @render.download_button(filename="output-check.html", media_type="text/html")
    def download() -> Any:
        from privrisk.outputs.report import html_report

        yield html_report(result())
