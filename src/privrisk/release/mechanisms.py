"""Noisy releases with OpenDP: the Laplace mechanism, its scale and interval, and a release of several answers.

Descriptive statistics of a survey are published with Laplace noise, and the risk is published alongside them
(the scenario of Allmann et al., §2, and Mehner et al., §4). For every query the value is computed on the data
clamped to a universe [lo, hi] that is fixed *before* looking at the data (clamping is what makes the global
sensitivity hold), and released as

    M(X) = f(X) + Y,   Y ~ Lap(b),   b = Δf/ε           (Mehner et al., Definition 3; Allmann et al., §2.1.1)

with Δf the global sensitivity of :func:`privrisk.global_sensitivity` (unbounded neighbours). The noise comes from
OpenDP's floating-point-safe Laplace sampler, which adds noise on a grid of floats and draws from the operating
system's secure randomness; it cannot be seeded, so two releases of the same data differ by design. The scale is
nudged up by a few ulps when needed so that OpenDP's own privacy map certifies at most the requested ε.

Noise is never scaled to a local or data-dependent sensitivity: that noise would itself depend on the data and
leak it (Sarathy and Muralidhar, 2009; ``privrisk audit`` shows how).

The queries are described in :mod:`privrisk.release.spec`, the risk statements in
:mod:`privrisk.release.statement` and the ledger in :mod:`privrisk.release.ledger`. The true (noise-free) values
are never returned.

Example:
    >>> noise_scale("mean", (0, 24), 0.5)
    24.0
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_probability, check_values, parse_epsilon
from privrisk.errors import PrivacyLeakWarning, PrivriskError, deprecated_alias
from privrisk.release.spec import _interval
from privrisk.sensitivity import Universe, global_sensitivity

__all__ = [
    "LEVEL",
    "MAX_EPSILON",
    "MAX_RHO",
    "LargeEpsilonRefused",
    "check_release_epsilon",
    "expected_error",
    "gaussian_mechanism",
    "gaussian_sigma",
    "laplace_mechanism",
    "noise_interval",
    "noise_scale",
    "sample_gaussian",
    "sample_laplace",
]

#: The share of releases whose noise lies inside the reported interval.
LEVEL = 0.95
#: The largest total ε a release accepts without ``allow_large_epsilon``: at ε = 20 the global risk is
#: 1/(1 + e^(−20)) ≈ 1 − 2·10⁻⁹, and above it the noise hides next to nothing of the true value.
MAX_EPSILON = 20.0
#: The largest total ρ of Gaussian answers a release accepts without ``allow_large_epsilon``: ε²/2 at ε = 20, the
#: ρ that pure ε-DP at the ε limit implies (Bun and Steinke 2016, Prop. 1.4).
MAX_RHO = MAX_EPSILON**2 / 2


class LargeEpsilonRefused(PrivriskError):
    """A release refused because its total ε (or ρ) is above :data:`MAX_EPSILON` (:data:`MAX_RHO`) and large
    values were not allowed; a caller names its own way to allow them (``--allow-large-epsilon``)."""


def check_release_epsilon(
    total: float, allow_large_epsilon: bool = False, *, name: str = "epsilon", rho: float = 0.0
) -> None:
    """Refuse a release whose total ε exceeds :data:`MAX_EPSILON` (or whose total ρ of Gaussian answers exceeds
    :data:`MAX_RHO`), or warn when it is allowed. The one place this limit is checked:
    :class:`~privrisk.release.request.ReleaseRequest` calls it.

    Raises:
        LargeEpsilonRefused: (parameter ``epsilon``, or ``rho``) when a total is above its limit and
            ``allow_large_epsilon`` is false.

    Warns:
        PrivacyLeakWarning: when a total is above its limit and ``allow_large_epsilon`` is true.

    Example:
        >>> check_release_epsilon(20.0)
        >>> check_release_epsilon(21.0)
        Traceback (most recent call last):
        ...
        privrisk.release.mechanisms.LargeEpsilonRefused: epsilon: a release with total ε = 21 > 20 publishes about the true value; refused unless allow_large_epsilon
    """
    if total > MAX_EPSILON:
        text = (
            f"{name}: a release with total ε = {total:.6g} > {MAX_EPSILON:g} publishes about the true value"
        )
        param = name
    elif rho > MAX_RHO:
        text = f"rho: a release with total ρ = {rho:.6g} > {MAX_RHO:g} publishes about the true value"
        param = "rho"
    else:
        return
    if not allow_large_epsilon:
        raise LargeEpsilonRefused(text + "; refused unless allow_large_epsilon", param=param)
    warnings.warn(text + "; released because it was allowed", PrivacyLeakWarning, stacklevel=4)


# --------------------------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------------------------


def _opendp() -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _atom_laplace(scale: float) -> Any:
    dp = _opendp()
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def _certified_noise(
    sensitivity: float,
    budget: float,
    noise_of: Callable[[float, float], float],
    atom: Callable[[float], Any],
    *,
    param: str,
    symbol: str,
    formula: str,
) -> float:
    """The noise ``noise_of(Δf, budget)``, raised by as few ulps as needed for OpenDP's privacy map of ``atom(noise)``
    to certify a loss ≤ ``budget``; ``symbol`` and ``formula`` name the budget and the noise in the errors."""
    if not math.isfinite(sensitivity):
        raise PrivriskError(
            f"universe: the global sensitivity overflows (Δf = {sensitivity:g}); give a smaller universe",
            param="universe",
        )
    with np.errstate(all="ignore"):
        noise = noise_of(float(sensitivity), float(budget))
    if not math.isfinite(noise) or noise <= 0:
        raise PrivriskError(
            f"{param}: {symbol} = {budget:g} makes the noise {formula} = {noise:g} for Δf = {sensitivity:g}; "
            "it must be a finite number > 0",
            param=param,
        )
    for _ in range(64):
        if atom(noise).map(float(sensitivity)) <= budget:
            return noise
        noise = math.nextafter(noise, math.inf)
    raise PrivriskError(
        f"{param}: OpenDP cannot certify {symbol} = {budget:g} for sensitivity {sensitivity:g}", param=param
    )


def _certified_scale(sensitivity: float, epsilon: float) -> float:
    """b = Δf/ε, raised by as few ulps as needed for OpenDP's privacy map to certify ε' ≤ ε."""
    return _certified_noise(
        sensitivity,
        epsilon,
        lambda d, e: d / e,
        _atom_laplace,
        param="epsilon",
        symbol="ε",
        formula="scale Δf/ε",
    )


def _atom_gaussian(sigma: float) -> Any:
    dp = _opendp()
    return dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)


def gaussian_sigma(sensitivity: float, rho: float) -> float:
    """σ = Δ/√(2ρ), the Gaussian noise that makes one answer ρ-zCDP, raised by as few ulps as needed for OpenDP's
    privacy map to certify ρ' ≤ ρ (Bun and Steinke 2016, Prop. 1.6: N(0, σ²) noise on a query of sensitivity Δ
    is Δ²/(2σ²)-zCDP).

    Example:
        >>> gaussian_sigma(1.0, 0.125)
        2.0
    """
    return _certified_noise(
        sensitivity,
        rho,
        lambda d, r: d / math.sqrt(2 * r),
        _atom_gaussian,
        param="rho",
        symbol="ρ",
        formula="σ = Δf/√(2ρ)",
    )


def _check_scale(scale: Any) -> np.ndarray:
    """Laplace scales as a float array, each finite and > 0."""
    try:
        b = np.asarray(scale, dtype=float)
    except (TypeError, ValueError):
        b = np.asarray(math.nan)
    if np.any(~np.isfinite(b)) or np.any(b <= 0):
        raise PrivriskError(f"scale: the Laplace scale must be a finite number > 0, got {scale}")
    return b


def noise_scale(query: str, universe: Universe | Sequence[float], epsilon: float | str) -> float:
    """b = Δf/ε, the Laplace scale that makes one answer ε-DP.

    Mehner et al., Definition 3; Allmann et al., §2.1.1.

    Args:
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        universe: bounds ``(lo, hi)`` with lo < hi, or an interval :class:`~privrisk.sensitivity.Universe`.
        epsilon: ε > 0.

    Returns:
        b, at most a few ulps above Δf/ε so that OpenDP's privacy map certifies ε.

    Example:
        >>> noise_scale("mean", (0, 24), 0.5)        # Δf = 24/2 = 12
        24.0
        >>> noise_scale("count", (0, 24), 0.1)
        10.0
    """
    eps = parse_epsilon(epsilon, name="epsilon")
    u = _interval(universe)
    return _certified_scale(global_sensitivity(query, u), eps)


@overload
def noise_interval(scale: float, level: float = LEVEL) -> float: ...
@overload
def noise_interval(scale: np.ndarray, level: float = LEVEL) -> np.ndarray: ...
@overload
def noise_interval(scale: ArrayLike, level: float = LEVEL) -> float | np.ndarray: ...


def noise_interval(scale: ArrayLike, level: float = LEVEL) -> float | np.ndarray:
    """Half-width t of the interval [−t, t] that holds Laplace(b) noise with probability ``level``.

    P(|Y| > t) = e^(−t/b), so t = b·ln(1/(1 − level)); at 95 % t = b·ln 20 ≈ 3.00·b. A float for a scalar
    scale, an array of the same shape otherwise.

    Example:
        >>> round(noise_interval(1.0), 4)
        2.9957
        >>> noise_interval(2.0, level=1 - math.exp(-1))
        2.0
    """
    p = float(check_probability(level, name="level", open_low=True, open_high=True))
    b = _check_scale(scale)
    out = b * -math.log1p(-p)
    return float(out) if out.ndim == 0 else out


def _draw(values: np.ndarray, scale: float) -> np.ndarray:
    """values + Laplace(scale) noise, in one vector call to OpenDP. Every noisy number passes through here."""
    return _opendp_noise(values, scale, gaussian=False)


def _draw_gaussian(values: np.ndarray, sigma: float) -> np.ndarray:
    """values + N(0, σ²) noise, in one vector call to OpenDP's Gaussian sampler (exact, not seedable)."""
    return _opendp_noise(values, sigma, gaussian=True)


