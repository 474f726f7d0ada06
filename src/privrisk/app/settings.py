"""How the app is served (``privrisk app``): one frozen settings object, checked when made, that
:func:`privrisk.app.serve` runs.

The command line maps its options onto :class:`AppSettings` through :func:`~privrisk.app.serve`'s keywords
(``--port`` → ``port``, ``--ledger-key`` → ``key_file``, ``--max-upload`` → ``max_upload``); every rule about
them is here, and each error names its field (``param``), which the command names as its option.

Example:
    >>> AppSettings(port=8001, max_upload="2GB").max_upload
    2000000000
    >>> AppSettings(port=70000)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: port: must be between 0 and 65535, got 70000
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from privrisk._validation import parse_size
from privrisk.app._sessions import DEFAULT_MAX_UPLOAD
from privrisk.errors import PrivriskError

__all__ = ["PORTS", "AppSettings"]

#: The ports a server may listen on (0: any free port).
PORTS = range(0, 65536)


@dataclass(frozen=True)
class AppSettings:
    """Where the app listens and what it keeps, checked when made.

    Args:
        host: the address to listen on (other than loopback, the data is reachable from the network: :func:`serve`
            warns).
        port: the port, 0 to 65535 (0: any free port).
        open_browser: whether to open the web browser once the app listens.
        max_upload: the largest upload, the most a session uploads and the largest size an upload may expand to:
            bytes, or a size as typed (``"500MB"``, ``"2GB"``, ``"100k"``).
        ledger: the ledger every release and output check is charged to (None: the default in the data folder).
        key_file: the secret key file of a keyed ledger (None: the environment variable ``PRIVRISK_LEDGER_KEY``);
            read when the settings are made, so that a bad key stops the app before it starts.

    Raises:
        PrivriskError: naming the field that does not hold (``max_upload``, ``host``, ``port``, ``key_file``).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    open_browser: bool = True
    max_upload: int | str = DEFAULT_MAX_UPLOAD
    ledger: str | os.PathLike[str] | None = None
    key_file: str | os.PathLike[str] | None = None
    key: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from privrisk.ledger.keys import read_key

        object.__setattr__(self, "max_upload", parse_size(self.max_upload, name="max_upload"))
        if not isinstance(self.host, str):
            raise PrivriskError(f"host: give an address to listen on, got {self.host!r}", param="host")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or self.port not in PORTS:
            raise PrivriskError(f"port: must be between 0 and 65535, got {self.port}", param="port")
        object.__setattr__(self, "key", read_key(self.key_file))
        if self.ledger is not None:
            object.__setattr__(self, "ledger", Path(self.ledger))
