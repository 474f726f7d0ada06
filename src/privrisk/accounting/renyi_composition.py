"""Composition by adding Rényi curves (Mironov 2017, Prop. 1), with sampled curves for subsampled parts and each
(ε, δ) part as ε randomized response outside a catastrophe of probability δ (Kairouz, Oh and Viswanath 2015,
Thm. 2.1): :class:`CatastropheGuarantee` holds the composed curve and the catastrophe.

Example:
    >>> from privrisk.accounting.guarantees import pure_dp
    >>> g = CatastropheGuarantee(pure_dp(1.0), 0.01)
    >>> g.epsilon_at(0.001), g.epsilon_at(0.01), round(g.delta_at(1.0), 4)
    (inf, 1.0, 0.01)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting.concentrated import RenyiDP
from privrisk.accounting.guarantees import DEFAULT_ORDERS, ApproximateDP, Guarantee, randomised_response_rdp
from privrisk.accounting.subsampling import RdpCurve, part_rdp

__all__ = ["CatastropheGuarantee"]


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


@dataclass(frozen=True)
class CatastropheGuarantee(Guarantee):
    """A guarantee that, with probability δ꜀, gives everything away and otherwise holds ``inner``:
    δ(ε) = 1 − (1 − δ꜀)(1 − δ_inner(ε)), β(α) = (1 − δ꜀) β_inner(α/(1 − δ꜀)) (the worst (ε, δ) pair is
    randomized response outside a catastrophe of probability δ, Kairouz, Oh and Viswanath 2015, Thm. 2.1)."""

    inner: Guarantee
    delta: float
    name: str = ""

    _label = "{self.inner.label}, revealed with probability {self.delta:.3g}"
    _conversion = (
        "each (ε, δ) release as ε randomized response outside a catastrophe of probability δ (Kairouz, Oh "
        "and Viswanath 2015, Thm. 2.1), composed with the rest: δ(ε) = 1 − (1 − δ꜀)(1 − δ′(ε)), "
        "δ꜀ = {self.delta:.3g}; δ′: {self.inner.conversion}"
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
