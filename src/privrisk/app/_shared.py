"""What every page of ``privrisk app`` shares: URL presets, uploads, one-line errors, the equivalent command line,
and long work with progress and a cancel button.

A page never re-implements a number: it calls the library functions its command calls and shows their result.
Errors are the library's one-line messages with the parameter named by the input's label, never by a command-line
option (:func:`error_message`), shown next to the input (:func:`error_ui`) while the app keeps running.

Example:
    >>> command_line("risk", epsilon="ln3", n=10, json=False)
    'privrisk risk --epsilon ln3 --n 10'
"""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
import threading
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from privrisk._format import number
from privrisk._params import PARAMS, label, renamed, warning_text
from privrisk._validation import parse_size
from privrisk.errors import PrivriskError, ThresholdExceeded

if TYPE_CHECKING:
    import pandas as pd
    from htmltools import Tag
    from shiny import reactive

_T = TypeVar("_T")

__all__ = [
    "DEFAULT_MAX_UPLOAD",
    "Cancelled",
    "Job",
    "KeptUpload",
    "SessionUpload",
    "UploadColumns",
    "command_line",
    "error_input",
    "error_message",
    "error_ui",
    "format_bytes",
    "id_like",
    "keep_upload",
    "numeric_columns",
    "parse_size",
    "preset_inputs",
    "query_params",
    "quiet",
    "read_upload",
    "session_folder",
    "session_upload",
    "upload_columns",
    "upload_path",
    "warning_message",
    "warning_ui",
]

DEFAULT_MAX_UPLOAD = 500 * 1000**2
_QUERY_KEY = "_privrisk_query_params"


def format_bytes(size: float) -> str:
    """A size for people, in decimal units.

    Example:
        >>> format_bytes(500_000_000), format_bytes(1536), format_bytes(2e12)
        ('500 MB', '1.54 kB', '2,000 GB')
    """
    for unit, factor in (("GB", 1000**3), ("MB", 1000**2), ("kB", 1000)):
        if size >= factor:
            return f"{number(size / factor, 3)} {unit}"  # the app's number format: 2,000 GB, not 2e+03 GB
    return f"{int(size)} bytes"


def query_params(session: Any) -> dict[str, str]:
    """The query parameters of the page's URL (``?page=risk&epsilon=ln3``), parsed once per browser session.

    The first value of a repeated parameter wins. Works with a module's session proxy as with the root session.
    """
    root = session.root_scope() if hasattr(session, "root_scope") else session
    cached = getattr(root, _QUERY_KEY, None)
    if cached is None:
        from shiny import reactive

        with reactive.isolate():
            search = root.clientdata.url_search()
        cached = {}
        for key, value in urllib.parse.parse_qsl(str(search or "").lstrip("?"), keep_blank_values=True):
            cached.setdefault(key, value)
        setattr(root, _QUERY_KEY, cached)
    return dict(cached)


def preset_inputs(session: Any, kinds: Mapping[str, str]) -> dict[str, str]:
    """Set a page's inputs from the URL: ``kinds`` maps an input (named like its option) to its kind.

    Kinds: ``text`` (also text areas), ``numeric``, ``slider``, ``select``, ``radio``, ``checkbox``. A value that
    does not fit a numeric input is put in anyway as text would not be; it is skipped, and the page's own check of
    the input reports the problem. Returns the parameters that were used.
    """
    from shiny import ui

    params = query_params(session)
    used: dict[str, str] = {}
    for name, kind in kinds.items():
        if name not in params:
            continue
        value = params[name]
        if kind == "text":
            ui.update_text(name, value=value)
        elif kind in ("numeric", "slider"):
            try:
                number = float(value)
            except ValueError:
                continue
            (ui.update_numeric if kind == "numeric" else ui.update_slider)(name, value=number)
        elif kind == "select":
            ui.update_select(name, selected=value)
        elif kind == "radio":
            ui.update_radio_buttons(name, selected=value)
        elif kind == "checkbox":
            ui.update_checkbox(name, value=value.lower() in ("1", "true", "yes", "on"))
        else:  # pragma: no cover - a page's own mistake
            raise ValueError(f"unknown input kind {kind!r}")
        used[name] = value
    return used


