"""Privacy guarantees by definition: pure ε, (ε, δ) and Gaussian DP, and the base class of every guarantee.

Every guarantee is a frozen :class:`Guarantee` with the same three views (Dong, Roth and Su 2022, §2):

- the privacy profile δ(ε) (:meth:`Guarantee.delta_at`) and its inverse ε(δ) (:meth:`Guarantee.epsilon_at`);
- the trade-off curve β(α) of f-DP (:meth:`Guarantee.tradeoff`): the smallest type II error of any test at type I
  error α, for the harder of the two neighbouring orders;
- a plain ``label`` and the ``conversion`` that produced the profile, so every number can say where it came from.

Pure ε and (ε, δ) use closed forms and no scipy (Kairouz, Oh and Viswanath 2015, Thm. 2.1: the profile of the
worst (ε, δ)-DP mechanism); Gaussian DP is exact (Dong, Roth and Su 2022, Cor. 2.13). zCDP and Rényi DP are in
:mod:`privrisk.accounting.concentrated`.

Example:
    >>> g = pure_dp(1.0)
    >>> round(g.delta_at(0.0), 4), g.epsilon_at(0.0), g.pure_epsilon
    (0.4621, 1.0, 1.0)
    >>> round(gaussian_dp(1.0).delta_at(1.0), 4)      # Φ(−1/2) − e Φ(−3/2)
    0.1269
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_epsilon, check_probability, check_whole
from privrisk.accounting._math import (
    dp_accounting_pld,
    epsilon_from_profile,
    expit,
    log_norm_cdf,
    mechanism_pld,
    norm_cdf,
    norm_ppf,
    tradeoff_envelope,
)
from privrisk.errors import PrivriskError, deprecated_alias

PrivacyLossDistribution = Any  # dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

__all__ = [
    "DEFAULT_ORDERS",
    "ApproximateDP",
    "GaussianDP",
    "Guarantee",
    "PureDP",
    "approximate_dp",
    "gaussian_dp",
    "pure_dp",
]

SamplingMethod = Literal["poisson", "without_replacement"]

# Orders α at which Rényi curves are compared and summed when no curve brings its own (the DP-SGD custom).
DEFAULT_ORDERS = np.concatenate(
    [1.0 + np.geomspace(1e-3, 0.5, 24), np.linspace(1.75, 20.0, 74), np.geomspace(21.0, 1e4, 60)]
)
# Points of the profile from which a trade-off curve is drawn where no closed form exists.
ENVELOPE_POINTS = 1500


def check_positive(value: Any, *, name: str) -> float:
    """A finite number > 0 (ρ, μ, σ, scale, sensitivity), one-line error naming the parameter otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name) from None
    if not math.isfinite(number) or number <= 0:
        raise PrivriskError(f"{name}: must be a finite number greater than 0, got {value!r}", param=name)
    return number


def check_delta(value: Any, *, name: str = "delta") -> float:
    """δ in [0, 1): δ = 1 promises nothing."""
    return float(check_probability(value, name=name, open_high=True))


def fmt(x: float) -> str:
    """A parameter for a label: up to four significant digits."""
    return f"{x:.4g}"


