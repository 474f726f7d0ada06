"""Errors on the app's page Presence, each beside the input its settings field names (:data:`FIELDS`,
:func:`field_of`): shown once the user has pressed Measure, then following the inputs as they change; a URL's
hierarchy that the form cannot build stays under the hierarchy editor."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from shiny import reactive, render

from privrisk.app._shared import error_ui
from privrisk.app.pages._runs import Runner, named_error
from privrisk.errors import PrivriskError

__all__ = ["FIELDS", "FieldErrors", "field_of"]

# Every input an error can stand beside: the settings' field → the page's input (its error shows under it).
FIELDS: dict[str, str] = {
    "data": "file",
    "dataset": "file",
    "population": "population",
    "qi": "qi",
    "population_count": "population_count",
    "hierarchies": "hierarchies",
    "levels": "levels",
    "delta_max": "delta_max",
    "delta_min": "delta_min",
    "k": "k",
    "kmap": "kmap",
    "search": "search",
    "suppression": "suppression",
    "loss": "loss",
    "allow_inconsistent": "allow_inconsistent",
    "population_size": "population_size",
    "sampling_fraction": "sampling_fraction",
    "model": "estimator",
    "alpha": "alpha",
    "demo": "source",
}


def field_of(exc: BaseException) -> str | None:
    """The input an error belongs beside (:data:`FIELDS`), or None for the page's status line.

    A hierarchy that cannot place a value names no field (``hierarchy 'age': …``): it belongs to the editor.

    Example:
        >>> field_of(PrivriskError("population_count: name it", param="population_count"))
        'population_count'
        >>> field_of(PrivriskError("hierarchy 'age': the value 'x' is not a number")), field_of(ValueError("x"))
        ('hierarchies', None)
    """
    if not isinstance(exc, PrivriskError):
        return None
    param = exc.param
    if param in ("hierarchy", "hierarchies") or (param is None and str(exc).startswith("hierarchy ")):
        return "hierarchies"
    return FIELDS.get(param or "")


class FieldErrors:
    """The page's errors at their inputs (outputs ``err_<input>``): create it in the page's server function.

    Args:
        output: the page's Shiny outputs.
        inputs: the inputs an error can stand beside.
    """

    def __init__(self, output: Any, inputs: Iterable[str]) -> None:
        self.at: reactive.Value[tuple[str, str] | None] = reactive.value(None)
        self.tried = reactive.value(False)  # errors show once the user has pressed Measure, never before
        self.preset: reactive.Value[str | None] = reactive.value(
            None
        )  # a URL's hierarchy the form cannot build
        self._output = output
        self._inputs = tuple(dict.fromkeys(inputs))

    def show(self, exc: BaseException, uploads: Iterable[tuple[Any, str]] = ()) -> bool:
        """Put an error beside its input; False (and nothing shown) when it names none."""
        where = field_of(exc)
        self.at.set(None if where is None else (where, named_error(exc, "presence", uploads)))
        return where is not None

    def serve(self, runner: Runner) -> None:
        """The error outputs, and the effect that puts a bad input the run found while reading (a column, a
        hierarchy, the count column) at its input."""

        @reactive.effect
        def _error_from_the_run() -> None:
            if runner.task.status() != "success":
                return
            done = runner.task.value.get()
            if isinstance(done, dict) and "error" in done:
                exc = done["error"]
                with reactive.isolate():
                    self.at.set((field_of(exc) or "source", named_error(exc, "presence", runner.uploads)))

        for name in self._inputs:
            self._serve_one(name)

    def _serve_one(self, name: str) -> None:
        @self._output(id=f"err_{name}")
        @render.ui
        def _error() -> Any:
            found = self.at()
            if found and found[0] == name:
                return error_ui(found[1])
            return error_ui(self.preset()) if name == "hierarchies" else None
