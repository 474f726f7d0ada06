"""``privrisk risk``, ``privrisk epsilon`` and ``privrisk table``: ε → risk and back.

Each command maps its options onto the library's settings (:mod:`privrisk.accounting.risk_report`), calls its run
function and prints the result; the rules live in the settings, and :func:`privrisk.cli.main` names an error's
parameter as the option (privrisk/_params.py). The library is imported inside the commands, so that ``--help``
stays quick.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

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
    FILE.json; modifiers --sample-rate (--sampling), --compose, --group.

    Example: privrisk risk --dpsgd 60000,256,1 --sigma 1.1 --at-delta 1e-5
    """
    # Every rule lives in the library's settings (privrisk.accounting.risk_report); main() names the options.
    from privrisk.accounting.risk_report import RiskSettings, run_risk

    spec = A.guarantee_spec(epsilon=epsilon, delta=delta, rho=rho, mu=mu, renyi=renyi, mechanism=mechanism,
                            scale=scale, sigma=sigma, sensitivity=sensitivity, categories=categories, dpsgd=dpsgd,
                            releases=releases, opacus_history=opacus_history, compose=compose,
                            sample_rate=sample_rate, sampling=sampling, group=group)  # fmt: skip
    settings = RiskSettings(spec, prior=prior, fpr=fpr, n=n, at_delta=at_delta, at_epsilon=at_epsilon,
                            ratio=ratio, dv=dv, df=df, max_risk=max_risk)  # fmt: skip
    run = run_risk(settings, names=A.OPTION_NAMES)
    doc = run.to_dict()
    if as_json:
        emit_json(doc)
    else:
        _print_risks(doc, n)
    if run.exceeds():
        value, what = run.risk_for_threshold
        raise ThresholdExceeded(f"{what}, {value:.4g}, exceeds --max-risk {max_risk:g}", param="max_risk")


def _print_risks(doc: dict[str, Any], n: int | None) -> None:
    if "many_worlds" in doc:
        n_, eps, r = doc["n"], doc["epsilon"], doc["ratio"]
        table = Table(title=f"ε = {eps:.6g}, n = {n_:,}, Δv/Δf = {r:.4g}", show_header=True)
        for name in ("measure", "value", "what it is"):
            table.add_column(name, justify="right" if name == "value" else "left")
        table.add_row(
            "many-worlds risk ρ_mw", f"{doc['many_worlds']:.4f}", f"attacker picks the true world of {n_:,}"
        )
        table.add_row(
            "two-worlds risk ρ_tw", f"{doc['two_worlds']:.4f}", "attacker decides in or out of one person"
        )
        table.add_row("global risk ρ_gl", f"{doc['global_risk']:.4f}", "worst case: n = 2, Δv = Δf")
        table.add_row(
            "global leak Γ", f"{doc['global_leak']:.4f}", "2ρ_gl − 1: the way from guessing to certainty"
        )
        table.add_row("local leak γ", f"{doc['local_leak']:.4f}", "(ρ_mw − 1/n)/(1 − 1/n)")
        table.add_row("guessing", f"{doc['guess']:.4f}", "1/n: right without any answer")
        out.print(table)
        out.print(doc["description"])
    w = doc["worst_case"]
    table = Table(title=f"{doc['guarantee']}: the best attacker (prior {doc['prior']:g})", show_header=True)
    for name in ("measure", "this guarantee", "worst case"):
        table.add_column(name, justify="left" if name == "measure" else "right")
    table.add_row("advantage", _cell(doc["advantage"]), _cell(w["advantage"]))
    table.add_row("success", _cell(doc["success"]), _cell(w["success"]))
    table.add_row("largest posterior", _cell(doc["posterior_max"]), _cell(w["posterior_max"]))
    for mine, worst in zip(doc["tpr_at_fpr"], w["tpr_at_fpr"], strict=True):
        table.add_row(f"TPR at FPR α = {mine['fpr']:g}", _cell(mine["tpr"]), _cell(worst["tpr"]))
    if doc["reconstruction"] is not None:
        table.add_row(f"risk among n = {n:,}", _cell(doc["reconstruction"]), _cell(w["reconstruction"]))
    for key, label in (("epsilon_at_delta", "ε at δ"), ("delta_at_epsilon", "δ at ε")):
        if doc.get(key) is not None or w.get(key) is not None:
            table.add_row(label, _cell(doc.get(key), "g"), _cell(w.get(key), "g"))
    out.print(table)
    out.print(
        "This guarantee: the exact mechanism (or definition) given; worst case: the worst mechanism with the same "
        "(ε, δ). Advantage = TPR − FPR of the best test; success = its chance to be right; TPR at FPR α: "
        "true-positive rate at false-positive rate α; risk among n: many-worlds risk ρ_mw (f-DP bound 1 − β(1/n))."
    )
    out.print(f"Conversion: {doc['conversion']}.")


def _cell(value: Any, fmt: str = "pct") -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    return percent(value) if fmt == "pct" else f"{value:.4g}"


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
            cells += [percent(row["risk"]), percent(row["leak"])]
        table.add_row(label, *cells)
    out.print(table)
    err.print(
        "P and ρ: probability that the attacker is right; Γ and γ: how far that is from guessing to certainty."
    )
