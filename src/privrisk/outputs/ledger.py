"""The outputs in the one ledger: every output released, with its spec, its numbers and the data it came from.

Next month's request is checked against everything that left before: :func:`ledger_outputs` gives every output
released so far, in the order released (they take part in the differencing by position, never by name: a name is
taken once for the ledger's life). Outputs are entries of kind ``outputs`` in the one ledger of everything released
(:mod:`privrisk.ledger`), under the same file rules, lock, hash chain and key as releases. An entry is appended
by :func:`privrisk.outputs.run.run_outputs`, which checks a request and appends it under one lock;
:func:`append_outputs` appends a result checked before, only if the ledger's outputs are still the ones it was
checked against.

Each released output is ``{"spec": {name, kind, rows, …}, "cells": [{"labels": {variable: label}, "value": v}],
"data": {"file", "rows", "columns": {column: SHA-256}}}``: the numbers as they left and a fingerprint of the data
they were computed on (:func:`data_version`), so that a request on another version of the data is not merged
with them silently.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.ledger import Key, check_key, entry_kind, open_ledger, read_ledger_file
from privrisk.ledger.chain import corrupt
from privrisk.outputs.spec import OutputSpec, parse_spec

if TYPE_CHECKING:
    from privrisk.outputs.run import OutputsRun as OutputsResult

__all__ = [
    "KIND",
    "Released",
    "append_outputs",
    "data_version",
    "digest_chunk",
    "ledger_outputs",
    "ledger_specs",
    "name_key",
    "outputs_head",
    "read_outputs_ledger",
    "released_outputs",
]

#: The kind of an outputs entry in the one ledger.
KIND = "outputs"


def name_key(name: str) -> str:
    """How output names are compared for uniqueness: Unicode-normalised (NFC), case and spacing ignored.

    Example:
        >>> name_key("Table  1") == name_key("table 1")
        True
    """
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def _toml_string(text: str) -> str:
    """A TOML basic string of any text (every control character escaped; a lone surrogate is refused)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError("text holds a lone surrogate")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_string(str(k))} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"{type(value).__name__} has no TOML form")


def spec_from_dict(doc: dict[str, Any], *, source: str = "ledger") -> OutputSpec:
    """The output a ledger records (its spec as :meth:`OutputSpec.to_dict` wrote it), read as a spec file is.

    Example:
        >>> spec_from_dict({"name": "Tab 😀", "kind": "count", "rows": ["région"]}).rows
        ('région',)
    """
    try:
        text = "[[output]]\n" + "\n".join(
            f"{_toml_string(str(k))} = {_toml_value(v)}" for k, v in doc.items()
        )
    except ValueError as exc:
        raise PrivriskError(f"spec: {source}: {exc}", param="spec") from None
    (spec,) = parse_spec(text, source=source)
    return spec


@dataclass(frozen=True)
class Released:
    """An output as it left: its spec and the numbers released then (labels of each cell → its value).

    The differencing uses these numbers, not the output recomputed from today's data: the intruder knows what
    was released then.

    Attributes:
        spec: the output's spec.
        cells: ``((labels, value), …)``, the labels as text in the order of the spec's variables.
        data: the data version it was computed on (:func:`data_version`), or None for an entry without one.
        seq: the number of its outputs entry in the ledger; time: when it was recorded (None outside a ledger).

    Example:
        >>> r = Released(OutputSpec(name="T", kind="count", rows=("sex",)), ((("f",), 12), (("m",), 15)))
        >>> r.values()[("m",)]
        15
    """

    spec: OutputSpec
    cells: tuple[tuple[tuple[str, ...], float | int | None], ...]
    data: dict[str, Any] | None = field(default=None, compare=False)
    seq: int | None = field(default=None, compare=False)
    time: str | None = field(default=None, compare=False)

    def values(self) -> dict[tuple[str, ...], float | int | None]:
        """The released value of each cell, by its labels (text, in the order of the spec's variables)."""
        return dict(self.cells)

    def where(self) -> str:
        """Where it is recorded, for messages: ``outputs entry 2 of 2025-01-05``."""
        if self.seq is None:
            return "the earlier outputs"
        return f"outputs entry {self.seq}" + (f" of {self.time[:10]}" if self.time else "")


