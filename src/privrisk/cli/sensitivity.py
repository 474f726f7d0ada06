"""``privrisk sensitivity``: global and local sensitivity of a query on a data file, and the risk it carries."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import MISSING_HELP, emit_json, err, out
from privrisk.errors import ThresholdExceeded

UNIVERSE_MIN_HELP = (
    "Lower the universe's minimum to this value (0 where 0 is a valid answer, as Allmann et al., §4.2)."
)


@app.command("sensitivity")
def sensitivity_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option(..., "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    universe: str | None = typer.Option(
        None, "--universe", help="Bounds LO,HI of the values a record may take."
    ),
    universe_file: Path | None = typer.Option(
        None, "--universe-file", help="A file whose column is the universe."
    ),
    universe_column: str | None = typer.Option(None, "--universe-column", help="That file's column."),
    universe_min: float | None = typer.Option(None, "--universe-min", help=UNIVERSE_MIN_HELP),
    neighbours: str = typer.Option(
        "unbounded", "--neighbours", help="unbounded (add/remove) or bounded (replace)."
    ),
    method: str = typer.Option(
        "exact", "--method", help="exact, or paper (the four-case rule of Allmann et al., §3.2)."
    ),
    epsilon: str | None = typer.Option(
        None, "--epsilon", "-e", help="Also give the risks at this ε (e.g. ln3)."
    ),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    max_risk: float | None = typer.Option(
        None, "--max-risk", help="With --epsilon: exit with code 1 if the two-worlds risk exceeds this."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Global and local sensitivity of a query on one column, and with --epsilon the risk it carries.

    Example: privrisk sensitivity examples/distance_work.csv --column distance --query mean --epsilon 1
    """
    from privrisk.io.data import read_column
    from privrisk.sensitivity import SensitivitySettings, run_sensitivity

    settings = SensitivitySettings(
        query=query, universe=universe, universe_file=universe_file, universe_column=universe_column,
        universe_min=universe_min, neighbours=neighbours, method=method, epsilon=epsilon, max_risk=max_risk,
        missing=missing,
    )  # fmt: skip
    col = read_column(file, column, missing=missing)
    doc = run_sensitivity(col.values, settings, column=column, source=str(file), data=col.as_dict())
    n, nb, rule, eps = doc["n"], doc["neighbours"], doc["method"], settings.epsilon
    gs, ls, ratio, how = (
        doc["global_sensitivity"],
        doc["local_sensitivity"],
        doc["ratio"],
        doc["universe"]["description"],
    )
    if as_json:
        emit_json(doc)
    else:
        err.print(col.summary())
        err.print(f"Universe: {how}.")
        table = Table(
            title=f"{query} of {column!r} (n = {n:,}, {nb} neighbours)",
            caption="measure: Δf over the universe, Δv on the data, their ratio"
            + (" and the risks an attacker reaches at that ratio (probabilities)" if eps is not None else "")
            + "; value: its size.",
        )
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_row("global sensitivity Δf", f"{gs:.6g}")
        table.add_row(f"local sensitivity Δv ({rule})", f"{ls:.6g}")
        table.add_row("ratio Δv/Δf", f"{ratio:.6g}")
        if eps is not None:
            table.add_row(f"many-worlds ρ_mw (n = {n:,}, ε = {eps:.4g})", f"{doc['many_worlds']:.6g}")
            table.add_row("two-worlds ρ_tw", f"{doc['two_worlds']:.6g}")
            table.add_row("global risk ρ_gl", f"{doc['global_risk']:.6g}")
        out.print(table)
    if settings.max_risk is not None and doc["two_worlds"] > settings.max_risk:
        raise ThresholdExceeded(
            f"two-worlds risk {doc['two_worlds']:.4f} exceeds --max-risk {max_risk:g}", param="max_risk"
        )
