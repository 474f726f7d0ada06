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
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privrisk._validation import check_probability, check_values, parse_epsilon
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded, deprecated_alias
from privrisk.io.data import numeric_values
from privrisk.release import ledger as _ledger
from privrisk.release.budget import Budget, as_budget
from privrisk.release.spec import ReleaseQuery, _interval, check_public_n
from privrisk.release.statement import (
    Release,
    _internal_assessment,
    _Measured,
    _with_cumulative,
    release_statement,
)
from privrisk.sensitivity import Universe, evaluate, global_sensitivity, local_sensitivity

__all__ = [
    "LEVEL",
    "MAX_EPSILON",
    "MAX_RHO",
    "check_release_epsilon",
    "gaussian_mechanism",
    "gaussian_sigma",
    "laplace_mechanism",
    "noise_interval",
    "noise_scale",
    "noisy_release",
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


def check_release_epsilon(total: float, allow_large_epsilon: bool = False, *, name: str = "epsilon") -> None:
    """Refuse a release whose total ε exceeds :data:`MAX_EPSILON`, or warn when it is allowed.

    Raises:
        PrivriskError: (parameter ``epsilon``) when ``total`` > 20 and ``allow_large_epsilon`` is false.

    Warns:
        PrivacyLeakWarning: when ``total`` > 20 and ``allow_large_epsilon`` is true.

    Example:
        >>> check_release_epsilon(20.0)
        >>> check_release_epsilon(21.0)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: epsilon: a release with total ε = 21 > 20 publishes about the true value; refused unless allow_large_epsilon
    """
    if total <= MAX_EPSILON:
        return
    text = f"{name}: a release with total ε = {total:.6g} > {MAX_EPSILON:g} publishes about the true value"
    if not allow_large_epsilon:
        raise PrivriskError(text + "; refused unless allow_large_epsilon", param=name)
    warnings.warn(text + "; released because it was allowed", PrivacyLeakWarning, stacklevel=3)


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


def _certified_scale(sensitivity: float, epsilon: float) -> float:
    """b = Δf/ε, raised by as few ulps as needed for OpenDP's privacy map to certify ε' ≤ ε."""
    if not math.isfinite(sensitivity):
        raise PrivriskError(
            f"universe: the global sensitivity overflows (Δf = {sensitivity:g}); give a smaller universe",
            param="universe",
        )
    with np.errstate(all="ignore"):
        scale = float(sensitivity) / float(epsilon)
    if not math.isfinite(scale) or scale <= 0:
        raise PrivriskError(
            f"epsilon: ε = {epsilon:g} makes the noise scale Δf/ε = {scale:g} for Δf = {sensitivity:g}; "
            "it must be a finite number > 0",
            param="epsilon",
        )
    for _ in range(64):
        if _atom_laplace(scale).map(float(sensitivity)) <= epsilon:
            return scale
        scale = math.nextafter(scale, math.inf)
    raise PrivriskError(f"epsilon: OpenDP cannot certify ε = {epsilon:g} for sensitivity {sensitivity:g}")


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
    if not math.isfinite(sensitivity):
        raise PrivriskError(
            f"universe: the global sensitivity overflows (Δf = {sensitivity:g}); give a smaller universe",
            param="universe",
        )
    with np.errstate(all="ignore"):
        sigma = float(sensitivity) / math.sqrt(2 * float(rho))
    if not math.isfinite(sigma) or sigma <= 0:
        raise PrivriskError(
            f"rho: ρ = {rho:g} makes the noise σ = Δf/√(2ρ) = {sigma:g} for Δf = {sensitivity:g}; it must be a "
            "finite number > 0",
            param="rho",
        )
    for _ in range(64):
        if _atom_gaussian(sigma).map(float(sensitivity)) <= rho:
            return sigma
        sigma = math.nextafter(sigma, math.inf)
    raise PrivriskError(
        f"rho: OpenDP cannot certify ρ = {rho:g} for sensitivity {sensitivity:g}", param="rho"
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
    dp = _opendp()
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=float(scale)
    )
    return np.asarray(meas([float(v) for v in values]), dtype=float)


def _draw_gaussian(values: np.ndarray, sigma: float) -> np.ndarray:
    """values + N(0, σ²) noise, in one vector call to OpenDP's Gaussian sampler (exact, not seedable)."""
    dp = _opendp()
    meas = dp.m.make_gaussian(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float), scale=float(sigma)
    )
    return np.asarray(meas([float(v) for v in values]), dtype=float)


