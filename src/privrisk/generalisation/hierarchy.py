"""Generalisation hierarchies for quasi-identifiers: intervals, break sets, prefixes, dates, ARX tables, mappings.

A hierarchy turns the distinct raw values of one quasi-identifier (its *domain*) into coarser labels, level by
level. Level 0 is the raw value; each level coarsens the one below (every label of level ``i`` lies inside exactly
one label of level ``i + 1``); the top level is ``*``. Internally a built hierarchy is a small integer matrix: for
each level, the code at that level of every domain value. Evaluating a generalisation therefore never touches
rows: it maps the codes of a histogram through these arrays (δ-presence's roll-ups and microdata's global
recoding both do).

Specifications (on the command line written ``COLUMN=SPEC``, see :func:`parse_hierarchy`):

- ``interval:WIDTH[:START]``: bins ``[START + i·WIDTH, START + (i+1)·WIDTH)``, then widths doubled at each level
  until one bin holds every value, then ``*``. Integer bins are labelled ``10-19``.
- ``breaks:0,18,30,50,inf``: one level per break set; several nested sets separated by ``/``
  (``breaks:10,20,30,40,50,inf/10,40,50,inf``). Each set must coarsen the one before.
- ``prefix``: codes such as ZIP codes lose one trailing character per level (85535 → 8553* → 855** …).
- ``date``: day → month → year.
- ``table:FILE.csv``: ARX's format, one row per raw value and one column per level (``;`` or ``,``, no header).
- in the library also a Python mapping ``{raw value: [level 1 label, level 2 label, …]}``
  (:meth:`Hierarchy.from_mapping`).
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError

__all__ = [
    "EDITOR_KINDS",
    "MAX_TABLE_BYTES",
    "TOP",
    "Hierarchy",
    "HierarchyChoice",
    "build_hierarchy",
    "parse_hierarchies",
    "parse_hierarchy",
    "typed_number",
    "value_key",
]

TOP = "*"


@dataclass(frozen=True)
class Hierarchy:
    """A built hierarchy over a finite domain.

    Attributes:
        name: the quasi-identifier's name.
        domain: the distinct raw values (level 0), as an object array, in code order.
        codes: ``codes[level][i]`` is the code at ``level`` of ``domain[i]`` (int64 arrays, level 0 is ``arange``).
        labels: ``labels[level][code]`` is the label of that code.
        kind: the specification it came from (``interval:10``, ``prefix``, …).

    Example:
        >>> h = build_hierarchy("age", "interval:10", [10, 12, 13, 16, 43])
        >>> h.height, [h.label(v, 1) for v in (10, 43)], h.label(43, h.height - 1)
        (5, ['10-19', '40-49'], '*')
    """

    name: str
    domain: np.ndarray
    codes: tuple[np.ndarray, ...]
    labels: tuple[np.ndarray, ...]
    kind: str = "mapping"

    @property
    def height(self) -> int:
        """The number of levels, raw values and ``*`` included."""
        return len(self.codes)

    def sizes(self) -> list[int]:
        """The number of distinct labels at each level."""
        return [len(lab) for lab in self.labels]

    def index(self, values) -> np.ndarray:
        """The level-0 codes of raw values; a value outside the domain is an error."""
        values = np.asarray(values, dtype=object)
        lookup = {v: i for i, v in enumerate(self.domain.tolist())}
        out = np.empty(values.size, dtype=np.int64)
        for j, v in enumerate(values.tolist()):
            code = lookup.get(value_key(v))
            if code is None:
                raise PrivriskError(f"hierarchy {self.name!r}: cannot place the value {v!r}")
            out[j] = code
        return out

    def label(self, value, level: int) -> str:
        """The label of one raw value at ``level``."""
        code = int(self.index([value])[0])
        return str(self.labels[level][self.codes[level][code]])

    def generalise(self, values, level: int) -> np.ndarray:
        """The labels of raw values at ``level`` (vectorised over the values)."""
        return self.labels[level][self.codes[level][self.index(values)]]

    def as_table(self) -> pd.DataFrame:
        """The hierarchy as ARX writes it: one row per raw value, one column per level."""
        return pd.DataFrame({f"level{lvl}": self.labels[lvl][self.codes[lvl]] for lvl in range(self.height)})

    @classmethod
    def from_mapping(
        cls,
        name: str,
        mapping: Mapping[object, Sequence[object]] | Sequence[Callable[[object], object]],
        values=None,
    ) -> Hierarchy:
        """A hierarchy from ``{raw: [level-1 label, level-2 label, …]}`` or from one function per level.

        With functions, ``values`` gives the domain. ``*`` is added on top when the last level has more than one
        label. The levels must be nested.

        Example:
            >>> h = Hierarchy.from_mapping("sex", {"m": ["person"], "f": ["person"]})
            >>> h.height, h.sizes()
            (2, [2, 1])
        """
        if isinstance(mapping, Mapping):
            domain = list(mapping)
            rows = [[value_key(v), *(str(x) for x in mapping[v])] for v in domain]
        else:
            if values is None:
                raise PrivriskError(f"hierarchy {name!r}: functions need the values they apply to")
            domain = sorted({value_key(v) for v in values}, key=_sort_key)
            rows = [[v, *(str(f(v)) for f in mapping)] for v in domain]
        return _from_rows(name, rows, kind="mapping")


def value_key(v):
    """One hashable, comparable form per raw value: integral floats become ints, numpy scalars Python ones."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _sort_key(v):
    return (0, v, "") if isinstance(v, int | float) else (1, 0, str(v))


