"""``privrisk sensitivity``: global and local sensitivity of a query on a data file, and the risk it carries."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import err, out, print_run
from privrisk.cli._options import JSON_OPTION, MISSING_OPTION, check_out_folder, out_option

if TYPE_CHECKING:
    from privrisk.sensitivity.run import SensitivityRun

UNIVERSE_MIN_HELP = (
    "Lower the universe's minimum to this value (0 where 0 is a valid answer, as Allmann et al., §4.2)."
)


@app.command("sensitivity")
def sensitivity_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option(..., "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    universe: str | None = typer.Option(None, help="Bounds LO,HI of the values a record may take."),
    universe_file: Path | None = typer.Option(None, help="A file whose column is the universe."),
    universe_column: str | None = typer.Option(None, help="That file's column."),
    universe_min: float | None = typer.Option(None, help=UNIVERSE_MIN_HELP),
    neighbours: str = typer.Option("unbounded", help="unbounded (add/remove) or bounded (replace)."),
    method: str = typer.Option("exact", help="exact, or paper (the four-case rule of Allmann et al., §3.2)."),
    epsilon: str | None = typer.Option(
        None, "--epsilon", "-e", help="Also give the risks at this ε (e.g. ln3)."
    ),
    missing: str | None = MISSING_OPTION,
    max_risk: float | None = typer.Option(
        None, help="With --epsilon: exit with code 1 if the two-worlds risk exceeds this."
    ),
    out_dir: Path | None = out_option(
        "Also write DIR/sensitivity.json (the --json document) and DIR/manifest.json."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """Global and local sensitivity of a query on one column, and with --epsilon the risk it carries.

    Example: privrisk sensitivity examples/distance_work.csv --column distance --query mean --epsilon 1
    """
    from privrisk.sensitivity.run import OUT_FILES, SensitivitySettings, run_sensitivity

    settings = SensitivitySettings(
        data=file, column=column, query=query, universe=universe, universe_file=universe_file,
        universe_column=universe_column, universe_min=universe_min, neighbours=neighbours, method=method,
        epsilon=epsilon, max_risk=max_risk, missing=missing,
    )  # fmt: skip
    check_out_folder(out_dir, [file, universe_file], OUT_FILES)
    run = run_sensitivity(settings)
    if out_dir is not None:
        run.write(out_dir)
        err.print(f"Wrote {out_dir}/sensitivity.json and manifest.json.")
    print_run(run, as_json, _print_human)
    exceeded = run.exceeded(name=lambda param: "--" + param.replace("_", "-"))
    if exceeded is not None:
        raise exceeded


def _print_human(run: SensitivityRun) -> None:
    s, n, eps = run.settings, run.n, run.settings.epsilon
    err.print(run.data.summary())
    err.print(f"Universe: {run.universe_description}.")
    table = Table(
        title=f"{s.query} of {run.column!r} (n = {n:,}, {s.neighbours} neighbours)",
        caption="measure: Δf over the universe, Δv on the data, their ratio"
        + (" and the risks an attacker reaches at that ratio (probabilities)" if eps is not None else "")
        + "; value: its size.",
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("global sensitivity Δf", f"{run.global_sensitivity:.6g}")
    table.add_row(f"local sensitivity Δv ({s.method})", f"{run.local_sensitivity:.6g}")
    table.add_row("ratio Δv/Δf", f"{run.ratio:.6g}")
    if eps is not None:
        table.add_row(f"many-worlds ρ_mw (n = {n:,}, ε = {eps:.4g})", f"{run.many_worlds:.6g}")
        table.add_row("two-worlds ρ_tw", f"{run.two_worlds:.6g}")
        table.add_row("global risk ρ_gl", f"{run.global_risk:.6g}")
    out.print(table)
