"""Perturbation tables from files: ONS's CSV, sdcTools' ptable, or a TOML of probabilities by count and noise.

- **ONS** (the PyPI package ``cell-key-perturbation``): columns ``pcv`` (the count, 1…750), ``ckey`` (the cell
  key, 0…255) and ``pvalue`` (the noise). P(v | c) is the share of the keys whose ``pvalue`` is v; a zero is not
  perturbed; counts above 750 reuse rows 501–750 by ((c − 1) mod 250) + 501, as ``create_perturbed_table`` does.
  Every count 1…750 needs every key exactly once (ONS's code would publish a missing one unperturbed).
- **ptable** (sdcTools' R package, ``create_cnt_ptable(D = 2, V = 1)`` and ``pt_export``): columns ``i`` (the
  count), ``j`` (the published value) and ``p`` (or ``p_int_lb`` and ``p_int_ub``), optionally ``v`` and
  ``type``; ``;`` or ``,`` between them. The last row, "i ≥ top (symmetry)", serves every larger count.
- **TOML**: ``[probabilities]`` with one line per count, ``1 = { -1 = 0.3665, 0 = 0.3665, 1 = 0.1676, 2 =
  0.0995 }``, an optional ``name`` and ``period`` (0: the last row serves larger counts).

A file may be gzip- or xz-compressed (ONS's table is 2 MB as text, 50 kB as xz). Every error is one line naming
the file, the line or count and what is wrong.

Example:
    >>> t = perturbation_table_from_text("i;j;p;v\\n0;0;1;0\\n1;0;0.5;-1\\n1;2;0.5;1\\n", name="mini")
    >>> t.top, t.distribution(5)[0].tolist()
    (1, [4, 6])
"""

from __future__ import annotations

import csv
import gzip
import io
import lzma
import math
import os
import tomllib
from collections import defaultdict
from pathlib import Path

from privrisk.accounting.cellkey import ONS_PERIOD, ONS_TOP, PerturbationTable, perturbation_table
from privrisk.errors import PrivriskError
from privrisk.io.files import read_regular_file

__all__ = ["MAX_TABLE_BYTES", "perturbation_table_from_text", "read_perturbation_table"]

#: The largest file read (compressed or not), and the largest text after decompression.
MAX_TABLE_BYTES = 64 * 1024 * 1024


def read_perturbation_table(path: str | os.PathLike[str], *, param: str = "table") -> PerturbationTable:
    """Read a perturbation table (ONS CSV, ptable CSV or TOML; gzip or xz allowed), named after the file.

    Raises:
        PrivriskError: (``param``) for a missing file, a file that is not a regular file, or a table that is
            not one of the three formats or breaks their rules.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.toml"
        >>> _ = p.write_text("[probabilities]\\n0 = { 0 = 1.0 }\\n1 = { -1 = 0.5, 0 = 0.5 }\\n")
        >>> read_perturbation_table(p).zero_cell_disclosure
        0.5
    """
    p = Path(path)
    try:
        raw = read_regular_file(p, MAX_TABLE_BYTES, what="the perturbation table", param=param)
    except FileNotFoundError:
        raise PrivriskError(f"{param}: {p}: no such file", param=param) from None
    text = _decoded(raw, p, param)
    suffixes = [s.lower() for s in p.suffixes]
    kind = "toml" if ".toml" in suffixes else None
    return perturbation_table_from_text(text, name=p.name, kind=kind, param=param)


