"""``privrisk derived``: the scale and ε an intruder effectively faces when deriving one query from another.

The numbers and sentences come from :mod:`privrisk.audit.derived` (Sarathy and Muralidhar 2009, Table 4); this
module parses the options, calls the library and prints.
"""

from __future__ import annotations

import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import MISSING_HELP, emit_json, out


@app.command("derived")
def derived_command(
    values: str = typer.Option(..., "--values", help="A data file, a list 1,2,3 or a range 1..10."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of each query's data-dependent noise."),
    target: str = typer.Option("sum", "--target", help="The query the intruder wants: count, sum or mean."),
    via: str = typer.Option(
        "mean", "--via", help="The released query it is derived from: count, sum or mean."
    ),
    column: str | None = typer.Option(None, "--column", "-c", help="The column, when --values is a file."),
    alpha: float = typer.Option(1e-4, "--alpha", help="Noise ranges are the (α, 1 − α) quantiles."),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The scale and ε an intruder effectively faces for one query when deriving it from another (Sarathy and Muralidhar 2009, Table 4).

    Each query gets Laplace noise of its own data-dependent scale Δf_n(X)/ε. Since sum = n·mean, the released
    mean times n estimates the sum with scale n·b_mean, often far below b_sum: the sum's effective ε is
    Δf_sum/(n·b_mean). Linear relations among count, sum and mean only.

    Example: privrisk derived --values 101..110 --epsilon 2 --target sum --via mean
    """
    import numpy as np

    from privrisk.audit.derived import DerivedSettings, run_derived

    settings = DerivedSettings(
        values=values, epsilon=epsilon, target=target, via=via, column=column, alpha=alpha, missing=missing
    )
    d = run_derived(settings)
    if as_json:
        emit_json(d.to_dict())
        return
    table = Table(
        title=f"{d.target} via {d.via} (n = {d.n:,}; Table 4 of Sarathy and Muralidhar 2009)",
        caption=f"quantity: f_n(X) the answer, f_n-1(X*) without the most influential record, Δf_n(X) the "
        f"data-dependent sensitivity, b = Δf_n(X)/ε the Laplace scale, 2b² its variance and the half-width its "
        f"(α, 1 − α) range; the effective rows: the {d.target} estimated from the released {d.via}.",
    )
    frame = d.table()
    table.add_column("quantity")
    for c in frame.columns:
        table.add_column(c, justify="right")
    for idx, row in frame.iterrows():
        table.add_row(str(idx), *("" if not np.isfinite(v) else f"{v:,.6g}" for v in row))
    out.print(table)
    for line in d.sentences():
        out.print(line)
