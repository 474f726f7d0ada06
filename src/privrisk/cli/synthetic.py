"""``privrisk synthetic``: the disclosure risk of a synthetic file, measured by attacks and held against the
generator's claim.

The numbers, sentences, JSON document and output folder come from :mod:`privrisk.synthetic`; this module parses the
options, builds :class:`~privrisk.synthetic.SyntheticSettings`, calls :func:`~privrisk.synthetic.run_synthetic`
and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import err, out, print_run
from privrisk.cli._options import JSON_OPTION, check_out_folder, out_option

if TYPE_CHECKING:
    from privrisk.synthetic.run import SyntheticRun

# The library's defaults that --help shows (tests/cli/test_synthetic.py checks each equals the library's).
DEFAULT_QUERIES = 2000  # privrisk.synthetic.run
DEFAULT_QUERY_COLUMNS = 3  # privrisk.synthetic.singling_out
DEFAULT_MEMBERSHIP_TARGETS = 1000  # privrisk.synthetic.run
THREAT_MODELS = ("quasi-identifiers", "all-but-secret")  # privrisk.synthetic.threat


@app.command("synthetic")
def synthetic_command(
    original: Path = typer.Argument(..., help="The training records the generator saw (CSV, Parquet, Stata, SPSS)."),
    synthetic: Path = typer.Argument(..., help="The synthetic file, with the same columns."),
    control: Path | None = typer.Option(
        None, help="Real records of the same population the generator never saw (strongly advised)."
    ),
    aux: str | None = typer.Option(
        None, help="The columns the attacker holds, e.g. age,sex,region; a,b|c,d sets linkability's two files."
    ),
    secret: str | None = typer.Option(
        None, help="The columns inferred (default: every column the attacker does not hold)."
    ),
    threat_model: str = typer.Option(
        THREAT_MODELS[0], help=f"Who knows what without --aux: {' or '.join(THREAT_MODELS)}."
    ),
    queries: int = typer.Option(DEFAULT_QUERIES, help="Attacks of each kind (queries, targets)."),
    query_columns: int = typer.Option(
        DEFAULT_QUERY_COLUMNS, help="Columns per multivariate singling-out query."
    ),
    neighbours: int = typer.Option(1, help="Nearest synthetic records linkability considers."),
    membership_targets: int = typer.Option(
        DEFAULT_MEMBERSHIP_TARGETS, help="Members (and non-members) each membership attack scores."
    ),
    no_membership: bool = typer.Option(False, "--no-membership", help="Skip membership inference."),
    generator: str | None = typer.Option(
        None, help="Retrain this generator for the shadow-model attack: copy, marginals, rr:EPS, histogram:EPS."
    ),
    generator_guarantee: str | None = typer.Option(
        None, help="The generator's claimed guarantee, e.g. epsilon=1, epsilon=1,delta=1e-6, rho=0.5, mu=1."
    ),
    no_distances: bool = typer.Option(False, "--no-distances", help="Skip DCR and NNDR."),
    max_risk: float | None = typer.Option(
        None, help="Exit with code 1 when an attack's excess risk may exceed this (upper end of its interval)."
    ),
    confidence: float = typer.Option(0.95, help="Of every interval and bound."),
    seed: int | None = typer.Option(None, help="Seed of the attacks (drawn and reported when not given)."),
    out_dir: Path | None = out_option("Folder for the tables, the figure, report.html and manifest.json."),
    as_json: bool = JSON_OPTION,
) -> None:  # fmt: skip
    """The disclosure risk of a synthetic file: singling out, linkability, inference and membership inference.

    Each attack of the EU's anonymisation criteria runs on the training records and on a control set the
    generator never saw; the risk is what it achieves beyond the control, (attack − control)/(1 − control), with an
    exact interval. Membership inference gives TPR at low FPR and the ε it proves; --generator-guarantee draws the
    claimed bound beside it. Distances to the closest record are reported with the research's warning, never as
    the verdict.

    Example: privrisk synthetic train.csv synthetic.csv --control control.csv --generator-guarantee epsilon=1 --out synthetic/
    """
    from privrisk.synthetic.run import SyntheticSettings, run_synthetic

    inputs = [original, synthetic] + ([control] if control is not None else [])
    check_out_folder(out_dir, inputs, ("*.csv", "*.svg", "*.png", "*.html", "manifest.json"))
    settings = SyntheticSettings(
        original=original, synthetic=synthetic, control=control, aux=aux, secret=secret, threat_model=threat_model,
        queries=queries, query_columns=query_columns, neighbours=neighbours, membership=not no_membership,
        membership_targets=membership_targets, generator=generator, generator_guarantee=generator_guarantee,
        distances=not no_distances, max_risk=max_risk, confidence=confidence, seed=seed,
    )  # fmt: skip
    from privrisk.cli._progress import steps

    with steps(quiet=as_json) as step:
        advance = step("Attacking the synthetic file", total=100)
        done = [0]

        def progress(fraction: float, text: str) -> None:
            now = int(100 * fraction)
            if now > done[0]:
                advance(now - done[0])
                done[0] = now

        run = run_synthetic(settings, progress=progress)
    if out_dir is not None:
        run.write(out_dir)
    print_run(run, as_json, _print_human)
    exceeded = run.exceeded()
    if exceeded is not None:
        raise exceeded


def _print_human(run: SyntheticRun) -> None:
    v = run.verdict()
    out.print(f"[bold]{v.headline}[/]")
    out.print(v.sentence)
    table = Table(
        title="The attacks: excess risk over the control",
        caption="risk: (attack − control)/(1 − control), with its exact interval; attack, control, guessing: the "
        "success rates on the training records, on the control records, and of a random guess; attacks: the "
        "queries or targets (fewer than asked: the shortfall, counted).",
    )
    for name in ("attack", "risk", "interval", "attack rate", "control rate", "guessing", "attacks"):
        table.add_column(name, justify="left" if name == "attack" else "right")
    for o in run.attacks:
        r, (k, n) = o.risk, o.baseline
        table.add_row(
            o.title, f"{r.value:.2%}", f"{r.low:.2%} – {r.high:.2%}", f"{r.attack_rate:.2%}",
            "–" if r.control_rate is None else f"{r.control_rate:.2%}", f"{k / n:.2%}" if n else "–",
            f"{o.found:,}" + (f" of {o.requested:,}" if o.shortfall else ""),
        )  # fmt: skip
    out.print(table)
    if run.membership:
        mia = Table(title="Membership inference", caption="TPR at 1 % FPR with its exact interval; ε proved: the "
                    "lower bound on ε the attack proves (Clopper–Pearson, δ = 0).")  # fmt: skip
        for name in ("attack", "TPR at 1 % FPR", "advantage", "AUC", "ε proved"):
            mia.add_column(name, justify="left" if name == "attack" else "right")
        for a in run.membership:
            tpr, low, high = a.tpr_at(0.01)
            mia.add_row(a.name, f"{tpr:.1%} ({low:.1%} – {high:.1%})", f"{a.advantage:.1%}", f"{a.auc:.3f}",
                        f"{a.bound.epsilon:.2f}")  # fmt: skip
        out.print(mia)
    for sentence in run.findings()[1:]:
        out.print("• " + sentence)
    info = run.info
    err.print(
        f"attacker's columns: {', '.join(info['aux']) or 'every column but the secret'} ({info['threat_model']}); "
        f"seed {info['seed']}; {run.seconds:.1f} s"
    )