def _domain(values) -> list:
    vals = pd.unique(pd.Series(list(values), dtype=object))
    return sorted({value_key(v) for v in vals}, key=_sort_key)


def _from_rows(name: str, rows: list[list], kind: str) -> Hierarchy:
    """Build from rows ``[raw, l1, l2, …]`` (equal length); check nesting; add ``*`` on top if needed."""
    if not rows:
        raise PrivriskError(f"hierarchy {name!r}: no values")
    width = {len(r) for r in rows}
    if len(width) != 1:
        raise PrivriskError(
            f"hierarchy {name!r}: every value needs the same number of levels, got {sorted(width)}"
        )
    raws = [r[0] for r in rows]
    if len(set(raws)) != len(raws):
        dup = next(v for v in raws if raws.count(v) > 1)
        raise PrivriskError(f"hierarchy {name!r}: the value {dup!r} is listed twice")
    columns = [list(col) for col in zip(*rows, strict=True)]
    if len(set(columns[-1])) > 1 or len(columns) == 1:
        columns.append([TOP] * len(rows))
    codes, labels = [], []
    for lvl, col in enumerate(columns):
        if lvl == 0:
            lab = np.empty(len(col), dtype=object)
            lab[:] = [str(v) for v in col]
            codes.append(np.arange(len(col), dtype=np.int64))
            labels.append(lab)
            continue
        uniq, inv = np.unique(np.asarray([str(v) for v in col], dtype=object), return_inverse=True)
        codes.append(inv.astype(np.int64))
        labels.append(uniq)
    for lvl in range(1, len(codes) - 1):
        # Nested: each label of this level sits inside exactly one label of the next.
        lo, hi = codes[lvl], codes[lvl + 1]
        parent = np.full(len(labels[lvl]), -1, dtype=np.int64)
        parent[lo] = hi
        if np.any(parent[lo] != hi):
            bad = int(lo[np.flatnonzero(parent[lo] != hi)[0]])
            raise PrivriskError(
                f"hierarchy {name!r}: not nested: level {lvl} label {labels[lvl][bad]!r} falls into more than "
                f"one label of level {lvl + 1}"
            )
    domain = np.empty(len(raws), dtype=object)
    domain[:] = raws
    return Hierarchy(name, domain, tuple(codes), tuple(labels), kind)


