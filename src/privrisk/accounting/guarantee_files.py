"""The files a guarantee may be stated in: a mixed composition (``releases``, TOML) and an Opacus accountant's
history (``opacus_history``, JSON; :func:`~privrisk.accounting.spec.read_releases` parses the first), read by :meth:`~privrisk.accounting.GuaranteeSpec.build` when those fields
hold a path.

Both are small: at most :data:`MAX_INPUT_BYTES` bytes are read, and a FIFO, a device or a folder is refused before
it is opened (reading one could hang or never end). Every error is a one-line
:class:`~privrisk.errors.PrivriskError` whose ``param`` is the field, its message starting with the field's name.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "history.json"
    >>> _ = p.write_text('{"history": [[1.1, 0.01, 100]]}')
    >>> read_opacus_history(p)
    [[1.1, 0.01, 100]]
    >>> _ = p.write_text('{"x": 1}')
    >>> read_opacus_history(p)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: opacus_history: ... must hold a JSON list of [noise_multiplier, sample_rate, steps]
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError

__all__ = ["MAX_INPUT_BYTES", "read_opacus_history", "read_small_text"]

#: The largest releases or history file read (a few hundred releases fit in a few kB).
MAX_INPUT_BYTES = 1_000_000


def read_small_text(path: str | os.PathLike[str], param: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of a small regular file (UTF-8, with or without BOM); one-line errors starting with ``param``.

    Example:
        >>> read_small_text("/dev/null", "releases")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: releases: /dev/null is not a regular file
    """
    p = Path(path)
    try:
        info = os.stat(p)
    except OSError as exc:
        raise PrivriskError(f"{param}: cannot read {p}: {exc.strerror or exc}", param=param) from None
    if not stat.S_ISREG(info.st_mode):
        raise PrivriskError(f"{param}: {p} is not a regular file", param=param)
    try:
        with open(p, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise PrivriskError(f"{param}: cannot read {p}: {exc.strerror or exc}", param=param) from None
    if len(data) > limit:
        raise PrivriskError(f"{param}: {p} is larger than {limit:,} bytes", param=param)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PrivriskError(f"{param}: {p} is not UTF-8 text (byte {exc.start})", param=param) from None


def read_opacus_history(path: str | os.PathLike[str], param: str = "opacus_history") -> list[Any]:
    """An Opacus accountant's history from its JSON file: a list of ``[noise_multiplier, sample_rate, steps]``,
    or ``{"history": [...]}`` as a script may save it (the entries are checked when the guarantee is built)."""
    text = read_small_text(path, param)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PrivriskError(
            f"{param}: {path} is not JSON: {exc.msg} (line {exc.lineno})", param=param
        ) from None
    if isinstance(doc, dict) and "history" in doc:
        doc = doc["history"]
    if not isinstance(doc, list):
        raise PrivriskError(
            f"{param}: {path} must hold a JSON list of [noise_multiplier, sample_rate, steps]", param=param
        )
    return doc