class Guarantee:
    """A differential-privacy guarantee: its privacy profile, its trade-off curve and where they came from.

    Subclasses implement ``_deltas`` (the profile on an array of ε ≥ 0) and may override the inverse, the
    trade-off curve and the hooks that composition, subsampling and group privacy use.

    Example:
        >>> g = gaussian_dp(1.0)
        >>> round(g.delta_at(1.0), 4), round(g.epsilon_at(1e-6), 3), g.tradeoff([0.0, 1.0]).tolist()
        (0.1269, 4.887, [1.0, 0.0])
        >>> g.compose(4).mu, g.group(2).mu
        (2.0, 2.0)
    """

    # -- what subclasses provide -------------------------------------------------------------------------
    # Whether ``_pld`` takes a Poisson sampling rate below 1 (dp_accounting models the sampled mechanism).
    _pld_samples = False

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ``label`` and ``conversion`` as ``str.format`` templates over ``self`` (``"{self.k} releases of
    # {self.base.label}"``, ``"{self.rho:.4g}"`` for :func:`fmt`), so that a subclass declares its two texts in two
    # lines; one whose text needs more than a template overrides the property instead.
    _label: ClassVar[str] = ""
    _conversion: ClassVar[str] = ""
    # How a ``source`` field (what produced the parameters: group privacy, a conversion) joins the conversion: in
    # place of an exact one, or before it ("source; conversion").
    _source_replaces: ClassVar[bool] = False

    @property
    def label(self) -> str:
        """For people, e.g. "Gaussian mechanism, σ = 2, sensitivity 1"; a ``name`` field, where set, wins."""
        return getattr(self, "name", "") or self._label.format(self=self)

    @property
    def conversion(self) -> str:
        """Which theorem or method gives the profile, after (or, for an exact one, instead) its ``source``."""
        text = self._conversion.format(self=self)
        source = getattr(self, "source", "")
        if not source:
            return text
        return source if self._source_replaces else f"{source}; {text}"

    @property
    def pure_epsilon(self) -> float | None:
        """ε when the guarantee is pure ε-DP, else None."""
        return None

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        """The privacy loss distribution of dp_accounting, where one describes this guarantee exactly."""
        return None

    def _pld_key(self) -> tuple[Any, ...] | None:
        """Identical keys mean identical privacy loss distributions (composition groups them)."""
        return None

    def _pld_span(self) -> float:
        """Roughly the range of the privacy loss, to choose the discretisation of a PLD."""
        return self.epsilon_at(1e-12) if math.isfinite(self.epsilon_at(1e-12)) else 50.0

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        """Rényi divergences ε_α at the orders α > 1, where the guarantee implies them; None otherwise."""
        return None

    def _grouped(self, k: int) -> Guarantee | None:
        """An exact group-privacy rule for groups of k, where one exists."""
        return None

    def _kinks(self) -> tuple[float, ...]:
        """ε at which the profile bends sharply (where a split of ε between two parts should be tried)."""
        top = self.pure_epsilon
        return () if top is None else (top,)

    def _delta_floor(self) -> float:
        """The δ no finite ε goes below (the δ of (ε, δ)-DP); 0 for most guarantees."""
        return 0.0

    def _max_loss(self) -> float:
        """The largest privacy loss: ε(0), math.inf when δ(ε) > 0 for every ε."""
        pure = self.pure_epsilon
        return pure if pure is not None else self.epsilon_at(0.0)

    def _envelope_epsilons(self) -> np.ndarray:
        """The ε at which the trade-off envelope is taken (a grid up to where δ(ε) ≤ 10⁻¹⁴)."""
        top = self.epsilon_at(1e-14)
        if not math.isfinite(top) or top <= 0:
            top = max(self.epsilon_at(1e-9), 1.0) * 4.0 if math.isfinite(self.epsilon_at(1e-9)) else 100.0
        grid = np.concatenate([np.linspace(0.0, top, ENVELOPE_POINTS), top * np.geomspace(1e-6, 1e-3, 60)])
        return np.unique(grid)

    # -- the public views ----------------------------------------------------------------------------------
    def delta_at(self, epsilon: float) -> float:
        """The privacy profile δ(ε): the smallest δ for which the guarantee implies (ε, δ)-DP.

        Args:
            epsilon: ε ≥ 0.

        Returns:
            δ in [0, 1].
        """
        eps = check_epsilon(epsilon, name="epsilon", allow_zero=True)
        return float(np.clip(self._deltas(np.array([eps]))[0], 0.0, 1.0))

    def epsilon_at(self, delta: float) -> float:
        """ε(δ), the smallest ε with δ(ε) ≤ δ; ``math.inf`` when no finite ε reaches that δ.

        Args:
            delta: δ in [0, 1].
        """
        d = float(check_probability(delta, name="delta"))
        return epsilon_from_profile(self._deltas, d)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α), the trade-off curve of f-DP (Dong, Roth and Su 2022, Def. 2.1), vectorised.

        Where no closed form exists it is the envelope of the privacy profile (Dong, Roth and Su 2022,
        Prop. 2.12) on a grid of ε, which lies on the safe side (below) of the true curve.

        Args:
            alpha: type I error(s) in [0, 1].

        Returns:
            β(α) in [0, 1 − α], same shape as ``alpha``.
        """
        a = check_probability(alpha, name="alpha")
        eps = self._envelope_epsilons()
        return tradeoff_envelope(a, eps, self._deltas(eps))

    # -- convenience wrappers ----------------------------------------------------------------------------
    def compose(self, k: int) -> Guarantee:
        """k-fold composition with itself (:func:`privrisk.accounting.compose`), in memory independent of k."""
        from privrisk.accounting.composition import _flatten, compose_parts

        times = check_whole(k, name="k", minimum=1)
        if times == 1:
            return self
        # Not compose([self] * k): a list of k references would not fit in memory for k = 10¹⁰.
        return compose_parts([(g, count * times, rate) for g, count, rate in _flatten([self])])

    def subsample(self, rate: float, method: SamplingMethod = "poisson") -> Guarantee:
        """Amplification by subsampling (:func:`privrisk.accounting.subsample`)."""
        from privrisk.accounting.subsampling import subsample

        return subsample(self, rate, method=method)

    def group(self, k: int) -> Guarantee:
        """Group privacy for groups of k (:func:`privrisk.accounting.group`)."""
        from privrisk.accounting.grouping import group

        return group(self, k)

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class KTimes(Guarantee):
    """A guarantee for k of ``base`` (a group of k people, k releases): the pure ε and the largest loss are k
    times the base's (Dwork and Roth 2014, Thm. 2.2 and 3.16)."""

    base: Guarantee
    k: int

    @property
    def pure_epsilon(self) -> float | None:
        pure = self.base.pure_epsilon
        return None if pure is None else self.k * pure

    def _max_loss(self) -> float:
        return self.k * self.base._max_loss()


