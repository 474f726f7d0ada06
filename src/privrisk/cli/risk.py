"""``privrisk risk``, ``privrisk epsilon`` and ``privrisk table``: ε → risk and back."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from privrisk._validation import check_probability
from privrisk.cli import accounting as A
from privrisk.cli._app import app
from privrisk.cli._common import (
    emit_json,
    err,
    floats,
    out,
    parse_epsilon,
    parse_epsilons,
    percent,
    ratio_from,
)
from privrisk.errors import PrivriskError, ThresholdExceeded


def _whole(value: int, name: str, minimum: int = 2) -> int:
    if value < minimum:
        raise PrivriskError(f"{name}: must be at least {minimum}, got {value}")
    return value


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
    from privrisk import accounting as acc

    g = A.guarantee_from_options(epsilon=epsilon, delta=delta, rho=rho, mu=mu, renyi=renyi, mechanism=mechanism,
                                 scale=scale, sigma=sigma, sensitivity=sensitivity, categories=categories,
                                 dpsgd=dpsgd, releases=releases, opacus_history=opacus_history, compose=compose,
                                 sample_rate=sample_rate, sampling=sampling, group=group)  # fmt: skip
    if max_risk is not None:
        check_probability(max_risk, name="--max-risk")
    check_probability(prior, name="--prior", open_low=True, open_high=True)
    rates = floats(fpr, name="--fpr")
    check_probability(rates, name="--fpr")
    if at_delta is not None and not (math.isfinite(at_delta) and 0 <= at_delta < 1):
        raise PrivriskError(f"--at-delta: must be in [0, 1), got {at_delta:g}")
    at_eps = None if at_epsilon is None else parse_epsilon(at_epsilon, name="--at-epsilon", allow_zero=True)
    n_ = _whole(n if n is not None else 2, "--n")
    # Today's keys (Lee and Clifton's risks, Mehner et al.'s P and Γ) stay for a pure ε and for --epsilon/--delta.
    plain = mechanism is None and epsilon is not None and not (compose or sample_rate or group)
    plain = plain and renyi is None and dpsgd is None and releases is None and opacus_history is None
    pure = g.pure_epsilon
    if pure is None and not plain and (ratio is not None or dv is not None or df is not None):
        raise PrivriskError("--ratio: Δv/Δf applies to a pure ε guarantee only (Lee and Clifton's risks)")
    summary = acc.risk_summary(g, prior=prior, fpr=tuple(rates), n=n, at_delta=at_delta, at_epsilon=at_eps)
    doc: dict[str, Any] = {}
    if pure is not None or plain:
        eps = pure if pure is not None else parse_epsilon(epsilon or "", name="--epsilon")
        d = 0.0 if pure is not None else float(delta or 0.0)
        doc = _lee_clifton(eps, d, n_, ratio_from(ratio, dv, df))
    doc.update({"prior": prior, **summary})
    if as_json:
        emit_json(doc)
    else:
        _print_risks(doc, n)
    if max_risk is not None:
        # The risk of the whole guarantee: Lee and Clifton's ρ_mw (with Δv/Δf) for a pure ε, else the f-DP
        # risk among n, 1 − β(1/n), which counts δ (their ρ_mw of an (ε, δ) guarantee would ignore it).
        if pure is not None:
            mw, what = doc["many_worlds"], "the many-worlds risk"
        else:
            mw, what = acc.reconstruction_risk(g, n_), f"the risk among n = {n_:,}"
        if mw > max_risk:
            raise ThresholdExceeded(f"{what}, {mw:.4g}, exceeds --max-risk {max_risk:g}")


def _lee_clifton(eps: float, delta: float, n: int, r: float) -> dict[str, Any]:
    from privrisk import risk as R  # numpy: not needed for --help

    mw = R.many_worlds(eps, n, r)
    return {
        "epsilon": eps,
        "n": n,
        "ratio": r,
        "delta": delta,
        "many_worlds": mw,
        "two_worlds": R.two_worlds(eps, r),
        "global_risk": R.global_risk(eps, delta),
        "global_leak": R.global_leak(eps, delta),
        "local_leak": R.leak(mw, n),
        "guess": 1.0 / n,
        "description": R.describe(eps, n if n > 2 else None, r),
    }


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
    n_ = _whole(n, "--n")
    r = ratio_from(ratio, dv, df)
    if not math.isfinite(risk):
        raise PrivriskError("--risk: must be a probability")
    from privrisk import risk as R

    eps = R.epsilon_for_risk(risk, n_, r)
    if not math.isfinite(eps):
        raise PrivriskError(
            f"--ratio: Δv/Δf = {r:.4g} is so small that the ε for risk {risk:g} is not finite; give a larger ratio"
        )
    if as_json:
        emit_json({"risk": risk, "n": n_, "ratio": r, "epsilon": eps})
        return
    out.print(
        f"ε ≤ {eps:.6g} (= ln {math.exp(eps):.6g}) keeps the risk at or below {risk:g} "
        f"for an attacker choosing among {n_:,} possible worlds (Δv/Δf = {r:.4g})."
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
    eps = parse_epsilons(epsilons, name="--epsilons")
    try:
        n_values = [int(x) for x in ns.split(",") if x.strip()]
    except ValueError:
        raise PrivriskError(f"--n: {ns!r} is not a list of whole numbers") from None
    if not n_values or min(n_values) < 2:
        raise PrivriskError("--n: give whole numbers of at least 2")
    from privrisk import risk as R

    rows = R.risk_rows(eps, n_values)
    if as_json:
        emit_json({"rows": rows})
        return
    labels = [_label(t) for t in epsilons.split(",") if t.strip()]
    table = Table(
        title="Risk and leak per ε (n = 2: global risk ρ_gl and global leak Γ; n > 2: many-worlds risk ρ_mw and local leak γ)"
    )
    table.add_column("ε", justify="left")
    for n_ in n_values:
        sym = ("P", "Γ") if n_ == 2 else ("ρ", "γ")
        table.add_column(f"n={n_} {sym[0]}", justify="right")
        table.add_column(f"n={n_} {sym[1]}", justify="right")
    for label, e in zip(labels, eps, strict=True):
        cells = []
        for n_ in n_values:
            row = next(r for r in rows if r["epsilon"] == e and r["n"] == n_)
            cells += [percent(row["risk"]), percent(row["leak"])]
        table.add_row(label, *cells)
    out.print(table)
    err.print(
        "P and ρ: probability that the attacker is right; Γ and γ: how far that is from guessing to certainty."
    )
