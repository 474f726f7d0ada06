"""What to do about failing cells and disclosures, each suggestion with what it costs.

- **suppress** the failing cells of a count table, with the secondary suppressions they then need: cells are
  added greedily (the smallest cell on a line through a given-away cell that holds no other hidden cell) until
  the differencing audit (:func:`audit`: the intervals of :mod:`privrisk.outputs.intervals` over everything
  else released) determines neither a hidden cell's count nor any of its atoms below the threshold; the audit's
  verdict, the chosen cells and each suppressed cell's interval (what an intruder recomputes,
  :mod:`privrisk.outputs.cell_bounds`) are part of the suggestion;
- **suppress** the failing cells of a sum or mean table (or a weighted count) the same way, confirmed when every
  suppressed cell's interval over everything else released is wider than its p % protection
  (:func:`privrisk.outputs.cell_bounds.protected`);
- **round** every cell to the policy's ``safe_round_base`` (each cell moves by at most half the base);
- **coarsen**: leave out one grouping variable, and say how many cells would still fail;
- **noise**: release with Laplace noise of scale Δf/ε, Δf the global sensitivity of the query over the
  variable's observed range (:func:`privrisk.sensitivity.global_sensitivity`) and ε = ln(t − 1), which keeps the
  many-worlds risk among t possible worlds (t the threshold) at 1/2 (:func:`privrisk.risk.many_worlds`);
- for a disclosure, **withhold** one of the outputs it combines, confirmed by auditing the rest again.
"""

from __future__ import annotations

import math
import time
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


__all__ = ["audit", "magnitude_suppression", "recommendations", "suppression"]

MAX_SECONDARY = 50
# What audit() gives when time ran out: the suppression is then not confirmed (and not extended further).
NOT_CONFIRMED = -1


def _noise(spec: OutputSpec, policy: Policy, con: Any) -> dict[str, Any] | None:
    from privrisk._format import number, percent_3g
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
        "cost": f"Laplace noise of scale {number(scale)} on every cell (its mean absolute size)",
        "sentence": f"Release {spec.name} with Laplace noise of scale {number(scale)} (Δf = {number(delta, 6)}, ε = ln {t - 1} "
        f"≈ {epsilon:.3f}): an intruder choosing among {t} possible worlds is right with probability "
        f"{percent_3g(float(many_worlds(epsilon, t)))}.",
    }


def _coarsen(spec: OutputSpec, cells: pd.DataFrame, policy: Policy) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    full = cells[np.fromiter((t == spec.variables for t in cells["set"]), dtype=bool, count=len(cells))]
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


def audit(
    a: sp.csr_matrix,
    b: np.ndarray,
    truth: np.ndarray,
    threshold: int,
    hidden: list[np.ndarray],
    deadline: float = np.inf,
) -> int | None:
    """The differencing audit of a suppression: the first hidden cell (given by its atoms) that the released
    counts ``a·x = b`` still give away, None if none is, or :data:`NOT_CONFIRMED` if the programs did not decide
    by ``deadline`` (``time.perf_counter()``).

    A hidden cell is given away when its count is determined, or when one of its atoms holding 1 … threshold − 1
    people is (the exact disclosure of :mod:`privrisk.outputs.differencing`).
    """
    from privrisk.outputs.differencing import UNDECIDED, _group_count
    from privrisk.outputs.intervals import intervals

    inside = np.zeros(truth.size, dtype=bool)
    for members in hidden:
        inside[members] = True
    small = inside & (truth >= 1) & (truth < threshold)

    def need(
        lo: np.ndarray, hi: np.ndarray, seen_lo: np.ndarray, seen_hi: np.ndarray, cols: np.ndarray
    ) -> np.ndarray:
        k = truth[cols]
        return small[cols] & (seen_lo >= k) & (seen_hi <= k) & (lo < hi)

    res = intervals(
        a, b, integer=True, lower=np.zeros(truth.size), known=truth, need=need, full_limit=0, with_rank=False
    )
    determined = (res.lo == res.hi) & res.tight
    for i, members in enumerate(hidden):
        if np.any(determined[members] & small[members]):
            return i
        if np.all(determined[members]):
            return i
        if any(pt[members].sum() != truth[members].sum() for pt in res.points):
            continue
        known = _group_count(a, b, members, truth.size, deadline=deadline)
        if known == UNDECIDED:
            return NOT_CONFIRMED
        if known is not None:
            return i
    return None


