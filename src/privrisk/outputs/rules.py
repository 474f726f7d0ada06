"""The primary rules of output checking, cell by cell, as ACRO applies them (Green et al., ACRO 1.0).

- minimum frequency: a cell of fewer than ``safe_threshold`` contributors fails (counts, magnitudes, min, max,
  median, quantiles);
- (n, k) dominance: the ``safe_nk_n`` largest contributions hold at least the share ``safe_nk_k`` of the total;
- p % rule (ACRO's p-ratio): (total − the two largest) / the largest < ``safe_pratio_p``;
- zeros: an empty cell fails when ``zeros_are_disclosive`` (counts and positions, as in ACRO);
- class disclosure: every member of a row of a two-way count table falls in one column (review);
- missing values (``check_missing_values``): a cell whose variable has missing values is for review;
- models: residual degrees of freedom below ``safe_dof_threshold`` fail.

Dominance is not defined when a cell holds negative values: such cells are for review, as in ACRO.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec
from privrisk.outputs.wording import DEFAULT_UNIT

__all__ = ["STATUSES", "cell_rules", "model_rules", "worst"]

STATUSES = ("pass", "review", "fail")


def worst(statuses: Any) -> str:
    """The worst of some statuses (fail > review > pass).

    Example:
        >>> worst(["pass", "review"]), worst([])
        ('review', 'pass')
    """
    found = set(statuses)
    for s in ("fail", "review"):
        if s in found:
            return s
    return "pass"


def _num(x: Any) -> float | int | None:
    if x is None:
        return None
    v = float(x)
    if math.isnan(v):
        return None
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def cell_rules(spec: OutputSpec, cells: pd.DataFrame, policy: Policy) -> list[list[dict[str, Any]]]:
    """For each cell of a table, the rules it breaks, each with its status and the numbers that decided it (the
    threshold's and the zeros' with the ``unit`` counted: the spec's ``unit``, people by default)."""
    t = policy.safe_threshold
    unit = str(getattr(spec, "unit", None) or DEFAULT_UNIT)
    out: list[list[dict[str, Any]]] = []
    magnitude = spec.kind in ("sum", "mean")
    class_cells = _class_cells(spec, cells) if spec.kind == "count" and spec.rows and spec.columns else set()
    rows: list[Any] = list(cells.itertuples(index=False))
    for i, row in enumerate(rows):
        n = int(row.n)
        broken: list[dict[str, Any]] = []
        if n < t:
            broken.append({"rule": "threshold", "status": "fail", "n": n, "threshold": t, "unit": unit})
        if spec.kind not in ("sum", "mean") and n == 0 and policy.zeros_are_disclosive:
            broken.append({"rule": "zeros", "status": "fail", "n": 0, "unit": unit})
        if magnitude:
            if row.negatives > 0:
                broken.append(
                    {
                        "rule": "dominance",
                        "status": "review",
                        "negatives": int(row.negatives),
                        "reason": "dominance is not defined when values are negative",
                    }
                )
            else:
                total, top_n, top1, top2 = (float(v) for v in (row.total, row.top_n, row.top1, row.top2))
                share = top_n / total if total else float("nan")
                # As in ACRO, an undefined share (an empty cell, a total of 0) is not dominated: the threshold
                # and zeros rules speak for such cells.
                if share >= policy.safe_nk_k:
                    broken.append(
                        {
                            "rule": "nk",
                            "status": "fail",
                            "n": policy.safe_nk_n,
                            "share": _num(share),
                            "k": policy.safe_nk_k,
                        }
                    )
                if top1 and not np.isnan(top1):
                    ratio = (total - top2) / top1
                    if ratio < policy.safe_pratio_p:
                        broken.append(
                            {
                                "rule": "p-ratio",
                                "status": "fail",
                                "ratio": _num(ratio),
                                "p": policy.safe_pratio_p,
                            }
                        )
        if i in class_cells:
            broken.append(
                {
                    "rule": "class",
                    "status": "review",
                    "reason": "every member of its row falls in this column",
                }
            )
        if policy.check_missing_values and row.missing > 0:
            broken.append({"rule": "missing", "status": "review", "missing": int(row.missing)})
        out.append(broken)
    return out


def _class_cells(spec: OutputSpec, cells: pd.DataFrame) -> set[int]:
    """Cells of the full two-way grouping that hold a whole non-empty row (class disclosure)."""
    # A boolean array, not a list: an empty list would select no columns instead of no rows.
    full = cells[np.fromiter((t == spec.variables for t in cells["set"]), dtype=bool, count=len(cells))]
    found: set[int] = set()
    for _, group in full.groupby(list(spec.rows), sort=False):
        total: Any = group["value"].sum()
        if len(group) > 1 and total > 0:
            hit: Any = group.index[group["value"] == total]
            found.update(int(i) for i in hit)
    return found


def model_rules(dof: int, policy: Policy) -> list[dict[str, Any]]:
    """The residual degrees of freedom rule of a model.

    Example:
        >>> model_rules(5, Policy())
        [{'rule': 'dof', 'status': 'fail', 'dof': 5, 'threshold': 10}]
    """
    if dof < policy.safe_dof_threshold:
        return [{"rule": "dof", "status": "fail", "dof": int(dof), "threshold": policy.safe_dof_threshold}]
    return []
