"""The one ledger's format: a header and a hash chain of entries, each a release or a set of released outputs.

A ledger is one JSON document::

    {"schema_version": 2, "kind": "privrisk-ledger", "count": 3, "total_epsilon": 1.5, "head": "<hash>",
     "keyed": true, "mac": "<HMAC of the header>",              (keyed ledgers only)
     "entries": [{"seq": 1, "kind": "release", "time": …, "epsilon": …, "queries": […], "data": …,
                  "budget": …, "prev": "0…0", "hash": …},
                 {"seq": 1, "kind": "outputs", "time": …, "outputs": […], "prev": …, "hash": …}, …]}

Entries are numbered within their kind (release 1, 2, …; outputs 1, 2, …) and chained in the order they were
written: each entry's ``hash`` is the SHA-256 (with a key: HMAC-SHA256) of its canonical JSON
(:func:`~privrisk.io.files.canonical_json`, the hash left out), which includes ``prev``, the hash of the entry
before it (64 zeros for the first). The header repeats the number of entries, the last hash and the plain sum of
the releases' ε; with a key it carries an HMAC over itself, so a ledger cut short or emptied (with the header
fixed up) is refused by whoever holds the key. Without a key a cut at the end of the chain cannot be seen.

Two older files are read: a release ledger of schema 1 (releases only, without ``kind``; those entries keep
their hashes and are read as releases) and an outputs ledger (``kind: "privrisk-outputs-ledger"``), whose chain
is checked as it was written and then re-chained in this format (with the same key), to be written so at the
next append.

Example:
    >>> table = {"spec": {"name": "T", "kind": "count"}, "cells": [{"labels": {}, "value": 12}]}
    >>> entries = [new_entry([], "outputs", {"outputs": [table]}, None, time="2025-01-01T00:00:00+00:00")]
    >>> doc = ledger_document(entries, None)
    >>> [e["seq"] for e in parse_ledger(canonical_json(doc), "l.json", None)]
    [1]
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import math
from collections.abc import Sequence
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.io.files import canonical_json

__all__ = [
    "ENTRY_KINDS",
    "FILE_KIND",
    "GENESIS",
    "SCHEMA_VERSION",
    "check_next",
    "corrupt",
    "entry_hash",
    "entry_kind",
    "ledger_document",
    "new_entry",
    "parse_ledger",
]

FILE_KIND = "privrisk-ledger"
LEGACY_OUTPUTS_KIND = "privrisk-outputs-ledger"
SCHEMA_VERSION = 2
GENESIS = "0" * 64
ENTRY_KINDS = ("release", "outputs")
_COMMON = {"seq", "time", "prev", "hash"}
_BODY: dict[str, set[str]] = {"release": {"epsilon", "queries", "data", "budget"}, "outputs": {"outputs"}}
# A release published from a preview also records the preview's id (ledgers written before have no such key).
_OPTIONAL: dict[str, set[str]] = {"release": {"preview"}, "outputs": set()}
_HEADER = {"schema_version", "kind", "count", "total_epsilon", "head", "entries"}
_KEYED = {"keyed", "mac"}
# Relative slack of float sums (a sum of thousands of ε values is off by far less).
TOLERANCE = 1e-12


def corrupt(path: object, what: str) -> PrivriskError:
    """The one-line refusal of a ledger that is not what privrisk wrote (it is never read as empty)."""
    return PrivriskError(
        f"ledger: {path}: the ledger is corrupt or was edited by hand ({what}); refusing to read it as "
        "'nothing spent, nothing released'",
        param="ledger",
    )


def _canonical(entry: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in entry.items() if k != "hash"})


def entry_hash(entry: dict[str, Any], key: bytes | None) -> str:
    """SHA-256 (with a key: HMAC-SHA256) over an entry's canonical JSON without its ``hash``.

    Example:
        >>> entry_hash({"seq": 1, "prev": GENESIS}, None)[:12]
        'bf44c921c01c'
    """
    if key is not None:
        return hmac.new(key, _canonical(entry), hashlib.sha256).hexdigest()
    return hashlib.sha256(_canonical(entry)).hexdigest()


def _header_mac(doc: dict[str, Any], key: bytes) -> str:
    body = {k: doc[k] for k in ("schema_version", "kind", "count", "total_epsilon", "head", "keyed")}
    return hmac.new(key, canonical_json(body), hashlib.sha256).hexdigest()


def entry_kind(entry: dict[str, Any]) -> str:
    """``release`` or ``outputs``; an entry without a kind is a release of a schema-1 ledger."""
    return str(entry.get("kind", "release"))


def _epsilon(entry: dict[str, Any]) -> float:
    value = entry.get("epsilon")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError
    return float(value)


def total_epsilon(entries: Sequence[dict[str, Any]]) -> float:
    """The plain sum of the releases' ε (sequential composition), as the header states it."""
    return math.fsum(float(e["epsilon"]) for e in entries if entry_kind(e) == "release")


