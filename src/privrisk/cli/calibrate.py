"""``privrisk calibrate``: the least noise, or the largest ε, ρ, μ, sample rate or number of steps, for a target.

One target (``--target-advantage``, ``--target-success``, ``--target-tpr TPR@FPR``, ``--target-risk`` with ``--n``,
``--target-epsilon`` with ``--delta``), what to solve for (``--solve-for``, by default what ``--mechanism`` needs),
and the modifiers ``risk`` takes: ``--sample-rate`` (with ``--sampling``), ``--compose``, ``--group``. To solve
for the sample rate or the number of steps, the release is given as ``risk`` takes it (``--mechanism gaussian
--sigma 1.1``, ``--epsilon 1``, ``--rho 0.1``, …). Every ε option takes ``ln3``, ``ln(3)``, ``log(3)``.
"""

from __future__ import annotations

from dataclasses import fields

import typer

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out
from privrisk.cli._names import option_or_default

#: The targets, one option each.
TARGETS = ("advantage", "success", "tpr", "risk", "epsilon")


def option_names() -> dict[str, str]:
    """How this command names each field of the settings (and of the release's guarantee): its option.

    The targets are named by their ``--target-*`` options (the settings name the value after the target given);
    the others are read from the command line's table (:mod:`privrisk.cli._names`), else ``--`` + the field
    with dashes.

    Example:
        >>> names = option_names()
        >>> names["target_tpr"], names["fpr"], names["sample_rate"]
        ('--target-tpr', '--target-tpr', '--sample-rate')
    """
    from privrisk.accounting.calibration_settings import CalibrationSettings
    from privrisk.accounting.spec import GuaranteeSpec

    names = {f.name for f in (*fields(CalibrationSettings), *fields(GuaranteeSpec))} - {"names", "name"}
    table = {name: option_or_default(name, "calibrate") for name in sorted(names)}
    return {**table, **{f"target_{t}": f"--target-{t}" for t in TARGETS}}


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
    from privrisk.accounting.calibration_settings import CalibrationSettings, run_calibration

    targets = dict(
        zip(TARGETS, (target_advantage, target_success, target_tpr, target_risk, target_epsilon), strict=True)
    )
    settings = CalibrationSettings(target=targets, fpr=None, n=n, solve_for=solve_for, mechanism=mechanism,
                                   epsilon=epsilon, rho=rho, mu=mu, scale=scale, sigma=sigma, delta=delta,
                                   sensitivity=sensitivity, sample_rate=sample_rate, sampling=sampling,
                                   compose=compose, group=group, prior=prior, names=option_names())  # fmt: skip
    run = run_calibration(settings)
    c, doc, s = run.calibration, run.to_dict(), run.settings
    if as_json:
        emit_json(doc)
        return
    what = {"advantage": "an advantage", "success": "a success", "risk": f"a many-worlds risk among {s.n or 2:,} candidates",
            "tpr": f"a true-positive rate at false-positive rate {s.fpr if s.fpr is not None else 0:g}",
            "epsilon": ""}[str(s.target)]  # fmt: skip
    best = "least" if c.solve_for in ("scale", "sigma") else "largest"
    symbol = {"epsilon": "ε", "rho": "ρ", "mu": "μ", "scale": "Laplace scale b", "sigma": "Gaussian σ",
              "sample_rate": "sample rate", "steps": "number of steps"}[c.solve_for]  # fmt: skip
    shown = f"{int(c.parameter):,}" if c.solve_for == "steps" else f"{c.parameter:.6g}"
    out.print(f"The {best} {symbol} is {shown}: {c.guarantee.label}.")
    if s.target == "epsilon":
        out.print(f"It gives ε = {c.achieved:.6g} at δ = {s.delta:g} (target {c.target_value:.6g}).")
    else:
        out.print(f"It gives the best attacker {what} of {c.achieved:.6g} (target {c.target_value:g}).")
    err.print(f"Method: {c.method}.")
