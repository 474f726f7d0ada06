"""The next cell to suppress: secondary suppressions, chosen one at a time while the audit still finds a failing
cell recomputed or a group pinned down (:mod:`privrisk.outputs.recommend`).

Along a line of the table (the cells that share all labels but one) the cheapest partner of an exposed cell is
the smallest other cell, best on a line where the exposed cell is the only hidden one: hiding it breaks the
difference that gave the cell back (the usual heuristic of secondary suppression, e.g. τ-ARGUS's hypercube
method takes partners on the cell's lines too).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from privrisk.outputs.spec import OutputSpec

__all__ = ["cover", "partner"]


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


def partner(spec: OutputSpec, cells: pd.DataFrame, cell: int, suppressed: list[int]) -> int | None:
    """A secondary suppression for ``cell``: in a line through it (same grouping, all labels but one equal)
    that holds no other hidden cell, the smallest cell; else the smallest unhidden cell of any line through it;
    else the smallest unhidden cell of its grouping.

    Example:
        >>> cells = pd.DataFrame({"r": ["a", "a", "b", "b"], "c": ["x", "y", "x", "y"], "value": [2, 9, 5, 7],
        ...                       "set": [("r", "c")] * 4})
        >>> partner(OutputSpec(name="T", kind="count", rows=("r",), columns=("c",)), cells, 0, [0])
        2
    """
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


def cover(
    spec: OutputSpec, cells: pd.DataFrame, finding: dict[str, Any], suppressed: list[int]
) -> int | None:
    """A cell to suppress next for a finding: the smallest shown cell of this table that holds the finding's
    group; else a partner (:func:`partner`) of a hidden cell that holds it (the finding is then the hidden
    cell's own group, pinned down through the other outputs); else of the first hidden cell."""
    labels = finding.get("labels") or {}
    if spec.where and spec.where in labels and not labels[spec.where]:
        return None
    holding = [
        i
        for i in range(len(cells))
        if all(str(_at(cells)[i, v]) == str(labels[v]) for v in _at(cells)[i, "set"] if v in labels)
    ]
    shown = [i for i in holding if i not in suppressed]
    if shown:
        return min(shown, key=lambda i: (float(_at(cells)[i, "value"]), i))
    hidden = [i for i in suppressed if i in holding] or suppressed[:1]
    return partner(spec, cells, hidden[0], suppressed) if hidden else None