# ---------------------------------------------------------------------------------------- pure ε and (ε, δ)
def pure_deltas(eps0: float, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of pure ε₀-DP: expit(ε₀)(1 − e^(ε − ε₀)) for ε < ε₀, else 0 (binary randomized response)."""
    e = np.asarray(epsilon, dtype=float)
    return np.where(e < eps0, float(expit(np.array(eps0))) * -np.expm1(np.minimum(e - eps0, 0.0)), 0.0)


def pure_tradeoff(eps0: float, alpha: np.ndarray) -> np.ndarray:
    """β(α) = max(0, 1 − e^ε α, e^(−ε)(1 − α)) (Dong, Roth and Su 2022, eq. (5) with δ = 0)."""
    return approximate_tradeoff(eps0, 0.0, alpha)


def approximate_tradeoff(eps0: float, delta: float, alpha: np.ndarray) -> np.ndarray:
    """β(α) = max(0, 1 − δ − e^ε α, e^(−ε)(1 − δ − α)) (Dong, Roth and Su 2022, eq. (5)); e^ε α in log space."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", over="ignore"):
        first = (1.0 - delta) - np.exp(eps0 + np.log(a))
    second = math.exp(-eps0) * ((1.0 - delta) - a)
    return np.clip(np.maximum(np.maximum(first, second), 0.0), 0.0, 1.0 - a)


