"""Mechanisms known by what they publish on every pair of neighbours: the exact privacy profile of a finite
family of output distributions, and one pair that dominates them all for composition.

A perturbation table (the cell-key method), a PRAM matrix or randomised rounding is not one pair of distributions
but a family: the published value's distribution P_c on one database and Q_c on its neighbour, for every c the
attacker may face (the true count, the person's category). The attacker knows c (it knows everyone else), so
the guarantee is the worst case over the family, in both orders:

- the privacy profile δ(ε) = max over pairs of Σ_x max(0, P(x) − e^ε Q(x)), exact;
- the trade-off curve β(α) = min over pairs of the Neyman–Pearson curve of each pair, exact for the worst pair
  at every α (Dong, Roth and Su 2022, Prop. 2.2);
- for composition, the pair whose ROC curve is the upper concave hull of all the pairs' ROC curves: its
  trade-off curve is the greatest convex minorant of the family's, so it dominates every pair (Zhu, Dong and
  Wang 2022, Def. 7 and Thm. 10: products of dominating pairs dominate the composition), and its privacy profile
  is the family's exactly (a profile is a supremum of affine functions of the ROC curve, which the hull keeps).

Example:
    >>> g = PairFamily(((np.array([0.75, 0.25]), np.array([0.25, 0.75])),), name="coin")   # randomised response
    >>> round(g.delta_at(0.0), 4), round(g.pure_epsilon, 6) == round(math.log(3), 6)
    (0.5, True)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability, check_whole
from privrisk.accounting._math import dp_accounting_pld, epsilon_from_profile, tradeoff_from_atoms
from privrisk.accounting.guarantees import Guarantee, PrivacyLossDistribution

__all__ = ["PairFamily", "compose_pairs", "dominating_pair", "pair_profile", "unique_pairs"]

Pair = tuple[np.ndarray, np.ndarray]  # (P, Q): probabilities of the same outcomes under the two neighbours
# Probabilities below this are taken as 0 where two tables' rows are compared (a table printed to 8 digits).
_KEY_DIGITS = 14


def unique_pairs(pairs: Iterable[Pair]) -> tuple[Pair, ...]:
    """The distinct pairs of a family, each in both orders, outcomes where both are 0 dropped.

    Pairs that differ only in the order of their outcomes are one pair (privacy depends on the probabilities, not
    on the values published), so a table whose rows repeat for large counts gives a handful of pairs.

    Example:
        >>> len(unique_pairs([(np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5]))] * 3))
        1
    """
    seen: dict[tuple[Any, ...], Pair] = {}
    for p_raw, q_raw in pairs:
        p, q = np.asarray(p_raw, dtype=float), np.asarray(q_raw, dtype=float)
        keep = (p > 0) | (q > 0)
        p, q = p[keep], q[keep]
        for a, b in ((p, q), (q, p)):
            order = np.lexsort((np.round(b, _KEY_DIGITS), np.round(a, _KEY_DIGITS)))
            a, b = a[order], b[order]
            key = (tuple(np.round(a, _KEY_DIGITS)), tuple(np.round(b, _KEY_DIGITS)))
            seen.setdefault(key, (a, b))
    return tuple(seen.values())


def _losses(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """ln(P/Q) per outcome: +∞ where only P can produce it, −∞ where only Q can."""
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log(q)


def pair_profile(epsilon: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """δ(ε) = Σ_x max(0, P(x) − e^ε Q(x)) of one pair, for every ε at once: P(x)(1 − e^(ε − L(x))) summed where
    the loss L = ln(P/Q) exceeds ε (no overflow; an outcome Q cannot produce counts P(x) whole).

    Example:
        >>> pair_profile(np.array([0.0, 1.0]), np.array([0.5, 0.5]), np.array([1.0, 0.0])).tolist()
        [0.5, 0.5]
    """
    e = np.atleast_1d(np.asarray(epsilon, dtype=float))
    loss = _losses(p, q)
    with np.errstate(over="ignore", invalid="ignore"):
        gap = np.where(
            loss[None, :] > e[:, None], -np.expm1(np.minimum(e[:, None] - loss[None, :], 0.0)), 0.0
        )
    return np.clip(gap @ p, 0.0, 1.0)


def _roc_points(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The vertices (α, 1 − β) of a pair's ROC curve: outcomes rejected in order of falling P/Q."""
    order = np.argsort(-_losses(p, q), kind="stable")
    alpha = np.concatenate([[0.0], np.cumsum(q[order])])
    power = np.concatenate([[0.0], np.cumsum(p[order])])
    return np.column_stack([np.minimum(alpha, 1.0), np.minimum(power, 1.0)])


