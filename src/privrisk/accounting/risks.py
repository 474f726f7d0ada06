"""What a guarantee means as risk: membership inference (posterior, success, advantage, TPR at FPR) and
singling out among n candidates, for the guarantee and for the worst mechanism with the same (ε, δ).

For prior p of membership, the best attacker's average success is max(p, 1 − p) + min(p, 1 − p)·δ(|ln(p/(1 − p))|)
and its advantage, how far it moves from guessing towards certainty, (success − max(p, 1 − p))/min(p, 1 − p) =
δ(|ln(p/(1 − p))|): at p = ½ the advantage is δ(0) = max_α(1 − α − β(α)) and the success (1 + δ(0))/2 (the
hockey-stick divergence at the prior odds; Dong, Roth and Su 2022, Prop. 2.12; Mehner et al., §3.4 for pure ε,
where it is the global leak Γ and P). The worst-case posterior is sup over tests of p(1 − β(α))/(p(1 − β(α)) +
(1 − p)α) = expit(ε_max + ln(p/(1 − p))) with ε_max the largest privacy loss: e^ε p/(e^ε p + 1 − p) for pure ε,
and 1 when δ(ε) > 0 for every ε (Gaussian noise, δ > 0: some outputs give membership away).

Example:
    >>> r = membership_risk(laplace_guarantee(epsilon=1.0))
    >>> round(r.success, 3), round(membership_risk(randomised_response_guarantee(epsilon=1.0)).success, 3)
    (0.697, 0.731)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability, check_whole
from privrisk.accounting.guarantees import (
    Guarantee,
    approximate,
    check_delta,
    pure_dp,  # noqa: F401 - used by the doctests
)
from privrisk.accounting.mechanisms import (  # noqa: F401 - used by the doctests
    RandomisedResponse,
    gaussian_guarantee,
    laplace_guarantee,
    randomised_response_guarantee,
)
from privrisk.errors import PrivriskError

__all__ = [
    "DEFAULT_FPR",
    "WORST_CASE_DELTA",
    "MembershipRisk",
    "membership_risk",
    "reconstruction_risk",
    "risk_summary",
    "tpr_at_fpr",
    "worst_case",
]

DEFAULT_FPR: tuple[float, ...] = (0.001, 0.01, 0.05, 0.1)
WORST_CASE_DELTA = 1e-6


def _check(g: Any, name: str = "g") -> Guarantee:
    if not isinstance(g, Guarantee):
        raise PrivriskError(f"{name}: {g!r} is not a privacy guarantee", param=name)
    return g


@dataclass(frozen=True)
class MembershipRisk:
    """The best membership attacker against a guarantee, for a prior p.

    Attributes:
        prior: p, the attacker's belief that the person is in the data before the release.
        advantage: (success − max(p, 1 − p))/min(p, 1 − p) = δ(|ln(p/(1 − p))|), in [0, 1]; δ(0) at p = ½.
        success: the best attacker's probability of being right, in [max(p, 1 − p), 1].
        posterior_max: the largest belief any output can give, in [p, 1].
    """

    prior: float
    advantage: float
    success: float
    posterior_max: float

    def to_dict(self) -> dict[str, float]:
        """Plain floats, for JSON."""
        return {k: float(v) for k, v in asdict(self).items()}


def membership_risk(g: Guarantee, prior: float = 0.5) -> MembershipRisk:
    """The membership risk of a guarantee for a prior p (see the module's docstring for the formulas).

    Args:
        g: the guarantee.
        prior: p in [0, 1].

    Example:
        >>> r = membership_risk(pure_dp(math.log(3)))       # Mehner et al., Table 1: P = 75 %, Γ = 50 %
        >>> round(r.success, 4), round(r.advantage, 4), round(r.posterior_max, 4)
        (0.75, 0.5, 0.75)
        >>> membership_risk(pure_dp(1e4)).success            # no overflow
        1.0
    """
    g = _check(g)
    p = float(check_probability(prior, name="prior"))
    if p in (0.0, 1.0):
        return MembershipRisk(p, 0.0, 1.0, p)
    log_odds = math.log(p) - math.log1p(-p)
    advantage = float(g.delta_at(abs(log_odds)))
    low, high = min(p, 1.0 - p), max(p, 1.0 - p)
    success = min(1.0, high + low * advantage)
    top = g._max_loss()
    if math.isinf(top):
        posterior = 1.0
    else:
        z = top + log_odds
        posterior = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
    return MembershipRisk(p, min(max(advantage, 0.0), 1.0), success, min(max(posterior, p), 1.0))


def tpr_at_fpr(g: Guarantee, fpr: float | ArrayLike) -> float | np.ndarray:
    """The largest true-positive rate of a membership test at a false-positive rate α: 1 − β(α).

    Args:
        g: the guarantee.
        fpr: α in [0, 1], a number or an array.

    Returns:
        A float for a number, an array for an array.

    Example:
        >>> round(tpr_at_fpr(pure_dp(1.0), 0.01), 5)           # e^ε α
        0.02718
        >>> tpr_at_fpr(gaussian_guarantee(sigma=1.0), [0.0, 1.0]).tolist()
        [0.0, 1.0]
    """
    g = _check(g)
    alpha = check_probability(fpr, name="fpr")
    tpr = np.clip(1.0 - g.tradeoff(alpha), alpha, 1.0)
    return float(tpr) if tpr.ndim == 0 else tpr


def reconstruction_risk(g: Guarantee, n: int) -> float:
    """The chance of singling out the one true candidate among n equally likely ones after the release.

    For pure ε it is Lee and Clifton's ρ_mw = e^ε/(e^ε + n − 1), which k-ary randomized response attains (tight;
    Mehner et al., eq. (1)); otherwise the f-DP bound 1 − β(1/n) (Hayes et al. 2023, Thm. 2; Kulynych et al.
    2025), which is never below ρ_mw. For a pure-ε mechanism whose own curve is known (Laplace) the smaller of
    the two bounds is returned; both hold.

    Args:
        g: the guarantee.
        n: the number of candidates, a whole number ≥ 1.

    Example:
        >>> round(reconstruction_risk(pure_dp(math.log(3)), 10), 4)   # Mehner et al., Table 1
        0.25
    """
    g = _check(g)
    count = check_whole(n, name="n", minimum=1)
    if count == 1:
        return 1.0
    bound = float(1.0 - g.tradeoff(1.0 / count))
    pure = g.pure_epsilon
    if pure is not None:
        from privrisk.risk import many_worlds

        bound = min(bound, float(many_worlds(pure, count)))
    return min(max(bound, 1.0 / count), 1.0)


#: An ε at which randomized response is truthful with probability 1 in double precision (e^−ε < 2⁻⁵³).
CERTAIN_EPSILON = 40.0


def worst_case(g: Guarantee, delta: float | None = None) -> Guarantee:
    """The worst mechanism with the same (ε, δ) as ``g``: where "any mechanism with this guarantee" ends up.

    Pure ε gives binary randomized response (Kairouz, Oh and Viswanath 2015, Thm. 2.1). Otherwise it is
    (ε(δ), δ)-DP at ``delta``: when not given, 10⁻⁶, or the guarantee's own δ where that is larger (an (ε, δ)
    guarantee with δ = 10⁻⁵ is its own worst case); its ``conversion`` says which δ was used.

    Raises:
        PrivriskError: if no finite ε reaches that δ (e.g. δ below the δ of an (ε, δ) guarantee).

    Example:
        >>> worst_case(laplace_guarantee(epsilon=1.0)).label
        'randomized response, ε = 1 (truthful with probability 73.1 %)'
        >>> print(worst_case(gaussian_guarantee(sigma=1.0)).conversion)   # doctest: +ELLIPSIS
        worst case at δ = 1e-06: ε(δ) of the exact (Gaussian mechanism)...
    """
    return _worst(_check(g), delta)[0]


def _worst(g: Guarantee, delta: float | None = None) -> tuple[Guarantee, float | None, float]:
    """:func:`worst_case` with its ε (None when no finite ε reaches the δ: the worst case then reveals every
    answer) and its δ."""
    pure = g.pure_epsilon
    if pure is not None and delta is None:
        return RandomisedResponse(pure), pure, 0.0
    d = max(WORST_CASE_DELTA, g._delta_floor()) if delta is None else check_delta(delta)
    eps = g.epsilon_at(d)
    if delta is None and not math.isfinite(eps) and d < 0.1:
        # A floor that no finite ε attains (a catastrophe of probability δ꜀ beside Rényi curves): a hair above.
        d = min(0.5, 2.0 * d)
        eps = g.epsilon_at(d)
    if not math.isfinite(eps) and delta is None:
        # Nothing is hidden (e.g. μ = 10³⁰⁰): the worst case tells the truth, as randomized response with an ε
        # whose truth probability is 1 to double precision.
        certain = RandomisedResponse(
            CERTAIN_EPSILON, source=f"no finite ε reaches δ = {d:.3g}: the worst case reveals every answer"
        )
        return certain, None, d
    if not math.isfinite(eps):
        raise PrivriskError(f"delta: no finite ε reaches δ = {d:.3g} for {g.label}", param="delta")
    conversion = (
        g.conversion.replace("exact", "the exact", 1) if g.conversion.startswith("exact") else g.conversion
    )
    source = f"worst case at δ = {d:.3g}: ε(δ) of the {conversion}, then the worst (ε, δ)-DP mechanism"
    source = source.replace("of the the", "of the")
    if d == 0 and eps > 0:
        return RandomisedResponse(eps, source=source), eps, 0.0
    return approximate(eps, d, source=source), eps, d


def _risk_keys(
    g: Guarantee,
    *,
    prior: float,
    fpr: tuple[float, ...],
    n: int | None,
    at_delta: float | None,
    at_epsilon: float | None,
) -> dict[str, Any]:
    risk = membership_risk(g, prior)
    tprs = np.atleast_1d(np.asarray(tpr_at_fpr(g, np.asarray(fpr, dtype=float)), dtype=float))
    eps_at = None if at_delta is None else g.epsilon_at(at_delta)
    return {
        "guarantee": g.label,
        "advantage": risk.advantage,
        "success": risk.success,
        "posterior_max": risk.posterior_max,
        "tpr_at_fpr": [{"fpr": float(a), "tpr": float(t)} for a, t in zip(fpr, tprs, strict=True)],
        "reconstruction": None if n is None else reconstruction_risk(g, n),
        "epsilon_at_delta": None if eps_at is None or not math.isfinite(eps_at) else float(eps_at),
        "delta_at_epsilon": None if at_epsilon is None else g.delta_at(at_epsilon),
        "conversion": g.conversion,
    }


def risk_summary(
    g: Guarantee,
    *,
    prior: float = 0.5,
    fpr: float | tuple[float, ...] | list[float] = DEFAULT_FPR,
    n: int | None = None,
    at_delta: float | None = None,
    at_epsilon: float | None = None,
) -> dict[str, Any]:
    """Every risk of a guarantee and of its worst case, as a JSON-ready dict of plain floats.

    Keys: ``guarantee`` (the label), ``advantage``, ``success``, ``posterior_max``, ``tpr_at_fpr`` (a list of
    ``{"fpr", "tpr"}``), ``reconstruction`` (None without ``n``), ``epsilon_at_delta`` (None without
    ``at_delta``, and None when no finite ε reaches that δ), ``delta_at_epsilon`` (None without
    ``at_epsilon``), ``conversion``, and ``worst_case``: the same keys for :func:`worst_case` (its own
    ``worst_case`` is None), with its ``epsilon`` (None when no finite ε reaches its δ: it then reveals every
    answer) and its ``delta``. Infinite values are written as None, never as a float.

    The worst case of a guarantee that is not pure ε is taken at ``at_delta`` when one is given and a finite ε
    reaches it (so that "the same (ε, δ)" is the pair the reader asked for), else at 10⁻⁶ (:func:`worst_case`).
    No risk of the guarantee is stated above its worst case's: the worst case is a bound that the guarantee
    implies, so the smaller of the two holds (a grid or an overflow can otherwise put a few ulps, or everything,
    on the wrong side).

    Example:
        >>> s = risk_summary(laplace_guarantee(epsilon=1.0), n=10)
        >>> round(s["success"], 3), round(s["worst_case"]["success"], 3), s["worst_case"]["worst_case"]
        (0.697, 0.731, None)
        >>> sorted(s)[:4]
        ['advantage', 'conversion', 'delta_at_epsilon', 'epsilon_at_delta']
        >>> s = risk_summary(pure_dp(50).compose(50), fpr=0.0)   # 50 × ε = 50: still no TPR at FPR 0
        >>> s["tpr_at_fpr"], s["worst_case"]["epsilon"]
        ([{'fpr': 0.0, 'tpr': 0.0}], 2500.0)
    """
    g = _check(g)
    rates = tuple(float(x) for x in np.atleast_1d(check_probability(fpr, name="fpr")).ravel())
    if not rates:
        raise PrivriskError("fpr: give at least one false-positive rate", param="fpr")
    count = None if n is None else check_whole(n, name="n", minimum=1)
    d = None if at_delta is None else float(check_probability(at_delta, name="at_delta"))
    e = None if at_epsilon is None else _epsilon(at_epsilon)
    options = {"prior": prior, "fpr": rates, "n": count, "at_delta": d, "at_epsilon": e}
    summary = _risk_keys(g, **options)  # type: ignore[arg-type]
    worst, worst_eps, worst_delta = _worst(g)
    if g.pure_epsilon is None and d is not None and 0 < d < 1 and math.isfinite(g.epsilon_at(d)):
        worst, worst_eps, worst_delta = _worst(g, d)
    worst_keys = _risk_keys(worst, **options)  # type: ignore[arg-type]
    _at_most(summary, worst_keys)
    summary["worst_case"] = {**worst_keys, "worst_case": None, "epsilon": worst_eps, "delta": worst_delta}
    return summary


def _at_most(summary: dict[str, Any], worst: dict[str, Any]) -> None:
    """Hold every risk of ``summary`` at or below the worst case's (both are bounds the guarantee implies)."""
    for key in ("advantage", "success", "posterior_max", "reconstruction"):
        if summary[key] is not None and worst[key] is not None:
            summary[key] = min(summary[key], worst[key])
    for mine, bound in zip(summary["tpr_at_fpr"], worst["tpr_at_fpr"], strict=True):
        mine["tpr"] = min(mine["tpr"], bound["tpr"])


def _epsilon(value: Any) -> float:
    from privrisk._validation import check_epsilon

    return check_epsilon(value, name="at_epsilon", allow_zero=True)
