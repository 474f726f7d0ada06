"""What the app knows of a browser session and of the server: its settings (upload limit, the one ledger), each
session's private folder and Shiny's upload folder of that session, and their removal when the session ends or
the server stops.

The server's settings (:class:`AppSettings`) are the same for every session: the upload limit and the ledger that
every release and every output check is charged to (``privrisk app --ledger FILE``; by default
:func:`default_ledger`, under the user's data folder). A page reads them with :func:`app_settings`.

Example:
    >>> AppSettings(max_upload=1000, ledger=Path("/srv/ledger.json")).ledger_name
    'ledger.json'
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_MAX_UPLOAD",
    "AppSettings",
    "app_settings",
    "attach_settings",
    "default_ledger",
    "ledger_location",
    "own_upload_folder",
    "remove_session_folders",
    "session_folder",
    "session_root",
]

DEFAULT_MAX_UPLOAD = 500 * 1000**2
_SETTINGS_KEY = "_privrisk_app_settings"
_FOLDER_KEY = "_privrisk_session_folder"


def default_ledger() -> Path:
    """The ledger ``privrisk app`` charges when ``--ledger`` is not given: ``ledger.json`` in the user's data
    folder for privrisk (``platformdirs.user_data_path("privrisk")``: ``~/.local/share/privrisk`` on Linux,
    ``~/Library/Application Support/privrisk`` on macOS, ``%LOCALAPPDATA%\\privrisk`` on Windows).

    Example:
        >>> default_ledger().name
        'ledger.json'
    """
    import platformdirs

    return platformdirs.user_data_path("privrisk") / "ledger.json"


def ledger_location(ledger: str | os.PathLike[str] | None) -> Path:
    """The ledger the app charges: ``ledger`` (or :func:`default_ledger`), as an absolute path whose folder exists
    (the default's folder is made, private, if it does not yet); the file itself is made at the first release.

    Raises:
        PrivriskError: (``ledger``) a folder, or a file in a folder that does not exist.

    Example:
        >>> ledger_location("/")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: ledger: / is a folder; give a file (it is made at the first release)
    """
    from privrisk.errors import PrivriskError

    path = (default_ledger() if ledger is None else Path(ledger)).expanduser()
    if path.is_dir():
        raise PrivriskError(
            f"ledger: {path} is a folder; give a file (it is made at the first release)", param="ledger"
        )
    if ledger is None:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise PrivriskError(
                f"ledger: cannot make the folder {path.parent}: {exc.strerror}", param="ledger"
            ) from None
    elif not path.parent.is_dir():
        raise PrivriskError(f"ledger: the folder {path.parent} does not exist", param="ledger")
    return path.absolute()


@dataclass(frozen=True)
class AppSettings:
    """The server's settings, the same for every browser session.

    Attributes:
        max_upload: the largest file, and the largest total, one session may upload (bytes); also the largest
            size an upload may expand to when it is decompressed.
        ledger: the one ledger every release and every output check of every session is charged to.
        key: the ledger's key (a keyed ledger), or None. Never shown.
    """

    max_upload: int = DEFAULT_MAX_UPLOAD
    ledger: Path | None = None
    key: bytes | None = field(default=None, repr=False)

    @property
    def ledger_name(self) -> str:
        """How downloads name the ledger: its file name, never the server's path."""
        return "ledger.json" if self.ledger is None else self.ledger.name

    def ledger_path(self) -> Path:
        """The ledger (:func:`default_ledger` when none was given)."""
        return default_ledger() if self.ledger is None else self.ledger


def session_root(session: Any) -> Any:
    """The root session of a module's session proxy (or the session itself)."""
    return session.root_scope() if hasattr(session, "root_scope") else session


def attach_settings(session: Any, settings: AppSettings) -> None:
    """Give a browser session the server's settings (the app's server function does, before any page)."""
    setattr(session_root(session), _SETTINGS_KEY, settings)


def app_settings(session: Any) -> AppSettings:
    """The server's settings as a page sees them (defaults when the session was made without them)."""
    found = getattr(session_root(session), _SETTINGS_KEY, None)
    return found if isinstance(found, AppSettings) else AppSettings()


# Every folder a session made (its private folder, Shiny's upload folder of it), removed when the session ends and,
# for those left (the server stopped before the session ended), when the server stops.
_FOLDERS: set[Path] = set()
_FOLDERS_LOCK = threading.Lock()


def _register(folder: Path) -> None:
    with _FOLDERS_LOCK:
        _FOLDERS.add(folder)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    with _FOLDERS_LOCK:
        _FOLDERS.discard(folder)


def session_folder(session: Any) -> Path:
    """A private temporary folder of this browser session (``privrisk-app-*``, mode 0700), deleted when the
    session ends, or when the server stops (:func:`remove_session_folders`).

    Pages keep what a session works on there (its upload, a run's outputs); nothing of one session is visible to
    another. Shiny's own upload folder of the session is removed with it.
    """
    root = session_root(session)
    folder = getattr(root, _FOLDER_KEY, None)
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="privrisk-app-"))
        setattr(root, _FOLDER_KEY, folder)
        _register(folder)
        root.on_ended(lambda: _remove(folder))
        uploads = own_upload_folder(root)
        if uploads is not None:
            _register(uploads)
            root.on_ended(lambda: _remove(uploads))
    return Path(folder)


def own_upload_folder(session: Any) -> Path | None:
    """The folder Shiny writes this session's uploads into (None if the session has none: not a Shiny session).

    Shiny keeps it in the session's ``FileUploadManager``; a file input's value names a file inside it. Any other
    path in a file input's value (another session's upload, a path the browser made up) is refused.
    """
    manager = getattr(session_root(session), "_file_upload_manager", None)
    base = getattr(manager, "_basedir", None)
    if not base:
        return None
    try:
        return Path(base).resolve()
    except OSError:
        return None


def remove_session_folders() -> int:
    """Remove every session folder still there (the server is stopping); how many were removed."""
    with _FOLDERS_LOCK:
        left = list(_FOLDERS)
    for folder in left:
        _remove(folder)
    return len(left)
