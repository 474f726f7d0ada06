"""The Risk page's other guarantees: (ε, δ), zCDP ρ, Gaussian DP μ, a mechanism, subsampling, composition, groups.

The guarantee is built by :class:`privrisk.accounting.GuaranteeSpec`, as the command line builds it, in this order
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

from dataclasses import fields
from typing import Any

from privrisk._validation import check_choice
from privrisk.app._labels import label

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


def _given(value: Any) -> Any:
    """An input left empty is not given."""
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


def guarantee_from_inputs(
    *, kind: str, epsilon: float, delta: float = 0.0, rho: Any = None, mu: Any = None, mechanism: str = "laplace",
    scale: Any = None, sigma: Any = None, sensitivity: Any = None, sample_rate: Any = None, compose: Any = None,
    group: Any = None,
) -> Any:  # fmt: skip
    """The :class:`privrisk.accounting.Guarantee` the page's inputs describe: the inputs of the chosen kind mapped
    onto :class:`privrisk.accounting.GuaranteeSpec`, whose one-line errors name the input (``param``) and use the
    page's labels in their words.

    Example:
        >>> g = guarantee_from_inputs(kind="mu", epsilon=1.0, mu=1.0, compose=4)  # μ = √4 · 1 = 2
        >>> round(membership_success(g), 4)  # Φ(μ/2) = Φ(1)
        0.8413
    """
    from privrisk.accounting.spec import GuaranteeSpec

    kind = check_choice(kind, tuple(GUARANTEE_KINDS), name="guarantee")
    base: dict[str, Any] = {}
    if kind == "epsilon":
        base = {"epsilon": epsilon, "delta": delta or None}
    elif kind == "rho":
        base = {"rho": rho if _given(rho) is not None else ""}  # an empty ρ is a ρ that is not a number
    elif kind == "mu":
        base = {"mu": mu if _given(mu) is not None else ""}
    else:
        mech = check_choice(mechanism, MECHANISMS, name="mechanism")
        base = {"mechanism": mech, "sensitivity": _given(sensitivity) if mech != "rr" else None}
        if mech == "gaussian":
            base["sigma"] = sigma if _given(sigma) is not None else ""
        elif mech == "laplace" and _given(scale) is not None:
            base["scale"] = scale
        else:
            base["epsilon"] = epsilon
    spec = GuaranteeSpec(**base, sample_rate=_given(sample_rate), compose=_given(compose), group=_given(group))
    # Messages name every field by the page's label ("only with Privacy loss ε …"), as the command line names
    # its options: the app's labels (privrisk/app/_labels.py).
    return spec.build(names={f.name: label(f.name, "risk") for f in fields(GuaranteeSpec)})


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
