"""The ledger's secret key: at least 16 bytes, from a key file or the environment variable ``PRIVRISK_LEDGER_KEY``.

With a key every entry's hash is an HMAC-SHA256 and the header carries its own HMAC (:mod:`privrisk.ledger.chain`),
so that an edit, a truncation or a reset is found by whoever holds the key.
"""

from __future__ import annotations

import os
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.io.files import read_regular_file

__all__ = ["KEY_ENV", "MAX_KEY_BYTES", "MIN_KEY_BYTES", "Key", "check_key", "read_key"]

Key = bytes | str
KEY_ENV = "PRIVRISK_LEDGER_KEY"
MIN_KEY_BYTES = 16
#: The largest key file read: a key is a few dozen bytes; more is a wrong file (or /dev/zero).
MAX_KEY_BYTES = 64 * 1024


def check_key(key: Key | None) -> bytes | None:
    """The ledger key as bytes (text is UTF-8 encoded), at least 16 bytes; None for an unkeyed ledger.

    Example:
        >>> check_key("a secret of 16 b!")
        b'a secret of 16 b!'
        >>> check_key(b"short")
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: key: the ledger key must be at least 16 bytes, got 5
    """
    if key is None:
        return None
    if not isinstance(key, bytes | bytearray | str):
        raise PrivriskError(
            f"key: give the ledger key as bytes or text, not {type(key).__name__}", param="key"
        )
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(raw) < MIN_KEY_BYTES:
        raise PrivriskError(
            f"key: the ledger key must be at least {MIN_KEY_BYTES} bytes, got {len(raw)}", param="key"
        )
    return raw


def read_key(key_file: str | os.PathLike[str] | None = None, environ: Any = None) -> bytes | None:
    """The ledger key: the bytes of ``key_file`` (without a final newline), else the environment variable
    ``PRIVRISK_LEDGER_KEY``, which holds the key itself; None when neither is given (an unkeyed ledger).

    Example:
        >>> read_key(None, environ={}) is None
        True
        >>> read_key(None, environ={KEY_ENV: "k" * 16})
        b'kkkkkkkkkkkkkkkk'
    """
    env = os.environ if environ is None else environ
    if key_file is not None:
        try:
            raw = read_regular_file(key_file, MAX_KEY_BYTES, what="the ledger key", param="key_file")
        except FileNotFoundError:
            raise PrivriskError(
                f"key_file: cannot read {key_file}: No such file or directory", param="key_file"
            ) from None
        raw = raw.rstrip(b"\r\n")
        if len(raw) < MIN_KEY_BYTES:
            raise PrivriskError(
                f"key_file: the key in {key_file} must be at least {MIN_KEY_BYTES} bytes", param="key_file"
            )
        return raw
    value = env.get(KEY_ENV)
    if value is None:
        return None
    if len(value.encode("utf-8")) < MIN_KEY_BYTES:
        raise PrivriskError(f"{KEY_ENV}: the ledger key must be at least {MIN_KEY_BYTES} bytes")
    return value.encode("utf-8")