def _released(path: object, i: int, entry: dict[str, Any]) -> list[Released]:
    found = []
    for out in entry["outputs"]:
        try:
            spec = spec_from_dict(out["spec"], source=f"ledger {path}")
        except PrivriskError as exc:
            raise corrupt(path, f"entry {i + 1} records an output that is not a spec: {exc}") from None
        cells = tuple(
            (tuple(str(c["labels"].get(v)) for v in spec.variables), c["value"]) for c in out["cells"]
        )
        found.append(Released(spec, cells, out.get("data"), entry["seq"], entry["time"]))
    return found


def released_outputs(entries: Iterable[dict[str, Any]], path: object = "ledger") -> tuple[Released, ...]:
    """Every output that the ledger's entries record, in the order released (releases are left out)."""
    return tuple(
        r for i, entry in enumerate(entries) if entry_kind(entry) == KIND for r in _released(path, i, entry)
    )


def read_outputs_ledger(path: str | os.PathLike[str], key: Key | None = None) -> list[dict[str, Any]]:
    """The outputs entries of the one ledger, checked (an absent file is an empty ledger).

    Raises:
        PrivriskError: if the file is not a ledger, an entry was changed, removed or reordered, or an output it
            records cannot be read.
    """
    entries = read_ledger_file(path, key)
    released_outputs(entries, path)  # every spec readable
    return [e for e in entries if entry_kind(e) == KIND]


def ledger_outputs(path: str | os.PathLike[str], key: Key | None = None) -> tuple[Released, ...]:
    """Every output released so far, with its numbers, in the order released."""
    return released_outputs(read_ledger_file(path, key), path)


def ledger_specs(path: str | os.PathLike[str], key: Key | None = None) -> tuple[OutputSpec, ...]:
    """Every output released so far, as specs, in the order released."""
    return tuple(r.spec for r in ledger_outputs(path, key))


def outputs_head(entries: Sequence[dict[str, Any]]) -> str | None:
    """The hash of the last outputs entry (None when there is none): what a check of outputs depends on."""
    last = [e for e in entries if entry_kind(e) == KIND]
    return last[-1]["hash"] if last else None


# -- the data an output was computed on --------------------------------------------------------------------------


def _column_digest(values: pd.Series) -> str:
    """SHA-256 of a column, canonical: whole numbers as 64-bit integers, other numbers as 64-bit floats (every
    NaN alike, −0 as 0), anything else as text; in the order of the rows."""
    whole = pd.api.types.is_bool_dtype(values) or pd.api.types.is_integer_dtype(values)
    mode = "s"
    if whole and not values.isna().any():
        mode = "i"
    elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_complex_dtype(values):
        mode = "f"
    return hashlib.sha256(mode.encode() + digest_chunk(values, mode)).hexdigest()


def digest_chunk(values: pd.Series, mode: str, *, first: bool = True) -> bytes:
    """The bytes a run of a column's values adds to its digest (after the ``mode`` letter): ``"i"`` 64-bit
    integers, ``"f"`` 64-bit floats (every NaN alike, −0 as 0), ``"s"`` text joined by the unit separator (0x1F) (``first``: no
    separator before the run). A column streamed in chunks gives the digest of the whole column.

    Example:
        >>> whole = digest_chunk(pd.Series(["a", "b", "c"]), "s")
        >>> whole == digest_chunk(pd.Series(["a"]), "s") + digest_chunk(pd.Series(["b", "c"]), "s", first=False)
        True
    """
    if mode == "i":
        return values.to_numpy(dtype="<i8").tobytes()
    if mode == "f":
        numbers = values.to_numpy(dtype="<f8", na_value=float("nan")) + 0.0  # −0 + 0 is +0
        numbers[numbers != numbers] = float("nan")
        return numbers.tobytes()
    texts = ["\x00" if pd.isna(v) else str(v) for v in values.tolist()]
    return ("" if first else "\x1f").encode() + "\x1f".join(texts).encode("utf-8", "surrogatepass")