def _opendp_noise(values: np.ndarray, scale: float, *, gaussian: bool) -> np.ndarray:
    """values + OpenDP's Laplace (L1 distance) or Gaussian (L2) noise of ``scale``, in one vector call."""
    dp = _opendp()
    make, distance = (dp.m.make_gaussian, dp.l2_distance) if gaussian else (dp.m.make_laplace, dp.l1_distance)
    meas = make(dp.vector_domain(dp.atom_domain(T=float, nan=False)), distance(T=float), scale=float(scale))
    return np.asarray(meas([float(v) for v in values]), dtype=float)


def _noisy(values: ArrayLike, scale: float, *, gaussian: bool) -> float | np.ndarray:
    """values + noise of ``scale`` through :func:`_draw` or :func:`_draw_gaussian`; a float for a scalar."""
    check_values(values, name="values", minimum=0)
    arr = np.asarray(values, dtype=float)
    s = float(_check_scale(scale))
    draw = _draw_gaussian if gaussian else _draw
    if arr.ndim == 0:
        return float(draw(arr.reshape(1), s)[0])
    return draw(arr.ravel(), s).reshape(arr.shape)


def sample_gaussian(values: ArrayLike, sigma: float) -> float | np.ndarray:
    """values + Y with Y ~ N(0, σ²), drawn by OpenDP's Gaussian sampler (not seedable); a float for a scalar.

    A sampler: it draws noise (``privrisk.accounting.gaussian_guarantee`` is the guarantee of this noise).

    Example:
        >>> noisy = sample_gaussian([0.0] * 1000, 2.0)
        >>> noisy.shape, bool(abs(noisy.mean()) < 1)
        ((1000,), True)
    """
    return _noisy(values, sigma, gaussian=True)


