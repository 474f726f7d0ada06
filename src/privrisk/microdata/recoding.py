"""Global recoding: the least generalisation of the keys, through privrisk's hierarchies, that meets the targets.

Each key with a hierarchy (:func:`privrisk.generalisation.hierarchy.build_hierarchy`: ``interval:10``,
``breaks:…``, ``prefix``, ``date``, ``table:FILE.csv``, a mapping) can be recoded to any of its levels; the
lattice of all combinations of levels is measured node by node (f_k with missing values matching any value,
individual risk, ℓ and t as the settings ask) against the settings' targets ``k``, ``max_risk``, ``l`` and
``t`` (any of them, together). The minimal passing nodes (no passing node below them) are found with
:func:`privrisk.generalisation.lattice.search_lattice`; the one of least normalised height (Σ level/(height − 1))
is chosen, its file recoded and measured again in full. Missing key values stay missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import Hierarchy, build_hierarchy
from privrisk.generalisation.lattice import lattice_nodes, search_lattice
from privrisk.microdata.diversity import diversity
from privrisk.microdata.frequencies import cell_frequencies, combine_codes
from privrisk.microdata.measure import MicrodataResult, _read, measure_microdata
from privrisk.microdata.risk import individual_risk
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, steps

__all__ = ["MAX_NODES", "Recoding", "recode_microdata"]

MAX_NODES = 5_000


@dataclass(frozen=True, eq=False)
class Recoding:
    """The result of :func:`recode_microdata`.

    Attributes:
        nodes: one row per node measured: the level of each recoded key, whether it passes, its k, highest
            risk, smallest distinct ℓ and largest t, its normalised height.
        minimal: the rows of ``nodes`` that are minimal passing nodes.
        levels: the chosen node (``{key: level}``), or None when no node passes.
        frame: the file recoded at the chosen node, or None.
        result: the recoded file measured again in full, or None.
    """

    nodes: pd.DataFrame
    minimal: pd.DataFrame
    levels: dict[str, int] | None
    frame: pd.DataFrame | None
    result: MicrodataResult | None

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": len(self.nodes), "minimal": self.minimal.to_dict(orient="records"), "levels": self.levels,
                "measures_after": None if self.result is None else self.result.measures}  # fmt: skip


@dataclass(frozen=True)
class _Node:
    """One node measured: whether it passes (what the lattice search reads) and its row of the nodes table."""

    passes: bool
    row: dict[str, Any]
    monotone_fail: bool = False


def recode_microdata(data: Any, settings: MicrodataSettings, hierarchies: Mapping[str, Any], *,
                     max_nodes: int = MAX_NODES, progress: Progress | None = None) -> Recoding:  # fmt: skip
    """The least generalisation of the keys that meets the settings' targets (module docstring).

    Args:
        data: a file or a pandas DataFrame.
        settings: the keys, weights, sensitive variables and the targets (at least one of k, max_risk, l, t).
        hierarchies: ``{key: spec}`` for the keys that may be recoded (the others keep their values).
        max_nodes: the largest lattice measured.
        progress: told the share of the lattice measured (:class:`privrisk.progress.Progress`), or None.

    Example:
        >>> frame = pd.DataFrame({"age": [21, 24, 37, 33, 45, 48], "sex": list("mmffmm")})
        >>> r = recode_microdata(frame, MicrodataSettings(keys="age,sex", k=2), {"age": "interval:10"})
        >>> r.levels, r.result.measures["k_anonymity"]["k"]
        ({'age': 1}, 2)
    """
    st = settings
    if st.k is None and st.max_risk is None and st.l is None and st.t is None:
        raise PrivriskError("k: give at least one target (k, max_risk, l or t) for the recoding", param="k")
    unknown = [name for name in hierarchies if name not in st.keys]
    if unknown:
        raise PrivriskError(f"hierarchies: {unknown[0]!r} is not a key", param="hierarchies")
    if not hierarchies:
        raise PrivriskError("hierarchies: give a hierarchy for at least one key", param="hierarchies")
    frame, _ = _read(data, st)
    w = None if st.weights is None else frame[st.weights].to_numpy(dtype=float)
    built: dict[str, Hierarchy] = {}
    level_codes: dict[str, list[np.ndarray]] = {}
    fixed: dict[str, np.ndarray] = {}
    for key in st.keys:
        col = frame[key]
        present = col.notna().to_numpy()
        if key in hierarchies:
            h = build_hierarchy(key, hierarchies[key], col[present].tolist())
            idx = h.index(col[present].to_numpy(dtype=object))
            built[key] = h
            per_level = []
            for lvl in range(h.height):
                codes = np.full(len(frame), -1, dtype=np.int64)
                codes[present] = h.codes[lvl][idx]
                per_level.append(codes)
            level_codes[key] = per_level
        else:
            fixed[key] = np.asarray(pd.factorize(col, use_na_sentinel=True)[0], dtype=np.int64)
    names = list(built)
    heights = [built[k].height for k in names]
    size = int(np.prod(heights))
    if size > max_nodes:
        raise PrivriskError(f"hierarchies: the lattice has {size:,} nodes, more than max_nodes = {max_nodes:,}",
                            param="hierarchies")  # fmt: skip
    nodes = lattice_nodes([0] * len(heights), heights)

    def judged(node: np.ndarray) -> _Node:
        levels = dict(zip(names, (int(x) for x in node), strict=True))
        codes = np.column_stack([level_codes[k][levels[k]] if k in levels else fixed[k] for k in st.keys])
        row = {**{f"level_{k}": v for k, v in levels.items()}, **_evaluate(codes, w, frame, st)}
        return _Node(bool(row["passes"]), row)

    # Risk, ℓ and t need not be monotone under recoding (a merged class's risk may rise): every node is measured.
    found = search_lattice(nodes, judged, monotone=False, progress=steps(progress, len(nodes), "recodings measured:"))
    table = pd.DataFrame([found.evaluations[i].row for i in range(len(nodes))])
    table["height"] = sum(table[f"level_{k}"] / max(built[k].height - 1, 1) for k in names)
    chosen = found.minimal
    mins = table.iloc[chosen].sort_values(["height", *(f"level_{k}" for k in names)], kind="stable")
    if mins.empty:
        return Recoding(table, mins, None, None, None)
    best = {k: int(mins.iloc[0][f"level_{k}"]) for k in names}
    recoded = frame.copy()
    for k, lvl in best.items():
        codes = level_codes[k][lvl]
        values = built[k].labels[lvl].astype(object)[np.maximum(codes, 0)]
        values[codes < 0] = None
        recoded[k] = pd.Series(values, index=frame.index)
    return Recoding(table, mins.reset_index(drop=True), best, recoded, measure_microdata(recoded, st))


def _evaluate(codes: np.ndarray, w, frame: pd.DataFrame, st: MicrodataSettings) -> dict[str, Any]:
    """One node's k, highest risk, smallest distinct ℓ and largest t, and whether it meets every target."""
    cells = cell_frequencies(codes, w, missing=st.missing)
    k = int(cells.record_fk.min())
    risk = float(individual_risk(cells.fk, cells.Fk, method=st.method).max())
    out: dict[str, Any] = {"k": k, "max_risk": risk}
    ok = (st.k is None or k >= st.k) and (st.max_risk is None or risk <= st.max_risk)
    if st.l is not None or st.t is not None:
        classes = combine_codes(codes + 1)
        sums = [diversity(classes, frame[s], c=st.c, name=s).summary() for s in st.sensitive]
        out["l"] = min(int(d["l_distinct"]) for d in sums)
        out["t"] = max(float(d["t"]) for d in sums)
        ok = ok and (st.l is None or out["l"] >= st.l) and (st.t is None or out["t"] <= st.t)
    out["passes"] = bool(ok)
    return out