def new_entry(
    entries: Sequence[dict[str, Any]],
    kind: str,
    body: dict[str, Any],
    key: bytes | None,
    *,
    time: str | None = None,
) -> dict[str, Any]:
    """The next entry of ``kind`` after ``entries``: numbered within its kind, chained, hashed (not yet written).

    Example:
        >>> e = new_entry([], "release", {"epsilon": 0.5, "queries": [], "data": None, "budget": None}, None)
        >>> e["seq"], e["kind"], e["prev"] == GENESIS, sorted(e)[:3]
        (1, 'release', True, ['budget', 'data', 'epsilon'])
    """
    if kind not in ENTRY_KINDS or set(body) - _OPTIONAL[kind] != _BODY[kind]:
        raise PrivriskError(
            f"kind: an entry of kind {kind!r} with the keys {sorted(body)} is not a ledger entry"
        )
    entry: dict[str, Any] = {
        "seq": sum(entry_kind(e) == kind for e in entries) + 1,
        "kind": kind,
        "time": time or _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds"),
        **body,
        "prev": entries[-1]["hash"] if entries else GENESIS,
    }
    entry["hash"] = entry_hash(entry, key)
    return entry


def ledger_document(entries: Sequence[dict[str, Any]], key: bytes | None) -> dict[str, Any]:
    """The whole document: the header (with its HMAC when keyed) and the entries."""
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "kind": FILE_KIND,
        "count": len(entries),
        "total_epsilon": total_epsilon(entries),
        "head": entries[-1]["hash"] if entries else GENESIS,
    }
    if key is not None:
        doc["keyed"] = True
        doc["mac"] = _header_mac(doc, key)
    doc["entries"] = list(entries)
    return doc


