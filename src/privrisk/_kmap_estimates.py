"""k-map without a population table: El Emam and Dankar's Poisson and zero-truncated-Poisson rules, as ARX does.

When only the population size N (or the sampling fraction f = n/N) is known, a population class of size k is
modelled as sending a Poisson(f·k) number of its members into the sample (El Emam and Dankar 2008, "Protecting
privacy using k-anonymity", JAMIA 15(5)). ARX (``criteria/KMap.java``) turns k-map into k′-anonymity of the sample
with k′ from the smallest c whose Poisson cumulative probability reaches 1 − α:

- Poisson: k′ = c + 2 with c = min{c ≥ 0 : P(X ≤ c) ≥ 1 − α}, X ~ Poisson(f·k);
- zero-truncated Poisson (classes seen in the sample hold at least one record): k′ = c + 1 with
  c = min{c ≥ 1 : P(X ≤ c | X ≥ 1) ≥ 1 − α};

and k′ is capped at k and at the sample size. These are estimates under the model's assumptions (records sampled
independently with the same probability f; population class sizes unknown), not counts: the outputs say so.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .errors import PrivriskError

__all__ = ["KMAP_MODELS", "kmap_derived_k", "sampling_fraction_from"]

KMAP_MODELS = ("poisson", "zero-truncated-poisson")


def sampling_fraction_from(n: int, population_size: float | None, sampling_fraction: float | None) -> float:
    """f = n/N from ``--population-size`` N or ``--sampling-fraction`` f (not both)."""
    if (population_size is None) == (sampling_fraction is None):
        raise PrivriskError("--population-size: give either the population size or --sampling-fraction")
    if population_size is not None:
        if population_size < n:
            raise PrivriskError(
                f"--population-size: {population_size:g} is smaller than the dataset ({n:,} records)"
            )
        return n / population_size
    if not 0 < sampling_fraction <= 1:
        raise PrivriskError(f"--sampling-fraction: must lie in (0, 1], got {sampling_fraction:g}")
    return float(sampling_fraction)


def kmap_derived_k(
    k: int, sampling_fraction: float, *, alpha: float = 0.05, model: str = "poisson", n: int | None = None
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
    if model not in KMAP_MODELS:
        raise PrivriskError(f"--estimator: unknown model {model!r}; use one of {', '.join(KMAP_MODELS)}")
    if not 0 < alpha < 1:
        raise PrivriskError(f"--alpha: must lie in (0, 1), got {alpha:g}")
    if k < 1:
        raise PrivriskError(f"--kmap: must be at least 1, got {k}")
    lam = sampling_fraction * k
    threshold = 1 - alpha
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
