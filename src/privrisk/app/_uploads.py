"""Uploads: a file input's upload checked (this session's own, within the limits) and kept for the session.

The browser sends a file's contents; Shiny writes them into the session's own upload folder. A page never opens a
path it is given: :func:`upload_path` accepts only a file Shiny wrote for this session. :func:`check_expansion`
refuses a file that would expand above the upload limit when it is read (a gzip bomb, a Parquet or SPSS file of
billions of cells), before anything reads it. :class:`SessionUpload` keeps the session's one data upload for every
page.

Example:
    >>> format_bytes(1_500)
    '1.5 kB'
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from privrisk._format import number
from privrisk.app._sessions import own_upload_folder, session_folder
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    import pandas as pd
    from shiny import reactive

_T = TypeVar("_T")

__all__ = [
    "KeptUpload",
    "SessionUpload",
    "UploadColumns",
    "check_expansion",
    "expanded_size",
    "format_bytes",
    "id_like",
    "keep_upload",
    "numeric_columns",
    "read_upload",
    "session_upload",
    "upload_columns",
    "upload_path",
]


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


def upload_path(fileinfo: list[dict[str, Any]] | None, session: Any = None) -> tuple[Path, str]:
    """The server-side temporary file of an upload, and the name the user's file had.

    Only a file that Shiny itself wrote for an upload of this browser session (a numbered file in a job's folder
    of the session's own upload folder, :func:`~privrisk.app._sessions.own_upload_folder`) is accepted: the
    browser sends the file's contents, never a path the server would open, and a path of another session's upload
    (sent as a file input's value) is refused. ``session`` is the page's session (default: Shiny's current one).
    """
    if not fileinfo:
        raise PrivriskError("no file uploaded yet", param="file")
    info = fileinfo[0] if isinstance(fileinfo, list | tuple) and isinstance(fileinfo[0], dict) else {}
    name = Path(str(info.get("name", "upload"))).name
    path = Path(str(info.get("datapath", "")))
    if session is None:
        from shiny.session import get_current_session

        session = get_current_session()
    own = None if session is None else own_upload_folder(session)
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise PrivriskError(f"{name}: the upload is no longer there; upload the file again") from None
    if own is None or real.parent.parent != own or not real.stem.isdigit() or not real.is_file():
        raise PrivriskError(f"{name}: not an upload of this session")
    return real, name


def read_upload(
    fileinfo: list[dict[str, Any]] | None,
    *,
    max_bytes: int,
    columns: list[str] | None = None,
    session: Any = None,
) -> pd.DataFrame:
    """Read an uploaded CSV, Parquet, Stata or SPSS file with :func:`privrisk.io.data.read_table`.

    Errors name the user's file (not the temporary copy), as the command line names the path it was given.

    Raises:
        PrivriskError: no upload, a file above ``max_bytes``, an unknown type, a file that is not a table.
    """
    from privrisk.io.data import read_table

    path, name = _checked_upload(fileinfo, max_bytes, session)
    try:
        return read_table(path, columns)
    except PrivriskError as exc:
        raise PrivriskError(str(exc).replace(str(path), name), param=exc.param) from None


def upload_columns(
    fileinfo: list[dict[str, Any]] | None, *, max_bytes: int, session: Any = None
) -> list[str]:
    """The column names of an uploaded file (CSV and Parquet without reading their rows)."""
    from privrisk.io.data import table_columns

    path, name = _checked_upload(fileinfo, max_bytes, session)
    try:
        return table_columns(path)
    except PrivriskError as exc:
        raise PrivriskError(str(exc).replace(str(path), name), param=exc.param) from None


def _checked_upload(
    fileinfo: list[dict[str, Any]] | None, max_bytes: int, session: Any = None
) -> tuple[Path, str]:
    path, name = upload_path(fileinfo, session)
    size = path.stat().st_size
    if size > max_bytes:
        raise PrivriskError(
            f"{name}: the file is {format_bytes(size)}, above the upload limit of {format_bytes(max_bytes)} "
            "set when the app was started"
        )
    check_expansion(path, name, max_bytes)
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

        self.session = session
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
        path, name = _checked_upload(fileinfo, self.max_bytes, self.session)
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
            raise PrivriskError(
                str(found), param=found.param
            )  # a fresh one: the kept error gathers no traceback
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


_CHUNK = 1 << 20
# The smallest CSV of a table gives each cell two bytes (a digit and a separator): a file in a format that stores
# fewer (Parquet's run-length encoding, SPSS's compression) counts as that CSV would.
_CELL_BYTES = 2


def _streamed(stream: Any, limit: int) -> int:
    """Bytes a decompressing stream gives, counted up to the first chunk beyond ``limit``."""
    total = 0
    with stream:
        while total <= limit:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            total += len(chunk)
    return total


def expanded_size(path: Path, limit: int) -> int:
    """How many bytes the file's contents take once decompressed, counted no further than just above ``limit``.

    gzip, bzip2 and xz are decompressed as a stream (and counted, never kept); a ZIP archive counts its members
    the same way; a Parquet file counts the larger of its uncompressed size and two bytes per cell (its rows
    times its columns, from the footer); an SPSS file two bytes per cell from its header. Anything else is its
    own size.

    Example:
        >>> import gzip, tempfile
        >>> bomb = Path(tempfile.mkdtemp()) / "0.gz"
        >>> _ = bomb.write_bytes(gzip.compress(b"0" * 1_000_000))
        >>> bomb.stat().st_size < 2_000, expanded_size(bomb, 10_000) > 10_000
        (True, True)
    """
    with open(path, "rb") as f:
        head = f.read(8)
    try:
        if head[:2] == b"\x1f\x8b":
            return _streamed(gzip.open(path, "rb"), limit)
        if head[:3] == b"BZh":
            return _streamed(bz2.open(path, "rb"), limit)
        if head[:6] == b"\xfd7zXZ\x00":
            return _streamed(lzma.open(path, "rb"), limit)
        if head[:4] == b"PK\x03\x04":
            total = 0
            with zipfile.ZipFile(path) as archive:
                for member in archive.infolist():
                    total += _streamed(archive.open(member), limit - total)
                    if total > limit:
                        break
            return total
        if head[:4] == b"PAR1":
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            meta = pq.ParquetFile(path).metadata
            stored = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            return max(int(stored), meta.num_rows * meta.num_columns * _CELL_BYTES, path.stat().st_size)
        if head[:4] in (b"$FL2", b"$FL3"):
            import pyreadstat

            _, meta = pyreadstat.read_sav(str(path), metadataonly=True)
            cells = max(int(meta.number_rows or 0), 0) * len(meta.column_names)
            return max(cells * _CELL_BYTES, path.stat().st_size)
    except Exception:  # a damaged file: not expanded here; reading it gives its own message
        return path.stat().st_size
    return path.stat().st_size


def check_expansion(path: Path, name: str, max_bytes: int) -> None:
    """Refuse a file whose contents expand above ``max_bytes`` (:func:`expanded_size`), or that is compressed
    with Zstandard (which cannot be counted before it is read).

    Raises:
        PrivriskError: naming the user's file, the limit and what to do.
    """
    with open(path, "rb") as f:
        head = f.read(4)
    if head == b"\x28\xb5\x2f\xfd":
        raise PrivriskError(
            f"{name}: Zstandard-compressed files are not read here; upload it uncompressed or as .gz"
        )
    size = expanded_size(path, max_bytes)
    if size > max_bytes:
        raise PrivriskError(
            f"{name}: its contents are above the upload limit of {format_bytes(max_bytes)} once decompressed "
            "(counted as their smallest CSV); upload a smaller file"
        )
