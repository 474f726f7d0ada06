"""The Risk page's other guarantees: (ε, δ), zCDP ρ, Gaussian DP μ, a mechanism, subsampling, composition, groups.

The guarantee is built with :mod:`privrisk.accounting` in the order the command line applies its options
(``privrisk risk --rho/--mu/--mechanism … --sample-rate G --compose K --group K``): the base guarantee, then
Poisson subsampling, then composition, then group privacy; the risks are :func:`privrisk.accounting.risk_summary`
(membership advantage and success, the largest posterior, TPR at fixed FPR, singling out among n, and the worst
mechanism with the same (ε, δ)).

Example:
    >>> g = guarantee_from_inputs(kind="mechanism", epsilon=1.0, mechanism="laplace")
    >>> round(membership_success(g), 3)
    0.697
"""

from __future__ import annotations

import math
from typing import Any

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.errors import PrivriskError

__all__ = [
    "GUARANTEE_KINDS",
    "MECHANISMS",
    "guarantee_from_inputs",
    "guarantee_options",
    "membership_success",
]

GUARANTEE_KINDS = {
    "epsilon": "ε (and δ) above",
    "rho": "zCDP ρ",
    "mu": "Gaussian DP μ",
    "mechanism": "a mechanism",
}
MECHANISMS = ("laplace", "gaussian", "rr")


def _positive(value: Any, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number <= 0:
        raise PrivriskError(f"{name}: must be a number greater than 0, got {value!r}", param=name)
    return number


def guarantee_from_inputs(
    *,
    kind: str,
    epsilon: float,
    delta: float = 0.0,
    rho: Any = None,
    mu: Any = None,
    mechanism: str = "laplace",
    scale: Any = None,
    sigma: Any = None,
    sensitivity: Any = None,
    sample_rate: Any = None,
    compose: Any = None,
    group: Any = None,
) -> Any:
    """The :class:`privrisk.accounting.Guarantee` the page's inputs describe (one-line errors naming the input).

    Example:
        >>> g = guarantee_from_inputs(kind="mu", epsilon=1.0, mu=1.0, compose=4)  # μ = √4 · 1 = 2
        >>> round(membership_success(g), 4)  # Φ(μ/2) = Φ(1)
        0.8413
    """
    from privrisk import accounting as A

    kind = check_choice(kind, tuple(GUARANTEE_KINDS), name="guarantee")
    if kind == "epsilon":
        g = A.pure_dp(epsilon) if not delta else A.approximate_dp(epsilon, delta)
    elif kind == "rho":
        g = A.zcdp(_positive(rho, "rho"))
    elif kind == "mu":
        g = A.gaussian_dp(_positive(mu, "mu"))
    else:
        mech = check_choice(mechanism, MECHANISMS, name="mechanism")
        delta_s = 1.0 if sensitivity in (None, "") else _positive(sensitivity, "sensitivity")
        if mech == "gaussian":
            g = A.gaussian_mechanism(sigma=_positive(sigma, "sigma"), sensitivity=delta_s)
        elif mech == "laplace":
            if scale not in (None, ""):
                g = A.laplace_mechanism(scale=_positive(scale, "scale"), sensitivity=delta_s)
            else:
                g = A.laplace_mechanism(epsilon=epsilon, sensitivity=delta_s)
        else:
            g = A.randomized_response(epsilon=epsilon)
    if sample_rate not in (None, ""):
        rate = float(check_probability(float(sample_rate), name="sample_rate", open_low=True))
        if rate < 1:
            g = A.subsample(g, rate)
    if compose not in (None, "") and check_whole(compose, name="compose", minimum=1) > 1:
        g = g.compose(int(compose))
    if group not in (None, "") and check_whole(group, name="group", minimum=1) > 1:
        g = A.group(g, int(group))
    return g


def membership_success(g: Any, prior: float = 0.5) -> float:
    """The best attacker's success at telling membership (for the doctest and the tests)."""
    from privrisk.accounting import membership_risk

    return float(membership_risk(g, prior=prior).success)


def guarantee_options(
    kind: str, *, epsilon_text: str, delta: float, rho: Any, mu: Any, mechanism: str, scale: Any, sigma: Any,
    sensitivity: Any, sample_rate: Any, compose: Any, group: Any, n: int, prior: float,
) -> dict[str, Any]:  # fmt: skip
    """The ``privrisk risk`` options (acctcli's names) for the same guarantee, for the command shown."""
    options: dict[str, Any] = {}
    if kind == "epsilon":
        options |= {"epsilon": epsilon_text, "delta": f"{delta:g}" if delta else None}
    elif kind == "rho":
        options["rho"] = rho
    elif kind == "mu":
        options["mu"] = mu
    else:
        options["mechanism"] = mechanism
        if mechanism == "gaussian":
            options["sigma"] = sigma
        elif mechanism == "laplace" and scale not in (None, ""):
            options["scale"] = scale
        else:
            options["epsilon"] = epsilon_text
        options["sensitivity"] = sensitivity if sensitivity not in (None, "", 1, 1.0) else None
    options |= {
        "sample_rate": sample_rate if sample_rate not in (None, "", 1, 1.0) else None,
        "compose": compose if compose not in (None, "", 1) else None,
        "group": group if group not in (None, "", 1) else None,
        "n": n if n != 2 else None,
        "prior": f"{prior:g}" if prior != 0.5 else None,
    }
    return options
