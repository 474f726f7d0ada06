"""Reading the research subset T and the population P once, and encoding both for the lattice.

The data holder releases a research subset T of a population P that an attacker can also see (a census table, a
voter list, the full cohort); Nergiz, Atzori and Clifton (2007) call T's membership in P the thing to hide. Both
tables are grouped on the quasi-identifiers by DuckDB (or Apache Spark) in one pass: a histogram of the distinct
combinations with their counts, O(rows) once. Each quasi-identifier's distinct values are then placed in its
hierarchy (:mod:`privrisk.generalisation.hierarchy`), so that every later step works on small integer codes and never on
rows (:mod:`privrisk.presence.rollup`).

P may be given coarser than T when it comes as counts per class (``population_count``): bins such as ``10-19`` for
a raw age, or labels of a level of a table or mapping hierarchy (regions where T holds states). The finest level
both tables share is the *base* level of that quasi-identifier.

Example:
    >>> T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
    >>> P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"],
    ...                   "n": [5, 5, 10, 10, 20]})
    >>> prep = prepare_presence(T, P, ["zip", "age"], population_count="n")
    >>> prep.n_data, prep.n_population, prep.enc.base
    (6, 50, (0, 1))
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import check_whole
from privrisk.errors import PrivacyLeakWarning, PrivriskError
from privrisk.generalisation.hierarchy import TOP, Hierarchy, build_hierarchy, value_key
from privrisk.io.engine import SPARK_ROLLUP_CLASSES, check_engine
from privrisk.presence import rollup as _rollup

__all__ = ["InconsistentSubsetError", "Levels", "Prepared", "Source", "prepare_presence"]

Source = str | os.PathLike[str] | pd.DataFrame
"""A table: a file (CSV, Parquet, Stata, SPSS; with Spark also a folder or URI) or a DataFrame."""

Levels = Mapping[str, int] | Sequence[int] | None
"""A node of the lattice: ``{column: level}``, one level per quasi-identifier, or None for the finest."""


# --------------------------------------------------------------------------------------------------- reading


def _as_text(column: pd.Series) -> pd.Series:
    """A column as text in the hierarchies' key form (``12.0`` → ``'12'``), converting each distinct value once.

    A census histogram holds millions of classes but a few thousand ZIP codes: the conversion runs on the
    distinct values (``pd.factorize``) and is spread back by their codes. Empty values stay empty.

    Example:
        >>> _as_text(pd.Series([85535, 85535.0, "01234", 7])).tolist()
        ['85535', '85535', '01234', '7']
    """
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    text = np.empty(len(uniques), dtype=object)
    text[:] = [
        v if isinstance(v, str) or pd.isna(v) else str(value_key(v))
        for v in np.asarray(uniques, dtype=object)
    ]
    return pd.Series(text[codes], index=column.index, name=column.name, dtype=object)


def _histogram(
    source: Any,
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
    # Filtered only when a class is empty (a count column's zeros): a census's histogram is not copied for nothing.
    empty = hist["__n"].to_numpy() <= 0
    return hist[~empty].reset_index(drop=True) if empty.any() else hist


# --------------------------------------------------------------------------------------------------- encoding

_BIN = re.compile(
    r"^\s*(?:(?P<a>-?\d+(?:\.\d+)?)\s*-\s*(?P<b>-?\d+(?:\.\d+)?)|(?P<c>-?\d+(?:\.\d+)?)\s*\+|"
    r"\[\s*(?P<d>-?[\d.]+)\s*,\s*(?P<e>-?[\d.]+|inf)\s*\))\s*$"
)


def _parse_bin(label: object) -> tuple[float, float, bool] | None:
    """``10-19`` → (10, 19, closed); ``50+`` → (50, inf); ``[10,20)`` → (10, 20, half-open)."""
    m = _BIN.match(str(label))
    if not m:
        return None
    if m["a"] is not None:
        return float(m["a"]), float(m["b"]), True
    if m["c"] is not None:
        return float(m["c"]), math.inf, True
    return float(m["d"]), float(m["e"]), False


def factor(column: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Integer codes of a column and its distinct values in the hierarchies' key form (``12.0`` → ``12``)."""
    codes, uniques = pd.factorize(column, sort=False)
    return codes.astype(np.int64), [value_key(v) for v in np.asarray(uniques, dtype=object)]


