"""``privrisk release``: noisy answers with a public risk statement, a budget and a ledger; ``privrisk ledger``."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import SCHEMA_VERSION, emit_json, err, out, parse_bounds, parse_epsilon, percent
from privrisk.errors import PrivriskError
from privrisk.io.data import read_table, table_columns
from privrisk.io.files import atomic_dir, write_json
from privrisk.release import ledger as _ledger
from privrisk.release.mechanisms import Release, ReleaseQuery, noisy_release, read_release_spec
from privrisk.reports.manifest import write_manifest
from privrisk.sensitivity import QUERIES

MISSING_HELP = "Missing codes to drop: 'negative' (SOEP: −1, −2, …) or a list such as -1,-3."


def _queries(
    spec: Path | None,
    column: str | None,
    query: str | None,
    epsilon: str | None,
    universe: str | None,
    missing: str | None,
    public_n: int | None,
) -> tuple[list[ReleaseQuery], int | None]:
    single = {"--column": column, "--query": query, "--epsilon": epsilon, "--universe": universe}
    if spec is not None:
        given = [name for name, value in single.items() if value is not None]
        if given or missing is not None:
            name = given[0] if given else "--missing"
            raise PrivriskError(f"{name}: give either --spec or the single-query options, not both")
        parsed = read_release_spec(spec)
        if public_n is not None and parsed.public_n is not None and public_n != parsed.public_n:
            raise PrivriskError(
                f"--public-n: {public_n} differs from public_n = {parsed.public_n} in {spec}; give one"
            )
        return list(parsed.queries), public_n if public_n is not None else parsed.public_n
    for name, value in single.items():
        if value is None:
            raise PrivriskError(f"{name}: required (or give --spec release.toml)")
    eps = parse_epsilon(epsilon, name="--epsilon")
    lo, hi = parse_bounds(universe, name="--universe")  # type: ignore[arg-type]
    try:
        q = ReleaseQuery(column, query, eps, (lo, hi), missing)  # type: ignore[arg-type]
    except PrivriskError as exc:
        message = str(exc)
        raise PrivriskError(message if message.startswith("--") else f"--{message}") from None
    return [q], public_n


def _number(x: float) -> str:
    return f"{x:.6g}"


def _findings(r: Release) -> list[str]:
    s = r.statement
    k = len(r.answers)
    lines = [
        f"The release has {k} noisy answer{'s' if k != 1 else ''} with total ε = {_number(s['epsilon'])} "
        f"(sequential composition: the ε of the answers add up).",
        f"At that ε the global risk is P = {percent(s['global_risk'])} and the global leak Γ = "
        f"{percent(s['global_leak'])} (Mehner et al., eq. 3–4).",
    ]
    if s["n"] is not None:
        lines.append(
            f"For the published n = {s['n']:,} the many-worlds risk is ρ_mw = {percent(s['many_worlds'])} "
            f"(guessing: {percent(s['guess'])})."
        )
    lines.append(s["sentences"])
    if "cumulative" in s:
        c = s["cumulative"]
        what = "all " + f"{c['releases']} releases" if c["releases"] > 1 else "the one release"
        lines.append(
            f"Over {what} in the ledger the total is ε = {_number(c['epsilon'])}: "
            f"P = {percent(c['global_risk'])}, Γ = {percent(c['global_leak'])}."
        )
    return lines


def _print_human(r: Release, file: Path) -> None:
    table = Table(title=f"Release of {file.name}: noisy answers (the true values are never shown)")
    for name, justify in (
        ("answer", "left"),
        ("ε", "right"),
        ("universe", "left"),
        ("scale b", "right"),
        ("noisy value", "right"),
        ("95 % interval", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in r.answers.itertuples():
        table.add_row(
            row.label,
            f"{row.epsilon:.4g}",
            f"[{row.universe_lo:g}, {row.universe_hi:g}]",
            f"{row.noise_scale:.4g}",
            f"{row.noisy_value:.5g}",
            f"[{row.interval_lo:.4g}, {row.interval_hi:.4g}]",
        )
    out.print(table)
    out.print(
        "Noise: Laplace with scale b = Δf/ε (global sensitivity Δf); the 95 % interval is the noisy value "
        "± b·ln 20 and holds the value of the clamped data in 95 % of releases."
    )
    out.print("[bold]Public statement[/bold] (depends only on ε and the published n; safe to publish):")
    for line in _findings(r):
        out.print(f"  {line}")
    if r.ledger is not None:
        led = r.ledger
        left = "" if led["budget"] is None else f" of the budget {_number(led['budget'])}"
        out.print(
            f"Ledger {led['path']}: release {led['entry']['seq']} recorded; ε spent {_number(led['spent_after'])}"
            f"{left}."
        )
        if led["previous_budget"] is not None and led["budget"] != led["previous_budget"]:
            err.print(
                f"Note: the ledger's budget changed from {_number(led['previous_budget'])} to "
                f"{_number(led['budget'])} with this release."
            )

    internal = Table(title="Internal assessment: NOT FOR PUBLICATION (depends on the data)")
    for name in ("answer", "n", "clamped", "Δv (local)", "Δv/Δf", "ρ_tw", "ρ_mw"):
        internal.add_column(name, justify="left" if name == "answer" else "right", no_wrap=name != "answer")
    for row in r.internal.to_dict(orient="records"):
        internal.add_row(
            row["label"],
            "withheld" if row["n"] is None else f"{row['n']:,}",
            f"{row['n_clamped']:,}",
            f"{row['local_sensitivity']:.6g}",
            f"{row['ratio']:.4g}",
            percent(row["two_worlds"]),
            "—" if row["many_worlds"] is None else percent(row["many_worlds"]),
        )
    err.print(internal)
    if r.withheld:
        err.print(f"Note: {r.withheld}.")
    for summary in r.data.values():
        dropped = sum(summary["dropped_codes"].values())
        err.print(
            f"{summary['column']!r}: {summary['n_used']:,} of {summary['n_read']:,} values used; "
            f"{summary['n_nan']:,} empty, {dropped:,} missing codes dropped."
        )
    err.print(
        "ρ_tw, ρ_mw: two- and many-worlds risk at Δv/Δf (Allmann et al., eq. 6 and 4; n = records). "
        "'clamped': values moved into the universe."
    )


def _write_out(folder: Path, r: Release, parameters: dict) -> None:
    write_json(folder / "release.json", {"schema_version": SCHEMA_VERSION, **r.public_dict()})
    r.answers.to_csv(folder / "release.csv", index=False)
    write_json(folder / "internal_assessment.json", {"schema_version": SCHEMA_VERSION, **r.internal_dict()})
    r.internal.to_csv(folder / "internal_assessment.csv", index=False)
    s = r.statement
    from privrisk.reports.plots import release as plots

    if r.ledger is not None:
        seq = r.ledger["entry"]["seq"]
        entries = _ledger.read_ledger(r.ledger["path"])[:seq]
        steps = list(itertools.accumulate(e["epsilon"] for e in entries))
        labels = [f"#{e['seq']}" for e in entries]
        risk_title = "Global risk and leak after each release in the ledger"
    else:
        steps, labels = [s["epsilon"]], ["this release"]
        risk_title = "Global risk and leak at this release's total ε"
    figures = [
        {
            "title": "Noisy answers with the 95 % interval of their noise",
            **plots.answers_figure(r.answers, folder / "release_answers"),
        },
        {"title": risk_title, **plots.risk_figure(steps, r.budget, folder / "release_risk", labels=labels)},
    ]
    write_manifest(
        folder,
        kind="release",
        title="Noisy release with its risk statement",
        parameters=parameters,
        summary={
            "answers": len(r.answers),
            "total_epsilon": s["epsilon"],
            "global_risk": s["global_risk"],
            "global_leak": s["global_leak"],
            "public_n": s["n"],
            "many_worlds": s["many_worlds"],
            "ledger_epsilon": s.get("cumulative", {}).get("epsilon"),
            "budget": r.budget,
        },
        findings=_findings(r),
        tables=[
            {"title": "Noisy answers with 95 % noise intervals (public)", "path": "release.csv"},
            {
                "title": "Internal assessment: local sensitivity and risks (NOT FOR PUBLICATION)",
                "path": "internal_assessment.csv",
            },
        ],
        figures=figures,
    )


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
    ledger: Path | None = typer.Option(
        None, "--ledger", help="JSON ledger of every release; later releases count what it records."
    ),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Folder for release.json/.csv, internal_assessment.json/.csv, manifest.json."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Release noisy answers (Laplace noise from OpenDP) with a public risk statement, a budget and a ledger.

    Each answer is the query on the column clamped to --universe, plus Laplace noise of scale b = Δf/ε with the
    global sensitivity Δf, drawn by OpenDP's floating-point-safe sampler. OpenDP's sampler cannot be seeded, so
    every run gives new numbers (there is no --seed). The true values are never printed or written.

    There is deliberately no option to scale the noise to the local or another data-dependent sensitivity: such
    noise depends on the data and leaks it. `privrisk audit` shows what an intruder learns from it.

    The human output on stdout is the publishable part (answers and the public statement: total ε, global risk
    P and leak Γ, ρ_mw for --public-n, plain sentences); the internal assessment (local sensitivity, two- and
    many-worlds risk, clamping, record counts) depends on the data and goes to stderr, marked NOT FOR
    PUBLICATION. --json prints both, the internal part under "internal_assessment".

    --budget and --ledger work the same for one query and for --spec. A release that would take the total ε
    (with --ledger: the ledger's total) above --budget is refused with exit code 1 before any noise is drawn,
    including when the budget is already spent; without --budget a ledger keeps the budget of its last release.
    The ledger is locked while it is read and appended to, so two releases at the same time cannot both spend
    the last of the budget; a corrupt or hand-edited ledger is an error (exit 2), never "nothing spent".

    Example: privrisk release survey.csv --column hours --query mean --epsilon 0.5 --universe 0,24 --budget 1 --ledger ledger.json
    """
    if public_n is not None and public_n < 2:
        raise PrivriskError(f"--public-n: the published number of people must be at least 2, got {public_n}")
    queries, n_pub = _queries(spec, column, query, epsilon, universe, missing, public_n)
    limit = parse_epsilon(budget, name="--budget") if budget is not None else None
    columns = list(dict.fromkeys(q.column for q in queries))
    if spec is not None:
        available = table_columns(file)
        for i, q in enumerate(queries, start=1):
            if q.column not in available:
                shown = ", ".join(available[:20]) + (" …" if len(available) > 20 else "")
                raise PrivriskError(
                    f"{spec}: query {i} names column {q.column!r}, which {file} does not have; "
                    f"the columns are: {shown}"
                )
    frame = read_table(file, columns)
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise PrivriskError(f"--out: {out_dir} exists and is not a folder")
    parameters = {
        "file": str(file),
        "spec": None if spec is None else str(spec),
        "queries": [
            {
                "column": q.column,
                "query": q.query,
                "epsilon": q.epsilon,
                "universe": [q.universe.lo, q.universe.hi],
                "missing": {"negative": q.missing.negative, "codes": list(q.missing.codes)},
            }
            for q in queries
        ],
        "public_n": n_pub,
        "budget": limit,
        "ledger": None if ledger is None else str(ledger),
    }
    if out_dir is None:
        r = noisy_release(frame, queries, public_n=n_pub, budget=limit, ledger=ledger, source=str(file))
    else:
        # The temporary folder exists before any noise is drawn, so an unwritable --out fails first.
        with atomic_dir(out_dir) as tmp:
            r = noisy_release(frame, queries, public_n=n_pub, budget=limit, ledger=ledger, source=str(file))
            _write_out(tmp, r, parameters)
    if as_json:
        emit_json({"file": str(file), **r.to_dict()})
    else:
        _print_human(r, file)
        if out_dir is not None:
            err.print(f"Wrote {out_dir}/release.json, release.csv, internal_assessment.*, manifest.json.")


