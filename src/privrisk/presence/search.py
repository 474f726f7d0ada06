"""The least generalisation meeting δ-presence, k-anonymity and k-map targets, and the release it gives.

Every node of the lattice (one level per quasi-identifier, :mod:`privrisk.generalisation.lattice`) is a candidate
generalisation. Without suppression δ_max, δ_min, k-anonymity and k-map are monotone (Nergiz et al. 2007: merging
two classes gives a δ between theirs and larger counts), so a generalisation of a passing node passes and a
specialisation of a failing node fails: both are tagged without evaluation (predictive tagging, as ARX's Flash).
The nodes are visited height by height as a binary search would, so that tagging prunes both ways early. Among the
minimal passing nodes the one of least information loss is chosen (:mod:`privrisk.presence.measures`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Unpack, cast

import numpy as np
import pandas as pd

from privrisk._validation import check_choice
from privrisk.errors import PrivriskError
from privrisk.generalisation.lattice import search_lattice
from privrisk.presence.measures import (
    PresenceResult,
    TargetOptions,
    Targets,
    _evaluate,
    _prepared_from,
    _result,
)
from privrisk.presence.prepare import Prepared, Source, _as_text, factor

__all__ = ["LOSS_MEASURES", "Loss", "SearchResult", "release_table", "search_generalisation"]

Loss = Literal["precision", "height", "discernibility"]
LOSS_MEASURES: tuple[Loss, ...] = ("precision", "height", "discernibility")


@dataclass(frozen=True, eq=False)
class SearchResult:
    """The least generalisation(s) meeting the targets.

    Attributes:
        minimal: every minimal passing node (no passing node below it) with its metrics (``level_<column>``
            columns, then the summary), least loss first.
        best: the one of least information loss (``loss``), measured in full; None if no node passes.
        nodes: the lattice with each node's status (``pass``/``fail``), whether it was evaluated or tagged by
            monotonicity, and whether it is minimal.
        evaluated: how many nodes were evaluated.
        loss: the information loss minimised.
        monotone: whether tagging went both ways (False with suppression: failing k/k-map part only).
        targets: the targets searched for.
    """

    minimal: pd.DataFrame
    best: PresenceResult | None
    nodes: pd.DataFrame
    evaluated: int
    loss: Loss
    monotone: bool
    targets: Targets = field(default_factory=Targets)

    @property
    def tagging(self) -> str:
        """How nodes were tagged without evaluation, in words."""
        return "both ways (monotone)" if self.monotone else "failing k/k-map part only (suppression)"

    def to_dict(self, *, rows: int = 200) -> dict[str, Any]:
        """The search as plain JSON: loss, lattice size, evaluations, tagging, minimal nodes and the best node."""
        return {
            "loss": self.loss,
            "lattice_nodes": len(self.nodes),
            "evaluated": self.evaluated,
            "tagging": self.tagging,
            "minimal": self.minimal.to_dict(orient="records"),
            "best": None if self.best is None else self.best.to_dict(rows=rows),
        }


def search_generalisation(
    dataset: Source | Prepared,
    population: Source | None = None,
    qi: Sequence[str] | None = None,
    *,
    hierarchies: Mapping[str, object] | None = None,
    population_count: str | None = None,
    loss: Loss = "precision",
    allow_inconsistent: bool = False,
    max_nodes: int = 500_000,
    progress: Callable[[], object] | None = None,
    engine: str = "duckdb",
    spark_master: str | None = None,
    **options: Unpack[TargetOptions],
) -> SearchResult:
    """Every minimal generalisation meeting the targets, and the one of least information loss.

    Without suppression δ_max, δ_min, k-anonymity and k-map are monotone (merging classes c, c' gives a ratio
    (T_c + T_c')/(P_c + P_c') between theirs and larger counts), so a generalisation of a passing node passes and
    a specialisation of a failing node fails: both are tagged without evaluation (predictive tagging, Flash).
    With ``suppression`` only the k-anonymity and k-map part stays monotone (the records in classes below k or
    k-map only shrink as the node is generalised); a node failing that part tags its specialisations failing, and
    every other node is evaluated, so the result equals an exhaustive search.

    Args:
        dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine, spark_master: the
            tables, as for :func:`privrisk.presence.delta_presence` (or a :class:`Prepared` as ``dataset``).
        delta_max, delta_min, k, kmap: the targets (by keyword, :class:`~privrisk.presence.measures.TargetOptions`);
            at least one.
        suppression: share of research records in failing classes that may be removed.
        loss: the information loss to minimise among the minimal nodes: ``precision``, ``height`` or
            ``discernibility``.
        max_nodes: refuse lattices larger than this.
        progress: called once per evaluated node.

    Example:
        >>> T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
        >>> P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"],
        ...                   "n": [5, 5, 10, 10, 20]})
        >>> s = search_generalisation(T, P, ["zip", "age"], population_count="n", delta_max=0.5,
        ...                           hierarchies={"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"})
        >>> s.best.levels, s.best.summary["delta_max"]
        ({'zip': 0, 'age': 2}, 0.25)
    """
    loss = check_choice(loss, LOSS_MEASURES, name="loss")
    prep = _prepared_from(
        dataset, population, qi, hierarchies, population_count, allow_inconsistent, engine, spark_master
    )
    targets = Targets.checked(**options)
    if not targets.any:
        raise PrivriskError("targets: give at least one of delta_max, delta_min, k or kmap", param="targets")
    enc = prep.enc
    size = prep.lattice_size
    if size > max_nodes:
        raise PrivriskError(
            f"max_nodes: the lattice has {size:,} nodes (more than {max_nodes:,}); fix some levels or use "
            "hierarchies with fewer levels",
            param="max_nodes",
        )
    nodes = enc.nodes()
    monotone = targets.suppression == 0 or (targets.delta_max is None and targets.delta_min is None)
    found = search_lattice(nodes, lambda node: _evaluate(prep, cast(Sequence[int], node), targets),
                           monotone=monotone, progress=progress)  # fmt: skip
    summaries = {i: ev.summary for i, ev in found.evaluations.items()}
    rows = []
    for i in found.minimal:
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
    node_table["status"] = np.where(found.passing, "pass", "fail")
    node_table["evaluated"] = found.evaluated
    node_table["minimal"] = False
    node_table.loc[found.minimal, "minimal"] = True
    return SearchResult(minimal_table, best, node_table, int(found.evaluated.sum()), loss, monotone, targets)


def _flat(summary: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "levels"}


# --------------------------------------------------------------------------------------------------- release


def release_table(dataset: Source, result: PresenceResult) -> pd.DataFrame:
    """The research subset generalised to the result's levels, with suppressed records removed.

    Reads the dataset's rows once (every column); quasi-identifiers are replaced by their labels.

    Example:
        >>> from privrisk.presence import delta_presence
        >>> T = pd.DataFrame({"age": [10, 12, 43], "x": [1, 2, 3]})
        >>> P = pd.DataFrame({"age": [10, 12, 15, 43, 44]})
        >>> r = delta_presence(T, P, ["age"], hierarchies={"age": "interval:10"}, levels={"age": 1})
        >>> release_table(T, r)["age"].tolist()
        ['10-19', '10-19', '40-49']
    """
    prep = result.prepared
    text = [p.name for p in prep.plans if p.hierarchy.kind.strip().lower() == "prefix"]
    frame = dataset.copy() if isinstance(dataset, pd.DataFrame) else _read_rows(Path(dataset), text)
    for c in text:
        frame[c] = _as_text(frame[c])
    levels = [result.levels[n] for n in prep.qi]
    for j, name in enumerate(prep.qi):
        plan = prep.plans[j]
        codes, uniques = factor(frame[name])
        lookup = plan.base_lookup()
        base = np.asarray([lookup[v] for v in uniques], dtype=np.int64)[codes]
        level_map = plan.maps[levels[j]]
        assert level_map is not None  # levels at or above the base level have a map
        frame[name] = plan.hierarchy.labels[levels[j]][level_map[base]]
    suppressed = result.classes[result.classes["suppressed"]]
    if len(suppressed):
        rows = pd.MultiIndex.from_frame(frame[prep.qi].astype(object))
        drop = rows.isin(pd.MultiIndex.from_frame(suppressed[prep.qi].astype(object)))
        frame = frame[~drop]
    return frame.reset_index(drop=True)


def _read_rows(path: Path, text: Sequence[str]) -> pd.DataFrame:
    import duckdb

    from privrisk.io.data import check_file, file_kind, read_table
    from privrisk.io.engine import duckdb_relation

    kind = file_kind(check_file(path))
    if kind != "csv" or not text:
        return read_table(path)
    with duckdb.connect() as con:
        return duckdb_relation(con, path, kind, text).df()
