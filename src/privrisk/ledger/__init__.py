"""The one ledger of everything released: releases (the ε they spent) and outputs (the numbers that left).

Releases (:mod:`privrisk.release`) and checked outputs (:mod:`privrisk.outputs`) are recorded in one file, so that
a budget and a differencing check see everything that left, whichever command, process or person released it:

- :mod:`~privrisk.ledger.chain`: the format (a header and a hash chain of entries of kind ``release`` or
  ``outputs``; HMAC-SHA256 with a key, with a header MAC that catches a ledger cut short or emptied);
- :mod:`~privrisk.ledger.store`: the file's rules (a regular file under one name, no link, a size limit, an
  exclusive lock, an atomic replacement): :func:`read_ledger_file` and :func:`open_ledger`;
- :mod:`~privrisk.ledger.keys`: the key (:func:`read_key`, :func:`check_key`);
- :mod:`~privrisk.ledger.signals`: SIGINT and SIGTERM held back while a charge and its outputs go together.

docs/guide/ledger.md says what the ledger guarantees and what it does not.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> with open_ledger(path) as led:
    ...     _ = led.append("release", {"epsilon": 0.5, "queries": [{"column": "h", "query": "mean",
    ...                                 "epsilon": 0.5}], "data": None, "budget": None})
    >>> [(e["kind"], e["seq"], e["epsilon"]) for e in read_ledger_file(path)]
    [('release', 1, 0.5)]
"""

from privrisk.ledger.chain import ENTRY_KINDS, entry_kind
from privrisk.ledger.keys import KEY_ENV, Key, check_key, read_key
from privrisk.ledger.signals import deferred_signals
from privrisk.ledger.store import LOCK_TIMEOUT, OpenLedger, ledger_path, open_ledger, read_ledger_file

__all__ = [
    "ENTRY_KINDS",
    "KEY_ENV",
    "LOCK_TIMEOUT",
    "Key",
    "OpenLedger",
    "check_key",
    "deferred_signals",
    "entry_kind",
    "ledger_path",
    "open_ledger",
    "read_key",
    "read_ledger_file",
]
