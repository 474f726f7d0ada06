"""Calls a notebook user expects, in the spirit of ACRO's drop-in API: each returns the table (or the
coefficients) and its check (an :class:`privrisk.outputs.run.OutputsRun` of that one output)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import Kind, OutputSpec

if TYPE_CHECKING:
    from privrisk.outputs.run import OutputsRun as OutputsResult

__all__ = ["crosstab", "logit", "ols", "pivot_table"]


def _names(x: str | Sequence[str] | None) -> tuple[str, ...]:
    if x is None:
        return ()
    return (x,) if isinstance(x, str) else tuple(x)


def _table(
    frame: pd.DataFrame,
    policy: Policy | None,
    kind: str,
    rows: str | Sequence[str] | None,
    columns: str | Sequence[str] | None,
    **fields: Any,
) -> tuple[pd.DataFrame, OutputsResult]:
    """The table of the output ``kind`` by ``rows`` and ``columns`` (``fields``: the rest of its spec), checked."""
    from privrisk.outputs.run import check_frame

    spec = OutputSpec(kind=cast(Kind, kind), rows=_names(rows), columns=_names(columns), **fields)
    result = check_frame(frame, [spec], policy)
    cells = result.tables[spec.name]
    if spec.columns:
        table = cells.pivot_table(
            index=list(spec.rows) or None,
            columns=list(spec.columns),
            values="value",
            aggfunc="first",
            sort=False,
        )
    elif spec.rows:
        table = cells.set_index(list(spec.rows))[["value"]]
    else:
        table = cells[["value"]]
    return table, result


def crosstab(
    frame: pd.DataFrame,
    rows: str | Sequence[str],
    columns: str | Sequence[str] | None = None,
    *,
    values: str | None = None,
    aggfunc: str = "count",
    where: str | None = None,
    margins: bool = False,
    weights: str | None = None,
    policy: Policy | None = None,
    name: str = "crosstab",
) -> tuple[pd.DataFrame, OutputsResult]:
    """A table of counts (or of ``aggfunc`` of ``values``) and its check.

    Example:
        >>> import pandas as pd
        >>> f = pd.DataFrame({"g": ["a"] * 12 + ["b"] * 3, "h": ["x", "y"] * 7 + ["x"]})
        >>> table, check = crosstab(f, "g", "h")
        >>> table.loc["b"].tolist(), check.status
        ([2, 1], 'fail')
    """
    kind = "count" if values is None else aggfunc
    fields = {"name": name, "where": where, "margins": margins, "variable": values, "weights": weights}
    return _table(frame, policy, kind, rows, columns, **fields)


def pivot_table(
    frame: pd.DataFrame,
    index: str | Sequence[str],
    values: str,
    aggfunc: str = "mean",
    columns: str | Sequence[str] | None = None,
    *,
    where: str | None = None,
    margins: bool = False,
    q: float | None = None,
    policy: Policy | None = None,
    name: str = "pivot_table",
) -> tuple[pd.DataFrame, OutputsResult]:
    """A table of ``aggfunc`` (mean, sum, median, quantile, min, max) of ``values`` and its check."""
    fields = {"name": name, "where": where, "margins": margins, "variable": values, "q": q}
    return _table(frame, policy, aggfunc, index, columns, **fields)


def _model(
    frame: pd.DataFrame, kind: str, formula: str, where: str | None, policy: Policy | None, name: str
) -> tuple[pd.DataFrame, OutputsResult]:
    from privrisk.outputs.run import check_frame

    spec = OutputSpec(name=name, kind=cast(Kind, kind), formula=formula, where=where)
    result = check_frame(frame, [spec], policy)
    out: Any = result.outputs[0]
    table = pd.DataFrame(
        {"coefficient": [c["value"] for c in out["cells"]]}, index=[c["labels"]["term"] for c in out["cells"]]
    )
    return table, result


def ols(
    frame: pd.DataFrame,
    formula: str,
    *,
    where: str | None = None,
    policy: Policy | None = None,
    name: str = "ols",
) -> tuple[pd.DataFrame, OutputsResult]:
    """Least squares of ``y ~ x1 + C(x2)``: the coefficients and the check of its residual degrees of freedom."""
    return _model(frame, "ols", formula, where, policy, name)


def logit(
    frame: pd.DataFrame,
    formula: str,
    *,
    where: str | None = None,
    policy: Policy | None = None,
    name: str = "logit",
) -> tuple[pd.DataFrame, OutputsResult]:
    """Logistic regression of a 0/1 response: the coefficients and the check of its residual degrees of freedom."""
    return _model(frame, "logit", formula, where, policy, name)
