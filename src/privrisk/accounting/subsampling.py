"""Amplification by subsampling: the guarantee of a mechanism run on a random sample of the data.

Pure ε and (ε, δ) become (ln(1 + γ(e^ε − 1)), γδ) (Balle, Barthe and Gaboardi 2018, Thm. 8 and 9); a mechanism
with a privacy loss distribution under Poisson sampling goes through ``dp_accounting``'s; any other profile is
transformed point by point and, where the base has a Rényi curve, also gets the sampled curve
(:func:`part_rdp`), which :mod:`~privrisk.accounting.composition` adds up.

Example:
    >>> from privrisk.accounting import gaussian_dp, pure_dp
    >>> round(subsample(pure_dp(1.0), 0.1).pure_epsilon, 4)   # ln(1 + 0.1(e − 1))
    0.1586
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from privrisk._validation import check_choice, check_probability
from privrisk.accounting._math import amplified_epsilon, poisson_subsampled_rdp, without_replacement_rdp
from privrisk.accounting.concentrated import RenyiDP
from privrisk.accounting.guarantees import (
    DEFAULT_ORDERS,
    ApproximateDP,
    GaussianDP,
    Guarantee,
    PureDP,
    approximate,
)
from privrisk.accounting.mechanisms import GaussianMechanism, RandomisedResponse
from privrisk.errors import PrivriskError

__all__ = ["SAMPLED_ORDERS", "SubsampledGuarantee", "part_rdp", "subsample"]

RdpCurve = Callable[[np.ndarray], np.ndarray]


# Integer orders at which sampled Rényi curves are computed (each bound costs O(α) to O(α²)); an order between
# two of them takes the value of the next one up, which bounds it because ε(α) grows with α.
SAMPLED_ORDERS = np.array(
    [*range(2, 21), 24, 28, 32, 40, 48, 56, 64, 80, 96, 128, 160, 192, 256], dtype=float
)


# dp_accounting's bound without replacement costs O(α²) in Python: up to 128 (0.2 s), not 256 (1 s).
WITHOUT_REPLACEMENT_ORDERS = SAMPLED_ORDERS[SAMPLED_ORDERS <= 128]


def _on_grid(values: np.ndarray, grid: np.ndarray = SAMPLED_ORDERS) -> RdpCurve:
    """ε(α) at any orders from its values on a grid of integer orders (+∞ beyond the last)."""

    def curve(orders: np.ndarray) -> np.ndarray:
        o = np.asarray(orders, dtype=float)
        index = np.searchsorted(grid, o - 1e-9, side="left")
        return np.where(index < grid.size, values[np.minimum(index, grid.size - 1)], np.inf)

    return curve


def part_rdp(g: Guarantee, rate: float, method: str = "poisson") -> RdpCurve | None:
    """ε(α) of ``g`` run on a sample of rate γ, as a function of the orders; None where no curve is known.

    The Gaussian under Poisson sampling: dp_accounting's exact subsampled-Gaussian RDP (Mironov, Talwar and
    Zhang 2019), as Opacus and TF-Privacy account; without replacement dp_accounting's bound of Wang, Balle and
    Kasiviswanathan (2019). Any other curve: the general bounds :func:`~privrisk.accounting._math.
    poisson_subsampled_rdp` and :func:`~privrisk.accounting._math.without_replacement_rdp`. Orders above 256
    get +∞ (no bound), as in dp_accounting's default orders.
    """
    if rate >= 1.0:
        return g._rdp if g._rdp(np.array([2.0])) is not None else None  # type: ignore[return-value]
    # Below σ = 10⁻¹⁰⁰ dp_accounting divides by σ² = 0; the general bound below answers (the attacker is certain).
    if isinstance(g, GaussianDP | GaussianMechanism) and 1.0 / g.mu >= 1e-100:
        rdp_module = importlib.import_module("dp_accounting.rdp.rdp_privacy_accountant")
        sigma = 1.0 / g.mu
        if method == "poisson":

            def exact(orders: np.ndarray) -> np.ndarray:
                o = np.asarray(orders, dtype=float)
                inside = o <= SAMPLED_ORDERS[-1]
                out = np.full(o.shape, np.inf)
                if inside.any():
                    values = rdp_module._compute_rdp_poisson_subsampled_gaussian(rate, sigma, o[inside])
                    out[inside] = np.asarray(values, dtype=float)
                return out

            return exact
        values = rdp_module._compute_rdp_sample_wor_gaussian(rate, sigma, WITHOUT_REPLACEMENT_ORDERS)
        return _on_grid(np.asarray(values, dtype=float), WITHOUT_REPLACEMENT_ORDERS)
    if g._rdp(np.array([2.0])) is None:
        return None
    if method == "poisson":
        values = poisson_subsampled_rdp(g._rdp, rate, SAMPLED_ORDERS)  # type: ignore[arg-type]
    else:
        values = without_replacement_rdp(g._rdp, rate, SAMPLED_ORDERS, g.pure_epsilon)  # type: ignore[arg-type]
    return _on_grid(values)


@dataclass(frozen=True)
class SubsampledGuarantee(Guarantee):
    """Amplification by subsampling of any profile: (ε, δ) becomes (ln(1 + γ(e^ε − 1)), γδ) at every ε
    (Balle, Barthe and Gaboardi 2018, Thm. 8 for Poisson sampling with add/remove neighbours, Thm. 9 for a
    fixed-size sample without replacement with replace-one neighbours). Where the base has a Rényi curve the
    sampled mechanism has one too (:func:`part_rdp`), which composition uses; the profile is the smaller of the
    two conversions at every ε."""

    base: Guarantee
    rate: float
    method: str = "poisson"

    @property
    def label(self) -> str:
        how = "Poisson sample" if self.method == "poisson" else "sample without replacement"
        return f"{self.base.label}, on a {how} of rate {self.rate:.3g}"

    @property
    def conversion(self) -> str:
        theorem = "Thm. 8" if self.method == "poisson" else "Thm. 9, replace-one neighbours"
        text = (
            f"amplification by subsampling: ε′ = ln(1 + γ(e^ε − 1)), δ′ = γδ (Balle, Barthe and Gaboardi 2018, "
            f"{theorem})"
        )
        if self._curve is not None:
            text += ", or its Rényi curve where tighter"
        return f"{text}; {self.base.conversion}"

    @cached_property
    def _curve_fn(self) -> RdpCurve | None:
        return part_rdp(self.base, self.rate, self.method)

    @cached_property
    def _curve(self) -> RenyiDP | None:
        curve = self._curve_fn
        if curve is None:
            return None
        orders = np.asarray(DEFAULT_ORDERS, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            values = np.asarray(curve(orders), dtype=float)
        keep = np.isfinite(values)
        if not keep.any():
            return None
        return RenyiDP(
            tuple(float(x) for x in orders[keep]), tuple(float(x) for x in np.maximum(values[keep], 0))
        )

    def _base_epsilon(self, epsilon: np.ndarray) -> np.ndarray:
        # ε = ln(1 + (e^ε′ − 1)/γ), as ε′ − ln γ + ln(1 − (1 − γ)e^(−ε′)) where e^ε′ is large.
        e = np.asarray(epsilon, dtype=float)
        with np.errstate(over="ignore"):
            small = np.log1p(np.expm1(np.minimum(e, 1.0)) / self.rate)
        large = e - math.log(self.rate) + np.log1p(-(1.0 - self.rate) * np.exp(-np.maximum(e, 1.0)))
        return np.where(e < 1.0, small, large)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float)
        values = self.rate * np.asarray(self.base._deltas(self._base_epsilon(e)), dtype=float)
        if self._curve is not None:
            values = np.minimum(values, self._curve._deltas(np.atleast_1d(e)).reshape(np.shape(values)))
        return values

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        # γ δ(ε) ≤ d exactly when δ(ε) ≤ d/γ: invert the base profile, then map ε to ln(1 + γ(e^ε − 1)).
        if d >= self.rate:
            value = 0.0
        else:
            base = self.base.epsilon_at(d / self.rate)
            value = amplified_epsilon(base, self.rate) if math.isfinite(base) else math.inf
        if self._curve is not None:
            value = min(value, self._curve.epsilon_at(d))
        return value

    @property
    def pure_epsilon(self) -> float | None:
        pure = self.base.pure_epsilon
        return None if pure is None else amplified_epsilon(pure, self.rate)

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        curve = self._curve_fn
        return None if curve is None else curve(np.asarray(orders, dtype=float))

    def _delta_floor(self) -> float:
        return self.rate * self.base._delta_floor()

    def _max_loss(self) -> float:
        top = self.base._max_loss()
        return top if not math.isfinite(top) else amplified_epsilon(top, self.rate)


def subsample(
    g: Guarantee, rate: float, *, method: Literal["poisson", "without_replacement"] = "poisson"
) -> Guarantee:
    """The guarantee of running ``g`` on a random sample of the data (amplification by subsampling).

    Poisson sampling of rate γ (each record kept independently, neighbours add or remove one record) or a
    fixed-size sample of a fraction γ drawn without replacement (neighbours replace one record; the mechanism's
    sensitivity is then the replace-one sensitivity). Pure ε and (ε, δ) become (ln(1 + γ(e^ε − 1)), γδ)
    (Balle, Barthe and Gaboardi 2018, Thm. 8 and 9). A Laplace, Gaussian or discrete mechanism under Poisson
    sampling goes through ``dp_accounting``'s privacy loss distribution, which is tighter. Any other profile is
    transformed point by point with the same rule and, where the base has a Rényi curve, also gets the sampled
    curve (the subsampled Gaussian's RDP as dp_accounting computes it, for Poisson sampling and without
    replacement; Zhu and Wang 2019 and Wang, Balle and Kasiviswanathan 2019 for other curves), so that many
    sampled releases compose through Rényi DP.

    Args:
        g: the guarantee of the mechanism on the sample.
        rate: γ in (0, 1].
        method: ``"poisson"`` or ``"without_replacement"``.

    Example:
        >>> from privrisk.accounting import gaussian_dp, pure_dp
        >>> round(subsample(pure_dp(1.0), 0.1).pure_epsilon, 4)   # ln(1 + 0.1(e − 1))
        0.1586
        >>> g = subsample(gaussian_dp(1.0), 0.01, method="without_replacement").compose(1000)
        >>> round(g.epsilon_at(1e-5), 3)    # dp_accounting's RdpAccountant, replace one: 3.576
        3.576
    """
    if not isinstance(g, Guarantee):
        raise PrivriskError(f"g: {g!r} is not a privacy guarantee", param="g")
    gamma = float(check_probability(rate, name="rate", open_low=True))
    how = check_choice(method, ("poisson", "without_replacement"), name="method")
    if gamma == 1.0:
        return g
    source = (
        f"amplification by subsampling (rate {gamma:.3g}, {how.replace('_', ' ')}): "
        f"ε′ = ln(1 + γ(e^ε − 1)), δ′ = γδ (Balle, Barthe and Gaboardi 2018, "
        f"{'Thm. 8' if how == 'poisson' else 'Thm. 9, replace-one neighbours'})"
    )
    if type(g) in (PureDP, RandomisedResponse):
        return PureDP(amplified_epsilon(g.epsilon, gamma), source=source)  # type: ignore[attr-defined]
    if isinstance(g, ApproximateDP):
        return approximate(amplified_epsilon(g.epsilon, gamma), gamma * g.delta, source=source)
    if how == "poisson" and g._pld_samples:
        # Composition's loss distributions include sampled ones; imported here, as composition adds the
        # sampled Rényi curves of this module.
        from privrisk.accounting.composition import PldComposition, _has_pld

        if _has_pld(g):
            return PldComposition(((g, 1, gamma),))
    return SubsampledGuarantee(g, gamma, how)
