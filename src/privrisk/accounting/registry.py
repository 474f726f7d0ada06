"""Entries of the OpenDP deployments registry as guarantees: what each states, its risk, and its conversions.

The registry (``opendp/deployments-registry-data``) describes each deployment in one YAML document: its DP
variant (``deployment.dp_variant.variant_name``: Pure DP, Approximate DP, Zero-concentrated DP, Renyi DP or
Custom), its privacy unit and its privacy parameters (``deployment.privacy_loss.privacy_parameters``: ε, δ and
ρ). :func:`registry_guarantee` turns the parameters into the guarantee they state, on the safe side:

- zero-concentrated DP: ``zcdp(ρ)`` (an ε and δ given beside ρ are a conversion the entry quotes, checked by
  :func:`stated_conversions`, not used);
- pure DP: ``pure_dp(ε)``, or (ε, δ)-DP when the entry also gives a δ > 0 (it is then not pure);
- approximate DP: ``approximate_dp(ε, δ)``; a δ written as a formula (``n^{(-\\epsilon \\ln(n))}``) depends on
  something the entry does not give, and is refused rather than dropped;
- no parameters, or a variant without the ones it needs: no guarantee, with the reason.

Entries quote zCDP → (ε, δ) conversions in their text ("ρ = 2.56 … corresponding to ε = 17.14 and δ = 10⁻¹⁰").
:func:`stated_conversions` finds them and names the conversion each one matches within 0.5 %: the tight one of
Canonne, Kamath and Steinke (2020, Cor. 13; :func:`tight_zcdp_epsilon`), the classical ε = ρ + 2√(ρ ln(1/δ)) of
Bun and Steinke (2016, Prop. 1.3; :func:`classical_zcdp_epsilon`), or neither.

Example:
    >>> entry = {"deployment": {"dp_variant": {"variant_name": "Zero-concentrated DP"},
    ...          "privacy_loss": {"privacy_parameters": {"rho": 2.63}}}}
    >>> round(registry_guarantee(entry).epsilon_at(1e-10), 2)
    17.43
    >>> round(tight_zcdp_epsilon(2.56, 1e-10), 3), round(classical_zcdp_epsilon(4.96, 1e-10), 3)
    (17.158, 26.334)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from privrisk.accounting.concentrated import zcdp, zcdp_epsilon
from privrisk.accounting.guarantees import Guarantee, approximate_dp, gaussian_dp, pure_dp
from privrisk.errors import PrivriskError

__all__ = [
    "MATCH_TOLERANCE",
    "StatedConversion",
    "classical_zcdp_epsilon",
    "read_registry_entry",
    "registry_guarantee",
    "registry_parameters",
    "registry_risk",
    "stated_conversions",
    "tight_zcdp_epsilon",
]

#: A quoted ε matches a conversion when it lies within this relative distance of it.
MATCH_TOLERANCE = 0.005
_VARIANTS = ("Pure DP", "Approximate DP", "Zero-concentrated DP", "Renyi DP", "Custom")


def classical_zcdp_epsilon(rho: float, delta: float) -> float:
    """ε = ρ + 2√(ρ ln(1/δ)): ρ-zCDP implies (ε, δ)-DP (Bun and Steinke 2016, Prop. 1.3), the loose conversion.

    Example:
        >>> round(classical_zcdp_epsilon(4.96, 1e-10), 3)
        26.334
    """
    return float(rho) + 2.0 * math.sqrt(float(rho) * math.log(1.0 / float(delta)))


def tight_zcdp_epsilon(rho: float, delta: float) -> float:
    """ε(δ) = min over α > 1 of αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath and Steinke 2020,
    Cor. 13; what OpenDP's ``make_zCDP_to_approxDP`` computes).

    Example:
        >>> round(tight_zcdp_epsilon(2.56, 1e-10), 3)
        17.158
    """
    return zcdp_epsilon(float(rho), float(delta))


def _section(entry: Mapping[str, Any], *keys: str) -> Mapping[str, Any]:
    node: Any = entry
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}


def _number(value: Any, name: str) -> float | None:
    """A parameter as a float; None for a formula or text that is not a number."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(x) or x < 0:
        raise PrivriskError(
            f"registry: privacy_parameters.{name} = {value!r} is not a number ≥ 0", param="registry"
        )
    return x


