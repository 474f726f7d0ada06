"""Numerics shared by the accounting modules: stable logistic and Gaussian functions, envelopes and inverses.

Nothing here imports scipy at module level: the normal distribution's functions import ``scipy.special`` when
they are first called, so pure ε and (ε, δ) stay free of scipy (``privrisk risk`` starts fast).

Example:
    >>> float(expit(np.array(800.0)))
    1.0
    >>> round(float(tradeoff_envelope(np.array([0.0]), np.array([0.5]), np.array([0.25]))[0]), 4)
    0.75
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "BISECTION_STEPS",
    "amplified_epsilon",
    "dp_accounting_pld",
    "epsilon_from_profile",
    "expit",
    "grid_profile",
    "log_binomial",
    "log_norm_cdf",
    "norm_cdf",
    "norm_ppf",
    "poisson_subsampled_rdp",
    "profile_from_atoms",
    "tradeoff_envelope",
    "tradeoff_from_atoms",
    "tradeoff_from_loss",
    "without_replacement_rdp",
]

BISECTION_STEPS = 200
# Beyond this ε every profile we know is 0 to double precision; a larger answer is reported as math.inf.
EPSILON_CEILING = 1e7


def expit(x: np.ndarray) -> np.ndarray:
    """1/(1 + e^(−x)) without overflow for either sign (scipy's expit, written here to keep scipy away)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def dp_accounting_pld(module: str = "privacy_loss_distribution") -> Any:
    """A module of ``dp_accounting.pld``, imported on first use (dp_accounting ships no type information)."""
    return importlib.import_module(f"dp_accounting.pld.{module}")


def mechanism_pld(
    mechanism: str, sensitivity: float, discretization: float, sampling_prob: float = 1.0
) -> Any:
    """dp_accounting's privacy loss distribution of the ``"laplace"`` or ``"gaussian"`` mechanism at scale 1.

    Each distribution depends on sensitivity/scale alone (ε = Δ/b, μ = Δ/σ), so scale 1 with that ratio as the
    sensitivity keeps a guarantee's cache key and its distribution in step.
    """
    pld = dp_accounting_pld()
    make = pld.from_laplace_mechanism if mechanism == "laplace" else pld.from_gaussian_mechanism
    return make(
        1.0,
        sensitivity=sensitivity,
        value_discretization_interval=discretization,
        sampling_prob=sampling_prob,
    )


def norm_cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x), the standard normal distribution function."""
    from scipy.special import ndtr

    return np.asarray(ndtr(x), dtype=float)


def log_norm_cdf(x: np.ndarray) -> np.ndarray:
    """ln Φ(x), accurate far in the lower tail where Φ itself underflows."""
    from scipy.special import log_ndtr

    return np.asarray(log_ndtr(x), dtype=float)


def norm_ppf(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹(p) (−∞ at 0, +∞ at 1)."""
    from scipy.special import ndtri

    return np.asarray(ndtri(p), dtype=float)


