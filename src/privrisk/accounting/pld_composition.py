"""Composition: the guarantee of several releases about the same people, with the tightest rule that applies,
named in the result's ``conversion``. Amplification by subsampling is in :mod:`~privrisk.accounting.subsampling`,
group privacy in :mod:`~privrisk.accounting.grouping`.

Composition picks, in this order:

1. Gaussian DP and Gaussian mechanisms only: μ = √Σμᵢ², exact (Dong, Roth and Su 2022, Cor. 3.3);
2. zCDP (and Gaussian) only: ρ = Σρᵢ (Bun and Steinke 2016, Lemma 2.3);
3. k copies of one pure ε or one (ε, δ): the optimal composition of Kairouz, Oh and Viswanath (2015, Thm. 3.3),
   exact, summed in log space over the binomial terms that matter;
4. everything with a privacy loss distribution: that of ``dp_accounting`` (Koskela et al. 2020; Doroshenko et
   al. 2022), identical mechanisms composed by FFT (``self_compose``) on dp_accounting's grid of 10⁻⁴, coarsened
   only from the composed spread (∝ √k) when the distribution would not fit in memory;
5. otherwise the Rényi curves added (Mironov 2017, Prop. 1), with sampled curves for subsampled parts and (ε, δ)
   parts as ε randomized response outside a catastrophe of probability δ; beside it, where cheap, the loss
   distribution of the parts that have one joined with the others by basic composition (Dwork and Roth 2014,
   Thm. 3.16) at the best split of ε, the others' copies by Kairouz, Oh and Viswanath at the best point of their
   profile; the smaller δ(ε) of the two at every ε;
6. as a bounded last resort, more than two distinct guarantees with neither enter the loss distribution as
   (ε(δ), δ) at δ = 10⁻¹⁰.

Example:
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
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting._math import (
    amplified_epsilon,
    epsilon_from_profile,
    grid_profile,
    tradeoff_from_loss,
)
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
    randomised_response_rdp,
)
from privrisk.accounting.mechanisms import (
    GaussianMechanism,
    RandomisedResponse,
    laplace_guarantee,  # noqa: F401 - used by the doctests
)
from privrisk.accounting.subsampling import RdpCurve, part_rdp
from privrisk.errors import PrivriskError, deprecation_message

PrivacyLossDistribution = Any  # dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

__all__ = [
    "Bounded",
    "ComposedGuarantee",
    "KovComposition",
    "PldComposition",
    "compose",
    "compose_parts",
]

# Discretisation of the privacy loss (dp_accounting's default) and the most points a loss grid may have.
DISCRETISATION = 1e-4
MAX_PLD_POINTS = 500_000
# A sampled mechanism's loss distribution is built by dp_accounting one grid point at a time, twice (both
# neighbouring orders): where its loss spans more than WIDE_SPAN nats (ε = 50 at rate ½ took 20 s on a busy
# machine with 500,000 points), at most this many points; narrower ones (DP-SGD's) keep the default grid.
MAX_SAMPLED_PLD_POINTS = 100_000
WIDE_SPAN = 20.0
# The most terms of the binomial that Kairouz, Oh and Viswanath's exact composition sums (about 90√(kpq)):
# beyond it (10¹⁰ releases of ε = 1) the Rényi curves are added instead, a bound, and the label says so.
MAX_KOV_ATOMS = 5_000_000
# The most releases composed on a loss grid: the composed loss spreads like √k, so beyond this the grid is so
# coarse that dp_accounting's e^(step) overflows; the Rényi curves are added instead (a bound).
MAX_PLD_RELEASES = 10_000_000
# The most points the composed loss distribution may have (about 16 MB of doubles per neighbouring order).
MAX_COMPOSED_POINTS = 2_000_000
# The composed loss is kept over its mean ± this many standard deviations (a Gaussian tail of e^(-200)).
SPREAD_DEVIATIONS = 20.0
TAIL_MASS = 1e-15
# dp_accounting's truncation empties a composed loss distribution whose finite mass is about TAIL_MASS; at or
# below this finite mass the composition is taken as certain (δ = 1), which errs by at most this much.
CERTAIN_FINITE_MASS = 1e-9
# A privacy loss wider than this (nats) is not put on a grid: e^ε must stay a double in dp_accounting, and the
# attacker is as good as certain anyway.
MAX_PLD_SPAN = 700.0
# The most distinct guarantees without a loss distribution or a Rényi curve joined by basic composition (each
# join multiplies the work by about 250); the rest enter as (ε(δ), δ) at δ = LAST_RESORT_DELTA.
MAX_BASIC_GROUPS = 2
LAST_RESORT_DELTA = 1e-10


# ------------------------------------------------------------------------------------- Kairouz, Oh, Viswanath
# Binomial terms more than this far (in nats) below the largest one are dropped: e^(−800) is below any double.
KOV_LOG_RANGE = 800.0


@lru_cache(maxsize=256)
def kov_atoms(eps0: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The privacy loss of k-fold binary randomized response: losses (k − 2j)ε₀ and ln masses under P.

    j ~ Binomial(k, q), q = 1/(1 + e^ε₀). Only the j whose log-mass lies within 800 nats of the largest are kept
    (about 60√(kpq) of them), so k = 10⁶ costs a few thousand terms, each a log-binomial (ln Γ), not a product.
    """
    log_p, log_q = -float(np.logaddexp(0.0, -eps0)), -float(np.logaddexp(0.0, eps0))
    mode = math.floor((k + 1) * math.exp(log_q))
    spread = math.sqrt(k * math.exp(log_p + log_q)) if k * math.exp(log_p + log_q) > 0 else 0.0
    reach = int(45.0 * spread + 50.0)
    j = np.arange(max(0, mode - reach), min(k, mode + reach) + 1, dtype=float)
    # ln C(k, j) from ln C(k, j₀) by the ratios (k − j + 1)/j: no scipy (pure ε stays light to import).
    start = math.lgamma(k + 1.0) - math.lgamma(j[0] + 1.0) - math.lgamma(k - j[0] + 1.0)
    steps = np.log(k - j[1:] + 1.0) - np.log(j[1:])
    log_mass = start + np.concatenate([[0.0], np.cumsum(steps)]) + (k - j) * log_p + j * log_q
    keep = log_mass >= log_mass.max() - KOV_LOG_RANGE
    loss, mass = (k - 2.0 * j[keep]) * eps0, log_mass[keep]
    loss.flags.writeable = mass.flags.writeable = False  # shared through the cache
    return loss, mass