_FOLDER_KEY = "_privrisk_session_folder"


def session_folder(session: Any) -> Path:
    """A private temporary folder of this browser session (mode 0700), deleted when the session ends.

    Pages keep what a session works on there (a copy of an uploaded ledger); nothing of one session is visible to
    another.
    """
    import shutil

    root = session.root_scope() if hasattr(session, "root_scope") else session
    folder = getattr(root, _FOLDER_KEY, None)
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="privrisk-app-"))
        setattr(root, _FOLDER_KEY, folder)
        root.on_ended(lambda: shutil.rmtree(folder, ignore_errors=True))
    return Path(folder)


def upload_path(fileinfo: list[dict[str, Any]] | None) -> tuple[Path, str]:
    """The server-side temporary file of an upload, and the name the user's file had.

    Only a file that Shiny itself wrote for this upload (a numbered file in a ``fileupload-`` folder under the
    temporary folder) is accepted: the browser sends the file's contents, never a path the server would open.
    """
    if not fileinfo:
        raise PrivriskError("no file uploaded yet", param="file")
    info = fileinfo[0]
    name = Path(str(info.get("name", "upload"))).name
    path = Path(str(info.get("datapath", "")))
    tmp = Path(tempfile.gettempdir()).resolve()
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise PrivriskError(f"{name}: the upload is no longer there; upload the file again") from None
    parents = real.parents
    if (
        len(parents) < 3
        or parents[2] != tmp
        or not parents[1].name.startswith("fileupload-")
        or not real.stem.isdigit()
        or not real.is_file()
    ):
        raise PrivriskError(f"{name}: not an upload of this session")
    return real, name


def read_upload(
    fileinfo: list[dict[str, Any]] | None, *, max_bytes: int, columns: list[str] | None = None
) -> pd.DataFrame:
    """Read an uploaded CSV, Parquet, Stata or SPSS file with :func:`privrisk.io.data.read_table`.

    Errors name the user's file (not the temporary copy), as the command line names the path it was given.

    Raises:
        PrivriskError: no upload, a file above ``max_bytes``, an unknown type, a file that is not a table.
    """
    from privrisk.io.data import read_table

    path, name = _checked_upload(fileinfo, max_bytes)
    try:
        return read_table(path, columns)
    except PrivriskError as exc:
        raise PrivriskError(str(exc).replace(str(path), name), param=exc.param) from None


def upload_columns(fileinfo: list[dict[str, Any]] | None, *, max_bytes: int) -> list[str]:
    """The column names of an uploaded file (CSV and Parquet without reading their rows)."""
    from privrisk.io.data import table_columns

    path, name = _checked_upload(fileinfo, max_bytes)
    try:
        return table_columns(path)
    except PrivriskError as exc:
        raise PrivriskError(str(exc).replace(str(path), name), param=exc.param) from None


def _checked_upload(fileinfo: list[dict[str, Any]] | None, max_bytes: int) -> tuple[Path, str]:
    path, name = upload_path(fileinfo)
    size = path.stat().st_size
    if size > max_bytes:
        raise PrivriskError(
            f"{name}: the file is {format_bytes(size)}, above the upload limit of {format_bytes(max_bytes)} "
            "set when the app was started"
        )
    return path, name


_ID_NAME = re.compile(
    r"(^|[\s_.#-])(id|ids|key|nr|no|number|code|licen[cs]e|uuid)([\s_.#-]|$)|#|^(p|u|h)?id$", re.I
)


def id_like(name: str, values: Any) -> bool:
    """Whether a column identifies records rather than measuring them: a name like ``id`` or ``License #``, or
    whole numbers all distinct in one consecutive run (1, 2, 3, …).

    Example:
        >>> import pandas as pd
        >>> id_like("id", pd.Series([7, 3])), id_like("n", pd.Series([3, 1, 2])), id_like("claims", pd.Series([1.5, 2]))
        (True, True, False)
        >>> id_like("License #", pd.Series([5.5, 1])), id_like("income", pd.Series([30_000, 12_500, 41_000]))
        (True, False)
    """
    import numpy as np
    import pandas as pd

    if _ID_NAME.search(str(name)):
        return True
    series = pd.Series(values).dropna()
    if series.size < 3 or not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    x = np.sort(series.to_numpy(dtype=float))
    if not np.all(x == np.round(x)):
        return False
    return bool(np.all(np.diff(x) == 1))  # a row number: whole numbers, all distinct, in one consecutive run