# Population classes encoded per slice (a census on postcodes has ~10⁸ of them).
_ENCODE_SLICE = 1 << 22


def _base_codes(
    hist: pd.DataFrame, qi: Sequence[str], raw: Sequence[Any], plans: Sequence[QIPlan]
) -> np.ndarray:
    """The histogram's base codes, (C, q), in the smallest integer type that holds every quasi-identifier's.

    Slice by slice into one array, each value looked up among its column's distinct values ``raw`` (in the order
    of ``plan.pop_base``): the temporaries are a slice's, and a census's codes take 2 bytes a value, not 8.
    """
    widest = max((int(p.sizes[p.base]) for p in plans), default=1)
    dtype = next(t for t in (np.int8, np.int16, np.int32, np.int64) if widest <= np.iinfo(t).max)
    out = np.empty((len(hist), len(qi)), dtype=dtype)
    for j, (name, plan) in enumerate(zip(qi, plans, strict=True)):
        lookup = plan.pop_base.astype(dtype)
        column = hist[name].to_numpy()
        index = _value_index(column, raw[j])
        for start in range(0, len(hist), _ENCODE_SLICE):
            at = index(column[start : start + _ENCODE_SLICE])
            if at.size and at.min() < 0:  # cannot happen (raw holds the column's own values); never index -1
                raise RuntimeError(f"{name!r}: a value not among the column's distinct values")
            out[start : start + _ENCODE_SLICE, j] = lookup[at]
    return out