def kov_deltas(eps0: float, delta0: float, k: int, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of k-fold (ε₀, δ₀)-DP, exactly (Kairouz, Oh and Viswanath 2015, Thm. 3.3).

    The composed worst mechanism has privacy loss (k − 2j)ε₀ with j ~ Binomial(k, q), q = 1/(1 + e^ε₀), so
    δ(ε) = 1 − (1 − δ₀)^k (1 − Σ_(j: (k−2j)ε₀ > ε) C(k, j) p^(k−j) q^j (1 − e^(ε − (k−2j)ε₀))); every term is
    taken in log space and only the binomial terms that matter are summed (:func:`kov_atoms`).
    """
    e = np.atleast_1d(np.asarray(epsilon, dtype=float))
    if eps0 > 0:
        loss, log_mass = kov_atoms(eps0, k)
        # The losses (k − 2j)ε₀ are a grid of step 2ε₀: every ε at once (the atoms come largest loss first).
        out = grid_profile(e, float(loss[-1]), 2.0 * eps0, np.exp(log_mass[::-1]), 0.0)
    else:
        out = np.zeros(e.shape)
    pure = np.clip(out, 0.0, 1.0)
    if delta0 == 0:
        return pure
    keep = math.exp(k * math.log1p(-delta0))
    return np.clip(1.0 - keep * (1.0 - pure), 0.0, 1.0)


def kov_fits(eps0: float, k: int) -> bool:
    """Whether the exact composition of k releases of ε₀ sums few enough binomial terms (:data:`MAX_KOV_ATOMS`).

    Example:
        >>> kov_fits(1.0, 10**6), kov_fits(1.0, 10**20), kov_fits(50.0, 10**20)
        (True, False, False)
    """
    pq = math.exp(-float(np.logaddexp(0.0, -eps0)) - float(np.logaddexp(0.0, eps0)))
    return 90.0 * math.sqrt(k * pq) + 101.0 <= MAX_KOV_ATOMS and k <= 10**15


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
        loss, _ = kov_atoms(self.epsilon, self.k)
        return np.concatenate([[0.0], loss[loss > 0]])

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) of the composed worst pair itself (Neyman–Pearson on the binomial loss; with δ₀ > 0 the pair
        reveals itself with probability 1 − (1 − δ₀)^k, Kairouz, Oh and Viswanath 2015, Thm. 2.1)."""
        a = check_probability(alpha, name="alpha")
        loss, log_mass = kov_atoms(self.epsilon, self.k)
        keep = math.exp(self.k * math.log1p(-self.delta)) if self.delta else 1.0
        probs = keep * np.exp(log_mass)
        return tradeoff_from_loss(a, loss, probs, 1.0 - keep)

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
            total += count * amplified_epsilon(pure, rate)
        return total

    @cached_property
    def _singles(self) -> tuple[float, tuple[PrivacyLossDistribution, ...]]:
        """The discretisation and one privacy loss distribution per part, built on that grid.

        dp_accounting's 10⁻⁴ by default. The grid is coarsened only where a single loss distribution or the
        composed one would not fit in memory: the composed loss spreads like √k (its standard deviation is
        √(Σ kᵢσᵢ²)), so the grid follows that spread, never the number of releases itself. Every estimate is
        pessimistic (dp_accounting's connect-the-dots upper bounds), so a coarser grid errs on the safe side.
        """
        widest = max(g._pld_span() for g, _, _ in self.parts)
        sampled = any(rate < 1.0 for _, _, rate in self.parts) and widest > WIDE_SPAN
        step = max(DISCRETISATION, 2.0 * widest / (MAX_SAMPLED_PLD_POINTS if sampled else MAX_PLD_POINTS))
        singles = self._build(step)
        width = _composed_width(singles, [count for _, count, _ in self.parts])
        if width / step > MAX_COMPOSED_POINTS:
            step = width / MAX_COMPOSED_POINTS
            singles = self._build(step)
        return step, singles

    def _build(self, step: float) -> tuple[PrivacyLossDistribution, ...]:
        out = []
        for g, _, rate in self.parts:
            single = g._pld(step, rate)
            if single is None:  # pragma: no cover - guarded by compose
                raise PrivriskError(
                    f"guarantees: no privacy loss distribution for {g.label}", param="guarantees"
                )
            out.append(single)
        return tuple(out)

    @property
    def discretisation(self) -> float:
        """The loss grid (see ``_singles``)."""
        return self._singles[0]

    @property
    def discretization(self) -> float:
        """Deprecated: the American spelling before 0.2 of :attr:`discretisation`, kept one release."""
        warnings.warn(
            deprecation_message("discretization", "discretisation"), DeprecationWarning, stacklevel=2
        )
        return self.discretisation

    @cached_property
    def pld(self) -> PrivacyLossDistribution:
        """The composed privacy loss distribution (identical mechanisms composed by FFT, ``self_compose``).

        Where the parts' infinite losses leave almost no finite mass (δ(∞) of the composition within
        :data:`CERTAIN_FINITE_MASS` of 1), dp_accounting's tail truncation removes all of it and fails; the
        result is then the certain distribution, δ(ε) = 1 at every ε (on the safe side by at most that mass).
        """
        total = None
        try:
            for (_, count, _), single in zip(self.parts, self._singles[1], strict=True):
                piece = single.self_compose(count, tail_mass_truncation=TAIL_MASS) if count > 1 else single
                total = piece if total is None else total.compose(piece, tail_mass_truncation=TAIL_MASS)
        except IndexError:
            if self._finite_mass() > CERTAIN_FINITE_MASS:
                raise
            return _certain_pld(self._singles[0])
        assert total is not None
        return total

    def _finite_mass(self) -> float:
        """The mass the composed distribution keeps on finite losses: Π(1 − ωᵢ)^kᵢ over the parts' +∞ masses ωᵢ
        (the larger of the two neighbouring orders' masses of each part)."""
        log_keep = 0.0
        for (_, count, _), single in zip(self.parts, self._singles[1], strict=True):
            pmfs = (
                [single._pmf_remove]
                if getattr(single, "_symmetric", True)
                else [single._pmf_remove, single._pmf_add]
            )
            omega = max(float(pmf._infinity_mass) for pmf in pmfs)
            if omega >= 1.0:
                return 0.0
            log_keep += count * math.log1p(-omega)
        return math.exp(log_keep)

    @cached_property
    def _loss_pmfs(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """(losses, masses, mass at +∞) of the composed PLD, for each neighbouring order it distinguishes."""
        pld = self.pld
        pmfs = [pld._pmf_remove] if getattr(pld, "_symmetric", True) else [pld._pmf_remove, pld._pmf_add]
        out = []
        for pmf in pmfs:
            losses, probs, infinity = _pmf_arrays(pmf)
            keep = probs > 0
            out.append((losses[keep], probs[keep], infinity))
        return out

    @cached_property
    def _grid_pmfs(self) -> list[tuple[int, float, np.ndarray, float]]:
        """(lowest grid index, grid step, masses, mass at +∞) of each neighbouring order's composed pmf."""
        pld = self.pld
        pmfs = [pld._pmf_remove] if getattr(pld, "_symmetric", True) else [pld._pmf_remove, pld._pmf_add]
        out = []
        for pmf in pmfs:
            dense = pmf.to_dense_pmf() if hasattr(pmf, "to_dense_pmf") else pmf
            probs = np.asarray(dense._probs, dtype=float)
            out.append(
                (int(dense._lower_loss), float(dense._discretization), probs, float(dense._infinity_mass))
            )
        return out

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        # δ(ε) = ω(+∞) + Σ_(ℓ > ε) ω(ℓ)(1 − e^(ε − ℓ)), the hockey-stick divergence of the discretised pair (what
        # dp_accounting's get_delta_for_epsilon computes), for every ε at once on the loss grid.
        e = np.atleast_1d(np.asarray(epsilon, dtype=float)).ravel()
        out = np.zeros(e.size, dtype=float)
        for lower, step, probs, infinity in self._grid_pmfs:
            out = np.maximum(out, grid_profile(e, lower * step, step, probs, infinity))
        bound = self._pure_bound
        if bound is not None:
            out = np.minimum(out, bound._deltas(e))
        return np.clip(out, 0.0, 1.0).reshape(np.shape(epsilon))

    @cached_property
    def _pure_bound(self) -> Guarantee | None:
        """Where every part is pure ε, the bound that needs no grid: k copies of one ε by Kairouz, Oh and
        Viswanath, different ones by adding ε. The discretised distribution's pessimistic rounding may sit a
        hair above it; the smaller of the two holds, so no answer is riskier than the worst case."""
        pure = self.pure_epsilon
        if pure is None:
            return None
        if len(self.parts) == 1:
            g, count, rate = self.parts[0]
            single = amplified_epsilon(float(g.pure_epsilon), rate)  # type: ignore[arg-type]
            if count > 1 and kov_fits(single, count):
                return KovComposition(single, 0.0, count)
            return PureDP(single * count) if count > 1 else PureDP(single)
        return PureDP(pure)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        value = float(self.pld.get_epsilon_for_delta(d))
        bound = self._pure_bound
        if bound is not None:
            value = min(value, bound.epsilon_at(d))
        return max(0.0, value) if math.isfinite(value) else math.inf

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        return self.pld if sampling_prob == 1.0 and discretization == self.discretisation else None

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) read off the privacy loss distribution itself (the Neyman–Pearson curve of the discretised pair),
        the smaller of the two neighbouring orders where they differ."""
        a = check_probability(alpha, name="alpha")
        curves = [
            tradeoff_from_loss(a, losses, probs, infinity) for losses, probs, infinity in self._loss_pmfs
        ]
        beta = np.minimum.reduce(curves)
        bound = self._pure_bound
        return beta if bound is None else np.maximum(beta, bound.tradeoff(a))

    def _max_loss(self) -> float:
        total = 0.0
        for g, count, rate in self.parts:
            top = g._max_loss()
            if not math.isfinite(top):
                return math.inf
            total += count * amplified_epsilon(top, rate)
        return total

    def _pld_span(self) -> float:
        return sum(count * g._pld_span() for g, count, _ in self.parts)

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        # The parts' curves add (Mironov 2017, Prop. 1): what a sampled or mixed composition of this one needs.
        total = np.zeros(np.shape(orders), dtype=float)
        for g, count, rate in self.parts:
            curve = part_rdp(g, rate)
            if curve is None:
                return None
            with np.errstate(over="ignore", invalid="ignore"):
                total = total + count * np.asarray(curve(np.asarray(orders, dtype=float)), dtype=float)
        return total

    def _delta_floor(self) -> float:
        keep = math.fsum(count * math.log1p(-rate * g._delta_floor()) for g, count, rate in self.parts)
        return -math.expm1(keep)


def _certain_pld(step: float) -> PrivacyLossDistribution:
    """The loss distribution of a pair told apart for certain: all its mass at +∞ (δ(ε) = 1 at every ε)."""
    from privrisk.accounting._math import dp_accounting_pld

    pmf = dp_accounting_pld("pld_pmf").create_pmf({0: 0.0}, step, 1.0, True)
    return dp_accounting_pld().PrivacyLossDistribution(pmf)


def _pmf_arrays(pmf: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """(losses, masses, mass at +∞) of one of dp_accounting's loss pmfs."""
    dense = pmf.to_dense_pmf() if hasattr(pmf, "to_dense_pmf") else pmf
    probs = np.asarray(dense._probs, dtype=float)
    losses = (dense._lower_loss + np.arange(probs.size)) * dense._discretization
    return losses, probs, float(dense._infinity_mass)


def _composed_width(singles: Sequence[PrivacyLossDistribution], counts: Sequence[int]) -> float:
    """How wide the composed loss distribution is: ± SPREAD_DEVIATIONS standard deviations around its mean,
    never more than the sum of the single ranges (variances add under composition)."""
    variance = 0.0
    reach = 0.0
    for pld, count in zip(singles, counts, strict=True):
        pmfs = [pld._pmf_remove] if getattr(pld, "_symmetric", True) else [pld._pmf_remove, pld._pmf_add]
        worst_var, worst_range = 0.0, 0.0
        for pmf in pmfs:
            losses, probs, _ = _pmf_arrays(pmf)
            mass = float(probs.sum())
            if mass <= 0 or losses.size == 0:
                continue
            mean = float(np.dot(losses, probs)) / mass
            worst_var = max(worst_var, float(np.dot((losses - mean) ** 2, probs)) / mass)
            worst_range = max(worst_range, float(losses[-1] - losses[0]))
        variance += count * worst_var
        reach += count * worst_range
    return min(2.0 * SPREAD_DEVIATIONS * math.sqrt(variance), reach)


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


def _has_pld(g: Guarantee) -> bool:
    """A privacy loss distribution exists and its loss range fits on a grid (ε = 10³⁰⁰ does not)."""
    return g._pld_key() is not None and g._pld_span() <= MAX_PLD_SPAN


def _group_key(g: Guarantee) -> Any:
    """Copies of one guarantee share a key (dataclasses compare by value)."""
    try:
        hash(g)
    except TypeError:  # pragma: no cover - every guarantee is a frozen dataclass
        return id(g)
    return g


def _rdp_route(flat: Sequence[tuple[Guarantee, int, float]], total: int, name: str) -> Guarantee | None:
    """Rényi curves added (Mironov 2017, Prop. 1); (ε, δ) parts enter as ε randomized response, their δ as
    a catastrophe outside it. None when some part has no curve."""
    curves: list[tuple[RdpCurve, int]] = []
    own: list[RenyiDP] = []
    log_keep = 0.0
    for g, count, rate in flat:
        if isinstance(g, ApproximateDP) and rate == 1.0:
            # The worst (ε, δ) pair reveals itself with probability δ and is ε randomized response otherwise
            # (Kairouz, Oh and Viswanath 2015, Thm. 2.1).
            log_keep += count * math.log1p(-g.delta)
            if g.epsilon > 0:
                curves.append((partial(randomised_response_rdp, g.epsilon), count))
            continue
        curve = part_rdp(g, rate)
        if curve is None:
            return None
        if isinstance(g, RenyiDP):
            own.append(g)
        curves.append((curve, count))
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    if own:
        orders = np.unique(np.concatenate([np.asarray(g.orders) for g in own]))
    summed = np.zeros(orders.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        for curve, count in curves:
            summed = summed + count * np.asarray(curve(orders), dtype=float)
    keep = np.isfinite(summed)
    if not keep.any():
        return None
    source = f"composition of {total} releases: Rényi curves added (Mironov 2017, Prop. 1)"
    inner = RenyiDP(
        tuple(float(x) for x in orders[keep]),
        tuple(float(x) for x in np.maximum(summed[keep], 0.0)),
        source=source,
        name=name,
    )
    if log_keep == 0.0:
        return inner
    return CatastropheGuarantee(inner, -math.expm1(log_keep), name=name)


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


@dataclass(frozen=True)
class ProfileKovComposition(Guarantee):
    """k copies of a guarantee known only by its profile: each copy is (ε₀, δ(ε₀))-DP for every ε₀, so
    δ_k(ε) ≤ min over ε₀ of the optimal composition of k such releases (Kairouz, Oh and Viswanath 2015,
    Thm. 3.3), taken over a grid of ε₀."""

    base: Guarantee
    k: int

    @property
    def label(self) -> str:
        return f"{self.k} releases of {self.base.label}"

    @property
    def conversion(self) -> str:
        return (
            "Kairouz, Oh and Viswanath (2015), optimal composition of k releases at the best point (ε₀, δ(ε₀)) "
            f"of the profile; {self.base.conversion}"
        )

    @cached_property
    def _points(self) -> tuple[np.ndarray, np.ndarray]:
        eps = self.base._envelope_epsilons()
        grid = np.unique(np.concatenate([eps[:: max(1, eps.size // 40)], np.asarray(self.base._kinks())]))
        grid = grid[np.isfinite(grid) & (grid >= 0)]
        return grid, np.clip(self.base._deltas(grid), 0.0, 1.0)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.atleast_1d(np.asarray(epsilon, dtype=float))
        best = np.ones(e.shape, dtype=float)
        for eps0, delta0 in zip(*self._points, strict=True):
            if delta0 >= 1.0:
                continue
            best = np.minimum(best, kov_deltas(float(eps0), float(delta0), self.k, e))
        return best.reshape(np.shape(epsilon))

    def _envelope_epsilons(self) -> np.ndarray:
        return super()._envelope_epsilons()[::4]

    @property
    def pure_epsilon(self) -> float | None:
        pure = self.base.pure_epsilon
        return None if pure is None else self.k * pure

    def _max_loss(self) -> float:
        return self.k * self.base._max_loss()

    def _delta_floor(self) -> float:
        return -math.expm1(self.k * math.log1p(-min(self.base._delta_floor(), 1.0 - 1e-16)))


@dataclass(frozen=True)
class CatastropheGuarantee(Guarantee):
    """A guarantee that, with probability δ꜀, gives everything away and otherwise holds ``inner``:
    δ(ε) = 1 − (1 − δ꜀)(1 − δ_inner(ε)), β(α) = (1 − δ꜀) β_inner(α/(1 − δ꜀)) (the worst (ε, δ) pair is
    randomized response outside a catastrophe of probability δ, Kairouz, Oh and Viswanath 2015, Thm. 2.1)."""

    inner: Guarantee
    delta: float
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or f"{self.inner.label}, revealed with probability {self.delta:.3g}"

    @property
    def conversion(self) -> str:
        return (
            f"each (ε, δ) release as ε randomized response outside a catastrophe of probability δ (Kairouz, Oh "
            f"and Viswanath 2015, Thm. 2.1), composed with the rest: δ(ε) = 1 − (1 − δ꜀)(1 − δ′(ε)), "
            f"δ꜀ = {self.delta:.3g}; δ′: {self.inner.conversion}"
        )

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        inner = np.asarray(self.inner._deltas(np.asarray(epsilon, dtype=float)), dtype=float)
        return np.clip(1.0 - (1.0 - self.delta) * (1.0 - inner), 0.0, 1.0)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        # A catastrophe of probability 1 (10²⁰ releases) hides nothing.
        if d < self.delta or self.delta >= 1.0:
            return math.inf if d < 1.0 else 0.0
        inner = 1.0 - (1.0 - d) / (1.0 - self.delta)
        return self.inner.epsilon_at(min(max(inner, 0.0), 1.0))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        a = check_probability(alpha, name="alpha")
        keep = 1.0 - self.delta
        if keep <= 0.0:
            return np.zeros(np.shape(a))
        inner = self.inner.tradeoff(np.clip(np.asarray(a, dtype=float) / keep, 0.0, 1.0))
        return np.clip(np.where(np.asarray(a) <= keep, keep * inner, 0.0), 0.0, 1.0 - np.asarray(a))

    def _delta_floor(self) -> float:
        return max(self.delta, self.inner._delta_floor())

    def _max_loss(self) -> float:
        return math.inf


@dataclass(frozen=True)
class Bounded(Guarantee):
    """A valid bound standing in for a guarantee that cannot be computed exactly: every view is ``inner``'s, and
    the ``conversion`` begins with why it is a bound."""

    inner: Guarantee
    why: str
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.inner.label

    @property
    def conversion(self) -> str:
        return f"{self.why}; {self.inner.conversion}"

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return self.inner._deltas(epsilon)

    def epsilon_at(self, delta: float) -> float:
        return self.inner.epsilon_at(delta)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return self.inner.tradeoff(alpha)

    @property
    def pure_epsilon(self) -> float | None:
        return self.inner.pure_epsilon

    def _max_loss(self) -> float:
        return self.inner._max_loss()

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        return self.inner._rdp(orders)

    def _delta_floor(self) -> float:
        return self.inner._delta_floor()

    def _kinks(self) -> tuple[float, ...]:
        return self.inner._kinks()

    def _envelope_epsilons(self) -> np.ndarray:
        return self.inner._envelope_epsilons()


@dataclass(frozen=True)
class BestOf(Guarantee):
    """Two or more valid bounds on one composition: the smallest δ(ε) at every ε, the largest β(α) at every α
    (each holds, so their minimum does)."""

    bounds: tuple[Guarantee, ...]
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.bounds[0].label

    @property
    def conversion(self) -> str:
        return "the tighter, at every point, of " + " and of ".join(f"({b.conversion})" for b in self.bounds)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float)
        return np.minimum.reduce([np.asarray(b._deltas(e), dtype=float) for b in self.bounds])

    def epsilon_at(self, delta: float) -> float:
        return min(b.epsilon_at(delta) for b in self.bounds)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        a = check_probability(alpha, name="alpha")
        return np.maximum.reduce([np.asarray(b.tradeoff(a), dtype=float) for b in self.bounds])

    @property
    def pure_epsilon(self) -> float | None:
        pures = [b.pure_epsilon for b in self.bounds if b.pure_epsilon is not None]
        return min(pures) if pures else None

    def _max_loss(self) -> float:
        return min(b._max_loss() for b in self.bounds)

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        curves = [c for c in (b._rdp(orders) for b in self.bounds) if c is not None]
        return np.minimum.reduce([np.asarray(c, dtype=float) for c in curves]) if curves else None

    def _delta_floor(self) -> float:
        return min(b._delta_floor() for b in self.bounds)

    def _kinks(self) -> tuple[float, ...]:
        return tuple(k for b in self.bounds for k in b._kinks())


# Names this module held before subsampling and group privacy got modules of their own: still importable here.
_MOVED = {
    "SubsampledGuarantee": "privrisk.accounting.subsampling",
    "subsample": "privrisk.accounting.subsampling",
    "part_rdp": "privrisk.accounting.subsampling",
    "SAMPLED_ORDERS": "privrisk.accounting.subsampling",
    "GroupGuarantee": "privrisk.accounting.grouping",
    "group": "privrisk.accounting.grouping",
    "MAX_GROUP": "privrisk.accounting.grouping",
}


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