def numeric_columns(frame: Any) -> list[str]:
    """The columns a query may run on: numeric, not an id (:func:`id_like`), in the file's order.

    Example:
        >>> import pandas as pd
        >>> numeric_columns(pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", "c"], "claims": [9.9, 9.2, 100]}))
        ['claims']
    """
    import pandas as pd

    return [
        str(c)
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_bool_dtype(frame[c])
        and not id_like(str(c), frame[c])
    ]


@dataclass(frozen=True)
class KeptUpload:
    """The session's uploaded file: the server's copy (never shown) and the name the user's file had.

    Example:
        >>> KeptUpload(Path("/tmp/x/upload.csv"), "claims.csv").label
        'Use claims.csv (uploaded)'
    """

    path: Path
    name: str

    @property
    def label(self) -> str:
        """What a page's data choice says for it."""
        return f"Use {self.name} (uploaded)"


@dataclass(frozen=True)
class UploadColumns:
    """What a page chooses an upload's columns from, found in one reading of the whole table.

    Attributes:
        names: the columns, in the file's order.
        dtypes: each column's pandas dtype as text (``int64``, ``object``, …).
        numeric: the columns a query may run on (:func:`numeric_columns`: numeric, not an id).
        ids: the columns that identify records (:func:`id_like`).

    Example:
        >>> import pandas as pd
        >>> cols = UploadColumns.of(pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", "c"], "claims": [9.9, 9.2, 100]}))
        >>> cols.names, cols.numeric, cols.ids, cols.dtypes["claims"]
        (('id', 'name', 'claims'), ('claims',), ('id',), 'float64')
    """

    names: tuple[str, ...]
    dtypes: Mapping[str, str]
    numeric: tuple[str, ...]
    ids: tuple[str, ...]

    @classmethod
    def of(cls, frame: Any) -> UploadColumns:
        """The columns of a table (a pandas DataFrame)."""
        names = tuple(str(c) for c in frame.columns)
        return cls(
            names=names,
            dtypes={str(c): str(frame[c].dtype) for c in frame.columns},
            numeric=tuple(numeric_columns(frame)),
            ids=tuple(str(c) for c in frame.columns if id_like(str(c), frame[c])),
        )


_UPLOAD_KEY = "_privrisk_session_upload"


