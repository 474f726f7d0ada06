"""Composition through the privacy loss distribution of ``dp_accounting`` (Koskela et al. 2020; Doroshenko et
al. 2022): identical mechanisms composed by FFT (``self_compose``) on dp_accounting's grid of 10⁻⁴, coarsened only
from the composed spread (∝ √k) when the distribution would not fit in memory. Its estimates are pessimistic:
every δ it gives is an upper bound.

Example:
    >>> from privrisk.accounting.mechanisms import laplace_guarantee
    >>> g = PldComposition(((laplace_guarantee(epsilon=0.5), 2, 1.0),))
    >>> g.count, g.conversion, g.pure_epsilon
    (2, 'privacy loss distribution (dp_accounting)', 1.0)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting._math import amplified_epsilon, grid_profile, tradeoff_from_loss
from privrisk.accounting.guarantees import GaussianDP, Guarantee, PureDP
from privrisk.accounting.mechanisms import GaussianMechanism
from privrisk.accounting.optimal_composition import KovComposition, kov_fits
from privrisk.accounting.subsampling import part_rdp
from privrisk.errors import PrivriskError, deprecation_message

PrivacyLossDistribution = Any  # dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

__all__ = ["DISCRETISATION", "PldComposition"]

# Discretisation of the privacy loss (dp_accounting's default) and the most points a loss grid may have.
DISCRETISATION = 1e-4
MAX_PLD_POINTS = 500_000
# A sampled mechanism's loss distribution is built by dp_accounting one grid point at a time, twice (both
# neighbouring orders): where its loss spans more than WIDE_SPAN nats (ε = 50 at rate ½ took 20 s on a busy
# machine with 500,000 points), at most this many points; narrower ones (DP-SGD's) keep the default grid.
MAX_SAMPLED_PLD_POINTS = 100_000
WIDE_SPAN = 20.0
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


def _has_pld(g: Guarantee) -> bool:
    """A privacy loss distribution exists and its loss range fits on a grid (ε = 10³⁰⁰ does not)."""
    return g._pld_key() is not None and g._pld_span() <= MAX_PLD_SPAN


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