def _decoded(raw: bytes, path: Path, param: str) -> str:
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.GzipFile(fileobj=io.BytesIO(raw)).read(MAX_TABLE_BYTES + 1)
        elif raw[:6] == b"\xfd7zXZ\x00":
            raw = lzma.LZMADecompressor().decompress(raw, max_length=MAX_TABLE_BYTES + 1)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise PrivriskError(f"{param}: {path}: cannot decompress the table ({exc})", param=param) from None
    if len(raw) > MAX_TABLE_BYTES:
        raise PrivriskError(
            f"{param}: {path}: the table is larger than {MAX_TABLE_BYTES:,} bytes", param=param
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PrivriskError(f"{param}: {path}: the table is not UTF-8 text", param=param) from None


def perturbation_table_from_text(
    text: str, *, name: str = "a perturbation table", kind: str | None = None, param: str = "table"
) -> PerturbationTable:
    """A perturbation table from the text of an ONS CSV, a ptable CSV or a TOML (``kind`` ``"ons"``,
    ``"ptable"`` or ``"toml"``; by default told apart by the header).

    Raises:
        PrivriskError: (``param``) naming the line or count that breaks the format.
    """
    try:
        return _parse(text, name, kind)
    except PrivriskError as exc:
        message = str(exc)
        for head in ("table: ", "period: "):
            if message.startswith(head):
                message = message[len(head) :]
        raise PrivriskError(f"{param}: {message}", param=param) from None


def _parse(text: str, name: str, kind: str | None) -> PerturbationTable:
    if kind == "toml" or (kind is None and "[probabilities]" in text):
        return _from_toml(text, name)
    rows = _csv_rows(text, name)
    header = {h.strip().lower() for h in rows[0]}
    if kind == "ons" or (kind is None and {"pcv", "ckey", "pvalue"} <= header):
        return _from_ons(rows, name)
    if kind == "ptable" or (kind is None and {"i", "j"} <= header):
        return _from_ptable(rows, name)
    raise PrivriskError(f"table: {name}: not a perturbation table: expected ONS's columns pcv, ckey, pvalue, "
                        "ptable's i, j, p or a TOML with [probabilities]", param="table")  # fmt: skip


def _csv_rows(text: str, name: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise PrivriskError(f"table: {name} is empty", param="table")
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    return [[cell.strip() for cell in row] for row in csv.reader(lines, delimiter=delimiter)]


def _column(header: list[str], wanted: str, name: str) -> int:
    lowered = [h.lower() for h in header]
    if wanted not in lowered:
        raise PrivriskError(f"table: {name}: no column {wanted!r}", param="table")
    return lowered.index(wanted)


def _whole(text: str, name: str, line: int, column: str) -> int:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value == int(value)):
        raise PrivriskError(
            f"table: {name}, line {line}: {column} {text!r} is not a whole number", param="table"
        )
    return int(value)


def _probability(text: str, name: str, line: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and -1e-12 <= value <= 1 + 1e-12):
        raise PrivriskError(
            f"table: {name}, line {line}: {column} {text!r} is not a probability", param="table"
        )
    return min(max(value, 0.0), 1.0)


def _from_ons(rows: list[list[str]], name: str) -> PerturbationTable:
    header, body = rows[0], rows[1:]
    at = {c: _column(header, c, name) for c in ("pcv", "ckey", "pvalue")}
    keys: dict[int, dict[int, int]] = defaultdict(dict)
    for line, row in enumerate(body, 2):
        if len(row) != len(header):
            raise PrivriskError(f"table: {name}, line {line}: {len(row)} fields, the header has {len(header)}",
                                param="table")  # fmt: skip
        pcv, ckey, noise = (_whole(row[at[c]], name, line, c) for c in ("pcv", "ckey", "pvalue"))
        if not 1 <= pcv <= ONS_TOP or ckey < 0:
            raise PrivriskError(
                f"table: {name}, line {line}: pcv must be 1…{ONS_TOP} and ckey ≥ 0", param="table"
            )
        if ckey in keys[pcv]:
            raise PrivriskError(
                f"table: {name}, line {line}: pcv {pcv}, ckey {ckey} appears twice", param="table"
            )
        keys[pcv][ckey] = noise
    top_key = max((k for row in keys.values() for k in row), default=-1)
    missing = [c for c in range(1, ONS_TOP + 1) if len(keys.get(c, {})) != top_key + 1]
    if missing:
        raise PrivriskError(f"table: {name}: pcv {missing[0]} lacks some of the cell keys 0…{top_key} (ONS's "
                            f"code publishes a missing key unperturbed; give every key of every pcv 1…{ONS_TOP})",
                            param="table")  # fmt: skip
    table: dict[int, dict[int, float]] = {0: {0: 1.0}}  # a zero is not perturbed (it has no record keys)
    for pcv in range(1, ONS_TOP + 1):
        shares: dict[int, float] = defaultdict(float)
        for noise in keys[pcv].values():
            shares[noise] += 1.0 / (top_key + 1)
        table[pcv] = dict(shares)
    return perturbation_table(table, period=ONS_PERIOD, name=f"ONS table {name}")


def _from_ptable(rows: list[list[str]], name: str) -> PerturbationTable:
    header, body = rows[0], rows[1:]
    lowered = [h.lower() for h in header]
    i_col, j_col = _column(header, "i", name), _column(header, "j", name)
    type_col = lowered.index("type") if "type" in lowered else None
    table: dict[int, dict[int, float]] = defaultdict(dict)
    for line, row in enumerate(body, 2):
        if len(row) != len(header):
            raise PrivriskError(f"table: {name}, line {line}: {len(row)} fields, the header has {len(header)}",
                                param="table")  # fmt: skip
        if type_col is not None and row[type_col].strip('"').lower() not in ("all", ""):
            raise PrivriskError(f"table: {name}, line {line}: type {row[type_col]!r}: only count tables (type "
                                "'all') are perturbation tables of counts", param="table")  # fmt: skip
        i, j = _whole(row[i_col].strip('"'), name, line, "i"), _whole(row[j_col].strip('"'), name, line, "j")
        if "p" in lowered:
            p = _probability(row[lowered.index("p")], name, line, "p")
        elif "p_int_lb" in lowered and "p_int_ub" in lowered:
            low = _probability(row[lowered.index("p_int_lb")], name, line, "p_int_lb")
            p = _probability(row[lowered.index("p_int_ub")], name, line, "p_int_ub") - low
        else:
            raise PrivriskError(f"table: {name}: no column 'p' (nor p_int_lb and p_int_ub)", param="table")
        if j - i in table[i]:
            raise PrivriskError(f"table: {name}, line {line}: i = {i}, j = {j} appears twice", param="table")
        table[i][j - i] = p
    return perturbation_table(dict(table), name=f"ptable {name}")


def _from_toml(text: str, name: str) -> PerturbationTable:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrivriskError(f"table: {name}: not TOML ({exc})", param="table") from None
    unknown = sorted(set(doc) - {"name", "period", "probabilities"})
    if unknown:
        raise PrivriskError(
            f"table: {name}: unknown key {unknown[0]!r} (name, period, probabilities)", param="table"
        )
    rows = doc.get("probabilities")
    if not isinstance(rows, dict) or not rows:
        raise PrivriskError(f"table: {name}: give [probabilities] with one row per count", param="table")
    table: dict[int, dict[int, float]] = {}
    for count, row in rows.items():
        c = _whole(count, name, 0, "count") if count.lstrip("-").isdigit() else None
        if c is None or not isinstance(row, dict):
            raise PrivriskError(f"table: {name}: probabilities.{count}: give a count and {{noise = probability}}",
                                param="table")  # fmt: skip
        entries: dict[int, float] = {}
        for noise, p in row.items():
            if not noise.lstrip("-").isdigit() or isinstance(p, bool) or not isinstance(p, int | float):
                raise PrivriskError(f"table: {name}: probabilities.{count}.{noise}: give a whole noise and a "
                                    "probability", param="table")  # fmt: skip
            entries[int(noise)] = float(p)
        table[c] = entries
    period = doc.get("period", 0)
    if isinstance(period, bool) or not isinstance(period, int):
        raise PrivriskError(f"table: {name}: period must be a whole number", param="table")
    return perturbation_table(table, period=period, name=str(doc.get("name", name)))
