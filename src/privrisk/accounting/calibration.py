"""Calibration, the other way round: the least noise (or the largest ε, ρ, μ, sample rate or number of steps) that
keeps a chosen risk under a target, for one release or for a subsampled, composed, grouped one (DP-SGD).

Every risk here grows with ε, ρ, μ, the sample rate and the number of steps and shrinks with the Laplace scale and
the Gaussian σ, so a search on the logarithm of the parameter (on the whole numbers for steps) finds the boundary:
the returned parameter meets the target and a step of 10⁻¹² (relative) beyond it does not. Noise is solved for at
sensitivity 1 and scaled (the risk depends on Δ/b and Δ/σ alone), so Δ = 10²⁷ is as exact as Δ = 1, and the risk
is computed again from the returned guarantee: an answer that misses the target is refused, never returned. For
the Gaussian mechanism with a δ and no modifiers, the target first fixes the largest ε whose worst (ε, δ)-DP
mechanism stays under it, then σ is the analytic Gaussian mechanism's (Balle and Wang 2018, Thm. 8 and Alg. 1):
the smallest σ whose exact profile has δ(ε) ≤ δ. The target ``"epsilon"`` bounds ε at a δ instead of a risk.

Example:
    >>> c = calibrate(target="success", value=0.75, solve_for="epsilon")
    >>> round(c.parameter, 6) == round(math.log(3), 6)      # P = e^ε/(1 + e^ε) = 75 %
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from privrisk._validation import check_choice, check_epsilon, check_probability, check_whole
from privrisk.accounting.concentrated import ZeroConcentratedDP
from privrisk.accounting.guarantees import (
    GaussianDP,
    Guarantee,
    PureDP,
    approximate,
    check_delta,
    check_positive,
    gaussian_deltas,
)
from privrisk.accounting.mechanisms import GaussianMechanism, LaplaceMechanism, RandomisedResponse
from privrisk.accounting.risks import membership_risk, reconstruction_risk, tpr_at_fpr
from privrisk.errors import PrivriskError

__all__ = ["Calibration", "calibrate"]

Target = Literal["advantage", "success", "tpr", "risk", "epsilon"]
SolveFor = Literal["epsilon", "rho", "mu", "scale", "sigma", "sample_rate", "steps"]
Mechanism = Literal["laplace", "gaussian", "rr"]
Sampling = Literal["poisson", "without_replacement"]

TARGETS: tuple[str, ...] = ("advantage", "success", "tpr", "risk", "epsilon")
SOLVE_FOR: tuple[str, ...] = ("epsilon", "rho", "mu", "scale", "sigma", "sample_rate", "steps")
MECHANISMS: tuple[str, ...] = ("laplace", "gaussian", "rr")
SAMPLINGS: tuple[str, ...] = ("poisson", "without_replacement")
# Which parameters each mechanism (None: a definition) can be solved for; the sample rate and the number of steps
# are solved for with a given guarantee of one release instead.
ALLOWED: dict[str | None, tuple[str, ...]] = {
    None: ("epsilon", "rho", "mu"),
    "laplace": ("scale", "epsilon"),
    "gaussian": ("sigma", "mu", "epsilon"),
    "rr": ("epsilon",),
}
NOISE = ("scale", "sigma")  # parameters where more means safer
LOG_RANGE = 60.0  # parameters (at sensitivity 1) searched within e^(±60)
RELATIVE_PRECISION = 1e-12  # the search stops when the bracket is this narrow (relative)
MAX_STEPS = 10**7


@dataclass(frozen=True)
class Calibration:
    """The result of :func:`calibrate`.

    Attributes:
        solve_for: the parameter solved for.
        parameter: its value: the largest ε, ρ, μ, sample rate or number of steps, or the smallest scale or σ,
            that keeps the risk ≤ the target.
        guarantee: the whole guarantee with that parameter (subsampled, composed and grouped as asked).
        target: which risk (or ``"epsilon"``: ε at ``delta``) was bounded.
        target_value: the bound.
        achieved: the risk of ``guarantee``, computed again from it (≤ target_value).
        method: how the parameter was found, with the sources.
        sample_rate: the rate of the subsample each release sees (None: the whole data).
        compose: how many releases compose.
        group: the size of the group protected.
        delta: δ of the target ``"epsilon"`` (or of the calibration), None otherwise.
    """

    solve_for: str
    parameter: float
    guarantee: Guarantee
    target: str
    target_value: float
    achieved: float
    method: str
    sample_rate: float | None = None
    compose: int = 1
    group: int = 1
    delta: float | None = None

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
            "sample_rate": self.sample_rate,
            "compose": self.compose,
            "group": self.group,
            "delta": self.delta,
        }


def _risk_function(
    target: str, *, prior: float, fpr: float | None, n: int | None, delta: float | None
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
    if target == "epsilon":
        if delta is None:
            raise PrivriskError("delta: the target epsilon is ε at a δ; give delta", param="delta")
        return (lambda g: g.epsilon_at(delta)), 0.0, f"ε at δ = {delta:.3g}"
    if n is None:
        raise PrivriskError("n: the target risk needs the number of candidates n", param="n")
    count = check_whole(n, name="n", minimum=2)
    return (lambda g: reconstruction_risk(g, count)), 1.0 / count, f"the risk of singling out among {count:,}"


def _bracket(
    gap: Callable[[float], float], *, increasing: bool, low: float, high: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(t, gap) on the safe side (gap ≤ 0) and on the unsafe side (gap > 0) of the boundary, searched outwards
    from t = 0 (or the end of the range nearest it) in steps that double, so that extreme parameters (slow to
    account) are tried only when needed."""
    start = min(max(0.0, low), high)
    step, here = 1.0, gap(start)
    if here <= 0:
        safe = (start, here)
        while True:
            t = min(safe[0] + step, high) if increasing else max(safe[0] - step, low)
            value = gap(t)
            if value > 0:
                return safe, (t, value)
            if t in (low, high):
                raise PrivriskError(
                    "value: the risk stays below the target for every parameter in range", param="value"
                )
            safe, step = (t, value), step * 2.0
    unsafe = (start, here)
    while True:
        t = max(unsafe[0] - step, low) if increasing else min(unsafe[0] + step, high)
        value = gap(t)
        if value <= 0:
            return (t, value), unsafe
        if t in (low, high):
            raise PrivriskError(
                "value: no parameter in range keeps the risk at or below the target", param="value"
            )
        unsafe, step = (t, value), step * 2.0


