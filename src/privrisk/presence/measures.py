"""δ-presence, k-anonymity and k-map of a research subset against a population, and the least generalisation.

The data holder releases a research subset T of a population P that an attacker can also see (a census table, a
voter list, the full cohort). Both are generalised the same way; for each class c of quasi-identifier values
(Nergiz, Atzori and Clifton 2007, Definition 3; seed 001):

    δ_c = |T_c| / |P_c|.

A release is (δ_min, δ_max)-present when δ_min ≤ δ_c ≤ δ_max for every class. Following ARX
(``criteria/DPresence.java``), ``delta_min`` is taken over every population class, those without a research record
counting as 0; ``delta_min_present`` over the classes holding research records only. k-anonymity is the smallest
research class, k-map (Sweeney) the smallest population class among those holding research records.

How it scales: each table is read once and grouped by DuckDB on the finest levels (a histogram; O(rows), once);
every node of the lattice is then evaluated by mapping that histogram's integer codes through the hierarchies' level arrays and
aggregating (:mod:`privrisk.presence.lattice`). Cost per node O(C_T + C_P + K): the numbers of finest classes in T and P
and of class keys at the node; never the number of rows. A search costs that times the nodes it evaluates (at most
the lattice size Π_j h_j).

Information loss (to choose among the minimal nodes; all three are reported):

- ``precision`` (default; Sweeney's Prec): the mean over released records and quasi-identifiers of
  level/(h_j − 1), a suppressed record counting 1 on every quasi-identifier. 0 = raw data, 1 = nothing released.
- ``height``: the normalised generalisation height, mean over quasi-identifiers of (level − base)/(top − base).
- ``discernibility`` (Bayardo and Agrawal's DM): Σ_c |T_c|² over released classes + (suppressed records) · |T|.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from privrisk.errors import PrivacyLeakWarning, PrivriskError
from privrisk.io.engine import SPARK_ROLLUP_CLASSES, check_engine
from privrisk.presence import lattice as _lattice
from privrisk.presence.hierarchy import TOP, Hierarchy, build_hierarchy

__all__ = [
    "LOSS_MEASURES",
    "Prepared",
    "PresenceResult",
    "SearchResult",
    "delta_presence",
    "prepare_presence",
    "search_generalisation",
]

LOSS_MEASURES = ("precision", "height", "discernibility")

Source = str | os.PathLike[str] | pd.DataFrame


# --------------------------------------------------------------------------------------------------- reading


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _as_text(column: pd.Series) -> pd.Series:
    from privrisk.presence.hierarchy import _key

    return column.map(lambda v: v if isinstance(v, str) or pd.isna(v) else str(_key(v)))


def _relation(con, p: Path, kind: str, text: Sequence[str]):
    from privrisk.io.engine import duckdb_relation

    return duckdb_relation(con, p, kind, text)


def _histogram(
    source: Source,
    qi: Sequence[str],
    count: str | None,
    what: str,
    text: Sequence[str] = (),
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> pd.DataFrame:
    """Group a table by the quasi-identifiers on the engine: one row per distinct combination, with column ``__n``."""
    from privrisk.io.engine import group_counts

    if isinstance(source, pd.DataFrame):
        hist = _histogram_frame(source, qi, count, what)
        for c in text:
            hist[c] = _as_text(hist[c])
        return hist
    hist, label = group_counts(source, qi, count=count, text=text, engine=engine, spark_master=spark_master)
    for c in text:
        hist[c] = _as_text(hist[c])
    return _checked(hist, qi, count, label)


def _histogram_frame(frame: pd.DataFrame, qi: Sequence[str], count: str | None, label: str) -> pd.DataFrame:
    """The same grouping for a DataFrame already in memory (pandas; DuckDB's start-up would dominate)."""
    from privrisk.io.data import check_columns

    check_columns(Path(label), [*qi, *([count] if count else [])], list(frame.columns))
    if count:
        if not pd.api.types.is_numeric_dtype(frame[count]):
            raise PrivriskError(f"{label}: the count column {count!r} is not numeric ({frame[count].dtype})")
        grouped = frame.groupby(list(qi), dropna=False, sort=False)[count].agg(["sum", "min"])
        hist = grouped.rename(columns={"sum": "__n", "min": "__min"}).reset_index()
        hist["__n"] = hist["__n"].astype(float)
    else:
        hist = frame.groupby(list(qi), dropna=False, sort=False).size().rename("__n").reset_index()
        hist["__min"] = 0
    return _checked(hist, qi, count, label)


def _checked(hist: pd.DataFrame, qi: Sequence[str], count: str | None, label: str) -> pd.DataFrame:
    for c in qi:
        if hist[c].isna().any():
            rows = int(hist.loc[hist[c].isna(), "__n"].sum())
            raise PrivriskError(
                f"{label}: column {c!r} has {rows:,} empty values; drop or fill them before measuring presence"
            )
    if count:
        if (hist["__min"] < 0).any() or hist["__n"].isna().any():
            raise PrivriskError(f"{label}: the count column {count!r} holds negative or empty counts")
        if np.any(np.mod(hist["__n"].to_numpy(dtype=float), 1) != 0):
            raise PrivriskError(
                f"{label}: the count column {count!r} holds counts that are not whole numbers"
            )
    hist["__n"] = hist["__n"].astype(np.int64)
    hist = hist.drop(columns="__min")
    return hist[hist["__n"] > 0].reset_index(drop=True)


# --------------------------------------------------------------------------------------------------- encoding

_BIN = re.compile(
    r"^\s*(?:(?P<a>-?\d+(?:\.\d+)?)\s*-\s*(?P<b>-?\d+(?:\.\d+)?)|(?P<c>-?\d+(?:\.\d+)?)\s*\+|"
    r"\[\s*(?P<d>-?[\d.]+)\s*,\s*(?P<e>-?[\d.]+|inf)\s*\))\s*$"
)


def _parse_bin(label: str) -> tuple[float, float, bool] | None:
    """``10-19`` → (10, 19, closed); ``50+`` → (50, inf); ``[10,20)`` → (10, 20, half-open)."""
    m = _BIN.match(str(label))
    if not m:
        return None
    if m["a"] is not None:
        return float(m["a"]), float(m["b"]), True
    if m["c"] is not None:
        return float(m["c"]), math.inf, True
    return float(m["d"]), float(m["e"]), False


def _keys_of(values: np.ndarray) -> list:
    from privrisk.presence.hierarchy import _key

    return [_key(v) for v in values]


def _factor(column: pd.Series) -> tuple[np.ndarray, list]:
    codes, uniques = pd.factorize(column, sort=False)
    return codes.astype(np.int64), _keys_of(np.asarray(uniques, dtype=object))


@dataclass
class _QIPlan:
    name: str
    hierarchy: Hierarchy
    base: int
    data_base: np.ndarray  # base code per data unique value
    pop_base: np.ndarray  # base code per population unique value
    base_labels: np.ndarray
    maps: tuple  # per level: base code -> level code (None below base)
    sizes: tuple


def _plan_qi(
    name: str, spec, d_uniques: list, p_uniques: list, coarse_allowed: bool, pop_label: str
) -> _QIPlan:
    d_set = set(d_uniques)
    coarse = coarse_allowed and not all(v in d_set for v in p_uniques)
    bins = [_parse_bin(v) for v in p_uniques] if coarse else []
    if coarse and bins and all(b is not None for b in bins) and not d_set & set(p_uniques):
        return _plan_binned(name, spec, d_uniques, p_uniques, bins, pop_label)
    if coarse and not d_set & set(p_uniques):
        plan = _plan_labelled(name, spec, d_uniques, p_uniques)
        if plan is not None:
            return plan
    h = build_hierarchy(name, spec, list(d_uniques) + list(p_uniques))
    index = {v: i for i, v in enumerate(h.domain.tolist())}
    d0 = np.asarray([index[v] for v in d_uniques], dtype=np.int64)
    p0 = np.asarray([index[v] for v in p_uniques], dtype=np.int64)
    maps = tuple(h.codes)
    return _QIPlan(name, h, 0, d0, p0, h.labels[0], maps, tuple(h.sizes()))


def _full_domain(spec) -> list | None:
    """Every raw value a table or mapping hierarchy knows (not only those in the data)."""
    from privrisk.presence.hierarchy import _key

    if isinstance(spec, Mapping):
        return [_key(v) for v in spec]
    if isinstance(spec, str) and spec.startswith("table:"):
        path = Path(spec[len("table:") :])
        if path.exists():
            text = path.read_text(encoding="utf-8-sig").splitlines()
            sep = ";" if text and ";" in text[0] else ","
            return [_key(_numeric_or_text(line.split(sep)[0].strip())) for line in text if line.strip()]
    return None


def _numeric_or_text(text: str):
    try:
        return int(text)
    except ValueError:
        return text


def _plan_labelled(name, spec, d_uniques, p_uniques) -> _QIPlan | None:
    """The population gives labels of a level of a table or mapping hierarchy (regions where T has states)."""
    domain = _full_domain(spec)
    if domain is None:
        return None
    seen = set(d_uniques)
    h = build_hierarchy(name, spec, list(d_uniques) + [v for v in domain if v not in seen])
    wanted = {str(v) for v in p_uniques}
    for level in range(1, h.height):
        lookup = {lab: c for c, lab in enumerate(h.labels[level].tolist())}
        if wanted <= set(lookup):
            index = {v: i for i, v in enumerate(h.domain.tolist())}
            d_base = np.asarray([h.codes[level][index[v]] for v in d_uniques], dtype=np.int64)
            p_base = np.asarray([lookup[str(v)] for v in p_uniques], dtype=np.int64)
            n = len(h.labels[level])
            maps: list[np.ndarray | None] = [None] * h.height
            for lvl in range(level, h.height):
                m = np.zeros(n, dtype=np.int64)
                m[h.codes[level]] = h.codes[lvl]
                maps[lvl] = m
            return _QIPlan(name, h, level, d_base, p_base, h.labels[level], tuple(maps), tuple(h.sizes()))
    return None


def _plan_binned(name, spec, d_uniques, p_uniques, bins, pop_label) -> _QIPlan:
    """The population gives bins ("10-19") of a value the research subset holds raw: map raw values into them."""
    lo = np.asarray([b[0] for b in bins])
    hi = np.asarray([b[1] for b in bins])
    closed = np.asarray([b[2] for b in bins])
    order = np.argsort(lo, kind="stable")
    lo, hi, closed = lo[order], hi[order], closed[order]
    labels = np.asarray([str(p_uniques[i]) for i in order], dtype=object)
    pop_base = np.empty(len(p_uniques), dtype=np.int64)
    pop_base[order] = np.arange(len(p_uniques))
    d_base = np.empty(len(d_uniques), dtype=np.int64)
    for i, v in enumerate(d_uniques):
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise PrivriskError(
                f"{pop_label}: the value {v!r} of {name!r} cannot be placed in the population's bins"
            ) from None
        inside = (lo <= x) & np.where(closed, x <= hi, x < hi)
        hits = np.flatnonzero(inside)
        if hits.size == 0:
            raise PrivriskError(f"{pop_label}: the value {v!r} of {name!r} maps to no bin of the population")
        if hits.size > 1:
            raise PrivriskError(
                f"{pop_label}: the value {v!r} of {name!r} maps to two bins of the population: "
                f"{labels[hits[0]]!r} and {labels[hits[1]]!r}"
            )
        d_base[i] = hits[0]
    # Levels above the bins: the user's hierarchy evaluated on each bin's ends, which must agree (nesting).
    upper: list[np.ndarray] = []
    upper_labels: list[np.ndarray] = []
    if spec is not None and not isinstance(spec, Hierarchy | Mapping):
        tops = [h_ if c else h_ - 1e-9 for h_, c in zip(hi.tolist(), closed.tolist(), strict=True)]
        h = build_hierarchy(name, spec, sorted({*lo.tolist(), *(t for t in tops if math.isfinite(t))}))
        for lvl in range(1, h.height - 1):
            a = list(h.generalise(lo.tolist(), lvl))
            b = [h.label(t, lvl) if math.isfinite(t) else a[i] for i, t in enumerate(tops)]
            if a != b:
                raise PrivriskError(
                    f"hierarchy {name!r}: not nested: a population bin falls into two labels of level {lvl}"
                )
            for i in np.flatnonzero(~np.isfinite(hi)):
                # An open bin ("50+") reaches past its label ("40-59"): merge it with every bin from that label's
                # lower edge up ("40+"), so that the level still coarsens the bins.
                parsed = _parse_bin(a[i])
                if parsed is not None and math.isfinite(parsed[1]):
                    edge = parsed[0]
                    for m in np.flatnonzero(lo >= edge):
                        a[m] = f"{edge:g}+"
            uniq, inv = np.unique(np.asarray(a, dtype=object), return_inverse=True)
            if 1 < len(uniq) < len(labels) and (not upper or len(uniq) < len(upper_labels[-1])):
                upper.append(inv.astype(np.int64).ravel())
                upper_labels.append(uniq)
    n = len(labels)
    maps = [np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64), *upper, np.zeros(n, dtype=np.int64)]
    all_labels = [labels, labels, *upper_labels, np.asarray([TOP], dtype=object)]
    domain = np.empty(len(d_uniques), dtype=object)
    domain[:] = list(d_uniques)
    codes = tuple([np.arange(len(d_uniques), dtype=np.int64)] + [m[d_base] for m in maps[1:]])
    raw_labels = np.asarray([str(v) for v in d_uniques], dtype=object)
    h = Hierarchy(name, domain, codes, (raw_labels, *all_labels[1:]), "population bins")
    maps[0] = None
    return _QIPlan(name, h, 1, d_base, pop_base, labels, tuple(maps), tuple(len(x) for x in all_labels))