_WORD = re.compile(r'"((?:[^"]|"")+)"|([^\W\d][\w]*)')


def _where_columns(where: str | None, columns: Sequence[str]) -> list[str]:
    if not where:
        return []
    known = set(map(str, columns))
    words = {(quoted.replace('""', '"') if quoted else bare) for quoted, bare in _WORD.findall(where)}
    return [c for c in map(str, columns) if c in words and c in known]


def data_version(
    frame: pd.DataFrame, spec: OutputSpec, *, file: str | None = None, cache: dict[str, str] | None = None
) -> dict[str, Any]:
    """The fingerprint of the data an output is computed on: the file's name, the number of rows, and the SHA-256
    of every column it reads (its variables, weights and the columns its ``where`` names). ``cache`` keeps the
    columns' digests between calls on one frame.

    Example:
        >>> f = pd.DataFrame({"region": ["N", "S"], "age": [30, 40]})
        >>> v = data_version(f, OutputSpec(name="T", kind="count", rows=("region",), where="age >= 18"))
        >>> v["rows"], sorted(v["columns"])
        (2, ['age', 'region'])
    """
    used = [c for c in spec.columns_used if c in frame.columns]
    used += [c for c in _where_columns(spec.where, list(frame.columns)) if c not in used]
    digests = {} if cache is None else cache
    for c in used:
        if c not in digests:
            digests[c] = _column_digest(frame[c])
    return {
        "file": None if file is None else os.path.basename(str(file)),
        "rows": len(frame),
        "columns": {c: digests[c] for c in used},
    }


def version_change(then: dict[str, Any] | None, now: dict[str, Any]) -> str | None:
    """How the data changed since an output was released (None when its fingerprint is the same or unknown): the
    file's name, the number of rows, else the columns whose content changed.

    Example:
        >>> version_change({"file": "jan.csv", "rows": 159, "columns": {"age": "1"}},
        ...                {"file": "feb.csv", "rows": 160, "columns": {"age": "2"}})
        'jan.csv then, feb.csv now; 159 rows then, 160 now'
        >>> version_change({"file": "a.csv", "rows": 9, "columns": {"age": "1", "sex": "1"}},
        ...                {"file": "a.csv", "rows": 9, "columns": {"age": "2", "sex": "1"}})
        'a.csv; column age changed'
    """
    if then is None:
        return None
    changed = [c for c, h in then["columns"].items() if now["columns"].get(c, h) != h]
    if then["rows"] == now["rows"] and not changed:
        return None
    same_file = then.get("file") == now.get("file")
    parts = (
        [str(then["file"]) if same_file else f"{then['file']} then, {now['file']} now"]
        if then.get("file")
        else []
    )
    if then["rows"] != now["rows"]:
        parts.append(f"{then['rows']:,} rows then, {now['rows']:,} now")
    else:
        parts.append(("column " if len(changed) == 1 else "columns ") + ", ".join(changed) + " changed")
    return "; ".join(parts)


# -- appending --------------------------------------------------------------------------------------------------


def taken_names(specs: Iterable[OutputSpec], earlier: Sequence[Released], ledger: object) -> None:
    """Refuse a request that names an output already in the ledger: a name is taken for the ledger's life.

    Raises:
        PrivriskError: naming ``spec``, the output and where the ledger records it.
    """
    before = {name_key(r.spec.name): r for r in earlier}
    for spec in specs:
        found = before.get(name_key(spec.name))
        if found is not None:
            raise PrivriskError(
                f"spec: output {spec.name!r} is in the ledger {ledger} already ({found.where()}"
                + (f", as {found.spec.name!r}" if found.spec.name != spec.name else "")
                + "); a name is kept for the ledger's life and never replaced: give this output another name",
                param="spec",
            )


