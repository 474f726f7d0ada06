"""``privrisk tradeoff``, and the guarantee options that ``risk``, ``tradeoff`` and ``explain`` share.

A guarantee is given exactly one way: ``--epsilon E [--delta D]``, ``--rho R``, ``--mu M``, ``--renyi
"2:0.5,4:1.1"``, a mechanism ``--mechanism laplace|gaussian|rr|discrete-laplace|discrete-gaussian`` with
``--epsilon``, ``--scale`` or ``--sigma`` (and ``--sensitivity``, ``--categories K`` for k-ary randomized
response), DP-SGD ``--dpsgd N,B,EPOCHS --sigma S``, a mixed composition ``--releases FILE.toml`` or an Opacus
accountant's history ``--opacus-history FILE.json``; then the modifiers ``--sample-rate`` (with ``--sampling
poisson|without-replacement``), ``--compose`` and ``--group`` apply in that order. Every rule lives in
:class:`privrisk.accounting.GuaranteeSpec`: :func:`guarantee_spec` maps the options onto its fields, and the
commands build it with the options named in its messages. The library is imported
inside the functions, so that ``--help`` and the light commands stay quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err
from privrisk.cli._names import option_or_default

if TYPE_CHECKING:
    from privrisk.accounting import GuaranteeSpec

MECHANISMS = ("laplace", "gaussian", "rr", "discrete-laplace", "discrete-gaussian")

# Options shared by risk, tradeoff and explain (Typer reads each default when it builds a command).
EPSILON = typer.Option(None, "--epsilon", "-e", help="ε of ε-DP or (ε, δ)-DP (a number or ln3), or of --mechanism.")  # fmt: skip
DELTA = typer.Option(None, "--delta", help="δ of (ε, δ)-DP (with --epsilon).")
RHO = typer.Option(None, "--rho", help="ρ of ρ-zero-concentrated DP (zCDP).")
MU = typer.Option(None, "--mu", help="μ of μ-Gaussian DP.")
RENYI = typer.Option(None, "--renyi", help='A Rényi DP curve, order:ε pairs, e.g. "2:0.5,4:1.1,8:2.3".')
MECHANISM = typer.Option(None, "--mechanism", help="The exact mechanism: laplace, gaussian, rr, discrete-laplace or discrete-gaussian.")  # fmt: skip
SCALE = typer.Option(None, "--scale", help="Laplace scale b (with --mechanism laplace or discrete-laplace).")
SIGMA = typer.Option(None, "--sigma", help="Gaussian σ (with --mechanism gaussian or discrete-gaussian); DP-SGD's noise multiplier (with --dpsgd).")  # fmt: skip
SENSITIVITY = typer.Option(None, "--sensitivity", help="Sensitivity Δ of the query (default 1).")
CATEGORIES = typer.Option(None, "--categories", help="Categories k of randomized response (with --mechanism rr; default 2).")  # fmt: skip
DPSGD = typer.Option(None, "--dpsgd", help="DP-SGD: dataset size, batch size, epochs as N,B,EPOCHS (with --sigma, the noise multiplier).")  # fmt: skip
RELEASES = typer.Option(None, "--releases", help="A mixed composition: a TOML file of [[release]] tables (see the README).")  # fmt: skip
OPACUS_HISTORY = typer.Option(None, "--opacus-history", help="An Opacus accountant's history: a JSON list of [noise_multiplier, sample_rate, steps].")  # fmt: skip
COMPOSE = typer.Option(None, "--compose", help="Compose K such releases.")
SAMPLE_RATE = typer.Option(None, "--sample-rate", help="Each release sees a random sample of rate G.")
SAMPLING = typer.Option(None, "--sampling", help="How the sample is drawn: poisson (default) or without-replacement (fixed-size batches).")  # fmt: skip
GROUP = typer.Option(None, "--group", help="Protect groups of K people (households) instead of one.")

#: The option of each field of GuaranteeSpec, for its messages (each field is the option of its name: the fields
#: are read from the command line's table, privrisk/cli/_names.py, so a renamed option follows).
OPTION_NAMES = {
    name: option_or_default(name, "risk")
    for name in (
        "epsilon", "delta", "rho", "mu", "renyi", "mechanism", "scale", "sigma", "sensitivity", "categories",
        "dpsgd", "releases", "opacus_history", "sample_rate", "sampling", "compose", "group", "cell_key", "cells",
        "registry", "pram", "rounding",
    )
}  # fmt: skip


def guarantee_spec(**options: Any) -> GuaranteeSpec:
    """The :class:`~privrisk.accounting.GuaranteeSpec` of the options, field for field: each guarantee option is
    named after its field (``--sample-rate`` → ``sample_rate``). The library reads the files of ``--releases``,
    ``--opacus-history`` and the census methods and checks every field when it builds the guarantee."""
    from privrisk.accounting.spec import GuaranteeSpec

    return GuaranteeSpec(**options)


# --------------------------------------------------------------------------------------------------------------
# privrisk tradeoff
# --------------------------------------------------------------------------------------------------------------


@app.command("tradeoff")
def tradeoff_command(
    out_path: Path = typer.Option(..., "--out", "-o", help="The figure to write: a .svg or .png file."),
    epsilon: str | None = EPSILON,
    delta: float | None = DELTA,
    rho: float | None = RHO,
    mu: float | None = MU,
    renyi: str | None = RENYI,
    mechanism: str | None = MECHANISM,
    scale: float | None = SCALE,
    sigma: float | None = SIGMA,
    sensitivity: float | None = SENSITIVITY,
    categories: int | None = CATEGORIES,
    dpsgd: str | None = DPSGD,
    releases: Path | None = RELEASES,
    opacus_history: Path | None = OPACUS_HISTORY,
    compose: int | None = COMPOSE,
    sample_rate: float | None = SAMPLE_RATE,
    sampling: str | None = SAMPLING,
    group: int | None = GROUP,
    at_delta: float | None = typer.Option(
        None, "--at-delta", help="δ of the worst case (default 10⁻⁶ if not pure)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Also print the curves as one JSON document."),
) -> None:
    """Draw the trade-off curve β(α) of a guarantee beside the worst case with the same (ε, δ).

    Example: privrisk tradeoff --mechanism laplace --epsilon 1 --out curve.svg
    """
    from privrisk.reports.run import TradeoffSettings, check_figure_target, run_tradeoff

    spec = guarantee_spec(epsilon=epsilon, delta=delta, rho=rho, mu=mu, renyi=renyi, mechanism=mechanism, scale=scale,
                          sigma=sigma, sensitivity=sensitivity, categories=categories, dpsgd=dpsgd, releases=releases,
                          opacus_history=opacus_history, compose=compose, sample_rate=sample_rate, sampling=sampling,
                          group=group)  # fmt: skip
    settings = TradeoffSettings(spec, at_delta=at_delta, names=OPTION_NAMES)
    target = check_figure_target(out_path)
    run = run_tradeoff(settings)
    run.write_figure(target)
    if as_json:
        emit_json(run.to_dict(out=target))
        return
    g, worst = run.guarantee, run.worst_case
    err.print(f"Wrote {target}: β(α) of {g.label} ({g.conversion}) beside the worst case {worst.label}.")