@dataclass
class Prepared:
    """Both tables read once and encoded: everything a node evaluation or a search needs."""

    qi: list[str]
    plans: list[_QIPlan]
    enc: _lattice.Encoded
    n_data: int
    n_population: int
    inconsistent: pd.DataFrame
    dataset_label: str
    population_label: str
    notes: list[str] = field(default_factory=list)
    engine: str = "duckdb"
    # Rolls the finest histogram up to a node; None: locally (numpy), else e.g. an engine.SparkRollUp.
    roller: Callable[..., _lattice.Rolled] | None = field(default=None, repr=False)

    def roll_up(self, levels) -> _lattice.Rolled:
        return self.roller(levels) if self.roller is not None else _lattice.roll_up(self.enc, levels)

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        return {p.name: p.hierarchy for p in self.plans}

    def label_codes(self, j: int, level: int, codes: np.ndarray) -> np.ndarray:
        return self.plans[j].hierarchy.labels[level][codes]

    def levels_of(self, levels) -> tuple[int, ...]:
        """Read levels: None (the finest), a sequence, or a mapping {qi: level}; check their range."""
        if levels is None:
            return tuple(self.enc.base)
        if isinstance(levels, Mapping):
            unknown = [k for k in levels if k not in self.qi]
            if unknown:
                raise PrivriskError(
                    f"--levels: {unknown[0]!r} is not a quasi-identifier ({', '.join(self.qi)})"
                )
            out = [int(levels.get(name, self.enc.base[j])) for j, name in enumerate(self.qi)]
        else:
            out = [int(x) for x in levels]
            if len(out) != len(self.qi):
                raise PrivriskError(
                    f"--levels: give one level per quasi-identifier ({len(self.qi)}), got {len(out)}"
                )
        for j, lvl in enumerate(out):
            lo, hi = self.enc.base[j], self.enc.heights[j] - 1
            if not lo <= lvl <= hi:
                raise PrivriskError(
                    f"--levels: level {lvl} of {self.qi[j]!r} is outside {lo}..{hi} (its hierarchy's levels)"
                )
        return tuple(out)


