"""How many of a sample's uniques are unique in the population: Zayatz, Pitman, SNB and Dankar et al.'s rule.

Estimates from the sample's class sizes and the population size N alone, under each model's assumptions (a simple
random sample of a population whose class sizes are unknown; :data:`UNIQUENESS_ASSUMPTIONS`): Zayatz (1991),
Pitman's sampling formula (Hoshino 2001), the shifted negative binomial (Chen and Keller-McNulty 1998), and the rule
of Dankar, El Emam, Neisa and Roffey (2012) that chooses among them, as ARX's ``RiskModelPopulationUniqueness``.
δ-presence's estimate of k-map and microdata's measures both report them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from privrisk.errors import PrivriskError

__all__ = [
    "MAX_POPULATION",
    "UNIQUENESS_ASSUMPTIONS",
    "UNIQUENESS_MODELS",
    "UniquenessModel",
    "population_uniqueness",
]

UNIQUENESS_ASSUMPTIONS = (
    "a simple random sample; Zayatz: population class-size distribution as in the sample; Pitman: Pitman sampling "
    "formula (Hoshino 2001), maximum likelihood; SNB: shifted negative binomial class sizes (Chen and "
    "Keller-McNulty 1998), K by Shlosser's estimator; Dankar et al. 2012 choose Pitman when f ≤ 0.1, else the "
    "smaller of Zayatz and SNB"
)
"""What the population-uniqueness estimates assume, in words."""


MAX_POPULATION = 1e12
"""The largest population size accepted (the estimators' integer arithmetic stays exact below it)."""


UniquenessModel = Literal["zayatz", "pitman", "snb", "dankar"]
UNIQUENESS_MODELS: tuple[UniquenessModel, ...] = ("zayatz", "pitman", "snb", "dankar")


def _frequencies(class_sizes: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.asarray(class_sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    if sizes.size == 0:
        raise PrivriskError("class sizes: no classes")
    values, counts = np.unique(sizes, return_counts=True)
    return values, counts.astype(float)


def _zayatz(values, counts, n: int, N: int) -> tuple[float, float]:
    """Zayatz (1991): P(population unique | sample unique), population class sizes approximated by the sample's."""
    u = counts.sum()
    c1 = counts[values == 1].sum()
    # hypergeom(M=N, n=i, N=n).pmf(1): one of a class of i people drawn in a sample of n from N.
    from scipy import stats

    h = stats.hypergeom(N, values, n).pmf(1)
    denom = float(np.sum(counts / u * h))
    p1 = float(stats.hypergeom(N, 1, n).pmf(1))
    share = (c1 / u) * p1 / denom if denom > 0 else float("nan")
    return float(share), float(c1 * share * N / n)


def _pitman(values, counts, n: int, N: int) -> tuple[float, float, float]:
    """Pitman's model (Hoshino 2001): maximum-likelihood θ, α; population uniques Γ(θ+1)/Γ(θ+α)·N^α."""
    from scipy import optimize
    from scipy.special import gammaln

    u = counts.sum()
    c1 = counts[values == 1].sum()
    c2 = counts[values == 2].sum() or 1.0
    big = values > 1

    def nll(x):
        t, a = x
        if a <= 0 or a >= 1 or t <= -a:
            return np.inf
        # Σ_{i<u} log(θ + iα) − Σ_{i<n} log(θ + i) + Σ_c Σ_{j<n_c} log(j − α), with Γ-function sums.
        ll = (u - 1) * np.log(a) + gammaln(t / a + u) - gammaln(t / a + 1)
        ll -= gammaln(t + n) - gammaln(t + 1)
        ll += float(np.sum(counts[big] * (gammaln(values[big] - a) - gammaln(1 - a))))
        return -ll

    c = c1 * (c1 - 1) / c2
    denom = 2 * c1 * u + c1 * c - n * c
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denom if denom else 1.0
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    starts = [(t0, a0), (1.0, 0.5), (10.0, 0.2), (u / 2, 0.8)]
    best = None
    for t_, a_ in starts:
        if not (np.isfinite(t_) and np.isfinite(a_)):
            continue
        x0 = (max(t_, 1e-3), float(np.clip(a_, 1e-3, 1 - 1e-3)))
        r = optimize.minimize(
            nll, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000}
        )
        if np.isfinite(r.fun) and (best is None or r.fun < best.fun):
            best = r
    if best is None:
        return float("nan"), float("nan"), float("nan")
    t, a = best.x
    if a < 1e-8:  # α = 0 is the Ewens limit, where the estimate degenerates (ARX rejects it too)
        return float("nan"), float(t), float(a)
    uniques = float(np.exp(gammaln(t + 1) - gammaln(t + a) + a * np.log(N)))
    return (uniques if 0 <= uniques <= N else float("nan")), float(t), float(a)


def _shlosser(values, counts, f: float) -> float:
    """Shlosser's estimate of the number of non-empty population classes (Haas et al. 1995)."""
    u = counts.sum()
    c1 = counts[values == 1].sum()
    num = float(np.sum((1 - f) ** values * counts))
    den = float(np.sum(values * f * (1 - f) ** (values - 1) * counts))
    return u + c1 * num / den if den > 0 else u


def _snb(values, counts, n: int, N: int) -> tuple[float, float, float, float]:
    """Chen and Keller-McNulty (1998): F − 1 ~ NegBin(α, β) per class; fit α, β to the sample's c1 and c2.

    With d = (1 − f)(1 − β): E c1 = K f (β/(1 − d))^α (1 + α d/(1 − d)) and
    E c2 = K α β^α f² (1 − β)/2 · (2 − (1 − α) d)/(1 − d)^(α+2) (derived from the generating function); population
    uniques K β^α, K from Shlosser's estimator.
    """
    from scipy import optimize

    f = n / N
    c1 = counts[values == 1].sum()
    c2 = counts[values == 2].sum()
    K = _shlosser(values, counts, f)

    def equations(x: np.ndarray) -> list[float]:
        # The solver tries far-off points where the terms overflow; those are rejected by the residual check.
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            a, b = np.exp(x[0]), 1 / (1 + np.exp(-x[1]))
            d = (1 - f) * (1 - b)
            e1 = K * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1)
            e2 = K * a * b**a * f * f * (1 - b) / 2 * (2 - (1 - a) * d) / (1 - d) ** (a + 2)
            return [np.log(e1) - np.log(c1), np.log(max(e2, 1e-300)) - np.log(max(c2, 1e-300))]

    if c2 == 0:
        return float("nan"), float(K), float("nan"), float("nan")
    for guess in ([0.0, 0.0], [-2.0, -2.0], [1.0, 2.0], [-1.0, 1.0]):
        sol, _info, ok, _ = optimize.fsolve(equations, guess, full_output=True)
        if ok == 1 and np.max(np.abs(equations(sol))) < 1e-8:
            a, b = float(np.exp(sol[0])), float(1 / (1 + np.exp(-sol[1])))
            uniques = float(K * b**a)
            return (uniques if 0 <= uniques <= N else float("nan")), float(K), a, b
    return float("nan"), float(K), float("nan"), float("nan")


def population_uniqueness(class_sizes: Sequence[int] | np.ndarray, population_size: int) -> dict[str, Any]:
    """How many sample uniques are population uniques: Zayatz, Pitman, SNB and Dankar et al.'s decision rule.

    Estimates under each model's assumptions (a simple random sample of a population whose class sizes are
    unknown). Dankar, El Emam, Neisa and Roffey (2012) choose Pitman when f = n/N ≤ 0.1 (Zayatz if Pitman fails),
    otherwise the smaller of Zayatz and SNB (Zayatz if SNB fails), as ARX's ``RiskModelPopulationUniqueness``.

    Args:
        class_sizes: the sizes of the sample's classes.
        population_size: N.

    Returns:
        ``{"n", "N", "sampling_fraction", "sample_uniques", "models": {model: {"population_uniques",
        "share_of_sample_uniques", …}}, "dankar_model", "population_uniques", "share_of_sample_uniques"}``; the share
        is f · (population uniques) / (sample uniques), capped at 1 (Zayatz gives it directly).

    Example:
        >>> r = population_uniqueness([1, 1, 2, 3], 70)
        >>> round(r["models"]["zayatz"]["share_of_sample_uniques"], 4)
        0.3163
    """
    values, counts = _frequencies(class_sizes)
    n = int(np.sum(values * counts))
    if not isinstance(population_size, (int, float, np.integer, np.floating)) or not (
        math.isfinite(population_size) and population_size <= MAX_POPULATION
    ):
        raise PrivriskError(
            f"population_size: must be a finite number of at most {MAX_POPULATION:g}, got {population_size!r}",
            param="population_size",
        )
    N = int(population_size)
    if N < n:
        raise PrivriskError(
            f"population_size: {N:g} is smaller than the dataset ({n:,} records)", param="population_size"
        )
    f = n / N
    c1 = float(counts[values == 1].sum())
    out: dict[str, Any] = {"n": n, "N": N, "sampling_fraction": f, "sample_uniques": int(c1), "models": {}}
    if c1 == 0:
        for m in UNIQUENESS_MODELS:
            out["models"][m] = {"population_uniques": 0.0, "share_of_sample_uniques": 0.0}
        out.update(
            dankar_model="none (no sample uniques)", population_uniques=0.0, share_of_sample_uniques=0.0
        )
        return out

    def share(uniques: float) -> float:
        return float(min(1.0, f * uniques / c1)) if np.isfinite(uniques) else float("nan")

    z_share, z_uniques = _zayatz(values, counts, n, N)
    p_uniques, theta, alpha_ = _pitman(values, counts, n, N)
    s_uniques, K, a, b = _snb(values, counts, n, N)
    models: dict[str, dict[str, float]] = {
        "zayatz": {"population_uniques": z_uniques, "share_of_sample_uniques": z_share},
        "pitman": {
            "population_uniques": p_uniques,
            "share_of_sample_uniques": share(p_uniques),
            "theta": theta,
            "alpha": alpha_,
        },
        "snb": {
            "population_uniques": s_uniques,
            "share_of_sample_uniques": share(s_uniques),
            "classes_K": K,
            "alpha": a,
            "beta": b,
        },
    }
    valid = {m: v["population_uniques"] for m, v in models.items() if np.isfinite(v["population_uniques"])
             and v["population_uniques"] > 0}  # fmt: skip
    chosen: UniquenessModel
    if f <= 0.1:
        chosen = "pitman" if "pitman" in valid else "zayatz"
    elif "snb" in valid and valid["snb"] < z_uniques:
        chosen = "snb"
    else:
        chosen = "zayatz"
    models["dankar"] = dict(models[chosen])
    out["models"] = models
    out.update(
        dankar_model=chosen,
        population_uniques=models[chosen]["population_uniques"],
        share_of_sample_uniques=models[chosen]["share_of_sample_uniques"],
    )
    return out
