"""``privrisk risk``, ``privrisk epsilon`` and ``privrisk table``: ε → risk and back.

Each command maps its options onto the library's settings (:mod:`privrisk.accounting.risk_report`), calls its run
function and prints the result; the rules live in the settings, and :func:`privrisk.cli.main` names an error's
parameter as the option (privrisk/cli/_names.py). The library is imported inside the commands, so that ``--help``
stays quick.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from privrisk.cli import _risk_census as C
from privrisk.cli import accounting as A
from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out, percent
from privrisk.errors import ThresholdExceeded


@app.command("risk")
def risk_command(
    epsilon: str | None = A.EPSILON,
    delta: float | None = A.DELTA,
    rho: float | None = A.RHO,
    mu: float | None = A.MU,
    renyi: str | None = A.RENYI,
    mechanism: str | None = A.MECHANISM,
    scale: float | None = A.SCALE,
    sigma: float | None = A.SIGMA,
    sensitivity: float | None = A.SENSITIVITY,
    categories: int | None = A.CATEGORIES,
    dpsgd: str | None = A.DPSGD,
    releases: Path | None = A.RELEASES,
    opacus_history: Path | None = A.OPACUS_HISTORY,
    compose: int | None = A.COMPOSE,
    sample_rate: float | None = A.SAMPLE_RATE,
    sampling: str | None = A.SAMPLING,
    group: int | None = A.GROUP,
    cell_key: Path | None = C.CELL_KEY,
    cells: int | None = C.CELLS,
    registry: Path | None = C.REGISTRY,
    pram: Path | None = C.PRAM,
    rounding: str | None = C.ROUNDING,
    lang: str = C.LANG,
    prior: float = typer.Option(0.5, "--prior", help="The attacker's prior that a person is in the data."),
    fpr: str = typer.Option(
        "0.001,0.01,0.05,0.1", "--fpr", help="False-positive rates α for the TPR (comma-separated)."
    ),
    n: int | None = typer.Option(
        None, "--n", help="Possible worlds (candidates) the attacker picks among (default 2)."
    ),
    at_delta: float | None = typer.Option(None, "--at-delta", help="Also give ε at this δ."),
    at_epsilon: str | None = typer.Option(
        None, "--at-epsilon", help="Also give δ at this ε (a number or ln3)."
    ),
    ratio: float | None = typer.Option(
        None, "--ratio", help="Δv/Δf, local over global sensitivity (pure ε; default 1)."
    ),
    dv: float | None = typer.Option(None, "--dv", help="Local sensitivity Δv (with --df; pure ε)."),
    df: float | None = typer.Option(None, "--df", help="Global sensitivity Δf (with --dv; pure ε)."),
    max_risk: float | None = typer.Option(
        None,
        "--max-risk",
        help="Exit with code 1 if the risk among --n people (of the whole guarantee, δ included) exceeds this.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The risks of one guarantee: membership (advantage, success, posterior, TPR at FPR) and singling out.

    Give exactly one guarantee: --epsilon E [--delta D], --rho R, --mu M, --renyi CURVE, --mechanism
    laplace|gaussian|rr|discrete-laplace|discrete-gaussian with --epsilon, --scale or --sigma (and
    --sensitivity, --categories), --dpsgd N,B,EPOCHS with --sigma, --releases FILE.toml or --opacus-history
    FILE.json; a statistical office's method: --cell-key TABLE (with --cells N), --pram MATRIX, --rounding
    B|random:B or --registry ENTRY.yaml; modifiers --sample-rate (--sampling), --compose, --group.

    Example: privrisk risk --dpsgd 60000,256,1 --sigma 1.1 --at-delta 1e-5
    """
    # Every rule lives in the library's settings (privrisk.accounting.risk_report); main() names the options.
    from privrisk.accounting.risk_report import RiskSettings, run_risk

    spec = A.guarantee_spec(epsilon=epsilon, delta=delta, rho=rho, mu=mu, renyi=renyi, mechanism=mechanism,
                            scale=scale, sigma=sigma, sensitivity=sensitivity, categories=categories, dpsgd=dpsgd,
                            releases=releases, opacus_history=opacus_history, compose=compose,
                            sample_rate=sample_rate, sampling=sampling, group=group, cell_key=cell_key, cells=cells,
                            registry=registry, pram=pram, rounding=rounding)  # fmt: skip
    settings = RiskSettings(spec, prior=prior, fpr=fpr, n=n, at_delta=at_delta, at_epsilon=at_epsilon,
                            ratio=ratio, dv=dv, df=df, max_risk=max_risk, lang=lang)  # fmt: skip
    run = run_risk(settings)
    doc = run.to_dict()
    if as_json:
        emit_json(doc)
    else:
        s = run.settings
        _print_risks(doc, n, s.at_delta, None if s.at_epsilon is None else float(s.at_epsilon))
        if run.census is not None:
            from privrisk.reports.census_words import census_paragraph

            C.print_census(doc, census_paragraph(run))
        if max_risk is not None:
            value, what = run.risk_for_threshold
            verdict = "exceeds" if run.exceeds() else "is within"
            out.print(f"--max-risk {max_risk:g} judges {what}: {_cell(value)}, which {verdict} it.")
    if run.exceeds():
        value, what = run.risk_for_threshold
        raise ThresholdExceeded(f"{what}, {value:.4g}, exceeds --max-risk {max_risk:g}", param="max_risk")