def _bisect(
    build: Callable[[float], Guarantee],
    risk: Callable[[Guarantee], float],
    value: float,
    *,
    increasing: bool,
    low: float = -LOG_RANGE,
    high: float = LOG_RANGE,
) -> float:
    """The boundary parameter x with risk(build(x)) ≤ value, on t = ln x within [low, high], to a relative
    10⁻¹²; raises if the boundary is not in range.

    The bracket [safe, unsafe] is kept throughout; each step tries the Illinois variant of regula falsi (a
    dozen steps where the risk is smooth, which matters when each one composes thousands of releases) and
    falls back to bisection whenever the bracket did not halve.
    """

    def gap(t: float) -> float:
        return risk(build(math.exp(t))) - value

    (s, fs), (u, fu) = _bracket(gap, increasing=increasing, low=low, high=high)
    side, bisect = 0, False
    while abs(u - s) > RELATIVE_PRECISION:
        width = abs(u - s)
        if bisect or not (math.isfinite(fs) and math.isfinite(fu)) or fu == fs:
            t = 0.5 * (s + u)
        else:
            t = u - fu * (u - s) / (fu - fs)
            if not min(s, u) < t < max(s, u):
                t = 0.5 * (s + u)
        if t in (s, u):
            break
        ft = gap(t)
        if ft <= 0:
            s, fs = t, ft
            fu, side = (fu / 2.0 if side == -1 else fu), -1  # Illinois: halve the end that stays
        else:
            u, fu = t, ft
            fs, side = (fs / 2.0 if side == 1 else fs), 1
        bisect = abs(u - s) > 0.5 * width
    return math.exp(s)


