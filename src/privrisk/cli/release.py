"""``privrisk release``: noisy answers with a public risk statement, a budget and a ledger; ``privrisk ledger``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import KEY_ENV, emit_json, err, out
from privrisk.cli._options import JSON_OPTION, MISSING_OPTION, out_option
from privrisk.cli._release_output import ledger_option, print_ledger, print_receipts
from privrisk.cli._release_output import table as _table
from privrisk.errors import ThresholdExceeded

if TYPE_CHECKING:
    from privrisk.release.request import ReleasePreview
    from privrisk.release.result import Release
    from privrisk.release.run import ReleaseRun

BUDGET_EPSILON = typer.Option(None, "--budget-epsilon", help="Budget ε (pure; with --budget-delta: (ε, δ)).")
BUDGET_DELTA = typer.Option(None, "--budget-delta", help="δ of an (ε, δ) budget (with --budget-epsilon).")
BUDGET_RHO = typer.Option(None, "--budget-rho", help="Budget ρ of zCDP (Laplace answers count ε²/2).")
USELESS_HELP = "Release even an answer whose 95 % interval is wider than its whole range (it then says so)."
KEY_HELP = f"Secret key file of a keyed ledger (HMAC-SHA256; default: the environment variable {KEY_ENV})."
# The library's ledger key is ``key`` (read from ``key_file``); on the command line it is --ledger-key.


def _print_human(r: Release, file: Path) -> None:
    from privrisk.release.statement import NOISE_NOTE

    _table(f"Release of {file.name}: noisy answers (the true values are never shown)",
           ("answer", "noise", "ε or ρ", "universe", "scale", "noisy value", "95 % interval"), r.answer_rows(),
           ("ε or ρ", "scale", "noisy value"))  # fmt: skip
    out.print(NOISE_NOTE)
    out.print("[bold]Public statement[/bold] (depends only on ε and the published n; safe to publish):")
    for line in r.findings():
        out.print(f"  {line}")
    if r.ledger is not None:
        out.print(r.ledger_line())
        note = r.budget_note()
        if note:
            err.print(f"Note: {note}.")
    err.print(
        "The internal assessment (local sensitivity, record counts: NOT FOR PUBLICATION) is written only with "
        "--internal FILE."
    )


@app.command("release")
def release_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    spec: Path | None = typer.Option(
        None, help="A release.toml listing the queries (instead of the single-query options)."
    ),
    column: str | None = typer.Option(None, "--column", "-c", help="The numeric column to query."),
    query: str | None = typer.Option(None, "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str | None = typer.Option(
        None, "--epsilon", "-e", help="ε of this answer: a number or ln3, ln(3), log(3)."
    ),
    mechanism: str | None = typer.Option(None, help="laplace (ε, default) or gaussian (ρ of zCDP)."),
    rho: float | None = typer.Option(None, help="ρ of a Gaussian answer (zero-concentrated DP)."),
    universe: str | None = typer.Option(
        None,
        "--universe",
        help="Bounds LO,HI fixed before looking at the data; values outside are clamped to them.",
    ),
    missing: str | None = MISSING_OPTION,
    public_n: int | None = typer.Option(
        None,
        "--public-n",
        help="The published number of people in the data; the public statement gives ρ_mw for it.",
    ),
    budget: str | None = typer.Option(
        None, help="Refuse (exit 1, no noise drawn) if the total ε would exceed this."
    ),
    budget_epsilon: str | None = BUDGET_EPSILON,
    budget_delta: float | None = BUDGET_DELTA,
    budget_rho: float | None = BUDGET_RHO,
    ledger: Path | None = typer.Option(
        None, help="The ledger of everything released; later releases count what it records."
    ),
    out_dir: Path | None = out_option("Folder for the public release.json/.csv, figures and manifest.json."),
    internal: Path | None = typer.Option(
        None,
        "--internal",
        help="Write the internal assessment (NOT FOR PUBLICATION: local sensitivity, record counts) to this "
        "JSON file, readable by its owner only (mode 0600).",
    ),
    key_file: Path | None = typer.Option(None, "--ledger-key", help=KEY_HELP),
    as_json: bool = JSON_OPTION,
    allow_large_epsilon: bool = typer.Option(
        False,
        "--allow-large-epsilon",
        help="Release even with a total ε above 20 (which publishes about the true value), with a warning.",
    ),
    allow_useless: bool = typer.Option(False, "--allow-useless", help=USELESS_HELP),
    show_preview: bool = typer.Option(
        False,
        "--preview",
        help="Show each answer's noise scale, expected error and 95 % interval (and whether the budget takes the "
        "release), then stop: nothing is drawn, charged or written.",
    ),
) -> None:
    """Release noisy answers (Laplace or Gaussian noise from OpenDP) with a public risk statement and a ledger.

    Each answer is the query on the column clamped to --universe plus Laplace noise of scale b = Δf/ε, or with
    --mechanism gaussian Gaussian noise of σ = Δf/√(2ρ) (ρ-zCDP; global sensitivity Δf), from OpenDP's
    floating-point-safe samplers; they cannot be seeded. There is deliberately no
    noise scaled to a data-dependent sensitivity: it leaks the data (see `privrisk audit`). Output is the
    publishable part only; the internal assessment (local sensitivity, record counts: beside a noisy mean, min
    or max they give back the true value) goes only to --internal FILE (mode 0600).

    --out is checked before any noise is drawn; with --ledger the release is charged only together with its
    outputs (drawn, written to temporary names, charged under the ledger's lock with the budget checked
    again, moved into place). A total ε above 20 is refused unless --allow-large-epsilon. A release that would
    take the ledger above its budget is refused with exit code 1 before any noise is drawn: --budget or
    --budget-epsilon E (pure ε: plain sum), with --budget-delta D (tight composition of every answer at δ), or
    --budget-rho R (zCDP; a Laplace answer counts ε²/2). --ledger-key FILE
    (or PRIVRISK_LEDGER_KEY) keys the ledger with HMAC-SHA256: edits, truncation and a reset are detected.
    --preview shows each answer's noise and expected error before any ε is spent. An answer whose 95 % interval
    is wider than the range it can take is refused unless --allow-useless (the statement then says so).

    Example: privrisk release survey.csv --column hours --query mean --epsilon 0.5 --universe 0,24 --budget 1 --ledger ledger.json
    """
    from privrisk.release.ledger import read_key
    from privrisk.release.mechanisms import LargeEpsilonRefused
    from privrisk.release.run import ReleaseSettings, run_release

    try:
        # Every rule about the settings is the library's (ReleaseSettings); its errors name the field, which
        # privrisk.cli.main turns into the option.
        settings = ReleaseSettings(
            file, public_n=public_n, budget=budget, ledger=ledger, key=read_key(key_file), out=out_dir,
            internal=internal, source=str(file), spec=spec, inputs=(key_file,) if key_file is not None else (),
            allow_large_epsilon=allow_large_epsilon, allow_useless=allow_useless, column=column, query=query,
            epsilon=epsilon, mechanism=mechanism, rho=rho, universe=universe, missing=missing,
            budget_epsilon=budget_epsilon, budget_delta=budget_delta, budget_rho=budget_rho, preview=show_preview,
        )  # fmt: skip
    except LargeEpsilonRefused as exc:
        # The command line names its own way to allow it.
        exc.args = (f"{exc} (give --allow-large-epsilon to release it anyway)",)
        raise
    try:
        run = run_release(settings, after=lambda r: _deliver(r, out_dir, internal, as_json))
        if show_preview:
            _deliver(run, out_dir, internal, as_json)
            refused = run.exceeded()
            if refused is not None:
                raise refused
    except ThresholdExceeded as exc:
        # The library names the budget's field (budget_rho: …); the command line names its option.
        raise ThresholdExceeded(ledger_option(str(exc), "release"), param=exc.param) from None


def _print_preview(p: ReleasePreview, file: Path) -> None:
    _table(f"Preview of a release of {file.name}: nothing is drawn and no ε is spent",
           ("answer", "noise", "ε or ρ", "scale", "expected error", "95 % interval", ""), p.rows(),
           ("scale", "expected error"))  # fmt: skip
    out.print(p.verdict())
    for warning in p.warnings:
        err.print(f"Warning: {warning}.")
    err.print("Nothing was drawn, charged or written; run the command without --preview to release.")


def _deliver(run: ReleaseRun, out_dir: Path | None, internal: Path | None, as_json: bool) -> None:
    if as_json:
        emit_json(run.to_dict())
        return
    file = Path(str(run.settings.source))
    if run.preview is not None:
        _print_preview(run.preview, file)
        return
    assert run.release is not None
    _print_human(run.release, file)
    if out_dir is not None:
        err.print(
            f"Wrote {out_dir}/release.json, release.csv, statement.html, manifest.json and the figures."
        )
    if internal is not None:
        err.print(f"Wrote the internal assessment (NOT FOR PUBLICATION, mode 0600) to {internal}.")


@app.command("ledger")
def ledger_command(
    path: Path = typer.Argument(..., help="The ledger (of releases and outputs) to check."),
    budget: str | None = typer.Option(
        None,
        "--budget",
        help="Also say how much of this budget is left; exit 1 when the ledger has spent more than it.",
    ),
    budget_epsilon: str | None = BUDGET_EPSILON,
    budget_delta: float | None = BUDGET_DELTA,
    budget_rho: float | None = BUDGET_RHO,
    as_json: bool = JSON_OPTION,
    key_file: Path | None = typer.Option(None, "--ledger-key", help=KEY_HELP),
    export: str | None = typer.Option(
        None, help="registry: write every release as an entry of the OpenDP deployments registry."
    ),
    out_dir: Path | None = out_option(
        "Folder for ledger.json, releases.csv and manifest.json; with --export the receipts release_<seq>.yaml "
        "(default: the YAML on stdout)."
    ),
    curator: str | None = typer.Option(None, help="With --export: who published the releases."),
    region: str | None = typer.Option(None, help="With --export: the region the data describe."),
) -> None:
    """Check a privacy ledger: what each release spent, the plain sum of ε, the tight composition and its risk.

    The outputs the ledger records (privrisk outputs --ledger) follow: names, dates, numbers of cells. With a
    budget the command exits 1 (after printing and writing --out) when the ledger has spent more than it. --export registry writes
    a receipt for every release instead: an entry of the OpenDP deployments registry's schema (validated against
    it), with the risk in privacy_parameters_details.

    Example: privrisk ledger ledger.json --budget-epsilon 1 --budget-delta 1e-6
    """
    from privrisk.release.history import LedgerSettings, run_ledger
    from privrisk.release.ledger import read_key

    # The rules (a budget or an export, not both) and the threshold are the library's (LedgerSettings, LedgerRun);
    # its errors name the field, which privrisk.cli.main turns into the option.
    settings = LedgerSettings(path, budget, budget_epsilon, budget_delta, budget_rho, key=read_key(key_file),
                              export=export, curator=curator, region=region)  # fmt: skip
    run = run_ledger(settings)
    if run.receipts is not None:
        print_receipts(run, out_dir, as_json)
        return
    if as_json:
        emit_json(run.to_dict())
    else:
        assert run.summary is not None
        print_ledger(str(path), run.summary)
    if out_dir is not None:
        run.write(out_dir)
        err.print(f"Wrote {out_dir}/ledger.json, releases.csv and manifest.json.")
    exceeded = run.threshold()
    if exceeded is not None:
        raise ThresholdExceeded(ledger_option(str(exceeded)), param=exceeded.param)
