"""k-map of a dataset estimated without a population table: the sample's classes against k′ (El Emam and Dankar
2008), and how many sample uniques are population uniques (Dankar et al. 2012).

The models are :mod:`privrisk.generalisation.kmap` (the derived k′) and :mod:`privrisk.generalisation.uniqueness`;
:func:`estimate` measures a dataset's classes as δ-presence measures them (the sample against itself) and reads
both off them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privrisk._validation import check_choice, check_k, check_probability
from privrisk.errors import PrivriskError
from privrisk.generalisation.kmap import (
    KMAP_ASSUMPTIONS,
    KMAP_MODELS,
    KMapModel,
    kmap_derived_k,
    sampling_fraction_from,
)
from privrisk.generalisation.uniqueness import UNIQUENESS_ASSUMPTIONS, population_uniqueness
from privrisk.io.files import write_csv
from privrisk.presence.measures import PresenceResult, delta_presence
from privrisk.presence.prepare import Levels, Source, prepare_presence

__all__ = ["KMapEstimate", "estimate"]


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
            "KMapEstimate.write_outputs is deprecated; use KMapEstimate.write",
            DeprecationWarning,
            stacklevel=2,
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
