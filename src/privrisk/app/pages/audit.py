"""The app's page (being built)."""

from __future__ import annotations

from typing import Any

from shiny import module, ui

ID = "audit"
TITLE = "audit"

__all__ = ["ID", "TITLE", "page_server", "page_ui"]


@module.ui
def page_ui() -> Any:
    """The page's layout."""
    return ui.div(ui.h2(TITLE), ui.p("This page is being built."))


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
