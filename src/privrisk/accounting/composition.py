"""Combining guarantees: composition, amplification by subsampling and group privacy, each with the tightest
rule that applies, named in the result's ``conversion``.

Composition picks, in this order:

1. Gaussian DP and Gaussian mechanisms only: μ = √Σμᵢ², exact (Dong, Roth and Su 2022, Cor. 3.3);
2. zCDP (and Gaussian) only: ρ = Σρᵢ (Bun and Steinke 2016, Lemma 2.3);
3. k copies of one pure ε or one (ε, δ): the optimal composition of Kairouz, Oh and Viswanath (2015, Thm. 3.3),
   exact, summed in log space;
4. anything with a Rényi curve when zCDP or Rényi DP is among them: the curves add (Mironov 2017, Prop. 1);
5. everything else: the privacy loss distribution of ``dp_accounting`` (Koskela et al. 2020; Doroshenko et al.
   2022), identical mechanisms grouped and composed by repeated squaring (``self_compose``);
6. a mixture no single rule covers ((ε, δ) with zCDP): the profiles of the two parts added at the best split
   of ε (basic composition, Dwork and Roth 2014, Thm. 3.16, applied point by point).

Example:
    >>> g = compose([gaussian_dp(0.6), gaussian_dp(0.8)])
    >>> round(g.mu, 6), g.conversion.startswith("exact")
    (1.0, True)
    >>> round(compose([pure_dp(1.0)] * 2).delta_at(1.0), 4)   # Kairouz, Oh and Viswanath: p²(1 − e⁻¹), p = e/(1 + e)
    0.3378
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.accounting._math import epsilon_from_profile, tradeoff_from_loss
from privrisk.accounting.concentrated import (
    RenyiDP,
    ZeroConcentratedDP,
    zcdp,  # noqa: F401 - used by the doctests
)
from privrisk.accounting.guarantees import (
    DEFAULT_ORDERS,
    ApproximateDP,
    GaussianDP,
    Guarantee,
    PureDP,
    approximate,
    gaussian_dp,  # noqa: F401 - used by the doctests
    pure_dp,
)
from privrisk.accounting.mechanisms import (
    GaussianMechanism,
    RandomizedResponse,
    laplace_mechanism,  # noqa: F401 - used by the doctests
)
from privrisk.errors import PrivriskError

PrivacyLossDistribution = Any  # dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

__all__ = [
    "ComposedGuarantee",
    "GroupGuarantee",
    "KovComposition",
    "PldComposition",
    "SubsampledGuarantee",
    "compose",
    "compose_parts",
    "group",
    "subsample",
]

# Discretisation of the privacy loss (dp_accounting's default) and the most points a loss grid may have.
DISCRETIZATION = 1e-4
MAX_PLD_POINTS = 500_000
TAIL_MASS = 1e-15


# ------------------------------------------------------------------------------------- Kairouz, Oh, Viswanath
def kov_deltas(eps0: float, delta0: float, k: int, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of k-fold (ε₀, δ₀)-DP, exactly (Kairouz, Oh and Viswanath 2015, Thm. 3.3).

    The composed worst mechanism has privacy loss (k − 2j)ε₀ with j ~ Binomial(k, q), q = 1/(1 + e^ε₀), so
    δ(ε) = 1 − (1 − δ₀)^k (1 − Σ_(j: (k−2j)ε₀ > ε) C(k, j) p^(k−j) q^j (1 − e^(ε − (k−2j)ε₀))); every term is
    taken in log space.
    """
    j = np.arange(k + 1, dtype=float)
    steps = np.log(k - j[1:] + 1.0) - np.log(j[1:])
    log_binom = np.concatenate([[0.0], np.cumsum(steps)])
    log_p, log_q = -np.logaddexp(0.0, -eps0), -np.logaddexp(0.0, eps0)
    log_mass = log_binom + (k - j) * log_p + j * log_q
    loss = (k - 2.0 * j) * eps0
    e = np.atleast_1d(np.asarray(epsilon, dtype=float))
    out = np.empty(e.shape, dtype=float)
    for i, value in enumerate(e.ravel()):
        mask = loss > value
        terms = log_mass[mask] + np.log(-np.expm1(value - loss[mask]))
        if terms.size:
            top = float(terms.max())
            out.flat[i] = math.exp(top) * float(np.sum(np.exp(terms - top)))
        else:
            out.flat[i] = 0.0
    pure = np.clip(out, 0.0, 1.0)
    if delta0 == 0:
        return pure
    keep = math.exp(k * math.log1p(-delta0))
    return np.clip(1.0 - keep * (1.0 - pure), 0.0, 1.0)