def registry_parameters(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The variant and parameters an entry states: ``variant``, ``epsilon``, ``delta``, ``rho`` (None where
    absent) and ``delta_text`` (δ as written, when it is not a number).

    Example:
        >>> registry_parameters({"deployment": {"privacy_loss": {"privacy_parameters": {"epsilon": 1, "delta": "1e-5"}}}})
        {'variant': None, 'epsilon': 1.0, 'delta': 1e-05, 'rho': None, 'delta_text': None}
    """
    if not isinstance(entry, Mapping):
        raise PrivriskError("registry: an entry is a mapping (a YAML document of the registry's schema)",
                            param="registry")  # fmt: skip
    params = _section(entry, "deployment", "privacy_loss", "privacy_parameters")
    variant = _section(entry, "deployment", "dp_variant").get("variant_name")
    delta_raw = params.get("delta")
    delta = _number(delta_raw, "delta")
    return {
        "variant": variant if isinstance(variant, str) else None,
        "epsilon": _number(params.get("epsilon"), "epsilon"),
        "delta": delta,
        "rho": _number(params.get("rho"), "rho"),
        "delta_text": str(delta_raw) if delta_raw is not None and delta is None else None,
    }


def registry_guarantee(entry: Mapping[str, Any]) -> Guarantee:
    """The guarantee a registry entry states (the module docstring's rules).

    Raises:
        PrivriskError: (param ``registry``) when the entry states no guarantee that can be computed: no
            parameters, a δ written as a formula, a variant without the parameter it needs.

    Example:
        >>> registry_guarantee({"deployment": {"dp_variant": {"variant_name": "Pure DP"},
        ...     "privacy_loss": {"privacy_parameters": {"epsilon": 1.0, "delta": 1.5e-07}}}}).label
        '(ε = 1, δ = 1.5e-07)-differential privacy'
    """
    p = registry_parameters(entry)
    variant, eps, delta, rho = p["variant"], p["epsilon"], p["delta"], p["rho"]
    if variant is not None and variant not in _VARIANTS:
        raise PrivriskError(f"registry: dp_variant.variant_name {variant!r} is not one of the schema's "
                            f"{', '.join(_VARIANTS)}", param="registry")  # fmt: skip
    if p["delta_text"] is not None:
        raise PrivriskError(f"registry: δ is stated as “{p['delta_text']}”, not a number; the risk depends on what "
                            "it is computed from", param="registry")  # fmt: skip
    if variant == "Zero-concentrated DP" or (variant in (None, "Custom") and rho is not None):
        if rho is None or rho <= 0:
            raise PrivriskError("registry: zero-concentrated DP without ρ > 0", param="registry")
        return zcdp(rho)
    if variant == "Renyi DP":
        raise PrivriskError("registry: Rényi DP needs its orders, which the schema's parameters do not hold",
                            param="registry")  # fmt: skip
    if eps is None or eps <= 0:
        raise PrivriskError(
            "registry: the entry states no privacy parameters (no ε > 0 or ρ > 0)", param="registry"
        )
    if delta:
        if delta >= 1:
            raise PrivriskError(f"registry: δ = {delta:g} promises nothing", param="registry")
        return approximate_dp(eps, delta)
    if variant == "Approximate DP":
        raise PrivriskError("registry: approximate DP without δ", param="registry")
    return pure_dp(eps)


@dataclass(frozen=True)
class StatedConversion:
    """A zCDP → (ε, δ) conversion an entry quotes, and which one it is.

    Attributes:
        rho, epsilon, delta: the quoted numbers.
        tight: ε of Canonne, Kamath and Steinke at (ρ, δ).
        classical: ε = ρ + 2√(ρ ln(1/δ)).
        matches: ``"tight"``, ``"classical"`` or ``"neither"`` (within :data:`MATCH_TOLERANCE`, the nearer).
        where: the field it was found in.
        gaussian: ε at δ of the Gaussian mechanism with that ρ (μ = √(2ρ)), itself ρ-zCDP: no conversion that
            holds for every ρ-zCDP mechanism can state less, so a quoted ε below it understates ρ.
    """

    rho: float
    epsilon: float
    delta: float
    tight: float
    classical: float
    matches: str
    where: str
    gaussian: float = math.nan

    @property
    def understated(self) -> bool:
        """Whether the quoted ε is below what any conversion of ρ can give (the Gaussian mechanism's ε)."""
        return self.epsilon < self.gaussian * (1 - MATCH_TOLERANCE)

    def sentence(self) -> str:
        """The conversion in words."""
        text = (f"ρ = {self.rho:g} → ε = {self.epsilon:g} at δ = {self.delta:g} ({self.where}): the tight conversion "
                f"gives {self.tight:.3f}, the classical {self.classical:.3f}; it is {self.matches}")  # fmt: skip
        if self.understated:
            text += f", and below even a Gaussian mechanism's {self.gaussian:.3f}: it understates ρ"
        return text


def _classify(rho: float, eps: float, delta: float, where: str) -> StatedConversion:
    tight, classical = tight_zcdp_epsilon(rho, delta), classical_zcdp_epsilon(rho, delta)
    off = {"tight": abs(eps - tight) / tight, "classical": abs(eps - classical) / classical}
    best = min(off, key=lambda k: off[k])
    gaussian = gaussian_dp(math.sqrt(2.0 * rho)).epsilon_at(delta)
    return StatedConversion(rho, eps, delta, tight, classical, best if off[best] <= MATCH_TOLERANCE else "neither",
                            where, gaussian)  # fmt: skip


_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
_RHO = re.compile(r"rho\W*=\s*" + _NUMBER)
_EPS = re.compile(r"epsilon\W*=\s*" + _NUMBER)
_DELTA = re.compile(r"delta\s*=\s*(?:10\^\{?(-?[0-9]+)\}?|" + _NUMBER + ")")


def _quoted(line: str) -> tuple[float, float, float] | None:
    rho, eps, delta = _RHO.search(line), _EPS.search(line), _DELTA.search(line)
    if not (rho and eps and delta):
        return None
    d = 10.0 ** int(delta.group(1)) if delta.group(1) is not None else float(delta.group(2))
    return float(rho.group(1)), float(eps.group(1)), d


def stated_conversions(entry: Mapping[str, Any]) -> list[StatedConversion]:
    """Every zCDP → (ε, δ) conversion an entry quotes: ρ, ε and δ together in its parameters, or on one line of
    its ``privacy_parameters_details``.

    Example:
        >>> line = r"Person Tables: \\\\(\\rho\\\\) = 2.56 (corresponding to \\\\(\\epsilon\\\\)=17.14 and \\\\(\\delta = 10^{-10}\\\\)."
        >>> c = stated_conversions({"deployment": {"privacy_loss": {"privacy_parameters_details": line}}})
        >>> [(x.rho, x.epsilon, x.matches) for x in c]
        [(2.56, 17.14, 'tight')]
    """
    found = []
    p = registry_parameters(entry)
    if p["rho"] and p["epsilon"] and p["delta"]:
        found.append(_classify(p["rho"], p["epsilon"], p["delta"], "privacy_parameters"))
    details = _section(entry, "deployment", "privacy_loss").get("privacy_parameters_details")
    if isinstance(details, str):
        for line in details.splitlines():
            quoted = _quoted(line)
            if quoted is not None:
                found.append(_classify(*quoted, "privacy_parameters_details"))
    return found


#: The largest registry entry read (the registry's longest is about 20 kB).
MAX_ENTRY_BYTES = 1024 * 1024


def read_registry_entry(path: str | os.PathLike[str], *, param: str = "registry") -> dict[str, Any]:
    """One registry entry from a YAML file (one document, a mapping), for :func:`registry_guarantee`.

    Raises:
        PrivriskError: (``param``) for a missing file, one that is not a regular file of at most 1 MB, not YAML,
            or not one mapping.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "e.yaml"
        >>> _ = p.write_text("deployment:\\n  privacy_loss:\\n    privacy_parameters:\\n      rho: 0.5\\n")
        >>> registry_guarantee(read_registry_entry(p)).label
        'ρ = 0.5 (zero-concentrated differential privacy)'
    """
    import yaml  # type: ignore[import-untyped]

    from privrisk.io.files import read_regular_file

    try:
        raw = read_regular_file(path, MAX_ENTRY_BYTES, what="the registry entry", param=param)
    except FileNotFoundError:
        raise PrivriskError(f"{param}: {path}: no such file", param=param) from None
    try:
        documents = list(yaml.safe_load_all(raw.decode("utf-8-sig")))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PrivriskError(f"{param}: {path}: not a YAML registry entry ({reason})", param=param) from None
    documents = [d for d in documents if d is not None]
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise PrivriskError(f"{param}: {path}: give one registry entry (one YAML mapping), found "
                            f"{len(documents)} documents", param=param)  # fmt: skip
    return documents[0]


def registry_risk(entry: Mapping[str, Any], *, fpr: float = 0.001, at_delta: float = 1e-10) -> dict[str, Any]:
    """An entry's risk in one row: ``name``, ``slug``, ``variant``, ``unit`` (its privacy unit), ``stated`` (the
    parameters as written), ``guarantee`` (label, or None), ``reason`` (why there is none), ``success`` (the best
    attacker's at prior ½), ``advantage``, ``tpr`` (at ``fpr``), ``epsilon_at_delta`` (at ``at_delta``; None when
    no finite ε reaches it; at the entry's own δ where that is larger), ``delta`` (that δ), ``note`` (what was read
    differently from the variant, or None) and ``conversions`` (:func:`stated_conversions`, as sentences).

    Example:
        >>> row = registry_risk({"deployment": {"dp_variant": {"variant_name": "Pure DP"},
        ...     "privacy_loss": {"privacy_parameters": {"epsilon": 2.0}}}})
        >>> round(row["success"], 3), row["stated"]                  # e²/(1 + e²)
        (0.881, 'ε = 2.0')
    """
    from privrisk.accounting.risks import membership_risk, tpr_at_fpr

    basic = _section(entry, "deployment", "basic")
    loss = _section(entry, "deployment", "privacy_loss")
    params = _section(entry, "deployment", "privacy_loss", "privacy_parameters")
    stated = ", ".join(f"{_SYMBOL[k]} = {params[k]}" for k in ("epsilon", "delta", "rho") if k in params)
    row: dict[str, Any] = {
        "name": basic.get("name"),
        "slug": entry.get("url_slug") if isinstance(entry, Mapping) else None,
        "variant": registry_parameters(entry)["variant"],
        "unit": loss.get("privacy_unit"),
        "stated": stated,
        "guarantee": None,
        "reason": None,
        "success": None,
        "advantage": None,
        "tpr": None,
        "epsilon_at_delta": None,
        "delta": at_delta,
        "note": None,
        "conversions": [c.sentence() for c in stated_conversions(entry)],
    }
    try:
        g = registry_guarantee(entry)
    except PrivriskError as exc:
        row["reason"] = str(exc).removeprefix("registry: ")
        return row
    p = registry_parameters(entry)
    if p["variant"] == "Pure DP" and p["delta"]:
        row["note"] = "pure DP stated with a δ: read as (ε, δ)"
    delta = max(float(at_delta), p["delta"] or 0.0)
    risk = membership_risk(g)
    eps = g.epsilon_at(delta)
    row.update(guarantee=g.label, success=risk.success, advantage=risk.advantage, tpr=float(tpr_at_fpr(g, fpr)),
               epsilon_at_delta=eps if math.isfinite(eps) else None, delta=delta)  # fmt: skip
    return row


_SYMBOL = {"epsilon": "ε", "delta": "δ", "rho": "ρ"}
