"""Calibration, the other way round: the least noise (or the largest ε, ρ, μ) that keeps a chosen risk under a
target.

Every risk here grows with ε, ρ and μ and shrinks with the Laplace scale and the Gaussian σ, so a bisection on
the logarithm of the parameter finds the boundary to the last bit; the returned parameter meets the target and
the next representable step beyond it does not. For the Gaussian mechanism with a δ, the target first fixes the
largest ε whose worst (ε, δ)-DP mechanism stays under it, then σ is the analytic Gaussian mechanism's (Balle and
Wang 2018, Thm. 8 and Alg. 1): the smallest σ whose exact profile has δ(ε) ≤ δ.

Example:
    >>> c = calibrate(target="success", value=0.75, solve_for="epsilon")
    >>> round(c.parameter, 6) == round(math.log(3), 6)      # P = e^ε/(1 + e^ε) = 75 %
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.accounting.guarantees import (
    GaussianDP,
    Guarantee,
    PureDP,
    ZeroConcentratedDP,
    approximate,
    check_delta,
    check_positive,
    gaussian_deltas,
)
from privrisk.accounting.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse
from privrisk.accounting.risks import membership_risk, reconstruction_risk, tpr_at_fpr
from privrisk.errors import PrivriskError

__all__ = ["Calibration", "calibrate"]

Target = Literal["advantage", "success", "tpr", "risk"]
SolveFor = Literal["epsilon", "rho", "mu", "scale", "sigma"]
Mechanism = Literal["laplace", "gaussian", "rr"]

TARGETS: tuple[str, ...] = ("advantage", "success", "tpr", "risk")
SOLVE_FOR: tuple[str, ...] = ("epsilon", "rho", "mu", "scale", "sigma")
MECHANISMS: tuple[str, ...] = ("laplace", "gaussian", "rr")
# Which parameters each mechanism (None: a definition) can be solved for.
ALLOWED: dict[str | None, tuple[str, ...]] = {
    None: ("epsilon", "rho", "mu"),
    "laplace": ("scale", "epsilon"),
    "gaussian": ("sigma", "mu", "epsilon"),
    "rr": ("epsilon",),
}
LOG_RANGE = 60.0  # parameters searched within e^(±60)


@dataclass(frozen=True)
class Calibration:
    """The result of :func:`calibrate`.

    Attributes:
        solve_for: the parameter solved for.
        parameter: its value: the largest ε, ρ, μ or the smallest scale, σ that keeps the risk ≤ the target.
        guarantee: the guarantee with that parameter.
        target: which risk was bounded.
        target_value: the bound.
        achieved: the risk at the returned parameter (≤ target_value).
        method: how the parameter was found, with the sources.
    """

    solve_for: str
    parameter: float
    guarantee: Guarantee
    target: str
    target_value: float
    achieved: float
    method: str

    def to_dict(self) -> dict[str, object]:
        """Plain values, for JSON (the guarantee as its label)."""
        return {
            "solve_for": self.solve_for,
            "parameter": self.parameter,
            "guarantee": self.guarantee.label,
            "conversion": self.guarantee.conversion,
            "target": self.target,
            "target_value": self.target_value,
            "achieved": self.achieved,
            "method": self.method,
        }


def _risk_function(
    target: str, *, prior: float, fpr: float | None, n: int | None
) -> tuple[Callable[[Guarantee], float], float, str]:
    """The risk as a function of a guarantee, the value guessing alone achieves, and its name for messages."""
    if target == "advantage":
        return (lambda g: membership_risk(g, prior).advantage), 0.0, "the membership advantage"
    if target == "success":
        return (lambda g: membership_risk(g, prior).success), max(prior, 1 - prior), "the membership success"
    if target == "tpr":
        if fpr is None:
            raise PrivriskError("fpr: the target tpr needs a false-positive rate", param="fpr")
        alpha = float(check_probability(fpr, name="fpr", open_low=True, open_high=True))
        return (lambda g: float(tpr_at_fpr(g, alpha))), alpha, f"the true-positive rate at {alpha:g}"
    if n is None:
        raise PrivriskError("n: the target risk needs the number of candidates n", param="n")
    count = check_whole(n, name="n", minimum=2)
    return (lambda g: reconstruction_risk(g, count)), 1.0 / count, f"the risk of singling out among {count:,}"


def _bisect(
    build: Callable[[float], Guarantee], risk: Callable[[Guarantee], float], value: float, *, increasing: bool
) -> float:
    """The boundary parameter x with risk(build(x)) ≤ value, by bisection on ln x; raises if none is in range."""

    def ok(t: float) -> bool:
        return risk(build(math.exp(t))) <= value

    # Feasible at small ε (large noise), infeasible at large ε (small noise).
    safe, unsafe = (-LOG_RANGE, LOG_RANGE) if increasing else (LOG_RANGE, -LOG_RANGE)
    if not ok(safe):
        raise PrivriskError(
            "value: no parameter in range keeps the risk at or below the target", param="value"
        )
    if ok(unsafe):
        raise PrivriskError(
            "value: the risk stays below the target for every parameter in range", param="value"
        )
    for _ in range(400):
        mid = 0.5 * (safe + unsafe)
        if mid in (safe, unsafe):
            break
        if ok(mid):
            safe = mid
        else:
            unsafe = mid
    return math.exp(safe)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ whose Gaussian mechanism is (ε, δ)-DP: the analytic Gaussian mechanism (Balle and Wang
    2018, Thm. 8), found by bisection on the exact profile.

    Example:
        >>> round(analytic_gaussian_sigma(1.0, 1e-5), 3)
        3.731
    """
    eps = float(epsilon)
    lo, hi = -LOG_RANGE, LOG_RANGE  # ln σ: lo too little noise, hi enough

    def enough(t: float) -> bool:
        return float(gaussian_deltas(sensitivity / math.exp(t), np.array([eps]))[0]) <= delta

    for _ in range(400):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def calibrate(
    *,
    target: Target,
    value: float,
    solve_for: SolveFor,
    mechanism: Mechanism | None = None,
    delta: float | None = None,
    sensitivity: float = 1.0,
    fpr: float | None = None,
    n: int | None = None,
    prior: float = 0.5,
) -> Calibration:
    """The least noise, or the largest ε, ρ or μ, that keeps a risk at or below a target.

    Args:
        target: ``"advantage"`` or ``"success"`` (membership, prior ``prior``), ``"tpr"`` (at ``fpr``) or
            ``"risk"`` (singling out among ``n``: ρ_mw or 1 − β(1/n)).
        value: the bound, strictly between what guessing achieves and 1.
        solve_for: ``"epsilon"``, ``"rho"``, ``"mu"`` (definitions, or the mechanism's ε / μ), ``"scale"``
            (Laplace) or ``"sigma"`` (Gaussian).
        mechanism: ``"laplace"``, ``"gaussian"``, ``"rr"`` or None (a definition: pure ε, or (ε, δ) with
            ``delta``; ρ-zCDP; μ-GDP).
        delta: with no mechanism, solve for ε of (ε, δ)-DP; with the Gaussian mechanism, calibrate σ to the
            largest (ε, δ) whose worst case meets the target (analytic Gaussian mechanism).
        sensitivity: Δ of the query (for scale and σ).
        fpr: the false-positive rate of ``target="tpr"``.
        n: the number of candidates of ``target="risk"``.
        prior: p, the prior of membership.

    Raises:
        PrivriskError: for an unknown target or parameter, a combination that does not exist, or a target that
            no parameter reaches (at or below what guessing achieves, or at 1).

    Example:
        >>> c = calibrate(target="advantage", value=0.2, solve_for="sigma", mechanism="gaussian")
        >>> round(c.parameter, 4), c.achieved <= 0.2
        (1.9736, True)
    """
    goal = check_choice(target, TARGETS, name="target")
    unknown = check_choice(solve_for, SOLVE_FOR, name="solve_for")
    kind = None if mechanism is None else check_choice(mechanism, MECHANISMS, name="mechanism")
    if unknown not in ALLOWED[kind]:
        what = "a definition" if kind is None else f"the {kind} mechanism"
        raise PrivriskError(
            f"solve_for: {what} is solved for {' or '.join(ALLOWED[kind])}, not {unknown}", param="solve_for"
        )
    p = float(check_probability(prior, name="prior", open_low=True, open_high=True))
    delta_f = check_positive(sensitivity, name="sensitivity")
    d = None if delta is None else check_delta(delta)
    if d == 0:
        d = None
    if d is not None and not (kind == "gaussian" or (kind is None and unknown == "epsilon")):
        raise PrivriskError(
            "delta: a δ applies to ε of (ε, δ)-DP or to the Gaussian mechanism's analytic calibration",
            param="delta",
        )
    risk, baseline, name = _risk_function(goal, prior=p, fpr=fpr, n=n)
    bound = float(check_probability(value, name="value"))
    if not baseline < bound < 1.0:
        raise PrivriskError(
            f"value: {name} must be set above {baseline:.4g} (what guessing achieves) and below 1, got {bound:g}",
            param="value",
        )

    if kind == "gaussian" and d is not None:
        return _gaussian_with_delta(goal, bound, unknown, d, delta_f, risk, name)

    build, increasing, method = _family(kind, unknown, d, delta_f)
    try:
        x = _bisect(build, risk, bound, increasing=increasing)
    except PrivriskError:
        raise PrivriskError(
            f"value: no {unknown} keeps {name} at or below {bound:g}"
            + (f" with δ = {d:.3g} (the risk is at least δ's share)" if d is not None else ""),
            param="value",
        ) from None
    g = build(x)
    return Calibration(unknown, x, g, goal, bound, risk(g), f"{method}; {g.conversion}")


