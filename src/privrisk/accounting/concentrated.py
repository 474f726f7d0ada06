"""Rényi-family guarantees: zero-concentrated DP (ρ-zCDP) and Rényi DP at finitely many orders.

Both bound Rényi divergences rather than the hockey-stick divergence. Their trade-off curves come straight from
the Rényi curve, not through an (ε, δ) profile: at each order α the smallest type II error β whose two-point
pair (type I error a, type II error β) keeps both Rényi divergences of that order within ε_α is the exact
trade-off curve of that single order (Zhu, Dong and Wang 2022, App. F.1; Balle et al. 2020, §4; the
conversion ``riskcal`` computes), and the curve of the guarantee is the largest of these over the orders
(:func:`renyi_tradeoff`). The TPR at an FPR and the advantage δ(0) (:func:`renyi_advantage`, exact at its
fixed point) are read off that curve. The privacy profile δ(ε) is the smaller of two upper bounds, both valid:
the curve's own profile sup_a (1 − e^ε a − β(a)), tabulated once per guarantee (:func:`renyi_profile`, within
about 0.5 % of it; :func:`renyi_delta` computes it exactly at one ε), and the closed forms: zCDP with Canonne,
Kamath and Steinke (2020), Prop. 12 / Cor. 13 (the conversion OpenDP's ``make_zCDP_to_approxDP`` computes, kept
as :func:`zcdp_deltas` and :func:`zcdp_epsilon`), Rényi DP with Balle et al. (2020), Thm. 21, and Pinsker's
inequality δ(0) ≤ √(KL/2). ε(δ) inverts that profile, so it is never above the closed forms; they agree to
about 10⁻⁵ at small δ, and the curve is tighter at large δ.

Example:
    >>> round(zcdp(2.63).epsilon_at(1e-10), 3)            # the US Census Bureau's 2020 redistricting data
    17.431
    >>> round(zcdp(0.5).delta_at(0.0), 4)                 # the advantage; riskcal: 0.4791
    0.4791
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability
from privrisk.accounting._math import epsilon_from_profile
from privrisk.accounting.guarantees import Guarantee, check_positive, fmt
from privrisk.errors import PrivriskError

__all__ = [
    "RenyiDP",
    "ZeroConcentratedDP",
    "pinsker_delta",
    "rdp_log_deltas",
    "renyi_advantage",
    "renyi_delta",
    "renyi_dp",
    "renyi_epsilon",
    "renyi_profile",
    "renyi_tradeoff",
    "zcdp",
    "zcdp_deltas",
    "zcdp_epsilon",
]

# Orders at which a zCDP curve ε_α = αρ is read: α = 1 (KL ≤ ρ) and 160 orders from 1 + 10⁻⁴ to 10⁴; the best of
# them is then refined between its neighbours (golden section), where ε_α is known for every α.
ZCDP_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-4, 1e4, 160)])
LOG_FLOOR = -800.0  # a logit below −745: the probability is 0 in double precision
COARSE_STEPS, FINE_STEPS, GOLDEN_STEPS = 20, 72, 24
KEEP_ORDERS = 6  # orders refined after the coarse pass (every order whose bracket can hold the largest β)
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


# --------------------------------------------------------------------------------- Rényi curve → trade-off curve
def _meets_order(
    s: np.ndarray, la: np.ndarray, l1a: np.ndarray, lam: np.ndarray, eps: np.ndarray
) -> np.ndarray:
    """Whether β = expit(s), at type I error a = e^la (l1a = ln(1 − a)), keeps both Rényi divergences of order λ
    between the two-point distributions (1 − a, a) and (β, 1 − β) within ε (Zhu, Dong and Wang 2022, App. F.1):

    (1 − a)^(1−λ) β^λ + a^(1−λ) (1 − β)^λ ≤ e^((λ−1)ε) and (1 − a)^λ β^(1−λ) + a^λ (1 − β)^(1−λ) ≤ e^((λ−1)ε),

    both in log space, with β given by its logit so that β near 0 and near 1 are both resolved; at λ = 1 the
    two Kullback–Leibler divergences ≤ ε.
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        t, l1b = -np.logaddexp(0.0, -s), -np.logaddexp(0.0, s)  # ln β, ln(1 − β)
        first = np.logaddexp((1.0 - lam) * l1a + lam * t, (1.0 - lam) * la + lam * l1b)
        second = np.logaddexp(lam * l1a + (1.0 - lam) * t, lam * la + (1.0 - lam) * l1b)
        # The rounding of the sums is taken off the left side, so that a point on the edge counts as inside: the
        # smallest β inside is then never above the exact one (the safe side), also near λ = 1, where the bound
        # (λ − 1)ε is tiny beside the terms.
        size = np.abs(lam) * (np.abs(t) + np.abs(l1b) + np.abs(la) + np.abs(l1a)) + 1.0
        ok = np.maximum(first, second) - 8e-16 * size <= (lam - 1.0) * eps
        kl = lam == 1.0
        if np.any(kl):
            b, b1, a, a1 = np.exp(t), np.exp(l1b), np.exp(la), np.exp(l1a)
            forward = b * (t - l1a) + b1 * (l1b - la)
            backward = a * (la - l1b) + a1 * (l1a - t)
            slack = 8e-16 * (np.abs(t) + np.abs(l1b) + np.abs(la) + np.abs(l1a) + 1.0)
            ok = np.where(kl, np.maximum(forward, backward) - slack <= eps, ok)
    return np.asarray(ok)


