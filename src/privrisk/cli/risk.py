"""``privrisk risk``, ``privrisk epsilon`` and ``privrisk table``: ε → risk and back."""

from __future__ import annotations

import math

import typer
from rich.table import Table

from privrisk import risk as R
from privrisk._validation import check_probability
from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out, parse_epsilon, parse_epsilons, percent, ratio_from
from privrisk.errors import PrivriskError, ThresholdExceeded

EPSILON_HELP = "ε: a number or a natural logarithm such as ln3, ln(3), log(3)."


def _whole(value: int, name: str, minimum: int = 2) -> int:
    if value < minimum:
        raise PrivriskError(f"{name}: must be at least {minimum}, got {value}")
    return value


@app.command("risk")
def risk_command(
    epsilon: str = typer.Option(..., "--epsilon", "-e", help=EPSILON_HELP),
    n: int = typer.Option(2, "--n", help="Possible worlds the attacker chooses among (2: the worst case)."),
    ratio: float | None = typer.Option(
        None, "--ratio", help="Δv/Δf, local over global sensitivity (default 1)."
    ),
    dv: float | None = typer.Option(None, "--dv", help="Local sensitivity Δv (with --df)."),
    df: float | None = typer.Option(None, "--df", help="Global sensitivity Δf (with --dv)."),
    delta: float = typer.Option(0.0, "--delta", help="δ of (ε, δ)-DP, for the global risk."),
    max_risk: float | None = typer.Option(
        None, "--max-risk", help="Exit with code 1 if the many-worlds risk exceeds this probability."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The probability that an attacker tells whether a person is in the data, for one ε.

    Example: privrisk risk --epsilon ln3 --n 10
    """
    eps = parse_epsilon(epsilon, name="--epsilon")
    if max_risk is not None:
        check_probability(max_risk, name="--max-risk")
    n_ = _whole(n, "--n")
    r = ratio_from(ratio, dv, df)
    if not 0 <= delta <= 1:
        raise PrivriskError(f"--delta: must be in [0, 1], got {delta:g}")
    mw = R.many_worlds(eps, n_, r)
    doc = {
        "epsilon": eps,
        "n": n_,
        "ratio": r,
        "delta": delta,
        "many_worlds": mw,
        "two_worlds": R.two_worlds(eps, r),
        "global_risk": R.global_risk(eps, delta),
        "global_leak": R.global_leak(eps, delta),
        "local_leak": R.leak(mw, n_),
        "guess": 1.0 / n_,
        "description": R.describe(eps, n_ if n_ > 2 else None, r),
    }
    if as_json:
        emit_json(doc)
    else:
        table = Table(title=f"ε = {eps:.6g}, n = {n_:,}, Δv/Δf = {r:.4g}", show_header=True)
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_column("what it is")
        table.add_row(
            "many-worlds ρ_mw", f"{doc['many_worlds']:.4f}", f"attacker picks the true world of {n_:,}"
        )
        table.add_row(
            "two-worlds ρ_tw", f"{doc['two_worlds']:.4f}", "attacker decides in or out of one person"
        )
        table.add_row("global risk P", f"{doc['global_risk']:.4f}", "worst case: n = 2, Δv = Δf")
        table.add_row(
            "global leak Γ", f"{doc['global_leak']:.4f}", "2P − 1: the way from guessing to certainty"
        )
        table.add_row("local leak γ", f"{doc['local_leak']:.4f}", "(ρ_mw − 1/n)/(1 − 1/n)")
        table.add_row("guessing", f"{doc['guess']:.4f}", "1/n: right without any answer")
        out.print(table)
        out.print(doc["description"])
    if max_risk is not None and mw > max_risk:
        raise ThresholdExceeded(f"many-worlds risk {mw:.4f} exceeds --max-risk {max_risk:g}")


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
    rows = R.risk_rows(eps, n_values)
    if as_json:
        emit_json({"rows": rows})
        return
    labels = [_label(t) for t in epsilons.split(",") if t.strip()]
    table = Table(title="Risk and leak per ε (n = 2: global risk P and leak Γ; n > 2: ρ and γ)")
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