def _most_steps(build: Callable[[int], Guarantee], risk: Callable[[Guarantee], float], value: float) -> int:
    """The largest number of steps k ≤ 10⁷ with risk(build(k)) ≤ value: doubling, then bisection on the integers."""
    if risk(build(1)) > value:
        raise PrivriskError("value: even one step exceeds the target", param="value")
    safe = 1
    while True:
        trial = min(2 * safe, MAX_STEPS)
        if risk(build(trial)) > value:
            unsafe = trial
            break
        if trial == MAX_STEPS:
            raise PrivriskError(
                f"value: the risk stays below the target for every number of steps up to {MAX_STEPS:,}",
                param="value",
            )
        safe = trial
    while unsafe - safe > 1:
        mid = (safe + unsafe) // 2
        if risk(build(mid)) <= value:
            safe = mid
        else:
            unsafe = mid
    return safe


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
    sample_rate: float | None = None,
    compose: int = 1,
    group: int = 1,
    sampling: Sampling = "poisson",
    guarantee: Guarantee | None = None,
) -> Calibration:
    """The least noise, or the largest ε, ρ, μ, sample rate or number of steps, that keeps a risk at or below a
    target, for one release or for each release subsampled, ``compose`` of them composed and groups of ``group``.

    Args:
        target: ``"advantage"`` or ``"success"`` (membership, prior ``prior``), ``"tpr"`` (at ``fpr``),
            ``"risk"`` (singling out among ``n``: ρ_mw or 1 − β(1/n)) or ``"epsilon"`` (ε at ``delta``).
        value: the bound: strictly between what guessing achieves and 1, or ε > 0 for ``"epsilon"``.
        solve_for: ``"epsilon"``, ``"rho"``, ``"mu"`` (definitions, or the mechanism's ε / μ), ``"scale"``
            (Laplace), ``"sigma"`` (Gaussian), ``"sample_rate"`` or ``"steps"`` (with ``guarantee``).
        mechanism: ``"laplace"``, ``"gaussian"``, ``"rr"`` or None (a definition: pure ε, or (ε, δ) with
            ``delta``; ρ-zCDP; μ-GDP).
        delta: for ``target="epsilon"`` the δ at which ε is bounded; otherwise, with no mechanism, solve for ε
            of (ε, δ)-DP, and with the Gaussian mechanism of one release, calibrate σ to the largest (ε, δ) whose
            worst case meets the target (analytic Gaussian mechanism).
        sensitivity: Δ of the query (for scale and σ).
        fpr: the false-positive rate of ``target="tpr"``.
        n: the number of candidates of ``target="risk"``.
        prior: p, the prior of membership.
        sample_rate: each release sees a sample of this rate (None: the whole data).
        compose: how many releases compose (the steps of DP-SGD).
        group: protect groups of this size instead of one person.
        sampling: ``"poisson"`` or ``"without_replacement"`` (fixed-size samples).
        guarantee: the guarantee of one release on its sample, when solving for ``"sample_rate"`` or
            ``"steps"``.

    Raises:
        PrivriskError: for an unknown target or parameter, a combination that does not exist, a target that no
            parameter reaches (at or below what guessing achieves, or at 1), or an answer whose risk, computed
            again from the returned guarantee, misses the target.

    Example:
        >>> c = calibrate(target="advantage", value=0.2, solve_for="sigma", mechanism="gaussian")
        >>> round(c.parameter, 4), c.achieved <= 0.2
        (1.9736, True)
        >>> c = calibrate(target="advantage", value=0.2, solve_for="sigma", mechanism="gaussian", compose=4)
        >>> round(c.parameter, 4)                           # μ = √4 · Δ/σ: twice the σ
        3.9472
    """
    a = _arguments(target=target, value=value, solve_for=solve_for, mechanism=mechanism, delta=delta,
                   sensitivity=sensitivity, fpr=fpr, n=n, prior=prior, sample_rate=sample_rate, compose=compose,
                   group=group, sampling=sampling, guarantee=guarantee)  # fmt: skip
    goal, unknown, kind, how, rate, steps, size, _, family_delta, modified, delta_f, risk, name, bound = a

    def modify(g: Guarantee, r: float | None = rate, k: int = steps) -> Guarantee:
        """Each release on its sample, k of them composed, for groups of ``size`` (the order ``risk`` uses)."""
        from privrisk.accounting.grouping import group as grouped
        from privrisk.accounting.subsampling import subsample

        if r is not None and r < 1:
            g = subsample(g, r, method=how)  # type: ignore[arg-type]
        if k > 1:
            g = g.compose(k)
        return grouped(g, size) if size > 1 else g

    settings = a.settings()
    if kind == "gaussian" and family_delta is not None:
        return _gaussian_with_delta(a, family_delta)
    if unknown in ("sample_rate", "steps"):
        assert guarantee is not None
        return _solve_release(a, guarantee, modify)

    build, increasing, method = _family(kind, unknown, family_delta)
    try:
        x = _bisect(lambda v: modify(build(v)), risk, bound, increasing=increasing)
    except PrivriskError as e:
        if "stays below" in str(e):
            raise PrivriskError(
                f"value: {name} stays at or below {bound:g} for every {unknown} from e^-60 to e^60",
                param="value",
            ) from None
        raise PrivriskError(
            f"value: no {unknown} keeps {name} at or below {bound:g}"
            + (
                f" with δ = {family_delta:.3g} (the risk is at least δ's share)"
                if family_delta is not None
                else ""
            ),
            param="value",
        ) from None
    # Found at sensitivity 1; a noise parameter scales with Δ (the risk depends on Δ/b and Δ/σ alone).
    final = _at_sensitivity(kind, unknown, family_delta, delta_f)
    parameter = x * delta_f if unknown in NOISE else x
    parameter, g = _verified(parameter, lambda v: modify(final(v)), unknown, risk, bound, name)
    what = "" if not modified else f"; {_modifiers(rate, how, steps, size)}"
    scaled = (
        f"; solved at sensitivity 1 and scaled by Δ = {delta_f:g}"
        if unknown in NOISE and delta_f != 1
        else ""
    )
    return Calibration(
        unknown,
        parameter,
        g,
        goal,
        bound,
        risk(g),
        f"{method}{what}{scaled}; {g.conversion}",
        **settings,
    )


