"""What to do about failing cells and disclosures, each suggestion with what it costs.

- **suppress** the failing cells of a count table, with the secondary suppressions they then need: cells are
  added greedily (the smallest cell sharing a row or column with an exposed one) until the differencing audit of
  :mod:`privrisk.outputs.intervals`, run over everything else released, no longer determines any suppressed
  cell; the audit's verdict is part of the suggestion;
- **round** every cell to the policy's ``safe_round_base`` (each cell moves by at most half the base);
- **coarsen**: leave out one grouping variable, and say how many cells would still fail;
- **noise**: release with Laplace noise of scale Δf/ε, Δf the global sensitivity of the query over the
  variable's observed range (:func:`privrisk.sensitivity.global_sensitivity`) and ε = ln(t − 1), which keeps the
  many-worlds risk among t possible worlds (t the threshold) at 1/2 (:func:`privrisk.risk.many_worlds`);
- for a disclosure, **withhold** one of the outputs it combines, confirmed by auditing the rest again.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


__all__ = ["recommendations", "suppression"]

MAX_SECONDARY = 50


def _noise(spec: OutputSpec, policy: Policy, con: Any) -> dict[str, Any] | None:
    from privrisk._validation import quote_identifier as qi
    from privrisk.risk import many_worlds
    from privrisk.sensitivity import global_sensitivity

    t = policy.safe_threshold
    if t < 3 or spec.kind not in ("count", "sum", "mean", "median", "min", "max"):
        return None
    epsilon = math.log(t - 1)
    if spec.kind == "count" and not spec.weights:
        delta = 1.0
    else:
        col = spec.weights if spec.kind == "count" else spec.variable
        lo, hi = con.sql(
            f"SELECT MIN(CAST({qi(str(col))} AS DOUBLE)), MAX(CAST({qi(str(col))} AS DOUBLE)) FROM data"
        ).fetchall()[0]
        if lo is None or hi is None or hi <= lo:
            return None
        query = "sum" if spec.kind == "count" else spec.kind
        delta = float(global_sensitivity(query, (float(lo), float(hi))))
    scale = delta / epsilon
    return {
        "action": "noise",
        "output": spec.name,
        "epsilon": epsilon,
        "sensitivity": delta,
        "scale": scale,
        "risk": float(many_worlds(epsilon, t)),
        "cost": f"Laplace noise of scale {scale:,.4g} on every cell (its mean absolute size)",
        "sentence": f"Release {spec.name} with Laplace noise of scale {scale:,.4g} (Δf = {delta:,.6g}, ε = ln {t - 1} "
        f"≈ {epsilon:.3f}): an intruder choosing among {t} possible worlds is right with probability "
        f"{many_worlds(epsilon, t):.0%}.",
    }


def _coarsen(spec: OutputSpec, cells: pd.DataFrame, policy: Policy) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    full = cells[cells["set"] == spec.variables]
    if len(spec.variables) < 2:
        return out
    for v in spec.variables:
        rest = [u for u in spec.variables if u != v]
        n = full.groupby(rest)["n"].sum()
        failing = int((n < policy.safe_threshold).sum())
        out.append(
            {
                "action": "coarsen",
                "output": spec.name,
                "variable": v,
                "cells_failing": failing,
                "cost": f"{len(full) - len(n)} cells fewer ({len(n)} instead of {len(full)}); {v} no longer shown",
                "sentence": f"Leave {v} out of {spec.name}: {len(n)} cells, of which {failing} would fail the threshold.",
            }
        )
    return out


def suppression(
    spec: OutputSpec,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    failing: list[int],
    atoms_of: Any,
) -> tuple[list[int], bool]:
    """Cells to suppress in a count table (the failing ones first), and whether the audit confirms them.

    ``atoms_of(spec, cells)`` gives (cell, atom) pairs as :func:`privrisk.outputs.differencing.difference` builds
    them. The audit: each suppressed cell's count, over everything else released, must not be determined.
    """
    from scipy.optimize import linprog

    own = dict(linear)[spec]
    equations: list[tuple[str, int, np.ndarray, float]] = []
    for s, cells in linear:
        if s.kind != "count" or s.weights:
            continue
        cidx, aidx = atoms_of(s, cells)
        for cell in cells.index:
            equations.append((s.name, int(cell), aidx[cidx == cell], float(_at(cells)[cell, "value"])))
    n_atoms = int(max((e[2].max() for e in equations if e[2].size), default=-1)) + 1
    suppressed = list(dict.fromkeys(failing))
    mine = {cell: members for name, cell, members, _ in equations if name == spec.name}
    for _ in range(MAX_SECONDARY + 1):
        keep = [e for e in equations if not (e[0] == spec.name and e[1] in suppressed)]
        rows = (
            np.concatenate([np.full(e[2].size, i) for i, e in enumerate(keep)]) if keep else np.empty(0, int)
        )
        cols = np.concatenate([e[2] for e in keep]) if keep else np.empty(0, int)
        a = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(keep), max(n_atoms, 1)))
        a.sum_duplicates()
        a.data[:] = 1.0
        b = np.array([e[3] for e in keep])
        exposed = None
        for cell in suppressed:
            c = np.zeros(a.shape[1])
            c[mine[cell]] = 1.0
            lo = linprog(c, A_eq=a, b_eq=b, bounds=(0, None), method="highs")
            hi = linprog(-c, A_eq=a, b_eq=b, bounds=(0, None), method="highs")
            if lo.status == 0 and hi.status == 0 and abs(lo.fun + hi.fun) < 0.5:
                exposed = cell
                break
        if exposed is None:
            return suppressed, True
        candidate = _partner(spec, own, exposed, suppressed)
        if candidate is None:
            return suppressed, False
        suppressed.append(candidate)
    return suppressed, False


def _partner(spec: OutputSpec, cells: pd.DataFrame, cell: int, suppressed: list[int]) -> int | None:
    """The smallest unsuppressed cell of the same grouping that shares all labels but one with ``cell``."""
    s = _at(cells)[cell, "set"]
    same = cells[(cells["set"].map(lambda t: t == s)) & ~cells.index.isin(suppressed)]
    best = None
    for idx, row in same.iterrows():
        diff = sum(row[v] != _at(cells)[cell, v] for v in s)
        if diff == 1 and (best is None or row["value"] < _at(same)[best, "value"]):
            best = idx
    if best is None and len(same):
        best = same["value"].idxmin()
    return None if best is None else int(cast(Any, best))


def recommendations(
    outputs: list[dict[str, Any]],
    diff: Any,
    specs: tuple[OutputSpec, ...],
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    con: Any,
) -> list[dict[str, Any]]:
    """The suggestions for every failing output and every disclosure."""
    from privrisk.outputs.differencing import _cells_atoms, difference

    by_name = {s.name: s for s in specs}
    tables = {s.name: c for s, c in linear}
    flag_of = {c: f"__f{i}" for i, c in enumerate(diff.conditions)}
    recs: list[dict[str, Any]] = []

    def atoms_of(s: OutputSpec, cells: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        return _cells_atoms(diff.atoms, s, cells, flag_of.get(s.where) if s.where else None)

    for o in outputs:
        if o["status"] != "fail" or o["kind"] in ("ols", "logit"):
            if o["status"] == "fail":
                recs.append(
                    {
                        "action": "withhold",
                        "output": o["name"],
                        "cost": "the model is not released",
                        "sentence": f"Fit {o['name']} on more records or with fewer terms, or do not release it.",
                    }
                )
            continue
        spec = by_name[o["name"]]
        cells = tables[spec.name]
        failing = [int(i) for i, c in zip(cells.index, o["cells"], strict=True) if c["status"] == "fail"]
        if spec.kind == "count" and not spec.weights and not diff.atoms.empty:
            chosen, confirmed = suppression(spec, linear, failing, atoms_of)
            secondary = len(chosen) - len(failing)
            recs.append(
                {
                    "action": "suppress",
                    "output": spec.name,
                    "cells": [_labels(spec, cells, i) for i in chosen],
                    "primary": len(failing),
                    "secondary": secondary,
                    "confirmed": confirmed,
                    "cost": f"{len(chosen)} of {len(cells)} cells withheld ({secondary} secondary)",
                    "sentence": f"Suppress {len(failing)} cell{'s' if len(failing) != 1 else ''} of {spec.name} and "
                    f"{secondary} more so they cannot be recomputed; "
                    + (
                        "the audit of everything released confirms it."
                        if confirmed
                        else "the audit still recomputes a suppressed cell: coarsen instead."
                    ),
                }
            )
        else:
            recs.append(
                {
                    "action": "suppress",
                    "output": spec.name,
                    "cells": [_labels(spec, cells, i) for i in failing],
                    "primary": len(failing),
                    "secondary": None,
                    "confirmed": False,
                    "cost": f"{len(failing)} of {len(cells)} cells withheld",
                    "sentence": f"Suppress the {len(failing)} failing cells of {spec.name}; magnitude tables are not "
                    "audited for secondary suppression: check that the margins do not give them back.",
                }
            )
        if spec.kind == "count":
            base = policy.safe_round_base
            recs.append(
                {
                    "action": "round",
                    "output": spec.name,
                    "base": base,
                    "cost": f"every cell moves by at most {base / 2:g}",
                    "sentence": f"Round every cell of {spec.name} to a multiple of {base}.",
                }
            )
        recs.extend(_coarsen(spec, cells, policy))
        noise = _noise(spec, policy, con)
        if noise:
            recs.append(noise)
    # A disclosure: withhold one of this run's outputs that it combines, confirmed by a new audit.
    tried: dict[str, bool] = {}
    withheld: set[str] = set()
    for d in diff.disclosures:
        mine = [n for n in d["outputs"] if n in by_name]
        for name in sorted(mine, key=lambda n: len(tables.get(n, ())))[:2]:
            if name not in tried and len(tried) < 3:
                rest = [(s, c) for s, c in linear if s.name != name]
                again = difference(con, rest, policy)
                tried[name] = not again.disclosures
            if tried.get(name):
                if name not in withheld:
                    withheld.add(name)
                    recs.append(
                        {
                            "action": "withhold",
                            "output": name,
                            "confirmed": True,
                            "cost": f"{len(tables.get(name, ()))} cells of {name} withheld",
                            "sentence": f"Do not release {name}: without it the audit finds no disclosure.",
                        }
                    )
                break
        else:
            recs.append(
                {
                    "action": "review",
                    "disclosure": d["sentence"],
                    "confirmed": False,
                    "cost": "a person decides",
                    "sentence": "No single output of this request removes this disclosure: coarsen or suppress "
                    "the cells that combine to it.",
                }
            )
    return recs


def _labels(spec: OutputSpec, cells: pd.DataFrame, i: int) -> dict[str, Any]:
    return {v: _at(cells)[i, v] for v in spec.variables}
