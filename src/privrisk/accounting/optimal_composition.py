"""The optimal composition of k releases of one (ε, δ), exact (Kairouz, Oh and Viswanath 2015, Thm. 3.3), and
k copies of a guarantee known only by its privacy profile, at the best point (ε₀, δ(ε₀)) of that profile.

The k-fold composition of the worst (ε₀, δ₀) pair has the privacy loss (k − 2j)ε₀ with j ~ Binomial(k, q),
q = 1/(1 + e^ε₀), and reveals itself with probability 1 − (1 − δ₀)^k; its δ(ε) is summed in log space over the
binomial terms that matter (:func:`kov_atoms`), so that 10⁶ releases cost a few thousand terms.

Example:
    >>> g = KovComposition(1.0, 0.0, 2)
    >>> round(g.delta_at(1.0), 4), g.pure_epsilon   # p²(1 − e⁻¹), p = e/(1 + e)
    (0.3378, 2.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting._math import epsilon_from_profile, grid_profile, tradeoff_from_loss
from privrisk.accounting.guarantees import Guarantee, KTimes, approximate, pure_dp

__all__ = ["KovComposition", "ProfileKovComposition", "kov_atoms", "kov_deltas", "kov_fits"]

# The most terms of the binomial that Kairouz, Oh and Viswanath's exact composition sums (about 90√(kpq)):
# beyond it (10¹⁰ releases of ε = 1) the Rényi curves are added instead, a bound, and the label says so.
MAX_KOV_ATOMS = 5_000_000
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

    _conversion = "Kairouz, Oh and Viswanath (2015), optimal composition"

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


@dataclass(frozen=True)
class ProfileKovComposition(KTimes):
    """k copies of a guarantee known only by its profile: each copy is (ε₀, δ(ε₀))-DP for every ε₀, so
    δ_k(ε) ≤ min over ε₀ of the optimal composition of k such releases (Kairouz, Oh and Viswanath 2015,
    Thm. 3.3), taken over a grid of ε₀."""

    _label = "{self.k} releases of {self.base.label}"
    _conversion = (
        "Kairouz, Oh and Viswanath (2015), optimal composition of k releases at the best point (ε₀, δ(ε₀)) "
        "of the profile; {self.base.conversion}"
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

    def _delta_floor(self) -> float:
        return -math.expm1(self.k * math.log1p(-min(self.base._delta_floor(), 1.0 - 1e-16)))