def _number(v, name: str) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise PrivriskError(f"hierarchy {name!r}: the value {v!r} is not a number") from None
    if math.isnan(x):
        raise PrivriskError(f"hierarchy {name!r}: cannot place a missing value")
    return x


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _bin_labels(edges: np.ndarray, integer: bool) -> list[str]:
    out = []
    for lo, hi in itertools.pairwise(edges):
        if math.isinf(hi):
            out.append(f"{_fmt(lo)}+")
        elif integer and float(lo).is_integer() and float(hi).is_integer():
            out.append(f"{_fmt(lo)}-{_fmt(hi - 1)}")
        else:
            out.append(f"[{_fmt(lo)},{_fmt(hi)})")
    return out


def _binned(name: str, x: np.ndarray, edges: np.ndarray, integer: bool) -> list[str]:
    idx = np.searchsorted(edges, x, side="right") - 1
    bad = (idx < 0) | (idx >= len(edges) - 1)
    if bad.any():
        v = x[np.flatnonzero(bad)[0]]
        raise PrivriskError(
            f"hierarchy {name!r}: cannot place the value {_fmt(v)}: outside [{_fmt(edges[0])}, {_fmt(edges[-1])})"
        )
    labels = np.asarray(_bin_labels(edges, integer), dtype=object)
    return list(labels[idx])


MAX_BINS = 1_000_000
"""The most bins an interval hierarchy may make at its finest level."""


def _interval_rows(name: str, domain: list, width: float, start: float | None) -> list[list]:
    if not width > 0 or not math.isfinite(width):
        raise PrivriskError(f"hierarchy {name!r}: interval width must be a positive number, got {width:g}")
    x = np.asarray([_number(v, name) for v in domain], dtype=float)
    integer = bool(np.all(np.mod(x, 1) == 0)) and float(width).is_integer()
    if start is None:
        start = min(0.0, math.floor(x.min() / width) * width)
    if not math.isfinite(start):
        raise PrivriskError(
            f"hierarchy: {name!r}: the interval start must be finite, got {start:g}", param="hierarchy"
        )
    if x.min() < start:
        raise PrivriskError(
            f"hierarchy {name!r}: cannot place the value {_fmt(x.min())}: below the start {_fmt(start)}"
        )
    span = (x.max() - start) / width
    if not span < MAX_BINS:
        raise PrivriskError(
            f"hierarchy: {name!r}: interval width {width:g} makes more than {MAX_BINS:,} bins; choose a wider one",
            param="hierarchy",
        )
    levels, w = [], width
    while True:
        n_bins = math.floor((x.max() - start) / w) + 1
        edges = start + w * np.arange(n_bins + 1, dtype=float)
        level = _binned(name, x, edges, integer)
        if len(set(level)) <= 1:
            break  # one bin for everything is the top, written *
        levels.append(level)
        w *= 2
    if not levels:
        return [[v] for v in domain]
    return [[v, *lv] for v, lv in zip(domain, zip(*levels, strict=True), strict=True)]


def _breaks_rows(name: str, domain: list, spec: str) -> list[list]:
    sets = [s for s in spec.replace("|", "/").split("/") if s.strip()]
    if not sets:
        raise PrivriskError(f"hierarchy {name!r}: breaks needs numbers, e.g. breaks:0,18,30,50,inf")
    x = np.asarray([_number(v, name) for v in domain], dtype=float)
    integer = bool(np.all(np.mod(x, 1) == 0))
    levels, previous = [], None
    for s in sets:
        try:
            edges = np.asarray([float(p) for p in s.split(",") if p.strip()], dtype=float)
        except ValueError:
            raise PrivriskError(f"hierarchy {name!r}: breaks {s!r} are not numbers") from None
        if np.isnan(edges).any():
            raise PrivriskError(
                f"hierarchy: {name!r}: breaks {s!r} hold NaN, not a number", param="hierarchy"
            )
        if edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise PrivriskError(f"hierarchy {name!r}: breaks {s!r} must be at least two increasing numbers")
        if previous is not None and not set(edges.tolist()) <= set(previous.tolist()):
            raise PrivriskError(
                f"hierarchy {name!r}: not nested: the breaks {s!r} are not a subset of the ones before"
            )
        levels.append(_binned(name, x, edges, integer))
        previous = edges
    return [[v, *lv] for v, lv in zip(domain, zip(*levels, strict=True), strict=True)]