class _Arguments(NamedTuple):
    """The arguments of :func:`calibrate`, checked as a whole and in the forms the search uses."""

    goal: str
    unknown: str
    kind: str | None
    how: str
    rate: float | None
    steps: int
    size: int
    delta: float | None
    family_delta: float | None
    modified: bool
    sensitivity: float
    risk: Callable[[Guarantee], float]
    name: str
    bound: float

    def settings(self) -> dict[str, Any]:
        """The settings a :class:`Calibration` records: sample rate, steps, group size and δ."""
        return {"sample_rate": self.rate, "compose": self.steps, "group": self.size, "delta": self.delta}


def _arguments(
    *,
    target: Any,
    value: Any,
    solve_for: Any,
    mechanism: Any,
    delta: Any,
    sensitivity: Any,
    fpr: Any,
    n: Any,
    prior: Any,
    sample_rate: Any,
    compose: Any,
    group: Any,
    sampling: Any,
    guarantee: Any,
) -> _Arguments:
    """Every check of :func:`calibrate`'s arguments, before any search (also run when
    :class:`~privrisk.accounting.calibration_settings.CalibrationSettings` are made)."""
    goal = check_choice(target, TARGETS, name="target")
    unknown = check_choice(solve_for, SOLVE_FOR, name="solve_for")
    kind = None if mechanism is None else check_choice(mechanism, MECHANISMS, name="mechanism")
    how = check_choice(sampling, SAMPLINGS, name="sampling")
    p = float(check_probability(prior, name="prior", open_low=True, open_high=True))
    delta_f = check_positive(sensitivity, name="sensitivity")
    rate = (
        None
        if sample_rate is None
        else float(check_probability(sample_rate, name="sample_rate", open_low=True))
    )
    steps = check_whole(compose, name="compose", minimum=1)
    size = check_whole(group, name="group", minimum=1)
    if unknown in ("sample_rate", "steps"):
        _check_release(unknown, guarantee, kind, rate, steps, delta_f)
    else:
        if guarantee is not None:
            raise PrivriskError(
                "guarantee: a given guarantee is for solving the sample rate or the number of steps",
                param="guarantee",
            )
        if unknown not in ALLOWED[kind]:
            what = "a definition" if kind is None else f"the {kind} mechanism"
            raise PrivriskError(
                f"solve_for: {what} is solved for {' or '.join(ALLOWED[kind])}, not {unknown}",
                param="solve_for",
            )
    d = None if delta is None else check_delta(delta)
    if d == 0:
        d = None
    modified = (rate is not None and rate < 1) or steps > 1 or size > 1 or unknown in ("sample_rate", "steps")
    target_delta = d if goal == "epsilon" else None
    family_delta = None if goal == "epsilon" else d
    if family_delta is not None and not (
        (kind == "gaussian" and not modified) or (kind is None and unknown == "epsilon")
    ):
        raise PrivriskError(
            "delta: a δ applies to ε of (ε, δ)-DP, to the analytic calibration of one Gaussian release, "
            "or to the target epsilon",
            param="delta",
        )
    risk, baseline, name = _risk_function(goal, prior=p, fpr=fpr, n=n, delta=target_delta)
    if goal == "epsilon":
        bound = check_epsilon(value, name="value")
    else:
        bound = float(check_probability(value, name="value"))
        if not baseline < bound < 1.0:
            raise PrivriskError(
                f"value: {name} must be set above {baseline:.4g} (what guessing achieves) and below 1, "
                f"got {bound:g}",
                param="value",
            )
    if kind == "gaussian" and unknown == "epsilon" and family_delta is None:
        raise PrivriskError(
            "solve_for: the Gaussian mechanism has an ε only at a δ; give delta, or solve for sigma or mu",
            param="solve_for",
        )
    return _Arguments(goal, unknown, kind, how, rate, steps, size, d, family_delta, modified, delta_f, risk, name,
                      bound)  # fmt: skip