def prepare_presence(
    dataset: Source,
    population: Source,
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, object] | None = None,
    population_count: str | None = None,
    allow_inconsistent: bool = False,
    engine: str = "duckdb",
    spark_master: str | None = None,
    spark_rollup_classes: int = SPARK_ROLLUP_CLASSES,
) -> Prepared:
    """Read the research subset and the population once (grouped on the quasi-identifiers) and encode them.

    ``engine="spark"`` runs the grouping pass (the only pass over rows) in Apache Spark on ``spark_master``
    (default ``local[*]``; an active SparkSession is reused) from CSV or Parquet files, folders or URIs, or from
    Spark DataFrames (pandas DataFrames are already in memory and are grouped locally); the histograms come back
    to the driver. When they hold more than ``spark_rollup_classes``
    finest classes, every roll-up to a lattice node runs in Spark too (:class:`privrisk.io.engine.SparkRollUp`).
    The results are the same on both engines.

    Raises:
        PrivriskError: bad files or columns, values a hierarchy cannot place, and a research subset that is not
            part of the population (a class with no population class, or with more records than its population
            class), listing up to five such classes, unless ``allow_inconsistent`` (then a
            :class:`PrivacyLeakWarning`, and each such population class is raised to the research count).
    """
    qi = list(qi)
    if not qi:
        raise PrivriskError("--qi: name at least one quasi-identifier column")
    if len(set(qi)) != len(qi):
        raise PrivriskError(f"--qi: a column is named twice: {', '.join(qi)}")
    hierarchies = dict(hierarchies or {})
    unknown = [k for k in hierarchies if k not in qi]
    if unknown:
        raise PrivriskError(
            f"--hierarchy: {unknown[0]!r} is not one of the quasi-identifiers ({', '.join(qi)})"
        )
    engine = check_engine(engine)
    d_label = _label(dataset, "dataset")
    p_label = _label(population, "population")
    # Codes such as ZIP are text: read them as text so that 01234 keeps its leading zero.
    text = _text_columns(hierarchies)
    dh = _histogram(dataset, qi, None, "dataset", text, engine, spark_master)
    ph = _histogram(population, qi, population_count, "population", text, engine, spark_master)
    if dh.empty:
        raise PrivriskError(f"{d_label}: no records")
    if ph.empty:
        raise PrivriskError(f"{p_label}: no records")
    plans, d_cols, p_cols = [], [], []
    for name in qi:
        d_idx, d_uni = _factor(dh[name])
        p_idx, p_uni = _factor(ph[name])
        plan = _plan_qi(name, hierarchies.get(name), d_uni, p_uni, population_count is not None, p_label)
        plans.append(plan)
        d_cols.append(plan.data_base[d_idx])
        p_cols.append(plan.pop_base[p_idx])
    enc = _lattice.Encoded(
        data_codes=np.stack(d_cols, axis=1),
        data_counts=dh["__n"].to_numpy(np.int64),
        pop_codes=np.stack(p_cols, axis=1),
        pop_counts=ph["__n"].to_numpy(np.int64),
        base=tuple(p.base for p in plans),
        heights=tuple(p.hierarchy.height for p in plans),
        maps=tuple(p.maps for p in plans),
        sizes=tuple(p.sizes for p in plans),
    )
    rolled = _lattice.roll_up(enc, enc.base)
    bad = np.flatnonzero(rolled.data > rolled.pop)
    prep = Prepared(qi, plans, enc, int(enc.data_counts.sum()), int(enc.pop_counts.sum()), pd.DataFrame(),
                    d_label, p_label)  # fmt: skip
    if bad.size:
        table = _class_labels(prep, enc.base, rolled.codes[bad])
        table["dataset_count"] = rolled.data[bad]
        table["population_count"] = rolled.pop[bad]
        prep.inconsistent = table
        shown = "; ".join(
            "(" + ", ".join(str(row[c]) for c in qi) + f"): {row['dataset_count']} in the dataset, "
            f"{row['population_count']} in the population"
            for row in table.head(5).to_dict(orient="records")
        )
        message = (
            f"{d_label}: {bad.size:,} class(es) of the research subset are not in the population or have more "
            f"records than it: {shown}"
        )
        if not allow_inconsistent:
            raise PrivriskError(message + " (use --allow-inconsistent to continue)")
        warnings.warn(message + "; their population counts are raised to the research counts", PrivacyLeakWarning,
                      stacklevel=2)  # fmt: skip
        prep.notes.append(message)
        # Treat the research subset as part of the population: add the shortfall at the finest level.
        lift = rolled.data[bad] - rolled.pop[bad]
        enc = _lattice.Encoded(
            data_codes=enc.data_codes,
            data_counts=enc.data_counts,
            pop_codes=np.concatenate([enc.pop_codes, rolled.codes[bad]]),
            pop_counts=np.concatenate([enc.pop_counts, lift]),
            base=enc.base,
            heights=enc.heights,
            maps=enc.maps,
            sizes=enc.sizes,
        )
        prep.enc = enc
        prep.n_population = int(enc.pop_counts.sum())
    prep.engine = engine
    classes = prep.enc.data_codes.shape[0] + prep.enc.pop_codes.shape[0]
    if engine == "spark" and classes > spark_rollup_classes:
        from privrisk.io.engine import SparkRollUp

        prep.roller = SparkRollUp(prep.enc, spark_master)
        prep.notes.append(f"{classes:,} finest classes: the lattice roll-ups run in Spark")
    return prep


