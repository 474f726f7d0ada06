"""The app's page "Risk": ε (and n, Δv/Δf, δ) in, the risks of ``privrisk risk`` out, live as the inputs move."""

from __future__ import annotations

from typing import Any

from shiny import module, reactive, render, ui

from privrisk import risk as R
from privrisk._validation import parse_epsilon
from privrisk.app._shared import command_line, error_message, error_ui, preset_inputs

ID = "risk"
TITLE = "Risk"

__all__ = ["ID", "TITLE", "page_server", "page_ui"]


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_text("epsilon", "ε (a number, or ln3)", value="ln3"),
            ui.output_ui("epsilon_error"),
            ui.input_numeric("n", "n: possible worlds", value=2, min=2),
            width=320,
        ),
        ui.h2("Risk"),
        ui.output_ui("risks"),
        ui.output_ui("command"),
    )


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    preset_inputs(session, {"epsilon": "text", "n": "numeric"})

    @reactive.calc
    def epsilon() -> float:
        return parse_epsilon(input.epsilon(), name="epsilon")

    @render.ui
    def epsilon_error() -> Any:
        try:
            epsilon()
        except Exception as exc:
            return error_ui(error_message(exc, "risk"))
        return None

    @render.ui
    def risks() -> Any:
        eps = epsilon()
        n = int(input.n() or 2)
        return ui.p(f"many-worlds risk: {R.many_worlds(eps, n, 1.0):.4f}", id="risk-many-worlds")

    @render.ui
    def command() -> Any:
        return ui.div(command_line("risk", epsilon=input.epsilon(), n=input.n()), class_="privrisk-command")