def sample_gaussian(values: ArrayLike, sigma: float) -> float | np.ndarray:
    """values + Y with Y ~ N(0, σ²), drawn by OpenDP's Gaussian sampler (not seedable); a float for a scalar.

    A sampler: it draws noise (``privrisk.accounting.gaussian_guarantee`` is the guarantee of this noise).

    Example:
        >>> noisy = sample_gaussian([0.0] * 1000, 2.0)
        >>> noisy.shape, bool(abs(noisy.mean()) < 1)
        ((1000,), True)
    """
    check_values(values, name="values", minimum=0)
    arr = np.asarray(values, dtype=float)
    s = float(_check_scale(sigma))
    if arr.ndim == 0:
        return float(_draw_gaussian(arr.reshape(1), s)[0])
    return _draw_gaussian(arr.ravel(), s).reshape(arr.shape)


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
    check_values(values, name="values", minimum=0)
    arr = np.asarray(values, dtype=float)
    b = float(_check_scale(scale))
    if arr.ndim == 0:
        return float(_draw(arr.reshape(1), b)[0])
    return _draw(arr.ravel(), b).reshape(arr.shape)


#: The sampler's name before 0.2 (``privrisk.laplace_mechanism`` drew noise while ``gaussian_mechanism`` was a
#: guarantee).
laplace_mechanism = deprecated_alias(sample_laplace, "laplace_mechanism")


# --------------------------------------------------------------------------------------------------------------
# The release
# --------------------------------------------------------------------------------------------------------------


def _check_rho(total: float, allow_large_epsilon: bool) -> None:
    """Refuse Gaussian answers whose total ρ exceeds :data:`MAX_RHO`, or warn when it is allowed."""
    if total <= MAX_RHO:
        return
    text = f"rho: a release with total ρ = {total:.6g} > {MAX_RHO:g} publishes about the true value"
    if not allow_large_epsilon:
        raise PrivriskError(text + "; refused unless allow_large_epsilon", param="rho")
    warnings.warn(text + "; released because it was allowed", PrivacyLeakWarning, stacklevel=3)


@dataclass(frozen=True)
class _Prepared:
    measured: _Measured
    true_value: float = field(repr=False)  # never leaves this module, not even in a repr
    scale: float = 0.0


def _prepare(
    data: pd.DataFrame | Mapping[str, Any], queries: Sequence[ReleaseQuery], source: str | None
) -> tuple[list[_Prepared], dict[str, Any]]:
    """Clamp each query's column to its universe; Δf, Δv, the certified scale and the true value."""
    available = list(data.keys())
    where = f"{source}: " if source else ""
    prepared, summaries = [], {}
    for q in queries:
        if q.column not in available:
            shown = ", ".join(map(str, available[:20])) + (" …" if len(available) > 20 else "")
            raise PrivriskError(f"{where}no column {q.column!r} for {q.label}; the columns are: {shown}")
        col = numeric_values(data[q.column], name=q.column, missing=q.missing, source=source)
        summaries[q.column] = col.as_dict()
        u = q.universe
        outside = int(np.count_nonzero((col.values < u.lo) | (col.values > u.hi)))
        clamped = np.clip(col.values, u.lo, u.hi)
        with np.errstate(all="ignore"):
            gs = global_sensitivity(q.query, u)
        # Fails on an overflowing Δf before anything else is computed.
        scale = gaussian_sigma(gs, q.rho) if q.rho is not None else _certified_scale(gs, q.epsilon)
        with np.errstate(all="ignore"):
            ls = float(local_sensitivity(q.query, clamped, u))
            true_value = float(evaluate(q.query, clamped))
        prepared.append(_Prepared(_Measured(q, int(clamped.size), outside, gs, ls), true_value, scale))
    return prepared, summaries