def _label(source, what: str) -> str:
    if isinstance(source, pd.DataFrame):
        return what
    if type(source).__module__.startswith("pyspark."):
        return f"{what} (Spark DataFrame)"
    return str(source)


def _text_columns(hierarchies: Mapping[str, object]) -> list[str]:
    return [
        c for c, spec in hierarchies.items() if isinstance(spec, str) and spec.strip().lower() == "prefix"
    ]


def _class_labels(prep: Prepared, levels, codes: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({name: prep.label_codes(j, levels[j], codes[:, j]) for j, name in enumerate(prep.qi)})


# --------------------------------------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Targets:
    """The user's thresholds; ``None`` means not asked for."""

    delta_max: float | None = None
    delta_min: float | None = None
    k: int | None = None
    kmap: int | None = None
    suppression: float = 0.0

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
        return any(x is not None for x in (self.delta_max, self.delta_min, self.k, self.kmap))


def _ratio(data: np.ndarray, pop: np.ndarray) -> np.ndarray:
    out = np.zeros(data.shape, dtype=float)
    np.divide(data, pop, out=out, where=pop > 0)
    return out


@dataclass
class _NodeEval:
    levels: tuple[int, ...]
    rolled: _lattice.Rolled
    suppressed_class: np.ndarray
    passes: bool
    monotone_fail: bool
    summary: dict


def _evaluate(prep: Prepared, levels, targets: Targets) -> _NodeEval:
    rolled = prep.roll_up(levels)
    data, pop = rolled.data, rolled.pop
    budget = math.floor(targets.suppression * prep.n_data + 1e-9)
    fail = targets.failing(data, pop)
    n_fail = int(data[fail].sum())
    mono = targets.failing_monotone(data, pop)
    monotone_fail = int(data[mono].sum()) > budget
    suppress = fail if (n_fail and n_fail <= budget) else np.zeros(data.shape, dtype=bool)
    released = np.where(suppress, 0, data)
    summary = _summary(prep, levels, released, pop, targets, int(data[suppress].sum()))
    passes = n_fail <= budget
    if targets.delta_min is not None and summary["delta_min"] < targets.delta_min:
        passes = False
    return _NodeEval(tuple(int(x) for x in levels), rolled, suppress, passes, monotone_fail, summary)


def _summary(prep: Prepared, levels, data, pop, targets: Targets, suppressed: int) -> dict:
    held = data > 0
    ratio = _ratio(data, pop)
    has_pop = pop > 0
    n_rel = int(data.sum())
    out = {
        "levels": {name: int(levels[j]) for j, name in enumerate(prep.qi)},
        "n_dataset": prep.n_data,
        "n_population": prep.n_population,
        "n_released": n_rel,
        "suppressed": suppressed,
        "classes": int(held.sum()),
        "population_classes": int(has_pop.sum()),
        "delta_max": float(ratio[held].max()) if held.any() else 0.0,
        "delta_min": float(ratio[has_pop].min()) if has_pop.any() else 0.0,
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


def _losses(prep: Prepared, levels, data, suppressed: int) -> dict:
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


@dataclass
class PresenceResult:
    """One generalisation measured: per-class table and summary.

    ``classes`` has one row per class holding research records (or every population class with
    ``all_classes=True``): the quasi-identifier labels, ``dataset_count``, ``population_count``, ``delta`` and
    ``suppressed``. ``summary`` holds ``delta_max``, ``delta_min`` (over all population classes, absent ones as 0),
    ``delta_min_present``, ``k_anonymity``, ``k_map``, ``classes``, ``unique_records``, ``records_at_risk`` (records
    in classes with δ above ``delta_max``, if given), the levels and the information losses.
    """

    classes: pd.DataFrame
    summary: dict
    levels: dict[str, int]
    prepared: Prepared
    violations: list[str] = field(default_factory=list)


def _result(prep: Prepared, ev: _NodeEval, targets: Targets, all_classes: bool = False) -> PresenceResult:
    r = ev.rolled
    keep = np.ones(r.data.shape, bool) if all_classes else r.data > 0
    table = _class_labels(prep, ev.levels, r.codes[keep])
    table["dataset_count"] = r.data[keep]
    table["population_count"] = r.pop[keep]
    table["delta"] = _ratio(r.data[keep], r.pop[keep])
    table["suppressed"] = ev.suppressed_class[keep]
    # Released classes first (highest δ on top), suppressed ones after them.
    table = table.sort_values(["suppressed", "delta", "dataset_count"], ascending=[True, False, True],
                              kind="stable")  # fmt: skip
    return PresenceResult(table.reset_index(drop=True), ev.summary, ev.summary["levels"], prep,
                          _violations(ev.summary, targets))  # fmt: skip


def _violations(s: dict, t: Targets) -> list[str]:
    out = []
    if t.delta_max is not None and s["delta_max"] > t.delta_max:
        out.append(f"δ_max {s['delta_max']:.4g} exceeds --delta-max {t.delta_max:g}")
    if t.delta_min is not None and s["delta_min"] < t.delta_min:
        out.append(f"δ_min {s['delta_min']:.4g} is below --delta-min {t.delta_min:g}")
    if t.k is not None and s["k_anonymity"] < t.k:
        out.append(f"k-anonymity {s['k_anonymity']} is below --k {t.k}")
    if t.kmap is not None and s["k_map"] < t.kmap:
        out.append(f"k-map {s['k_map']} is below --kmap {t.kmap}")
    return out


def _targets(delta_max, delta_min, k, kmap, suppression) -> Targets:
    for name, v in (("--delta-max", delta_max), ("--delta-min", delta_min)):
        if v is not None and not 0 <= v <= 1:
            raise PrivriskError(f"{name}: must lie between 0 and 1, got {v:g}")
    if delta_max is not None and delta_min is not None and delta_min > delta_max:
        raise PrivriskError(f"--delta-min: {delta_min:g} is above --delta-max {delta_max:g}")
    for name, v in (("--k", k), ("--kmap", kmap)):
        if v is not None and v < 1:
            raise PrivriskError(f"{name}: must be at least 1, got {v}")
    if not 0 <= suppression < 1:
        raise PrivriskError(f"--suppression: must lie in [0, 1), got {suppression:g}")
    return Targets(delta_max, delta_min, k, kmap, float(suppression))


def delta_presence(
    dataset: Source | Prepared,
    population: Source | None = None,
    qi: Sequence[str] | None = None,
    *,
    hierarchies: Mapping[str, object] | None = None,
    levels=None,
    population_count: str | None = None,
    delta_max: float | None = None,
    delta_min: float | None = None,
    k: int | None = None,
    kmap: int | None = None,
    suppression: float = 0.0,
    allow_inconsistent: bool = False,
    all_classes: bool = False,
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> PresenceResult:
    """δ-presence, k-anonymity and k-map of one generalisation (Nergiz et al. 2007, Def. 3: δ_c = |T_c|/|P_c|).

    Args:
        dataset: the research subset T (file path or DataFrame), or a :class:`Prepared` from
            :func:`prepare_presence` (then ``population`` and ``qi`` are not needed).
        population: the population P (rows, or counts per class with ``population_count``).
        qi: the quasi-identifier columns.
        hierarchies: ``{column: spec}`` (see :mod:`privrisk.presence.hierarchy`); columns without one go raw → ``*``.
        levels: ``{column: level}`` or one level per column; default the finest.
        population_count: the column of P holding counts per class (P may then be coarser, e.g. age bands).
        delta_max, delta_min, k, kmap: thresholds; violations are listed in ``violations`` (and
            ``records_at_risk`` counts research records in classes with δ above ``delta_max``).
        suppression: share of research records in classes failing k, k-map or δ_max that may be removed.
        engine, spark_master: where the grouping pass runs (see :func:`prepare_presence`).

    Example (seed 001: δ = 1 with 10-year bands, 0.25 after widening to 10-39):
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
    prep = _prepare_from(
        dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine, spark_master
    )
    targets = _targets(delta_max, delta_min, k, kmap, suppression)
    ev = _evaluate(prep, prep.levels_of(levels), targets)
    return _result(prep, ev, targets, all_classes)


def _prepare_from(dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine="duckdb",
                  spark_master=None) -> Prepared:  # fmt: skip
    """``dataset`` itself if it is already prepared, else the dataset prepared against the population."""
    if isinstance(dataset, Prepared):
        return dataset
    if population is None or qi is None:
        raise PrivriskError("--population: give the population table and the quasi-identifiers")
    return prepare_presence(dataset, population, qi, hierarchies=hierarchies, population_count=population_count,
                            allow_inconsistent=allow_inconsistent, engine=engine,
                            spark_master=spark_master)  # fmt: skip


# --------------------------------------------------------------------------------------------------- search


@dataclass
class SearchResult:
    """The least generalisation(s) meeting the targets.

    ``minimal`` lists every minimal passing node (no passing node below it) with its metrics; ``best`` is the one
    of least information loss (``loss``), measured in full; ``nodes`` is the lattice with each node's status
    (``pass``/``fail``) and whether it was evaluated or tagged by monotonicity; ``evaluated`` counts evaluations.
    """

    minimal: pd.DataFrame
    best: PresenceResult | None
    nodes: pd.DataFrame
    evaluated: int
    loss: str
    monotone: bool


def search_generalisation(
    dataset: Source | Prepared,
    population: Source | None = None,
    qi: Sequence[str] | None = None,
    *,
    hierarchies: Mapping[str, object] | None = None,
    population_count: str | None = None,
    delta_max: float | None = None,
    delta_min: float | None = None,
    k: int | None = None,
    kmap: int | None = None,
    suppression: float = 0.0,
    loss: str = "precision",
    allow_inconsistent: bool = False,
    max_nodes: int = 500_000,
    progress=None,
    engine: str = "duckdb",
    spark_master: str | None = None,
) -> SearchResult:
    """Every minimal generalisation meeting the targets, and the one of least information loss.

    Without suppression δ_max, δ_min, k-anonymity and k-map are monotone (merging classes c, c' gives a ratio
    (T_c + T_c')/(P_c + P_c') between theirs and larger counts), so a generalisation of a passing node passes and
    a specialisation of a failing node fails: both are tagged without evaluation (predictive tagging, Flash).
    With ``suppression`` only the k-anonymity and k-map part stays monotone (the records in classes below k or
    k-map only shrink as the node is generalised); a node failing that part tags its specialisations failing, and
    every other node is evaluated, so the result equals an exhaustive search.

    Example:
        >>> T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
        >>> P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"],
        ...                   "n": [5, 5, 10, 10, 20]})
        >>> s = search_generalisation(T, P, ["zip", "age"], population_count="n", delta_max=0.5,
        ...                           hierarchies={"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"})
        >>> s.best.levels, s.best.summary["delta_max"]
        ({'zip': 0, 'age': 2}, 0.25)
    """
    if loss not in LOSS_MEASURES:
        raise PrivriskError(f"--loss: unknown measure {loss!r}; use one of {', '.join(LOSS_MEASURES)}")
    prep = _prepare_from(
        dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine, spark_master
    )
    targets = _targets(delta_max, delta_min, k, kmap, suppression)
    if not targets.any:
        raise PrivriskError("--search: give at least one target (--delta-max, --delta-min, --k or --kmap)")
    enc = prep.enc
    size = math.prod(h - b for h, b in zip(enc.heights, enc.base, strict=True))
    if size > max_nodes:
        raise PrivriskError(
            f"--search: the lattice has {size:,} nodes (more than {max_nodes:,}); fix some levels or use "
            "hierarchies with fewer levels"
        )
    nodes = enc.nodes()
    monotone = targets.suppression == 0 or (targets.delta_max is None and targets.delta_min is None)
    status = np.zeros(len(nodes), dtype=np.int8)  # 0 unknown, 1 pass, -1 fail
    evaluated = np.zeros(len(nodes), dtype=bool)
    summaries: dict[int, dict] = {}
    for i in _lattice.bisection_order(nodes, enc.base):
        if status[i] != 0:
            continue
        ev = _evaluate(prep, nodes[i], targets)
        evaluated[i] = True
        summaries[int(i)] = ev.summary
        if progress:
            progress()
        if ev.passes:
            status[i] = 1
            if monotone:
                up = np.all(nodes >= nodes[i], axis=1) & (status == 0)
                status[up] = 1
        else:
            status[i] = -1
            if monotone or ev.monotone_fail:
                down = np.all(nodes <= nodes[i], axis=1) & (status == 0)
                status[down] = -1
    passing = status == 1
    mins = _lattice.minimal(nodes, passing)
    rows = []
    for i in mins:
        s = summaries.get(int(i)) or _evaluate(prep, nodes[i], targets).summary
        summaries[int(i)] = s
        rows.append({**{f"level_{n}": int(nodes[i][j]) for j, n in enumerate(prep.qi)}, **_flat(s)})
    minimal_table = pd.DataFrame(rows)
    best = None
    if rows:
        minimal_table = minimal_table.sort_values(
            [f"loss_{loss}", "loss_height", *[f"level_{n}" for n in prep.qi]], kind="stable"
        ).reset_index(drop=True)
        first = minimal_table.iloc[0]
        best_levels = tuple(int(first[f"level_{n}"]) for n in prep.qi)
        best = _result(prep, _evaluate(prep, best_levels, targets), targets)
    node_table = pd.DataFrame(nodes, columns=[f"level_{n}" for n in prep.qi])
    node_table["status"] = np.where(passing, "pass", "fail")
    node_table["evaluated"] = evaluated
    node_table["minimal"] = False
    node_table.loc[mins, "minimal"] = True
    return SearchResult(minimal_table, best, node_table, int(evaluated.sum()), loss, monotone)


def _flat(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "levels"}


# --------------------------------------------------------------------------------------------------- release


def release_table(dataset: Source, result: PresenceResult) -> pd.DataFrame:
    """The research subset generalised to the result's levels, with suppressed records removed.

    Reads the dataset's rows once (every column); quasi-identifiers are replaced by their labels.
    """

    prep = result.prepared
    text = [p.name for p in prep.plans if p.hierarchy.kind.strip().lower() == "prefix"]
    frame = dataset.copy() if isinstance(dataset, pd.DataFrame) else _read_rows(Path(dataset), text)
    for c in text:
        frame[c] = _as_text(frame[c])
    levels = [result.levels[n] for n in prep.qi]
    for j, name in enumerate(prep.qi):
        plan = prep.plans[j]
        codes, uniques = _factor(frame[name])
        lookup = _base_lookup(plan)
        base = np.asarray([lookup[v] for v in uniques], dtype=np.int64)[codes]
        frame[name] = plan.hierarchy.labels[levels[j]][plan.maps[levels[j]][base]]
    suppressed = result.classes[result.classes["suppressed"]]
    if len(suppressed):
        rows = pd.MultiIndex.from_frame(frame[prep.qi].astype(object))
        drop = rows.isin(pd.MultiIndex.from_frame(suppressed[prep.qi].astype(object)))
        frame = frame[~drop]
    return frame.reset_index(drop=True)


def _read_rows(path: Path, text: Sequence[str]) -> pd.DataFrame:
    import duckdb

    from privrisk.io.data import check_file, file_kind, read_table

    kind = file_kind(check_file(path))
    if kind != "csv" or not text:
        return read_table(path)
    with duckdb.connect() as con:
        return _relation(con, path, kind, text).df()


def _base_lookup(plan: _QIPlan) -> dict:
    h = plan.hierarchy
    if plan.base == 0:
        return {v: i for i, v in enumerate(h.domain.tolist())}
    return {v: int(h.codes[plan.base][i]) for i, v in enumerate(h.domain.tolist())}
