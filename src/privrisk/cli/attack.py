"""``privrisk attack``: the Lee–Clifton attacker run against a column, beside the exact risk and the bound.

The numbers, the sentence, the JSON document and the output folder come from :mod:`privrisk.attack.run`; this module
maps the options onto :class:`~privrisk.attack.run.AttackSettings`, calls :func:`~privrisk.attack.run.run_attack` and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import err, out, print_run
from privrisk.cli._options import JSON_OPTION, MISSING_OPTION, check_out_folder, out_option
from privrisk.cli.sensitivity import UNIVERSE_MIN_HELP

if TYPE_CHECKING:
    from privrisk.attack.run import AttackRun


@app.command("attack")
def attack_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option(..., "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of the release (e.g. 1, ln3)."),
    universe: str | None = typer.Option(
        None,
        "--universe",
        help="Bounds LO,HI of the values a record may take (default: the column's values).",
    ),
    universe_file: Path | None = typer.Option(None, help="A file whose column is the universe."),
    universe_column: str | None = typer.Option(None, help="That file's column."),
    universe_min: float | None = typer.Option(None, help=UNIVERSE_MIN_HELP),
    missing: str | None = MISSING_OPTION,
    trials: int = typer.Option(100_000, help="Number of simulated attacks."),
    seed: int = typer.Option(1, help="Random seed; the same seed gives the same numbers."),
    worlds_kind: str = typer.Option(
        "many",
        "--worlds",
        help="many: pick the missing record among all n (Lee–Clifton); two: tell apart the two records "
        "whose absence changes the answer most.",
    ),
    target_risk: float | None = typer.Option(
        None, "--risk", help="Also give the largest ε whose exact risk stays at or below this probability."
    ),
    out_dir: Path | None = out_option(
        "Also write DIR/attack.json, DIR/risk_vs_epsilon.csv, a figure of the risks against ε and DIR/manifest.json."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """Simulate the Lee–Clifton attacker: which record is missing from the data behind one noisy answer?

    The attacker knows every record but not which one was left out of the release; the answer carries Laplace
    noise calibrated to the query's global sensitivity. Prints the simulated success rate with its 95 %
    Clopper–Pearson interval, the exact average success it estimates, the exact worst-case risk (the most
    telling answer) and Lee and Clifton's bound ρ_mw with Δv = the range of the answers over the worlds.

    With --out DIR it also draws the bound, the exact risk and the average success against ε.

    Example: privrisk attack examples/distance_work.csv --column distance --query mean --epsilon 1
    """
    from privrisk.attack.run import OUT_FILES, AttackSettings, run_attack

    check_out_folder(out_dir, [file, universe_file], OUT_FILES)
    settings = AttackSettings(data=file, column=column, query=query, epsilon=epsilon, universe=universe,
                              universe_file=universe_file, universe_column=universe_column,
                              universe_min=universe_min, missing=missing, trials=trials, seed=seed,
                              worlds=worlds_kind, target_risk=target_risk)  # fmt: skip
    run = run_attack(settings)
    if out_dir is not None:
        run.write(out_dir, source=file)
        err.print(f"Wrote {out_dir}/attack.json, risk_vs_epsilon.csv, figures/ and manifest.json.")
    print_run(run, as_json, _print_human)


def _print_human(run: AttackRun) -> None:
    from privrisk.attack.run import share_text

    res, s = run.result, run.settings
    err.print(run.data.summary())
    err.print(f"Universe: {run.universe_description}; global sensitivity Δf = {run.sensitivity:.6g}.")
    who = "all n" if res.worlds == "many" else "the two most different"
    table = Table(
        title=f"Attack on the {res.query} of {run.column!r}: {who} worlds ({res.n_worlds:,}), ε = {res.epsilon:.4g}",
        caption="measure: how often the attacker finds the missing record, from guessing alone to Lee and "
        "Clifton's bound; value: a probability (the simulated success with its 95 % interval).",
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("guessing alone (1/n)", share_text(run.guess))
    table.add_row(
        f"simulated success ({res.trials:,} trials, seed {res.seed})",
        f"{share_text(res.simulated_success)} [{share_text(res.ci_low)}, {share_text(res.ci_high)}]",
    )
    table.add_row("expected success (exact)", share_text(res.expected_success))
    table.add_row("exact risk (most telling answer)", share_text(res.exact_risk))
    table.add_row(
        f"Lee–Clifton bound ρ_mw (Δv/Δf = {run.world_range / run.sensitivity:.4g})", share_text(res.bound)
    )
    if s.target_risk is not None:
        table.add_row(f"largest ε with exact risk ≤ {s.target_risk:g}", f"{run.tight_epsilon:.6g}")
        table.add_row(f"Lee–Clifton ε for risk {s.target_risk:g}", f"{run.lee_clifton_epsilon:.6g}")
    out.print(table)
    out.print(run.sentence())
