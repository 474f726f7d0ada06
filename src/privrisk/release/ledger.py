"""The privacy ledger: what every release against a data set spent, kept in one JSON file.

Differential privacy composes sequentially: the ε of every answer ever released from the same data add up (Mehner
et al., §3.4; Allmann et al., §5.1). The ledger records each release's ε so that a budget can be enforced across
runs, people and machines that share a file system.

Three properties matter and are tested:

- **One file.** A ledger named through a symbolic link is the file the link points to: the path is resolved
  (``os.path.realpath``) before locking and writing, so two names of one ledger share its lock and its budget.
  A ledger with a second hard link is refused (read or written): the atomic rename would give one name the new
  file and leave the other the old one, two budgets where there was one. It is read only if it is a regular file
  of at most 64 MiB (opened without blocking, checked before reading), so a FIFO or ``/dev/zero`` cannot hang or
  exhaust a release.
- **Locked.** A release holds an exclusive ``fcntl.flock`` on ``LEDGER.lock`` while it reads the ledger, checks
  the budget and appends its entry, so two releases started at the same moment cannot both spend the last part of
  the budget. The lock file is never deleted: deleting it would let a third process lock a different inode.
- **Atomic.** The new ledger is written to a temporary file beside the old one and renamed over it; a crash leaves
  the old ledger or the new one, never half of one.
- **Checked.** Each entry carries a running SHA-256 hash over its content and the previous entry's hash, and the
  header repeats the last hash, the entry count and the total. A ledger that is not valid JSON, has the wrong
  shape, a non-positive ε, a total that does not add up or a hash that does not match is an error: it is never
  read as "nothing spent". The hash has no secret key, so it catches careless and accidental edits, not a
  determined forger who recomputes it; keep the ledger where only the release process may write.

A release is charged together with its outputs: the noise is drawn, the outputs are written to temporary names
(``record_release``'s ``before_write``, under the lock, after the budget is checked again), the ledger is
written, and then the outputs are moved into place, with SIGINT and SIGTERM held back (:class:`deferred_signals`)
from the charge to the end. A failure before the charge charges nothing and leaves no output.

**Keyed mode.** With a secret ``key`` every entry's hash is an HMAC-SHA256 and the header (count, total ε, last
hash) carries its own HMAC, so an edit, a truncation (entries cut from the end with the header fixed up) or a
reset to an empty ledger is detected by whoever holds the key. Without a key a cut at the end of the chain cannot
be seen. Neither mode detects an older, complete copy of the ledger put back, or a deleted ledger file.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import hmac
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.files import atomic_path, canonical_json, exclusive_lock, read_regular_file
from privrisk.release.budget import Budget

__all__ = [
    "KEY_ENV",
    "check_key",
    "deferred_signals",
    "ledger_records",
    "read_key",
    "read_ledger",
    "record_release",
    "spent_epsilon",
]

KIND = "privrisk-ledger"
GENESIS = "0" * 64
LOCK_TIMEOUT = 60.0
# Relative slack for float sums: 0.1 + 0.2 (0.30000000000000004) must fit a budget of 0.3. Sums of thousands of
# ε values are off by far less than 1e−12; no real release spends that little.
TOLERANCE = 1e-12
_ENTRY_KEYS = {"seq", "time", "epsilon", "queries", "data", "budget", "prev", "hash"}
# A release published from a preview also records the preview's id (ledgers written before have no such key; the
# hash covers it like every other key, so their chains are unchanged).
_PREVIEW_KEY = "preview"
_QUERY_KEYS = {"column", "query", "epsilon"}
_GAUSSIAN_KEYS = {"column", "query", "mechanism", "rho"}
_HEADER_KEYS = {"schema_version", "kind", "entries", "count", "total_epsilon", "head"}
_KEYED_KEYS = {"keyed", "mac"}


Key = bytes | str
MIN_KEY_BYTES = 16
#: The largest key file read: a key is a few dozen bytes; more is a wrong file (or /dev/zero).
MAX_KEY_BYTES = 64 * 1024
#: The largest ledger read: about 150,000 releases of one answer each; more is not a ledger privrisk wrote.
MAX_LEDGER_BYTES = 64 * 1024 * 1024


def check_key(key: Key | None) -> bytes | None:
    """The ledger key as bytes (text is UTF-8 encoded), at least 16 bytes; None for an unkeyed ledger.

    Example:
        >>> check_key("a secret of 16 b!")
        b'a secret of 16 b!'
    """
    if key is None:
        return None
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(raw) < MIN_KEY_BYTES:
        raise PrivriskError(
            f"key: the ledger key must be at least {MIN_KEY_BYTES} bytes, got {len(raw)}", param="key"
        )
    return raw


def _canonical(entry: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in entry.items() if k != "hash"})


def _entry_hash(entry: dict[str, Any], key: bytes | None = None) -> str:
    """SHA-256 (with a key: HMAC-SHA256) over the previous hash (``prev``) and the entry's own content."""
    if key is not None:
        return hmac.new(key, _canonical(entry), hashlib.sha256).hexdigest()
    return hashlib.sha256(_canonical(entry)).hexdigest()