def _prefix_rows(name: str, domain: list) -> list[list]:
    texts = [str(v) for v in domain]
    length = max(len(t) for t in texts)
    rows = []
    for v, t in zip(domain, texts, strict=True):
        rows.append([v, *(t[: max(len(t) - i, 0)] + "*" * min(i, len(t)) for i in range(1, length))])
    return rows


def _date_rows(name: str, domain: list) -> list[list]:
    stamps = pd.to_datetime(pd.Series(domain, dtype=object).astype(str), errors="coerce")
    if stamps.isna().any():
        bad = domain[int(np.flatnonzero(stamps.isna().to_numpy())[0])]
        raise PrivriskError(f"hierarchy {name!r}: cannot place the value {bad!r}: not a date")
    return [
        [v, s.strftime("%Y-%m-%d"), s.strftime("%Y-%m"), s.strftime("%Y")]
        for v, s in zip(domain, stamps, strict=True)
    ]


#: The largest hierarchy table read: a table of a million values is a few MiB; more is a wrong file (or /dev/zero).
MAX_TABLE_BYTES = 64 * 1024 * 1024


def _table_rows(name: str, path: str, domain: list) -> list[list]:
    from privrisk.io.files import read_regular_file

    p = Path(path)
    try:
        # Opened without blocking and checked before a byte is read: a FIFO cannot hang, /dev/zero cannot fill memory.
        raw = read_regular_file(p, MAX_TABLE_BYTES, what=f"the hierarchy table of {name!r}")
    except FileNotFoundError:
        raise PrivriskError(f"{p}: no such file (hierarchy {name!r})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PrivriskError(
            f"{p}: not a text hierarchy table (byte {exc.start} is not UTF-8; hierarchy {name!r})"
        ) from None
    if "\x00" in text:
        raise PrivriskError(f"{p}: not a text hierarchy table (it holds NUL bytes; hierarchy {name!r})")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise PrivriskError(f"{p}: the hierarchy file is empty")
    sep = ";" if lines[0].count(";") >= lines[0].count(",") and ";" in lines[0] else ","
    table = [[c.strip() for c in ln.split(sep)] for ln in lines]
    widths = {len(r) for r in table}
    if len(widths) != 1:
        raise PrivriskError(f"{p}: every row needs the same number of levels (found {sorted(widths)})")
    by_raw = {r[0]: r for r in table}
    rows = []
    for v in domain:
        row = by_raw.get(str(v))
        if row is None:
            raise PrivriskError(f"{p}: cannot place the value {v!r} of {name!r}: not in the hierarchy table")
        rows.append([v, *row[1:]])
    return rows


def parse_hierarchy(text: str) -> tuple[str, str]:
    """Split ``COLUMN=SPEC`` as the command line takes it.

    Example:
        >>> parse_hierarchy("age=interval:10")
        ('age', 'interval:10')
    """
    column, eq, spec = text.partition("=")
    if not eq or not column.strip() or not spec.strip():
        raise PrivriskError(
            f"hierarchy: expected COLUMN=SPEC (e.g. age=interval:10), got {text!r}", param="hierarchy"
        )
    return column.strip(), spec.strip()


def parse_hierarchies(texts: Sequence[str] | None) -> dict[str, object]:
    """``{column: spec}`` from several ``COLUMN=SPEC`` texts; a column given twice is an error.

    Example:
        >>> parse_hierarchies(["age=interval:10", "zip=prefix"])
        {'age': 'interval:10', 'zip': 'prefix'}
    """
    specs: dict[str, object] = {}
    for text in texts or []:
        name, spec = parse_hierarchy(text)
        if name in specs:
            raise PrivriskError(f"hierarchy: {name!r} is given twice", param="hierarchy")
        specs[name] = spec
    return specs


