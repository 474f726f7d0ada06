"""k-map without a population table: El Emam and Dankar's Poisson and zero-truncated-Poisson rules, as ARX does.

When only the population size N (or the sampling fraction f = n/N) is known, a population class of size k is
modelled as sending a Poisson(f·k) number of its members into the sample (El Emam and Dankar 2008, "Protecting
privacy using k-anonymity", JAMIA 15(5)). ARX (``criteria/KMap.java``) turns k-map into k′-anonymity of the sample
with k′ from the smallest c whose Poisson cumulative probability reaches 1 − α:

- Poisson: k′ = c + 2 with c = min{c ≥ 0 : P(X ≤ c) ≥ 1 − α}, X ~ Poisson(f·k);
- zero-truncated Poisson (classes seen in the sample hold at least one record): k′ = c + 1 with
  c = min{c ≥ 1 : P(X ≤ c | X ≥ 1) ≥ 1 − α};

and k′ is capped at k and at the sample size. These are estimates under the model's assumptions (records sampled
independently with the same probability f; population class sizes unknown), not counts: the outputs say so
(:data:`KMAP_ASSUMPTIONS`, :data:`UNIQUENESS_ASSUMPTIONS`). :func:`estimate` does both for a dataset: the derived
k′ against the sample's classes, and how many sample uniques are population uniques (Dankar et al. 2012).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from privrisk._validation import check_choice, check_k, check_probability
from privrisk.errors import PrivriskError
from privrisk.io.files import write_csv
from privrisk.presence.measures import PresenceResult, delta_presence
from privrisk.presence.prepare import Levels, Source, prepare_presence

__all__ = [
    "KMAP_ASSUMPTIONS",
    "KMAP_MODELS",
    "UNIQUENESS_ASSUMPTIONS",
    "UNIQUENESS_MODELS",
    "KMapEstimate",
    "KMapModel",
    "UniquenessModel",
    "estimate",
    "kmap_derived_k",
    "population_uniqueness",
    "sampling_fraction_from",
]

KMapModel = Literal["poisson", "zero-truncated-poisson"]
KMAP_MODELS: tuple[KMapModel, ...] = ("poisson", "zero-truncated-poisson")

KMAP_ASSUMPTIONS = (
    "records sampled independently with the same probability f = n/N; population class sizes unknown; a "
    "population class of size k sends Poisson(f·k) members into the sample (El Emam and Dankar 2008, as ARX's KMap)"
)
"""What the k-map estimate assumes, in words (printed with every estimate)."""

UNIQUENESS_ASSUMPTIONS = (
    "a simple random sample; Zayatz: population class-size distribution as in the sample; Pitman: Pitman sampling "
    "formula (Hoshino 2001), maximum likelihood; SNB: shifted negative binomial class sizes (Chen and "
    "Keller-McNulty 1998), K by Shlosser's estimator; Dankar et al. 2012 choose Pitman when f ≤ 0.1, else the "
    "smaller of Zayatz and SNB"
)
"""What the population-uniqueness estimates assume, in words."""


MAX_POPULATION = 1e12
"""The largest population size accepted (the estimators' integer arithmetic stays exact below it)."""


def sampling_fraction_from(n: int, population_size: float | None, sampling_fraction: float | None) -> float:
    """f = n/N from the population size N or the sampling fraction f (one of them, not both).

    Example:
        >>> sampling_fraction_from(10, 200, None), sampling_fraction_from(10, None, 0.5)
        (0.05, 0.5)
    """
    if population_size is not None and sampling_fraction is None:
        if not isinstance(population_size, (int, float)) or not math.isfinite(population_size):
            raise PrivriskError(
                f"population_size: must be a finite number, got {population_size!r}", param="population_size"
            )
        if population_size > MAX_POPULATION:
            raise PrivriskError(
                f"population_size: {population_size:g} is larger than any population (at most {MAX_POPULATION:g})",
                param="population_size",
            )
        if population_size < n:
            raise PrivriskError(
                f"population_size: {population_size:g} is smaller than the dataset ({n:,} records)",
                param="population_size",
            )
        return n / population_size
    if sampling_fraction is not None and population_size is None:
        return float(check_probability(sampling_fraction, name="sampling_fraction", open_low=True))
    raise PrivriskError(
        "population_size: give either the population size or the sampling fraction", param="population_size"
    )


def kmap_derived_k(
    k: int,
    sampling_fraction: float,
    *,
    alpha: float = 0.05,
    model: KMapModel = "poisson",
    n: int | None = None,
) -> tuple[int, float]:
    """The sample class size k′ that stands for k-map (El Emam and Dankar 2008; ARX ``KMap``), and its type I error.

    Args:
        k: the k of k-map (population classes of at least k).
        sampling_fraction: f = n/N.
        alpha: the significance level α (the accepted probability of a wrong conclusion).
        model: ``poisson`` or ``zero-truncated-poisson``.
        n: the sample size (k′ is capped at it).

    Returns:
        ``(k′, type I error)`` where the error is 1 − (the cumulative probability reached).

    Example:
        >>> kmap_derived_k(5, 0.1, alpha=0.05)[0], kmap_derived_k(5, 0.1, alpha=0.05, model="zero-truncated-poisson")[0]
        (4, 3)
    """
    model = check_choice(model, KMAP_MODELS, name="model")
    alpha = float(check_probability(alpha, name="alpha", open_low=True, open_high=True))
    k = check_k(k, name="k")
    lam = sampling_fraction * k
    threshold = 1 - alpha
    from scipy import stats  # deferred: scipy.stats takes about a second to import

    dist = stats.poisson(lam)
    if model == "poisson":
        c = int(dist.ppf(threshold))
        while dist.cdf(c) < threshold:  # ppf is exact up to rounding; make sure
            c += 1
        reached, derived = float(dist.cdf(c)), c + 2
    else:
        p0 = float(dist.pmf(0))
        norm = -math.expm1(-lam)
        c = 1
        while (dist.cdf(c) - p0) / norm < threshold:
            c += 1
        reached, derived = float((dist.cdf(c) - p0) / norm), c + 1
    derived = min(derived, k)
    if n is not None:
        derived = min(derived, n)
    return int(derived), float(np.clip(1 - reached, 0, 1))


# ------------------------------------------------------------------ population uniqueness (Dankar et al. 2012)

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


# ------------------------------------------------------------------ the estimate for a dataset


@dataclass(frozen=True, eq=False)
class KMapEstimate:
    """k-map of a dataset estimated without a population table, with its assumptions.

    Attributes:
        model: the model of the derived k′ (``poisson`` or ``zero-truncated-poisson``).
        dataset: the dataset's name.
        qi: the quasi-identifiers.
        levels: the generalisation measured (``{column: level}``).
        n: the sample size.
        sampling_fraction: f = n/N.
        alpha: the significance level α.
        kmap: the k of k-map asked for.
        derived_k: k′, the sample class size that stands for k-map (:func:`kmap_derived_k`).
        type1_error: 1 − the cumulative probability reached for k′.
        k_anonymity: the smallest class of the sample.
        records_at_risk: records in sample classes smaller than k′.
        population_uniqueness: :func:`population_uniqueness` of the sample's classes.
        measured: the sample's classes (:class:`~privrisk.presence.PresenceResult` of the sample against itself).
    """

    model: KMapModel
    dataset: str
    qi: list[str]
    levels: dict[str, int]
    n: int
    sampling_fraction: float
    alpha: float
    kmap: int
    derived_k: int
    type1_error: float
    k_anonymity: int
    records_at_risk: int
    population_uniqueness: dict[str, Any]
    measured: PresenceResult

    @property
    def met(self) -> bool:
        """Whether every sample class holds at least k′ records (k-map holds with probability about 1 − error)."""
        return self.k_anonymity >= self.derived_k

    @property
    def classes(self) -> int:
        """The number of classes in the sample."""
        return len(self.measured.classes)

    def to_dict(self) -> dict[str, Any]:
        """The estimate as plain JSON, with ``"estimate": true`` and the assumptions in words."""
        return {
            "estimate": True,
            "model": self.model,
            "assumptions": KMAP_ASSUMPTIONS,
            "dataset": self.dataset,
            "qi": self.qi,
            "levels": self.levels,
            "n": self.n,
            "sampling_fraction": self.sampling_fraction,
            "alpha": self.alpha,
            "kmap": self.kmap,
            "derived_k": self.derived_k,
            "type1_error": self.type1_error,
            "k_anonymity": self.k_anonymity,
            "estimated_kmap_met": self.met,
            "records_at_risk": self.records_at_risk,
            "classes": self.classes,
            "population_uniqueness": {**self.population_uniqueness, "assumptions": UNIQUENESS_ASSUMPTIONS},
        }

    def finding(self) -> str:
        """The estimate in one sentence."""
        return (
            f"Estimate ({self.model} model): {self.kmap}-map holds with probability about {1 - self.type1_error:.3f} "
            f"when every sample class has at least {self.derived_k} records; {self.records_at_risk:,} records are "
            "in smaller classes."
        )

    def failure(self) -> str | None:
        """Why the estimate says k-map fails, in one line, or None when it holds."""
        if self.met:
            return None
        return (
            f"estimated k-map: sample classes of {self.k_anonymity} record(s) are below k′ = {self.derived_k} "
            f"({self.model} model, α = {self.alpha:g})"
        )

    def write_outputs(self, folder: str | os.PathLike[str]) -> list[str]:
        """Deprecated: :meth:`write` (one name for writing a result's files in every capability)."""
        import warnings

        warnings.warn(
            "KMapEstimate.write_outputs is deprecated; use KMapEstimate.write", DeprecationWarning, stacklevel=2
        )
        return self.write(folder)

    def write(self, folder: str | os.PathLike[str]) -> list[str]:
        """Write ``classes.csv`` and ``manifest.json`` into ``folder`` (atomically); return the tables written."""
        from privrisk.io.files import atomic_dir
        from privrisk.reports.manifest import write_manifest

        tables = [{"title": "Classes of the sample", "path": "classes.csv"}]
        with atomic_dir(Path(folder)) as tmp:
            write_csv(self.measured.classes.drop(columns=["population_count", "delta", "suppressed"]),
                      tmp / "classes.csv")  # fmt: skip
            write_manifest(tmp, kind="presence", title=f"Estimated k-map of {self.dataset}",
                           parameters={"qi": self.qi, "kmap": self.kmap, "model": self.model, "alpha": self.alpha,
                                       "sampling_fraction": self.sampling_fraction},
                           summary=self.to_dict(), tables=tables, findings=[self.finding()])  # fmt: skip
        return [t["path"] for t in tables]


def estimate(
    dataset: Source,
    qi: Sequence[str],
    *,
    kmap: int | None,
    population_size: float | None = None,
    sampling_fraction: float | None = None,
    model: KMapModel = "poisson",
    alpha: float = 0.05,
    hierarchies: Mapping[str, object] | None = None,
    levels: Levels = None,
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> KMapEstimate:
    """Estimate k-map of a dataset from the population size alone (El Emam and Dankar 2008; Dankar et al. 2012).

    The sample's classes (at ``levels`` of the ``hierarchies``) are compared with k′ from :func:`kmap_derived_k`,
    and their sizes give the population-uniqueness estimates of :func:`population_uniqueness`.

    Args:
        dataset: the sample (a file or a DataFrame).
        qi: the quasi-identifier columns.
        kmap: the k of k-map.
        population_size, sampling_fraction: the population size N or f = n/N (one of them).
        model: ``poisson`` or ``zero-truncated-poisson``.
        alpha: the significance level α.
        hierarchies, levels: the generalisation to measure (default: the raw values).
        engine, spark_master: where the grouping pass runs (:func:`~privrisk.presence.prepare_presence`).

    Example (the classes of 2 and 1 records are below k′ = 4):
        >>> import pandas as pd
        >>> T = pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 2]})
        >>> e = estimate(T, ["a"], kmap=5, sampling_fraction=0.1)
        >>> e.derived_k, e.records_at_risk, e.met
        (4, 3, False)
    """
    if kmap is None:
        raise PrivriskError(
            "kmap: the estimate without a population table needs the k of k-map", param="kmap"
        )
    kmap = check_k(kmap, name="kmap")
    model = check_choice(model, KMAP_MODELS, name="model")
    alpha = float(check_probability(alpha, name="alpha", open_low=True, open_high=True))
    prep = prepare_presence(
        dataset, dataset, qi, hierarchies=hierarchies, engine=engine, spark_master=spark_master
    )
    r = delta_presence(prep, levels=levels)
    n = prep.n_data
    f = sampling_fraction_from(n, population_size, sampling_fraction)
    derived, type1 = kmap_derived_k(kmap, f, alpha=alpha, model=model, n=n)
    sizes = r.classes["dataset_count"].to_numpy()
    return KMapEstimate(
        model=model,
        dataset=prep.dataset_label,
        qi=prep.qi,
        levels=r.levels,
        n=n,
        sampling_fraction=f,
        alpha=alpha,
        kmap=kmap,
        derived_k=derived,
        type1_error=type1,
        k_anonymity=r.summary["k_anonymity"],
        records_at_risk=int(sizes[sizes < derived].sum()),
        population_uniqueness=population_uniqueness(sizes, round(n / f)),
        measured=r,
    )
