"""δ-presence, k-anonymity and k-map of one generalisation of a research subset against a population.

The data holder releases a research subset T of a population P that an attacker can also see. Both are generalised
the same way; for each class c of quasi-identifier values (Nergiz, Atzori and Clifton 2007, Definition 3; explained
for practitioners by Desfontaines, "δ-presence, for when being in the dataset is sensitive"):

    δ_c = |T_c| / |P_c|.

A release is (δ_min, δ_max)-present when δ_min ≤ δ_c ≤ δ_max for every class. Following ARX
(``criteria/DPresence.java``), ``delta_min`` is taken over every population class, those without a research record
counting as 0; ``delta_min_present`` over the classes holding research records only. k-anonymity is the smallest
research class, k-map (Sweeney) the smallest population class among those holding research records.

How it scales: both tables are read once (:mod:`privrisk.presence.prepare`); each node is evaluated by mapping the
finest histograms' integer codes through the hierarchies' level arrays and aggregating
(:mod:`privrisk.presence.rollup`). Cost per node O(C_T + C_P + K): the numbers of finest classes in T and P and of
class keys at the node; never the number of rows.

Information loss (to choose among the minimal nodes of a search; all three are reported for every node):

- ``precision`` (Sweeney's Prec): the mean over released records and quasi-identifiers of level/(h_j − 1), a
  suppressed record counting 1 on every quasi-identifier. 0 = raw data, 1 = nothing released.
- ``height``: the normalised generalisation height, mean over quasi-identifiers of (level − base)/(top − base).
- ``discernibility`` (Bayardo and Agrawal's DM): Σ_c |T_c|² over released classes + (suppressed records) · |T|.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from privrisk._validation import check_k, check_probability
from privrisk.errors import PrivriskError
from privrisk.presence import rollup as _rollup
from privrisk.presence.prepare import Levels, Prepared, Source, prepare_presence

__all__ = ["PresenceResult", "TargetOptions", "Targets", "Violation", "delta_presence"]


# --------------------------------------------------------------------------------------------------- targets


class TargetOptions(TypedDict, total=False):
    """The targets a measure or a search takes by keyword, as :meth:`Targets.checked` reads them: ``delta_max``,
    ``delta_min`` (δ in [0, 1]), ``k``, ``kmap`` (whole numbers ≥ 1), each None or left out for not asked;
    ``suppression`` (a share in [0, 1), default 0)."""

    delta_max: float | None
    delta_min: float | None
    k: int | None
    kmap: int | None
    suppression: float


@dataclass(frozen=True)
class Targets:
    """The user's thresholds; ``None`` means not asked for.

    Example:
        >>> t = Targets.checked(delta_max=0.5, k=2)
        >>> t.any, t.text(), t.to_dict()
        (True, 'delta_max 0.5, k 2', {'delta_max': 0.5, 'delta_min': None, 'k': 2, 'kmap': None, 'suppression': 0.0})
    """

    delta_max: float | None = None
    delta_min: float | None = None
    k: int | None = None
    kmap: int | None = None
    suppression: float = 0.0

    @classmethod
    def checked(
        cls,
        delta_max: float | None = None,
        delta_min: float | None = None,
        k: int | None = None,
        kmap: int | None = None,
        suppression: float = 0.0,
    ) -> Targets:
        """The thresholds, each checked (δ in [0, 1], δ_min ≤ δ_max, k ≥ 1, suppression in [0, 1))."""
        for name, v in (("delta_max", delta_max), ("delta_min", delta_min)):
            if v is not None:
                check_probability(v, name=name)
        if delta_max is not None and delta_min is not None and delta_min > delta_max:
            raise PrivriskError(
                f"delta_min: {delta_min:g} is above the largest δ allowed, {delta_max:g}", param="delta_min"
            )
        k = None if k is None else check_k(k, name="k")
        kmap = None if kmap is None else check_k(kmap, name="kmap")
        check_probability(suppression, name="suppression", open_high=True)
        return cls(
            None if delta_max is None else float(delta_max),
            None if delta_min is None else float(delta_min),
            k,
            kmap,
            float(suppression),
        )

    def failing(self, data: np.ndarray, pop: np.ndarray) -> np.ndarray:
        """Research classes that violate k, k-map or δ_max (the ones suppression may remove)."""
        bad = self.failing_monotone(data, pop)
        if self.delta_max is not None:
            bad |= (data > 0) & (data > self.delta_max * pop)
        return bad

    def failing_monotone(self, data: np.ndarray, pop: np.ndarray) -> np.ndarray:
        """Research classes that violate k or k-map: the failures that generalising further can only reduce."""
        held = data > 0
        bad = np.zeros(data.shape, dtype=bool)
        if self.k is not None:
            bad |= data < self.k
        if self.kmap is not None:
            bad |= pop < self.kmap
        return held & bad

    @property
    def any(self) -> bool:
        """Whether any threshold is set (suppression alone is none)."""
        return any(x is not None for x in (self.delta_max, self.delta_min, self.k, self.kmap))

    def text(self, names: Mapping[str, str] | None = None) -> str:
        """The thresholds set, as ``delta_max 0.5, kmap 10`` (``names`` renames the parameters), or ``none``."""
        t = self.to_dict()
        asked = [
            f"{(names or {}).get(p, p)} {t[p]:g}"
            for p in ("delta_max", "delta_min", "k", "kmap")
            if t[p] is not None
        ]
        return ", ".join(asked) or "none"

    def to_dict(self) -> dict[str, Any]:
        """``{"delta_max", "delta_min", "k", "kmap", "suppression"}``, unset thresholds as None."""
        return {"delta_max": self.delta_max, "delta_min": self.delta_min, "k": self.k, "kmap": self.kmap,
                "suppression": self.suppression}  # fmt: skip


@dataclass(frozen=True)
class Violation:
    """A threshold that a measured generalisation misses.

    ``text()`` names the threshold by its parameter (``delta_max``); pass ``names`` to name it otherwise (the
    command line passes its options).

    Example:
        >>> v = Violation("δ_max", 1.0, "delta_max", 0.5)
        >>> str(v), v.text({"delta_max": "the largest δ allowed"})
        ('δ_max 1 exceeds delta_max 0.5', 'δ_max 1 exceeds the largest δ allowed 0.5')
    """

    measure: str  # "δ_max", "δ_min", "k-anonymity" or "k-map"
    value: float
    param: str  # the threshold's parameter: "delta_max", "delta_min", "k" or "kmap"
    target: float

    def text(self, names: Mapping[str, str] | None = None) -> str:
        """One sentence: the measure, its value, and the threshold it misses."""
        name = (names or {}).get(self.param, self.param)
        if self.param.startswith("delta"):
            value, target = f"{self.value:.4g}", f"{self.target:g}"
        else:
            value, target = f"{int(self.value)}", f"{int(self.target)}"
        verb = "exceeds" if self.param == "delta_max" else "is below"
        return f"{self.measure} {value} {verb} {name} {target}"

    def __str__(self) -> str:
        return self.text()


def _violations(s: Mapping[str, Any], t: Targets) -> tuple[Violation, ...]:
    out = []
    if t.delta_max is not None and s["delta_max"] > t.delta_max:
        out.append(Violation("δ_max", s["delta_max"], "delta_max", t.delta_max))
    if t.delta_min is not None and s["delta_min"] < t.delta_min:
        out.append(Violation("δ_min", s["delta_min"], "delta_min", t.delta_min))
    if t.k is not None and s["k_anonymity"] < t.k:
        out.append(Violation("k-anonymity", s["k_anonymity"], "k", t.k))
    if t.kmap is not None and s["k_map"] < t.kmap:
        out.append(Violation("k-map", s["k_map"], "kmap", t.kmap))
    return tuple(out)


# --------------------------------------------------------------------------------------------------- one node


def _ratio(data: np.ndarray, pop: np.ndarray) -> np.ndarray:
    out = np.zeros(data.shape, dtype=float)
    np.divide(data, pop, out=out, where=pop > 0)
    return out


@dataclass(frozen=True, eq=False)
class _NodeEval:
    levels: tuple[int, ...]
    rolled: _rollup.Rolled
    suppressed_class: np.ndarray
    passes: bool
    monotone_fail: bool
    summary: dict[str, Any]


def _evaluate(
    prep: Prepared, levels: Sequence[int], targets: Targets, every_class: bool = False
) -> _NodeEval:
    """Measure one node; suppress the failing research classes when they fit in the suppression budget.

    ``every_class``: list the population classes without research records too (a large grid otherwise counts
    only the classes holding research records, :func:`privrisk.presence.rollup.roll_up_present`).
    """
    if every_class and prep.roller is None and prep.cube is None:
        rolled = _rollup.roll_up(prep.enc, levels, every_class=True)
    else:
        rolled = prep.roll_up(levels)
    data, pop = rolled.data, rolled.pop
    budget = math.floor(targets.suppression * prep.n_data + 1e-9)
    fail = targets.failing(data, pop)
    n_fail = int(data[fail].sum())
    mono = targets.failing_monotone(data, pop)
    monotone_fail = int(data[mono].sum()) > budget
    suppress = fail if (n_fail and n_fail <= budget) else np.zeros(data.shape, dtype=bool)
    released = np.where(suppress, 0, data)
    summary = _summary(prep, levels, released, pop, targets, int(data[suppress].sum()), rolled.pop_only)
    passes = n_fail <= budget
    if targets.delta_min is not None and summary["delta_min"] < targets.delta_min:
        passes = False
    return _NodeEval(tuple(int(x) for x in levels), rolled, suppress, passes, monotone_fail, summary)


def _summary(
    prep: Prepared,
    levels: Sequence[int],
    data: np.ndarray,
    pop: np.ndarray,
    targets: Targets,
    suppressed: int,
    pop_only: int = 0,
) -> dict[str, Any]:
    """The node's measures; ``pop_only`` population classes without research records are not in the arrays."""
    held = data > 0
    ratio = _ratio(data, pop)
    has_pop = pop > 0
    # A population class without research records has δ = 0, whether listed or only tallied.
    delta_min = 0.0 if pop_only else (float(ratio[has_pop].min()) if has_pop.any() else 0.0)
    n_rel = int(data.sum())
    out: dict[str, Any] = {
        "levels": {name: int(levels[j]) for j, name in enumerate(prep.qi)},
        "n_dataset": prep.n_data,
        "n_population": prep.n_population,
        "n_released": n_rel,
        "suppressed": suppressed,
        "classes": int(held.sum()),
        "population_classes": int(has_pop.sum()) + pop_only,
        "delta_max": float(ratio[held].max()) if held.any() else 0.0,
        "delta_min": delta_min,
        "delta_min_present": float(ratio[held].min()) if held.any() else 0.0,
        "k_anonymity": int(data[held].min()) if held.any() else 0,
        "k_map": int(pop[held].min()) if held.any() else 0,
        "unique_records": int((data == 1).sum()),
        "records_at_risk": (
            int(data[held & (data > targets.delta_max * pop)].sum())
            if targets.delta_max is not None
            else None
        ),
    }
    out.update(_losses(prep, levels, data, suppressed))
    return out


