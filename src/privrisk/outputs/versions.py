"""Earlier outputs of another version of the data: the versions as one population whose newcomers and leavers
are groups like any other.

January's table is in the ledger; February's request is on data with a newcomer. The two tables are sums over two
populations, and their difference is about the people who joined or left. Given the data each earlier output
was computed on (its fingerprint in the ledger, :func:`~privrisk.outputs.ledger.data_version`, says which), the
versions become one population: a record of each person, with the variable :data:`VERSION` telling which
versions hold them ("earlier 1 + today", "today", "earlier 1"). Each earlier output is restricted to the
records of its version and each output of the request to today's, by adding a condition on that variable to its
``where``; the differencing does the rest, and its intruder knows:

- which versions each person is in (as a neighbour knows who moved in), so the number of records of each
  pattern of versions is released to it (the output :data:`TOTALS`): with nobody leaving, February's table
  minus January's is the newcomers' table;
- every released number of every version.

Records are matched across versions by the values of the columns the outputs read (the k-th record with given
values in one version is the k-th with those values in another): a record whose read values changed is a leaver
and a newcomer, as the released numbers see it.

Example:
    >>> jan = pd.DataFrame({"region": ["N", "N", "S"]})
    >>> feb = pd.DataFrame({"region": ["N", "N", "S", "S"]})
    >>> both = one_population(feb, [jan], ["region"])
    >>> sorted(both.frame[VERSION].value_counts().items())
    [('earlier 1 + today', 3), ('today', 1)]
    >>> both.restricted(None, 0), both.restricted("region = 'S'", 1)
    ("data_version IN ('today', 'earlier 1 + today')", "(region = 'S') AND data_version IN ('earlier 1 + today')")
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError
from privrisk.outputs.knowledge import derive
from privrisk.outputs.spec import MODELS, Outputs, OutputSpec

if TYPE_CHECKING:
    from privrisk.outputs.ledger import Released


__all__ = [
    "TOTALS",
    "VERSION",
    "OnePopulation",
    "VersionedRequest",
    "one_population",
    "placed_versions",
    "version_name",
    "versioned_request",
]

#: The variable that says which versions of the data hold a record.
VERSION = "data_version"
#: The name of the output of records per pattern of versions, which the intruder is assumed to know.
TOTALS = "records per data version"


def version_name(index: int) -> str:
    """The name of a version in the labels of :data:`VERSION`: ``today`` (0) or ``earlier k``.

    Example:
        >>> version_name(0), version_name(2)
        ('today', 'earlier 2')
    """
    return "today" if index == 0 else f"earlier {index}"


@dataclass(frozen=True)
class OnePopulation:
    """Every version of the data as one population.

    Attributes:
        frame: one row per record of any version, with the columns matched on, the others of the first version
            that holds it, and :attr:`column` (the label of its pattern of versions).
        column: the name of the version variable (:data:`VERSION`, or with ``_`` added if the data has one).
        patterns: the labels of the patterns that occur, each with the versions (0 = today) it holds.
    """

    frame: pd.DataFrame
    column: str
    patterns: tuple[tuple[str, frozenset[int]], ...]

    def restricted(self, where: str | None, version: int) -> str:
        """An output's condition restricted to the records of one version."""
        labels = [label for label, held in self.patterns if version in held]
        quoted = ", ".join("'" + label.replace("'", "''") + "'" for label in labels) or "NULL"
        within = f"{self.column if self.column.isidentifier() else qi(self.column)} IN ({quoted})"
        return within if not where else f"({where}) AND {within}"


def one_population(
    today: pd.DataFrame, earlier: Sequence[pd.DataFrame], columns: Sequence[str]
) -> OnePopulation:
    """The versions of the data as one population, records matched on ``columns`` (see the module's text).

    Args:
        today: today's data (version 0).
        earlier: the earlier versions (1, 2, …), each with every column of ``columns``.
        columns: the columns the outputs read (their values identify a record across versions).

    Raises:
        PrivriskError: if an earlier version lacks one of ``columns`` (``earlier_data``).
    """
    columns = list(dict.fromkeys(columns))
    for k, frame in enumerate(earlier, 1):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise PrivriskError(
                f"earlier_data: the earlier version {k} has no column {missing[0]!r}, which the outputs read",
                param="earlier_data",
            )
    versions = [today, *earlier]
    # The columns nobody matches on come along from the first version holding the record (a derived variable's
    # sources: the matched derived values agree, so the carried sources give them again).
    carried = [c for c in today.columns if c not in columns and all(c in f.columns for f in earlier)]
    parts = []
    for k, frame in enumerate(versions):
        part = frame[columns + carried].reset_index(drop=True)
        parts.append(part.assign(__version=np.int64(k)))
    stacked = pd.concat(parts, ignore_index=True)
    if columns:
        keys = stacked[columns]
        # The k-th record with given values in one version is the k-th with those values in another.
        group = keys.groupby(columns, dropna=False, sort=False).ngroup().to_numpy()
    else:
        group = np.zeros(len(stacked), dtype=np.int64)
    rank = pd.Series(group).groupby([group, stacked["__version"].to_numpy()]).cumcount().to_numpy()
    person = (
        pd.MultiIndex.from_arrays([group, rank]).factorize()[0] if len(stacked) else np.zeros(0, np.int64)
    )
    bits = np.zeros(int(person.max()) + 1 if len(person) else 0, dtype=np.int64)
    np.bitwise_or.at(bits, person, np.left_shift(1, stacked["__version"].to_numpy()))
    first = np.unique(person, return_index=True)[1]
    frame = stacked.take(first).drop(columns="__version").reset_index(drop=True)
    masks = bits[person[first]]
    names = {m: _pattern(int(m), len(versions)) for m in np.unique(masks)}
    column = VERSION
    while column in frame.columns:
        column += "_"
    frame[column] = [names[m] for m in masks.tolist()]
    patterns = tuple(
        (label, frozenset(k for k in range(len(versions)) if int(m) >> k & 1))
        for m, label in sorted(names.items())
    )
    return OnePopulation(frame=frame, column=column, patterns=patterns)


