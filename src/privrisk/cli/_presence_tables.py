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
    rows = [
        ("δ_max (largest T/P of a class)", f"{s['delta_max']:.4g}"),
        ("δ_min (all population classes)", f"{s['delta_min']:.4g}"),
        ("δ_min over classes in T", f"{s['delta_min_present']:.4g}"),
        ("k-anonymity", f"{s['k_anonymity']:,}"),
        ("k-map", f"{s['k_map']:,}"),
        ("classes in T / in P", f"{s['classes']:,} / {s['population_classes']:,}"),
        ("unique records", f"{s['unique_records']:,}"),
        ("records in T / P", f"{s['n_dataset']:,} / {s['n_population']:,}"),
    ]
    if s["records_at_risk"] is not None:
        rows.append(("records at risk (δ > --delta-max)", f"{s['records_at_risk']:,}"))
    if s["suppressed"]:
        rows.append(("suppressed records", f"{s['suppressed']:,}"))
    rows.append(("information loss (precision)", f"{s['loss_precision']:.3f}"))
    return measures_table(rows, f"{title} {', '.join(f'{k}={v}' for k, v in s['levels'].items())}")