def _upper_hull(points: np.ndarray) -> np.ndarray:
    """The upper concave hull from α = 0 to α = 1 of points in [0, 1]² (Andrew's monotone chain)."""
    pts = np.unique(np.vstack([points, [[0.0, 0.0], [1.0, 1.0]]]), axis=0)
    order = np.lexsort((-pts[:, 1], pts[:, 0]))  # α up; at equal α the highest first
    hull: list[tuple[float, float]] = []
    for a, t in pts[order]:
        if hull and a == hull[-1][0]:
            continue  # a lower point at the same α
        while len(hull) >= 2:
            (a1, t1), (a2, t2) = hull[-2], hull[-1]
            if (a2 - a1) * (t - t1) - (t2 - t1) * (a - a1) >= 0:  # the middle point is on or below the chord
                hull.pop()
            else:
                break
        hull.append((float(a), float(t)))
    return np.array(hull)


def dominating_pair(pairs: Sequence[Pair]) -> Pair:
    """One pair (P, Q) whose ROC curve is the upper concave hull of every pair's: it dominates each of them.

    Its outcomes are the hull's segments: the first carries P's mass at α = 0 (an outcome Q cannot produce, loss
    +∞), each other the rise ΔTPR under P and the run Δα under Q (loss ln(ΔTPR/Δα), falling along the hull).

    Example:
        >>> p, q = dominating_pair([(np.array([0.6, 0.4]), np.array([0.4, 0.6])), (np.array([0.3, 0.7]), np.array([0.0, 1.0]))])
        >>> [round(float(x), 3) for x in p], [round(float(x), 3) for x in q]
        ([0.3, 0.3, 0.4], [0.0, 0.4, 0.6])
    """
    hull = _upper_hull(np.vstack([_roc_points(p, q) for p, q in pairs]))
    steps = np.diff(hull, axis=0)
    first = hull[0, 1]  # TPR at α = 0: what P publishes and Q never does
    rise, run = np.clip(steps[:, 1], 0.0, 1.0), np.clip(steps[:, 0], 0.0, 1.0)
    return np.concatenate([[first], rise]), np.concatenate([[0.0], run])


