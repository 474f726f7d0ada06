"""``privrisk release``: noisy answers with a public risk statement, a budget and a ledger; ``privrisk ledger``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import KEY_ENV, MISSING_HELP, PARAM_OPTIONS, emit_json, err, out, parse_bounds
from privrisk.cli._release_output import export_receipts, ledger_option, print_ledger
from privrisk.cli._release_output import table as _table
from privrisk.errors import PrivriskError, ThresholdExceeded

if TYPE_CHECKING:
    from privrisk.release.request import ReleasePreview
    from privrisk.release.result import Release
    from privrisk.release.spec import ReleaseQuery

BUDGET_EPSILON = typer.Option(None, "--budget-epsilon", help="Budget ε (pure; with --budget-delta: (ε, δ)).")
BUDGET_DELTA = typer.Option(None, "--budget-delta", help="δ of an (ε, δ) budget (with --budget-epsilon).")
BUDGET_RHO = typer.Option(None, "--budget-rho", help="Budget ρ of zCDP (Laplace answers count ε²/2).")
USELESS_HELP = "Release even an answer whose 95 % interval is wider than its whole range (it then says so)."
KEY_HELP = f"Secret key file of a keyed ledger (HMAC-SHA256; default: the environment variable {KEY_ENV})."
# The library's ledger key is ``key`` (read from ``key_file``); on the command line it is --ledger-key.
PARAM_OPTIONS["release"] = {"key": "--ledger-key", "key_file": "--ledger-key"}
PARAM_OPTIONS["ledger"] = {**PARAM_OPTIONS["release"], "curator": "--curator", "region": "--region"}


def _queries(
    spec: Path | None, column: str | None, query: str | None, epsilon: str | None, universe: str | None,
    missing: str | None, public_n: int | None, mechanism: str | None = None, rho: float | None = None,
) -> tuple[list[ReleaseQuery], int | None]:  # fmt: skip
    from privrisk.release.spec import ReleaseQuery, read_release_spec

    options = {"--column": column, "--query": query, "--epsilon": epsilon, "--universe": universe,
               "--mechanism": mechanism, "--rho": rho}  # fmt: skip
    if spec is not None:
        given = [name for name, value in options.items() if value is not None]
        if given or missing is not None:
            name = given[0] if given else "--missing"
            raise PrivriskError(f"{name}: give either --spec or the single-query options, not both")
        parsed = read_release_spec(spec)
        if public_n is not None and parsed.public_n is not None and public_n != parsed.public_n:
            raise PrivriskError(
                f"--public-n: {public_n} differs from public_n = {parsed.public_n} in {spec}; give one"
            )
        return list(parsed.queries), public_n if public_n is not None else parsed.public_n
    gaussian = (mechanism or "").strip().lower() == "gaussian"
    needed = ("--column", "--query", "--rho" if gaussian else "--epsilon", "--universe")
    absent = next((option for option in needed if options[option] is None), None)
    if absent is not None:
        raise PrivriskError(f"{absent}: required (or give --spec release.toml)")
    # Library messages name the parameter (epsilon: …); privrisk.cli.main names the option (--epsilon: …).
    bounds = parse_bounds(universe or "", name="--universe")
    query_ = ReleaseQuery(
        column or "", query or "", epsilon, bounds, missing, mechanism=mechanism or "laplace", rho=rho
    )
    return [query_], public_n


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


def _option(budget: str | None, budget_epsilon: str | None, budget_rho: float | None) -> str:
    """The option a budget message names."""
    if budget_rho is not None:
        return "--budget-rho"
    return "--budget-epsilon" if budget is None and budget_epsilon is not None else "--budget"


@app.command("release")
def release_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    spec: Path | None = typer.Option(
        None, "--spec", help="A release.toml listing the queries (instead of the single-query options)."
    ),
    column: str | None = typer.Option(None, "--column", "-c", help="The numeric column to query."),
    query: str | None = typer.Option(None, "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str | None = typer.Option(
        None, "--epsilon", "-e", help="ε of this answer: a number or ln3, ln(3), log(3)."
    ),
    mechanism: str | None = typer.Option(
        None, "--mechanism", help="laplace (ε, default) or gaussian (ρ of zCDP)."
    ),
    rho: float | None = typer.Option(None, "--rho", help="ρ of a Gaussian answer (zero-concentrated DP)."),
    universe: str | None = typer.Option(
        None,
        "--universe",
        help="Bounds LO,HI fixed before looking at the data; values outside are clamped to them.",
    ),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    public_n: int | None = typer.Option(
        None,
        "--public-n",
        help="The published number of people in the data; the public statement gives ρ_mw for it.",
    ),
    budget: str | None = typer.Option(
        None, "--budget", help="Refuse (exit 1, no noise drawn) if the total ε would exceed this."
    ),
    budget_epsilon: str | None = BUDGET_EPSILON,
    budget_delta: float | None = BUDGET_DELTA,
    budget_rho: float | None = BUDGET_RHO,
    ledger: Path | None = typer.Option(
        None, "--ledger", help="The ledger of everything released; later releases count what it records."
    ),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Folder for the public release.json/.csv, figures and manifest.json."
    ),
    internal: Path | None = typer.Option(
        None,
        "--internal",
        help="Write the internal assessment (NOT FOR PUBLICATION: local sensitivity, record counts) to this "
        "JSON file, readable by its owner only (mode 0600).",
    ),
    key_file: Path | None = typer.Option(None, "--ledger-key", help=KEY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
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
    from privrisk.io.data import table_columns
    from privrisk.release.budget import Budget
    from privrisk.release.ledger import read_key
    from privrisk.release.mechanisms import LargeEpsilonRefused
    from privrisk.release.request import ReleaseRequest, preview
    from privrisk.release.spec import check_public_n, check_spec_columns
    from privrisk.release.transaction import publish

    check_public_n(public_n)
    queries, n_pub = _queries(spec, column, query, epsilon, universe, missing, public_n, mechanism, rho)
    limit = Budget.from_options(budget, budget_epsilon, budget_delta, budget_rho)
    try:
        # Every rule about which settings go together is the library's (ReleaseRequest); its errors name the
        # parameter, which privrisk.cli.main turns into the option.
        request = ReleaseRequest(file, tuple(queries), public_n=n_pub, budget=limit, ledger=ledger,
                                 key=read_key(key_file), out=out_dir, internal=internal, source=str(file), spec=spec,
                                 inputs=(key_file,) if key_file is not None else (),
                                 allow_large_epsilon=allow_large_epsilon, allow_useless=allow_useless)  # fmt: skip
    except LargeEpsilonRefused as exc:
        raise PrivriskError(
            f"{exc} (give --allow-large-epsilon to release it anyway)", param=exc.param
        ) from None
    if spec is not None:
        check_spec_columns(queries, table_columns(file), spec=spec, source=file)
    option = _option(budget, budget_epsilon, budget_rho)
    if show_preview:
        p = preview(request)
        if as_json:
            emit_json({"file": str(file), **p.to_dict()})
        else:
            _print_preview(p, file)
        if p.refusal is not None:
            raise _named(ThresholdExceeded(p.refusal), option)
        return
    try:
        publish(request, after=lambda r: _deliver(r, file, out_dir, internal, as_json))
    except ThresholdExceeded as exc:
        raise _named(exc, option) from None


def _named(exc: ThresholdExceeded, option: str) -> ThresholdExceeded:
    """The library names the budget's parameter (``budget: …``); the command line names the option given."""
    message = str(exc)
    if exc.param == "budget" and message.startswith("budget:"):
        return ThresholdExceeded(option + message[len(exc.param) :], param=exc.param)
    return exc