def check_next(entries: Sequence[dict[str, Any]], raw_entry: bytes, path: object, key: bytes | None) -> None:
    """Check an entry as it will be written (its JSON bytes) as the next one after ``entries``, the checked
    entries of the ledger: the ledger never holds an entry that it could not read again.

    Raises:
        PrivriskError: naming the entry's problem, as a read of the ledger would.
    """
    counts = dict.fromkeys(ENTRY_KINDS, 0)
    for e in entries:
        counts[entry_kind(e)] += 1
    prev = entries[-1]["hash"] if entries else GENESIS
    _check_entry(path, len(entries), _json(raw_entry, path), prev, key, counts)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _json(raw: bytes, path: object) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise corrupt(path, "not UTF-8 text") from None
    if not text.strip():
        raise corrupt(path, "the file is empty")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # JSONDecodeError, NaN or Infinity, an integer of thousands of digits
        raise corrupt(path, f"not valid JSON: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise corrupt(path, "nested too deeply to be a ledger") from None


def _check_key_mode(path: object, keyed: bool, key: bytes | None) -> None:
    if keyed and key is None:
        raise PrivriskError(f"key: {path} is a keyed ledger; give its key to read it", param="key")
    if not keyed and key is not None:
        raise PrivriskError(
            f"key: {path} is not a keyed ledger but a key was given (an unkeyed ledger cannot stand in for a keyed "
            "one)",
            param="key",
        )


def _check_entry(
    path: object, i: int, entry: Any, prev: str, key: bytes | None, counts: dict[str, int]
) -> None:
    where = f"entry {i + 1}"
    if not isinstance(entry, dict):
        raise corrupt(path, f"{where} is not an object")
    kind = entry.get("kind", "release")
    if kind not in ENTRY_KINDS:
        raise corrupt(path, f"{where} is of an unknown kind {str(kind)[:40]!r}")
    own = set(entry) - _COMMON - {"kind"} - _OPTIONAL[kind]
    if not _COMMON <= set(entry) or own != _BODY[kind]:
        keys = ", ".join(sorted(_COMMON | _BODY[kind]))
        raise corrupt(path, f"{where} does not have the keys {keys} of a {kind} entry")
    counts[kind] += 1
    if isinstance(entry["seq"], bool) or entry["seq"] != counts[kind]:
        raise corrupt(
            path, f"{where} has sequence number {str(entry['seq'])[:40]}, not {counts[kind]} of its kind"
        )
    if not isinstance(entry["time"], str):
        raise corrupt(path, f"{where} has a time that is not text")
    if kind == "release":
        try:
            _epsilon(entry)
        except ValueError:
            raise corrupt(
                path, f"{where} has ε = {str(entry['epsilon'])[:40]}; every release spends ε > 0"
            ) from None
    if kind == "outputs":
        problem = _outputs_problem(entry["outputs"])
        if problem:
            raise corrupt(path, f"{where} {problem}")
    if entry["prev"] != prev:
        raise corrupt(
            path, f"{where} does not follow the entry before it (an entry was removed or reordered)"
        )
    if not isinstance(entry["hash"], str) or not hmac.compare_digest(entry["hash"], entry_hash(entry, key)):
        raise corrupt(path, f"{where}'s checksum does not match its content")


def _plain(value: Any) -> bool:
    """A label or a released value: text, a finite number, true/false or null."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


def _outputs_problem(outputs: Any) -> str | None:
    """What is wrong with the ``outputs`` of an outputs entry (None when nothing is): each released output is
    ``{"spec": {"name": …, "kind": …, …}, "cells": [{"labels": {variable: label}, "value": number}], "data": …}``."""
    if not isinstance(outputs, list) or not outputs:
        return "lists no outputs"
    for k, out in enumerate(outputs, 1):
        if (
            not isinstance(out, dict)
            or not {"spec", "cells"} <= set(out)
            or set(out) - {"spec", "cells", "data"}
        ):
            return f"has an output {k} without spec and cells"
        spec = out["spec"]
        if (
            not isinstance(spec, dict)
            or not isinstance(spec.get("name"), str)
            or not isinstance(spec.get("kind"), str)
        ):
            return f"has an output {k} whose spec has no name or kind"
        cells = out["cells"]
        if not isinstance(cells, list) or not all(
            isinstance(c, dict)
            and set(c) == {"labels", "value"}
            and isinstance(c["labels"], dict)
            and all(_plain(v) for v in c["labels"].values())
            and _plain(c["value"])
            and not isinstance(c["value"], str)
            for c in cells
        ):
            return f"has an output {k} ({spec['name'][:40]!r}) with a cell that is not labels and a number"
        data = out.get("data")
        if data is not None and not (
            isinstance(data, dict)
            and set(data) == {"file", "rows", "columns"}
            and (data["file"] is None or isinstance(data["file"], str))
            and isinstance(data["rows"], int)
            and not isinstance(data["rows"], bool)
            and isinstance(data["columns"], dict)
            and all(isinstance(h, str) for h in data["columns"].values())
        ):
            return (
                f"has an output {k} ({spec['name'][:40]!r}) whose data version is not file, rows and columns"
            )
    return None


def _legacy_outputs(doc: dict[str, Any], path: object, key: bytes | None) -> list[dict[str, Any]]:
    """The entries of an outputs ledger written before the one ledger, checked as written and re-chained."""
    if not isinstance(doc.get("entries"), list) or set(doc) - {"schema_version", "kind", "keyed", "entries"}:
        raise corrupt(path, "not an outputs ledger with the keys schema_version, kind, keyed, entries")
    _check_key_mode(path, doc.get("keyed") is True, key)
    prev = ""
    entries: list[dict[str, Any]] = []
    for i, old in enumerate(doc["entries"], 1):
        if (
            not isinstance(old, dict)
            or set(old) != {"time", "prev", "outputs", "hash"}
            or old["prev"] != prev
            or not isinstance(old["hash"], str)
            or not hmac.compare_digest(old["hash"], entry_hash(old, key))
        ):
            raise corrupt(path, f"entry {i} of the outputs ledger was changed, removed or reordered")
        prev = old["hash"]
        if not isinstance(old["time"], str):
            raise corrupt(path, f"entry {i} has a time that is not text")
        problem = _outputs_problem(old["outputs"])
        if problem:
            raise corrupt(path, f"entry {i} {problem}")
        entries.append(new_entry(entries, "outputs", {"outputs": old["outputs"]}, key, time=old["time"]))
    return entries


def parse_ledger(raw: bytes, path: object, key: bytes | None) -> list[dict[str, Any]]:
    """The checked entries of a ledger's bytes, in the order written (``key``: the keyed ledger's secret).

    Raises:
        PrivriskError: for anything but a ledger privrisk wrote with this key (``param`` ``ledger`` or ``key``).

    Example:
        >>> parse_ledger(b'{"schema_version": 2}', "l.json", None)
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: ledger: l.json: the ledger is corrupt or was edited by hand (not a privrisk ledger with the keys count, entries, head, kind, schema_version, total_epsilon); refusing to read it as 'nothing spent, nothing released'
    """
    doc = _json(raw, path)
    if isinstance(doc, dict) and doc.get("kind") == LEGACY_OUTPUTS_KIND:
        return _legacy_outputs(doc, path, key)
    keyed = isinstance(doc, dict) and doc.get("keyed") is True
    if not isinstance(doc, dict) or set(doc) != (_HEADER | _KEYED if keyed else _HEADER):
        raise corrupt(path, f"not a privrisk ledger with the keys {', '.join(sorted(_HEADER))}")
    _check_key_mode(path, keyed, key)
    if key is not None and not (
        isinstance(doc["mac"], str) and hmac.compare_digest(doc["mac"], _header_mac(doc, key))
    ):
        raise PrivriskError(
            f"key: {path}: the ledger's authentication code does not match: a wrong key, or the ledger was "
            "edited, truncated or reset",
            param="key",
        )
    if doc["schema_version"] not in (1, SCHEMA_VERSION) or isinstance(doc["schema_version"], bool):
        raise corrupt(path, f"schema_version must be 1 or {SCHEMA_VERSION} and kind {FILE_KIND!r}")
    if doc["kind"] != FILE_KIND:
        raise corrupt(path, f"schema_version must be 1 or {SCHEMA_VERSION} and kind {FILE_KIND!r}")
    entries = doc["entries"]
    if not isinstance(entries, list):
        raise corrupt(path, "entries is not a list")
    prev, counts = GENESIS, dict.fromkeys(ENTRY_KINDS, 0)
    for i, entry in enumerate(entries):
        if doc["schema_version"] == 1 and isinstance(entry, dict) and "kind" in entry:
            raise corrupt(path, f"entry {i + 1} has a kind, which a schema-1 ledger does not have")
        _check_entry(path, i, entry, prev, key, counts)
        prev = entry["hash"]
    if doc["count"] != len(entries) or doc["head"] != prev:
        raise corrupt(
            path, "the header's count or last hash does not match the entries (entries were removed?)"
        )
    spent = total_epsilon(entries)
    stated = doc["total_epsilon"]
    if (
        isinstance(stated, bool)
        or not isinstance(stated, int | float)
        or not math.isclose(stated, spent, rel_tol=TOLERANCE, abs_tol=0.0)
    ):
        raise corrupt(path, f"the header's total ε {str(stated)[:40]} is not the sum of the entries")
    return entries