def _pattern(mask: int, count: int) -> str:
    """The label of a pattern of versions: the earlier ones in order, then today."""
    held = [k for k in range(1, count) if mask >> k & 1] + ([0] if mask & 1 else [])
    return " + ".join(version_name(k) for k in held)


def placed_versions(
    frame: pd.DataFrame,
    specs: Sequence[OutputSpec],
    earlier: Sequence[Released],
    earlier_data: Sequence[Any],
) -> tuple[list[int], list[tuple[str, pd.DataFrame]]]:
    """The version of the data each earlier output was computed on (0: today's, or k: the k-th earlier version
    that some output was computed on), by its fingerprint; and those versions (named, derived), in order. An
    output that no version matches is placed on today's data (the caller refuses it if its numbers moved)."""
    from privrisk.io.data import read_table
    from privrisk.outputs.ledger import data_version, version_change

    knowledge = getattr(specs, "knowledge", None)
    today = derive(frame, knowledge)
    frames: dict[int, pd.DataFrame] = {}

    def version(k: int) -> pd.DataFrame:
        if k not in frames:
            item = earlier_data[k]
            frames[k] = derive(item if isinstance(item, pd.DataFrame) else read_table(item), knowledge)
        return frames[k]

    placed = []
    for r in earlier:
        if (
            r.spec.kind in MODELS
            or r.data is None
            or version_change(r.data, data_version(today, r.spec)) is None
        ):
            placed.append(0)
            continue
        match = (
            k
            for k in range(len(earlier_data))
            if version_change(r.data, data_version(version(k), r.spec)) is None
        )
        placed.append(next(match, -1) + 1)
    used = sorted({k for k in placed if k})
    renumber = {k: i + 1 for i, k in enumerate(used)}
    return [renumber.get(k, 0) for k in placed], [(_named(earlier_data[k - 1]), frames[k - 1]) for k in used]


@dataclass(frozen=True)
class VersionedRequest:
    """A request against earlier outputs of other versions of the data, as one population: check ``specs``
    against ``earlier`` on ``frame`` (:func:`~privrisk.outputs.run.check_frame`), then :meth:`finish`."""

    frame: pd.DataFrame
    specs: Outputs
    earlier: list[Any]
    said: dict[str, Any]
    records: int

    def finish(self, result: Any, specs: Sequence[OutputSpec], versions: dict[str, Any]) -> Any:
        """The result in the request's own terms: its specs and data versions, today's records, what was
        assumed about the versions first."""
        summary = {**result.summary, "records": self.records, "records_all_versions": len(self.frame)}
        assumed = [self.said, *result.assumed]
        return dataclasses.replace(
            result, specs=tuple(specs), versions=versions, summary=summary, assumed=assumed
        )


def versioned_request(
    frame: pd.DataFrame,
    specs: Sequence[OutputSpec],
    earlier: Sequence[Released],
    placed: Sequence[int],
    versions: Sequence[tuple[str, pd.DataFrame]],
    data: Any,
) -> VersionedRequest:
    """The request and the earlier outputs over the versions as one population: each output restricted to its
    version's records (``placed``: each earlier output's version, as :func:`placed_versions` gives them), and the
    records per pattern of versions released to the intruder (:data:`TOTALS`). ``data`` is today's data (for its
    name)."""
    from privrisk.outputs.ledger import _where_columns

    knowledge = getattr(specs, "knowledge", None)
    today = derive(frame, knowledge)
    if any(s.ptable is not None for s in specs):
        raise PrivriskError(
            "earlier_data: outputs with cell-key perturbation cannot yet be checked against other versions of the data",
            param="earlier_data",
        )
    everything = [*specs, *(r.spec for r in earlier if r.spec.kind not in MODELS)]
    columns = list(today.columns)
    read = [c for s in everything for c in (*s.columns_used, *_where_columns(s.where, columns))]
    read = [c for c in dict.fromkeys(read) if c in columns]
    both = one_population(today, [f for _, f in versions], read)

    def restrict(spec: OutputSpec, k: int) -> OutputSpec:
        return dataclasses.replace(spec, where=both.restricted(spec.where, k))

    mine = Outputs(tuple(restrict(s, 0) for s in specs), knowledge, getattr(specs, "record_key", None))
    then: list[Any] = [
        r if r.spec.kind in MODELS else dataclasses.replace(r, spec=restrict(r.spec, k))
        for r, k in zip(earlier, placed, strict=True)
    ]
    totals = OutputSpec(name=TOTALS, kind="count", rows=(both.column,))
    named = [_named(data), *(n for n, _ in versions)]
    names = "; ".join(f"{version_name(k)}: {n}" for k, n in enumerate(named))
    said = {"kind": "versions", "variables": [both.column], "sentence": (
        f"Earlier outputs were computed on other versions of the data ({names}). The versions are checked as one "
        f"population of {len(both.frame):,} records matched on the columns the outputs read; {both.column} says "
        "which versions hold each record, and the intruder knows it (how many records each pattern of versions "
        "holds, as a neighbour knows who moved in or out).")}  # fmt: skip
    return VersionedRequest(both.frame, mine, [*then, totals], said, len(today))


def _named(data: Any) -> str:
    """A version of the data in words: its file's name, or the number of records of a DataFrame."""
    if isinstance(data, pd.DataFrame):
        return f"a DataFrame of {len(data):,} records"
    return os.path.basename(str(data))