class SessionUpload:
    """The one upload of a browser session, offered by every page that takes data (:func:`session_upload`).

    A page's own file input hands its upload to :meth:`keep` (:func:`keep_upload` registers that effect); the file
    is checked (the upload limit, a file Shiny wrote for this session) and copied into the session's private folder
    (:func:`session_folder`), so that it outlives the page's input and every page can read it. :meth:`current` is
    reactive: a page that reads it in an effect hears of each new upload, whichever page it came from.

    Every page that takes data chooses its columns when a file arrives: :meth:`columns` (the header) and
    :meth:`profile` (dtypes, numeric and id columns, from the rows) are found once per upload and kept, so that the
    pages do not each read the whole file again.
    """

    def __init__(self, session: Any, max_bytes: int) -> None:
        from shiny import reactive

        self.folder = session_folder(session) / "upload"
        self.max_bytes = max_bytes
        self._value: reactive.Value[KeptUpload | None] = reactive.value(None)
        # Per upload (the key): its header, and its profile or the error reading its rows gave.
        self._header: tuple[KeptUpload, list[str] | PrivriskError] | None = None
        self._profile: tuple[KeptUpload, UploadColumns | PrivriskError] | None = None

    def current(self) -> KeptUpload | None:
        """The kept upload (None: none yet); reactive."""
        return self._value()

    def keep(self, fileinfo: list[dict[str, Any]] | None) -> KeptUpload:
        """Check an upload of a page's file input and keep it for the session (it replaces the one kept before).

        Raises:
            PrivriskError: no upload, not an upload of this session, above the upload limit.
        """
        path, name = _checked_upload(fileinfo, self.max_bytes)
        # A fresh folder per upload: a page still reading the previous file keeps it until the session ends.
        self.folder.mkdir(mode=0o700, exist_ok=True)
        target = Path(tempfile.mkdtemp(dir=self.folder)) / f"data{''.join(Path(name).suffixes[-2:]).lower()}"
        shutil.copyfile(path, target)
        kept = KeptUpload(target, name)
        self._value.set(kept)
        return kept

    def on_new(self, offer: Callable[[KeptUpload], None]) -> Callable[[KeptUpload], None]:
        """Decorate a page's function that offers each file the session keeps (uploaded on any page): an effect of
        the calling page calls ``offer(kept)`` for every new upload, never before the first.

        Returns:
            ``offer`` itself.
        """
        from shiny import reactive

        @reactive.effect
        @reactive.event(self.current)
        def _offer() -> None:
            kept = self.current()
            if kept is not None:
                offer(kept)

        return offer

    def checked(self, param: str = "file") -> tuple[Path, str]:
        """The kept file's path and name (for the library's settings, which read a path); reactive.

        Raises:
            PrivriskError: nothing uploaded yet (``param`` names the input), or the copy is gone.
        """
        kept = self.current()
        if kept is None:
            raise PrivriskError("no file uploaded yet", param=param)
        if not kept.path.is_file():
            raise PrivriskError(
                f"{kept.name}: the upload is no longer there; upload the file again", param=param
            )
        return kept.path, kept.name

    def read(self, columns: list[str] | None = None) -> pd.DataFrame:
        """The kept file as a table (:func:`privrisk.io.data.read_table`), errors naming the user's file."""
        from privrisk.io.data import read_table

        path, name = self.checked()
        try:
            return read_table(path, columns)
        except PrivriskError as exc:
            raise PrivriskError(str(exc).replace(str(path), name), param=exc.param) from None

    def columns(self) -> list[str]:
        """The kept file's column names (CSV and Parquet without reading their rows), found once per upload."""
        from privrisk.io.data import table_columns

        path, name = self.checked()
        kept = KeptUpload(path, name)  # the current upload (checked() read it)
        if self._header is None or self._header[0] != kept:
            try:
                found: list[str] | PrivriskError = table_columns(path)
            except PrivriskError as exc:
                found = PrivriskError(str(exc).replace(str(path), name), param=exc.param)
            self._header = (kept, found)
        cached = self._header[1]
        if isinstance(cached, PrivriskError):
            raise PrivriskError(str(cached), param=cached.param)
        return list(cached)

    def profile(self) -> UploadColumns:
        """The kept file's :class:`UploadColumns`, from one reading of its rows per upload (every page shares it).

        Raises:
            PrivriskError: nothing uploaded, or the rows do not read (the same error again on each call, without
                reading the file again).
        """
        kept = self.current()
        if self._profile is None or self._profile[0] != kept:
            try:
                found: UploadColumns | PrivriskError = UploadColumns.of(self.read())
            except PrivriskError as exc:
                found = exc
            if kept is not None:  # "nothing uploaded yet" is not kept: the next upload answers it
                self._profile = (kept, found)
        else:
            found = self._profile[1]
        if isinstance(found, PrivriskError):
            raise PrivriskError(str(found), param=found.param)  # a fresh one: the kept error gathers no traceback
        return found


def session_upload(session: Any, *, max_bytes: int) -> SessionUpload:
    """The browser session's one :class:`SessionUpload`, the same object for every page (module) of the session.

    The pattern for a page (its file input ``file``, its data choice ``source`` with a ``"file"`` entry):

    - ``keep_upload("file", input, uploads, message)`` (:func:`keep_upload`): the upload kept, its error shown
      at the file input;
    - ``@uploads.on_new`` (:meth:`SessionUpload.on_new`) on ``def _offer(kept)``: offer the file (``ui.update_radio_buttons("source",
      choices={..., "file": kept.label}, selected="file")``), choose columns from ``uploads.profile()`` (found
      once per upload, :class:`UploadColumns`), and clear the example's settings;
    - the run reads ``uploads.checked()`` instead of the page's own input.
    """
    root = session.root_scope() if hasattr(session, "root_scope") else session
    found = getattr(root, _UPLOAD_KEY, None)
    if found is None:
        found = SessionUpload(root, max_bytes)
        setattr(root, _UPLOAD_KEY, found)
    return found