def build_hierarchy(name: str, spec, values) -> Hierarchy:
    """Build the hierarchy ``spec`` over the distinct ``values`` of a quasi-identifier.

    Args:
        name: the quasi-identifier (for messages).
        spec: ``None`` (raw → ``*``), a specification string (module docstring), a :class:`Hierarchy` (restricted
            and checked against ``values``), a mapping or a list of functions (:meth:`Hierarchy.from_mapping`).
        values: the raw values it must place (the union of the research subset's and the population's).

    Raises:
        PrivriskError: an unknown kind, a value the hierarchy cannot place, levels that are not nested.

    Example:
        >>> h = build_hierarchy("age", "breaks:10,20,30,40,50,inf/10,40,50,inf", [10, 12, 13, 16, 43])
        >>> [h.label(v, 2) for v in (12, 43)]
        ['10-39', '40-49']
    """
    domain = _domain(values)
    if isinstance(spec, Hierarchy):
        rows_map = {v: i for i, v in enumerate(spec.domain.tolist())}
        rows = []
        for v in domain:
            i = rows_map.get(v)
            if i is None:
                raise PrivriskError(f"hierarchy {name!r}: cannot place the value {v!r}")
            rows.append([v, *(spec.labels[lvl][spec.codes[lvl][i]] for lvl in range(1, spec.height))])
        return _from_rows(name, rows, spec.kind)
    if isinstance(spec, Mapping):
        missing = [v for v in domain if v not in spec and str(v) not in spec]
        if missing:
            raise PrivriskError(f"hierarchy {name!r}: cannot place the value {missing[0]!r}")
        return _from_rows(name, [[v, *(spec[v] if v in spec else spec[str(v)])] for v in domain], "mapping")
    if isinstance(spec, list | tuple) and spec and all(callable(f) for f in spec):
        return _from_rows(name, [[v, *(str(f(v)) for f in spec)] for v in domain], "functions")
    if spec is None or spec == "" or spec == "none":
        return _from_rows(name, [[v] for v in domain], "none")
    if not isinstance(spec, str | os.PathLike):
        raise PrivriskError(f"hierarchy {name!r}: unknown hierarchy {spec!r}")
    text = str(spec)
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "interval":
        parts = rest.split(":")
        try:
            width = float(parts[0])
            start = float(parts[1]) if len(parts) > 1 and parts[1].strip() else None
        except ValueError:
            raise PrivriskError(
                f"hierarchy {name!r}: expected interval:WIDTH[:START], got {text!r}"
            ) from None
        rows = _interval_rows(name, domain, width, start)
    elif kind == "breaks":
        rows = _breaks_rows(name, domain, rest)
    elif kind == "prefix":
        rows = _prefix_rows(name, domain)
    elif kind == "date":
        rows = _date_rows(name, domain)
    elif kind == "table":
        if not rest:
            raise PrivriskError(f"hierarchy {name!r}: expected table:FILE.csv")
        rows = _table_rows(name, rest, domain)
    else:
        raise PrivriskError(
            f"hierarchy {name!r}: unknown kind {kind!r}; use interval:WIDTH[:START], breaks:…, prefix, date or "
            "table:FILE.csv"
        )
    return _from_rows(name, rows, text)


# --------------------------------------------------------------------------------------------------- editor

EDITOR_KINDS = ("none", "interval", "breaks", "prefix", "date")
"""The hierarchies a form can build without typed syntax: as is, intervals of a width, breaks, prefixes, dates."""


def _numbers_text(values: Sequence[float]) -> str:
    return ",".join(_fmt(v) for v in values)


_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")