def _header_mac(doc: dict[str, Any], key: bytes) -> str:
    """HMAC-SHA256 over the header: kind, version, count, total and head (which covers every entry)."""
    body = {k: doc[k] for k in ("schema_version", "kind", "count", "total_epsilon", "head", "keyed")}
    return hmac.new(key, _canonical(body), hashlib.sha256).hexdigest()


def _positive(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _corrupt(path: Path, what: str) -> PrivriskError:
    return PrivriskError(
        f"{path}: the ledger is corrupt or was edited by hand ({what}); refusing to read it as 'nothing spent'"
    )


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _record_ok(q: Any) -> bool:
    """A query record: ``{column, query, epsilon}`` (Laplace, every ledger so far) or ``{column, query,
    mechanism: "gaussian", rho}``."""
    if not isinstance(q, dict):
        return False
    if set(q) == _QUERY_KEYS:
        return _positive(q["epsilon"])
    return set(q) == _GAUSSIAN_KEYS and q["mechanism"] == "gaussian" and _positive(q["rho"])


def _check_entry(path: Path, i: int, entry: Any, prev: str, key: bytes | None = None) -> float:
    where = f"entry {i + 1}"
    if not isinstance(entry, dict) or set(entry) - {_PREVIEW_KEY} != _ENTRY_KEYS:
        raise _corrupt(path, f"{where} does not have the keys {', '.join(sorted(_ENTRY_KEYS))}")
    if _PREVIEW_KEY in entry and not isinstance(entry[_PREVIEW_KEY], str):
        raise _corrupt(path, f"{where} has a preview id that is not text")
    if entry["seq"] != i + 1 or isinstance(entry["seq"], bool):
        raise _corrupt(path, f"{where} has sequence number {entry['seq']!r}")
    queries = entry["queries"]
    if not isinstance(queries, list) or not queries:
        raise _corrupt(path, f"{where} lists no queries")
    gaussian_only = all(isinstance(q, dict) and q.get("mechanism") == "gaussian" for q in queries)
    # A release of Gaussian answers only spends no pure ε: its entry's ε is 0.
    if not (_positive(entry["epsilon"]) or (gaussian_only and entry["epsilon"] == 0)) or isinstance(
        entry["epsilon"], bool
    ):
        raise _corrupt(path, f"{where} has ε = {entry['epsilon']!r}; every Laplace release spends ε > 0")
    for q in queries:
        if not _record_ok(q):
            raise _corrupt(
                path, f"{where} has a query without column, query and ε > 0 (or mechanism gaussian and ρ > 0)"
            )
    parts = math.fsum(q["epsilon"] for q in queries if "epsilon" in q)
    if not math.isclose(parts, entry["epsilon"], rel_tol=TOLERANCE):
        raise _corrupt(path, f"{where}: its queries add up to ε = {parts:.12g}, not {entry['epsilon']:.12g}")
    if entry["budget"] is not None:
        try:
            Budget.from_json(entry["budget"])
        except PrivriskError:
            raise _corrupt(path, f"{where} has budget {entry['budget']!r}") from None
    if entry["prev"] != prev:
        raise _corrupt(
            path, f"{where} does not follow the entry before it (an entry was removed or reordered)"
        )
    if not hmac.compare_digest(str(entry["hash"]), _entry_hash(entry, key)):
        raise _corrupt(path, f"{where}'s checksum does not match its content")
    return float(entry["epsilon"])


def read_ledger(path: str | os.PathLike[str], key: Key | None = None) -> list[dict[str, Any]]:
    """The checked entries of a ledger; an empty list when the file does not exist yet.

    Args:
        path: the ledger file.
        key: the secret of a keyed ledger (HMAC-SHA256 over every entry and the header); None for an unkeyed one.
            A keyed ledger read without its key, with another key, or an unkeyed ledger read with a key is an
            error.

    Raises:
        PrivriskError: when the ledger exists but is empty, not JSON, of the wrong shape, or fails its checksums.

    Example:
        >>> import tempfile, pathlib
        >>> read_ledger(pathlib.Path(tempfile.mkdtemp()) / "ledger.json")
        []
    """
    raw_key = check_key(key)
    p = Path(os.path.realpath(path))
    if not p.exists():
        return []
    if p.is_dir():
        raise PrivriskError(f"{p}: the ledger is a folder, not a file")
    try:
        # O_NONBLOCK and fstat before a byte is read: a FIFO would hang the release, /dev/zero fill the memory.
        raw = read_regular_file(p, MAX_LEDGER_BYTES, what="the ledger")
    except FileNotFoundError:
        return []
    links = os.stat(p).st_nlink
    if links > 1:
        raise PrivriskError(
            f"{p}: the ledger has {links} names (hard links); each release replaces the file under one name "
            "and the others would keep a second budget: remove the other names (find -samefile) and keep one"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _corrupt(p, "not UTF-8 text") from None
    if not text.strip():
        raise _corrupt(p, "the file is empty")
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise _corrupt(p, f"not valid JSON: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise _corrupt(p, "nested too deeply to be a ledger") from None
    keyed = isinstance(doc, dict) and doc.get("keyed") is True
    if not isinstance(doc, dict) or set(doc) != (_HEADER_KEYS | _KEYED_KEYS if keyed else _HEADER_KEYS):
        raise _corrupt(p, f"not a privrisk ledger with the keys {', '.join(sorted(_HEADER_KEYS))}")
    if keyed and raw_key is None:
        raise PrivriskError(f"key: {p} is a keyed ledger; give its key to read it", param="key")
    if not keyed and raw_key is not None:
        raise PrivriskError(
            f"key: {p} is not a keyed ledger but a key was given (an unkeyed ledger cannot stand in for a keyed "
            "one)",
            param="key",
        )
    if raw_key is not None and not hmac.compare_digest(str(doc["mac"]), _header_mac(doc, raw_key)):
        raise PrivriskError(
            f"key: {p}: the ledger's authentication code does not match: a wrong key, or the ledger was "
            "edited, truncated or reset",
            param="key",
        )
    if doc["schema_version"] != 1 or doc["kind"] != KIND:
        raise _corrupt(p, f"schema_version must be 1 and kind {KIND!r}")
    entries = doc["entries"]
    if not isinstance(entries, list):
        raise _corrupt(p, "entries is not a list")
    prev, total = GENESIS, []
    for i, entry in enumerate(entries):
        total.append(_check_entry(p, i, entry, prev, raw_key))
        prev = entry["hash"]
    if doc["count"] != len(entries) or doc["head"] != prev:
        raise _corrupt(
            p, "the header's count or last hash does not match the entries (entries were removed?)"
        )
    spent = math.fsum(total)
    if not isinstance(doc["total_epsilon"], int | float) or not math.isclose(
        doc["total_epsilon"], spent, rel_tol=TOLERANCE, abs_tol=0.0
    ):
        raise _corrupt(p, f"the header's total ε {doc['total_epsilon']!r} is not the sum of the entries")
    return entries


def spent_epsilon(path: str | os.PathLike[str], key: Key | None = None) -> float:
    """The total ε a ledger records (sequential composition: the sum of every release's ε).

    Example:
        >>> import tempfile, pathlib
        >>> spent_epsilon(pathlib.Path(tempfile.mkdtemp()) / "ledger.json")
        0.0
    """
    return math.fsum(float(e["epsilon"]) for e in read_ledger(path, key))


def _locked(path: Path, timeout: float = LOCK_TIMEOUT) -> contextlib.AbstractContextManager[None]:
    """Hold an exclusive lock on ``path.lock`` (waiting up to ``timeout`` seconds for another release)."""
    return exclusive_lock(
        path,
        timeout=timeout,
        cannot_create="{path}: cannot create the ledger's lock file {lock}: {error}",
        held="{path}: the ledger has been locked by another release for more than {timeout:g} s",
    )


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _header(entries: list[dict[str, Any]], key: bytes | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": 1,
        "kind": KIND,
        "count": len(entries),
        "total_epsilon": math.fsum(e["epsilon"] for e in entries),
        "head": entries[-1]["hash"] if entries else GENESIS,
    }
    if key is not None:
        doc["keyed"] = True
        doc["mac"] = _header_mac(doc, key)
    doc["entries"] = entries
    return doc


def fits_budget(spent: float, epsilon: float, budget: float | None) -> bool:
    """Whether spending ``epsilon`` on top of ``spent`` stays within ``budget`` (None: no budget).

    Example:
        >>> fits_budget(0.1, 0.2, 0.3), fits_budget(0.3, 1e-6, 0.3)
        (True, False)
    """
    return budget is None or spent + epsilon <= budget * (1 + TOLERANCE)


def budget_message(epsilon: float, spent: float, budget: float, ledger: Path | None) -> str:
    """One line that says why a release was refused; it starts with ``budget:``, the parameter that was exceeded.

    Example:
        >>> budget_message(1.0, 0.0, 0.5, None)
        'budget: this release needs ε = 1, more than the budget ε = 0.5 allows, of which ε = 0.5 is left; nothing was released and no noise was drawn'
        >>> budget_message(0.3, 0.2, 0.25, Path("l.json"))
        'budget: this release needs ε = 0.3; the ledger l.json has spent ε = 0.2 of the budget ε = 0.25, of which ε = 0.05 is left; nothing was released and no noise was drawn'
    """
    left = max(budget - spent, 0.0)
    status = "which is already spent" if left <= budget * TOLERANCE else f"of which ε = {left:.6g} is left"
    if ledger is None:
        where = f", more than the budget ε = {budget:.6g} allows"
    else:
        where = f"; the ledger {ledger} has spent ε = {spent:.6g} of the budget ε = {budget:.6g}"
    return f"budget: this release needs ε = {epsilon:.6g}{where}, {status}; nothing was released and no noise was drawn"


def ledger_records(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every answer a ledger records, in order (each ``{column, query, epsilon}`` or a Gaussian's record).

    Example:
        >>> ledger_records([{"queries": [{"column": "h", "query": "mean", "epsilon": 0.5}]}])
        [{'column': 'h', 'query': 'mean', 'epsilon': 0.5}]
    """
    return [q for e in entries for q in e["queries"]]


def _clean(q: dict[str, Any]) -> dict[str, Any]:
    if q.get("mechanism", "laplace") == "gaussian":
        return {
            "column": str(q["column"]),
            "query": str(q["query"]),
            "mechanism": "gaussian",
            "rho": float(q["rho"]),
        }
    return {"column": str(q["column"]), "query": str(q["query"]), "epsilon": float(q["epsilon"])}


def record_release(
    path: str | os.PathLike[str],
    *,
    queries: list[dict[str, Any]],
    budget: float | Budget | None = None,
    data: str | None = None,
    timeout: float = LOCK_TIMEOUT,
    key: Key | None = None,
    before_write: Callable[[dict[str, Any]], None] | None = None,
    preview: str | None = None,
) -> dict[str, Any]:
    """Lock the ledger, check the budget and append one release, atomically.

    Args:
        path: the ledger file (created if missing).
        queries: ``[{"column", "query", "epsilon"}]`` for every Laplace answer of the release, ``{"column",
            "query", "mechanism": "gaussian", "rho"}`` for a Gaussian one.
        budget: the largest total the ledger may reach: a number (ε) or a :class:`~privrisk.release.budget.Budget`
            (ε, (ε, δ) or ρ). None keeps the budget of the ledger's last entry (or, for a ledger without one,
            only records). A different budget replaces it; ``previous_budget`` in the result tells the caller, who
            should say so.
        data: the data file's name, for the record.
        timeout: seconds to wait for another release that holds the lock.
        key: the secret of a keyed ledger (see :func:`read_ledger`); a new ledger written with a key is keyed.
        before_write: called under the lock, after the budget check, with what this function returns, before the
            ledger is written; the release's outputs are written here so that the charge and the outputs go
            together. If it raises, nothing is charged.
        preview: the id of the preview this release publishes, recorded in the entry; a ledger that records it
            already refuses the release (a preview is charged once).

    Returns:
        ``{"spent_before", "spent_after", "budget", "previous_budget", "entry", "records", "history"}``: the
        plain sum of ε before and after, the budget as the ledger keeps it, every answer recorded after this
        release, and the entries before it.

    Raises:
        ThresholdExceeded: when the release would take the ledger's total above the budget (nothing is written).
        PrivriskError: for a corrupt ledger or a lock that is not released in time.

    Example:
        >>> import tempfile, pathlib
        >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> r = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}], budget=1.0)
        >>> r["spent_before"], r["spent_after"], spent_epsilon(led)
        (0.0, 0.5, 0.5)
    """
    # The real path: a symbolic link and its target are one ledger with one lock, and the atomic rename must
    # replace the target, not turn the link into a second ledger.
    raw_key = check_key(key)
    p = Path(os.path.realpath(path))
    clean = [_clean(q) for q in queries]
    if not clean or not all(_record_ok(q) for q in clean):
        raise PrivriskError("queries: a release spends ε > 0 (or ρ > 0) on at least one query")
    epsilon = math.fsum(q["epsilon"] for q in clean if "epsilon" in q)
    wanted = budget if isinstance(budget, Budget) or budget is None else Budget.from_json(budget)
    with _locked(p, timeout):
        entries = read_ledger(p, raw_key)
        done = next((e for e in entries if preview is not None and e.get(_PREVIEW_KEY) == preview), None)
        if done is not None:
            raise PrivriskError(
                f"preview_id: this preview was published already as release {done['seq']} of the ledger {p}; "
                "nothing was charged again",
                param="preview_id",
            )
        spent = math.fsum(float(e["epsilon"]) for e in entries)
        previous = entries[-1]["budget"] if entries else None
        # Leaving out the budget must not lift the budget the ledger was kept under.
        kept = wanted if wanted is not None else Budget.from_json(previous)
        records = [*ledger_records(entries), *clean]
        if kept is not None and not kept.fits(records):
            if kept.rho is None and kept.delta is None:
                raise ThresholdExceeded(budget_message(epsilon, spent, kept.limit, p))
            raise ThresholdExceeded(kept.message(records, len(clean), p))
        entry: dict[str, Any] = {
            "seq": len(entries) + 1,
            "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds"),
            "epsilon": epsilon,
            "queries": clean,
            "data": data,
            "budget": None if kept is None else kept.to_json(),
            "prev": entries[-1]["hash"] if entries else GENESIS,
        }
        if preview is not None:
            entry[_PREVIEW_KEY] = str(preview)
        entry["hash"] = _entry_hash(entry, raw_key)
        result = {
            "spent_before": spent,
            "spent_after": spent + epsilon,
            "budget": entry["budget"],
            "previous_budget": previous,
            "entry": entry,
            "records": records,
            "history": list(entries),
        }
        if before_write is not None:
            before_write(dict(result))
        entries.append(entry)
        mode = p.stat().st_mode & 0o777 if p.exists() else _default_mode()
        text = json.dumps(_header(entries, raw_key), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            with atomic_path(p) as tmp:
                # mkstemp makes the file private; a ledger shared by a team keeps its (or the umask's) mode.
                os.chmod(tmp, mode)
                with open(tmp, "w", encoding="utf-8") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
        except OSError as exc:
            raise PrivriskError(
                f"{p}: cannot write the ledger: {exc.strerror}; nothing was released"
            ) from None
    return result


class deferred_signals:
    """Hold SIGINT and SIGTERM back while a short critical section (charge the ledger, move the outputs into
    place) runs, and deliver them when it is done.

    Entering does nothing yet; :meth:`arm` starts holding the signals back (from the main thread only), and
    leaving restores the handlers and re-sends a signal that arrived meanwhile, so the process is interrupted
    (exit 130 or 143) only after the section is complete.

    Example:
        >>> with deferred_signals() as guard:
        ...     guard.arm()
        >>> guard.pending
        []
    """

    def __init__(self) -> None:
        self.pending: list[int] = []
        self._previous: dict[int, Any] = {}

    def arm(self) -> None:
        import signal
        import threading

        if self._previous or threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, lambda num, _frame: self.pending.append(num))

    def __enter__(self) -> deferred_signals:
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
        for sig in dict.fromkeys(self.pending):
            signal.raise_signal(sig)


KEY_ENV = "PRIVRISK_LEDGER_KEY"


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
