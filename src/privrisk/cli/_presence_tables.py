"""The terminal tables of ``privrisk presence``: the library's rows (:mod:`privrisk.presence.report`) as Rich tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Column, Table

if TYPE_CHECKING:
    from privrisk.presence.measures import PresenceResult
    from privrisk.presence.search import SearchResult

__all__ = ["class_table", "levels_text", "measures_table", "minimal_table", "summary_table"]


# The library's rows are imported when a table is drawn: ``privrisk presence --help`` imports no pandas.


def levels_text(levels: dict[str, int]) -> str:
    """A node as ``zip=0,age=2`` (:func:`privrisk.presence.report.levels_text`)."""
    from privrisk.presence.report import levels_text as text

    return text(levels)


def class_table(r: PresenceResult, title: str) -> Table:
    from privrisk.presence.report import class_rows

    header, rows, note = class_rows(r)
    table = Table(title=title, caption="one row per class: its quasi-identifier values, how many research records "
                  f"(T) and population records (P) it holds, and δ = T/P.{' ' + note if note else ''}")  # fmt: skip
    for i, c in enumerate(header):
        table.add_column(c, justify="right" if i >= len(header) - 3 else "left")
    for row in rows:
        table.add_row(*row)
    return table


def minimal_table(found: SearchResult) -> Table:
    from privrisk.presence.report import minimal_rows

    header, rows = minimal_rows(found)
    table = Table(*(Column(c, justify="right") for c in header), title="Minimal generalisations",
                  caption="one row per minimal node: the level of each quasi-identifier, then what it reaches and "
                  "its information loss.")  # fmt: skip
    for row in rows:
        table.add_row(*row)
    return table


def measures_table(rows: list[tuple[str, str]], title: str) -> Table:
    table = Table("measure", Column("value", justify="right"), title=title,
                  caption="measure: what δ-presence, k-anonymity and k-map find; value: its size.")  # fmt: skip
    for a, b in rows:
        table.add_row(a, b)
    return table


def summary_table(s: dict, title: str) -> Table:
    """The summary's measures, titled with its levels (``Measured at zip=0, age=1``)."""
    from privrisk.presence.report import summary_rows

    rows = summary_rows(s, target="--delta-max")
    return measures_table(rows, f"{title} {', '.join(f'{k}={v}' for k, v in s['levels'].items())}")
