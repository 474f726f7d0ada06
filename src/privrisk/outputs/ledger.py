"""The ledger of released outputs: their specs and numbers, hash-chained, locked, written whole.

Next month's request is checked against everything that left before: :func:`ledger_specs` gives the outputs
released so far (they take part in the differencing), :func:`append_outputs` adds a set that passed. Each entry
carries the SHA-256 (with a key: HMAC-SHA256) of its content and of the entry before it, so an edit by hand is
found; the file is replaced atomically under an exclusive lock (the guarantees of the release ledger,
:mod:`privrisk.release.ledger`, whose key check this module shares).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk.errors import PrivriskError
from privrisk.io.files import canonical_json, exclusive_lock, to_jsonable, write_json
from privrisk.outputs.spec import OutputSpec, parse_spec
from privrisk.release.ledger import check_key

if TYPE_CHECKING:
    from privrisk.outputs.check import OutputsResult

__all__ = ["KIND", "Released", "append_outputs", "ledger_outputs", "ledger_specs", "read_outputs_ledger"]

KIND = "privrisk-outputs-ledger"
LOCK_TIMEOUT = 30.0


def _digest(entry: dict[str, Any], key: bytes | None) -> str:
    body = canonical_json({k: v for k, v in entry.items() if k != "hash"})
    if key is not None:
        return hmac.new(key, body, hashlib.sha256).hexdigest()
    return hashlib.sha256(body).hexdigest()


def read_outputs_ledger(path: str | os.PathLike[str], key: bytes | str | None = None) -> list[dict[str, Any]]:
    """The entries of an outputs ledger, checked (an absent file is an empty ledger).

    Raises:
        PrivriskError: if the file is not an outputs ledger, or an entry was changed, removed or reordered.
    """
    file = Path(path)
    raw_key = check_key(key)
    if not file.exists():
        return []
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PrivriskError(
            f"ledger: {file} cannot be read as an outputs ledger: {exc}", param="ledger"
        ) from None
    if not isinstance(doc, dict) or doc.get("kind") != KIND or not isinstance(doc.get("entries"), list):
        raise PrivriskError(f"ledger: {file} is not an outputs ledger (kind {KIND!r})", param="ledger")
    if bool(doc.get("keyed")) != (raw_key is not None):
        need = "needs its key" if doc.get("keyed") else "was written without a key"
        raise PrivriskError(f"ledger: {file} {need}", param="ledger")
    prev = ""
    for i, entry in enumerate(doc["entries"], 1):
        if (
            not isinstance(entry, dict)
            or entry.get("prev") != prev
            or entry.get("hash") != _digest(entry, raw_key)
        ):
            raise PrivriskError(
                f"ledger: {file}: entry {i} was changed, removed or reordered (its hash does not match)",
                param="ledger",
            )
        prev = entry["hash"]
    return list(doc["entries"])


@dataclass(frozen=True)
class Released:
    """An output as it left: its spec and the numbers released then (labels of each cell → its value).

    The differencing uses these numbers, not the output recomputed from today's data: the intruder knows what
    was released then.

    Example:
        >>> r = Released(OutputSpec(name="T", kind="count", rows=("sex",)), ((("f",), 12), (("m",), 15)))
        >>> r.values()[("m",)]
        15
    """

    spec: OutputSpec
    cells: tuple[tuple[tuple[str, ...], float | int | None], ...]

    def values(self) -> dict[tuple[str, ...], float | int | None]:
        """The released value of each cell, by its labels (text, in the order of the spec's variables)."""
        return dict(self.cells)


def ledger_outputs(path: str | os.PathLike[str], key: bytes | str | None = None) -> tuple[Released, ...]:
    """Every output released so far, with its numbers (the latest of a name wins)."""
    found: dict[str, Released] = {}
    for entry in read_outputs_ledger(path, key):
        for out in entry["outputs"]:
            text = "[[output]]\n" + "\n".join(f"{k} = {json.dumps(v)}" for k, v in out["spec"].items())
            (spec,) = parse_spec(text, source=f"ledger {path}")
            cells = tuple(
                (tuple(str(c["labels"].get(v)) for v in spec.variables), c.get("value"))
                for c in out.get("cells", [])
                if isinstance(c, dict) and isinstance(c.get("labels"), dict)
            )
            found[spec.name] = Released(spec, cells)
    return tuple(found.values())


def ledger_specs(path: str | os.PathLike[str], key: bytes | str | None = None) -> tuple[OutputSpec, ...]:
    """Every output released so far, as specs (the latest of a name wins)."""
    return tuple(r.spec for r in ledger_outputs(path, key))


def _locked(path: Path, timeout: float = LOCK_TIMEOUT) -> contextlib.AbstractContextManager[None]:
    return exclusive_lock(
        path,
        timeout=timeout,
        cannot_create="ledger: cannot create the lock file {lock}: {error}",
        held="ledger: {path} has been locked for more than {timeout:g} s",
        param="ledger",
    )


def append_outputs(
    path: str | os.PathLike[str], result: OutputsResult, key: bytes | str | None = None
) -> dict[str, Any] | None:
    """Append this run's outputs (spec and numbers) to the ledger if the set passed; the entry, or None.

    A set that fails or needs review is not appended: only what may leave is recorded as released.
    """
    if result.status != "pass":
        return None
    file = Path(path)
    raw_key = check_key(key)
    with _locked(file):
        entries = read_outputs_ledger(file, raw_key)
        entry: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
            "prev": entries[-1]["hash"] if entries else "",
            "outputs": [
                {
                    "spec": spec.to_dict(),
                    "cells": [{"labels": c["labels"], "value": c["value"]} for c in out["cells"]],
                }
                for spec, out in zip(result.specs, result.outputs, strict=True)
            ],
        }
        entry = to_jsonable(entry)
        entry["hash"] = _digest(entry, raw_key)
        doc = {"schema_version": 1, "kind": KIND, "keyed": raw_key is not None, "entries": [*entries, entry]}
        write_json(file, doc)
    return entry