def tradeoff_envelope(alpha: np.ndarray, epsilons: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """β(α) = sup_ε max(0, 1 − δ(ε) − e^ε α, e^(−ε)(1 − δ(ε) − α)) over the given points of a privacy profile.

    Dong, Roth and Su (2022), Prop. 2.12: a mechanism that is (ε, δ(ε))-DP for every ε is f-DP for the upper
    envelope of the trade-off curves f_(ε, δ(ε)); with finitely many ε the envelope lies below the true curve,
    which errs on the side of more risk. The product e^ε α is taken in log space, so ε = 10⁴ does not overflow.
    """
    a = np.asarray(alpha, dtype=float)
    flat = a.ravel()
    eps = np.asarray(epsilons, dtype=float).ravel()
    rest = 1.0 - np.asarray(deltas, dtype=float).ravel()
    out = np.zeros(flat.shape, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_a = np.log(flat)
        chunk = max(1, 2_000_000 // max(eps.size, 1))
        for start in range(0, flat.size, chunk):
            la = log_a[start : start + chunk, None]
            al = flat[start : start + chunk, None]
            first = rest[None, :] - np.exp(eps[None, :] + la)
            second = np.exp(-eps[None, :]) * (rest[None, :] - al)
            best = np.maximum(first, second).max(axis=1)
            out[start : start + chunk] = np.maximum(best, 0.0)
    return np.clip(out, 0.0, 1.0 - flat).reshape(a.shape)


def epsilon_from_profile(
    deltas: Callable[[np.ndarray], np.ndarray], delta: float, *, start: float = 1.0
) -> float:
    """The smallest ε with δ(ε) ≤ δ for a profile that decreases in ε, by doubling and bisection.

    Returns the upper end of the final bracket, so δ(ε) ≤ δ holds at the returned ε (never an optimistic ε);
    ``math.inf`` when no ε up to 10⁷ reaches δ.
    """

    def at(e: float) -> float:
        return float(deltas(np.array([e]))[0])

    if at(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, max(start, 1e-6)
    while at(hi) > delta:
        lo, hi = hi, hi * 2.0
        if hi > EPSILON_CEILING:
            return math.inf
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if at(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def profile_from_atoms(epsilon: np.ndarray, log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """δ(ε) = Σ_x max(0, P(x) − e^ε Q(x)) for a pair of discrete distributions given by ln P and ln Q.

    Each term is P(x)(1 − e^(ε − L(x))) with the privacy loss L = ln P − ln Q, summed only where L > ε, so
    nothing overflows and no term is negative.
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    loss = log_p - log_q
    p = np.exp(log_p)
    out = np.empty(eps.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        for i, e in enumerate(eps.ravel()):
            mask = loss > e
            out.flat[i] = float(np.sum(p[mask] * -np.expm1(e - loss[mask])))
    return np.clip(out, 0.0, 1.0)


def tradeoff_from_atoms(alpha: np.ndarray, log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """The exact trade-off curve of a pair of discrete distributions (Neyman–Pearson with randomisation).

    The most powerful tests reject the outcomes of largest likelihood ratio P/Q first; between two such tests
    the curve is linear (randomising on the boundary): Dong, Roth and Su (2022), Prop. 2.2. The pairs used here
    (discrete Laplace and Gaussian noise, binomial counts) are symmetric, so this curve is its own inverse.
    Mass of Q that the atoms miss (outcomes P cannot produce) is rejected last, at no gain in power.
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(np.isneginf(log_q), np.inf, log_p - log_q)
    order = np.argsort(-loss, kind="stable")
    with np.errstate(over="ignore", under="ignore"):
        # An outcome Q can produce keeps a positive mass even where e^(ln Q) underflows (50 releases of ε = 50:
        # Q = e^(−2500)): at α = 0 no test may reject it, so pure ε-DP keeps TPR(0) = 0 (Dong, Roth and Su 2022,
        # eq. (5)); 5·10⁻³²⁴ moves no other α by more than double precision can tell.
        mass_q = np.where(np.isneginf(log_q), 0.0, np.maximum(np.exp(log_q), 5e-324))
        q = np.concatenate([[0.0], np.cumsum(np.minimum(mass_q[order], 1.0))])
        p = np.concatenate([[0.0], np.cumsum(np.exp(log_p[order]))])
    q, p = np.minimum(q, 1.0), np.minimum(p, 1.0)
    q, p = np.concatenate([q, [1.0]]), np.concatenate([p, [1.0]])
    last = np.concatenate([q[1:] != q[:-1], [True]])  # the most powerful test at each α
    return np.clip(1.0 - np.interp(a, q[last], p[last]), 0.0, 1.0 - a)


def tradeoff_from_loss(
    alpha: np.ndarray, losses: np.ndarray, probs: np.ndarray, infinity_mass: float
) -> np.ndarray:
    """The trade-off curve of a privacy loss distribution: losses ℓ with masses ω under P, plus the mass of
    ℓ = +∞; Q puts ω e^(−ℓ) on each loss (in log space, so ℓ = −2,000 does not overflow)."""
    keep = probs > 0
    with np.errstate(divide="ignore"):
        log_p = np.log(probs[keep])
    log_p = np.concatenate([[math.log(infinity_mass) if infinity_mass > 0 else -np.inf], log_p])
    log_q = np.concatenate([[-np.inf], log_p[1:] - losses[keep]])
    return tradeoff_from_atoms(alpha, log_p, log_q)


def amplified_epsilon(epsilon: float, rate: float) -> float:
    """ln(1 + γ(e^ε − 1)), the ε of an ε-DP mechanism run on a sample of rate γ (Balle, Barthe and Gaboardi
    2018, Thm. 8 and 9), without overflow: ε + ln(γ + (1 − γ)e^(−ε)) once e^ε is large.

    Example:
        >>> round(amplified_epsilon(800.0, 0.5), 6)     # 800 + ln ½
        799.306853
    """
    if rate >= 1.0:
        return epsilon
    if epsilon <= 1.0:
        return math.log1p(rate * math.expm1(epsilon))
    return epsilon + math.log(rate + (1.0 - rate) * math.exp(-epsilon))


def log_binomial(n: np.ndarray | float, k: np.ndarray | float) -> np.ndarray:
    """ln C(n, k) by the log-gamma function, for whole n ≥ k ≥ 0 (arrays broadcast)."""
    from scipy.special import gammaln

    n_, k_ = np.asarray(n, dtype=float), np.asarray(k, dtype=float)
    return np.asarray(gammaln(n_ + 1.0) - gammaln(k_ + 1.0) - gammaln(n_ - k_ + 1.0), dtype=float)


# Rényi orders above this are not amplified by the general bounds (their sums grow like the order).
LARGEST_AMPLIFIED_ORDER = 256


def _integer_orders(orders: np.ndarray) -> np.ndarray:
    """⌈α⌉ for every order (Rényi divergence grows with the order, so the bound at ⌈α⌉ holds at α)."""
    return np.ceil(np.asarray(orders, dtype=float) - 1e-12).astype(int)


def poisson_subsampled_rdp(
    rdp: Callable[[np.ndarray], np.ndarray], rate: float, orders: np.ndarray
) -> np.ndarray:
    """Rényi DP of any mechanism run on a Poisson sample of rate γ (add or remove one record).

    Zhu and Wang (2019), Thm. 6, the general upper bound at integer α ≥ 2: ε′(α) ≤ ln((1 − γ)^(α−1)(αγ − γ + 1)
    + C(α, 2)γ²(1 − γ)^(α−2) e^(ε(2)) + 3 Σ_(ℓ=3..α) C(α, ℓ)(1 − γ)^(α−ℓ) γ^ℓ e^((ℓ−1)ε(ℓ)))/(α − 1), summed in
    log space; never above ε(α) itself (the sampled mechanism is a mixture). Fractional orders take the bound of
    ⌈α⌉; orders above 256 get +∞ (no bound).

    Args:
        rdp: ε(α) of the mechanism on the sample, at an array of integer orders.
        rate: γ in (0, 1).
        orders: the orders α > 1.
    """
    a = np.asarray(orders, dtype=float)
    whole = np.maximum(_integer_orders(a), 2)
    top = int(min(whole.max(initial=2), LARGEST_AMPLIFIED_ORDER))
    levels = np.arange(2, top + 1, dtype=float)
    base = np.asarray(rdp(levels), dtype=float)
    log_g, log_1g = math.log(rate), math.log1p(-rate)
    out = np.full(a.shape, np.inf)
    for i, alpha in enumerate(whole.ravel()):
        if alpha > top:
            continue
        ell = levels[: alpha - 1]  # 2 … α
        terms = (
            log_binomial(alpha, ell) + (alpha - ell) * log_1g + ell * log_g + (ell - 1.0) * base[: alpha - 1]
        )
        terms[1:] += math.log(3.0)
        first = (alpha - 1) * log_1g + math.log1p((alpha - 1) * rate)
        log_sum = np.logaddexp.reduce(np.concatenate([[first], terms]))
        out.flat[i] = min(max(float(log_sum), 0.0) / (alpha - 1), float(base[alpha - 2]))
    return out


def without_replacement_rdp(
    rdp: Callable[[np.ndarray], np.ndarray], rate: float, orders: np.ndarray, pure: float | None = None
) -> np.ndarray:
    """Rényi DP of any mechanism run on a sample of a fraction γ drawn without replacement (replace one record).

    Wang, Balle and Kasiviswanathan (2019), Thm. 9 at integer α ≥ 2: ε′(α) ≤ ln(1 + γ²C(α, 2) min(4(e^(ε(2)) − 1),
    e^(ε(2)) min(2, (e^(ε(∞)) − 1)²)) + Σ_(j=3..α) γ^j C(α, j) e^((j−1)ε(j)) min(2, (e^(ε(∞)) − 1)^j))/(α − 1),
    with ε(∞) the pure ε where known; the same bound dp_accounting uses for the Gaussian. Fractional orders take
    the bound of ⌈α⌉; orders above 256 get +∞.
    """
    a = np.asarray(orders, dtype=float)
    whole = np.maximum(_integer_orders(a), 2)
    top = int(min(whole.max(initial=2), LARGEST_AMPLIFIED_ORDER))
    levels = np.arange(2, top + 1, dtype=float)
    base = np.asarray(rdp(levels), dtype=float)
    log_g = math.log(rate)
    if pure is None or pure > 30.0:
        log_cap = np.full(levels.shape, math.log(2.0))
    else:
        log_cap = np.minimum(math.log(2.0), levels * math.log(math.expm1(pure)))
    eps2 = float(base[0])
    log_second = min(
        math.log(4.0) + eps2 + math.log(-math.expm1(-eps2)) if eps2 > 0 else -math.inf,
        eps2 + float(log_cap[0]),
    )
    out = np.full(a.shape, np.inf)
    for i, alpha in enumerate(whole.ravel()):
        if alpha > top:
            continue
        j = levels[1 : alpha - 1]  # 3 … α
        terms = j * log_g + log_binomial(alpha, j) + (j - 1.0) * base[1 : alpha - 1] + log_cap[1 : alpha - 1]
        second = 2.0 * log_g + float(log_binomial(alpha, 2)) + log_second
        log_sum = np.logaddexp.reduce(np.concatenate([[0.0, second], terms]))
        out.flat[i] = max(float(log_sum), 0.0) / (alpha - 1)
    return out


def grid_profile(
    epsilon: np.ndarray, start: float, step: float, probs: np.ndarray, infinity_mass: float
) -> np.ndarray:
    """δ(ε) = ω(+∞) + Σ_(ℓ > ε) ω(ℓ)(1 − e^(ε − ℓ)) for losses on a uniform grid ℓⱼ = start + j·h, for many ε
    at once in O(n + m).

    With r = e^(−h), Bᵢ = Σ_(j>i) ωⱼ r^(j−i) follows Bᵢ = r(ωᵢ₊₁ + Bᵢ₊₁) and Dᵢ = δ(ℓᵢ) − ω(+∞) = Dᵢ₊₁ +
    (1 − r)(ωᵢ₊₁ + Bᵢ₊₁): sums of non-negative terms, so nothing cancels. Between two grid points the set
    {ℓ > ε} is fixed and δ is affine in e^ε, so interpolating Dᵢ linearly in e^(ε − ℓᵢ) is exact.

    Example:
        >>> round(float(grid_profile(np.array([0.0]), -1.0, 1.0, np.array([0.5, 0.0, 0.5]), 0.0)[0]), 6)
        0.31606
    """
    e = np.atleast_1d(np.asarray(epsilon, dtype=float))
    p = np.asarray(probs, dtype=float)
    losses = start + step * np.arange(p.size)
    reach = (start - float(e.min())) / step if e.size and p.size else 0.0
    if step > 700.0 or not reach < 10_000_000 or p.size == 0:
        direct = profile_from_losses(e, losses, p) if p.size else np.zeros(e.shape)
        return np.clip(direct + infinity_mass, 0.0, 1.0)
    # Grid points below the smallest ε asked for carry no mass; they only make every ε fall inside the grid.
    pad = math.ceil(reach) + 1 if reach > -1.0 else 0
    p = np.concatenate([np.zeros(pad), p])
    low = start - pad * step
    shifted = np.concatenate([p[1:], [0.0]])
    b = _decayed_suffix(p, step)  # b[i] = r·(p[i+1] + b[i+1])
    increments = -math.expm1(-step) * (shifted + np.concatenate([b[1:], [0.0]]))
    d = np.cumsum(increments[::-1])[::-1]
    with np.errstate(over="ignore", invalid="ignore"):  # a subnormal step sends far ε to ±inf, then clipped
        index = np.clip(np.floor((e - low) / step + 1e-12), -1, p.size).astype(np.int64)
    out = np.zeros(e.shape)
    inside = (index >= 0) & (index < p.size)
    i = index[inside]
    frac = np.expm1(np.minimum(e[inside] - (low + i * step), step)) / math.expm1(step)
    after = np.where(i + 1 < p.size, d[np.minimum(i + 1, p.size - 1)], 0.0)
    out[inside] = d[i] + (after - d[i]) * np.clip(frac, 0.0, 1.0)
    return np.clip(out + infinity_mass, 0.0, 1.0)


def _decayed_suffix(p: np.ndarray, step: float) -> np.ndarray:
    """Bᵢ = Σ_(j>i) pⱼ e^(−(j−i)h) without a Python loop over i: in blocks short enough (L·h ≤ 600) that the
    scaled suffix sums e^((i−s)h) Σ pⱼ e^(−(j−s)h) neither overflow nor underflow, carried from block to block."""
    n = p.size
    out = np.zeros(n)
    length = n if step * n <= 600.0 else max(1, int(600.0 // step))
    carry = 0.0  # B at the last index of the current block, from the blocks after it
    for s in range(((n - 1) // length) * length, -1, -length):
        end = min(s + length, n)
        offsets = np.arange(end - s, dtype=float) * step
        weighted = p[s:end] * np.exp(-offsets)
        suffix = np.concatenate([np.cumsum(weighted[::-1])[::-1][1:], [0.0]])  # Σ over s ≤ j′, j′ > i
        out[s:end] = np.exp(offsets) * suffix + np.exp(-(offsets[-1] - offsets)) * carry
        carry = math.exp(-step) * (p[s] + out[s])
    return out


def profile_from_losses(epsilon: np.ndarray, losses: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Σ_(ℓ > ε) ω(ℓ)(1 − e^(ε − ℓ)) by a direct sum for each ε (the slow, obvious form)."""
    out = np.empty(np.shape(epsilon), dtype=float)
    for k, value in enumerate(np.ravel(epsilon)):
        mask = losses > value
        out.flat[k] = float(np.sum(probs[mask] * -np.expm1(value - losses[mask])))
    return out
