"""Guarantees of known mechanisms, with their exact profiles: Laplace, Gaussian, randomized response, and the
discrete Laplace and discrete Gaussian noise that OpenDP samples from.

Knowing the mechanism is worth a lot: the Laplace mechanism at ε = 1 gives a membership attacker 69.7 % on
average where the worst ε = 1 mechanism (randomized response) gives 73.1 %. Every profile here is exact: the
Laplace one in closed form (δ(ε) = 1 − e^((ε − ε₀)/2) below ε₀ = Δ/b), the Gaussian one that of μ-GDP with
μ = Δ/σ (Balle and Wang 2018, Thm. 8), the discrete ones summed over the integers in log space.

Example:
    >>> g = laplace_guarantee(epsilon=1.0)
    >>> round((1 + g.delta_at(0.0)) / 2, 3), round((1 + randomised_response_guarantee(epsilon=1.0).delta_at(0.0)) / 2, 3)
    (0.697, 0.731)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._format import below_certainty, percent
from privrisk._validation import check_epsilon, check_probability, check_whole
from privrisk.accounting._math import (
    dp_accounting_pld,
    mechanism_pld,
    profile_from_atoms,
    tradeoff_envelope,
    tradeoff_from_atoms,
)
from privrisk.accounting.guarantees import (
    GaussianDP,
    Guarantee,
    PureDP,
    check_positive,
    fmt,
    gaussian_deltas,
    gaussian_tradeoff,
    randomised_response_rdp,
)
from privrisk.errors import PrivriskError, deprecated_alias, renamed_attributes

PrivacyLossDistribution = Any  # dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

__all__ = [
    "DiscreteGaussianMechanism",
    "DiscreteLaplaceMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "RandomisedResponse",
    "discrete_gaussian_guarantee",
    "discrete_gaussian_mechanism",
    "discrete_laplace_guarantee",
    "discrete_laplace_mechanism",
    "gaussian_guarantee",
    "gaussian_mechanism",
    "laplace_guarantee",
    "laplace_mechanism",
    "randomised_response_guarantee",
    "randomized_response",
]


def _with_group_sensitivity(mechanism: Any, k: int) -> Guarantee:
    """Exact group privacy of a noise mechanism: a group of k moves the query by at most kΔ, so it is the same
    mechanism with k times the sensitivity."""
    return replace(
        mechanism,
        sensitivity=k * mechanism.sensitivity,
        source=f"group privacy for groups of {k}: the same mechanism with sensitivity kΔ",
    )


# ------------------------------------------------------------------------------------------------------ Laplace
def laplace_deltas(eps0: float, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) = 1 − e^((ε − ε₀)/2) for ε < ε₀, 0 beyond: the Laplace mechanism with ε₀ = Δ/b (exact)."""
    e = np.asarray(epsilon, dtype=float)
    return np.where(e < eps0, -np.expm1(np.minimum(e - eps0, 0.0) / 2.0), 0.0)