def _family(
    kind: str | None, unknown: str, delta: float | None, sensitivity: float
) -> tuple[Callable[[float], Guarantee], bool, str]:
    """A one-parameter family of guarantees, whether the risk grows with the parameter, and its description."""
    bisect = "bisection on the logarithm of the parameter"
    if kind is None and unknown == "epsilon":
        if delta is None:
            return PureDP, True, f"largest pure ε: {bisect}"
        return (lambda e: approximate(e, delta)), True, f"largest ε of (ε, δ = {delta:.3g})-DP: {bisect}"
    if kind is None and unknown == "rho":
        return ZeroConcentratedDP, True, f"largest ρ of ρ-zCDP: {bisect}"
    if kind is None and unknown == "mu":
        return GaussianDP, True, f"largest μ of μ-GDP: {bisect}"
    if kind == "rr":
        return RandomizedResponse, True, f"largest ε of randomized response: {bisect}"
    if kind == "laplace" and unknown == "scale":
        return (lambda b: LaplaceMechanism(b, sensitivity)), False, f"smallest Laplace scale: {bisect}"
    if kind == "laplace":
        return (
            (lambda e: LaplaceMechanism(sensitivity / e, sensitivity)),
            True,
            f"largest Laplace ε: {bisect}",
        )
    if unknown == "sigma":
        return (lambda s: GaussianMechanism(s, sensitivity)), False, f"smallest Gaussian σ: {bisect}"
    return (
        (lambda m: GaussianMechanism(sensitivity / m, sensitivity)),
        True,
        f"largest Gaussian μ = Δ/σ: {bisect}",
    )


def _gaussian_with_delta(
    goal: str,
    bound: float,
    unknown: str,
    delta: float,
    sensitivity: float,
    risk: Callable[[Guarantee], float],
    name: str,
) -> Calibration:
    """Largest ε whose worst (ε, δ) case meets the target, then the analytic Gaussian σ for that (ε, δ)."""
    try:
        eps = _bisect(lambda e: approximate(e, delta), risk, bound, increasing=True)
    except PrivriskError:
        raise PrivriskError(
            f"value: no ε keeps {name} at or below {bound:g} with δ = {delta:.3g}", param="value"
        ) from None
    sigma = analytic_gaussian_sigma(eps, delta, sensitivity)
    g = GaussianMechanism(sigma, sensitivity)
    method = (
        f"largest ε whose worst (ε, δ = {delta:.3g})-DP mechanism keeps {name} ≤ {bound:g} (ε = {eps:.6g}), "
        "then σ of the analytic Gaussian mechanism (Balle and Wang 2018)"
    )
    achieved = risk(approximate(eps, delta))
    parameters = {"sigma": sigma, "mu": sensitivity / sigma, "epsilon": eps}
    return Calibration(unknown, parameters[unknown], g, goal, bound, achieved, method)
