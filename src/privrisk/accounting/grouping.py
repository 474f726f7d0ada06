"""Group privacy: the guarantee for a group of k people (a household) instead of one.

Example:
    >>> group(zcdp(0.5), 3).rho
    4.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privrisk._validation import check_whole
from privrisk.accounting.composition import KovComposition, PldComposition, compose_parts
from privrisk.accounting.concentrated import zcdp  # noqa: F401 - used by the doctests
from privrisk.accounting.guarantees import Guarantee, KTimes, approximate, pure_deltas, pure_dp
from privrisk.errors import PrivriskError

__all__ = ["MAX_GROUP", "GroupGuarantee", "group"]


@dataclass(frozen=True)
class GroupGuarantee(KTimes):
    """Group privacy from a profile, point by point: (ε, δ) for one person gives (kε, k e^((k−1)ε) δ) for k
    (Dwork and Roth 2014, Thm. 2.2; Vadhan 2017, Lemma 2.2), with the product taken in log space."""

    _label = "{self.base.label}, for groups of {self.k}"
    _conversion = "group privacy: (kε, k e^((k−1)ε) δ) for k = {self.k} (Vadhan 2017); {self.base.conversion}"

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float) / self.k
        with np.errstate(divide="ignore"):
            log_delta = math.log(self.k) + (self.k - 1) * e + np.log(self.base._deltas(e))
        # A profile decreases, so the bound at ε = 0 holds at every ε (and keeps this one decreasing).
        cap = min(1.0, self.k * float(self.base._deltas(np.array([0.0]))[0]))
        values = np.minimum(np.exp(np.minimum(log_delta, 0.0)), cap)
        pure = self.pure_epsilon
        # A pure base gives kε-DP for the group: its profile caps the point-by-point rule (both hold).
        return (
            values
            if pure is None
            else np.minimum(values, pure_deltas(pure, np.asarray(epsilon, dtype=float)))
        )


MAX_GROUP = 10**10


def group(g: Guarantee, k: int) -> Guarantee:
    """The guarantee for a group of k people (a household) instead of one.

    Pure ε → kε; (ε, δ) → (kε, k e^((k−1)ε) δ); μ-GDP → kμ; ρ-zCDP → k²ρ; a mechanism with sensitivity Δ → the
    same mechanism with sensitivity kΔ (exact); compositions group part by part; any other profile point by
    point. ``conversion`` names the rule.

    Args:
        g: the guarantee for one person.
        k: the group size, a whole number ≥ 1.

    Example:
        >>> group(zcdp(0.5), 3).rho
        4.5
    """
    if not isinstance(g, Guarantee):
        raise PrivriskError(f"g: {g!r} is not a privacy guarantee", param="g")
    size = check_whole(k, name="k", minimum=1)
    if size == 1:
        return g
    if size > MAX_GROUP:  # more people than live on Earth; k²ρ and k·ε would overflow long before
        raise PrivriskError(f"k: a group has at most 10¹⁰ people, got {size:.3g}", param="k")
    exact = g._grouped(size)
    if exact is not None:
        return exact
    if isinstance(g, KovComposition):
        one = pure_dp(g.epsilon) if g.delta == 0 else approximate(g.epsilon, g.delta)
        # Each of the k releases is grouped, then they compose (the composition theorem holds for any pair).
        return compose_parts([(group(one, size), g.k, 1.0)])
    if isinstance(g, PldComposition) and all(rate == 1.0 for _, _, rate in g.parts):
        grouped = [(part._grouped(size), count, rate) for part, count, rate in g.parts]
        # Each release is a mechanism of its own on the same pair of databases: group, then compose.
        if all(part is not None for part, _, _ in grouped):
            return compose_parts([(part, count, rate) for part, count, rate in grouped if part is not None])
    return GroupGuarantee(g, size)