def suppression(
    spec: OutputSpec,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    failing: list[int],
    incidence_of: Any,
    truth: np.ndarray,
    threshold: int,
    deadline: float = np.inf,
) -> tuple[list[int], bool]:
    """Cells to suppress in a count table (the failing ones first, then secondary ones chosen greedily), and
    whether the differencing audit (:func:`audit`, over everything else released) confirms them.

    ``incidence_of(spec, cells)`` gives a table's cells × atoms matrix
    (:func:`privrisk.outputs.differencing.incidence`). Greedy: a hidden cell that is given away gets a partner:
    along a line of its table (the cells that share all labels but one with it) where it is the only hidden
    cell, the smallest other cell of that line; failing that, the smallest cell of its line.
    """
    own = dict(linear)[spec]
    others: list[sp.csr_matrix] = []
    other_b: list[np.ndarray] = []
    mat = None
    for s, cells in linear:
        if s.kind != "count" or s.weights:
            continue
        m = incidence_of(s, cells)
        if s == spec:
            mat = m
            continue
        others.append(m)
        other_b.append(cells["value"].to_numpy(dtype=float))
    assert mat is not None
    values = own["value"].to_numpy(dtype=float)
    position = {int(c): i for i, c in enumerate(own.index)}
    suppressed = list(dict.fromkeys(failing))
    for _ in range(MAX_SECONDARY + 1):
        shown = np.array([i for c, i in position.items() if c not in suppressed], dtype=np.int64)
        a = sp.vstack([*others, mat[shown]], format="csr") if others or shown.size else mat[shown]
        b = np.concatenate([*other_b, values[shown]])
        hidden = [mat.indices[mat.indptr[position[c]] : mat.indptr[position[c] + 1]] for c in suppressed]
        exposed = audit(sp.csr_matrix(a), b, truth, threshold, hidden, deadline)
        if exposed is None:
            return suppressed, True
        if exposed == NOT_CONFIRMED or time.perf_counter() > deadline:
            return suppressed, False
        candidate = _partner(spec, own, suppressed[exposed], suppressed)
        if candidate is None:
            return suppressed, False
        suppressed.append(candidate)
    return suppressed, False


def _partner(spec: OutputSpec, cells: pd.DataFrame, cell: int, suppressed: list[int]) -> int | None:
    """A secondary suppression for ``cell``: in a line through it (same grouping, all labels but one equal)
    that holds no other hidden cell, the smallest cell; else the smallest unhidden cell of any line through it;
    else the smallest unhidden cell of its grouping."""
    s = _at(cells)[cell, "set"]
    same = cells[cells["set"].map(lambda t: t == s)]
    lines: list[tuple[bool, float, int]] = []
    for v in s:
        fixed = [u for u in s if u != v]
        on_line = (
            same[np.logical_and.reduce([same[u] == _at(cells)[cell, u] for u in fixed])] if fixed else same
        )
        others = [int(cast(Any, i)) for i in on_line.index if int(cast(Any, i)) != cell]
        free = [i for i in others if i not in suppressed]
        if not free:
            continue
        lonely = not any(i in suppressed for i in others)
        best = min(free, key=lambda i: float(_at(cells)[i, "value"]))
        lines.append((not lonely, float(_at(cells)[best, "value"]), best))
    if lines:
        return min(lines)[2]
    rest = same[~same.index.isin(suppressed)]
    return None if rest.empty else int(cast(Any, rest["value"].idxmin()))


# Seconds the suppressed cells' intervals of all tables may take together (each round of a magnitude table's
# greedy search solves every hidden cell's programs); a suggestion found after that is not confirmed.
SUPPRESSION_SECONDS = 10.0
# How long the audits that confirm withholding an output may take together (each about as long as the first).
WITHHOLD_SECONDS = 20.0