def laplace_tradeoff(eps0: float, alpha: np.ndarray) -> np.ndarray:
    """β(α) = F(F⁻¹(1 − α) − ε₀), F the standard Laplace distribution function (Dong, Roth and Su 2022, §A).

    Piece by piece: 1 − e^ε₀ α for α < e^(−ε₀)/2, e^(−ε₀)/(4α) up to α = ½, e^(−ε₀)(1 − α) beyond.
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_a = np.log(a)
        first = 1.0 - np.exp(eps0 + log_a)
        middle = np.exp(-eps0 - math.log(4.0) - log_a)
        last = math.exp(-eps0) * (1.0 - a)
    corner = math.exp(-eps0) / 2.0
    beta = np.where(a < corner, first, np.where(a <= 0.5, middle, last))
    return np.clip(np.nan_to_num(beta, nan=1.0), 0.0, 1.0 - a)


def laplace_rdp(eps0: float, orders: np.ndarray) -> np.ndarray:
    """Rényi divergences of the Laplace mechanism (Mironov 2017, Prop. 6), in log space.

    D_α = ln(α/(2α − 1) e^((α−1)ε₀) + (α − 1)/(2α − 1) e^(−αε₀)) / (α − 1).
    """
    a = np.asarray(orders, dtype=float)
    first = np.log(a / (2 * a - 1)) + (a - 1) * eps0
    second = np.log((a - 1) / (2 * a - 1)) - a * eps0
    return np.minimum(np.logaddexp(first, second) / (a - 1), eps0)


@dataclass(frozen=True)
class LaplaceMechanism(Guarantee):
    """The Laplace mechanism: noise of scale b added to a query of sensitivity Δ; pure ε-DP with ε = Δ/b.

    Attributes:
        scale: b > 0.
        sensitivity: Δ > 0.
    """

    scale: float
    sensitivity: float = 1.0
    source: str = field(default="", compare=False)

    @property
    def epsilon(self) -> float:
        """ε₀ = Δ/b."""
        return self.sensitivity / self.scale

    _label = (
        "Laplace mechanism, scale {self.scale:.4g}, sensitivity {self.sensitivity:.4g} "
        "(ε = {self.epsilon:.4g})"
    )
    _conversion = "exact (Laplace mechanism)"

    @property
    def pure_epsilon(self) -> float:
        return self.epsilon

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return laplace_deltas(self.epsilon, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d == 0:
            return self.epsilon
        # Inverting δ = 1 − e^((ε − ε₀)/2): ε = ε₀ + 2 ln(1 − δ).
        return 0.0 if d >= 1 else max(0.0, self.epsilon + 2.0 * math.log1p(-d))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return laplace_tradeoff(self.epsilon, check_probability(alpha, name="alpha"))

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution:
        return mechanism_pld("laplace", self.epsilon, discretization, sampling_prob)

    _pld_samples = True

    def _pld_key(self) -> tuple[Any, ...]:
        return ("laplace", self.epsilon)

    def _pld_span(self) -> float:
        return self.epsilon

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        return laplace_rdp(self.epsilon, orders)

    def _grouped(self, k: int) -> Guarantee:
        return _with_group_sensitivity(self, k)


def laplace_guarantee(
    *, scale: float | None = None, sensitivity: float = 1.0, epsilon: float | None = None
) -> LaplaceMechanism:
    """The Laplace mechanism, given its scale b or calibrated to ε (b = Δ/ε); exactly one of the two.

    Example:
        >>> g = laplace_guarantee(scale=2.0, sensitivity=1.0)
        >>> g.pure_epsilon, round(g.delta_at(0.0), 4)        # 1 − e^(−1/4)
        (0.5, 0.2212)
    """
    delta_f = check_positive(sensitivity, name="sensitivity")
    if (scale is None) == (epsilon is None):
        raise PrivriskError("scale: give exactly one of scale and epsilon", param="scale")
    if scale is not None:
        return LaplaceMechanism(check_positive(scale, name="scale"), delta_f)
    eps = check_epsilon(epsilon, name="epsilon")
    return LaplaceMechanism(delta_f / eps, delta_f)


# ----------------------------------------------------------------------------------------------------- Gaussian
@dataclass(frozen=True)
class GaussianMechanism(Guarantee):
    """The Gaussian mechanism: N(0, σ²) noise on a query of L2 sensitivity Δ, exactly μ-GDP with μ = Δ/σ.

    Attributes:
        sigma: σ > 0.
        sensitivity: Δ > 0.
    """

    sigma: float
    sensitivity: float = 1.0
    source: str = field(default="", compare=False)

    @property
    def mu(self) -> float:
        """μ = Δ/σ."""
        return self.sensitivity / self.sigma

    _label = "Gaussian mechanism, σ = {self.sigma:.4g}, sensitivity {self.sensitivity:.4g}"
    _conversion = "exact (Gaussian mechanism)"

    def _as_gdp(self) -> GaussianDP:
        return GaussianDP(self.mu)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return gaussian_deltas(self.mu, epsilon)

    def epsilon_at(self, delta: float) -> float:
        return self._as_gdp().epsilon_at(delta)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return gaussian_tradeoff(self.mu, check_probability(alpha, name="alpha"))

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        return self._as_gdp()._pld(discretization, sampling_prob)

    _pld_samples = True

    def _pld_key(self) -> tuple[Any, ...]:
        return ("gaussian", self.mu)

    def _pld_span(self) -> float:
        return self._as_gdp()._pld_span()

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):  # μ above 10¹⁵⁴: every order is +∞ (the attacker is certain)
            return np.asarray(orders, dtype=float) * np.square(np.float64(self.mu)) / 2.0

    def _grouped(self, k: int) -> Guarantee:
        return _with_group_sensitivity(self, k)

    def _max_loss(self) -> float:
        return math.inf


def gaussian_guarantee(*, sigma: float, sensitivity: float = 1.0) -> GaussianMechanism:
    """The Gaussian mechanism with noise σ on a query of L2 sensitivity Δ (exact profile: Balle and Wang 2018).

    Example:
        >>> g = gaussian_guarantee(sigma=2.0)
        >>> g.label, round(g.delta_at(0.0), 4)                # 2Φ(1/4) − 1
        ('Gaussian mechanism, σ = 2, sensitivity 1', 0.1974)
    """
    return GaussianMechanism(
        check_positive(sigma, name="sigma"), check_positive(sensitivity, name="sensitivity")
    )


# ------------------------------------------------------------------------------------------ randomized response
@dataclass(frozen=True)
class RandomisedResponse(PureDP):
    """Binary randomized response: the true bit with probability e^ε/(1 + e^ε), the other one otherwise.

    Its profile and trade-off curve are those of pure ε-DP: it is the worst ε-DP mechanism (Kairouz, Oh and
    Viswanath 2015, Thm. 2.1).
    """

    @property
    def truth_probability(self) -> float:
        """e^ε/(1 + e^ε)."""
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    @property
    def label(self) -> str:
        # Below certainty at every finite ε, even where e^ε/(1 + e^ε) is 1.0 in double precision (ε ≥ 37).
        truth = percent(below_certainty(self.truth_probability)).replace("%", " %")
        return f"randomized response, ε = {fmt(self.epsilon)} (truthful with probability {truth})"

    _conversion = "exact (randomized response)"


def randomised_response_guarantee(
    *, epsilon: float | None = None, truth_probability: float | None = None
) -> RandomisedResponse:
    """Binary randomized response, given ε or the probability of a truthful answer p (ε = ln(p/(1 − p))).

    Example:
        >>> randomised_response_guarantee(truth_probability=0.75).epsilon == math.log(3)
        True
    """
    if (epsilon is None) == (truth_probability is None):
        raise PrivriskError("epsilon: give exactly one of epsilon and truth_probability", param="epsilon")
    if epsilon is not None:
        return RandomisedResponse(check_epsilon(epsilon, name="epsilon"))
    p = float(check_probability(truth_probability, name="truth_probability", open_high=True))
    if p <= 0.5:
        raise PrivriskError(
            f"truth_probability: must exceed 1/2 (at 1/2 the answer is a coin toss), got {p:g}",
            param="truth_probability",
        )
    return RandomisedResponse(math.log(p / (1.0 - p)))


# ------------------------------------------------------------------------------------------ discrete mechanisms
# Above this σ the discrete Gaussian's support (±40σ) is too large to sum; its proven zCDP is used instead.
LARGEST_SUMMED_SIGMA = 5_000.0


class _DiscreteNoise(Guarantee):
    """Integer noise on an integer query of sensitivity Δ: the exact profile summed over the integers."""

    sensitivity: int

    def _log_pmf(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _support(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @cached_property
    def _atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """ln P(x) and ln Q(x) of the noisy answer on the two neighbours (centred at 0 and at Δ)."""
        x = self._support()
        return self._log_pmf(x), self._log_pmf(x - self.sensitivity)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        log_p, log_q = self._atoms
        return profile_from_atoms(epsilon, log_p, log_q)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        log_p, log_q = self._atoms
        a = check_probability(alpha, name="alpha")
        exact = tradeoff_from_atoms(a, log_p, log_q)
        # The support is cut where the mass is below e^(−700); the envelope covers that cut safely.
        eps = np.unique(np.abs(log_p - log_q))
        return np.minimum(exact, tradeoff_envelope(a, eps, self._deltas(eps)))


@dataclass(frozen=True)
class DiscreteLaplaceMechanism(_DiscreteNoise):
    """Discrete Laplace noise, P(x) ∝ e^(−|x|/t) on the integers (OpenDP's sampler; Canonne, Kamath and Steinke
    2020): pure ε-DP with ε = Δ/t.

    Attributes:
        scale: t > 0.
        sensitivity: Δ, a whole number ≥ 1.
    """

    scale: float
    sensitivity: int = 1
    source: str = field(default="", compare=False)

    _label = (
        "discrete Laplace mechanism, scale {self.scale:.4g}, sensitivity {self.sensitivity} "
        "(ε = {self.pure_epsilon:.4g})"
    )
    _conversion = "exact (discrete Laplace mechanism)"

    @property
    def pure_epsilon(self) -> float:
        return self.sensitivity / self.scale

    def _log_pmf(self, x: np.ndarray) -> np.ndarray:
        # ln((1 − r)/(1 + r)) − |x|/t with r = e^(−1/t), computed with expm1 for large t.
        r_log = -1.0 / self.scale
        log_norm = math.log(-math.expm1(r_log)) - math.log1p(math.exp(r_log))
        return log_norm - np.abs(x) / self.scale

    def _support(self) -> np.ndarray:
        # Outside [−Δ, 2Δ] the loss is ±ε; those tails add in closed form, so fold them into two atoms.
        return np.arange(0, self.sensitivity + 1, dtype=float)

    @cached_property
    def _atoms(self) -> tuple[np.ndarray, np.ndarray]:
        t, d = self.scale, self.sensitivity
        r_log = -1.0 / t
        log_norm = math.log(-math.expm1(r_log)) - math.log1p(math.exp(r_log))
        inner = np.arange(1, d, dtype=float)
        # x ≤ 0: P = 1/(1 + r), Q = r^Δ/(1 + r); x ≥ Δ: mirrored; 0 < x < Δ: the single integers.
        log_low = -math.log1p(math.exp(r_log))
        log_p = np.concatenate([[log_low], log_norm - inner / t, [log_low + d * r_log]])
        log_q = np.concatenate([[log_low + d * r_log], log_norm - (d - inner) / t, [log_low]])
        return log_p, log_q

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        return self.pure_epsilon if d == 0 else super().epsilon_at(d)

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution:
        privacy_loss_distribution = dp_accounting_pld()

        return privacy_loss_distribution.from_discrete_laplace_mechanism(
            1.0 / self.scale,
            sensitivity=self.sensitivity,
            value_discretization_interval=discretization,
            sampling_prob=sampling_prob,
        )

    _pld_samples = True

    def _pld_key(self) -> tuple[Any, ...]:
        return ("discrete laplace", self.scale, self.sensitivity)

    def _pld_span(self) -> float:
        return self.pure_epsilon

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        return randomised_response_rdp(self.pure_epsilon, orders)

    def _grouped(self, k: int) -> Guarantee:
        return _with_group_sensitivity(self, k)


def discrete_laplace_guarantee(*, scale: float, sensitivity: int = 1) -> DiscreteLaplaceMechanism:
    """Discrete Laplace noise of scale t on an integer query of sensitivity Δ (OpenDP's ``make_laplace`` on
    integers).

    Example:
        >>> g = discrete_laplace_guarantee(scale=1.0)
        >>> g.pure_epsilon, round(g.delta_at(0.0), 4)          # (1 − e^(−1))/(1 + e^(−1)) = tanh(1/2)
        (1.0, 0.4621)
    """
    return DiscreteLaplaceMechanism(
        check_positive(scale, name="scale"), check_whole(sensitivity, name="sensitivity", minimum=1)
    )


@dataclass(frozen=True)
class DiscreteGaussianMechanism(_DiscreteNoise):
    """Discrete Gaussian noise, P(x) ∝ e^(−x²/(2σ²)) on the integers (OpenDP's sampler; Canonne, Kamath and
    Steinke 2020, who prove Δ²/(2σ²)-zCDP). The profile here is the exact one, summed over the integers.

    Attributes:
        sigma: σ > 0.
        sensitivity: Δ, a whole number ≥ 1.
    """

    sigma: float
    sensitivity: int = 1
    source: str = field(default="", compare=False)

    _label = "discrete Gaussian mechanism, σ = {self.sigma:.4g}, sensitivity {self.sensitivity}"
    _conversion = "exact (discrete Gaussian mechanism)"

    @property
    def conversion(self) -> str:
        if self.sigma > LARGEST_SUMMED_SIGMA:
            return (
                f"its Δ²/(2σ²)-zCDP (Canonne, Kamath and Steinke 2020, Thm. 4); {self._as_zcdp().conversion}"
            )
        return super().conversion

    def _as_zcdp(self) -> Guarantee:
        from privrisk.accounting.concentrated import ZeroConcentratedDP

        return ZeroConcentratedDP(self.sensitivity**2 / (2.0 * self.sigma**2))

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        if self.sigma > LARGEST_SUMMED_SIGMA:  # the integer support would not fit in memory
            return self._as_zcdp()._deltas(epsilon)
        return super()._deltas(epsilon)

    def epsilon_at(self, delta: float) -> float:
        if self.sigma > LARGEST_SUMMED_SIGMA:
            return self._as_zcdp().epsilon_at(delta)
        return super().epsilon_at(delta)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        if self.sigma > LARGEST_SUMMED_SIGMA:
            return self._as_zcdp().tradeoff(alpha)
        return super().tradeoff(alpha)

    def _support(self) -> np.ndarray:
        # Beyond 40σ the mass is below e^(−800); the sum is exact to double precision.
        reach = self.sensitivity + math.ceil(40.0 * self.sigma) + 1
        return np.arange(-reach, reach + self.sensitivity + 1, dtype=float)

    @cached_property
    def _log_norm(self) -> float:
        x = self._support()
        terms = -(x * x) / (2.0 * self.sigma**2)
        top = float(terms.max())
        return top + math.log(float(np.sum(np.exp(terms - top))))

    def _log_pmf(self, x: np.ndarray) -> np.ndarray:
        return -(x * x) / (2.0 * self.sigma**2) - self._log_norm

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution:
        privacy_loss_distribution = dp_accounting_pld()

        return privacy_loss_distribution.from_discrete_gaussian_mechanism(
            self.sigma,
            sensitivity=self.sensitivity,
            value_discretization_interval=discretization,
            sampling_prob=sampling_prob,
        )

    _pld_samples = True

    def _pld_key(self) -> tuple[Any, ...]:
        return ("discrete gaussian", self.sigma, self.sensitivity)

    def _pld_span(self) -> float:
        mu = self.sensitivity / self.sigma
        return mu * mu / 2.0 + 10.0 * mu

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        return np.asarray(orders, dtype=float) * self.sensitivity**2 / (2.0 * self.sigma**2)

    def _grouped(self, k: int) -> Guarantee:
        return _with_group_sensitivity(self, k)

    def _max_loss(self) -> float:
        return math.inf


def discrete_gaussian_guarantee(*, sigma: float, sensitivity: int = 1) -> DiscreteGaussianMechanism:
    """Discrete Gaussian noise σ on an integer query of sensitivity Δ (OpenDP's ``make_gaussian`` on integers).

    Example:
        >>> g = discrete_gaussian_guarantee(sigma=5.0)
        >>> abs(g.delta_at(1.0) - gaussian_guarantee(sigma=5.0).delta_at(1.0)) < 1e-9   # close to continuous
        True
    """
    return DiscreteGaussianMechanism(
        check_positive(sigma, name="sigma"), check_whole(sensitivity, name="sensitivity", minimum=1)
    )


# The names before 0.2, kept one release: they read like the noise samplers of privrisk.release.
laplace_mechanism = deprecated_alias(laplace_guarantee, "laplace_mechanism")
gaussian_mechanism = deprecated_alias(gaussian_guarantee, "gaussian_mechanism")
randomized_response = deprecated_alias(randomised_response_guarantee, "randomized_response")
discrete_laplace_mechanism = deprecated_alias(discrete_laplace_guarantee, "discrete_laplace_mechanism")
discrete_gaussian_mechanism = deprecated_alias(discrete_gaussian_guarantee, "discrete_gaussian_mechanism")

# The American spellings before 0.2, kept one release (public names are spelled the British way).
randomized_response_guarantee = deprecated_alias(
    randomised_response_guarantee, "randomized_response_guarantee"
)
# The old class name is the class itself (isinstance holds), with a warning.
__getattr__ = renamed_attributes(globals(), {"RandomizedResponse": "RandomisedResponse"})