def _losses(prep: Prepared, levels: Sequence[int], data: np.ndarray, suppressed: int) -> dict[str, float]:
    """The three information losses of a node (module docstring)."""
    enc = prep.enc
    q, n = len(levels), prep.n_data
    height, prec = 0.0, 0.0
    for j, lvl in enumerate(levels):
        span = enc.heights[j] - 1 - enc.base[j]
        height += (lvl - enc.base[j]) / span if span > 0 else 0.0
        prec += lvl / (enc.heights[j] - 1) if enc.heights[j] > 1 else 0.0
    released = n - suppressed
    return {
        "loss_height": height / q,
        "loss_precision": (released * prec + suppressed * q) / (n * q),
        "loss_discernibility": float(np.sum(data.astype(float) ** 2) + suppressed * float(n)),
    }


# --------------------------------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class PresenceResult:
    """One generalisation measured: per-class table and summary.

    Attributes:
        classes: one row per class holding research records (or every population class with
            ``all_classes=True``): the quasi-identifier labels, ``dataset_count``, ``population_count``, ``delta``
            and ``suppressed``; released classes first, highest δ on top.
        summary: ``delta_max``, ``delta_min`` (over all population classes, absent ones as 0),
            ``delta_min_present``, ``k_anonymity``, ``k_map``, ``classes``, ``unique_records``, ``records_at_risk``
            (records in classes with δ above ``delta_max``, if given), the levels and the information losses.
        levels: ``{column: level}`` of this generalisation.
        prepared: the tables it was measured on.
        violations: the thresholds it misses (:class:`Violation`).
        targets: the thresholds it was measured against.
    """

    classes: pd.DataFrame
    summary: dict[str, Any]
    levels: dict[str, int]
    prepared: Prepared
    violations: tuple[Violation, ...] = ()
    targets: Targets = Targets()

    def to_dict(self, *, rows: int = 200) -> dict[str, Any]:
        """``{"levels", "summary", "classes"}`` with the first ``rows`` classes as records (plain JSON)."""
        return {"levels": self.levels, "summary": self.summary, "classes": self.classes_records(rows)}

    def classes_records(self, rows: int = 200) -> list[dict[str, Any]]:
        """The first ``rows`` classes as a list of records."""
        return [
            {str(k): v for k, v in row.items()} for row in self.classes.head(rows).to_dict(orient="records")
        ]


