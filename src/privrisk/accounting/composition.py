"""Composition: the guarantee of several releases about the same people, with the tightest rule that applies,
named in the result's ``conversion``. Amplification by subsampling is in :mod:`~privrisk.accounting.subsampling`,
group privacy in :mod:`~privrisk.accounting.grouping`.

Composition picks, in this order:

1. Gaussian DP and Gaussian mechanisms only: μ = √Σμᵢ², exact (Dong, Roth and Su 2022, Cor. 3.3);
2. zCDP (and Gaussian) only: ρ = Σρᵢ (Bun and Steinke 2016, Lemma 2.3);
3. k copies of one pure ε or one (ε, δ): the optimal composition of Kairouz, Oh and Viswanath (2015, Thm. 3.3),
   exact, summed in log space over the binomial terms that matter
   (:mod:`~privrisk.accounting.optimal_composition`);
4. everything with a privacy loss distribution: that of ``dp_accounting`` (Koskela et al. 2020; Doroshenko et
   al. 2022), identical mechanisms composed by FFT (``self_compose``) on dp_accounting's grid of 10⁻⁴, coarsened
   only from the composed spread (∝ √k) when the distribution would not fit in memory
   (:mod:`~privrisk.accounting.pld_composition`);
5. otherwise the Rényi curves added (Mironov 2017, Prop. 1), with sampled curves for subsampled parts and (ε, δ)
   parts as ε randomized response outside a catastrophe of probability δ
   (:mod:`~privrisk.accounting.renyi_composition`); beside it, where cheap, the loss distribution of the parts
   that have one joined with the others by basic composition (Dwork and Roth 2014, Thm. 3.16) at the best split
   of ε, the others' copies by Kairouz, Oh and Viswanath at the best point of their profile
   (:mod:`~privrisk.accounting.basic_composition`); the smaller δ(ε) of the two at every ε
   (:mod:`~privrisk.accounting.bounds`);
6. as a bounded last resort, more than two distinct guarantees with neither enter the loss distribution as
   (ε(δ), δ) at δ = 10⁻¹⁰.

Example:
    >>> from privrisk.accounting import gaussian_dp, pure_dp
    >>> g = compose([gaussian_dp(0.6), gaussian_dp(0.8)])
    >>> round(g.mu, 6), g.conversion.startswith("exact")
    (1.0, True)
    >>> round(compose([pure_dp(1.0)] * 2).delta_at(1.0), 4)   # Kairouz, Oh and Viswanath: p²(1 − e⁻¹), p = e/(1 + e)
    0.3378
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Sequence
from typing import Any

from privrisk.accounting._math import amplified_epsilon
from privrisk.accounting.basic_composition import (
    LAST_RESORT_DELTA,
    ComposedGuarantee,
    _generic,
    _group_key,
)
from privrisk.accounting.bounds import BestOf, Bounded
from privrisk.accounting.concentrated import (
    ZeroConcentratedDP,
    zcdp,  # noqa: F401 - used by the doctests
)
from privrisk.accounting.guarantees import (
    ApproximateDP,
    GaussianDP,
    Guarantee,
    PureDP,
    approximate,
)
from privrisk.accounting.mechanisms import (
    GaussianMechanism,
    RandomisedResponse,
    laplace_guarantee,  # noqa: F401 - used by the doctests
)
from privrisk.accounting.optimal_composition import KovComposition, kov_fits
from privrisk.accounting.pld_composition import (
    DISCRETISATION,  # noqa: F401 - imported from here; DISCRETIZATION's new name
    MAX_PLD_RELEASES,
    PldComposition,
    _composed_label,
    _has_pld,
    _mu,
)
from privrisk.accounting.renyi_composition import (
    CatastropheGuarantee,  # noqa: F401 - imported from here
    _rdp_route,
)
from privrisk.errors import PrivriskError, deprecation_message

__all__ = [
    "Bounded",
    "ComposedGuarantee",
    "KovComposition",
    "PldComposition",
    "compose",
    "compose_parts",
]


def _check_guarantees(guarantees: Any) -> list[Guarantee]:
    try:
        items = list(guarantees)
    except TypeError:
        raise PrivriskError("guarantees: give a list of guarantees", param="guarantees") from None
    if not items:
        raise PrivriskError("guarantees: give at least one guarantee", param="guarantees")
    for g in items:
        if not isinstance(g, Guarantee):
            raise PrivriskError(f"guarantees: {g!r} is not a privacy guarantee", param="guarantees")
    return items


def _flatten(items: list[Guarantee]) -> list[tuple[Guarantee, int, float]]:
    """(guarantee, count, rate) triples; PLD compositions and KOV compositions are opened up, and runs of one
    object (``[g] * 10**6``) become one triple, so a million copies cost one entry."""
    runs: list[list[Any]] = []
    for g in items:
        if runs and runs[-1][0] is g:
            runs[-1][1] += 1
        else:
            runs.append([g, 1])
    out: list[tuple[Guarantee, int, float]] = []
    for g, times in runs:
        if isinstance(g, PldComposition):
            out.extend((part, count * times, rate) for part, count, rate in g.parts)
        elif isinstance(g, KovComposition):
            one = PureDP(g.epsilon) if g.delta == 0 else approximate(g.epsilon, g.delta)
            out.append((one, g.k * times, 1.0))
        else:
            out.append((g, times, 1.0))
    return out


def compose(guarantees: Sequence[Guarantee]) -> Guarantee:
    """The guarantee of releasing all of ``guarantees`` about the same people, with the tightest rule that
    applies (see the module's docstring for the order).

    Args:
        guarantees: one or more guarantees.

    Raises:
        PrivriskError: if the list is empty or holds something else than guarantees.

    Example:
        >>> round(compose([laplace_guarantee(epsilon=0.5)] * 2).epsilon_at(1e-6), 3)
        1.0
    """
    items = _check_guarantees(guarantees)
    if len(items) == 1:
        return items[0]
    return compose_parts(_flatten(items))


def compose_parts(flat: Sequence[tuple[Guarantee, int, float]]) -> Guarantee:
    """:func:`compose` on (guarantee, count, Poisson rate) triples, so that k copies cost one entry."""
    total = sum(count for _, count, _ in flat)
    if total == 1 and flat[0][2] == 1.0:
        return flat[0][0]
    name = _composed_label(flat, total)
    plain = all(rate == 1.0 for _, _, rate in flat)
    if plain and all(isinstance(g, GaussianDP | GaussianMechanism) for g, _, _ in flat):
        mu = _root_sum_squares([(_mu(g), count) for g, count, _ in flat])
        source = (
            f"exact: composition of {total} Gaussian releases, μ = √Σμᵢ² (Dong, Roth and Su 2022, Cor. 3.3)"
        )
        return GaussianDP(mu, source=source, name=name)
    if plain and all(isinstance(g, ZeroConcentratedDP | GaussianDP | GaussianMechanism) for g, _, _ in flat):
        rho = math.fsum(count * _rho(g) for g, count, _ in flat)
        source = f"composition of {total} releases: ρ = Σρᵢ (Bun and Steinke 2016, Lemma 2.3)"
        return ZeroConcentratedDP(min(rho, math.inf), source=source, name=name)
    # Randomized response is pure ε with the same profile: Kairouz, Oh and Viswanath's formula is exact for it.
    worst = (PureDP, ApproximateDP, RandomisedResponse)
    kinds = {(g._pld_key(), rate) for g, _, rate in flat}
    first = flat[0][0]
    if len(kinds) == 1 and plain and all(type(g) in worst for g, _, _ in flat):
        if kov_fits(first.epsilon, total):  # type: ignore[attr-defined]
            return KovComposition(first.epsilon, getattr(first, "delta", 0.0), total)  # type: ignore[attr-defined]
        return _too_many(flat, total, name)
    if total > MAX_PLD_RELEASES:
        return _too_many(flat, total, name)
    if all(_has_pld(g) for g, _, _ in flat):
        return _generic(flat)
    # Some part has no privacy loss distribution: its Rényi curve where every part has one (with (ε, δ) parts
    # split into a catastrophe of probability δ and ε randomized response), and the profile route beside it
    # where that stays cheap; the smaller δ(ε) of the two holds at every ε.
    candidates: list[Guarantee] = []
    renyi = _rdp_route(flat, total, name)
    if renyi is not None:
        candidates.append(renyi)
    lacking = {_group_key(g) for g, _, _ in flat if not _has_pld(g)}
    if renyi is None or len(lacking) <= 1:
        candidates.append(_generic(flat, name))
    return candidates[0] if len(candidates) == 1 else BestOf(tuple(candidates), name)


def _too_many(flat: Sequence[tuple[Guarantee, int, float]], total: int, name: str) -> Guarantee:
    """More releases than an exact composition can sum in memory (10²⁰): a bound that needs no grid.

    The Rényi curves added (Mironov 2017, Prop. 1; an (ε, δ) part as ε randomized response outside a catastrophe
    of probability δ), beside the plain sum of ε where every part is pure (sequential composition); otherwise
    basic composition of each part at (ε(δ), δ) with δ = 10⁻¹⁰ (Dwork and Roth 2014, Thm. 3.16). Its
    ``conversion`` says that it is a bound and why.
    """
    why = f"a bound: {total:,} releases are too many for the exact composition"
    candidates: list[Guarantee] = []
    renyi = _rdp_route(flat, total, name)
    if renyi is not None:
        candidates.append(renyi)
    pure = [g.pure_epsilon for g, _, _ in flat]
    if all(e is not None for e in pure):
        parts = zip(flat, pure, strict=True)
        plain = math.fsum(count * amplified_epsilon(float(e or 0.0), rate) for (_, count, rate), e in parts)
        candidates.append(PureDP(min(plain, 1e300), source="sequential composition: the ε add up"))
    if not candidates:
        eps = math.fsum(c * g.epsilon_at(LAST_RESORT_DELTA) for g, c, _ in flat)
        delta = -math.expm1(total * math.log1p(-LAST_RESORT_DELTA))
        candidates.append(
            approximate(min(eps, 1e300), delta, source="basic composition, each as (ε(δ), δ) at δ = 1e-10")
        )
    inner = candidates[0] if len(candidates) == 1 else BestOf(tuple(candidates), name)
    return Bounded(inner, why, name)


def _root_sum_squares(values: Sequence[tuple[float, int]]) -> float:
    """√Σ cᵢ xᵢ², scaled by the largest x so that x = 10³⁰⁰ does not overflow."""
    top = max(x for x, _ in values)
    return top * math.sqrt(math.fsum(count * (x / top) ** 2 for x, count in values))


def _rho(g: Guarantee) -> float:
    if isinstance(g, ZeroConcentratedDP):
        return g.rho
    return _mu(g) ** 2 / 2.0


# Names this module held before subsampling, group privacy and each route of composition got modules of their own:
# still importable here, from their homes.
_HOMES = {
    "optimal_composition": "kov_atoms kov_deltas ProfileKovComposition MAX_KOV_ATOMS KOV_LOG_RANGE",
    "pld_composition": "Part PrivacyLossDistribution MAX_PLD_POINTS MAX_SAMPLED_PLD_POINTS WIDE_SPAN "
    "MAX_COMPOSED_POINTS SPREAD_DEVIATIONS TAIL_MASS CERTAIN_FINITE_MASS MAX_PLD_SPAN",
    "basic_composition": "MAX_BASIC_GROUPS",
    "subsampling": "SubsampledGuarantee subsample part_rdp SAMPLED_ORDERS",
    "grouping": "GroupGuarantee group MAX_GROUP",
}
_MOVED = {name: f"privrisk.accounting.{home}" for home, names in _HOMES.items() for name in names.split()}


# The American spelling before 0.2, kept one release (public names are spelled the British way).
_RESPELLED = {"DISCRETIZATION": "DISCRETISATION"}


def __getattr__(name: str) -> Any:
    """``privrisk.accounting.composition.subsample`` and the other moved names, from their new modules."""
    if name in _RESPELLED:
        warnings.warn(deprecation_message(name, _RESPELLED[name]), DeprecationWarning, stacklevel=2)
        return globals()[_RESPELLED[name]]
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