def _check_release(
    unknown: str,
    guarantee: Guarantee | None,
    kind: str | None,
    rate: float | None,
    steps: int,
    delta_f: float,
) -> None:
    """Solving for the sample rate or the steps needs the guarantee of one release, and nothing it replaces."""
    if not isinstance(guarantee, Guarantee):
        raise PrivriskError(
            f"guarantee: solving for {unknown} needs the guarantee of one release (e.g. a Gaussian mechanism)",
            param="guarantee",
        )
    if kind is not None:
        raise PrivriskError(
            f"mechanism: solving for {unknown}, the mechanism is the given guarantee", param="mechanism"
        )
    if delta_f != 1.0:
        raise PrivriskError(
            f"sensitivity: solving for {unknown}, the given guarantee carries its sensitivity",
            param="sensitivity",
        )
    if unknown == "sample_rate" and rate is not None:
        raise PrivriskError("sample_rate: it is what is solved for; leave it out", param="sample_rate")
    if unknown == "steps" and steps != 1:
        raise PrivriskError(
            "compose: the number of steps is what is solved for; leave it at 1", param="compose"
        )


def _modifiers(rate: float | None, how: str, steps: int, size: int) -> str:
    parts = []
    if rate is not None and rate < 1:
        parts.append(f"each release on a {how.replace('_', ' ')} sample of rate {rate:.4g}")
    if steps > 1:
        parts.append(f"{steps:,} releases composed")
    if size > 1:
        parts.append(f"groups of {size}")
    return ", ".join(parts)


def _solve_release(a: _Arguments, release: Guarantee, modify: Callable[..., Guarantee]) -> Calibration:
    """The largest sample rate (bisection on its logarithm, up to 1) or the most steps for a given release."""
    unknown, goal, bound, risk, name, settings = a.unknown, a.goal, a.bound, a.risk, a.name, a.settings()
    if unknown == "sample_rate":
        try:
            rate = _bisect(lambda r: modify(release, r), risk, bound, increasing=True, high=0.0)
        except PrivriskError as e:
            if "stays below" in str(e):  # the whole data meets the target: rate 1
                rate = 1.0
            else:
                raise PrivriskError(
                    f"value: no sample rate keeps {name} at or below {bound:g}", param="value"
                ) from None
        rate, g = _verified(rate, lambda r: modify(release, r), "sample_rate", risk, bound, name)
        settings = {**settings, "sample_rate": rate}
        method = "largest sample rate: bisection on its logarithm"
        return Calibration(unknown, rate, g, goal, bound, risk(g), f"{method}; {g.conversion}", **settings)
    try:
        k = _most_steps(lambda k: modify(release, k=k), risk, bound)
    except PrivriskError as e:
        raise PrivriskError(f"value: {name}: {str(e).partition(': ')[2]}", param="value") from None
    g = modify(release, k=k)
    achieved = risk(g)
    if not achieved <= bound:  # pragma: no cover - the search tested this very guarantee
        raise PrivriskError(f"value: {k} steps give {name} {achieved:.6g}, above {bound:g}", param="value")
    settings = {**settings, "compose": k}
    method = "most steps: doubling, then bisection on the whole numbers"
    return Calibration(unknown, float(k), g, goal, bound, achieved, f"{method}; {g.conversion}", **settings)


