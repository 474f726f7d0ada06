"""``privrisk calibrate``: the least noise, or the largest ε, ρ, μ, sample rate or number of steps, for a target.

One target (``--target-advantage``, ``--target-success``, ``--target-tpr TPR@FPR``, ``--target-risk`` with ``--n``,
``--target-epsilon`` with ``--delta``), what to solve for (``--solve-for``, by default what ``--mechanism`` needs),
and the modifiers ``risk`` takes: ``--sample-rate`` (with ``--sampling``), ``--compose``, ``--group``. To solve
for the sample rate or the number of steps, the release is given as ``risk`` takes it (``--mechanism gaussian
--sigma 1.1``, ``--epsilon 1``, ``--rho 0.1``, …). Every ε option takes ``ln3``, ``ln(3)``, ``log(3)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import typer

from privrisk._params import command_options
from privrisk._validation import check_choice
from privrisk.cli._app import app
from privrisk.cli._common import PARAM_OPTIONS, emit_json, err, out, parse_epsilon
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.accounting import Guarantee

MECHANISMS = ("laplace", "gaussian", "rr")
SOLVE_FOR = ("epsilon", "rho", "mu", "scale", "sigma", "sample-rate", "steps")
SAMPLINGS = ("poisson", "without-replacement")
TARGETS = ("advantage", "success", "tpr", "risk", "epsilon")
# The library's parameters as this command's options (set again when it runs: cli.accounting, which reads the
# release's options, sets its own entry for this command when it is imported).
OPTIONS = {
    "sample_rate": "--sample-rate",
    "solve_for": "--solve-for",
    "delta": "--delta",
    "compose": "--compose",
    "group": "--group",
    "prior": "--prior",
}


def read_target(
    advantage: float | None,
    success: float | None,
    tpr: str | None,
    risk: float | None,
    epsilon: str | None,
) -> tuple[str, float, float | None]:
    """(target, value, fpr) from the one ``--target-*`` option given; one-line errors otherwise.

    Example:
        >>> read_target(None, None, "0.1@0.01", None, None)
        ('tpr', 0.1, 0.01)
        >>> round(read_target(None, None, None, None, "ln3")[1], 4)
        1.0986
    """
    options = {"advantage": advantage, "success": success, "tpr": tpr, "risk": risk, "epsilon": epsilon}
    given = [(name, v) for name, v in options.items() if v is not None]
    if len(given) != 1:
        got = " and ".join(f"--target-{n}" for n, _ in given) or "none"
        raise PrivriskError(
            f"--target-{given[1][0] if given else 'advantage'}: give exactly one of --target-advantage, "
            f"--target-success, --target-tpr A@FPR, --target-risk or --target-epsilon; got {got}"
        )
    name, value = given[0]
    if name == "epsilon":
        return name, parse_epsilon(str(value), name="--target-epsilon"), None
    if name != "tpr":
        return name, float(value), None
    head, at, tail = str(value).partition("@")
    try:
        return name, float(head), float(tail) if at else math.nan
    except ValueError:
        raise PrivriskError(f"--target-tpr: give TPR@FPR such as 0.1@0.01, got {value!r}") from None


def _positive(value: float | None, name: str) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise PrivriskError(f"{name}: must be a finite number greater than 0, got {value:g}")
    return value


@app.command("calibrate")
def calibrate_command(
    target_advantage: float | None = typer.Option(None, "--target-advantage", help="Largest advantage of the best attacker."),
    target_success: float | None = typer.Option(None, "--target-success", help="Largest success of the best attacker."),
    target_tpr: str | None = typer.Option(None, "--target-tpr", help="Largest true-positive rate at a false-positive rate: TPR@FPR, e.g. 0.1@0.01."),
    target_risk: float | None = typer.Option(None, "--target-risk", help="Largest risk of singling out one of --n people."),
    target_epsilon: str | None = typer.Option(None, "--target-epsilon", help="Largest ε at --delta (a number or ln3)."),
    n: int | None = typer.Option(None, "--n", help="Number of candidates (with --target-risk)."),
    mechanism: str | None = typer.Option(None, "--mechanism", help="laplace (solve for the scale), gaussian (σ) or rr (ε)."),
    solve_for: str | None = typer.Option(None, "--solve-for", help="epsilon, rho, mu, scale, sigma, sample-rate or steps (default: what --mechanism needs, else epsilon)."),
    epsilon: str | None = typer.Option(None, "--epsilon", "-e", help="ε of one release (a number or ln3), when solving for sample-rate or steps."),
    rho: float | None = typer.Option(None, "--rho", help="ρ of one release (zCDP), when solving for sample-rate or steps."),
    mu: float | None = typer.Option(None, "--mu", help="μ of one release (Gaussian DP), when solving for sample-rate or steps."),
    scale: float | None = typer.Option(None, "--scale", help="Laplace scale b of one release, when solving for sample-rate or steps."),
    sigma: float | None = typer.Option(None, "--sigma", help="Gaussian σ of one release (DP-SGD's noise multiplier), when solving for sample-rate or steps."),
    delta: float | None = typer.Option(None, "--delta", help="δ of --target-epsilon; else δ of (ε, δ)-DP (Gaussian σ of one release by the analytic Gaussian mechanism)."),
    sensitivity: float | None = typer.Option(None, "--sensitivity", help="Sensitivity Δ of the query (default 1)."),
    sample_rate: float | None = typer.Option(None, "--sample-rate", help="Each release sees a sample of rate G."),
    sampling: str | None = typer.Option(None, "--sampling", help="How the sample is drawn: poisson (default) or without-replacement (fixed-size batches)."),
    compose: int | None = typer.Option(None, "--compose", help="Compose K such releases (the steps of DP-SGD)."),
    group: int | None = typer.Option(None, "--group", help="Protect groups of K people (households) instead of one."),
    prior: float = typer.Option(0.5, "--prior", help="The attacker's prior that a person is in the data."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:  # fmt: skip
    """The least noise (or the largest ε, ρ, μ, sample rate or number of steps) that keeps a chosen risk at or below a target.

    Example: privrisk calibrate --target-advantage 0.2 --mechanism gaussian --sample-rate 0.004267 --compose 14063
    """
    from privrisk import accounting as A

    target, value, fpr = read_target(
        target_advantage, target_success, target_tpr, target_risk, target_epsilon
    )
    m = None if mechanism is None else check_choice(mechanism, MECHANISMS, name="--mechanism")
    fixed: dict[str, Any] = {
        "--epsilon": epsilon,
        "--rho": rho,
        "--mu": mu,
        "--scale": scale,
        "--sigma": sigma,
    }
    given = [name for name, v in fixed.items() if v is not None]
    default = {"laplace": "scale", "gaussian": "sigma", "rr": "epsilon", None: "epsilon"}[m]
    if solve_for is None and given:
        raise PrivriskError(
            f"--solve-for: with {given[0]} given, say what to solve for: --solve-for sample-rate or steps"
        )
    solve = check_choice((solve_for or default).replace("_", "-"), SOLVE_FOR, name="--solve-for")
    if target == "risk" and n is None:
        raise PrivriskError("--n: --target-risk needs the number of candidates --n")
    if n is not None and target != "risk":
        raise PrivriskError("--n: only with --target-risk")
    if target == "epsilon" and delta is None:
        raise PrivriskError("--delta: --target-epsilon bounds ε at a δ; give --delta")
    if delta is not None and not (math.isfinite(delta) and 0 <= delta < 1):
        raise PrivriskError(f"--delta: must be in [0, 1), got {delta:g}")
    how = check_choice(sampling or "poisson", SAMPLINGS, name="--sampling")
    if sampling is not None and sample_rate is None and solve != "sample-rate":
        raise PrivriskError("--sampling: only with --sample-rate (or --solve-for sample-rate)")
    release = None
    if solve in ("sample-rate", "steps"):
        # --delta is the release's own (--epsilon E --delta D) unless it is the δ of --target-epsilon.
        release = _release(m, fixed, given, sensitivity, None if target == "epsilon" else delta)
        m, sensitivity = None, None
        delta = delta if target == "epsilon" else None
    elif given:
        raise PrivriskError(
            f"{given[0]}: a given parameter of one release is for --solve-for sample-rate or steps"
        )
    PARAM_OPTIONS["calibrate"] = {
        **command_options()["calibrate"],
        **OPTIONS,
        "value": f"--target-{target}",
    }  # the value is the option given
    c = A.calibrate(
        target=target,  # type: ignore[arg-type]
        value=value,
        solve_for=solve.replace("-", "_"),  # type: ignore[arg-type]
        mechanism=m,  # type: ignore[arg-type]
        delta=delta,
        sensitivity=1.0 if sensitivity is None else _positive(sensitivity, "--sensitivity"),  # type: ignore[arg-type]
        fpr=fpr,
        n=n,
        prior=prior,
        sample_rate=sample_rate,
        compose=1 if compose is None else compose,
        group=1 if group is None else group,
        sampling=how.replace("-", "_"),  # type: ignore[arg-type]
        guarantee=release,
    )
    doc = {"target": c.target, "target_value": c.target_value, "fpr": fpr, "n": n, "prior": prior,
           "delta": c.delta, "solve_for": c.solve_for, "parameter": c.parameter, "achieved": c.achieved,
           "sample_rate": c.sample_rate, "sampling": how if c.sample_rate is not None else None,
           "compose": c.compose, "group": c.group, "method": c.method, "guarantee": c.guarantee.label,
           "conversion": c.guarantee.conversion}  # fmt: skip
    if as_json:
        emit_json(doc)
        return
    what = {"advantage": "an advantage", "success": "a success", "risk": f"a many-worlds risk among {n or 2:,} candidates",
            "tpr": f"a true-positive rate at false-positive rate {fpr if fpr is not None else 0:g}",
            "epsilon": ""}[target]  # fmt: skip
    best = "least" if solve in ("scale", "sigma") else "largest"
    symbol = {"epsilon": "ε", "rho": "ρ", "mu": "μ", "scale": "Laplace scale b", "sigma": "Gaussian σ",
              "sample-rate": "sample rate", "steps": "number of steps"}[solve]  # fmt: skip
    shown = f"{int(c.parameter):,}" if solve == "steps" else f"{c.parameter:.6g}"
    out.print(f"The {best} {symbol} is {shown}: {c.guarantee.label}.")
    if target == "epsilon":
        out.print(f"It gives ε = {c.achieved:.6g} at δ = {delta:g} (target {value:.6g}).")
    else:
        out.print(f"It gives the best attacker {what} of {c.achieved:.6g} (target {value:g}).")
    err.print(f"Method: {c.method}.")


def _release(
    m: str | None, fixed: dict[str, Any], given: list[str], sensitivity: float | None, delta: float | None
) -> Guarantee:
    """The guarantee of one release, given as ``risk`` takes it, for solving the sample rate or the steps."""
    from privrisk.cli.accounting import guarantee_from_options

    if not given and m is None:
        raise PrivriskError(
            "--solve-for: to solve for the sample rate or the steps, give one release: --epsilon E, --rho R, "
            "--mu M or --mechanism laplace|gaussian|rr with its parameter"
        )
    return guarantee_from_options(
        epsilon=fixed["--epsilon"],
        delta=delta,
        rho=fixed["--rho"],
        mu=fixed["--mu"],
        mechanism=m,
        scale=fixed["--scale"],
        sigma=fixed["--sigma"],
        sensitivity=sensitivity,
    )
