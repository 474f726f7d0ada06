"""An independent intruder for the output-checking tests: every whole non-negative table of counts over the raw
variables' domains that fits all released counts, by enumeration. It shares no code with privrisk: it evaluates
the ``where`` conditions itself (in Python, on every point of the domain), builds the released cells as a crosstab
shows them (rows and columns that occur in the table's population, every combination of them, the margins), and
enumerates depth first.

The domain is the one privrisk documents: a text variable's values in the data, a whole-number variable every whole
number from its least to its largest value in the data; a record is one value of each variable.

A **group** is a cell of a cross-classification by any subset of the grouping variables and the conditions (each
fixed or "any"); it is known by the set of domain points it holds. The intruder pins a group when every solution
gives it a count within [1, threshold − 1]; a group known to hold someone (every solution ≥ 1) of whom every other
value of one dimension is known to be empty (each such group, if it has any point, is 0 in every solution) shows
an attribute. Groups whose points are those of one released cell are left out, as are attribute findings all of
whose empty groups are released cells.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Condition:
    """A ``where``: its SQL (for privrisk) and the same test in Python (for this intruder)."""

    sql: str
    test: Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class Table:
    name: str
    rows: tuple[str, ...]
    columns: tuple[str, ...] = ()
    where: Condition | None = None
    margins: bool = False


@dataclass
class Intruder:
    """What the enumeration found: every group (by its dimensions' values; None for "any") with its set of
    classes and its interval, the released cells' class sets, and the findings."""

    dims: tuple[str, ...]
    levels: dict[str, list[Any]]
    groups: dict[tuple[Any, ...], frozenset[int]] = field(default_factory=dict)
    intervals: dict[frozenset[int], tuple[float, float]] = field(default_factory=dict)
    released: set[frozenset[int]] = field(default_factory=set)
    counts: dict[frozenset[int], tuple[float, float]] = field(default_factory=dict)
    attributes: set[tuple[frozenset[int], str, Any]] = field(default_factory=set)
    solutions: int = 0


def _label(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def intruder(
    frame: pd.DataFrame, tables: list[Table], threshold: int, *, numeric: tuple[str, ...] = ("age",)
) -> Intruder:
    """Enumerate every solution of the released counts of ``tables`` over ``frame``'s domain."""
    variables = list(dict.fromkeys(v for t in tables for v in (*t.rows, *t.columns)))
    conditions = list(dict.fromkeys(t.where.sql for t in tables if t.where is not None))
    tests = {t.where.sql: t.where.test for t in tables if t.where is not None}
    raw = [c for c in frame.columns]
    domain: dict[str, list[Any]] = {}
    for c in raw:
        if c in numeric:
            lo, hi = int(frame[c].min()), int(frame[c].max())
            domain[c] = list(range(lo, hi + 1))
        else:
            domain[c] = sorted(frame[c].unique().tolist())
    points = [dict(zip(raw, combo, strict=True)) for combo in itertools.product(*(domain[c] for c in raw))]

    def signature(p: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(_label(p[v]) for v in variables) + tuple(bool(tests[c](p)) for c in conditions)

    classes: dict[tuple[Any, ...], int] = {}
    for p in points:
        classes.setdefault(signature(p), len(classes))
    sigs = list(classes)
    k = len(sigs)
    dims = (*variables, *conditions)
    levels = {v: sorted({s[i] for s in sigs}) for i, v in enumerate(variables)}
    for c in conditions:
        levels[c] = [False, True]
    result = Intruder(dims, levels)
    # The released cells as a crosstab shows them, and the rows and columns it does not show (nobody there).
    records = [signature(dict(r)) for r in frame.to_dict("records")]
    cells: list[tuple[frozenset[int], int]] = []
    zeros: set[int] = set()
    for t in tables:
        ci = conditions.index(t.where.sql) + len(variables) if t.where is not None else None

        def inside(s: tuple[Any, ...], ci: int | None = ci) -> bool:
            return ci is None or bool(s[ci])

        pop = [s for s in records if inside(s)]
        pos = {v: variables.index(v) for v in variables}
        row_keys = sorted({tuple(s[pos[v]] for v in t.rows) for s in pop})
        col_keys = sorted({tuple(s[pos[v]] for v in t.columns) for s in pop})
        sets = [(*t.rows, *t.columns)]
        if t.margins:
            sets += [t.rows, t.columns, ()]
        for gs in dict.fromkeys(sets):
            rk = row_keys if any(v in gs for v in t.rows) else [()]
            ck = col_keys if any(v in gs for v in t.columns) else [()]
            if gs and (not rk or not ck):
                continue
            for r, c in itertools.product(rk, ck):
                labels = dict(zip([v for v in t.rows if v in gs] + [v for v in t.columns if v in gs], r + c,
                                  strict=True))  # fmt: skip
                members = frozenset(
                    i
                    for i, s in enumerate(sigs)
                    if inside(s) and all(s[pos[v]] == x for v, x in labels.items())
                )
                value = sum(1 for s in pop if all(s[pos[v]] == x for v, x in labels.items()))
                cells.append((members, value))
        if t.rows or t.columns:
            for i, s in enumerate(sigs):
                if not inside(s):
                    continue
                if (t.rows and tuple(s[pos[v]] for v in t.rows) not in row_keys) or (
                    t.columns and tuple(s[pos[v]] for v in t.columns) not in col_keys
                ):
                    zeros.add(i)
    result.released = {m for m, _ in cells}
    covered = set().union(*(m for m, _ in cells)) if cells else set()
    free = [i for i in range(k) if i not in covered and i not in zeros]
    order = [i for i in range(k) if i in covered and i not in zeros]
    caps = {i: min(v for m, v in cells if i in m) for i in order}
    rows = [(sorted(m), v) for m, v in cells]
    solutions: list[np.ndarray] = []
    x = np.zeros(k, dtype=int)
    finish = [max((order.index(j) for j in m if j in order), default=-1) for m, _ in rows]

    def go(depth: int) -> None:
        for (m, v), end in zip(rows, finish, strict=True):
            total = sum(x[j] for j in m)
            if total > v or (end < depth and total != v):
                return
        if depth == len(order):
            solutions.append(x.copy())
            return
        j = order[depth]
        for value in range(caps[j] + 1):
            x[j] = value
            go(depth + 1)
        x[j] = 0

    go(0)
    result.solutions = len(solutions)
    sol = np.array(solutions) if solutions else np.zeros((0, k), dtype=int)
    for combo in itertools.product(*([None, *levels[d]] for d in dims)):
        members = frozenset(
            i for i, s in enumerate(sigs) if all(c is None or s[j] == c for j, c in enumerate(combo))
        )
        result.groups[combo] = members
        if members in result.intervals:
            continue
        if not members or sol.shape[0] == 0:
            result.intervals[members] = (0.0, 0.0) if not members else (np.nan, np.nan)
            continue
        totals = sol[:, sorted(members)].sum(axis=1)
        hi = np.inf if any(i in free for i in members) else float(totals.max())
        result.intervals[members] = (float(totals.min()), hi)
    for members, (lo, hi) in result.intervals.items():
        if members and members not in result.released and lo >= 1 and hi <= threshold - 1:
            result.counts[members] = (lo, hi)
    # Attribute findings: a group known to hold someone, every other value of one dimension empty.
    for combo, members in result.groups.items():
        lo, _ = result.intervals[members]
        if not members or not lo >= 1:
            continue
        for d, dim in enumerate(dims):
            if combo[d] is not None:
                continue
            parts = {}
            for level in levels[dim]:
                sub = list(combo)
                sub[d] = level
                parts[level] = result.groups[tuple(sub)]
            nonzero = [lv for lv, m in parts.items() if m and result.intervals[m][1] > 0]
            empty = [m for lv, m in parts.items() if m and result.intervals[m][1] == 0]
            if len(nonzero) == 1 and empty and any(m not in result.released for m in empty):
                result.attributes.add((members, dim, nonzero[0]))
    return result


def members_of(result: Intruder, labels: dict[str, Any]) -> frozenset[int]:
    """The class set of the group with these labels (privrisk's finding labels: a variable's level as text, a
    condition's truth value)."""
    combo = tuple(labels.get(d) if d in labels else None for d in result.dims)
    return result.groups[combo]