def _result(prep: Prepared, ev: _NodeEval, targets: Targets, all_classes: bool = False) -> PresenceResult:
    r = ev.rolled
    keep = np.ones(r.data.shape, bool) if all_classes else r.data > 0
    table = prep.class_labels(ev.levels, r.codes[keep])
    table["dataset_count"] = r.data[keep]
    table["population_count"] = r.pop[keep]
    table["delta"] = _ratio(r.data[keep], r.pop[keep])
    table["suppressed"] = ev.suppressed_class[keep]
    # Released classes first (highest δ on top), suppressed ones after them.
    table = table.sort_values(["suppressed", "delta", "dataset_count"], ascending=[True, False, True],
                              kind="stable")  # fmt: skip
    return PresenceResult(table.reset_index(drop=True), ev.summary, ev.summary["levels"], prep,
                          _violations(ev.summary, targets), targets)  # fmt: skip


def delta_presence(
    dataset: Source | Prepared,
    population: Source | None = None,
    qi: Sequence[str] | None = None,
    *,
    hierarchies: Mapping[str, object] | None = None,
    levels: Levels = None,
    population_count: str | None = None,
    allow_inconsistent: bool = False,
    all_classes: bool = False,
    engine: str = "duckdb",
    spark_master: str | None = None,
    **targets: Unpack[TargetOptions],
) -> PresenceResult:
    """δ-presence, k-anonymity and k-map of one generalisation (Nergiz et al. 2007, Def. 3: δ_c = |T_c|/|P_c|).

    Args:
        dataset: the research subset T (file path or DataFrame), or a :class:`Prepared` from
            :func:`prepare_presence` (then ``population`` and ``qi`` are not needed).
        population: the population P (rows, or counts per class with ``population_count``).
        qi: the quasi-identifier columns.
        hierarchies: ``{column: spec}`` (see :mod:`privrisk.generalisation.hierarchy`); columns without one go raw → ``*``.
        levels: ``{column: level}`` or one level per column; default the finest.
        population_count: the column of P holding counts per class (P may then be coarser, e.g. age bands).
        delta_max, delta_min, k, kmap: thresholds, by keyword (:class:`TargetOptions`); violations are listed in
            ``violations`` (and ``records_at_risk`` counts research records in classes with δ above ``delta_max``).
        suppression: share of research records in classes failing k, k-map or δ_max that may be removed.
        allow_inconsistent: warn instead of failing when T is not part of P (see :func:`prepare_presence`).
        all_classes: list every population class, not only those holding research records.
        engine, spark_master: where the grouping pass runs (see :func:`prepare_presence`).

    Example (Desfontaines' worked example: δ = 1 with 10-year bands, 0.25 after widening to 10-39):
        >>> T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
        >>> P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"],
        ...                   "n": [5, 5, 10, 10, 20]})
        >>> h = {"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"}
        >>> r = delta_presence(T, P, ["zip", "age"], hierarchies=h, population_count="n", levels={"age": 1})
        >>> r.summary["delta_max"], r.summary["k_map"]
        (1.0, 5)
        >>> delta_presence(r.prepared, levels={"age": 2}).summary["delta_max"]
        0.25
    """
    prep = _prepared_from(
        dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine, spark_master
    )
    checked = Targets.checked(**targets)
    ev = _evaluate(prep, prep.levels_of(levels), checked, every_class=all_classes)
    return _result(prep, ev, checked, all_classes)


def _prepared_from(
    dataset: Source | Prepared,
    population: Source | None,
    qi: Sequence[str] | None,
    hierarchies: Mapping[str, object] | None,
    population_count: str | None,
    allow_inconsistent: bool,
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> Prepared:
    """``dataset`` itself if it is already prepared, else the dataset prepared against the population."""
    if isinstance(dataset, Prepared):
        return dataset
    if population is None or qi is None:
        raise PrivriskError(
            "population: give the population table and the quasi-identifiers", param="population"
        )
    return prepare_presence(dataset, population, qi, hierarchies=hierarchies, population_count=population_count,
                            allow_inconsistent=allow_inconsistent, engine=engine,
                            spark_master=spark_master)  # fmt: skip