def _family(
    kind: str | None, unknown: str, delta: float | None
) -> tuple[Callable[[float], Guarantee], bool, str]:
    """A one-parameter family of guarantees at sensitivity 1, whether the risk grows with the parameter, and its
    description."""
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
        return RandomisedResponse, True, f"largest ε of randomized response: {bisect}"
    if kind == "laplace" and unknown == "scale":
        return (lambda b: LaplaceMechanism(b, 1.0)), False, f"smallest Laplace scale: {bisect}"
    if kind == "laplace":
        return (lambda e: LaplaceMechanism(1.0 / e, 1.0)), True, f"largest Laplace ε: {bisect}"
    if unknown == "sigma":
        return (lambda s: GaussianMechanism(s, 1.0)), False, f"smallest Gaussian σ: {bisect}"
    return (lambda m: GaussianMechanism(1.0 / m, 1.0)), True, f"largest Gaussian μ = Δ/σ: {bisect}"


def _at_sensitivity(
    kind: str | None, unknown: str, delta: float | None, sensitivity: float
) -> Callable[[float], Guarantee]:
    """The guarantee for a parameter at sensitivity Δ: a scale b or σ as it is, ε = Δ/b, μ = Δ/σ, a definition."""
    if unknown in NOISE:
        mechanism = LaplaceMechanism if kind == "laplace" else GaussianMechanism
        return lambda v: mechanism(v, sensitivity)
    if kind == "laplace":
        return lambda v: LaplaceMechanism(sensitivity / v, sensitivity)
    if kind == "gaussian":
        return lambda v: GaussianMechanism(sensitivity / v, sensitivity)
    return _family(kind, unknown, delta)[0]


def _verified(
    parameter: float,
    build: Callable[[float], Guarantee],
    unknown: str,
    risk: Callable[[Guarantee], float],
    bound: float,
    name: str,
) -> tuple[float, Guarantee]:
    """The answer, after its risk is computed again from the returned guarantee; where scaling or rounding put it
    a few units in the last place over the target, it moves those units to the safe side; otherwise it is
    refused."""
    safer = math.inf if unknown in NOISE else 0.0
    g = build(parameter)
    for _ in range(8):
        if risk(g) <= bound:
            return parameter, g
        parameter = math.nextafter(parameter, safer)
        g = build(parameter)
    raise PrivriskError(
        f"value: the answer {parameter:.6g} gives {name} {risk(g):.6g}, above the target {bound:g}; "
        "no answer is returned",
        param="value",
    )


def _gaussian_with_delta(a: _Arguments, delta: float) -> Calibration:
    """Largest ε whose worst (ε, δ) case meets the target, then the analytic Gaussian σ for that (ε, δ), found at
    sensitivity 1 and scaled by Δ; the mechanism's own risk and δ(ε) are checked again at Δ."""
    goal, bound, unknown, sensitivity, risk, name = a.goal, a.bound, a.unknown, a.sensitivity, a.risk, a.name
    try:
        eps = _bisect(lambda e: approximate(e, delta), risk, bound, increasing=True)
    except PrivriskError:
        raise PrivriskError(
            f"value: no ε keeps {name} at or below {bound:g} with δ = {delta:.3g}", param="value"
        ) from None
    sigma = analytic_gaussian_sigma(eps, delta) * sensitivity
    for _ in range(8):  # rounding in the scaling may leave δ(ε) a unit in the last place over δ
        if GaussianMechanism(sigma, sensitivity).delta_at(eps) <= delta:
            break
        sigma = math.nextafter(sigma, math.inf)
    g = GaussianMechanism(sigma, sensitivity)
    if not (g.delta_at(eps) <= delta and risk(g) <= bound):
        raise PrivriskError(
            f"value: σ = {sigma:.6g} misses the target ({name} {risk(g):.6g}); no answer is returned",
            param="value",
        )
    method = (
        f"largest ε whose worst (ε, δ = {delta:.3g})-DP mechanism keeps {name} ≤ {bound:g} (ε = {eps:.6g}), "
        "then σ of the analytic Gaussian mechanism (Balle and Wang 2018)"
        + (f", solved at sensitivity 1 and scaled by Δ = {sensitivity:g}" if sensitivity != 1 else "")
    )
    parameters = {"sigma": sigma, "mu": sensitivity / sigma, "epsilon": eps}
    return Calibration(unknown, parameters[unknown], g, goal, bound, risk(g), method, **a.settings())