@app.command("ledger")
def ledger_command(
    path: Path = typer.Argument(..., help="A ledger written by privrisk release --ledger."),
    budget: str | None = typer.Option(None, "--budget", help="Also say how much of this budget is left."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Check a privacy ledger and show what each release spent, the total ε and the risk it carries.

    Example: privrisk ledger ledger.json --budget 1
    """
    if not path.exists():
        raise PrivriskError(f"{path}: no such ledger")
    limit = parse_epsilon(budget, name="--budget") if budget is not None else None
    entries = _ledger.read_ledger(path)
    total = math.fsum(e["epsilon"] for e in entries)
    from privrisk.release.mechanisms import public_statement

    statement = public_statement(total) if entries else None
    doc = {
        "ledger": str(path),
        "releases": len(entries),
        "total_epsilon": total,
        "budget": limit,
        "left": None if limit is None else max(limit - total, 0.0),
        "public_statement": statement,
        "entries": [
            {k: e[k] for k in ("seq", "time", "epsilon", "queries", "data", "budget")} for e in entries
        ],
    }
    if as_json:
        emit_json(doc)
        return
    plural = "release" if len(entries) == 1 else "releases"
    table = Table(title=f"Ledger {path}: {len(entries)} {plural}, checksums verified")
    for name in ("#", "time (UTC)", "ε", "answers", "data"):
        table.add_column(name, justify="right" if name in ("#", "ε") else "left")
    for e in entries:
        table.add_row(
            str(e["seq"]),
            e["time"][:19],
            _number(e["epsilon"]),
            ", ".join(f"{q['query']}({q['column']})" for q in e["queries"]),
            str(e["data"] or ""),
        )
    out.print(table)
    line = f"Total ε = {_number(total)} (sequential composition)"
    if limit is not None:
        line += f"; budget {_number(limit)}, left {_number(max(limit - total, 0.0))}"
    out.print(line + ".")
    if statement is not None:
        out.print(
            f"Global risk P = {percent(statement['global_risk'])}, global leak Γ = "
            f"{percent(statement['global_leak'])}. {statement['sentences']}"
        )
