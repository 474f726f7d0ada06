"""Rényi-family guarantees: zero-concentrated DP (ρ-zCDP) and Rényi DP at finitely many orders.

Both bound Rényi divergences rather than the hockey-stick divergence, so their (ε, δ) profiles are conversions:
zCDP with Canonne, Kamath and Steinke (2020), Prop. 12 / Cor. 13 (the conversion OpenDP's
``make_zCDP_to_approxDP`` computes), Rényi DP with Balle et al. (2020), Thm. 21; both capped at ε = 0 by
Pinsker's inequality δ(0) ≤ √(KL/2). The trade-off curves are envelopes of those profiles.

Example:
    >>> round(zcdp(2.63).epsilon_at(1e-10), 3)            # the US Census Bureau's 2020 redistricting data
    17.431
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from privrisk._validation import check_probability
from privrisk.accounting.guarantees import Guarantee, check_positive, fmt
from privrisk.errors import PrivriskError

__all__ = [
    "RenyiDP",
    "ZeroConcentratedDP",
    "pinsker_delta",
    "rdp_log_deltas",
    "renyi_dp",
    "zcdp",
    "zcdp_deltas",
    "zcdp_epsilon",
]


def rdp_log_deltas(orders: np.ndarray, rdp: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
    """ln δ(ε) from (α, ε_α)-RDP, minimised over the orders: (α − 1)(ε_α − ε + ln(1 − 1/α)) − ln α.

    Balle et al. (2020), Thm. 21; the same bound is Canonne, Kamath and Steinke (2020), Prop. 12.
    """
    a = np.asarray(orders, dtype=float)[None, :]
    r = np.asarray(rdp, dtype=float)[None, :]
    e = np.asarray(epsilon, dtype=float)[:, None]
    return ((a - 1.0) * (r - e + np.log(a - 1.0) - np.log(a)) - np.log(a)).min(axis=1)


def pinsker_delta(kl: float) -> float:
    """δ(0) = TV ≤ √(KL/2) (Pinsker's inequality): better than the Rényi conversions at large δ."""
    return min(1.0, math.sqrt(max(kl, 0.0) / 2.0))


def zcdp_optimal_order(rho: float, epsilon: np.ndarray) -> np.ndarray:
    """ln(α − 1) for the α > 1 that minimises the zCDP bound: the root of ρ(2α − 1) − ε + ln(1 − 1/α) = 0.

    The bound's logarithm is convex in α (its derivative is that increasing function), so bisection on
    ln(α − 1) finds the minimum (Canonne, Kamath and Steinke 2020, Cor. 13).
    """
    e = np.asarray(epsilon, dtype=float)
    lo, hi = np.full(e.shape, -60.0), np.full(e.shape, 60.0)
    for _ in range(64):  # 120/2⁶⁴: far below the resolution of a double
        mid = 0.5 * (lo + hi)
        a = 1.0 + np.exp(mid)
        slope = rho * (2.0 * a - 1.0) - e + (mid - np.logaddexp(0.0, mid))  # ln(1 − 1/a) = ln((a − 1)/a)
        lo, hi = np.where(slope < 0, mid, lo), np.where(slope < 0, hi, mid)
    return np.asarray(0.5 * (lo + hi))


def zcdp_deltas(rho: float, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of ρ-zCDP: inf over α > 1 of e^((α−1)(αρ − ε)) (1 − 1/α)^α / (α − 1), capped by Pinsker."""
    e = np.asarray(epsilon, dtype=float)
    t = zcdp_optimal_order(rho, e)
    log_a = np.logaddexp(0.0, t)
    with np.errstate(over="ignore"):
        a = 1.0 + np.exp(t)
        log_delta = np.exp(t) * (a * rho - e + (t - log_a)) - log_a
        value = np.exp(np.minimum(log_delta, 0.0))
    return np.minimum(value, pinsker_delta(rho))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε(δ) of ρ-zCDP: min over α > 1 of αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath and
    Steinke 2020, Cor. 13), by golden-section search on ln(α − 1), where the bound is unimodal."""
    log_delta = math.log(delta)

    def bound(t: float) -> float:
        a = 1.0 + math.exp(t)
        return a * rho + (t - math.log(a)) - (log_delta + math.log(a)) / math.exp(t)  # a − 1, exactly

    lo, hi = -40.0, 40.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(200):
        left, right = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if bound(left) < bound(right):
            hi = right
        else:
            lo = left
    return max(0.0, bound(0.5 * (lo + hi)))


@dataclass(frozen=True)
class ZeroConcentratedDP(Guarantee):
    """ρ-zero-concentrated DP (Bun and Steinke 2016, Def. 1.1): D_α ≤ αρ for every Rényi order α > 1.

    Attributes:
        rho: ρ > 0 (the US Census Bureau's 2020 redistricting data: ρ = 2.63).
        source: what produced ρ when it is not a plain definition.
        name: a label for people when the guarantee stands for something else (a composition).
    """

    rho: float
    source: str = ""
    name: str = ""

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return f"ρ = {fmt(self.rho)} (zero-concentrated differential privacy)"

    @property
    def conversion(self) -> str:
        base = "Canonne, Kamath and Steinke (2020), zCDP → (ε, δ)"
        return f"{self.source}; {base}" if self.source else base

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        return zcdp_deltas(self.rho, epsilon)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d == 0:
            return math.inf
        if d >= pinsker_delta(self.rho):
            return 0.0
        return zcdp_epsilon(self.rho, d)

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        return np.asarray(orders, dtype=float) * self.rho

    def _grouped(self, k: int) -> Guarantee:
        return ZeroConcentratedDP(
            k * k * self.rho, source=f"group privacy: k²ρ for k = {k} (Bun and Steinke 2016, Prop. 1.9)"
        )

    def _max_loss(self) -> float:
        return math.inf


def zcdp(rho: float) -> ZeroConcentratedDP:
    """ρ-zero-concentrated differential privacy, converted to (ε, δ) with Canonne, Kamath and Steinke (2020).

    Example:
        >>> round(zcdp(0.5).epsilon_at(1e-6), 3)          # OpenDP's make_zCDP_to_approxDP: 5.2215…
        5.222
    """
    return ZeroConcentratedDP(check_positive(rho, name="rho"))


@dataclass(frozen=True)
class RenyiDP(Guarantee):
    """(α, ε_α)-Rényi DP at finitely many orders (Mironov 2017, Def. 4), as DP-SGD's accountants report it.

    Attributes:
        orders: the orders α > 1, increasing.
        epsilons: ε_α ≥ 0 at each order.
        source: what produced the curve when it is not a plain definition.
        name: a label for people when the guarantee stands for something else (a composition).
    """

    orders: tuple[float, ...]
    epsilons: tuple[float, ...]
    source: str = ""
    name: str = ""

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if len(self.orders) == 1:
            return f"Rényi DP of order α = {fmt(self.orders[0])}, ε_α = {fmt(self.epsilons[0])}"
        return f"Rényi DP at {len(self.orders)} orders α from {fmt(self.orders[0])} to {fmt(self.orders[-1])}"

    @property
    def conversion(self) -> str:
        base = "Balle et al. (2020), RDP → (ε, δ)"
        return f"{self.source}; {base}" if self.source else base

    @cached_property
    def _curve(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.orders, dtype=float), np.asarray(self.epsilons, dtype=float)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        orders, rdp = self._curve
        log_delta = rdp_log_deltas(orders, rdp, epsilon)
        return np.minimum(np.exp(np.minimum(log_delta, 0.0)), pinsker_delta(float(rdp.min())))

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        orders, rdp = self._curve
        if d == 0:
            return math.inf
        if d >= pinsker_delta(float(rdp.min())):
            return 0.0
        # Balle et al. (2020), Thm. 21: ε = ε_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), the best order.
        eps = rdp + np.log(orders - 1.0) - np.log(orders) - (math.log(d) + np.log(orders)) / (orders - 1.0)
        return max(0.0, float(eps.min()))

    def _rdp(self, orders: np.ndarray) -> np.ndarray | None:
        own, rdp = self._curve
        if np.array_equal(np.asarray(orders, dtype=float), own):
            return rdp
        # Rényi divergence increases with the order: at α the curve of the next larger own order is a bound.
        index = np.searchsorted(own, orders, side="left")
        return np.where(index < own.size, rdp[np.minimum(index, own.size - 1)], np.inf)

    def _max_loss(self) -> float:
        return math.inf


def renyi_dp(alphas: float | Sequence[float], epsilons: float | Sequence[float]) -> RenyiDP:
    """Rényi DP at one or more orders, converted to (ε, δ) with Balle et al. (2020), Thm. 21.

    Args:
        alphas: the orders α > 1.
        epsilons: ε_α ≥ 0 at each order (as many as orders).

    Example:
        >>> g = renyi_dp([2, 8, 32], [0.1, 0.4, 1.6])
        >>> round(g.epsilon_at(1e-5), 3)
        1.614
    """
    orders = np.atleast_1d(np.asarray(_numbers(alphas, "alphas"), dtype=float))
    values = np.atleast_1d(np.asarray(_numbers(epsilons, "epsilons"), dtype=float))
    if orders.ndim != 1 or orders.size == 0:
        raise PrivriskError("alphas: give at least one order α > 1", param="alphas")
    if values.shape != orders.shape:
        raise PrivriskError(
            f"epsilons: give one ε_α per order ({orders.size} orders, {values.size} values)", param="epsilons"
        )
    if np.any(~np.isfinite(orders)) or np.any(orders <= 1):
        raise PrivriskError("alphas: every order must be a finite number greater than 1", param="alphas")
    if np.any(~np.isfinite(values)) or np.any(values < 0):
        raise PrivriskError("epsilons: every ε_α must be a finite number ≥ 0", param="epsilons")
    if np.all(values == 0):
        raise PrivriskError("epsilons: at least one ε_α must be greater than 0", param="epsilons")
    order = np.argsort(orders, kind="stable")
    return RenyiDP(tuple(float(x) for x in orders[order]), tuple(float(x) for x in values[order]))


def _numbers(values: Any, name: str) -> Any:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: must be numbers", param=name) from None