@dataclass(frozen=True)
class PureDP(Guarantee):
    """Pure ε-DP (Dwork et al. 2006). Its profile is that of binary randomized response, the worst ε-DP mechanism
    (Kairouz, Oh and Viswanath 2015, Thm. 2.1).

    Attributes:
        epsilon: ε > 0.
        source: what produced ε when it is not a plain definition (group privacy, subsampling).
    """

    epsilon: float
    source: str = ""

    _label = "ε = {self.epsilon:.4g} (pure differential privacy)"
    _conversion = "exact (pure ε-DP: the profile of randomized response, Kairouz, Oh and Viswanath 2015)"
    _source_replaces = True

    @property
    def pure_epsilon(self) -> float:
        return self.epsilon

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return pure_deltas(self.epsilon, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d == 0:
            return self.epsilon
        # Inverting δ = expit(ε₀)(1 − e^(ε − ε₀)): ε = ε₀ + ln(1 − δ(1 + e^(−ε₀))).
        inner = d * (1.0 + math.exp(-self.epsilon))
        return 0.0 if inner >= 1 else max(0.0, self.epsilon + math.log1p(-inner))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return pure_tradeoff(self.epsilon, check_probability(alpha, name="alpha"))

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        if sampling_prob != 1.0:
            return None
        common, privacy_loss_distribution = dp_accounting_pld("common"), dp_accounting_pld()

        parameters = common.DifferentialPrivacyParameters(self.epsilon, 0.0)
        return privacy_loss_distribution.from_privacy_parameters(parameters, discretization)

    def _pld_key(self) -> tuple[Any, ...]:
        return ("approximate", self.epsilon, 0.0)

    def _pld_span(self) -> float:
        return self.epsilon

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        return randomised_response_rdp(self.epsilon, orders)

    def _grouped(self, k: int) -> Guarantee:
        return PureDP(
            k * self.epsilon, source=f"group privacy: kε for k = {k} (Dwork and Roth 2014, Thm. 2.2)"
        )


def randomised_response_rdp(eps0: float, orders: np.ndarray) -> np.ndarray:
    """Rényi divergences of binary randomized response, the largest of any ε₀-DP mechanism at every order.

    D_α = ln(p^α q^(1−α) + q^α p^(1−α))/(α − 1) with p = expit(ε₀), q = 1 − p (Mironov 2017, Prop. 5 for the
    pair; every ε₀-DP mechanism is a post-processing of it, Kairouz, Oh and Viswanath 2015, Thm. 2.1).
    """
    a = np.asarray(orders, dtype=float)
    log_p, log_q = -np.logaddexp(0.0, -eps0), -np.logaddexp(0.0, eps0)
    mixed = np.logaddexp(a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p)
    return np.minimum(mixed / (a - 1.0), eps0)


#: The American spelling before 0.2, kept one release (public names are spelled the British way).
randomized_response_rdp = deprecated_alias(randomised_response_rdp, "randomized_response_rdp")


def approximate_deltas(eps0: float, delta: float, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of (ε₀, δ₀)-DP: δ₀ + (1 − δ₀)·expit(ε₀)(1 − e^(ε − ε₀)) below ε₀, δ₀ from ε₀ on.

    The profile of the worst (ε₀, δ₀)-DP mechanism (Kairouz, Oh and Viswanath 2015, Thm. 2.1).
    """
    return delta + (1.0 - delta) * pure_deltas(eps0, epsilon)


@dataclass(frozen=True)
class ApproximateDP(Guarantee):
    """(ε, δ)-DP with δ > 0 (Dwork et al. 2006): outside probability δ, the loss is at most ε.

    Attributes:
        epsilon: ε ≥ 0.
        delta: δ in (0, 1).
        source: what produced the pair when it is not a plain definition.
    """

    epsilon: float
    delta: float
    source: str = ""

    _label = "(ε = {self.epsilon:.4g}, δ = {self.delta:.3g})-differential privacy"
    _conversion = "exact ((ε, δ)-DP: the profile of the worst such mechanism, Kairouz, Oh and Viswanath 2015)"
    _source_replaces = True

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return approximate_deltas(self.epsilon, self.delta, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d < self.delta:
            return math.inf
        if d == self.delta:
            return self.epsilon
        inner = (d - self.delta) / (1.0 - self.delta) * (1.0 + math.exp(-self.epsilon))
        return 0.0 if inner >= 1 else max(0.0, self.epsilon + math.log1p(-inner))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return approximate_tradeoff(self.epsilon, self.delta, check_probability(alpha, name="alpha"))

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        if sampling_prob != 1.0:
            return None
        common, privacy_loss_distribution = dp_accounting_pld("common"), dp_accounting_pld()

        parameters = common.DifferentialPrivacyParameters(self.epsilon, self.delta)
        return privacy_loss_distribution.from_privacy_parameters(parameters, discretization)

    def _pld_key(self) -> tuple[Any, ...]:
        return ("approximate", self.epsilon, self.delta)

    def _pld_span(self) -> float:
        return self.epsilon

    def _delta_floor(self) -> float:
        return self.delta

    def _kinks(self) -> tuple[float, ...]:
        return (self.epsilon,)

    def _grouped(self, k: int) -> Guarantee:
        log_delta = math.log(k) + (k - 1) * self.epsilon + math.log(self.delta)
        return approximate(
            k * self.epsilon,
            math.exp(log_delta) if log_delta < 0 else 1.0,
            source=f"group privacy: (kε, k e^((k−1)ε) δ) for k = {k} (Dwork and Roth 2014, Thm. 2.2; Vadhan 2017)",
        )

    def _max_loss(self) -> float:
        return math.inf


def approximate(epsilon: float, delta: float, *, source: str = "") -> Guarantee:
    """(ε, δ) without the checks of :func:`approximate_dp` (ε = 0 and δ = 1 allowed): for derived guarantees."""
    if delta >= 1.0:
        return ApproximateDP(epsilon, 1.0 - 1e-16, source=source)
    if delta == 0 and epsilon > 0:
        return PureDP(epsilon, source=source)
    return ApproximateDP(epsilon, delta, source=source)


def pure_dp(epsilon: float) -> PureDP:
    """Pure ε-DP.

    Args:
        epsilon: ε > 0 (a number or ``"ln3"``).

    Example:
        >>> round(pure_dp(1.0).delta_at(0.0), 4)      # tanh(1/2): the advantage at prior ½
        0.4621
        >>> pure_dp(1e4).tradeoff([0.0, 0.5, 1.0]).tolist()   # no overflow at ε = 10⁴
        [1.0, 0.0, 0.0]
    """
    return PureDP(check_epsilon(epsilon, name="epsilon"))


def approximate_dp(epsilon: float, delta: float) -> Guarantee:
    """(ε, δ)-DP; with δ = 0 it is :func:`pure_dp`.

    Args:
        epsilon: ε > 0.
        delta: δ in [0, 1).

    Example:
        >>> g = approximate_dp(1.0, 1e-5)
        >>> g.epsilon_at(1e-5), g.epsilon_at(1e-6)
        (1.0, inf)
        >>> round(float(g.tradeoff(0.0)), 6)
        0.99999
    """
    eps = check_epsilon(epsilon, name="epsilon")
    d = check_delta(delta)
    return PureDP(eps) if d == 0 else ApproximateDP(eps, d)


# ------------------------------------------------------------------------------------------------ Gaussian DP
def gaussian_deltas(mu: float, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth and Su 2022, Cor. 2.13; Balle and Wang 2018, Thm. 8).

    Computed as Φ(a)(1 − e^(ε + ln Φ(b) − ln Φ(a))) with ln Φ taken in the tail, so neither the difference of
    two tiny numbers nor e^ε at large ε loses the result.
    """
    e = np.asarray(epsilon, dtype=float)
    a, b = -e / mu + mu / 2.0, -e / mu - mu / 2.0
    log_a, log_b = log_norm_cdf(a), log_norm_cdf(b)
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.exp(log_a) * -np.expm1(np.minimum(e + log_b - log_a, 0.0))
    return np.clip(np.nan_to_num(value, nan=0.0), 0.0, 1.0)


def gaussian_tradeoff(mu: float, alpha: np.ndarray) -> np.ndarray:
    """β(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth and Su 2022, eq. (6))."""
    a = np.asarray(alpha, dtype=float)
    return np.clip(norm_cdf(norm_ppf(1.0 - a) - mu), 0.0, 1.0 - a)


@dataclass(frozen=True)
class GaussianDP(Guarantee):
    """μ-Gaussian differential privacy (Dong, Roth and Su 2022, Def. 2.6): telling the neighbours apart is no
    easier than telling N(0, 1) from N(μ, 1).

    Attributes:
        mu: μ > 0.
        source: what produced μ when it is not a plain definition.
        name: a label for people when the guarantee stands for something else (a composition).
    """

    mu: float
    source: str = ""
    name: str = ""

    _label = "μ = {self.mu:.4g} (Gaussian differential privacy)"
    _conversion = "exact (μ-GDP: the Gaussian trade-off curve, Dong, Roth and Su 2022)"
    _source_replaces = True

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return gaussian_deltas(self.mu, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        return math.inf if d == 0 else epsilon_from_profile(self._deltas, d, start=self.mu)

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        return gaussian_tradeoff(self.mu, check_probability(alpha, name="alpha"))

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        return mechanism_pld("gaussian", self.mu, discretization, sampling_prob)

    _pld_samples = True

    def _pld_key(self) -> tuple[Any, ...]:
        return ("gaussian", self.mu)

    def _pld_span(self) -> float:
        return self.mu * self.mu / 2.0 + 10.0 * self.mu

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):  # μ above 10¹⁵⁴: every order is +∞ (the attacker is certain)
            return np.asarray(orders, dtype=float) * np.square(np.float64(self.mu)) / 2.0

    def _grouped(self, k: int) -> Guarantee:
        return GaussianDP(
            k * self.mu, source=f"group privacy: kμ for k = {k} (Dong, Roth and Su 2022, Thm. 2.14)"
        )

    def _max_loss(self) -> float:
        return math.inf


def gaussian_dp(mu: float) -> GaussianDP:
    """μ-Gaussian differential privacy.

    Example:
        >>> round(gaussian_dp(1.0).delta_at(0.0), 4)   # 2Φ(μ/2) − 1
        0.3829
    """
    return GaussianDP(check_positive(mu, name="mu"))