def typed_number(value: object, name: str) -> float | None:
    """A number as a form holds it (None when empty): a number, or text typed in English, where a comma separates
    thousands (``80,000``); any other comma is refused rather than guessed at (``0,5`` is read neither as 5 nor as
    0.5).

    Raises:
        PrivriskError: (``name``) text that is not a number, or NaN.

    Example:
        >>> typed_number("80,000", "population_size"), typed_number(" 0.5 ", "delta_max"), typed_number("", "k")
        (80000.0, 0.5, None)
        >>> typed_number("0,5", "delta_max")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: delta_max: '0,5' is not a number (write decimals with a point: 0.5)
    """
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    if not text:
        return None
    if "," in text:
        if not _THOUSANDS.match(text):
            raise PrivriskError(
                f"{name}: {text!r} is not a number (write decimals with a point: {text.replace(',', '.')})",
                param=name,
            )
        text = text.replace(",", "")
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if math.isnan(x):
        raise PrivriskError(f"{name}: {text!r} is not a number", param=name)
    return x


@dataclass(frozen=True)
class HierarchyChoice:
    """A hierarchy chosen with controls instead of typed syntax, and the specification it stands for.

    Attributes:
        kind: ``none`` (the value as is, then ``*``), ``interval`` (bins of ``width`` from ``start``, widths
            doubled level by level), ``breaks`` (bins between the numbers of each level of ``breaks``), ``prefix``
            or ``date``.
        width, start: the intervals' width and first edge (start None: from 0, or below the smallest value).
        breaks: the finite breaks of each level, finest first (each level's breaks a subset of the one before).
        The numbers may be given as a form holds them, text as typed (:func:`typed_number`); empty ones are None
        (breaks: left out).
        open_top: whether the last bin of every level is open ("50+"), i.e. each level ends with ``inf``.

    Example:
        >>> HierarchyChoice("breaks", breaks=((10, 20, 30, 40, 50), (10, 40, 50))).spec()
        'breaks:10,20,30,40,50,inf/10,40,50,inf'
        >>> HierarchyChoice.from_spec("interval:10:5")
        HierarchyChoice(kind='interval', width=10.0, start=5.0, breaks=(), open_top=True)
        >>> HierarchyChoice("interval").spec()
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: hierarchies: give the intervals' width, a number above 0
    """

    kind: str = "none"
    width: float | None = None
    start: float | None = None
    breaks: tuple[tuple[float, ...], ...] = ()
    open_top: bool = True

    def __post_init__(self) -> None:
        # The numbers as a form holds them (text as typed, empty fields), read once (:func:`typed_number`).
        set_ = object.__setattr__
        set_(self, "width", typed_number(self.width, "hierarchies"))
        set_(self, "start", typed_number(self.start, "hierarchies"))
        read = (tuple(typed_number(b, "hierarchies") for b in level) for level in self.breaks)
        set_(self, "breaks", tuple(tuple(b for b in level if b is not None) for level in read))

    def spec(self) -> str | None:
        """The specification (``interval:10``, ``breaks:…``), or None for the value as is.

        Raises:
            PrivriskError: (``hierarchies``) a missing or non-positive width, fewer than two edges in a level,
                breaks of a coarser level that are not among the finer level's.
        """
        if self.kind not in EDITOR_KINDS:
            raise PrivriskError(f"hierarchies: unknown kind {self.kind!r}", param="hierarchies")
        if self.kind == "none":
            return None
        if self.kind in ("prefix", "date"):
            return self.kind
        if self.kind == "interval":
            w = self.width
            if w is None or not math.isfinite(w) or w <= 0:
                raise PrivriskError(
                    "hierarchies: give the intervals' width, a number above 0", param="hierarchies"
                )
            if self.start is None:
                return f"interval:{_fmt(w)}"
            if not math.isfinite(self.start):
                raise PrivriskError("hierarchies: the intervals' start must be a number", param="hierarchies")
            return f"interval:{_fmt(w)}:{_fmt(self.start)}"
        levels = [
            sorted({float(b) for b in level if b is not None and math.isfinite(b)}) for level in self.breaks
        ]
        levels = [level for level in levels if level]
        if not levels:
            raise PrivriskError("hierarchies: give the breaks, e.g. 18, 30, 50", param="hierarchies")
        for i, level in enumerate(levels):
            if len(level) + self.open_top < 2:
                raise PrivriskError(
                    f"hierarchies: level {i + 1} needs at least two breaks (or one and an open top)",
                    param="hierarchies",
                )
            if i and not set(level) <= set(levels[i - 1]):
                extra = _numbers_text(sorted(set(level) - set(levels[i - 1])))
                raise PrivriskError(
                    f"hierarchies: level {i + 1} breaks at {extra}, which level {i} does not: a coarser level can "
                    "only leave breaks out",
                    param="hierarchies",
                )
        tail = ",inf" if self.open_top else ""
        return "breaks:" + "/".join(_numbers_text(level) + tail for level in levels)

    @classmethod
    def from_spec(cls, spec: object) -> HierarchyChoice:
        """The controls that give ``spec`` (a URL's preset, the example's hierarchy).

        Raises:
            PrivriskError: (``hierarchies``) a specification the controls cannot give (a table file, a mapping).
        """
        if spec is None or str(spec).strip().lower() in ("", "none"):
            return cls("none")
        text = str(spec).strip()
        kind, _, rest = text.partition(":")
        kind = kind.strip().lower()
        try:
            if kind in ("prefix", "date") and not rest:
                return cls(kind)
            if kind == "interval":
                parts = rest.split(":")
                start = float(parts[1]) if len(parts) > 1 and parts[1].strip() else None
                return cls("interval", width=float(parts[0]), start=start)
            if kind == "breaks":
                sets = [
                    [float(x) for x in part.split(",") if x.strip()]
                    for part in rest.split("/")
                    if part.strip()
                ]
                open_top = bool(sets) and all(level and math.isinf(level[-1]) for level in sets)
                finite = tuple(tuple(x for x in level if math.isfinite(x)) for level in sets)
                return cls("breaks", breaks=finite, open_top=open_top)
        except ValueError:
            pass
        raise PrivriskError(
            f"hierarchies: {text!r} is not a hierarchy the form can build (intervals, breaks, prefix or date)",
            param="hierarchies",
        )

    def preview(self, name: str, values: Sequence[object] = (), *, most: int = 8) -> list[str]:
        """The classes of each level, one line a level (at most ``most`` labels each), for the form to show.

        Breaks show every bin they make; intervals, prefixes and dates the classes of ``values`` (the column's
        distinct values, where known).

        Example:
            >>> HierarchyChoice("breaks", breaks=((10, 20, 30), (10, 30)), open_top=True).preview("age")
            ['level 1: 10-19, 20-29, 30+', 'level 2: 10-29, 30+']
            >>> HierarchyChoice("interval", width=10).preview("age", [3, 17, 25])
            ['level 1: 0-9, 10-19, 20-29', 'level 2: 0-19, 20-39']
        """
        spec = self.spec()
        if spec is None:
            return ["as is, then *"]

        def line(level: int, labels: Sequence[str]) -> str:
            shown = list(labels)[:most]
            more = f", … ({len(labels):,} in all)" if len(labels) > most else ""
            return f"level {level}: {', '.join(shown)}{more}"

        if self.kind == "breaks":
            out = []
            for i, part in enumerate(spec.removeprefix("breaks:").split("/")):
                edges = np.asarray([float(x) for x in part.split(",")], dtype=float)
                integer = bool(np.all(np.mod(edges[np.isfinite(edges)], 1) == 0))
                out.append(line(i + 1, _bin_labels(edges, integer)))
            return out
        if not values:
            return ["the classes show once the column's values are known"]
        h = build_hierarchy(name, spec, list(values))
        return [line(lvl, [str(x) for x in h.labels[lvl]]) for lvl in range(1, h.height - 1)] or [
            "one level: *"
        ]