@dataclass(frozen=True, eq=False)
class PairFamily(Guarantee):
    """The guarantee of a mechanism given by its pairs of neighbouring output distributions (module docstring).

    Subclasses give their pairs by overriding :meth:`_pairs`; this class takes them as given.

    Attributes:
        given_pairs: (P, Q) pairs of probability arrays over the same outcomes.
        name: the label for people.
        source: the conversion's words.
    """

    given_pairs: tuple[Pair, ...] = ()
    name: str = "a mechanism given by its neighbouring output distributions"
    source: str = field(default="exact: the worst of its pairs of neighbouring output distributions")

    def _pairs(self) -> Iterable[Pair]:
        return self.given_pairs

    # A subclass's templates (:class:`Guarantee`) win over the two fields, which describe pairs given as such.
    @property
    def label(self) -> str:
        return self._label.format(self=self) or self.name

    @property
    def conversion(self) -> str:
        return self._conversion.format(self=self) or self.source

    @cached_property
    def family(self) -> tuple[Pair, ...]:
        """The distinct pairs, each in both orders."""
        return unique_pairs(self._pairs())

    @cached_property
    def _floor(self) -> float:
        """δ(∞): the most mass any neighbour puts on outcomes the other cannot produce."""
        return float(max((float(np.sum(p[q == 0])) for p, q in self.family), default=0.0))

    @cached_property
    def _largest_loss(self) -> float:
        finite = [_losses(p, q) for p, q in self.family]
        top = [float(np.max(x[np.isfinite(x)])) for x in finite if np.isfinite(x).any()]
        return max(max(top, default=0.0), 0.0)

    @property
    def pure_epsilon(self) -> float | None:
        """The largest privacy loss when no outcome is impossible under a neighbour (then ε-DP exactly)."""
        return None if self._floor > 0 else self._largest_loss

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float)
        flat = e.ravel()
        out = np.zeros(flat.shape)
        for p, q in self.family:
            out = np.maximum(out, pair_profile(flat, p, q))
        return out.reshape(e.shape)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d < self._floor:
            return math.inf
        return epsilon_from_profile(self._deltas, d, start=max(self._largest_loss, 1e-6))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        a = check_probability(alpha, name="alpha")
        curves = []
        for p, q in self.family:
            with np.errstate(divide="ignore"):
                curves.append(tradeoff_from_atoms(np.asarray(a, dtype=float), np.log(p), np.log(q)))
        return np.minimum.reduce(curves)

    def _delta_floor(self) -> float:
        return self._floor

    def _max_loss(self) -> float:
        return math.inf if self._floor > 0 else self._largest_loss

    def _kinks(self) -> tuple[float, ...]:
        return ()

    def _rdp(self, orders: np.ndarray) -> np.ndarray:
        """max over pairs of D_α(P‖Q) = ln Σ P^α Q^(1−α)/(α − 1) (Mironov 2017, Def. 3), +∞ where Q misses P."""
        a = np.asarray(orders, dtype=float)
        if self._floor > 0:
            return np.full(a.shape, np.inf)
        out = np.zeros(a.shape)
        for p, q in self.family:
            keep = p > 0
            lp, lq = np.log(p[keep]), np.log(q[keep])
            terms = a[:, None] * lp[None, :] + (1.0 - a[:, None]) * lq[None, :]
            out = np.maximum(out, np.logaddexp.reduce(terms, axis=1) / (a - 1.0))
        return np.maximum(out, 0.0)

    @cached_property
    def dominating(self) -> Pair:
        """:func:`dominating_pair` of the family."""
        return dominating_pair(self.family)

    def split(self) -> tuple[float, PairFamily | None]:
        """The dominating pair as a catastrophe and the rest: with probability ω = δ(∞) the neighbours publish
        outcomes the other cannot (told apart for certain), otherwise the conditional pair (P', Q'), which has no
        infinite loss (Kairouz, Oh and Viswanath 2015, Thm. 2.1). None when ω = 1 (nothing is hidden).

        Example:
            >>> g = PairFamily(((np.array([0.5, 0.5]), np.array([1.0, 0.0])),))
            >>> omega, rest = g.split()
            >>> omega, [float(x) for x in rest.given_pairs[0][0]], [float(x) for x in rest.given_pairs[0][1]]   # (0, ½)-DP
            (0.5, [1.0], [1.0])
        """
        p, q = self.dominating
        omega = float(p[0])
        if omega <= 0:
            return 0.0, self
        if omega >= 1.0 - 1e-15:
            return 1.0, None
        finite = (p > 0) & (q > 0)
        finite[0] = False
        rest_p = p[finite] / (1.0 - omega)
        rest_q = q[finite] / (1.0 - omega)
        # The hull is symmetric, so Q's own outcomes carry ω too and Q' sums to 1 but for rounding; a gap beyond
        # rounding stays an outcome of Q' alone (the rest then keeps an infinite loss in the other order).
        missing = max(0.0, 1.0 - float(rest_q.sum()))
        if missing > 1e-9:
            rest_p, rest_q = np.append(rest_p, 0.0), np.append(rest_q, missing)
        rest = PairFamily(
            ((rest_p / rest_p.sum(), rest_q / rest_q.sum()),), name=self.label, source=self.conversion
        )
        return omega, rest

    def compose(self, k: int) -> Guarantee:
        """k copies, through :func:`compose_pairs` (the catastrophes apart, the rest by its loss distribution)."""
        times = check_whole(k, name="k", minimum=1)
        return self if times == 1 else compose_pairs([(self, times)])

    def _pld(self, discretization: float, sampling_prob: float = 1.0) -> PrivacyLossDistribution | None:
        if sampling_prob != 1.0 or self._floor > 0:
            return None
        p, q = self.dominating
        upper = {i: math.log(x) for i, x in enumerate(p) if x > 0}
        lower = {i: math.log(x) for i, x in enumerate(q) if x > 0}
        # The hull's curve is symmetric (the family holds every pair in both orders), so one direction suffices.
        return dp_accounting_pld().from_two_probability_mass_functions(
            lower, upper, value_discretization_interval=discretization
        )

    def _pld_key(self) -> tuple[Any, ...] | None:
        # With an infinite loss (δ(∞) > 0) the loss distribution's finite part vanishes after a few dozen
        # copies, which dp_accounting cannot truncate; such a family composes through compose_pairs instead.
        if self._floor > 0:
            return None
        p, q = self.dominating
        digest = hashlib.sha256(np.round(np.concatenate([p, q]), _KEY_DIGITS).tobytes()).hexdigest()
        return ("pairs", digest)

    def _pld_span(self) -> float:
        p, q = self.dominating
        keep = (p > 0) & (q > 0)
        return max(float(np.max(np.abs(_losses(p[keep], q[keep])), initial=0.0)), 1e-3)


def compose_pairs(parts: Sequence[tuple[PairFamily, int]], *, name: str = "") -> Guarantee:
    """Families of pairs composed (each with its number of copies), exactly as their dominating pairs compose.

    Each dominating pair is a catastrophe of probability ωᵢ and a conditional pair without infinite loss
    (:meth:`PairFamily.split`); the catastrophes compose to 1 − Π(1 − ωᵢ)^kᵢ and the conditional pairs through
    the privacy loss distribution of ``dp_accounting``, joined as δ(ε) = 1 − (1 − δ꜀)(1 − δ′(ε))
    (``CatastropheGuarantee``).

    Example:
        >>> g = PairFamily(((np.array([0.5, 0.5]), np.array([1.0, 0.0])),))
        >>> round(compose_pairs([(g, 3)]).delta_at(50.0), 6)        # 1 − ½³
        0.875
    """
    from privrisk.accounting.composition import CatastropheGuarantee, compose_parts

    log_keep = 0.0
    rests: list[tuple[Guarantee, int, float]] = []
    for family, count in parts:
        omega, rest = family.split()
        if rest is None:  # told apart for certain: so is the composition
            certain = (np.array([1.0, 0.0]), np.array([0.0, 1.0]))
            return PairFamily(
                (certain,), name=name or family.label, source="one of the parts reveals everything"
            )
        log_keep += count * math.log1p(-omega)
        rests.append((rest, count, 1.0))
    inner = compose_parts(rests)
    if log_keep == 0.0:
        return inner
    return CatastropheGuarantee(inner, -math.expm1(log_keep), name=name)