def _print_risks(
    doc: dict[str, Any], n: int | None, at_delta: float | None = None, at_epsilon: float | None = None
) -> None:
    """Both tables, each measure labelled with the question it answers (issue 37: ρ_mw of this query beside the
    risk among n of any query, the worst case's δ, a guarantee without a worst case in the (ε, δ) form)."""
    if "many_worlds" in doc:
        _print_lee_clifton(doc)
    w = doc["worst_case"]
    certain = w.get("epsilon") is None  # no finite ε reaches the worst case's δ
    head = "" if certain else f" · worst case: {_worst_name(w)}"
    table = Table(
        title=f"{doc['guarantee']}: the best attacker (prior {doc['prior']:g}), any query (Δv = Δf){head}",
        show_header=True,
    )
    columns = ["measure", "this guarantee"] + ([] if certain else [f"worst case at {_worst_name(w)}"])
    for name in columns:
        table.add_column(name, justify="left" if name == "measure" else "right")

    def row(label: str, mine: Any, worst: Any, fmt: str = "pct") -> None:
        table.add_row(label, _cell(mine, fmt), *([] if certain else [_cell(worst, fmt)]))

    row("advantage", doc["advantage"], w["advantage"])
    row("success", doc["success"], w["success"])
    row("largest posterior", doc["posterior_max"], w["posterior_max"])
    for mine, worst in zip(doc["tpr_at_fpr"], w["tpr_at_fpr"], strict=True):
        row(f"TPR at FPR α = {mine['fpr']:g}", mine["tpr"], worst["tpr"])
    if doc["reconstruction"] is not None:
        row(f"risk among n = {n:,}, any query", doc["reconstruction"], w["reconstruction"])
    if at_delta is not None:
        row(f"ε at δ = {_plain_number(at_delta)}", doc["epsilon_at_delta"], w["epsilon_at_delta"], "g")
    if at_epsilon is not None:
        row(f"δ at ε = {_plain_number(at_epsilon)}", doc["delta_at_epsilon"], w["delta_at_epsilon"], "g")
    out.print(table)
    notes = [
        "This guarantee: the exact mechanism (or definition) given. Advantage = TPR − FPR of the best test; "
        "success = its chance to be right; TPR at FPR α: true-positive rate at false-positive rate α; risk among "
        "n: of picking the true one of n candidates with any query (many-worlds risk ρ_mw at Δv = Δf for a pure "
        "ε, the f-DP bound 1 − β(1/n) otherwise)."
    ]
    if certain:
        notes.append(
            f"No worst case in the (ε, δ) form: no finite ε reaches δ = {_plain_number(w['delta'])} for this "
            "guarantee, so the worst mechanism with it could reveal every answer; the column shows this "
            "guarantee alone."
        )
    elif w["delta"] == 0:
        notes.append(
            f"Worst case: the worst mechanism with the same ε = {_plain_number(w['epsilon'])} "
            "(randomized response), what any noise with this ε may allow."
        )
    else:
        notes.append(
            f"Worst case: the worst mechanism that is (ε, δ)-DP with δ = {_plain_number(w['delta'])} and "
            f"ε = {_plain_number(w['epsilon'])}, this guarantee's ε at that δ (--at-delta sets the δ; else 10⁻⁶)."
        )
        if all(v > 0.9999 for v in (w["advantage"], w["success"])):
            notes.append(
                "At that δ the worst case lets an attacker be right nearly always: as an (ε, δ) pair this "
                "guarantee promises next to nothing; its own column is what it promises."
            )
    for note in notes:
        out.print(note)
    out.print(f"Conversion: {doc['conversion']}.")


