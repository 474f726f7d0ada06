"""The one ledger's file: read whole and checked, locked, replaced atomically; never routed around.

Every release and every set of released outputs is recorded in one ledger file (:mod:`privrisk.ledger.chain`
holds its format). The rules that make it one file, for every process and every name:

- **A regular file under one name.** A symbolic link is refused (``O_NOFOLLOW``), never replaced by a regular
  file: give the real path. A file with a second name (a hard link) is refused: the atomic rename would give one
  name the new ledger and leave the other the old one. A FIFO, a device or a folder is refused without blocking,
  and a file over 64 MiB before it is read (:func:`~privrisk.io.files.read_regular_file`).
- **Locked.** Whoever appends holds an exclusive ``flock`` on ``LEDGER.lock`` while it reads the ledger, decides
  (a budget, a differencing check) and writes; the lock file is removed when the lock is let go
  (:func:`~privrisk.io.files.exclusive_lock`).
- **Atomic.** The new ledger is written to a temporary file beside the old one, flushed to disk, and renamed over
  it, keeping the old file's mode: a crash leaves the old ledger or the new one, never half of one.

:func:`read_ledger_file` reads without the lock (a reader sees a whole file, the old or the new);
:func:`open_ledger` holds the lock and gives the entries read under it and a way to append.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> table = {"spec": {"name": "T", "kind": "count"}, "cells": [{"labels": {}, "value": 12}]}
    >>> with open_ledger(path) as led:
    ...     entry = led.append("outputs", {"outputs": [table]})
    >>> [(e["kind"], e["seq"]) for e in read_ledger_file(path)]
    [('outputs', 1)]
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.io.files import atomic_path, exclusive_lock, read_regular_file
from privrisk.ledger.chain import check_next, ledger_document, new_entry, parse_ledger
from privrisk.ledger.keys import Key, check_key

__all__ = ["LOCK_TIMEOUT", "MAX_LEDGER_BYTES", "OpenLedger", "ledger_path", "open_ledger", "read_ledger_file"]

#: Seconds to wait for another process that holds the ledger's lock.
LOCK_TIMEOUT = 60.0
#: The largest ledger read: about 150,000 releases of one answer each; more is not a ledger privrisk wrote.
MAX_LEDGER_BYTES = 64 * 1024 * 1024


def ledger_path(path: str | os.PathLike[str]) -> Path:
    """The ledger's path, refused when it cannot be a ledger: a symbolic link, a folder, a FIFO or a device.

    The name itself is judged (``lstat``): a link is never followed, so it can neither split the ledger into two
    files nor be replaced by one.

    Example:
        >>> ledger_path("/dev/null")
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: ledger: /dev/null: the ledger is a character device, not a regular file
    """
    if isinstance(path, bool) or not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise PrivriskError("ledger: give the ledger's path", param="ledger")
    p = Path(path)
    try:
        info = os.lstat(p)
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise PrivriskError(f"ledger: {p}: cannot read the ledger: {exc.strerror}", param="ledger") from None
    if stat.S_ISLNK(info.st_mode):
        raise PrivriskError(
            f"ledger: {p} is a symbolic link (to {os.readlink(p)}); give the real path, so that every run locks "
            "and appends to one file",
            param="ledger",
        )
    if stat.S_ISDIR(info.st_mode):
        raise PrivriskError(f"ledger: {p}: the ledger is a folder, not a file", param="ledger")
    if not stat.S_ISREG(info.st_mode):
        # Read to get the one message for every special file (it does not block, and reads nothing of it).
        read_regular_file(p, MAX_LEDGER_BYTES, what="the ledger", param="ledger")
    return p


def _read(p: Path, key: bytes | None) -> list[dict[str, Any]]:
    try:
        raw = read_regular_file(
            p, MAX_LEDGER_BYTES, what="the ledger", param="ledger", follow_links=False, one_name=True
        )
    except FileNotFoundError:
        return []
    return parse_ledger(raw, p, key)


def read_ledger_file(path: str | os.PathLike[str], key: Key | None = None) -> list[dict[str, Any]]:
    """Every entry of a ledger, checked, in the order written; an empty list when the file does not exist yet.

    Args:
        path: the ledger file.
        key: the secret of a keyed ledger; None for an unkeyed one. A keyed ledger read without its key or with
            another key, or an unkeyed ledger read with a key, is an error.

    Raises:
        PrivriskError: for a file that is not a ledger privrisk wrote (with this key), a link or a special file.

    Example:
        >>> import tempfile, pathlib
        >>> read_ledger_file(pathlib.Path(tempfile.mkdtemp()) / "ledger.json")
        []
    """
    raw_key = check_key(key)
    return _read(ledger_path(path), raw_key)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class OpenLedger:
    """A ledger held under its lock (from :func:`open_ledger`): the entries read under it, and :meth:`append`."""

    def __init__(self, path: Path, key: bytes | None, entries: list[dict[str, Any]]) -> None:
        self.path = path
        self.key = key
        self.entries: list[dict[str, Any]] = entries

    @property
    def head(self) -> str | None:
        """The hash of the last entry (None for an empty ledger): equal heads, equal ledgers."""
        return self.entries[-1]["hash"] if self.entries else None

    def entry(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """The entry that :meth:`write` would append next (numbered, chained and hashed; nothing is written)."""
        return new_entry(self.entries, kind, body, self.key)

    def write(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Append ``entry`` (made by :meth:`entry`) and replace the ledger file atomically; the entry."""
        entries = [*self.entries, entry]
        # NaN, infinity, a lone surrogate or a value JSON has no word for cannot be recorded.
        try:
            document = ledger_document(entries, self.key)
            raw = (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
            raw_entry = json.dumps(entry, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (ValueError, TypeError) as exc:
            raise PrivriskError(
                f"ledger: {self.path}: this entry cannot be recorded ({str(exc).splitlines()[0]}); nothing was "
                "recorded",
                param="ledger",
            ) from None
        # Read back before it is written: the ledger never holds an entry that it could not read again (the
        # entries before it were checked when the ledger was read under the lock).
        check_next(self.entries, raw_entry, self.path, self.key)
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else _default_mode()
        try:
            with atomic_path(self.path) as tmp:
                # mkstemp makes the file private; a ledger shared by a team keeps its (or the umask's) mode.
                os.chmod(tmp, mode)
                with open(tmp, "wb") as fh:
                    fh.write(raw)
                    fh.flush()
                    os.fsync(fh.fileno())
        except OSError as exc:
            raise PrivriskError(
                f"ledger: {self.path}: cannot write the ledger: {exc.strerror}; nothing was recorded",
                param="ledger",
            ) from None
        self.entries = entries
        return entry

    def append(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Append an entry of ``kind`` with ``body`` and write the ledger; the entry."""
        return self.write(self.entry(kind, body))


@contextlib.contextmanager
def open_ledger(
    path: str | os.PathLike[str], key: Key | None = None, *, timeout: float = LOCK_TIMEOUT
) -> Iterator[OpenLedger]:
    """Hold the ledger's exclusive lock, read it under the lock, and give it to append to.

    Everything done inside the block (checking a budget, checking outputs against earlier ones, writing the
    outputs to temporary names) sees the ledger as it is, and no other process appends until the block ends.

    Raises:
        PrivriskError: for a ledger that cannot be one (see :func:`read_ledger_file`), a lock not taken within
            ``timeout`` seconds (nothing is read or written then) or a ledger that cannot be written.
    """
    raw_key = check_key(key)
    p = ledger_path(path)
    with exclusive_lock(
        p,
        timeout=timeout,
        cannot_create="ledger: {path}: cannot create the ledger's lock file {lock}: {error}",
        held="ledger: {path} has been locked by another release or outputs check for more than {timeout:g} s",
        param="ledger",
    ):
        ledger_path(p)  # again under the lock: a link made meanwhile is refused too
        yield OpenLedger(p, raw_key, _read(p, raw_key))