def _print_preview(p: ReleasePreview, file: Path) -> None:
    _table(f"Preview of a release of {file.name}: nothing is drawn and no ε is spent",
           ("answer", "noise", "ε or ρ", "scale", "expected error", "95 % interval", ""), p.rows(),
           ("scale", "expected error"))  # fmt: skip
    out.print(p.verdict())
    for warning in p.warnings:
        err.print(f"Warning: {warning}.")
    err.print("Nothing was drawn, charged or written; run the command without --preview to release.")


def _deliver(r: Release, file: Path, out_dir: Path | None, internal: Path | None, as_json: bool) -> None:
    if as_json:
        emit_json({"file": str(file), **r.public_dict()})
        return
    _print_human(r, file)
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
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
    key_file: Path | None = typer.Option(None, "--ledger-key", help=KEY_HELP),
    export: str | None = typer.Option(
        None, "--export", help="registry: write every release as an entry of the OpenDP deployments registry."
    ),
    out_dir: Path | None = typer.Option(
        None, "--out", help="With --export: the folder for release_<seq>.yaml (default: the YAML on stdout)."
    ),
    curator: str | None = typer.Option(None, "--curator", help="With --export: who published the releases."),
    region: str | None = typer.Option(None, "--region", help="With --export: the region the data describe."),
) -> None:
    """Check a privacy ledger: what each release spent, the plain sum of ε, the tight composition and its risk.

    The outputs the ledger records (privrisk outputs --ledger) follow: names, dates, numbers of cells. With a
    budget the command exits 1 (after printing) when the ledger has spent more than it. --export registry writes
    a receipt for every release instead: an entry of the OpenDP deployments registry's schema (validated against
    it), with the risk in privacy_parameters_details.

    Example: privrisk ledger ledger.json --budget-epsilon 1 --budget-delta 1e-6
    """
    from privrisk.release.history import LedgerSettings, check_ledger
    from privrisk.release.ledger import read_key

    if export is not None:
        budgets = (("--budget", budget), ("--budget-epsilon", budget_epsilon), ("--budget-delta", budget_delta),
                   ("--budget-rho", budget_rho))  # fmt: skip
        named = next((o for o, v in budgets if v is not None), None)
        if named is not None:
            raise PrivriskError(f"{named}: a receipt states what was spent; give no budget with --export")
        export_receipts(path, export, out_dir, curator, region, read_key(key_file), as_json)
        return
    given = next(
        (o for o, v in (("--out", out_dir), ("--curator", curator), ("--region", region)) if v), None
    )
    if given is not None:
        raise PrivriskError(f"{given}: only with --export registry")
    # The budget's rules and the threshold are the library's (LedgerSettings, LedgerCheck); its errors name the
    # parameter, which privrisk.cli.main turns into the option.
    settings = LedgerSettings(path, budget, budget_epsilon, budget_delta, budget_rho, key=read_key(key_file))
    check = check_ledger(settings)
    if as_json:
        emit_json(check.to_dict())
    else:
        print_ledger(str(path), check.summary)
    failures = check.failures()
    if failures:
        raise ThresholdExceeded(ledger_option(failures[0]), param=settings.budget_param)
