"""Basic composition at the best split of ε (Dwork and Roth 2014, Thm. 3.16): the privacy loss distribution of
the parts that have one, joined with each other guarantee, whose copies are composed by Kairouz, Oh and Viswanath
at the best point of its profile. Beyond :data:`MAX_BASIC_GROUPS` such guarantees (a bounded last resort) the
rest enter the loss distribution as (ε(δ), δ) at δ = :data:`LAST_RESORT_DELTA` each.

Example:
    >>> from privrisk.accounting.guarantees import approximate, pure_dp
    >>> g = ComposedGuarantee(pure_dp(1.0), approximate(1.0, 1e-6))
    >>> g.delta_at(2.0), g.delta_at(3.0)   # ε split as 1 + 1: 0 + 10⁻⁶
    (1e-06, 1e-06)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privrisk.accounting.guarantees import Guarantee, PureDP, approximate
from privrisk.accounting.optimal_composition import KovComposition, ProfileKovComposition, kov_fits
from privrisk.accounting.pld_composition import MAX_PLD_SPAN, _composed_label, _has_pld, _pld_composition

__all__ = ["ComposedGuarantee"]

# The most distinct guarantees without a loss distribution or a Rényi curve joined by basic composition (each
# join multiplies the work by about 250); the rest enter as (ε(δ), δ) at δ = LAST_RESORT_DELTA.
MAX_BASIC_GROUPS = 2
LAST_RESORT_DELTA = 1e-10


@dataclass(frozen=True)
class ComposedGuarantee(Guarantee):
    """Two groups composed by basic composition at every point of the profile:
    δ(ε) = min over ε₁ + ε₂ = ε of δ₁(ε₁) + δ₂(ε₂) (Dwork and Roth 2014, Thm. 3.16, for each split)."""

    first: Guarantee
    second: Guarantee

    _label = "composition of {self.first.label} and {self.second.label}"
    _conversion = (
        "basic composition of the profiles at the best split of ε ({self.first.conversion}; "
        "{self.second.conversion})"
    )

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.atleast_1d(np.asarray(epsilon, dtype=float)).ravel()
        # The share of ε given to the first part: a grid and the kinks of both profiles, for every ε at once;
        # then a finer grid around each best share.
        grid = np.broadcast_to(np.linspace(0.0, 1.0, 201), (e.size, 201))
        with np.errstate(divide="ignore", invalid="ignore"):
            kinks = [k / e for k in self.first._kinks()] + [1.0 - k / e for k in self.second._kinks()]
        share = np.column_stack([grid, *kinks]) if kinks else grid
        share = np.clip(np.nan_to_num(share, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        total = self._split_deltas(share, e)
        best = share[np.arange(e.size), np.argmin(total, axis=1)]
        fine = np.clip(best[:, None] + np.linspace(-0.005, 0.005, 41)[None, :], 0.0, 1.0)
        result = np.minimum(total.min(axis=1), self._split_deltas(fine, e).min(axis=1))
        return np.clip(result, 0.0, 1.0).reshape(np.shape(epsilon))

    def _split_deltas(self, share: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
        """δ₁(sε) + δ₂((1 − s)ε) for every ε (rows) and share s (columns)."""
        first = share * epsilon[:, None]
        second = np.maximum(epsilon[:, None] - first, 0.0)
        d1 = self.first._deltas(first.ravel()).reshape(first.shape)
        d2 = self.second._deltas(second.ravel()).reshape(second.shape)
        return d1 + d2

    def _envelope_epsilons(self) -> np.ndarray:
        return super()._envelope_epsilons()[::4]

    def _kinks(self) -> tuple[float, ...]:
        return ()

    def _max_loss(self) -> float:
        return self.first._max_loss() + self.second._max_loss()

    def _delta_floor(self) -> float:
        return min(1.0, self.first._delta_floor() + self.second._delta_floor())


def _group_key(g: Guarantee) -> Any:
    """Copies of one guarantee share a key (dataclasses compare by value)."""
    try:
        hash(g)
    except TypeError:  # pragma: no cover - every guarantee is a frozen dataclass
        return id(g)
    return g


def _generic(flat: Sequence[tuple[Guarantee, int, float]], name: str = "") -> Guarantee:
    """The privacy loss distribution of every part that has one; each other guarantee's copies by
    Kairouz, Oh and Viswanath at the best point of its profile; the groups joined by basic composition at the
    best split of ε. Beyond MAX_BASIC_GROUPS groups (a bounded last resort) the rest enter the loss distribution
    as their (ε(δ), δ) at δ = 10⁻¹⁰ each."""
    with_pld = [(g, c, r) for g, c, r in flat if _has_pld(g)]
    counts: dict[Any, list[Any]] = {}
    for g, c, _ in flat:
        if not _has_pld(g):
            key = _group_key(g)
            counts.setdefault(key, [g, 0])[1] += c
    groups = list(counts.values())
    slots = MAX_BASIC_GROUPS - (1 if with_pld else 0)
    huge_eps, huge_count = 0.0, 0
    while len(groups) > max(slots, 1):
        g, c = groups.pop()
        eps = g.epsilon_at(LAST_RESORT_DELTA)
        if eps <= MAX_PLD_SPAN:
            one = approximate(eps, LAST_RESORT_DELTA, source=f"{g.label} as (ε(δ), δ) at δ = 1e-10")
            with_pld.append((one, c, 1.0))
        else:  # beyond any grid (the attacker is as good as certain): added up, basic composition
            huge_eps, huge_count = huge_eps + c * eps, huge_count + c
    if huge_count and len(groups) >= max(slots, 1):
        # The fold takes a slot of its own: one more group joins it, so basic compositions never nest deeper.
        g, c = groups.pop()
        huge_eps, huge_count = huge_eps + c * g.epsilon_at(LAST_RESORT_DELTA), huge_count + c
    if huge_count:
        delta = -math.expm1(huge_count * math.log1p(-LAST_RESORT_DELTA))
        source = f"basic composition of {huge_count} releases, each as (ε(δ), δ) at δ = 1e-10"
        groups.append([approximate(min(huge_eps, 1e300), delta, source=source), 1])
    result: Guarantee | None = None
    if with_pld:
        pld = _pld_composition(with_pld, _composed_label(with_pld))
        single = len(pld.parts) == 1 and pld.parts[0][1] == 1 and pld.parts[0][2] == 1.0
        result = pld.parts[0][0] if single else pld
    for g, c in groups:
        part = g if c == 1 else _copies(g, c)
        result = part if result is None else ComposedGuarantee(result, part)
    assert result is not None
    return result


def _copies(g: Guarantee, count: int) -> Guarantee:
    """k copies of a guarantee with no loss distribution and no Rényi curve."""
    pure = g.pure_epsilon
    if pure is not None and g._delta_floor() == 0:
        return KovComposition(pure, 0.0, count) if kov_fits(pure, count) else PureDP(min(pure * count, 1e300))
    if not kov_fits(1e-9, count):  # more copies than any grid of ε₀ can sum: basic composition at δ = 10⁻¹⁰
        eps = count * g.epsilon_at(LAST_RESORT_DELTA)
        delta = -math.expm1(count * math.log1p(-LAST_RESORT_DELTA))
        return approximate(
            min(eps, 1e300), delta, source=f"basic composition of {count:,} releases at δ = 1e-10"
        )
    return ProfileKovComposition(g, count)
