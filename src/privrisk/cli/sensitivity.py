"""``privrisk sensitivity``: global and local sensitivity of a query on a data file, and the risk it carries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from privrisk._validation import QUERIES, check_choice, check_probability
from privrisk.cli._app import app
from privrisk.cli._common import MISSING_HELP, emit_json, err, out, parse_epsilon
from privrisk.errors import PrivriskError, ThresholdExceeded

UNIVERSE_MIN_HELP = (
    "Lower the universe's minimum to this value (0 where 0 is a valid answer, as Allmann et al., §4.2)."
)


def __getattr__(name: str) -> Any:
    """``choose_universe`` lives in :mod:`privrisk.sensitivity` (``cli.attack`` still imports it from here)."""
    if name == "choose_universe":
        from privrisk.sensitivity import choose_universe

        return choose_universe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    import numpy as np

    from privrisk import risk as R
    from privrisk.io.data import read_column
    from privrisk.sensitivity import (
        METHODS,
        NEIGHBOURS,
        choose_universe,
        global_sensitivity,
        local_sensitivity,
        sensitivity_ratio,
    )

    if max_risk is not None and epsilon is None:
        raise PrivriskError("--max-risk: needs --epsilon")
    if max_risk is not None:
        check_probability(max_risk, name="--max-risk")
    eps = parse_epsilon(epsilon, name="--epsilon") if epsilon is not None else None
    col = read_column(file, column, missing=missing)
    u, how = choose_universe(col.values, universe, universe_file, universe_column, universe_min, missing)
    u.check_sample(col.values, name=f"{file}: column {column!r}")
    n = int(col.values.size)
    nb = check_choice(neighbours, NEIGHBOURS, name="neighbours")
    rule = check_choice(method, METHODS, name="method")
    gs = global_sensitivity(query, u, neighbours=nb, n=n if nb == "bounded" else None)
    ls = float(local_sensitivity(query, col.values, u, neighbours=nb, method=rule))
    if not (np.isfinite(gs) and np.isfinite(ls)):
        raise PrivriskError(
            f"--query: the sensitivity of the {query} over {u.describe()} overflows a float; rescale the values"
        )
    ratio = float(sensitivity_ratio(ls, gs))
    doc: dict[str, Any] = {
        "query": query,
        "column": column,
        "n": n,
        "universe": {
            "kind": "interval" if u.is_interval else "values",
            "lo": u.lo,
            "hi": u.hi,
            "description": how,
        },
        "neighbours": nb,
        "method": rule,
        "global_sensitivity": gs,
        "local_sensitivity": ls,
        "ratio": ratio,
        "data": col.as_dict(),
    }
    if eps is not None:
        doc.update(
            epsilon=eps,
            many_worlds=R.many_worlds(eps, n, ratio),
            two_worlds=R.two_worlds(eps, ratio),
            global_risk=R.global_risk(eps),
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
    if max_risk is not None and doc["two_worlds"] > max_risk:
        raise ThresholdExceeded(
            f"two-worlds risk {doc['two_worlds']:.4f} exceeds --max-risk {max_risk:g}", param="max_risk"
        )
