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
(:data:`KMAP_ASSUMPTIONS`). δ-presence's estimate of a dataset (:func:`privrisk.presence.estimate.estimate`)
compares the sample's classes with k′.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from privrisk._validation import check_choice, check_k, check_probability
from privrisk.errors import PrivriskError
from privrisk.generalisation.uniqueness import MAX_POPULATION

__all__ = ["KMAP_ASSUMPTIONS", "KMAP_MODELS", "KMapModel", "kmap_derived_k", "sampling_fraction_from"]

KMapModel = Literal["poisson", "zero-truncated-poisson"]
KMAP_MODELS: tuple[KMapModel, ...] = ("poisson", "zero-truncated-poisson")

KMAP_ASSUMPTIONS = (
    "records sampled independently with the same probability f = n/N; population class sizes unknown; a "
    "population class of size k sends Poisson(f·k) members into the sample (El Emam and Dankar 2008, as ARX's KMap)"
)
"""What the k-map estimate assumes, in words (printed with every estimate)."""


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
