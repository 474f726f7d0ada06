"""The terminal tables of ``privrisk presence``: classes, measures and the summary at a node."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Column, Table

if TYPE_CHECKING:
    from privrisk.presence.measures import PresenceResult

SHOWN = 10  # classes shown in the terminal


def class_table(r: PresenceResult, title: str) -> Table:
    table = Table(title=title, caption="one row per class: its quasi-identifier values, how many research records "
                  "(T) and population records (P) it holds, and δ = T/P.")  # fmt: skip
    for c in r.prepared.qi:
        table.add_column(c)
    for c in ("in T", "in P", "δ"):
        table.add_column(c, justify="right")
    n_sup = int(r.classes["suppressed"].sum())
    for row in r.classes.head(SHOWN).to_dict(orient="records"):
        table.add_row(*(str(row[c]) for c in r.prepared.qi), f"{row['dataset_count']:,}",
                      f"{row['population_count']:,}", f"{row['delta']:.3f}")  # fmt: skip
    if n_sup:
        table.caption = (
            f"{table.caption} {n_sup:,} classes ({r.summary['suppressed']:,} records) suppressed, not shown."
        )
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
