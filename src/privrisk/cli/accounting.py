"""``privrisk tradeoff``, and the guarantee options that ``risk`` and ``explain`` share.

A guarantee is given exactly one way: ``--epsilon E [--delta D]``, ``--rho R``, ``--mu M``, or a mechanism
``--mechanism laplace|gaussian|rr`` with ``--epsilon``, ``--scale`` or ``--sigma`` and ``--sensitivity``; then
the modifiers ``--sample-rate``, ``--compose`` and ``--group`` apply in that order (each release is subsampled,
the releases compose, a group of k people shares the result). :func:`guarantee_from_options` turns the options
into a :class:`privrisk.accounting.Guarantee`; the library is imported inside the functions, so that ``--help``
and the light commands stay quick.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.cli._app import app
from privrisk.cli._common import PARAM_OPTIONS, emit_json, err, parse_epsilon
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.accounting import Guarantee

MECHANISMS = ("laplace", "gaussian", "rr")
ONE_GUARANTEE = (
    "give exactly one guarantee: --epsilon E [--delta D], --rho R, --mu M or --mechanism laplace|gaussian|rr"
)

# Options shared by risk, tradeoff and explain (Typer reads each default when it builds a command).
EPSILON = typer.Option(None, "--epsilon", "-e", help="ε of ε-DP or (ε, δ)-DP (a number or ln3), or of --mechanism.")  # fmt: skip
DELTA = typer.Option(None, "--delta", help="δ of (ε, δ)-DP (with --epsilon).")
RHO = typer.Option(None, "--rho", help="ρ of ρ-zero-concentrated DP (zCDP).")
MU = typer.Option(None, "--mu", help="μ of μ-Gaussian DP.")
MECHANISM = typer.Option(None, "--mechanism", help="The exact mechanism: laplace, gaussian or rr.")
SCALE = typer.Option(None, "--scale", help="Laplace scale b (with --mechanism laplace).")
SIGMA = typer.Option(None, "--sigma", help="Gaussian standard deviation σ (with --mechanism gaussian).")
SENSITIVITY = typer.Option(None, "--sensitivity", help="Sensitivity Δ of the query (default 1).")
COMPOSE = typer.Option(None, "--compose", help="Compose K such releases.")
SAMPLE_RATE = typer.Option(None, "--sample-rate", help="Each release sees a Poisson sample of rate G.")
GROUP = typer.Option(None, "--group", help="Protect groups of K people (households) instead of one.")

for _command in ("risk", "tradeoff", "explain"):
    PARAM_OPTIONS.setdefault(_command, {}).update({"rate": "--sample-rate", "truth_probability": "--epsilon"})


def guarantee_from_options(
    *,
    epsilon: str | None = None,
    delta: float | None = None,
    rho: float | None = None,
    mu: float | None = None,
    mechanism: str | None = None,
    scale: float | None = None,
    sigma: float | None = None,
    sensitivity: float | None = None,
    compose: int | None = None,
    sample_rate: float | None = None,
    group: int | None = None,
) -> Guarantee:
    """The guarantee the options describe; one-line errors that name the options for anything else.

    Example:
        >>> guarantee_from_options(mu=1.0, compose=4).delta_at(0.0) > guarantee_from_options(mu=1.0).delta_at(0.0)
        True
    """
    from privrisk import accounting as A

    given = {"--epsilon": epsilon, "--rho": rho, "--mu": mu}
    named = [name for name, value in given.items() if value is not None]
    if mechanism is None:
        extra = [
            n
            for n, v in (("--scale", scale), ("--sigma", sigma), ("--sensitivity", sensitivity))
            if v is not None
        ]
        if extra:
            raise PrivriskError(f"{extra[0]}: only with --mechanism laplace|gaussian|rr")
        if len(named) != 1:
            got = " and ".join(named) if named else "none"
            raise PrivriskError(f"{named[1] if named else '--epsilon'}: {ONE_GUARANTEE}; got {got}")
        if delta is not None and epsilon is None:
            raise PrivriskError(f"--delta: only with --epsilon (ε, δ)-DP, not with {named[0]}")
        if epsilon is not None:
            eps = parse_epsilon(epsilon, name="--epsilon")
            g = A.pure_dp(eps) if not delta else A.approximate_dp(eps, _delta(delta))
        elif rho is not None:
            g = A.zcdp(_positive(rho, "--rho"))
        else:
            g = A.gaussian_dp(_positive(mu, "--mu"))
    else:
        g = _mechanism(check_choice(mechanism, MECHANISMS, name="--mechanism"), named, delta, epsilon,
                       scale, sigma, sensitivity)  # fmt: skip
    if sample_rate is not None:
        rate = float(check_probability(sample_rate, name="--sample-rate", open_low=True))
        if rate < 1:
            g = A.subsample(g, rate)
    if compose is not None and check_whole(compose, name="--compose", minimum=1) > 1:
        g = g.compose(int(compose))
    if group is not None and check_whole(group, name="--group", minimum=1) > 1:
        g = A.group(g, int(group))
    return g


def _mechanism(
    m: str,
    named: list[str],
    delta: float | None,
    epsilon: str | None,
    scale: float | None,
    sigma: float | None,
    sensitivity: float | None,
) -> Guarantee:
    from privrisk import accounting as A

    for name in ("--rho", "--mu"):
        if name in named:
            raise PrivriskError(
                f"{name}: not with --mechanism (a mechanism is its own guarantee); {ONE_GUARANTEE}"
            )
    if delta is not None:
        raise PrivriskError("--delta: not with --mechanism (the mechanism's own profile gives δ at every ε)")
    delta_f = 1.0 if sensitivity is None else _positive(sensitivity, "--sensitivity")
    wanted = {"laplace": ("--epsilon", "--scale"), "gaussian": ("--sigma",), "rr": ("--epsilon",)}[m]
    values = {"--epsilon": epsilon, "--scale": scale, "--sigma": sigma}
    present = [name for name, value in values.items() if value is not None]
    wrong = [name for name in present if name not in wanted]
    if wrong:
        raise PrivriskError(f"{wrong[0]}: not with --mechanism {m}; give {' or '.join(wanted)}")
    if len(present) != 1:
        raise PrivriskError(f"{wanted[0]}: --mechanism {m} needs exactly one of {', '.join(wanted)}")
    if m == "laplace":
        if epsilon is not None:
            return A.laplace_mechanism(epsilon=parse_epsilon(epsilon, name="--epsilon"), sensitivity=delta_f)
        return A.laplace_mechanism(scale=_positive(scale, "--scale"), sensitivity=delta_f)
    if m == "gaussian":
        return A.gaussian_mechanism(sigma=_positive(sigma, "--sigma"), sensitivity=delta_f)
    if sensitivity is not None:
        raise PrivriskError("--sensitivity: randomized response has no sensitivity")
    return A.randomized_response(epsilon=parse_epsilon(epsilon or "", name="--epsilon"))


def _positive(value: Any, name: str) -> float:
    x = float(value)
    if not (math.isfinite(x) and x > 0):
        raise PrivriskError(f"{name}: must be a finite number greater than 0, got {value:g}")
    return x


def _delta(value: float, name: str = "--delta") -> float:
    if not (math.isfinite(value) and 0 <= value < 1):
        raise PrivriskError(f"{name}: must be in [0, 1), got {value:g}")
    return float(value)


# --------------------------------------------------------------------------------------------------------------
# privrisk calibrate
# --------------------------------------------------------------------------------------------------------------

SOLVE_FOR = ("epsilon", "rho", "mu", "scale", "sigma")
PARAM_OPTIONS["calibrate"] = {"fpr": "--target-tpr"}


def _target(
    advantage: float | None, success: float | None, tpr: str | None, risk: float | None
) -> tuple[str, float, float | None]:
    given = [
        (name, v)
        for name, v in (("advantage", advantage), ("success", success), ("tpr", tpr), ("risk", risk))
        if v is not None
    ]
    if len(given) != 1:
        got = " and ".join(f"--target-{n}" for n, _ in given) or "none"
        raise PrivriskError(
            f"--target-{given[1][0] if given else 'advantage'}: give exactly one of --target-advantage, "
            f"--target-success, --target-tpr A@FPR or --target-risk; got {got}"
        )
    name, value = given[0]
    if name != "tpr":
        return name, float(value), None
    head, at, tail = str(value).partition("@")
    try:
        return name, float(head), float(tail) if at else math.nan
    except ValueError:
        raise PrivriskError(f"--target-tpr: give TPR@FPR such as 0.1@0.01, got {value!r}") from None


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
    mechanism: str | None = MECHANISM,
    scale: float | None = SCALE,
    sigma: float | None = SIGMA,
    sensitivity: float | None = SENSITIVITY,
    compose: int | None = COMPOSE,
    sample_rate: float | None = SAMPLE_RATE,
    group: int | None = GROUP,
    at_delta: float | None = typer.Option(
        None, "--at-delta", help="δ of the worst case (default 10⁻⁶ if not pure)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Also print the curves as one JSON document."),
) -> None:
    """Draw the trade-off curve β(α) of a guarantee beside the worst case with the same (ε, δ).

    Example: privrisk tradeoff --mechanism laplace --epsilon 1 --out curve.svg
    """
    from privrisk import accounting as A
    from privrisk.io.files import check_outputs
    from privrisk.reports.plots.tradeoff import alpha_grid, tradeoff_figure

    g = guarantee_from_options(epsilon=epsilon, delta=delta, rho=rho, mu=mu, mechanism=mechanism, scale=scale,
                               sigma=sigma, sensitivity=sensitivity, compose=compose, sample_rate=sample_rate,
                               group=group)  # fmt: skip
    check_outputs(out_path, [], param="--out")
    if out_path.suffix.lower() not in (".svg", ".png"):
        raise PrivriskError(f"--out: give a file ending in .svg or .png, got {out_path.name!r}")
    worst = A.worst_case(g, None if at_delta is None else _delta(at_delta, "--at-delta"))
    alpha = alpha_grid()
    curves = [
        (g.label, alpha, g.tradeoff(alpha)),
        (f"worst case: {worst.label}", alpha, worst.tradeoff(alpha)),
    ]
    tradeoff_figure(curves, out_path, title=f"Trade-off curve of {g.label}")
    if as_json:
        emit_json({"out": str(out_path), "guarantee": g.label, "conversion": g.conversion, "worst_case": worst.label,
                   "alpha": alpha, "beta": curves[0][2], "beta_worst_case": curves[1][2]})  # fmt: skip
        return
    err.print(f"Wrote {out_path}: β(α) of {g.label} ({g.conversion}) beside the worst case {worst.label}.")