@dataclass(frozen=True)
class KovComposition(Guarantee):
    """k-fold composition of (ε, δ)-DP (δ may be 0), exact: Kairouz, Oh and Viswanath (2015), Thm. 3.3."""

    epsilon: float
    delta: float
    k: int

    @property
    def label(self) -> str:
        one = pure_dp(self.epsilon) if self.delta == 0 else approximate(self.epsilon, self.delta)
        return f"{self.k} releases of {one.label}"

    @property
    def conversion(self) -> str:
        return "Kairouz, Oh and Viswanath (2015), optimal composition"

    @property
    def pure_epsilon(self) -> float | None:
        return self.k * self.epsilon if self.delta == 0 else None

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return kov_deltas(self.epsilon, self.delta, self.k, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        floor = self._delta_floor()
        if d < floor:
            return math.inf
        if d == 0:
            return self.k * self.epsilon
        return epsilon_from_profile(self._deltas, d, start=self.epsilon)

    def _delta_floor(self) -> float:
        return 1.0 - math.exp(self.k * math.log1p(-self.delta)) if self.delta else 0.0

    def _envelope_epsilons(self) -> np.ndarray:
        # The loss takes only the values (k − 2j)ε: the envelope at those points is the exact curve.
        loss = (self.k - 2.0 * np.arange(self.k + 1)) * self.epsilon
        return np.concatenate([[0.0], loss[loss > 0]])

    def _max_loss(self) -> float:
        return self.k * self.epsilon if self.delta == 0 else math.inf

    def _grouped(self, k: int) -> Guarantee | None:
        return None


# -------------------------------------------------------------------------------------------- privacy loss PLD
Part = tuple[Guarantee, int, float]  # (mechanism, how many times, Poisson sampling rate)


@dataclass(frozen=True)
class PldComposition(Guarantee):
    """Composition through the privacy loss distribution of ``dp_accounting`` (pessimistic estimates: every δ
    it gives is an upper bound).

    Attributes:
        parts: (guarantee, count, sampling rate) for every distinct mechanism.
    """

    parts: tuple[Part, ...]
    name: str = ""
    releases: int = 0

    @property
    def count(self) -> int:
        """How many releases are composed."""
        return self.releases or sum(count for _, count, _ in self.parts)

    @property
    def label(self) -> str:
        return self.name or _composed_label(list(self.parts))

    @property
    def conversion(self) -> str:
        return "privacy loss distribution (dp_accounting)"

    @property
    def pure_epsilon(self) -> float | None:
        total = 0.0
        for g, count, rate in self.parts:
            pure = g.pure_epsilon
            if pure is None:
                return None
            total += count * (pure if rate == 1 else math.log1p(rate * math.expm1(pure)))
        return total

    @cached_property
    def discretization(self) -> float:
        """The loss grid: dp_accounting's 10⁻⁴, coarser only where the loss spans too far for memory."""
        span = sum(count * g._pld_span() for g, count, _ in self.parts)
        return max(DISCRETIZATION, 2.0 * span / MAX_PLD_POINTS)

    @cached_property
    def pld(self) -> PrivacyLossDistribution:
        """The composed privacy loss distribution (identical mechanisms composed by repeated squaring)."""
        total = None
        for g, count, rate in self.parts:
            single = g._pld(self.discretization, rate)
            if single is None:  # pragma: no cover - guarded by compose
                raise PrivriskError(
                    f"guarantees: no privacy loss distribution for {g.label}", param="guarantees"
                )
            piece = single.self_compose(count, tail_mass_truncation=TAIL_MASS) if count > 1 else single
            total = piece if total is None else total.compose(piece, tail_mass_truncation=TAIL_MASS)
        assert total is not None
        return total

    @cached_property
    def _loss_pmfs(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """(losses, masses, mass at +∞) of the composed PLD, for each neighbouring order it distinguishes."""
        pld = self.pld
        pmfs = [pld._pmf_remove] if getattr(pld, "_symmetric", True) else [pld._pmf_remove, pld._pmf_add]
        out = []
        for pmf in pmfs:
            dense = pmf.to_dense_pmf() if hasattr(pmf, "to_dense_pmf") else pmf
            probs = np.asarray(dense._probs, dtype=float)
            losses = (dense._lower_loss + np.arange(probs.size)) * dense._discretization
            keep = probs > 0
            out.append((losses[keep], probs[keep], float(dense._infinity_mass)))
        return out

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        # δ(ε) = ω(+∞) + Σ_(ℓ > ε) ω(ℓ)(1 − e^(ε − ℓ)), the hockey-stick divergence of the discretised pair (what
        # dp_accounting's get_delta_for_epsilon computes, summed here with numpy for speed).
        e = np.atleast_1d(np.asarray(epsilon, dtype=float))
        out = np.zeros(e.size, dtype=float)
        for losses, probs, infinity in self._loss_pmfs:
            values = np.empty(e.size, dtype=float)
            for i, value in enumerate(e.ravel()):
                mask = losses > value
                values[i] = infinity + float(np.sum(probs[mask] * -np.expm1(value - losses[mask])))
            out = np.maximum(out, values)
        return np.clip(out, 0.0, 1.0).reshape(np.shape(epsilon))

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        value = float(self.pld.get_epsilon_for_delta(d))
        pure = self.pure_epsilon
        if pure is not None:
            value = min(value, pure)
        return max(0.0, value) if math.isfinite(value) else math.inf

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        return self.pld if sampling_prob == 1.0 and discretization == self.discretization else None

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) read off the privacy loss distribution itself (the Neyman–Pearson curve of the discretised pair),
        the smaller of the two neighbouring orders where they differ."""
        a = check_probability(alpha, name="alpha")
        curves = [
            tradeoff_from_loss(a, losses, probs, infinity) for losses, probs, infinity in self._loss_pmfs
        ]
        return np.minimum.reduce(curves)

    def _max_loss(self) -> float:
        total = 0.0
        for g, count, rate in self.parts:
            top = g._max_loss()
            if not math.isfinite(top):
                return math.inf
            total += count * (top if rate == 1 else math.log1p(rate * math.expm1(min(top, 700.0))))
        return total

    def _pld_span(self) -> float:
        return sum(count * g._pld_span() for g, count, _ in self.parts)

    def _delta_floor(self) -> float:
        keep = math.fsum(count * math.log1p(-rate * g._delta_floor()) for g, count, rate in self.parts)
        return -math.expm1(keep)


def _pld_composition(items: Sequence[tuple[Guarantee, int, float]], name: str = "") -> PldComposition:
    """Group identical mechanisms (same PLD key and rate), keeping the order of first appearance; Gaussian
    releases on the whole data merge into one exactly, μ = √Σμᵢ² (Dong, Roth and Su 2022, Cor. 3.3)."""
    gaussian = [
        (g, c) for g, c, rate in items if rate == 1.0 and isinstance(g, GaussianDP | GaussianMechanism)
    ]
    if len(gaussian) > 1 or (gaussian and gaussian[0][1] > 1):
        mu = math.sqrt(math.fsum(c * _mu(g) ** 2 for g, c in gaussian))
        merged = GaussianDP(mu, name=_composed_label([(g, c, 1.0) for g, c in gaussian]))
        rest = [
            (g, c, r) for g, c, r in items if not (r == 1.0 and isinstance(g, GaussianDP | GaussianMechanism))
        ]
        items = [(merged, 1, 1.0), *rest]
    counts: dict[tuple[Any, ...], list[Any]] = {}
    for g, count, rate in items:
        key = (g._pld_key(), rate)
        if key in counts:
            counts[key][1] += count
        else:
            counts[key] = [g, count, rate]
    total = sum(c for _, c, _ in items) + (sum(c for _, c in gaussian) - 1 if gaussian else 0)
    parts = tuple((g, int(c), float(r)) for g, c, r in counts.values())
    return PldComposition(parts, name=name, releases=total)


# --------------------------------------------------------------------------------- a mixture of two profiles
@dataclass(frozen=True)
class ComposedGuarantee(Guarantee):
    """Two groups composed by basic composition at every point of the profile:
    δ(ε) = min over ε₁ + ε₂ = ε of δ₁(ε₁) + δ₂(ε₂) (Dwork and Roth 2014, Thm. 3.16, for each split)."""

    first: Guarantee
    second: Guarantee

    @property
    def label(self) -> str:
        return f"composition of {self.first.label} and {self.second.label}"

    @property
    def conversion(self) -> str:
        return (
            f"basic composition of the profiles at the best split of ε "
            f"({self.first.conversion}; {self.second.conversion})"
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


# ---------------------------------------------------------------------------------------------------- compose
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
    """(guarantee, count, rate) triples; PLD compositions and KOV compositions are opened up."""
    out: list[tuple[Guarantee, int, float]] = []
    for g in items:
        if isinstance(g, PldComposition):
            out.extend(g.parts)
        elif isinstance(g, KovComposition):
            out.append((pure_dp(g.epsilon) if g.delta == 0 else approximate(g.epsilon, g.delta), g.k, 1.0))
        else:
            out.append((g, 1, 1.0))
    return out


def compose(guarantees: Sequence[Guarantee]) -> Guarantee:
    """The guarantee of releasing all of ``guarantees`` about the same people, with the tightest rule that
    applies (see the module's docstring for the order).

    Args:
        guarantees: one or more guarantees.

    Raises:
        PrivriskError: if the list is empty or holds something else than guarantees.

    Example:
        >>> round(compose([laplace_mechanism(epsilon=0.5)] * 2).epsilon_at(1e-6), 3)
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
        mu = math.sqrt(math.fsum(count * _mu(g) ** 2 for g, count, _ in flat))
        source = (
            f"exact: composition of {total} Gaussian releases, μ = √Σμᵢ² (Dong, Roth and Su 2022, Cor. 3.3)"
        )
        return GaussianDP(mu, source=source, name=name)
    if plain and all(isinstance(g, ZeroConcentratedDP | GaussianDP | GaussianMechanism) for g, _, _ in flat):
        rho = math.fsum(count * _rho(g) for g, count, _ in flat)
        source = f"composition of {total} releases: ρ = Σρᵢ (Bun and Steinke 2016, Lemma 2.3)"
        return ZeroConcentratedDP(rho, source=source, name=name)
    # Randomized response is pure ε with the same profile: Kairouz, Oh and Viswanath's formula is exact for it.
    worst = (PureDP, ApproximateDP, RandomizedResponse)
    kinds = {(g._pld_key(), rate) for g, _, rate in flat}
    first = flat[0][0]
    if len(kinds) == 1 and plain and all(type(g) in worst for g, _, _ in flat):
        return KovComposition(first.epsilon, getattr(first, "delta", 0.0), total)  # type: ignore[attr-defined]
    if any(isinstance(g, ZeroConcentratedDP | RenyiDP) for g, _, _ in flat):
        with_curve = [(g, c) for g, c, rate in flat if rate == 1.0 and g._rdp(DEFAULT_ORDERS) is not None]
        if len(with_curve) == len(flat):
            return _rdp_composition(with_curve, total, name)
        renyi = [(g, c, r) for g, c, r in flat if isinstance(g, ZeroConcentratedDP | RenyiDP)]
        rest = [(g, c, r) for g, c, r in flat if not isinstance(g, ZeroConcentratedDP | RenyiDP)]
        return ComposedGuarantee(compose_parts(renyi), _generic(rest))
    return _generic(flat)


def _composed_label(flat: Sequence[tuple[Guarantee, int, float]], total: int | None = None) -> str:
    total = sum(count for _, count, _ in flat) if total is None else total
    merged: dict[tuple[str, float], int] = {}
    for g, count, rate in flat:
        merged[(g.label, rate)] = merged.get((g.label, rate), 0) + count
    pieces = []
    for (label, rate), count in merged.items():
        sampled = f", each on a Poisson sample of rate {rate:.3g}" if rate < 1 else ""
        pieces.append(f"{count} × {label}{sampled}" if count > 1 else f"{label}{sampled}")
    if total == 1:
        return pieces[0]
    shown = "; ".join(pieces[:4]) + ("; …" if len(pieces) > 4 else "")
    return f"composition of {total} releases: {shown}"


def _mu(g: Guarantee) -> float:
    return float(g.mu)  # type: ignore[attr-defined]


def _rho(g: Guarantee) -> float:
    if isinstance(g, ZeroConcentratedDP):
        return g.rho
    return _mu(g) ** 2 / 2.0


def _rdp_composition(curves: Sequence[tuple[Guarantee, int]], total: int, name: str) -> Guarantee:
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    own = [g for g, _ in curves if isinstance(g, RenyiDP)]
    if own:
        orders = np.unique(np.concatenate([np.asarray(g.orders) for g in own]))
    summed = np.zeros(orders.shape, dtype=float)
    for g, count in curves:
        values = g._rdp(orders)
        assert values is not None
        summed = summed + count * np.asarray(values, dtype=float)
    keep = np.isfinite(summed)
    return RenyiDP(
        tuple(float(x) for x in orders[keep]),
        tuple(float(x) for x in summed[keep]),
        source=f"composition of {total} releases: Rényi curves added (Mironov 2017, Prop. 1)",
        name=name,
    )


def _generic(flat: Sequence[tuple[Guarantee, int, float]]) -> Guarantee:
    """PLD when every part has one; otherwise the parts without one joined by basic composition."""
    with_pld = [(g, c, r) for g, c, r in flat if g._pld_key() is not None]
    without = [g for g, c, _ in flat for _ in range(c) if g._pld_key() is None]
    result: Guarantee | None = None
    if with_pld:
        pld = _pld_composition(with_pld, _composed_label(with_pld))
        single = len(pld.parts) == 1 and pld.parts[0][1] == 1 and pld.parts[0][2] == 1.0
        result = pld.parts[0][0] if single else pld
    for g in without:
        result = g if result is None else ComposedGuarantee(result, g)
    assert result is not None
    return result


# -------------------------------------------------------------------------------------------------- subsample
@dataclass(frozen=True)
class SubsampledGuarantee(Guarantee):
    """Amplification by subsampling of any profile: (ε, δ) becomes (ln(1 + γ(e^ε − 1)), γδ) at every ε
    (Balle, Barthe and Gaboardi 2018, Thm. 8 for Poisson sampling, Thm. 9 without replacement)."""

    base: Guarantee
    rate: float
    method: str = "poisson"

    @property
    def label(self) -> str:
        how = "Poisson sample" if self.method == "poisson" else "sample without replacement"
        return f"{self.base.label}, on a {how} of rate {self.rate:.3g}"

    @property
    def conversion(self) -> str:
        return (
            f"amplification by subsampling: ε′ = ln(1 + γ(e^ε − 1)), δ′ = γδ (Balle, Barthe and Gaboardi 2018); "
            f"{self.base.conversion}"
        )

    def _base_epsilon(self, epsilon: np.ndarray) -> np.ndarray:
        # ε = ln(1 + (e^ε′ − 1)/γ), as log(e^ε′ − 1 + γ) − log γ in a form that does not overflow.
        e = np.asarray(epsilon, dtype=float)
        with np.errstate(over="ignore"):
            small = np.log1p(np.expm1(np.minimum(e, 700.0)) / self.rate)
        large = e - math.log(self.rate) + np.log1p(-(1.0 - self.rate) * np.exp(-np.maximum(e, 700.0)))
        return np.where(e < 700.0, small, large)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return self.rate * self.base._deltas(self._base_epsilon(epsilon))

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        # γ δ(ε) ≤ d exactly when δ(ε) ≤ d/γ: invert the base profile, then map ε to ln(1 + γ(e^ε − 1)).
        if d >= self.rate:
            return 0.0
        base = self.base.epsilon_at(d / self.rate)
        if not math.isfinite(base):
            return math.inf
        if base > 700.0:
            return base + math.log(self.rate) + math.log1p((1.0 - self.rate) * math.exp(-base) / self.rate)
        return math.log1p(self.rate * math.expm1(base))

    @property
    def pure_epsilon(self) -> float | None:
        pure = self.base.pure_epsilon
        return None if pure is None else math.log1p(self.rate * math.expm1(pure))

    def _delta_floor(self) -> float:
        return self.rate * self.base._delta_floor()

    def _max_loss(self) -> float:
        top = self.base._max_loss()
        return top if not math.isfinite(top) else math.log1p(self.rate * math.expm1(min(top, 700.0)))


def subsample(
    g: Guarantee, rate: float, *, method: Literal["poisson", "without_replacement"] = "poisson"
) -> Guarantee:
    """The guarantee of running ``g`` on a random sample of the data (amplification by subsampling).

    Poisson sampling of rate γ (each record kept independently) or sampling a fraction γ without replacement.
    Pure ε and (ε, δ) become (ln(1 + γ(e^ε − 1)), γδ) (Balle, Barthe and Gaboardi 2018, Thm. 8 and 9); a
    Laplace, Gaussian or discrete mechanism under Poisson sampling goes through ``dp_accounting``'s privacy loss
    distribution, which is tighter; any other profile is transformed point by point with the same rule.

    Args:
        g: the guarantee of the mechanism on the sample.
        rate: γ in (0, 1].
        method: ``"poisson"`` or ``"without_replacement"``.

    Example:
        >>> round(subsample(pure_dp(1.0), 0.1).pure_epsilon, 4)   # ln(1 + 0.1(e − 1))
        0.1586
    """
    if not isinstance(g, Guarantee):
        raise PrivriskError(f"g: {g!r} is not a privacy guarantee", param="g")
    gamma = float(check_probability(rate, name="rate", open_low=True))
    how = check_choice(method, ("poisson", "without_replacement"), name="method")
    if gamma == 1.0:
        return g
    source = (
        f"amplification by subsampling (rate {gamma:.3g}, {how.replace('_', ' ')}): "
        f"ε′ = ln(1 + γ(e^ε − 1)), δ′ = γδ (Balle, Barthe and Gaboardi 2018)"
    )
    if type(g) in (PureDP, RandomizedResponse):
        return PureDP(math.log1p(gamma * math.expm1(g.epsilon)), source=source)  # type: ignore[attr-defined]
    if isinstance(g, ApproximateDP):
        return approximate(math.log1p(gamma * math.expm1(g.epsilon)), gamma * g.delta, source=source)
    if how == "poisson" and g._pld_key() is not None and g._pld(DISCRETIZATION, gamma) is not None:
        return PldComposition(((g, 1, gamma),))
    return SubsampledGuarantee(g, gamma, how)


# ------------------------------------------------------------------------------------------------------ group
@dataclass(frozen=True)
class GroupGuarantee(Guarantee):
    """Group privacy from a profile, point by point: (ε, δ) for one person gives (kε, k e^((k−1)ε) δ) for k
    (Dwork and Roth 2014, Thm. 2.2; Vadhan 2017, Lemma 2.2), with the product taken in log space."""

    base: Guarantee
    k: int

    @property
    def label(self) -> str:
        return f"{self.base.label}, for groups of {self.k}"

    @property
    def conversion(self) -> str:
        return f"group privacy: (kε, k e^((k−1)ε) δ) for k = {self.k} (Vadhan 2017); {self.base.conversion}"

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float) / self.k
        with np.errstate(divide="ignore"):
            log_delta = math.log(self.k) + (self.k - 1) * e + np.log(self.base._deltas(e))
        # A profile decreases, so the bound at ε = 0 holds at every ε (and keeps this one decreasing).
        cap = min(1.0, self.k * float(self.base._deltas(np.array([0.0]))[0]))
        return np.minimum(np.exp(np.minimum(log_delta, 0.0)), cap)

    @property
    def pure_epsilon(self) -> float | None:
        pure = self.base.pure_epsilon
        return None if pure is None else self.k * pure

    def _max_loss(self) -> float:
        return self.k * self.base._max_loss()


def group(g: Guarantee, k: int) -> Guarantee:
    """The guarantee for a group of k people (a household) instead of one.

    Pure ε → kε; (ε, δ) → (kε, k e^((k−1)ε) δ); μ-GDP → kμ; ρ-zCDP → k²ρ; a mechanism with sensitivity Δ → the
    same mechanism with sensitivity kΔ (exact); compositions group part by part; any other profile point by
    point. ``conversion`` names the rule.

    Args:
        g: the guarantee for one person.
        k: the group size, a whole number ≥ 1.

    Example:
        >>> group(zcdp(0.5), 3).rho
        4.5
    """
    if not isinstance(g, Guarantee):
        raise PrivriskError(f"g: {g!r} is not a privacy guarantee", param="g")
    size = check_whole(k, name="k", minimum=1)
    if size == 1:
        return g
    exact = g._grouped(size)
    if exact is not None:
        return exact
    if isinstance(g, KovComposition):
        one = pure_dp(g.epsilon) if g.delta == 0 else approximate(g.epsilon, g.delta)
        # Each of the k releases is grouped, then they compose (the composition theorem holds for any pair).
        return compose_parts([(group(one, size), g.k, 1.0)])
    if isinstance(g, PldComposition) and all(rate == 1.0 for _, _, rate in g.parts):
        grouped = [(part._grouped(size), count, rate) for part, count, rate in g.parts]
        # Each release is a mechanism of its own on the same pair of databases: group, then compose.
        if all(part is not None for part, _, _ in grouped):
            return compose_parts([(part, count, rate) for part, count, rate in grouped if part is not None])
    return GroupGuarantee(g, size)