def _value_index(column: np.ndarray, raw: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Position of each value among ``raw`` (the column's distinct values): a table for integers of a small
    range (ages, codes: a gather), a hash table otherwise."""
    values = np.asarray(raw)
    if column.dtype.kind in "iu" and values.dtype.kind in "iu" and values.size:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 1 << 24:
            table = np.full(hi - lo + 1, -1, dtype=np.int64)
            table[values.astype(np.int64) - lo] = np.arange(values.size)
            return lambda part: table[part.astype(np.int64) - lo]
    return pd.Index(raw).get_indexer


@dataclass(frozen=True, eq=False)
class QIPlan:
    """How one quasi-identifier is encoded: its hierarchy, its base level and both tables' base codes."""

    name: str
    hierarchy: Hierarchy
    base: int
    data_base: np.ndarray  # base code per data unique value
    pop_base: np.ndarray  # base code per population unique value
    maps: tuple[np.ndarray | None, ...]  # per level: base code -> level code (None below base)
    sizes: tuple[int, ...]

    def base_lookup(self) -> dict[Any, int]:
        """Raw value → base code, for every value of the hierarchy's domain."""
        h = self.hierarchy
        if self.base == 0:
            return {v: i for i, v in enumerate(h.domain.tolist())}
        return {v: int(h.codes[self.base][i]) for i, v in enumerate(h.domain.tolist())}


def _plan_qi(
    name: str, spec: object, d_uniques: list, p_uniques: list, coarse_allowed: bool, pop_label: str
) -> QIPlan:
    d_set = set(d_uniques)
    if not coarse_allowed and p_uniques and not d_set & set(p_uniques):
        # P holds bins ("10-19") where T holds raw values: P is counts per class whose count column is unset. Said
        # before any hierarchy is built, which would otherwise fail on the bins and blame the hierarchy.
        if all(_parse_bin(v) is not None for v in p_uniques) and any(
            _parse_bin(v) is None for v in d_uniques
        ):
            raise PrivriskError(
                f"population_count: {pop_label} holds bins such as {str(p_uniques[0])!r} for {name!r} where the "
                "research subset holds single values: it gives counts per class; name its column of counts",
                param="population_count",
            )
    coarse = coarse_allowed and not all(v in d_set for v in p_uniques)
    bins = [_parse_bin(v) for v in p_uniques] if coarse else []
    if coarse and bins and not d_set & set(p_uniques):
        parsed = [b for b in bins if b is not None]
        if len(parsed) == len(bins):
            return _plan_binned(name, spec, d_uniques, p_uniques, parsed, pop_label)
    if coarse and not d_set & set(p_uniques):
        plan = _plan_labelled(name, spec, d_uniques, p_uniques)
        if plan is not None:
            return plan
    h = build_hierarchy(name, spec, list(d_uniques) + list(p_uniques))
    index = {v: i for i, v in enumerate(h.domain.tolist())}
    d0 = np.asarray([index[v] for v in d_uniques], dtype=np.int64)
    p0 = np.asarray([index[v] for v in p_uniques], dtype=np.int64)
    maps = tuple(h.codes)
    return QIPlan(name, h, 0, d0, p0, maps, tuple(h.sizes()))


def _full_domain(spec: object) -> list | None:
    """Every raw value a table or mapping hierarchy knows (not only those in the data)."""
    if isinstance(spec, Mapping):
        return [value_key(v) for v in spec]
    if isinstance(spec, str) and spec.startswith("table:"):
        path = Path(spec[len("table:") :])
        if path.exists():
            text = path.read_text(encoding="utf-8-sig").splitlines()
            sep = ";" if text and ";" in text[0] else ","
            return [value_key(_numeric_or_text(line.split(sep)[0].strip())) for line in text if line.strip()]
    return None


def _numeric_or_text(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


def _plan_labelled(name: str, spec: object, d_uniques: list, p_uniques: list) -> QIPlan | None:
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
            return QIPlan(name, h, level, d_base, p_base, tuple(maps), tuple(h.sizes()))
    return None


def _plan_binned(
    name: str,
    spec: object,
    d_uniques: list,
    p_uniques: list,
    bins: list[tuple[float, float, bool]],
    pop_label: str,
) -> QIPlan:
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
            for j in np.flatnonzero(~np.isfinite(hi)):
                # An open bin ("50+") reaches past its label ("40-59"): merge it with every bin from that label's
                # lower edge up ("40+"), so that the level still coarsens the bins.
                parsed = _parse_bin(a[j])
                if parsed is not None and math.isfinite(parsed[1]):
                    edge = parsed[0]
                    for m in np.flatnonzero(lo >= edge):
                        a[m] = f"{edge:g}+"
            uniq, inv = np.unique(np.asarray(a, dtype=object), return_inverse=True)
            if 1 < len(uniq) < len(labels) and (not upper or len(uniq) < len(upper_labels[-1])):
                upper.append(inv.astype(np.int64).ravel())
                upper_labels.append(uniq)
    n = len(labels)
    levels = [np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64), *upper, np.zeros(n, dtype=np.int64)]
    all_labels = [labels, labels, *upper_labels, np.asarray([TOP], dtype=object)]
    domain = np.empty(len(d_uniques), dtype=object)
    domain[:] = list(d_uniques)
    codes = tuple([np.arange(len(d_uniques), dtype=np.int64)] + [m[d_base] for m in levels[1:]])
    raw_labels = np.asarray([str(v) for v in d_uniques], dtype=object)
    h = Hierarchy(name, domain, codes, (raw_labels, *all_labels[1:]), "population bins")
    maps: tuple[np.ndarray | None, ...] = (None, *levels[1:])
    return QIPlan(name, h, 1, d_base, pop_base, maps, tuple(len(x) for x in all_labels))


def _class_labels(
    qi: Sequence[str], plans: Sequence[QIPlan], levels: Sequence[int], codes: np.ndarray
) -> pd.DataFrame:
    return pd.DataFrame(
        {name: plans[j].hierarchy.labels[levels[j]][codes[:, j]] for j, name in enumerate(qi)}
    )


# --------------------------------------------------------------------------------------------------- prepared


@dataclass(frozen=True, eq=False)
class Prepared:
    """Both tables read once and encoded: everything a node evaluation or a search needs.

    Attributes:
        qi: the quasi-identifiers, in order.
        plans: per quasi-identifier its hierarchy, base level and codes (:class:`QIPlan`).
        enc: both finest histograms as integer codes (:class:`privrisk.presence.rollup.Encoded`).
        n_data, n_population: the records of T and of P (P after lifting, with ``allow_inconsistent``).
        inconsistent: T's classes that P does not cover (empty unless ``allow_inconsistent``).
        dataset_label, population_label: the tables' names for messages and reports.
        notes: what the reader of a report should know (lifted classes, roll-ups in Spark).
        engine: where the grouping pass ran (``duckdb`` or ``spark``).
        hierarchy_specs: the hierarchies as given (``{column: spec}``).
        roller: rolls the finest histogram up to a node elsewhere, e.g. an :class:`privrisk.presence._spark.SparkRollUp`;
            None: locally.
        cube: the local roll-up from a dense grid of counts (:class:`privrisk.presence.rollup.CubeRollUp`) when
            the base codes span a small grid; None: from the classes (:func:`privrisk.presence.rollup.roll_up`).
    """

    qi: list[str]
    plans: tuple[QIPlan, ...]
    enc: _rollup.Encoded
    n_data: int
    n_population: int
    inconsistent: pd.DataFrame
    dataset_label: str
    population_label: str
    notes: tuple[str, ...] = ()
    engine: str = "duckdb"
    hierarchy_specs: Mapping[str, object] = field(default_factory=dict)
    roller: Callable[..., _rollup.Rolled] | None = field(default=None, repr=False)
    cube: _rollup.CubeRollUp | None = field(default=None, repr=False)

    def roll_up(self, levels: Sequence[int]) -> _rollup.Rolled:
        """Both histograms aggregated to the node ``levels``."""
        if self.roller is not None:
            return self.roller(levels)
        return self.cube(levels) if self.cube is not None else _rollup.roll_up(self.enc, levels)

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        """The built hierarchy of each quasi-identifier."""
        return {p.name: p.hierarchy for p in self.plans}

    @property
    def lattice_size(self) -> int:
        """The number of nodes of the lattice (levels from each base level up to ``*``)."""
        return math.prod(h - b for h, b in zip(self.enc.heights, self.enc.base, strict=True))

    def class_labels(self, levels: Sequence[int], codes: np.ndarray) -> pd.DataFrame:
        """One column of labels per quasi-identifier for classes given as rows of codes at ``levels``."""
        return _class_labels(self.qi, self.plans, levels, codes)

    def levels_of(self, levels: Levels) -> tuple[int, ...]:
        """Read levels: None (the finest), a sequence, or a mapping {qi: level}; check their range."""
        if levels is None:
            return tuple(self.enc.base)
        if isinstance(levels, Mapping):
            unknown = [k for k in levels if k not in self.qi]
            if unknown:
                raise PrivriskError(
                    f"levels: {unknown[0]!r} is not a quasi-identifier ({', '.join(self.qi)})", param="levels"
                )
            out = [int(levels.get(name, self.enc.base[j])) for j, name in enumerate(self.qi)]
        else:
            out = [int(x) for x in levels]
            if len(out) != len(self.qi):
                raise PrivriskError(
                    f"levels: give one level per quasi-identifier ({len(self.qi)}), got {len(out)}",
                    param="levels",
                )
        for j, lvl in enumerate(out):
            lo, hi = self.enc.base[j], self.enc.heights[j] - 1
            if not lo <= lvl <= hi:
                raise PrivriskError(
                    f"levels: level {lvl} of {self.qi[j]!r} is outside {lo}..{hi} (its hierarchy's levels)",
                    param="levels",
                )
        return tuple(out)


class InconsistentSubsetError(PrivriskError):
    """The research subset is not part of the population: some of its classes have no or too small a population class.

    Attributes:
        classes: those classes (quasi-identifier labels, ``dataset_count``, ``population_count``).
        detail: the message without the hint how to continue (``allow_inconsistent=True``).
    """

    def __init__(
        self, detail: str, classes: pd.DataFrame, hint: str = " (pass allow_inconsistent=True to continue)"
    ) -> None:
        super().__init__(detail + hint, param=None)
        self.detail = detail
        self.classes = classes

    def hinted(self, hint: str, *, named: bool = False) -> InconsistentSubsetError:
        """The same error with a front end's hint how to continue (its option or control for
        ``allow_inconsistent``), and ``param`` ``allow_inconsistent`` so that a form shows it at that control;
        ``named``: the message starts with ``allow_inconsistent:`` too.

        Example:
            >>> e = InconsistentSubsetError("t.csv: 1 class(es) … not in the population", pd.DataFrame())
            >>> str(e.hinted(" (use --allow-inconsistent to continue)"))
            't.csv: 1 class(es) … not in the population (use --allow-inconsistent to continue)'
            >>> e.hinted("; tick it", named=True).param, str(e.hinted("; tick it", named=True))[:20]
            ('allow_inconsistent', 'allow_inconsistent: ')
        """
        said = InconsistentSubsetError(
            ("allow_inconsistent: " if named else "") + self.detail, self.classes, hint
        )
        said.detail, said.param = self.detail, "allow_inconsistent"
        return said


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
    to the driver. When they hold more than ``spark_rollup_classes`` finest classes, every roll-up to a lattice
    node runs in Spark too (:class:`privrisk.presence._spark.SparkRollUp`). The results are the same on both engines.

    Args:
        dataset: the research subset T (a file or a DataFrame).
        population: the population P (rows, or counts per class with ``population_count``).
        qi: the quasi-identifier columns.
        hierarchies: ``{column: spec}`` (see :mod:`privrisk.generalisation.hierarchy`); columns without one go raw → ``*``.
        population_count: the column of P holding counts per class (P may then be coarser, e.g. age bands).
        allow_inconsistent: warn instead of failing when T is not part of P.
        engine, spark_master, spark_rollup_classes: where the passes run (above).

    Raises:
        PrivriskError: bad files or columns, values a hierarchy cannot place.
        InconsistentSubsetError: a research subset that is not part of the population (a class with no population
            class, or with more records than its population class), listing up to five such classes, unless
            ``allow_inconsistent`` (then a :class:`PrivacyLeakWarning`, and each such population class is raised
            to the research count).

    Example:
        >>> prep = prepare_presence(pd.DataFrame({"a": [1, 1]}), pd.DataFrame({"a": [1, 1, 1, 2]}), ["a"])
        >>> prep.n_data, prep.n_population, prep.lattice_size
        (2, 4, 2)
    """
    qi = list(qi)
    if not qi:
        raise PrivriskError("qi: name at least one quasi-identifier column", param="qi")
    if len(set(qi)) != len(qi):
        raise PrivriskError(f"qi: a column is named twice: {', '.join(qi)}", param="qi")
    if population_count is not None and population_count in qi:
        raise PrivriskError(
            f"population_count: {population_count!r} is a quasi-identifier; name the column of P that holds the "
            "count of each class",
            param="population_count",
        )
    specs = dict(hierarchies or {})
    unknown = [k for k in specs if k not in qi]
    if unknown:
        raise PrivriskError(
            f"hierarchies: {unknown[0]!r} is not one of the quasi-identifiers ({', '.join(qi)})",
            param="hierarchies",
        )
    engine = check_engine(engine)
    spark_rollup_classes = check_whole(spark_rollup_classes, name="spark_rollup_classes")
    d_label = _label(dataset, "dataset")
    p_label = _label(population, "population")
    # Codes such as ZIP are text: read them as text so that 01234 keeps its leading zero.
    text = _text_columns(specs)
    dh = _histogram(dataset, qi, None, "dataset", text, engine, spark_master)
    ph = _histogram(population, qi, population_count, "population", text, engine, spark_master)
    if dh.empty:
        raise PrivriskError(f"{d_label}: no records")
    if ph.empty:
        raise PrivriskError(f"{p_label}: no records")
    plans, d_cols, p_raw = [], [], []
    for name in qi:
        d_idx, d_uni = factor(dh[name])
        raw = pd.unique(ph[name])
        p_uni = [value_key(v) for v in np.asarray(raw, dtype=object)]
        plan = _plan_qi(name, specs.get(name), d_uni, p_uni, population_count is not None, p_label)
        plans.append(plan)
        d_cols.append(plan.data_base[d_idx])
        p_raw.append(raw)
    enc = _rollup.Encoded(
        data_codes=np.stack(d_cols, axis=1),
        data_counts=dh["__n"].to_numpy(np.int64),
        pop_codes=_base_codes(ph, qi, p_raw, plans),
        pop_counts=ph["__n"].to_numpy(np.int64),
        base=tuple(p.base for p in plans),
        heights=tuple(p.hierarchy.height for p in plans),
        maps=tuple(p.maps for p in plans),
        sizes=tuple(p.sizes for p in plans),
    )
    cube = _rollup.CubeRollUp(enc) if _rollup.cube_fits(enc) else None
    rolled = cube(enc.base) if cube is not None else _rollup.roll_up(enc, enc.base)
    bad = np.flatnonzero(rolled.data > rolled.pop)
    notes: list[str] = []
    inconsistent = pd.DataFrame()
    if bad.size:
        inconsistent = _class_labels(qi, plans, enc.base, rolled.codes[bad])
        inconsistent["dataset_count"] = rolled.data[bad]
        inconsistent["population_count"] = rolled.pop[bad]
        shown = "; ".join(
            "(" + ", ".join(str(row[c]) for c in qi) + f"): {row['dataset_count']} in the dataset, "
            f"{row['population_count']} in the population"
            for row in inconsistent.head(5).to_dict(orient="records")
        )
        message = (
            f"{d_label}: {bad.size:,} class(es) of the research subset are not in the population or have more "
            f"records than it: {shown}"
        )
        if not allow_inconsistent:
            raise InconsistentSubsetError(message, inconsistent)
        warnings.warn(message + "; their population counts are raised to the research counts", PrivacyLeakWarning,
                      stacklevel=2)  # fmt: skip
        notes.append(message)
        # Treat the research subset as part of the population: add the shortfall at the finest level.
        lift = rolled.data[bad] - rolled.pop[bad]
        enc = _rollup.Encoded(
            data_codes=enc.data_codes,
            data_counts=enc.data_counts,
            pop_codes=np.concatenate([enc.pop_codes, rolled.codes[bad]]),
            pop_counts=np.concatenate([enc.pop_counts, lift]),
            base=enc.base,
            heights=enc.heights,
            maps=enc.maps,
            sizes=enc.sizes,
        )
        cube = _rollup.CubeRollUp(enc) if cube is not None else None
    roller = None
    classes = enc.data_codes.shape[0] + enc.pop_codes.shape[0]
    if engine == "spark" and classes > spark_rollup_classes:
        from privrisk.presence._spark import SparkRollUp

        roller, cube = SparkRollUp(enc, spark_master), None
        notes.append(f"{classes:,} finest classes: the lattice roll-ups run in Spark")
    return Prepared(qi, tuple(plans), enc, int(enc.data_counts.sum()), int(enc.pop_counts.sum()), inconsistent,
                    d_label, p_label, tuple(notes), engine, specs, roller, cube)  # fmt: skip


def _label(source: object, what: str) -> str:
    if isinstance(source, pd.DataFrame):
        return what
    if type(source).__module__.startswith("pyspark."):
        return f"{what} (Spark DataFrame)"
    return str(source)


def _text_columns(hierarchies: Mapping[str, object]) -> list[str]:
    return [
        c for c, spec in hierarchies.items() if isinstance(spec, str) and spec.strip().lower() == "prefix"
    ]