def _print_lee_clifton(doc: dict[str, Any]) -> None:
    n_, eps, r = doc["n"], doc["epsilon"], doc["ratio"]
    query = "any query (Δv = Δf)" if r == 1 else f"this query (Δv/Δf = {r:.4g})"
    table = Table(title=f"Lee and Clifton's risks of ε = {eps:.6g} for {query}, n = {n_:,}", show_header=True)
    for name in ("measure", "value", "what it is"):
        table.add_column(name, justify="right" if name == "value" else "left")
    ignores = " (ε alone: δ not counted)" if doc.get("delta") else ""
    table.add_row(
        "many-worlds risk ρ_mw",
        _risk(doc["many_worlds"]),
        f"the attacker picks the true one of {n_:,} worlds with {query}{ignores}",
    )
    table.add_row(
        "two-worlds risk ρ_tw", _risk(doc["two_worlds"]), f"in or out of one person, with {query}{ignores}"
    )
    table.add_row("global risk ρ_gl", _risk(doc["global_risk"]), "the worst case: n = 2, Δv = Δf (δ counted)")
    table.add_row("global leak Γ", _risk(doc["global_leak"]), "2ρ_gl − 1: the way from guessing to certainty")
    table.add_row("local leak γ", _risk(doc["local_leak"]), "(ρ_mw − 1/n)/(1 − 1/n)")
    table.add_row("guessing", percent(doc["guess"]), "1/n: right without any answer")
    out.print(table)
    out.print(doc["description"])


def _worst_name(w: dict[str, Any]) -> str:
    if w["delta"] == 0:
        return f"ε = {_plain_number(w['epsilon'])}"
    return f"(ε = {_plain_number(w['epsilon'])}, δ = {_plain_number(w['delta'])})"


def _plain_number(x: float) -> str:
    from privrisk._format import number

    return number(x)


def _risk(value: float) -> str:
    """A risk of a finite guarantee: below certainty even where double precision rounds it to 1."""
    from privrisk._format import below_certainty

    return percent(below_certainty(value))


def _cell(value: Any, fmt: str = "pct") -> str:
    if value is None:
        return "none: no finite ε" if fmt == "g" else "–"
    if isinstance(value, str):
        return value
    return _risk(value) if fmt == "pct" else _plain_number(value)


@app.command("epsilon")
def epsilon_command(
    risk: float = typer.Option(..., "--risk", help="The largest acceptable risk ρ, between 1/n and 1."),
    n: int = typer.Option(2, "--n", help="Possible worlds (2: the worst case)."),
    ratio: float | None = typer.Option(None, "--ratio", help="Δv/Δf (default 1)."),
    dv: float | None = typer.Option(None, "--dv", help="Local sensitivity Δv (with --df)."),
    df: float | None = typer.Option(None, "--df", help="Global sensitivity Δf (with --dv)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The largest ε that keeps the many-worlds risk at or below a target.

    Example: privrisk epsilon --risk 0.75        (prints ε = ln 3 = 1.0986)
    """
    from privrisk.accounting.risk_report import EpsilonSettings, run_epsilon

    run = run_epsilon(EpsilonSettings(risk=risk, n=n, ratio=ratio, dv=dv, df=df))
    if as_json:
        emit_json(run.to_dict())
        return
    eps, s = run.epsilon, run.settings
    out.print(
        f"ε ≤ {eps:.6g} (= ln {math.exp(eps):.6g}) keeps the risk at or below {s.risk:g} "
        f"for an attacker choosing among {s.n:,} possible worlds (Δv/Δf = {s.sensitivity_ratio:.4g})."
    )


def _label(text: str) -> str:
    return text.strip().replace("(", "").replace(")", "").replace("log", "ln").replace(" ", "")


@app.command("table")
def table_command(
    epsilons: str = typer.Option("ln2,ln3,ln7", "--epsilons", help="Comma-separated ε values."),
    ns: str = typer.Option("2,10,100", "--n", help="Comma-separated numbers of possible worlds (each ≥ 2)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Risk and leak for several ε and n, laid out like Table 1 of Mehner et al.

    Example: privrisk table --epsilons ln2,ln3,ln7 --n 2,10,100
    """
    from privrisk.accounting.risk_report import TableSettings, run_table

    run = run_table(TableSettings(epsilons=epsilons, ns=ns))
    if as_json:
        emit_json(run.to_dict())
        return
    labels = [_label(t) for t in epsilons.split(",") if t.strip()]
    table = Table(
        title="Risk and leak per ε (n = 2: global risk ρ_gl and global leak Γ; n > 2: many-worlds risk ρ_mw and local leak γ)"
    )
    table.add_column("ε", justify="left")
    n_values = run.ns
    for n_ in n_values:
        sym = ("P", "Γ") if n_ == 2 else ("ρ", "γ")
        table.add_column(f"n={n_} {sym[0]}", justify="right")
        table.add_column(f"n={n_} {sym[1]}", justify="right")
    for label, e in zip(labels, run.epsilons, strict=True):
        cells = []
        for n_ in n_values:
            row = run.row(e, n_)
            cells += [_risk(row["risk"]), _risk(row["leak"])]
        table.add_row(label, *cells)
    out.print(table)
    err.print(
        "P and ρ: probability that the attacker is right; Γ and γ: how far that is from guessing to certainty."
    )
