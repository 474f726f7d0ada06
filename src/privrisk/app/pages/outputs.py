"""The app's page "Outputs": a researcher's outputs checked by the centre's rules, each alone and all together, and
against everything the app's ledger records as released before.

Upload the data and ``outputs.toml`` (and an ACRO policy file if the centre has one); the data is the session's
upload (:func:`privrisk.app._shared.session_upload`), so a file uploaded on another page is used here without a
second upload, while the spec and the policy belong to this page. "Check" runs
:func:`privrisk.outputs.check_outputs` with the same :class:`~privrisk.outputs.OutputsSettings` as ``privrisk
outputs --ledger`` in a worker process (:func:`privrisk.app._work.outputs_report`; progress and Cancel, the
server answers every other session meanwhile), with the app's one ledger: the outputs are checked against every
output released before, by any session, and the library records a set that passes. The page shows the verdict
sentence first, then the differencing findings in sentences, the suggestions, and every output with its cells
coloured by status (folded).
"""

from __future__ import annotations

import shlex
from typing import Any

from shiny import module, reactive, render, ui

from privrisk.app._shared import app_settings, command_line, error_message, keep_upload, session_upload
from privrisk.app.pages._runs import Runner, checked_upload, session_folder
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
            ui.input_file(
                "earlier",
                "Earlier versions of the data (optional: those that outputs in the ledger were computed on)",
                multiple=True,
            ),
            ui.output_ui("problem"),
            ui.input_action_button("run", "Check the outputs", class_="btn-primary"),
            ui.output_ui("ledger_note"),
            width=340,
            title="The request",
        ),
        ui.h2("Check a researcher's outputs"),
        ui.p(
            "Each cell is checked by the centre's rules (minimum frequency, dominance, p % rule, zeros, degrees of "
            "freedom); then all counts, sums and means, with those released before, are combined as an intruder "
            "would, to find groups below the threshold that they pin down together. Beside each cell of a table: "
            "what an intruder recomputes of it from everything else released if that cell alone is suppressed, "
            "and whether that protects it.",
            class_="privrisk-help",
        ),
        ui.output_ui("prompt"),
        ui.output_ui("status"),
        ui.output_ui("results"),
        ui.output_ui("downloads"),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: a check runs in a worker process when "Check the outputs" is pressed."""
    from privrisk.app._work import outputs_report

    settings = app_settings(session)
    ledger = settings.ledger_path()
    uploads = session_upload(session, max_bytes=max_upload)
    keep_problem: reactive.Value[str | None] = reactive.value(None)
    runner = Runner("outputs", "cancel", session, session_folder(session, ID))
    runner.serve_status(input)

    # This page's data upload becomes the session's: every page that takes data offers it.
    keep_upload("file", input, uploads, keep_problem, lambda exc: error_message(exc, "outputs"))

    @render.ui
    def data() -> Any:
        kept = uploads.current()
        if kept is None:
            return None
        return ui.p(f"Data: {kept.name} (uploaded)", class_="privrisk-help", id="outputs-data-name")

    @render.ui
    def ledger_note() -> Any:
        return ui.p(
            f"Checked against every output recorded in the ledger {ledger} (the releases and output checks of "
            "every session); a set that passes is recorded there as released.",
            class_="privrisk-help small mt-2",
            id="outputs-ledger-note",
        )

    @reactive.effect
    @reactive.event(input.run)
    def _check() -> None:
        keep_problem.set(None)
        found: list[tuple[Any, str]] = []
        try:
            data, data_name = uploads.checked()
            found.append((data, data_name))
            spec, spec_name = checked_upload(input.spec(), max_bytes=max_upload, param="spec")
            found.append((spec, spec_name))
            policy = None
            if input.policy():
                policy, policy_name = checked_upload(input.policy(), max_bytes=max_upload, param="policy")
                found.append((policy, policy_name))
            earlier = []
            for info in input.earlier() or []:
                path, name = checked_upload([info], max_bytes=max_upload, param="earlier_data")
                found.append((path, name))
                earlier.append(str(path))
        except PrivriskError as exc:
            runner.fail(exc, found)
            return
        runner.start(
            outputs_report,
            str(data),
            str(spec),
            None if policy is None else str(policy),
            str(ledger),
            settings.key,
            tuple(earlier),
            uploads=found,
            in_process=True,
            text="Checking the outputs in a worker process",
        )

    @render.ui
    def problem() -> Any:
        message = keep_problem.get()
        if not message:
            return None
        return ui.div(
            message, class_="privrisk-error text-danger small mt-1", role="alert", id="outputs-problem"
        )

    @render.ui
    def prompt() -> Any:
        if uploads.current() is not None and input.spec():
            return None
        return ui.p("Upload the data and outputs.toml, then check them.", class_="privrisk-help")

    @render.ui
    def results() -> Any:
        # Only the run's result: on a phone the sidebar closes when this output changes (server.py's script).
        done = runner.result()
        if done is None:
            return None
        recorded = done.get("recorded")
        note = None
        if recorded is not None:
            note = ui.p(
                f"Recorded in the ledger as released (entry {recorded['seq']})."
                if recorded.get("appended")
                else "Not recorded in the ledger: only a set that passes is.",
                class_="privrisk-help",
                id="outputs-recorded",
            )
        return ui.div(note, ui.HTML(done["body"]), id="outputs-check")

    @render.ui
    def downloads() -> Any:
        if runner.result() is None:
            return None
        return ui.download_button("download", "Download the report (one HTML file)")

    @render.download_button(filename="output-check.html", media_type="text/html")
    def download() -> Any:
        done = runner.result()
        if done is not None:
            yield done["html"]

    @render.ui
    def command() -> Any:
        kept = uploads.current()
        line = command_line(
            "outputs",
            file=kept.name if kept is not None else "DATA",
            spec=(input.spec() or [{}])[0].get("name", "outputs.toml"),
            policy=(input.policy() or [{}])[0].get("name") if input.policy() else None,
            ledger=settings.ledger_name,
            ledger_key="KEY_FILE" if settings.key is not None else None,
        )
        for info in input.earlier() or []:
            line += " --earlier-data " + shlex.quote(info["name"])
        return ui.div(line, class_="privrisk-command", id="outputs-command-line")