def _end(x: float) -> float | int:
    v = float(x)
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def _hidden_intervals(
    diff: Any, spec: OutputSpec, cells: pd.DataFrame, chosen: list[int], deadline: float = np.inf
) -> list[Any]:
    """Each suppressed cell's interval when all of them are suppressed (what an intruder recomputes); a wider
    one that still holds where the time ran out."""
    from privrisk.outputs.cell_bounds import hidden_cells

    if spec.name not in diff.cell_rows or not chosen:
        return [None] * len(chosen)
    position = {int(c): i for i, c in enumerate(cells.index)}
    res = hidden_cells(diff, spec, cells, [position[c] for c in chosen], deadline=deadline)
    return [None if np.isnan(lo) else [_end(lo), _end(hi)] for lo, hi in zip(res.lo, res.hi, strict=True)]


def magnitude_suppression(
    diff: Any,
    spec: OutputSpec,
    cells: pd.DataFrame,
    failing: list[int],
    policy: Policy,
    *,
    deadline: float | None = None,
) -> tuple[list[int], bool, list[Any]]:
    """Cells to suppress in a sum or mean table (or a weighted count): the failing ones, then secondary ones
    chosen greedily (as for counts, :func:`_partner`) until every suppressed cell's interval over everything
    else released is wider than its protection (:func:`privrisk.outputs.cell_bounds.protected`: not a single
    value, and for sums and means the p % rule's); whether that was reached, and the suppressed cells'
    intervals."""
    from privrisk.outputs.cell_bounds import hidden_cells, protected

    def column(name: str) -> np.ndarray:
        if name not in cells:
            return np.full(len(cells), np.nan)
        return pd.to_numeric(cells[name], errors="coerce").to_numpy(dtype=float)

    total, top1, top2, count = (column(c) for c in ("total", "top1", "top2", "n"))
    kind = "count" if spec.kind == "count" or spec.weights else spec.kind
    position = {int(c): i for i, c in enumerate(cells.index)}
    if deadline is None:
        deadline = time.perf_counter() + SUPPRESSION_SECONDS
    suppressed = list(dict.fromkeys(failing))
    res = None
    for _ in range(MAX_SECONDARY + 1):
        res = hidden_cells(diff, spec, cells, [position[c] for c in suppressed], deadline=deadline)
        exposed, unsure = None, False
        for t, c in enumerate(suppressed):
            i = position[c]
            if np.isnan(res.lo[t]):
                continue
            guarded = protected(
                kind,
                res.lo[t],
                res.hi[t],
                total=total[i],
                top1=top1[i],
                top2=top2[i],
                count=count[i],
                p=policy.safe_pratio_p,
            )
            if not guarded:
                # Too narrow even if the interval is a wider one than the truth: more cells must go.
                exposed = t
                break
            # Wide enough, but only as a bound not proven tight: the truth may be narrower.
            unsure |= not res.exact[t]
        if exposed is None:
            if unsure:
                res = None
            break
        if time.perf_counter() > deadline:
            res = None
            break
        candidate = _partner(spec, cells, suppressed[exposed], suppressed)
        if candidate is None:
            res = None
            break
        suppressed.append(candidate)
    else:
        res = None
    if res is None:
        return suppressed, False, _hidden_intervals(diff, spec, cells, suppressed, deadline)
    bounds = [None if np.isnan(lo) else [_end(lo), _end(hi)] for lo, hi in zip(res.lo, res.hi, strict=True)]
    return suppressed, True, bounds


