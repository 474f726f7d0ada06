"""Writing outputs whole or not at all: a temporary name in the same folder, renamed when complete.

Every file and folder privrisk writes goes through :func:`atomic_path` or :func:`atomic_dir`, so that an
interrupted run leaves the old output or the new one, never half of one (docs/architecture.md). JSON is written
with :func:`write_json`, which turns numpy values into plain JSON first (:func:`to_jsonable`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from privrisk.errors import PrivriskError

__all__ = ["atomic_dir", "atomic_path", "to_jsonable", "write_json", "write_text"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only if the block succeeds.

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
        >>> with atomic_path(target) as tmp:
        ...     _ = tmp.write_text("whole")
        >>> target.read_text()
        'whole'
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
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
        >>> to_jsonable({"n": np.int64(3), "eps": np.array([0.5, np.inf]), 1: (np.bool_(True),)})
        {'n': 3, 'eps': [0.5, None], '1': [True]}
    """
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
        yield tmp
        target.mkdir(exist_ok=True)
        for item in sorted(tmp.rglob("*"), key=lambda p: len(p.parts)):
            dest = target / item.relative_to(tmp)
            if item.is_dir():
                dest.mkdir(exist_ok=True)
            else:
                os.replace(item, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
