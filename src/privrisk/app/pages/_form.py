"""A page's inputs as one settings object of the library, with each error shown at the input it names.

The pages Audit and Empirical DP map their inputs onto their capability's settings (``AuditSettings``,
``EmpiricalSettings``) while the user types. :class:`SettingsForm` builds them reactively, finds the input an
error belongs to (the error's ``param``, which names the settings' field and so the input), and shows it below
that input (an output ``<name>_error``), but only once the user has typed or pressed Run: nothing is shown
before. :meth:`SettingsForm.start` is the Run button: a bad setting stays at its input and nothing runs; a good
one starts the page's work in its :class:`~privrisk.app.pages._runs.Runner`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from privrisk.app._shared import error_input, error_message, error_ui
from privrisk.app.pages._runs import Runner
from privrisk.errors import PrivriskError

__all__ = ["SettingsForm", "field", "text_field"]


def field(control: Any, name: str) -> Any:
    """An input with its error output (``<name>_error``) below it, where :class:`SettingsForm` shows its error."""
    from shiny import ui

    return ui.div(control, ui.output_ui(f"{name}_error"))


def text_field(name: str, label: str, value: str = "") -> Any:
    """A text input named like its settings' field, with its error output below it (:func:`field`)."""
    from shiny import ui

    return field(ui.input_text(name, label, value=value), name)


class SettingsForm:
    """The settings of a page built from its inputs, with errors at their inputs (see the module).

    Args:
        input: the page's Shiny inputs.
        command: the page's command (``audit``), for the messages.
        fields: the inputs that set a field; the first is the file, whose error output the page draws itself
            (:meth:`file_error`) beside the upload's own message.
        build: ``build(path)`` makes the settings from the inputs, with ``path`` the data's file (None: none).
        data: ``data()`` gives the data's path (None: nothing uploaded yet) and its name.
        quiet: inputs whose change does not count as typing (those the page sets after an upload).
    """

    def __init__(
        self,
        input: Any,
        command: str,
        fields: Sequence[str],
        build: Callable[[Path | None], Any],
        data: Callable[[], tuple[Path | None, str]],
        quiet: Sequence[str] = (),
    ) -> None:
        from shiny import reactive, render

        self.command, self.fields, self.build, self.data = command, tuple(fields), build, data
        self.touched = reactive.value(False)

        @reactive.effect
        @reactive.event(*(input[n] for n in self.fields[1:] if n not in quiet), ignore_init=True)
        def _typed() -> None:
            self.touched.set(True)

        @reactive.calc
        def problem() -> tuple[str, str] | None:
            try:
                self.build(self.data()[0])
            except PrivriskError as exc:
                return error_input(exc, self.fields, self.fields[0]), error_message(exc, command)
            return None

        self.problem = problem
        for name in self.fields[1:]:

            def make(name: str = name) -> None:
                def shown() -> Any:
                    return error_ui(self.message_for(name))

                shown.__name__ = f"{name}_error"
                render.ui(shown)

            make()

    def message_for(self, name: str) -> str | None:
        """The error to show below input ``name`` now (None: none, or the user has not typed yet); reactive."""
        found = self.problem()
        if not self.touched() or found is None or found[0] != name:
            return None
        return found[1]

    def file_error(self, upload_message: str | None) -> Any:
        """The file input's error: the upload's own message, else a settings error that names the file."""
        return error_ui(upload_message or self.message_for(self.fields[0]))

    def start(
        self,
        runner: Runner,
        work: Callable[..., Any],
        folder: Path,
        *,
        upload_message: str | None = None,
        checked: Callable[[], tuple[Path, str]],
    ) -> None:
        """Run: a bad setting stays at its input; else ``work(job, settings, name, folder)`` in the runner.

        ``checked()`` gives the data's path and name, checked (an upload within the limit, or the example).
        """
        self.touched.set(True)
        if upload_message is not None:
            runner.fail(PrivriskError(upload_message))
            return
        if self.problem() is not None:
            runner.message.set(None)
            return  # shown at its input
        uploads: list[tuple[Path, str]] = []
        try:
            path, name = checked()
            uploads = [(path, name)]
            settings = self.build(path)
        except Exception as exc:
            runner.fail(exc, uploads)
            return
        runner.start(work, settings, name, folder, uploads=uploads)
