"""A suppression pattern for a hierarchical count table read from a file: the one way in of ``privrisk table-pattern``.

The table comes as its leaf cells (one column per dimension holding the leaf code, and a count column; without
one, each row is one person), each dimension's hierarchy as a file of ``code,parent`` rows (a blank parent marks
the total) or as a specification of :mod:`privrisk.generalisation.hierarchy` (``prefix``, ``interval:10``,
``breaks:…``, ``date``, ``table:FILE.csv``). Every code of every hierarchy is a published cell (the totals and
subtotals by their sums); :func:`privrisk.outputs.hierarchical.suppression_pattern` gives the primaries (cells with
1 ≤ n < threshold), the secondaries (hypercubes), each primary's proof of protection and its interval.

A leaf of a ``code,parent`` file absent from the table is a zero cell; with a specification the leaves are the
codes that occur. A specification's level that repeats a label of the level below (a group that is not split) is
the same cell and is listed once.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.outputs.hierarchical import Pattern, suppression_pattern, table_from_leaves
from privrisk.outputs.policy import Policy
from privrisk.progress import Progress, report

__all__ = ["DEFAULT_THRESHOLD", "EXACT_CELLS", "TablePatternRun", "TablePatternSettings", "run_table_pattern"]

#: The threshold rule's default minimum frequency, the outputs policy's (``Policy().safe_threshold``).
DEFAULT_THRESHOLD = Policy().safe_threshold
#: The largest table (cells, totals included) taken: the relations and the dense arrays grow with it.
MAX_CELLS = 20_000_000
#: The largest table whose intervals ``intervals="auto"`` computes exactly: the programmes of one large block of
#: suppressed cells dominate the time (benchmarks/differencing_scale.py, 2 cores: 1.4 s of CPU at 15,625 cells,
#: 5.6 s at 29,791, 32 s at 117,649, 396 s at 10⁶, every interval exact; 50,000 cells before 2026-12-01, when
#: 117,649 took 270 s, see :mod:`privrisk.outputs.hierarchical`).
EXACT_CELLS = 150_000
_SPEC_KINDS = ("interval:", "breaks:", "prefix", "date", "table:")
TOTAL = "*"


def _typed_dimensions(texts: Sequence[str]) -> dict[str, str]:
    """``["region=regions.csv", "age=interval:10"]`` as ``{column: hierarchy}``, each column once."""
    from privrisk.generalisation.hierarchy import parse_hierarchy

    dims: dict[str, str] = {}
    for text in texts:
        try:
            name, spec = parse_hierarchy(str(text))
        except PrivriskError:
            raise PrivriskError(
                f"dimensions: expected COLUMN=HIERARCHY, got {text!r}", param="dimensions"
            ) from None
        if name in dims:
            raise PrivriskError(f"dimensions: {name!r} is given twice", param="dimensions")
        dims[name] = spec
    return dims


@dataclass(frozen=True)
class TablePatternSettings:
    """What to compute a suppression pattern for; every rule is checked when it is made.

    Attributes:
        table: the leaf cells: a CSV or Parquet file, or a DataFrame.
        dimensions: ``{column: hierarchy}``: a ``code,parent`` file (a path), a specification string, or a
            mapping ``{code: parent}`` (None or "" for the total); or texts ``"COLUMN=HIERARCHY"`` as typed
            (``--dimension``), read into that mapping.
        count: the count column; None: each row is one person.
        threshold: a cell with 1 ≤ n < threshold is a primary suppression (default the outputs policy's 10).
        protection: how far a whole table with the published cells must move each primary up, and down (at
            most to 0).
        zeros: zeros are primary suppressions too.
        intervals: each primary's interval (what an intruder recomputes): ``"exact"`` by linear and integer
            programmes, ``"bounds"`` the outer bound [0, least published total less its published parts]
            without programmes, ``"auto"`` exact up to :data:`EXACT_CELLS` (150,000) cells. The protection is proven
            exactly either way, by two whole tables with the published cells for each primary.

    Example:
        >>> TablePatternSettings(table="t.csv", dimensions={"region": "region.csv"}, threshold=0)
        Traceback (most recent call last):
        privrisk.errors.PrivriskError: threshold: must be a whole number ≥ 1, got 0
    """

    table: str | os.PathLike[str] | pd.DataFrame
    dimensions: Mapping[str, Any] | Sequence[str]
    count: str | None = None
    threshold: int = DEFAULT_THRESHOLD
    protection: int = 1
    zeros: bool = False
    intervals: Literal["auto", "exact", "bounds"] = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.table, pd.DataFrame | str | os.PathLike):
            raise PrivriskError("table: expected a CSV or Parquet file or a DataFrame", param="table")
        if isinstance(self.dimensions, list | tuple):
            object.__setattr__(self, "dimensions", _typed_dimensions(self.dimensions))
        if not isinstance(self.dimensions, Mapping) or not self.dimensions:
            raise PrivriskError("dimensions: give at least one COLUMN=HIERARCHY", param="dimensions")
        for name in ("threshold", "protection"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise PrivriskError(f"{name}: must be a whole number ≥ 1, got {v!r}", param=name)
        if self.intervals not in ("auto", "exact", "bounds"):
            raise PrivriskError(
                f"intervals: 'auto', 'exact' or 'bounds', got {self.intervals!r}", param="intervals"
            )
        if self.count is not None and self.count in self.dimensions:
            raise PrivriskError(f"count: {self.count!r} is also a dimension", param="count")
        for column, spec in self.dimensions.items():
            if not isinstance(column, str) or not column:
                raise PrivriskError(
                    f"dimensions: a column name must be text, got {column!r}", param="dimensions"
                )
            if not isinstance(spec, str | os.PathLike | Mapping) or (
                isinstance(spec, str) and not spec.strip()
            ):
                raise PrivriskError(
                    f"dimensions: {column}: expected a code,parent file, a specification (prefix, interval:W, "
                    f"breaks:…, date, table:FILE.csv) or a mapping code → parent, got {spec!r}",
                    param="dimensions",
                )
            if isinstance(self.table, pd.DataFrame) and column not in self.table.columns:
                raise PrivriskError(f"dimensions: no column {column!r} in the table", param="dimensions")


@dataclass(frozen=True)
class _Dimension:
    """One dimension's tree: each code's label and parent (−1 for the total); leaves in the table's order."""

    name: str
    labels: np.ndarray
    parent: np.ndarray


def _tree(name: str, labels: list[str], parent_of: list[str | None]) -> _Dimension:
    """A tree from labels and their parents' labels; one total (a ``*`` is added over several)."""
    index = {lab: i for i, lab in enumerate(labels)}
    parent = np.full(len(labels), -1, dtype=np.int64)
    for i, p in enumerate(parent_of):
        if p is not None:
            if p not in index:
                raise PrivriskError(f"dimensions: {name}: the parent {p!r} of {labels[i]!r} is not a code",
                                    param="dimensions")  # fmt: skip
            parent[i] = index[p]
    roots = np.flatnonzero(parent < 0)
    if roots.size > 1:
        if TOTAL in index:
            raise PrivriskError(
                f"dimensions: {name}: several totals and a code {TOTAL!r}", param="dimensions"
            )
        parent[roots] = len(labels)
        labels, parent = [*labels, TOTAL], np.append(parent, -1)
    # every code must reach the total (no cycle)
    depth = np.zeros(len(labels), dtype=np.int64)
    cur = parent.copy()
    for _ in range(len(labels) + 1):
        alive = cur >= 0
        if not alive.any():
            break
        depth += alive
        cur = np.where(alive, parent[np.maximum(cur, 0)], -1)
    else:
        raise PrivriskError(f"dimensions: {name}: the parents form a cycle", param="dimensions")
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return _Dimension(name, out, parent)


def _parent_file(name: str, path: Path) -> _Dimension:
    from privrisk.io.files import read_regular_file

    try:
        raw = read_regular_file(path, 64 * 1024 * 1024, what=f"the hierarchy of {name!r}")
    except FileNotFoundError:
        raise PrivriskError(f"dimensions: {name}: {path} does not exist", param="dimensions") from None
    try:
        frame = pd.read_csv(io.StringIO(raw.decode("utf-8-sig")), dtype=str, keep_default_na=False)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise PrivriskError(f"dimensions: {name}: {path} is not a code,parent CSV file ({type(exc).__name__})",
                            param="dimensions") from None  # fmt: skip
    if frame.shape[1] != 2 or frame.empty:
        raise PrivriskError(f"dimensions: {name}: {path} must have two columns, code and parent (a header row first)",
                            param="dimensions")  # fmt: skip
    codes = [c.strip() for c in frame.iloc[:, 0]]
    if len(set(codes)) != len(codes):
        dup = next(c for c in codes if codes.count(c) > 1)
        raise PrivriskError(
            f"dimensions: {name}: the code {dup!r} is listed twice in {path}", param="dimensions"
        )
    parents = [p.strip() or None for p in frame.iloc[:, 1]]
    return _tree(name, codes, parents)


def _mapping(name: str, mapping: Mapping[Any, Any]) -> _Dimension:
    codes = [str(c) for c in mapping]
    parents = [None if p is None or str(p) == "" else str(p) for p in mapping.values()]
    return _tree(name, codes, parents)


def _specified(name: str, spec: str, values: pd.Series) -> _Dimension:
    """A tree from a generalisation hierarchy over the codes that occur: a node is a label of a level; a label
    with one child of the same label (a group not split) is that child's cell."""
    from privrisk.generalisation.hierarchy import build_hierarchy

    try:
        h = build_hierarchy(name, spec, [_code_text(v) for v in values.dropna().tolist()])
    except PrivriskError as exc:
        raise PrivriskError(f"dimensions: {name}: {exc}", param="dimensions") from None
    # up[lvl][c]: the code at lvl + 1 above code c of lvl; same[(lvl, c)]: the node it is the same cell as
    up = []
    for lvl in range(h.height - 1):
        u = np.zeros(len(h.labels[lvl]), dtype=np.int64)
        u[h.codes[lvl]] = h.codes[lvl + 1]
        up.append(u)
    same: dict[tuple[int, int], tuple[int, int]] = {}
    for lvl in range(1, h.height):
        kids = np.bincount(up[lvl - 1], minlength=len(h.labels[lvl]))
        for c in range(len(h.labels[lvl])):
            if kids[c] == 1:
                child = int(np.flatnonzero(up[lvl - 1] == c)[0])
                if str(h.labels[lvl - 1][child]) == str(h.labels[lvl][c]):
                    same[(lvl, c)] = same.get((lvl - 1, child), (lvl - 1, child))
    labels: list[str] = []
    parent_of: list[str | None] = []
    for lvl in range(h.height):
        for c in range(len(h.labels[lvl])):
            if (lvl, c) in same:
                continue
            node, above = (lvl, c), None
            k, code = lvl, c
            while k < h.height - 1:
                k, code = k + 1, int(up[k][code])
                if same.get((k, code), (k, code)) != node:
                    above = str(h.labels[k][code])
                    break
            labels.append(str(h.labels[lvl][c]))
            parent_of.append(above)
    if len(set(labels)) != len(labels):
        dup = next(lab for lab in labels if labels.count(lab) > 1)
        raise PrivriskError(f"dimensions: {name}: the label {dup!r} names two groups", param="dimensions")
    return _tree(name, labels, parent_of)


def _dimension(name: str, spec: Any, values: pd.Series) -> _Dimension:
    if isinstance(spec, Mapping):
        return _mapping(name, spec)
    text = str(spec).strip()
    if text.lower().startswith(_SPEC_KINDS):
        return _specified(name, text, values)
    return _parent_file(name, Path(text))


def _read(settings: TablePatternSettings) -> pd.DataFrame:
    columns = [*settings.dimensions, *([settings.count] if settings.count else [])]
    if isinstance(settings.table, pd.DataFrame):
        missing = [c for c in columns if c not in settings.table.columns]
        if missing:
            raise PrivriskError(f"count: no column {missing[0]!r} in the table", param="count")
        return settings.table[columns].copy()
    from privrisk.io.data import read_table

    try:
        return read_table(settings.table, columns)
    except PrivriskError as exc:
        raise PrivriskError(f"table: {exc}", param="table") from None


def _leaf_counts(settings: TablePatternSettings, frame: pd.DataFrame, dims: list[_Dimension]) -> np.ndarray:
    """The leaf cells' counts in the trees' leaf order (a leaf absent from the table is 0)."""
    if settings.count is None:
        counts = np.ones(len(frame), dtype=np.int64)
    else:
        raw = pd.to_numeric(frame[settings.count], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(raw) | (raw < 0) | (raw != np.round(raw))
        if bad.any():
            v = frame[settings.count].iloc[int(np.flatnonzero(bad)[0])]
            raise PrivriskError(f"count: every count must be a whole number ≥ 0, got {v!r}", param="count")
        counts = raw.astype(np.int64)
    positions = []
    for dim in dims:
        has_child = np.zeros(dim.parent.size, dtype=bool)
        has_child[dim.parent[dim.parent >= 0]] = True
        leaves = np.flatnonzero(~has_child)
        where = {str(dim.labels[c]): j for j, c in enumerate(leaves.tolist())}
        codes = frame[dim.name]
        if codes.isna().any():
            raise PrivriskError(f"dimensions: {dim.name}: a row has no code", param="dimensions")
        # each distinct code once (a table of leaf cells repeats each code many times)
        uniq, inverse = np.unique(codes.to_numpy(dtype=object).astype(str), return_inverse=True)
        text = {str(v): _code_text(v) for v in pd.unique(codes).tolist()}
        at = np.asarray([where.get(text.get(u, u), -1) for u in uniq.tolist()], dtype=np.int64)
        pos = at[inverse.reshape(-1)]
        if (pos < 0).any():
            k = text.get(str(uniq[int(np.flatnonzero(at < 0)[0])]), "")
            what = "not a leaf of its hierarchy" if k in set(dim.labels.tolist()) else "not in its hierarchy"
            raise PrivriskError(f"dimensions: {dim.name}: the code {k!r} is {what}", param="dimensions")
        positions.append((pos, leaves.size))
    out = np.zeros(tuple(n for _, n in positions), dtype=np.int64)
    np.add.at(out, tuple(p for p, _ in positions), counts)
    return out


def _code_text(v: Any) -> str:
    from privrisk.generalisation.hierarchy import value_key

    return str(value_key(v))


@dataclass(frozen=True)
class TablePatternRun:
    """What :func:`run_table_pattern` found: the trees and the proven pattern; JSON with :meth:`to_dict`,
    files with :meth:`write`."""

    settings: TablePatternSettings
    dimensions: tuple[str, ...]
    labels: tuple[np.ndarray, ...] = field(repr=False)
    pattern: Pattern = field(repr=False)
    source: str = "table"
    exact_intervals: bool = True

    def summary(self) -> dict[str, int]:
        """Cells, primaries, secondaries, primaries not proven protected, intervals not exact."""
        return self.pattern.summary

    def sentence(self) -> str:
        """The finding in plain words, against the threshold and protection set."""
        s, st = self.summary(), self.settings
        head = (
            f"Of {s['cells']:,} cells, {s['primary']:,} {'is' if s['primary'] == 1 else 'are'} below the threshold of {st.threshold} (primary "
            f"suppressions) and {s['secondary']:,} more are suppressed to protect them (secondary)"
        )
        if s["primary"] == 0:
            return f"No cell of the {s['cells']:,} is below the threshold of {st.threshold}: nothing to suppress."
        if s["unprotected"]:
            return (head + f"; {s['unprotected']:,} primaries are NOT proven protected by {st.protection}: an "
                    "intruder may recompute them, do not publish this pattern.")  # fmt: skip
        tail = "every interval exact" if s["not_exact"] == 0 else (
            f"{s['not_exact']:,} intervals are outer bounds, not exact")  # fmt: skip
        return (f"{head}. Every primary is protected: a whole table with the same published cells moves it at "
                f"least {st.protection} up and down (to 0 at most); {tail}.")  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk table-pattern --json`` prints (without its ``schema_version``)."""
        s, st = self.summary(), self.settings
        return {
            "source": self.source,
            "dimensions": {d: int(lab.size) for d, lab in zip(self.dimensions, self.labels, strict=True)},
            "threshold": st.threshold,
            "protection": st.protection,
            "zeros": st.zeros,
            "summary": s,
            "all_protected": s["unprotected"] == 0,
            "all_exact": s["not_exact"] == 0,
            "intervals": "exact" if self.exact_intervals else "bounds",
            "sentence": self.sentence(),
        }

    def cells(self) -> pd.DataFrame:
        """Every cell: its codes, its count (blank when suppressed), its status and, for a protected primary,
        its interval. An unprotected primary's interval is left blank: it may pin the value."""
        p = self.pattern
        grids = np.meshgrid(*[np.arange(lab.size) for lab in self.labels], indexing="ij")
        frame = pd.DataFrame({d: lab[g.reshape(-1)] for d, lab, g in zip(self.dimensions, self.labels, grids,
                                                                          strict=True)})  # fmt: skip
        sup, prim = p.suppressed.reshape(-1), p.primary.reshape(-1)
        frame["count"] = pd.array(np.where(sup, 0, p.values.reshape(-1)), dtype="Int64")
        frame.loc[sup, "count"] = pd.NA
        frame["status"] = np.where(prim, "primary", np.where(sup, "secondary", "published"))
        shown = prim & p.protected.reshape(-1)
        lo, hi = p.lo.reshape(-1), p.hi.reshape(-1)
        frame["protected"] = pd.array(np.where(prim, p.protected.reshape(-1), False), dtype="boolean")
        frame.loc[~prim, "protected"] = pd.NA
        frame["lower"] = pd.array(np.where(shown, lo, 0), dtype="Int64")
        frame.loc[~shown, "lower"] = pd.NA
        # "inf": no bound above; blank: not a protected primary
        frame["upper"] = [
            ("inf" if np.isinf(h) else int(h)) if ok else None for h, ok in zip(hi, shown, strict=True)
        ]
        frame["exact"] = pd.array(np.where(shown, p.exact.reshape(-1), False), dtype="boolean")
        frame.loc[~shown, "exact"] = pd.NA
        return frame

    def write(self, folder: str | os.PathLike[str]) -> list[str]:
        """Write ``pattern.csv`` (every cell), ``result.json`` and ``manifest.json`` into ``folder`` (whole or
        not at all); return the files written."""
        from privrisk.io.files import atomic_dir, write_csv, write_json
        from privrisk.io.manifest import write_manifest

        with atomic_dir(folder) as tmp:
            write_csv(self.cells(), tmp / "pattern.csv")
            write_json(tmp / "result.json", self.to_dict())
            write_manifest(tmp, kind="table-pattern", title="Suppression pattern of a hierarchical table",
                           parameters={k: v for k, v in self.to_dict().items() if k in ("threshold", "protection",
                                       "zeros", "dimensions")}, summary=self.summary(),
                           findings=[self.sentence()], tables=[{"title": "Every cell", "path": "pattern.csv"}])  # fmt: skip
        return ["pattern.csv", "result.json", "manifest.json"]

    def to_json(self) -> str:
        """:meth:`to_dict` as text."""
        return json.dumps(self.to_dict(), ensure_ascii=False)


def run_table_pattern(settings: TablePatternSettings, *, progress: Progress | None = None) -> TablePatternRun:
    """Read the table and hierarchies, and give the table a proven suppression pattern.

    Example:
        >>> import pandas as pd
        >>> t = pd.DataFrame({"sex": ["m", "m", "f", "f"], "age": ["young", "old", "young", "old"],
        ...                   "n": [1, 5, 6, 7]})
        >>> dims = {"sex": {"all": None, "m": "all", "f": "all"}, "age": {"all": None, "young": "all", "old": "all"}}
        >>> run = run_table_pattern(TablePatternSettings(table=t, dimensions=dims, count="n", threshold=3))
        >>> run.summary()
        {'cells': 9, 'primary': 1, 'secondary': 3, 'unprotected': 0, 'not_exact': 0}
        >>> hidden = run.cells().query("status != 'published'")
        >>> [(a, b, s) for a, b, s in zip(hidden["sex"], hidden["age"], hidden["status"])]
        [('m', 'young', 'primary'), ('m', 'old', 'secondary'), ('f', 'young', 'secondary'), ('f', 'old', 'secondary')]
        >>> run.sentence()[:60]
        'Of 9 cells, 1 is below the threshold of 3 (primary suppressi'
    """
    report(progress, 0.0, "reading the table")
    frame = _read(settings)
    given = settings.dimensions
    assert isinstance(given, Mapping)  # texts were read into a mapping by the settings
    dims = [_dimension(name, spec, frame[name]) for name, spec in given.items()]
    cells = int(np.prod([d.labels.size for d in dims], dtype=float))
    if cells > MAX_CELLS:
        raise PrivriskError(f"dimensions: the table has {cells:,} cells; at most {MAX_CELLS:,} are taken",
                            param="dimensions")  # fmt: skip
    leaves = _leaf_counts(settings, frame, dims)
    parents = [d.parent for d in dims]
    values = table_from_leaves(parents, leaves)
    report(progress, 0.1, f"suppressing and proving {cells:,} cells")
    exact = settings.intervals == "exact" or (settings.intervals == "auto" and cells <= EXACT_CELLS)
    pattern = suppression_pattern(parents, values, settings.threshold, protection=settings.protection,
                                  zeros=settings.zeros, intervals=exact)  # fmt: skip
    report(progress, 1.0, "done")
    source = "DataFrame" if isinstance(settings.table, pd.DataFrame) else str(settings.table)
    return TablePatternRun(settings, tuple(d.name for d in dims), tuple(d.labels for d in dims), pattern, source,
                           exact)  # fmt: skip