def keep_upload(
    input_id: str,
    input: Any,
    uploads: SessionUpload,
    message: reactive.Value[_T | None],
    text: Callable[[PrivriskError], _T] | None = None,
) -> Any:
    """Register a page's effect that keeps each upload of its file input ``input_id`` for the session.

    On each upload ``message`` is cleared, the file handed to :meth:`SessionUpload.keep` (which offers it to
    every page), and a refused file's error put in ``message`` as ``text(error)`` (the error itself without
    ``text``), for the page to show at its file input. Call it in the page's server function (its module), like
    any ``@reactive.effect``.

    Returns:
        The effect (Shiny keeps it; a page need not).

    Example:
        >>> import asyncio
        >>> from shiny import reactive
        >>> class Uploads:  # what keep_upload needs of a SessionUpload
        ...     def keep(self, fileinfo):
        ...         raise PrivriskError(f"{fileinfo[0]['name']}: not an upload of this session")
        >>> file, message = reactive.value(None), reactive.value(None)
        >>> effect = keep_upload("file", {"file": file}, Uploads(), message, lambda exc: f"said: {exc}")
        >>> _ = file.set([{"name": "x.csv"}])
        >>> asyncio.run(reactive.flush())  # what Shiny does after each message from the browser
        >>> with reactive.isolate():
        ...     message()
        'said: x.csv: not an upload of this session'
    """
    from shiny import reactive

    upload = input[input_id]

    @reactive.effect
    @reactive.event(upload)
    def _keep() -> None:
        message.set(None)
        try:
            uploads.keep(upload())
        except PrivriskError as exc:
            message.set(exc if text is None else text(exc))  # type: ignore[arg-type]  # _T is the error without text

    return _keep


def error_message(exc: BaseException, command: str | None = None, options: Sequence[str] = ()) -> str:
    """The one line the app shows for an error: the library's message with its parameter named by the page's label.

    The label is the app's own word for the input ("Largest acceptable risk"), from the library's one table of
    parameters (:mod:`privrisk._params`), never the command line's option; ``command`` is the page (a command's
    name), whose own label wins where it has one. A parameter the table does not label is humanised
    (``by_hand`` → "By hand"). ``options`` is kept for the pages that still pass it; labels need no list.

    Example:
        >>> error_message(PrivriskError("epsilon: must be greater than 0, got -1"), "risk")
        'Privacy loss ε: must be greater than 0, got -1'
        >>> error_message(PrivriskError("by_hand: too many"))
        'By hand: too many'
    """
    del options  # every parameter has a label: nothing to look up per command any more
    if isinstance(exc, PrivriskError | ThresholdExceeded):
        message = str(exc).splitlines()[0] if str(exc) else "bad input"
        param = exc.param
        page = command.split()[0] if command else None
        return renamed(message, param, label(param, page)) if param else message
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"internal error: {type(exc).__name__}: {exc}"


def warning_message(warning: Warning | str, command: str | None = None) -> str:
    """The one line the app shows for a library warning: the command line's format, its parameter labelled.

    Example:
        >>> warning_message("window:  fewer than 10 periods", "empirical")
        'Window: fewer than 10 periods'
    """
    page = command.split()[0] if command else None
    return warning_text(warning, lambda param: label(param, page))


def warning_ui(warning: Warning | str, command: str | None = None) -> Tag:
    """A library warning on a page: :func:`warning_message`'s line (e-notation as powers of ten), marked a warning.

    The command line shows the same warning as ``privrisk: warning: <text>``, with the option named instead.
    """
    from shiny import ui

    from privrisk._format import plain

    return ui.p(
        f"Warning: {plain(warning_message(warning, command))}", class_="text-warning privrisk-warning"
    )


