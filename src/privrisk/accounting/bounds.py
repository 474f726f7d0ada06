"""Valid bounds standing in for a composition: :class:`Bounded`, a bound whose ``conversion`` says why it is one,
and :class:`BestOf`, the tightest of several bounds at every point (each holds, so their minimum does).

Example:
    >>> from privrisk.accounting.guarantees import approximate, pure_dp
    >>> b = BestOf((pure_dp(2.0), approximate(1.0, 1e-6)))
    >>> b.pure_epsilon, b.epsilon_at(1e-6), b.epsilon_at(1e-9) == pure_dp(2.0).epsilon_at(1e-9)
    (2.0, 1.0, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting.guarantees import Guarantee

__all__ = ["BestOf", "Bounded"]


@dataclass(frozen=True)
class Bounded(Guarantee):
    """A valid bound standing in for a guarantee that cannot be computed exactly: every view is ``inner``'s, and
    the ``conversion`` begins with why it is a bound."""

    inner: Guarantee
    why: str
    name: str = ""

    _label = "{self.inner.label}"
    _conversion = "{self.why}; {self.inner.conversion}"

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