#: The sampler's name before 0.2 (it read like the guarantee ``privrisk.accounting.gaussian_mechanism``).
gaussian_mechanism = deprecated_alias(sample_gaussian, "gaussian_mechanism")


def _half_width(mechanism: str, scale: float, level: float) -> float:
    """Half-width of the interval that holds the noise with probability ``level`` (Laplace or Gaussian)."""
    if mechanism == "gaussian":
        from statistics import NormalDist

        return scale * NormalDist().inv_cdf((1 + level) / 2)
    return float(noise_interval(scale, level))


@overload
def sample_laplace(values: float, scale: float) -> float: ...
@overload
def sample_laplace(values: np.ndarray, scale: float) -> np.ndarray: ...
@overload
def sample_laplace(values: ArrayLike, scale: float) -> float | np.ndarray: ...


def sample_laplace(values: ArrayLike, scale: float) -> float | np.ndarray:
    """values + Y with Y ~ Lap(scale), drawn by OpenDP's floating-point-safe sampler (not seedable).

    Many values are sent to OpenDP in one vector call; each gets independent noise of the same scale. A float for
    a scalar, an array of the same shape otherwise. A sampler: it draws noise
    (``privrisk.accounting.laplace_guarantee`` is the guarantee of this noise).

    Example:
        >>> noisy = sample_laplace([0.0] * 1000, 2.0)
        >>> noisy.shape, bool(abs(noisy.mean()) < 1)
        ((1000,), True)
    """
    return _noisy(values, scale, gaussian=False)


#: The sampler's name before 0.2 (``privrisk.laplace_mechanism`` drew noise while ``gaussian_mechanism`` was a
#: guarantee).
laplace_mechanism = deprecated_alias(sample_laplace, "laplace_mechanism")


def expected_error(mechanism: str, scale: float) -> float:
    """E|Y|, the mean absolute error the noise adds: b for Laplace(b), σ·√(2/π) for N(0, σ²).

    Example:
        >>> expected_error("laplace", 2.0), round(expected_error("gaussian", 1.0), 4)
        (2.0, 0.7979)
    """
    s = float(_check_scale(scale))
    return s * math.sqrt(2 / math.pi) if mechanism == "gaussian" else s
