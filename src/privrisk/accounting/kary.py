"""k-ary randomized response: a person's answer among k categories, kept with probability e^ε/(e^ε + k − 1).

Each other category is reported with probability 1/(e^ε + k − 1) (Warner 1965 for k = 2; Kairouz, Oh and
Viswanath 2016, "Discrete distribution estimation under local privacy", for k ≥ 2). For two inputs x ≠ y the
privacy loss is ε on output x, −ε on output y and 0 on the other k − 2 outputs, so the exact profile is

    δ(ε′) = (e^ε − e^ε′)/(e^ε + k − 1)  for 0 ≤ ε′ < ε, and 0 beyond,

below the profile of binary randomized response with the same ε for every k > 2: more categories hide more.

Example:
    >>> g = kary_randomised_response_guarantee(epsilon=math.log(3), categories=4)
    >>> round(g.delta_at(0.0), 4)           # (3 − 1)/(3 + 3) = 1/3
    0.3333
    >>> g.pure_epsilon == math.log(3)
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_epsilon, check_probability, check_whole
from privrisk.accounting._math import dp_accounting_pld
from privrisk.accounting.guarantees import Guarantee, PrivacyLossDistribution
from privrisk.errors import deprecated_alias, renamed_attributes

__all__ = ["KaryRandomisedResponse", "kary_randomised_response_guarantee", "kary_randomized_response"]


@dataclass(frozen=True)
class KaryRandomisedResponse(Guarantee):
    """k-ary randomized response with parameter ε (pure ε-DP, with the exact profile of the module's docstring).

    Attributes:
        epsilon: ε > 0.
        categories: k ≥ 2.
    """

    epsilon: float
    categories: int

    _label = "randomized response over {self.categories} categories, ε = {self.epsilon:.4g}"
    _conversion = "exact (k-ary randomized response: losses ε, 0 and −ε)"

    @property
    def pure_epsilon(self) -> float:
        return self.epsilon

    def _others(self) -> float:
        """(k − 1)e^(−ε): the weight of the other categories against the kept answer, without overflow."""
        return (self.categories - 1) * math.exp(-self.epsilon)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        # (e^ε − e^ε′)/(e^ε + k − 1) = (1 − e^(ε′ − ε))/(1 + (k − 1)e^(−ε)), which never overflows.
        e = np.asarray(epsilon, dtype=float)
        return np.where(
            e < self.epsilon, -np.expm1(np.minimum(e - self.epsilon, 0.0)) / (1.0 + self._others()), 0.0
        )

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        inner = d * (1.0 + self._others())
        return 0.0 if inner >= 1 else max(0.0, self.epsilon + math.log1p(-inner))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) = max(0, 1 − e^ε α, 1 − p + q − α, e^(−ε)(1 − α)), p = e^ε/(e^ε + k − 1), q = 1/(e^ε + k − 1).

        The Neyman–Pearson test rejects on output y first (likelihood ratio e^ε), then on the k − 2 outputs
        of ratio 1, then on x (ratio e^(−ε)).
        """
        a = np.asarray(check_probability(alpha, name="alpha"), dtype=float)
        q = math.exp(-self.epsilon) / (1.0 + self._others())  # 1/(e^ε + k − 1)
        p = 1.0 / (1.0 + self._others())  # e^ε/(e^ε + k − 1)
        with np.errstate(over="ignore"):
            first = 1.0 - np.exp(self.epsilon) * a if self.epsilon < 700 else np.where(a > 0, -np.inf, 1.0)
        beta = np.maximum.reduce([first, (1.0 - p + q) - a, math.exp(-self.epsilon) * (1.0 - a)])
        return np.clip(beta, 0.0, 1.0 - a)

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        if sampling_prob != 1.0:
            return None
        privacy_loss_distribution = dp_accounting_pld()
        # dp_accounting reports a uniformly random bucket with probability r: r = k/(e^ε + k − 1).
        r = self.categories / (math.exp(min(self.epsilon, 700.0)) + self.categories - 1)
        return privacy_loss_distribution.from_randomized_response(
            r, self.categories, value_discretization_interval=discretization
        )

    def _pld_key(self) -> tuple[Any, ...]:
        return ("kary randomized response", self.epsilon, self.categories)

    def _pld_span(self) -> float:
        return self.epsilon

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        """D_α = ln(p^α q^(1−α) + q^α p^(1−α) + (k − 2)q)/(α − 1), in log space (p, q as in :meth:`tradeoff`)."""
        a = np.asarray(orders, dtype=float)
        log_norm = self.epsilon + math.log1p(self._others())  # ln(e^ε + k − 1)
        log_p, log_q = self.epsilon - log_norm, -log_norm
        terms = [a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p]
        if self.categories > 2:
            terms.append(np.full_like(a, math.log(self.categories - 2) + log_q))
        return np.minimum(np.logaddexp.reduce(terms, axis=0) / (a - 1), self.epsilon)


def kary_randomised_response_guarantee(*, epsilon: float | str, categories: int) -> KaryRandomisedResponse:
    """Randomized response over ``categories`` answers with parameter ε (ε may be written ``ln3``).

    Args:
        epsilon: ε > 0: the true answer is kept with probability e^ε/(e^ε + k − 1).
        categories: k, a whole number ≥ 2.

    Raises:
        PrivriskError: for ε not finite and positive, or k < 2.

    Example:
        >>> g = kary_randomised_response_guarantee(epsilon=1.0, categories=2)   # binary: the profile of pure ε = 1
        >>> round(g.delta_at(0.0), 4)
        0.4621
    """
    eps = check_epsilon(epsilon, name="epsilon")
    k = check_whole(categories, name="categories", minimum=2)
    return KaryRandomisedResponse(eps, int(k))


#: The name before 0.2, kept one release.
kary_randomized_response = deprecated_alias(kary_randomised_response_guarantee, "kary_randomized_response")

# The American spellings before 0.2, kept one release (public names are spelled the British way).
kary_randomized_response_guarantee = deprecated_alias(
    kary_randomised_response_guarantee, "kary_randomized_response_guarantee"
)
# The old class name is the class itself (isinstance holds), with a warning.
__getattr__ = renamed_attributes(globals(), {"KaryRandomizedResponse": "KaryRandomisedResponse"})