def noisy_release(
    data: pd.DataFrame | Mapping[str, Any],
    queries: Sequence[ReleaseQuery] | ReleaseQuery,
    *,
    public_n: int | None = None,
    budget: float | str | Budget | None = None,
    ledger: str | os.PathLike[str] | None = None,
    source: str | None = None,
    level: float = LEVEL,
    allow_large_epsilon: bool = False,
    key: bytes | str | None = None,
    before_charge: Callable[[Release], None] | None = None,
) -> Release:
    """Release noisy answers to queries on a data set, with the public statement and the internal assessment.

    Everything that can fail on bad input (columns, missing codes, universes, ε, the budget, a corrupt ledger)
    fails before any noise is drawn. With a ledger the noise is drawn, then under the ledger's lock the budget
    is checked again, ``before_charge`` is called with the finished release (write its outputs there, to
    temporary names), and only then is the release charged to the ledger: if anything fails before the charge,
    nothing is charged, and a release is charged only once its outputs are written.

    Args:
        data: a DataFrame (or a mapping of column name to values).
        queries: the :class:`ReleaseQuery` objects (or one).
        public_n: the published number of people in the data, for the many-worlds risk in the public statement.
            Give only a number that is public anyway; the records actually read are never used for it.
        budget: the largest total: a number (pure ε) or a :class:`~privrisk.release.budget.Budget` (ε, (ε, δ) or
            ρ); with a ledger it bounds the ledger's total after this release, and None keeps the budget of the
            ledger's last release.
        ledger: a JSON ledger file that records every release (created when missing).
        source: the data file's name, for messages and the ledger.
        level: the coverage of the reported noise interval.
        allow_large_epsilon: release even when the total ε exceeds :data:`MAX_EPSILON` (20), with a
            :class:`~privrisk.errors.PrivacyLeakWarning`; otherwise such a release is refused.
        key: the secret of a keyed ledger (see :func:`privrisk.release.ledger.read_ledger`).
        before_charge: called with the release before the ledger is charged (without a ledger: before
            returning); if it raises, nothing is charged.

    Raises:
        PrivriskError: for bad input or a corrupt ledger.
        ThresholdExceeded: when the release would exceed the budget; nothing is drawn or recorded.

    Example:
        >>> frame = pd.DataFrame({"hours": [8, 6, 30, 7, 9]})
        >>> r = noisy_release(frame, ReleaseQuery("hours", "mean", 1.0, (0, 24)), public_n=100)
        >>> float(r.answers.loc[0, "noise_scale"]), int(r.internal.loc[0, "n_clamped"])
        (12.0, 1)
        >>> round(r.statement["global_risk"], 4), round(r.statement["many_worlds"], 4)
        (0.7311, 0.0267)
    """
    qs = [queries] if isinstance(queries, ReleaseQuery) else list(queries)
    if not qs:
        raise PrivriskError("queries: a release needs at least one query")
    n_pub = check_public_n(public_n, "public_n")
    limit = as_budget(budget)
    total = math.fsum(q.epsilon for q in qs)
    if total > 0:
        check_release_epsilon(total, allow_large_epsilon)
    _check_rho(math.fsum(q.rho or 0.0 for q in qs), allow_large_epsilon)
    prepared, summaries = _prepare(data, qs, source)
    check_probability(level, name="level", open_low=True, open_high=True)
    half = [_half_width(p.measured.query.mechanism, p.scale, level) for p in prepared]
    new = [q.ledger_record() for q in qs]

    # Every check that can refuse the release runs before any noise is drawn; with a ledger the budget is
    # checked again under the lock when the release is charged.
    before: list[dict[str, Any]] = []
    if ledger is not None:
        entries = _ledger.read_ledger(ledger, key)
        before = _ledger.ledger_records(entries)
        kept = limit if limit is not None else Budget.from_json(entries[-1]["budget"] if entries else None)
        where: Path | None = Path(ledger)
    else:
        kept, where = limit, None
    if kept is not None and not kept.fits([*before, *new]):
        spent = math.fsum(float(r.get("epsilon", 0.0)) for r in before)
        if kept.rho is None and kept.delta is None:
            raise ThresholdExceeded(_ledger.budget_message(total, spent, kept.limit, where))
        raise ThresholdExceeded(kept.message([*before, *new], len(new), where))

    noisy = [
        sample_gaussian(p.true_value, p.scale)
        if p.measured.query.mechanism == "gaussian"
        else sample_laplace(p.true_value, p.scale)
        for p in prepared
    ]
    rows = []
    for p, y, h in zip(prepared, noisy, half, strict=True):
        m = p.measured
        rows.append(
            {
                "label": m.query.label,
                "column": m.query.column,
                "query": m.query.query,
                "mechanism": m.query.mechanism,
                "epsilon": m.query.epsilon if m.query.rho is None else None,
                "rho": m.query.rho,
                "universe_lo": m.query.universe.lo,
                "universe_hi": m.query.universe.hi,
                "global_sensitivity": m.gs,
                "noise_scale": p.scale,
                "noisy_value": y,
                "noise_95": h,
                "interval_lo": y - h,
                "interval_hi": y + h,
            }
        )
    answers = pd.DataFrame(rows)
    internal, withheld = _internal_assessment([p.measured for p in prepared], n_pub)

    def build(record: dict[str, Any] | None, budget_: Any) -> Release:
        b = Budget.from_json(budget_) if budget_ is not None and not isinstance(budget_, Budget) else budget_
        delta = b.delta if b is not None and b.delta is not None else None
        statement = release_statement(new, n_pub, delta=delta)
        if record is not None and ledger is not None:
            statement = _with_cumulative(statement, record, ledger, n_pub, delta=delta)
            record = {k: v for k, v in record.items() if k != "records"}
        return Release(
            answers=answers,
            statement=statement,
            internal=internal,
            data={} if withheld else summaries,
            ledger=record,
            budget=budget_,
            withheld=withheld,
        )

    if ledger is None:
        release = build(None, None if limit is None else limit.to_json())
        if before_charge is not None:
            before_charge(release)
        return release

    built: list[Release] = []

    def charge(result: dict[str, Any]) -> None:
        record = {"path": str(ledger), **result}
        release = build(record, result["budget"])
        if before_charge is not None:
            before_charge(release)
        built.append(release)

    _ledger.record_release(
        ledger,
        queries=new,
        budget=limit,
        data=source,
        key=key,
        before_write=charge,
    )
    return built[0]