def recommendations(
    outputs: list[dict[str, Any]],
    diff: Any,
    specs: tuple[OutputSpec, ...],
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    con: Any,
    *,
    audit_seconds: float = 0.0,
) -> list[dict[str, Any]]:
    """The suggestions for every failing output and every disclosure.

    ``audit_seconds``: how long the differencing audit of everything released took; a withheld output is
    confirmed by auditing the rest again, which takes about as long, so at most :data:`WITHHOLD_SECONDS` of such
    audits are run (a withholding not confirmed in that time is offered as not confirmed).
    """
    from privrisk.outputs.differencing import difference, incidence

    by_name = {s.name: s for s in specs}
    tables = {s.name: c for s, c in linear}
    flag_of = {c: f"__f{i}" for i, c in enumerate(diff.conditions)}
    recs: list[dict[str, Any]] = []
    deadline = time.perf_counter() + SUPPRESSION_SECONDS

    def incidence_of(s: OutputSpec, cells: pd.DataFrame) -> sp.csr_matrix:
        return incidence(diff.atoms, s, cells, flag_of.get(s.where) if s.where else None)

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
            truth = diff.atoms["n"].to_numpy(dtype=float)
            chosen, confirmed = suppression(
                spec, linear, failing, incidence_of, truth, policy.safe_threshold, deadline
            )
            bounds = _hidden_intervals(diff, spec, cells, chosen, deadline)
            why = "so they cannot be recomputed"
            verdict = (
                "the audit of everything released confirms it.",
                "the audit does not confirm that no suppressed cell can be recomputed",
            )
            recs.append(_suppression(spec, cells, failing, chosen, confirmed, bounds, why, verdict))
        elif spec.kind in ("sum", "mean", "count") and spec.name in diff.cell_rows:
            chosen, confirmed, bounds = magnitude_suppression(
                diff, spec, cells, failing, policy, deadline=deadline
            )
            why = "so that none can be recomputed within its p % protection"
            verdict = (
                "the intervals over everything released confirm it.",
                "a suppressed cell is still recomputed too closely",
            )
            recs.append(_suppression(spec, cells, failing, chosen, confirmed, bounds, why, verdict))
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
                    "sentence": f"Suppress the {len(failing)} failing cells of {spec.name}; this table is not "
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
    spent = 0.0
    for d in diff.disclosures:
        mine = [n for n in d["outputs"] if n in by_name]
        untried: list[str] = []
        for name in sorted(mine, key=lambda n: len(tables.get(n, ())))[:2]:
            if name not in tried and len(tried) < 3:
                if spent + audit_seconds > WITHHOLD_SECONDS:
                    untried.append(name)
                    continue
                rest = [(s, c) for s, c in linear if s.name != name]
                start = time.perf_counter()
                again = difference(con, rest, policy)
                spent += time.perf_counter() - start
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
            if untried:
                name = untried[0]
                recs.append(
                    {
                        "action": "withhold",
                        "output": name,
                        "confirmed": False,
                        "cost": f"{len(tables.get(name, ()))} cells of {name} withheld",
                        "sentence": f"Withholding {name} may remove this disclosure; confirming it needs another "
                        f"audit of everything released (about {audit_seconds:.0f} s), more than the time given: "
                        "audit the request without it, or decide by review.",
                    }
                )
                continue
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


def _suppression(
    spec: OutputSpec,
    cells: pd.DataFrame,
    failing: list[int],
    chosen: list[int],
    confirmed: bool,
    bounds: Any,
    why: str,
    verdict: tuple[str, str],
) -> dict[str, Any]:
    """A suppression suggestion: the failing cells first, then the secondary ones, and whether it is confirmed."""
    secondary = len(chosen) - len(failing)
    return {
        "action": "suppress",
        "output": spec.name,
        "cells": [_labels(spec, cells, i) for i in chosen],
        "secondary_cells": [_labels(spec, cells, i) for i in chosen[len(failing) :]],
        "primary": len(failing),
        "secondary": secondary,
        "confirmed": confirmed,
        "intervals": bounds,
        "cost": f"{len(chosen)} of {len(cells)} cells withheld ({secondary} secondary)",
        "sentence": f"Suppress {len(failing)} cell{'s' if len(failing) != 1 else ''} of {spec.name} and "
        f"{secondary} more {why}; " + (verdict[0] if confirmed else f"{verdict[1]}: coarsen instead."),
    }