def outputs_entry(result: OutputsResult, versions: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The body of the outputs entry for a result that passed: each output's spec, cells and data version.

    Raises:
        PrivriskError: for an output whose spec would not read back the same from the ledger (``spec``).
    """
    outputs = []
    for spec, out in zip(result.specs, result.outputs, strict=True):
        doc = spec.to_dict()
        try:
            same = spec_from_dict(doc) == spec
        except PrivriskError:
            same = False
        if not same:
            raise PrivriskError(
                f"spec: output {spec.name!r} cannot be recorded in the ledger as it is written; rename it",
                param="spec",
            )
        cells = [
            {"labels": {str(k): str(v) for k, v in c["labels"].items()}, "value": _number(c["value"])}
            for c in out["cells"]
        ]
        item: dict[str, Any] = {"spec": doc, "cells": cells}
        if versions is not None and spec.name in versions:
            item["data"] = versions[spec.name]
        outputs.append(item)
    return {"outputs": outputs}


def _number(value: Any) -> float | int | None:
    if value is None:
        return None
    v = float(value)
    if not math.isfinite(v):
        return None
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def append_outputs(
    path: str | os.PathLike[str], result: OutputsResult, key: Key | None = None
) -> dict[str, Any] | None:
    """Append a checked result's outputs (spec and numbers) to the ledger if the set passed; the entry, or None.

    Prefer :func:`~privrisk.outputs.run.run_outputs` with ``OutputsSettings(ledger=…)``, which checks and
    appends under one lock. A result is appended here only if the ledger's outputs are still those it was checked
    against (none, for a result checked without this ledger), and only if its names are new to the ledger. A set
    that fails or needs review is not appended: only what may leave is recorded as released.

    Raises:
        PrivriskError: for a result checked against other outputs than the ledger now holds (``ledger``), or a
            name the ledger has already (``spec``).
    """
    if result.status != "pass":
        return None
    raw_key = check_key(key)
    checked = result.ledger or {}
    with open_ledger(path, raw_key) as led:
        head = outputs_head(led.entries)
        same_file = checked.get("path") is not None and os.path.realpath(checked["path"]) == os.path.realpath(
            path
        )
        if head != (checked.get("head") if same_file else None):
            raise PrivriskError(
                f"ledger: {path} holds outputs that this result was not checked against; check it again with "
                "this ledger (OutputsSettings(ledger=…) checks and appends under one lock)",
                param="ledger",
            )
        taken_names(result.specs, released_outputs(led.entries, led.path), led.path)
        return led.append(KIND, outputs_entry(result, checked.get("versions")))


def as_released(
    cells: pd.DataFrame, spec: OutputSpec, values: dict[tuple[str, ...], Any]
) -> tuple[pd.DataFrame, int]:
    """Today's cells of an earlier output, carrying the numbers released then (cells it did not release are
    left out); and how many of those numbers differ from today's (a released cell that today's data does not
    have at all counts, unless it released 0 or nothing)."""
    variables = list(spec.variables)
    keys = (
        [tuple(str(x) for x in row) for row in cells[variables].itertuples(index=False, name=None)]
        if variables
        else [()] * len(cells)
    )
    keep = np.array([k in values for k in keys], dtype=bool)
    then = np.array(
        [np.nan if values[k] is None else float(values[k]) for k, ok in zip(keys, keep, strict=True) if ok]
    )
    kept = cells[keep].reset_index(drop=True)
    now = kept["value"].to_numpy(dtype=float)
    same = np.isclose(then, now, rtol=1e-12, atol=0.0) | (np.isnan(then) & np.isnan(now))
    present = set(keys)
    gone = sum(k not in present and v is not None and v != 0 for k, v in values.items())
    return kept.assign(value=then), int((~same).sum()) + gone
