"""One long-job page's plumbing, written once: its data (the page's example or the session's upload), its run in
the background with progress and Cancel, and the downloads of the folder the run wrote.

The Audit, Empirical DP and Study pages each make one :class:`LongJob` in their server function and keep only what
is theirs: the form, the mapping of its inputs onto the capability's settings, and the formatting of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from shiny import reactive, render, ui

from privrisk.app._uploads import KeptUpload, keep_upload, session_upload
from privrisk.app.pages._form import SettingsForm
from privrisk.app.pages._runs import Runner, named_error, session_folder, zip_bytes
from privrisk.errors import PrivriskError

__all__ = ["UPLOAD_TYPES", "LongJob", "data_inputs", "upload_input", "with_upload"]

#: The kinds of file an upload of a table may be (those :func:`privrisk.io.read_table` reads).
UPLOAD_TYPES = [".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"]

#: Called with an upload's profile (its columns' names and kinds) and the names of its columns when it is offered;
#: with (None, []) when it cannot be read, so that the page clears its column choices.
Offer = Callable[[Any, list[str]], None]


def upload_input(id: str, label: str) -> Any:
    """A file input for a table, with its error output (``<id>_error``) below it."""
    return ui.TagList(ui.input_file(id, label, accept=UPLOAD_TYPES), ui.output_ui(f"{id}_error"))


def data_inputs(sources: Mapping[str, str], selected: str, *panel: Any, under_choice: Any = ()) -> list[Any]:
    """The page's choice of data: the ``source`` radio buttons (``sources``, ``selected`` chosen first), then
    ``under_choice``, then ``panel`` (the upload's inputs, e.g. :func:`upload_input`) shown while ``file`` is chosen.
    """
    return [
        ui.input_radio_buttons("source", "Data", dict(sources), selected=selected),
        *under_choice,
        ui.panel_conditional("input.source === 'file'", *panel),
    ]


def with_upload(
    sources: Mapping[str, str], name: str = "{}"
) -> Callable[[KeptUpload | None], dict[str, str]]:
    """The data choices given the session's upload (:class:`LongJob`'s ``sources``): ``sources``, their ``file``
    choice named ``name`` with the upload's label in its ``{}`` once there is an upload.

    Example:
        >>> with_upload({"example": "the example", "file": "a file I upload"})(None)["file"]
        'a file I upload'
    """

    def choices(kept: KeptUpload | None) -> dict[str, str]:
        return dict(sources) if kept is None else {**sources, "file": name.format(kept.label)}

    return choices


class LongJob:
    """A page's long job: create it in the page's server function (a Shiny module).

    Args:
        input, session: the page's.
        command: the command the page runs (``audit``), also the page's id: its session folder, its errors named
            with the command's options.
        max_upload: the upload limit in bytes.
        sources: the data choices for the ``source`` radio buttons, given the session's upload (or None).
        offer: called when an upload is offered on the page (see :data:`Offer`).
        example: the page's example file and its name (the ``source`` ``example``), if it has one.
        make_example: writes the example file when it is needed and missing.
        header_only: offer an upload whose rows do not read by its header's column names (the run says what is
            wrong), instead of refusing it at the file input.
    """

    def __init__(
        self,
        input: Any,
        session: Any,
        command: str,
        *,
        max_upload: int,
        sources: Callable[[KeptUpload | None], Mapping[str, str]],
        offer: Offer,
        example: tuple[Path, str] | None = None,
        make_example: Callable[[Path], Any] | None = None,
        header_only: bool = False,
    ) -> None:
        self.input, self.command, self.example, self.make_example = input, command, example, make_example
        self.folder = session_folder(session, command)
        self.runner = Runner(command, "cancel", session, self.folder)
        self.uploads = session_upload(session, max_bytes=max_upload)
        self.file_message: reactive.Value[str | None] = reactive.value(None)
        self._sources, self._offer, self._header_only = sources, offer, header_only
        # This page's upload becomes the session's: every page that takes data offers it.
        keep_upload("file", input, self.uploads, self.file_message, self.message)
        self.uploads.on_new(self._offered)
        self.runner.serve_status(input)

    def message(self, exc: BaseException) -> str:
        """The one-line message of an error, with the command's options named."""
        return named_error(exc, self.command)

    def _offered(self, kept: KeptUpload) -> None:
        profile: Any = None
        try:
            profile = self.uploads.profile()  # read once per upload, for every page
            names: list[str] | None = list(profile.names)
        except PrivriskError as exc:
            names = self._header(exc)
        if names is None:
            self._offer(None, [])
            return
        self.file_message.set(None)
        ui.update_radio_buttons("source", choices=dict(self._sources(kept)), selected="file")
        self._offer(profile, names)

    def _header(self, exc: PrivriskError) -> list[str] | None:
        """The upload's columns from its header alone (when the page takes that), or None with the message set."""
        if self._header_only:
            try:
                return list(self.uploads.columns())
            except PrivriskError as header_exc:
                exc = header_exc
        self.file_message.set(self.message(exc))
        return None

    def data(self) -> tuple[Path | None, str]:
        """The chosen data's path and name, without checking it (None and ``FILE`` when there is none yet)."""
        if self.example is not None and self.input.source() == "example":
            return self.example
        kept = self.uploads.current()
        if kept is None or self.file_message() is not None:
            return None, "FILE"
        return kept.path, kept.name

    def checked(self) -> tuple[Path, str]:
        """The chosen data's path and name, the upload checked (its error names the file input)."""
        if self.example is not None and self.input.source() == "example":
            path = self.example[0]
            if self.make_example is not None and not path.is_file():
                self.make_example(path)
            return self.example
        return self.uploads.checked()

    def upload_message(self) -> str | None:
        """Why the chosen upload cannot be used, if it was refused (None for the example)."""
        return self.file_message() if self.input.source() == "file" else None

    def serve_run(self, form: SettingsForm, work: Callable[..., Any], out: str) -> None:
        """Wire the page's ``run`` button and its ``file_error`` output to ``form`` (a bad setting stays at its
        input; else ``work(job, settings, name, folder / out)`` runs)."""

        @render.ui
        def file_error() -> Any:
            return form.file_error(self.file_message())

        @reactive.effect
        @reactive.event(self.input.run)
        def _run() -> None:
            form.start(
                self.runner,
                work,
                self.folder / out,
                upload_message=self.upload_message(),
                checked=self.checked,
            )

    def serve_results(self, prompt: str, shown: Callable[[Any], Any]) -> None:
        """Register the page's ``results`` output: ``prompt`` until a run succeeded, then ``shown(run)``."""

        @render.ui
        def results() -> Any:
            run = self.runner.result()
            if run is None:
                return ui.p(prompt, class_="privrisk-help")
            return shown(run)

    def downloads(self, out: str, files: Mapping[str, tuple[str, str]], whole: str) -> Callable[[], Any]:
        """Register the downloads of the run's folder ``folder/out``: ``files`` ``{id: (file, label)}`` one by one,
        and the whole folder as ``whole`` (.zip); returns the function that draws their buttons."""
        where = self.folder / out

        def one(file: str) -> Callable[[], Any]:
            def download() -> Any:
                yield (where / file).read_bytes()

            return download

        for key, (file, _) in files.items():
            handler = one(file)
            handler.__name__ = f"download_{key}"  # the output's id
            render.download_button(filename=Path(file).name)(handler)

        def download_all() -> Any:
            yield zip_bytes(where)

        render.download_button(filename=whole)(download_all)

        def buttons() -> Any:
            return ui.div(
                *(
                    ui.download_button(f"download_{key}", label, class_="btn-sm me-2")
                    for key, (_, label) in files.items()
                ),
                ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"),
                class_="mb-3",
            )

        return buttons