def error_input(error: BaseException | str, inputs: tuple[str, ...], default: str) -> str:
    """The input an error belongs next to: the one its ``param`` names, else ``default``.

    A library error or threshold names its parameter (``param``); for a message alone (the older callers), the
    input its leading ``--option:`` (or ``name:``) names.

    Example:
        >>> error_input(PrivriskError("universe: give two numbers LO,HI"), ("universe", "epsilon"), "file")
        'universe'
        >>> error_input("--universe: give two numbers LO,HI", ("universe", "epsilon"), "file")
        'universe'
        >>> error_input("Bounds: give two numbers LO,HI", ("universe", "epsilon"), "file")
        'universe'
        >>> error_input(PrivriskError("data.csv: no column 'x'"), ("universe",), "file")
        'file'
    """
    if isinstance(error, BaseException):
        param = getattr(error, "param", None)
        return param if param in inputs else default
    message = error
    head, sep, _ = message.partition(":")
    if sep:
        name = head.removeprefix("--").split("/")[0].replace("-", "_")
        if name in inputs:
            return name
        # A message error_message has already labelled: the input whose label (on any page) it starts with.
        for name in inputs:
            entry = PARAMS.get(name)
            labels = {label(name), *(entry.page_labels.values() if entry else ())}
            if head in labels:
                return name
    return default


def quiet(calc: Callable[[], Any]) -> Any:
    """``calc()``, or nothing shown (Shiny's silent ``req``) if it raises a :class:`PrivriskError`.

    For outputs whose input's error is shown next to the input already: the output stays empty instead of
    repeating the message (and the server's log stays free of tracebacks for bad input).
    """
    from shiny import req

    try:
        return calc()
    except PrivriskError:
        req(False)


def error_ui(message: str | None) -> Tag | None:
    """The error shown next to an input: one line in red with ``role="alert"``, or nothing."""
    if not message:
        return None
    from shiny import ui

    return ui.div(message, class_="privrisk-error text-danger small mt-1", role="alert")


def command_line(command: str, **options: Any) -> str:
    """The ``privrisk`` command that gives the same result as a page (options in the order given).

    ``True`` is a flag, ``False`` and ``None`` are left out; ``snake_case`` becomes ``--kebab-case``.

    Example:
        >>> command_line("sensitivity", file="my data.csv", column="distance", universe="1,675")
        "privrisk sensitivity 'my data.csv' --column distance --universe 1,675"
    """
    parts = ["privrisk", *command.split()]
    positional = options.pop("file", None)
    if positional is not None:
        parts.append(shlex.quote(str(positional)))
    for key, value in options.items():
        if value is None or value is False or value == "":
            continue
        option = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            parts.append(option)
        else:
            text = f"{value:g}" if isinstance(value, float) else str(value)
            parts += [option, shlex.quote(text)]
    return " ".join(parts)


class Cancelled(Exception):
    """Raised inside a :class:`Job`'s work when the user pressed Cancel."""


class Job:
    """Long work in a worker thread: its progress is read by the page, Cancel sets an event the work checks.

    The pattern: a page runs ``await asyncio.to_thread(work, job, ...)`` in a ``@reactive.extended_task`` bound to
    its Run button; ``work`` calls ``job.advance(fraction, text)`` now and then (which raises :class:`Cancelled`
    after :meth:`cancel`); the page polls :meth:`status_text` with ``reactive.invalidate_later`` while the task
    runs, and its Cancel button calls ``job.cancel()`` and the task's ``cancel()``.

    Example:
        >>> job = Job()
        >>> job.advance(0.5, "half way")
        >>> job.status_text()
        'half way (50 %)'
        >>> job.cancel()
        >>> job.advance(0.6)
        Traceback (most recent call last):
        ...
        privrisk.app._shared.Cancelled: cancelled
    """

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self.fraction = 0.0
        self.text = ""

    def advance(self, fraction: float, text: str | None = None) -> None:
        """Record progress (0 to 1); raise :class:`Cancelled` if the user cancelled."""
        if self._cancel.is_set():
            raise Cancelled("cancelled")
        with self._lock:
            self.fraction = min(max(float(fraction), 0.0), 1.0)
            if text is not None:
                self.text = text

    def cancel(self) -> None:
        """Ask the work to stop at its next :meth:`advance`."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def status_text(self) -> str:
        """What the progress line shows."""
        with self._lock:
            return f"{self.text or 'working'} ({self.fraction:.0%})".replace("%)", " %)")

    def callback(self) -> Callable[..., None]:
        """An ``advance(steps=1)``-style callback for library functions that count steps of a known total."""
        return self.advance
