"""Writing outputs whole or not at all: a temporary name in the same folder, renamed when complete.

Every file and folder privrisk writes goes through :func:`atomic_path` or :func:`atomic_dir`, so that an
interrupted run leaves the old output or the new one, never half of one (docs/architecture.md). JSON is written
with :func:`write_json`, which turns numpy values into plain JSON first (:func:`to_jsonable`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import math
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError

__all__ = [
    "atomic_dir",
    "atomic_path",
    "check_outputs",
    "check_replaceable",
    "read_regular_file",
    "read_text_file",
    "safe_csv_cell",
    "to_jsonable",
    "write_csv",
    "write_json",
    "write_text",
]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _apply_umask(path: Path) -> None:
    """Give a file made by :mod:`tempfile` (0600/0700) the mode an ordinary ``open`` would: 0666/0777 & ~umask."""
    os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~_umask())


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_replaceable(path: str | os.PathLike[str], param: str | None = None) -> None:
    """Refuse to replace anything but a regular file (or nothing): a FIFO, a device, a socket or a folder.

    An atomic rename onto ``/dev/null`` or a named pipe would put a regular file in its place (as root, the
    system's ``/dev/null``); a symbolic link is judged by what it points to. The message starts with ``param:``
    when given.

    Example:
        >>> check_replaceable("/dev/null", "out")
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: out: /dev/null is a character device, not a regular file; it is not replaced
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return  # nothing there (or a dangling link): the rename creates the file
    except OSError:
        return  # cannot be looked at: the write itself will say why
    if not stat.S_ISREG(mode):
        head = f"{param}: " if param else ""
        raise PrivriskError(
            f"{head}{path} is {_kind(mode)}, not a regular file; it is not replaced", param=param
        )


def read_regular_file(
    path: str | os.PathLike[str],
    limit: int,
    *,
    what: str,
    param: str | None = None,
    follow_links: bool = True,
    one_name: bool = False,
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; anything else is a one-line :class:`PrivriskError`.

    The file is opened with ``O_NONBLOCK`` and checked with ``fstat`` before a byte is read, so that a FIFO
    cannot hang the reader and ``/dev/zero`` cannot fill the memory; a file that grows past ``limit`` while it is
    read is refused too. ``what`` names the file in messages (``the ledger``); a missing file raises
    :class:`FileNotFoundError` for the caller to decide. With ``follow_links=False`` a symbolic link is refused
    (``O_NOFOLLOW``: the check and the read are one step); with ``one_name=True`` so is a file with a second
    name (a hard link), which a later atomic replacement would split into two files.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "key"; _ = p.write_bytes(b"secret")
        >>> read_regular_file(p, 100, what="the key")
        b'secret'
        >>> read_regular_file("/dev/zero", 100, what="the key")
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: /dev/zero: the key is a character device, not a regular file
    """
    head = f"{param}: " if param else ""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if not follow_links and os.path.islink(path):
            raise PrivriskError(
                f"{head}{path}: {what} is a symbolic link (to {os.readlink(path)}); give the real path, so that "
                "every run reads and replaces one file",
                param=param,
            ) from None
        raise PrivriskError(f"{head}{path}: cannot read {what}: {exc.strerror}", param=param) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PrivriskError(
                f"{head}{path}: {what} is {_kind(info.st_mode)}, not a regular file", param=param
            )
        if one_name and info.st_nlink > 1:
            raise PrivriskError(
                f"{head}{path}: {what} has {info.st_nlink} names (hard links); it is replaced under one name and "
                "the others would keep the old file: remove the other names (find -samefile) and keep one",
                param=param,
            )
        if info.st_size > limit:
            raise PrivriskError(
                f"{head}{path}: {what} has {info.st_size:,} bytes, more than the {limit:,} it may have",
                param=param,
            )
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise PrivriskError(
                    f"{head}{path}: {what} grew past the {limit:,} bytes it may have", param=param
                )
        return b"".join(chunks)
    except OSError as exc:
        raise PrivriskError(f"{head}{path}: cannot read {what}: {exc.strerror}", param=param) from None
    finally:
        os.close(fd)


def read_text_file(path: str | os.PathLike[str], limit: int, *, what: str, param: str) -> str:
    """The UTF-8 text (a byte-order mark dropped) of a regular file of at most ``limit`` bytes.

    As :func:`read_regular_file`, and a missing file or one that is not UTF-8 is a one-line error naming ``param``.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "spec.toml"; _ = p.write_bytes(b"\\xef\\xbb\\xbfa = 1")
        >>> read_text_file(p, 100, what="the spec", param="spec")
        'a = 1'
    """
    file = Path(path)
    try:
        raw = read_regular_file(file, limit, what=what, param=param)
    except FileNotFoundError:
        raise PrivriskError(f"{param}: cannot read {file}: no such file", param=param) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PrivriskError(
            f"{param}: {file} is not UTF-8 text (byte {exc.start + 1} cannot be read)", param=param
        ) from None


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only if the block succeeds.

    Anything at ``path`` but a regular file (a FIFO, a device such as ``/dev/null``, a folder) is refused
    before the block runs (:func:`check_replaceable`).

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
        >>> with atomic_path(target) as tmp:
        ...     _ = tmp.write_text("whole")
        >>> target.read_text()
        'whole'
    """
    target = Path(path)
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # mkstemp makes the file 0600: give it the umask's mode now, so that a caller may still chmod it.
        _apply_umask(tmp)
        yield tmp
        check_replaceable(target)  # a FIFO made while the block ran is not replaced either
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write text atomically (UTF-8).

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "page.html"
        >>> write_text(target, "<p>Grüße</p>")
        >>> target.read_text(encoding="utf-8")
        '<p>Grüße</p>'
    """
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | os.PathLike[str], document: Any) -> None:
    """Write a JSON document atomically (indented, UTF-8), with NaN and infinities written as null.

    Example:
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "doc.json"
        >>> write_json(target, {"risk": np.float64(0.75), "missing": float("nan")})
        >>> json.loads(target.read_text())
        {'risk': 0.75, 'missing': None}
    """
    write_text(path, json.dumps(to_jsonable(document), indent=2, ensure_ascii=False) + "\n")


def to_jsonable(value: Any) -> Any:
    """Turn numpy scalars and arrays, NaN and infinities into plain JSON values (NaN and ±inf become null).

    Dicts (keys become strings), lists and tuples are converted all the way down; paths become strings.

    Example:
        >>> import numpy as np
        >>> to_jsonable({"n": np.int64(3), "eps": np.array([0.5, np.inf]), 1: (np.bool_(True),)})
        {'n': 3, 'eps': [0.5, None], '1': [True]}
    """
    import numpy as np  # already imported wherever a numpy value can occur; `--help` does without it

    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path``; on success move its contents into ``path``.

    Files already in ``path`` that the block did not write are left alone; the ones it wrote replace their
    namesakes. On an error nothing in ``path`` changes and the temporary folder is removed.

    Example:
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "results"
        >>> with atomic_dir(out) as tmp:
        ...     _ = (tmp / "a.csv").write_text("x\\n1\\n")
        >>> sorted(p.name for p in out.iterdir())
        ['a.csv']
    """
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise PrivriskError(f"{target}: exists and is not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        _apply_umask(tmp)  # mkdtemp makes it 0700; what is written inside gets the umask's mode already
        yield tmp
        target.mkdir(exist_ok=True)
        items = sorted(tmp.rglob("*"), key=lambda p: len(p.parts))
        # Checked before the first rename, so that a refusal leaves the folder as it was.
        for item in items:
            if not item.is_dir():
                check_replaceable(target / item.relative_to(tmp))
        for item in items:
            dest = target / item.relative_to(tmp)
            if item.is_dir():
                dest.mkdir(exist_ok=True)
            else:
                os.replace(item, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_csv_cell(value: Any) -> Any:
    """Neutralise a text cell a spreadsheet would run as a formula (OWASP): a leading ``'``; numbers stay.

    A cell is neutralised when it is text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    and is not a number as written (``-3.5`` and ``+1e3`` stay as they are).

    Example:
        >>> [safe_csv_cell(v) for v in ["=1+2", "-3.5", "@SUM(A1)", "ok", -2, "-inf"]]
        ["'=1+2", '-3.5', "'@SUM(A1)", 'ok', -2, '-inf']
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def write_csv(frame: Any, path: str | os.PathLike[str], *, index: bool = False) -> None:
    """Write a pandas DataFrame as CSV with every text cell, column name and index label passed through
    :func:`safe_csv_cell` (the file at ``path`` is written directly: call it inside :func:`atomic_dir`).

    Example:
        >>> import tempfile, pathlib, pandas as pd
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> write_csv(pd.DataFrame({"=name": ["=HYPERLINK()", "a"], "x": [-1.5, 2]}), target)
        >>> print(target.read_text(), end="")
        '=name,x
        '=HYPERLINK(),-1.5
        a,2.0
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    safe = frame.copy()
    safe.columns = [safe_csv_cell(c) if isinstance(c, str) else c for c in safe.columns]
    for column in safe.columns:
        if not (is_numeric_dtype(safe[column]) or is_bool_dtype(safe[column])):
            safe[column] = safe[column].astype(object).map(safe_csv_cell)
    if index:
        safe.index = safe.index.map(safe_csv_cell)
        if isinstance(safe.index.name, str):
            safe.index.name = safe_csv_cell(safe.index.name)
    safe.to_csv(path, index=index)


def _names(items: Any) -> list[Path]:
    if items is None:
        return []
    if isinstance(items, str | os.PathLike):
        return [Path(items)]
    return [Path(i) for i in items if i is not None]


def check_outputs(
    outputs: str | os.PathLike[str] | Any,
    inputs: str | os.PathLike[str] | Any = (),
    *,
    param: str = "out",
    folder: bool = False,
    files: Any = (),
) -> None:
    """Refuse, before any work, an output that cannot be written or that would replace one of the inputs.

    ``outputs`` is a path (or several); with ``folder=True`` each is a folder into which ``files`` (names
    relative to it, or patterns such as ``figures/*``) will be written, otherwise each is a file. An output that is an input, a folder output that
    is or holds an input it would replace (one of ``files``; all its files when ``files`` is empty), a path
    whose existing parent is a file, a file where a folder is wanted (or the reverse) and a place that cannot be
    written are a :class:`PrivriskError` naming ``param``. Nothing is created.

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "data.csv").write_text("x\\n1\\n")
        >>> check_outputs(d / "out.csv", [d / "data.csv"])
        >>> check_outputs(d / "data.csv", [d / "data.csv"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: out: ... is one of the inputs; choose another path
    """
    real_inputs = {os.path.realpath(p) for p in _names(inputs)}
    names = [Path(n).as_posix() for n in _names(files)]
    for out in _names(outputs):
        real = os.path.realpath(out)
        if real in real_inputs:
            raise PrivriskError(f"{param}: {out} is one of the inputs; choose another path", param=param)
        if folder:
            for inp in real_inputs:
                inside = os.path.commonpath([real, inp]) == real
                relative = Path(os.path.relpath(inp, real)).as_posix()
                if inside and (not names or any(fnmatch.fnmatchcase(relative, str(n)) for n in names)):
                    raise PrivriskError(
                        f"{param}: {out} holds the input {inp}, which would be replaced; choose another folder",
                        param=param,
                    )
        _check_writable(out, folder=folder, param=param, files=names)


def _check_writable(out: Path, *, folder: bool, param: str, files: list[str]) -> None:
    if out.exists():
        if folder and not out.is_dir():
            raise PrivriskError(f"{param}: {out} exists and is not a folder", param=param)
        if not folder and out.is_dir():
            raise PrivriskError(f"{param}: {out} is a folder; give a file name", param=param)
        if not folder:
            check_replaceable(out, param)
        if folder:
            for name in (n for n in files if not any(c in str(n) for c in "*?[")):
                if (out / name).is_dir():
                    raise PrivriskError(
                        f"{param}: {out / name} is a folder and cannot be replaced", param=param
                    )
                check_replaceable(out / name, param)
    # The nearest existing ancestor must be a writable folder (we create the rest).
    place = out.parent if not (folder and out.exists()) else out
    while not place.exists():
        if place.parent == place:
            break
        place = place.parent
    if not place.is_dir():
        raise PrivriskError(f"{param}: {out}: {place} is a file, not a folder", param=param)
    if str(os.path.realpath(place)).startswith(("/proc", "/sys")) or not os.access(place, os.W_OK | os.X_OK):
        raise PrivriskError(f"{param}: {out}: cannot write in {place}", param=param)


def canonical_json(document: Any) -> bytes:
    """The bytes a hash or an HMAC is taken over: sorted keys, no spaces, UTF-8, no NaN.

    Example:
        >>> canonical_json({"b": 1, "a": "ü"})
        b'{"a":"\\xc3\\xbc","b":1}'
    """
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


@contextlib.contextmanager
def exclusive_lock(
    path: Path, *, timeout: float, cannot_create: str, held: str, param: str | None = None
) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path.lock``, waiting up to ``timeout`` seconds for its holder.

    The lock file exists only while it is held: its holder removes it before letting go, and a process that
    was waiting on the removed file finds, once it has the lock, that the name now leads elsewhere (or
    nowhere) and tries again on the file that is there. So no empty ``.lock`` file is left behind, and two
    processes never hold locks on two different files of one name. The messages are templates with ``{path}``,
    ``{lock}``, ``{error}`` and ``{timeout}``: each caller says who holds it in its own words.

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> with exclusive_lock(target, timeout=1, cannot_create="{error}", held="{path} is held"):
        ...     (target.parent / "ledger.json.lock").exists()
        True
        >>> (target.parent / "ledger.json.lock").exists()
        False
    """
    import errno
    import fcntl
    import time

    lock_path = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + timeout
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise PrivriskError(
                cannot_create.format(path=path, lock=lock_path, error=exc.strerror, timeout=timeout),
                param=param,
            ) from None
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if time.monotonic() > deadline:
                        raise PrivriskError(
                            held.format(path=path, lock=lock_path, error="", timeout=timeout), param=param
                        ) from None
                    time.sleep(0.01)
            mine = os.fstat(fd)
            try:
                there = os.stat(lock_path)
                current = (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)
            except FileNotFoundError:
                current = False
            if not current:
                continue  # the holder before us removed this file: lock the one that is there now
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(lock_path)  # while still held: whoever waits on it will try again
                fcntl.flock(fd, fcntl.LOCK_UN)
            return
        finally:
            os.close(fd)
