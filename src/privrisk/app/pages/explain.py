"""The app's page "Explain": the page for the people in the data (``privrisk explain``), previewed and downloaded.

The page is :func:`privrisk.reports.explain.explainer_page` (Mehner et al., §3–4: the global risk as a natural
frequency with an icon array, the leak Γ, ρ_mw among n people, the randomized-response coin), in English or German;
the preview is the same HTML in a sandboxed frame, the download the same file ``privrisk explain --out`` writes.
The inputs, as typed, are mapped onto :class:`privrisk.reports.run.ExplainSettings` (which reads and checks them)
and run by :func:`privrisk.reports.run.run_explain`, the one way in the command shares.
"""

from __future__ import annotations

from typing import Any

from shiny import module, reactive, render, ui

from privrisk._format import percent_for_people as percent
from privrisk.app._shared import command_line, error_input, error_message, error_ui, preset_inputs, quiet
from privrisk.errors import PrivriskError

ID = "explain"
TITLE = "Explain"

__all__ = ["ID", "TITLE", "page_server", "page_ui"]

_INPUTS = ("epsilon", "n", "compare", "lang")


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_text("epsilon", "ε of the release (the total; a number or ln3)", value="ln3"),
            ui.output_ui("epsilon_error"),
            ui.input_text(
                "n", "Number of people the attacker picks among (optional)", placeholder="e.g. 100"
            ),
            ui.output_ui("n_error"),
            ui.input_text("compare", "Other ε to show beside it (optional)", placeholder="ln2,ln7"),
            ui.output_ui("compare_error"),
            ui.input_radio_buttons("lang", "Language", {"en": "English", "de": "Deutsch"}, inline=True),
            ui.download_button("download", "Download the page (one HTML file)"),
            width=340,
            title="The page for participants",
        ),
        ui.h2("Explain ε to the people in the data"),
        ui.p(
            "A page for participants: the risk as a natural frequency with a picture of 100 attempts, how far an "
            "attacker gets from a coin toss towards certainty, and a paragraph for a consent form. It is one HTML "
            "file that opens offline in any browser; below is a preview.",
            class_="privrisk-help",
        ),
        *(ui.output_ui(name) for name in ("paragraph", "preview")),
        ui.h3("The same on the command line", class_="h5"),
        ui.output_ui("command"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: the settings made from the inputs as typed, the page run from them."""
    from privrisk.reports.run import ExplainRun, ExplainSettings, run_explain

    preset_inputs(session, {"epsilon": "text", "n": "text", "compare": "text", "lang": "radio"})

    @reactive.calc
    def explained() -> ExplainRun:
        # The settings read and check the inputs (n as typed, "1,000" too), as the command's options.
        settings = ExplainSettings(
            epsilon=input.epsilon(), n=input.n(), compare=input.compare(), lang=input.lang()
        )
        return run_explain(settings)

    @reactive.calc
    def page_html() -> str:
        return explained().page

    def _problem() -> tuple[str, str] | None:
        try:
            explained()
        except PrivriskError as exc:
            message = error_message(exc, "explain")
            return error_input(exc, _INPUTS, "epsilon"), message
        return None

    for name in ("epsilon", "n", "compare"):
        _error_output(name, _problem)

    @render.ui
    def paragraph() -> Any:
        doc = quiet(explained).document
        lang = input.lang()
        return ui.div(
            ui.h3("For a consent form", class_="h5"),
            ui.p(doc["paragraph"], id="explain-paragraph-text"),
            ui.p(
                f"Global risk ρ_gl = {percent(doc['global_risk'], lang)}, "
                f"global leak Γ = {percent(doc['global_leak'], lang)}"
                + (
                    ""
                    if doc["many_worlds"] is None
                    else f", many-worlds risk ρ_mw = {percent(doc['many_worlds'], lang)}"
                )
                + f"; the page says: {doc['shown']['risk']} of {doc['shown']['risk_base']}.",
                id="explain-shown",
                class_="privrisk-help",
            ),
        )

    @render.ui
    def preview() -> Any:
        html = quiet(page_html)
        # The page's own script (its slider) runs; the frame has no access to the app (no same-origin).
        return ui.tags.iframe(
            srcdoc=html,
            sandbox="allow-scripts",
            title="Preview of the page for participants",
            id="explain-preview-frame",
            style="width:100%;height:70vh;border:1px solid #ccc;border-radius:4px;background:#fff",
        )

    @render.download_button(filename=lambda: f"explain-{input.lang()}.html", media_type="text/html")
    def download() -> Any:
        yield page_html()

    @render.ui
    def command() -> Any:
        settings = quiet(explained).settings
        cmd = command_line(
            "explain",
            epsilon=input.epsilon().strip(),
            n=settings.n,
            compare=input.compare().strip() or None,
            lang=settings.lang if settings.lang != "en" else None,
            out=f"explain-{settings.lang}.html",
        )
        return ui.div(cmd, class_="privrisk-command", id="explain-command-line")


def _error_output(name: str, problem: Any) -> None:
    """The output ``<name>_error``: the message of ``problem()`` when the input it names is ``name``."""

    def shown() -> Any:
        found = problem()
        return error_ui(found[1]) if found and found[0] == name else None

    shown.__name__ = f"{name}_error"  # the renderer takes the output's id from the function's name
    render.ui(shown)