def _order_brackets(
    la: np.ndarray, l1a: np.ndarray, lam: np.ndarray, eps: np.ndarray, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bisection on logit β for the smallest β that meets one order: (lo, hi), lo below it and hi above it.

    It starts from β = 1 − a (always inside) and from the second constraint's first term alone,
    β ≥ (1 − a)^(λ/(λ−1)) e^(−ε); at λ = 1 from ln β ≥ ln(1 − a) − (ε − a ln a)/(1 − a), what the backward
    divergence alone allows.
    """
    shape = np.broadcast_shapes(la.shape, lam.shape, eps.shape)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        lam2 = np.where(lam == 1.0, 2.0, lam)
        kl_start = l1a - (eps - np.exp(la) * la) / np.exp(l1a)
        start = np.where(lam == 1.0, kl_start, l1a * lam2 / (lam2 - 1.0) - eps)  # ln β
        start = np.maximum(np.nan_to_num(start, nan=-np.inf), LOG_FLOOR)
        start = start - np.log(-np.expm1(np.minimum(start, -1e-300)))  # as a logit
    lo = np.broadcast_to(np.maximum(start, LOG_FLOOR), shape)
    hi = np.broadcast_to(l1a - la, shape).astype(float)
    lo = np.minimum(lo, hi)
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        ok = _meets_order(mid, la, l1a, lam, eps)
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    return lo, hi


def renyi_tradeoff(
    alpha: np.ndarray,
    orders: np.ndarray,
    rdp: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    refine_steps: int = GOLDEN_STEPS,
) -> np.ndarray:
    """β(a): the trade-off curve implied by (λ, ε_λ)-Rényi DP at every given order, the largest over the orders
    of each order's exact curve (Zhu, Dong and Wang 2022, App. F.1; Balle et al. 2020, §4), vectorised.

    Each order's β is found by bisection on logit β and its lower end kept, so the curve lies on the safe side
    (below) of the exact one; a finite set of orders errs the same way. A coarse pass over every order picks the
    few that can hold the largest β (the best and its neighbours, and those with the highest upper ends), which
    are then solved to the last bit. With ``curve`` (ε_λ for any λ), the best order is refined between its
    neighbours by golden section. Composition can call this for any Rényi curve.

    Args:
        alpha: type I errors a in [0, 1].
        orders: the orders λ ≥ 1, increasing (1 is the Kullback–Leibler divergence).
        rdp: ε_λ at each order.
        curve: ε_λ as a function of λ, where it is known between the orders (zCDP: λρ).
        refine_steps: the golden-section steps of that refinement.

    Returns:
        β(a), in [0, 1 − a], the shape of ``alpha``.

    Example:
        >>> orders = np.array([2.0, 8.0, 32.0])
        >>> renyi_tradeoff(np.array([0.0, 1.0]), orders, 0.5 * orders).tolist()
        [1.0, 0.0]
        >>> round(float(renyi_tradeoff(np.array([0.1]), ZCDP_ORDERS, 0.5 * ZCDP_ORDERS, lambda x: 0.5 * x)[0]), 4)
        0.5163
    """
    a = np.asarray(alpha, dtype=float)
    flat = a.ravel()
    out = np.where(flat > 0, 0.0, 1.0)
    inner = (flat > 0) & (flat < 1)
    if inner.any():
        ai = flat[inner][:, None]
        la, l1a = np.log(ai), np.log1p(-ai)
        lam = np.asarray(orders, dtype=float)[None, :]
        eps = np.asarray(rdp, dtype=float)[None, :]
        lo, hi = _order_brackets(la, l1a, lam, eps, COARSE_STEPS)
        coarse = lo.max(axis=1)
        rows = np.arange(lo.shape[0])[:, None]
        near = np.clip(np.argmax(lo + hi, axis=1)[:, None] + np.arange(-3, 4)[None, :], 0, lam.shape[1] - 1)
        keep = np.concatenate([near, np.argsort(-hi, axis=1)[:, :KEEP_ORDERS]], axis=1)
        if lam[0, 0] == 1.0:  # the Kullback–Leibler order, nearly tied with the orders just above it
            keep = np.concatenate([np.zeros((keep.shape[0], 1), dtype=keep.dtype), keep], axis=1)
        lam_k = np.broadcast_to(lam, hi.shape)[rows, keep]
        eps_k = np.broadcast_to(eps, hi.shape)[rows, keep]
        fine, _ = _order_brackets(la, l1a, lam_k, eps_k, FINE_STEPS)
        best = np.maximum(fine.max(axis=1), coarse)
        if curve is not None:
            best = np.maximum(best, _refined(la, l1a, lam[0], fine, lam_k, curve, refine_steps))
        # Less a few units in the last place, for the rounding of the logit's conversion (the safe side).
        out[inner] = np.exp(-np.logaddexp(0.0, -best)) * (1.0 - 2.0**-46)
    return np.clip(out, 0.0, 1.0 - flat).reshape(a.shape)


def _refined(
    la: np.ndarray,
    l1a: np.ndarray,
    grid: np.ndarray,
    fine: np.ndarray,
    lam_k: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray],
    steps: int = GOLDEN_STEPS,
) -> np.ndarray:
    """logit β at the best order between the grid's neighbours of the best grid order, by golden section on λ."""
    top = lam_k[np.arange(lam_k.shape[0]), np.argmax(fine, axis=1)]
    index = np.searchsorted(grid, top)
    left = grid[np.maximum(index - 1, 0)][:, None]
    right = grid[np.minimum(index + 1, grid.size - 1)][:, None]

    def value(order: np.ndarray) -> np.ndarray:  # logit β at that order
        return _order_brackets(la, l1a, order, curve(order), FINE_STEPS)[0]

    x1, x2 = right - GOLDEN * (right - left), left + GOLDEN * (right - left)
    f1, f2 = value(x1), value(x2)
    best = np.maximum(f1, f2)
    for _ in range(steps):  # one new order per step: the other inner point is kept
        move = f1 < f2  # the maximum lies right of x1
        left, right = np.where(move, x1, left), np.where(move, right, x2)
        new = np.where(move, left + GOLDEN * (right - left), right - GOLDEN * (right - left))
        f_new = value(new)
        x1, f1, x2, f2 = (
            np.where(move, x2, new),
            np.where(move, f2, f_new),
            np.where(move, new, x1),
            np.where(move, f_new, f1),
        )
        best = np.maximum(best, f_new)
    return best[:, 0]


def renyi_advantage(
    orders: np.ndarray, rdp: np.ndarray, curve: Callable[[np.ndarray], np.ndarray] | None = None
) -> float:
    """The advantage max_a (1 − a − β(a)) = δ(0) of the trade-off curve of :func:`renyi_tradeoff`: 1 − 2a* at its
    fixed point a* = β(a*), since each order's curve is symmetric and convex (so is their maximum).

    The fixed point of each order is the smallest a with (a, a) inside its region, by bisection on logit a; the
    largest over the orders is the curve's, and its lower end is taken (a larger advantage: the safe side).

    Example:
        >>> round(renyi_advantage(ZCDP_ORDERS, 0.5 * ZCDP_ORDERS, lambda x: 0.5 * x), 4)   # riskcal: 0.4791
        0.4791
    """
    lam = np.asarray(orders, dtype=float)
    eps = np.asarray(rdp, dtype=float)

    def lower_ends(lam: np.ndarray, eps: np.ndarray) -> np.ndarray:
        lo, hi = np.full(lam.shape, LOG_FLOOR), np.zeros(lam.shape)  # logit a*
        for _ in range(FINE_STEPS):
            mid = 0.5 * (lo + hi)
            ok = _meets_order(mid, -np.logaddexp(0.0, -mid), -np.logaddexp(0.0, mid), lam, eps)
            hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
        return lo

    ends = lower_ends(lam, eps)
    best = float(ends.max())
    if curve is not None and lam.size > 1:
        i = int(np.argmax(ends))
        left, right = lam[max(i - 1, 0)], lam[min(i + 1, lam.size - 1)]
        points = np.linspace(left, right, 257)
        best = max(best, float(lower_ends(points, curve(points)).max()))
    return float(np.clip(1.0 - 2.0 * float(np.exp(-np.logaddexp(0.0, -best))), 0.0, 1.0))


def _best_type_one_error(
    objective: Callable[[np.ndarray, np.ndarray], np.ndarray],
    orders: np.ndarray,
    rdp: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray] | None,
) -> float:
    """max over a in (0, ½] of objective(ln a, β(a)), unimodal in ln a: a scan of 241 points on ln a (the objective
    is flat far out, where golden section alone would stray), then golden section between the best point's
    neighbours, then the value at the best a with the refined curve."""
    grid = np.linspace(-745.0, math.log(0.5), 241)
    values = objective(grid, renyi_tradeoff(np.exp(grid), orders, rdp))
    i = int(np.argmax(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]

    def at(u: float) -> float:
        point = np.array([u])
        return float(objective(point, renyi_tradeoff(np.exp(point), orders, rdp))[0])

    x1, x2 = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    f1, f2 = at(x1), at(x2)
    for _ in range(GOLDEN_STEPS):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + GOLDEN * (hi - lo)
            f2 = at(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - GOLDEN * (hi - lo)
            f1 = at(x1)
    best = np.array([x1 if f1 >= f2 else x2])
    return float(objective(best, renyi_tradeoff(np.exp(best), orders, rdp, curve))[0])


def renyi_profile(
    orders: np.ndarray,
    rdp: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    top: float = 50.0,
) -> Callable[[np.ndarray], np.ndarray]:
    """δ(ε) ≥ sup_a (1 − e^ε a − β(a)) of the trade-off curve of :func:`renyi_tradeoff`, for arrays of ε at once:
    an upper bound built once and then read by interpolation: for ρ = 0.3-zCDP about 0.2 % above it at ε ≤ 1,
    0.4 % at ε = 2 and 0.6 % at ε = 4, where the closed forms are as tight (the classes take the smaller).

    The curve is computed at 600 points a (logit a from −40 to 0); on each cell between two of them it lies above
    the larger of the two chords' extensions from the neighbouring cells (it is convex), so the most δ any a of
    the cell can give is at a cell end or where those two lines cross. That bounds δ at 400 values of ε up to
    ``top`` (at most 700); between them the chord in e^ε is taken, which lies above δ because δ is convex in e^ε
    (a supremum of functions linear in e^ε). Beyond ``top`` the bound is δ(top).

    Example:
        >>> profile = renyi_profile(ZCDP_ORDERS, 0.3 * ZCDP_ORDERS, lambda x: 0.3 * x, top=10.0)
        >>> exact = renyi_delta(1.0, ZCDP_ORDERS, 0.3 * ZCDP_ORDERS, lambda x: 0.3 * x)
        >>> 0 <= float(profile(np.array([1.0]))[0]) - exact < 2e-3 * exact
        True
    """
    grid = np.linspace(-40.0, 0.0, 600)
    a = 1.0 / (1.0 + np.exp(-grid))
    f = renyi_tradeoff(a, orders, rdp, curve, refine_steps=12)
    points, values = np.concatenate([[0.0], a, [1.0]]), np.concatenate([[1.0], f, [0.0]])
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        slopes = np.diff(values) / np.diff(points)
        k = np.arange(1, points.size - 2)
        left, right = slopes[k - 1], slopes[k + 1]  # cell k = [points[k], points[k + 1]]
        cross = (values[k] - values[k + 1] + right * points[k + 1] - left * points[k]) / (right - left)
        inside = np.isfinite(cross) & (cross > points[k]) & (cross < points[k + 1])
        line = values[k] + left * (cross - points[k])
        # The cell [0, a₀]: the right chord's extension at 0.
        first = min(1.0, values[1] - slopes[1] * points[1])
        log_a = np.log(np.concatenate([[0.0], a, cross[inside]]))
        cf = np.concatenate([[first], f, line[inside]])
        top = min(max(float(top), 1e-3), 700.0)
        epsilons = np.linspace(0.0, top, 400)
        gain = 1.0 - np.exp(epsilons[:, None] + log_a[None, :]) - cf[None, :]
    table = np.minimum.accumulate(np.clip(gain.max(axis=1), 0.0, 1.0))
    x = np.exp(epsilons)

    def deltas(epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float)
        return np.interp(np.exp(np.clip(e, 0.0, top)), x, table)

    return deltas


def renyi_delta(
    epsilon: float,
    orders: np.ndarray,
    rdp: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray] | None = None,
) -> float:
    """δ(ε) = sup_a (1 − e^ε a − β(a)) of the trade-off curve of :func:`renyi_tradeoff` (Dong, Roth and Su 2022,
    Prop. 2.12); the objective is concave in a and its maximum lies left of the fixed point; δ(0) is
    :func:`renyi_advantage`.

    Example:
        >>> round(renyi_delta(1.0, ZCDP_ORDERS, 0.5 * ZCDP_ORDERS, lambda x: 0.5 * x), 4)
        0.2149
    """
    if epsilon <= 0:
        return renyi_advantage(orders, rdp, curve)

    def gain(u: np.ndarray, beta: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return 1.0 - np.exp(epsilon + u) - beta

    return float(np.clip(_best_type_one_error(gain, orders, rdp, curve), 0.0, 1.0))


def renyi_epsilon(
    delta: float, orders: np.ndarray, rdp: np.ndarray, curve: Callable[[np.ndarray], np.ndarray] | None = None
) -> float:
    """ε(δ) = sup_a ln((1 − δ − β(a))/a), the least ε whose (ε, δ) curve lies below the trade-off curve of
    :func:`renyi_tradeoff` (the curve is symmetric, so one side suffices); the ratio of a concave function to a
    linear one is unimodal in a.

    Example:
        >>> round(renyi_epsilon(1e-6, ZCDP_ORDERS, 0.5 * ZCDP_ORDERS, lambda x: 0.5 * x), 3)
        5.221
    """

    def ratio(u: np.ndarray, beta: np.ndarray) -> np.ndarray:
        rest = 1.0 - delta - beta
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rest > 0, np.log(np.maximum(rest, 1e-300)) - u, -np.inf)

    return max(0.0, _best_type_one_error(ratio, orders, rdp, curve))


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
        a = 1.0 + math.exp(t)  # a − 1 = e^t exactly, also where 1 + e^t rounds to 1
        return a * rho + (t - math.log(a)) - (log_delta + math.log(a)) / math.exp(t)

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

    _label = "ρ = {self.rho:.4g} (zero-concentrated differential privacy)"
    _conversion = (
        "zCDP → f-DP: the exact trade-off curve of each Rényi order, the best order "
        "(Zhu, Dong and Wang 2022); δ(ε) that curve's or Canonne, Kamath and Steinke (2020), the smaller"
    )

    def _curve(self, orders: np.ndarray) -> np.ndarray:
        return np.asarray(orders, dtype=float) * self.rho

    @cached_property
    def _advantage(self) -> float:
        """δ(0) of the trade-off curve (:func:`renyi_advantage`), the bound on δ(ε) at every ε."""
        return renyi_advantage(ZCDP_ORDERS, self._curve(ZCDP_ORDERS), self._curve)

    @cached_property
    def _tight(self) -> Callable[[np.ndarray], np.ndarray]:
        top = zcdp_epsilon(self.rho, 1e-16) if self.rho < 1e6 else 700.0
        return renyi_profile(ZCDP_ORDERS, self._curve(ZCDP_ORDERS), self._curve, top=top)

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        # The smaller of the closed form and the trade-off curve's own profile (built on first use), with the
        # exact δ(0); one profile for delta_at and composition alike.
        e = np.asarray(epsilon, dtype=float)
        closed = np.minimum(zcdp_deltas(self.rho, e), self._advantage)
        if not np.any(e > 0):
            return closed
        return np.where(e > 0, np.minimum(closed, self._tight(e)), closed)

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        if d == 0:
            return math.inf
        if d >= min(pinsker_delta(self.rho), self._advantage):
            return 0.0
        # The inverse of the profile (the smaller of the two bounds), so delta_at and epsilon_at agree; it is
        # never above the closed form ε(δ) of Canonne, Kamath and Steinke.
        closed = zcdp_epsilon(self.rho, d)
        return min(closed, epsilon_from_profile(self._deltas, d, start=max(closed, 1e-6)))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) straight from the Rényi curve αρ (:func:`renyi_tradeoff`), not through the (ε, δ) profile."""
        a = check_probability(alpha, name="alpha")
        return renyi_tradeoff(a, ZCDP_ORDERS, self._curve(ZCDP_ORDERS), self._curve)

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

    _conversion = (
        "RDP → f-DP: the exact trade-off curve of each order, the best order (Zhu, Dong and Wang 2022); "
        "δ(ε) that curve's or Balle et al. (2020), the smaller"
    )

    @cached_property
    def _curve(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.orders, dtype=float), np.asarray(self.epsilons, dtype=float)

    @cached_property
    def _advantage(self) -> float:
        """δ(0) of the trade-off curve (:func:`renyi_advantage`), the bound on δ(ε) at every ε."""
        return renyi_advantage(*self._curve)

    @cached_property
    def _tight(self) -> Callable[[np.ndarray], np.ndarray]:
        return renyi_profile(*self._curve, top=self._closed_epsilon(1e-16))

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        # The smaller of Balle et al.'s closed form (with Pinsker and the exact δ(0)) and the trade-off curve's
        # own profile (built on first use); one profile for delta_at and composition alike.
        orders, rdp = self._curve
        e = np.asarray(epsilon, dtype=float)
        log_delta = rdp_log_deltas(orders, rdp, e.ravel()).reshape(e.shape)
        cap = min(pinsker_delta(float(rdp.min())), self._advantage)
        closed = np.minimum(np.exp(np.minimum(log_delta, 0.0)), cap)
        if not np.any(e > 0):
            return closed
        return np.where(e > 0, np.minimum(closed, self._tight(e)), closed)

    def _closed_epsilon(self, delta: float) -> float:
        """Balle et al. (2020), Thm. 21: ε = ε_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), the best order."""
        orders, rdp = self._curve
        eps = (
            rdp + np.log(orders - 1.0) - np.log(orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
        )
        return max(0.0, float(eps.min()))

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        rdp = self._curve[1]
        if d == 0:
            return math.inf
        if d >= min(pinsker_delta(float(rdp.min())), self._advantage):
            return 0.0
        # The inverse of the profile (the smaller of the two bounds), so delta_at and epsilon_at agree.
        closed = self._closed_epsilon(d)
        return min(closed, epsilon_from_profile(self._deltas, d, start=max(closed, 1e-6)))

    def tradeoff(self, alpha: ArrayLike) -> np.ndarray:
        """β(α) straight from the Rényi curve (:func:`renyi_tradeoff`), not through the (ε, δ) profile."""
        return renyi_tradeoff(check_probability(alpha, name="alpha"), *self._curve)

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
        1.605
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
