"""The outputs computed from the microdata with DuckDB, with what the rules need to know about each cell.

privrisk computes every table itself, so it knows each cell's contributors: their number, the sum of their
values, the largest ones (for the dominance rules) and whether any is negative or missing. Grouping values are
read as text (``NULL`` as ``(missing)``), and a margin's label is ``All``, as in ACRO and pandas.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import MODELS, OutputSpec

__all__ = ["ALL", "MISSING", "check_where", "connect", "grouping_sets", "table_cells"]

ALL = "All"
MISSING = "(missing)"
_EVIDENCE = ["value", "n", "total", "top_n", "top1", "top2", "negatives", "missing"]


def connect(frame: pd.DataFrame) -> Any:
    """A DuckDB connection that sees the data as ``data`` and nothing else (no files, no network)."""
    import duckdb

    con = duckdb.connect()
    con.register("data", frame)
    # A `where` is SQL written by a user: it may read the data, never a file.
    con.execute("SET enable_external_access = false")
    return con


def check_where(con: Any, spec: OutputSpec) -> str:
    """The output's condition as SQL, checked to be a condition over the data's columns (``TRUE`` if none)."""
    if spec.where is None:
        return "TRUE"
    import duckdb

    if ";" in spec.where:
        raise PrivriskError(f"spec: output {spec.name!r}: field 'where' must be one condition", param="spec")
    try:
        types = con.sql(f"SELECT ({spec.where}) AS c FROM data LIMIT 0").types
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0]
        raise PrivriskError(
            f"spec: output {spec.name!r}: field 'where' is not a condition over the data: {first}",
            param="spec",
        ) from None
    if str(types[0]) != "BOOLEAN":
        raise PrivriskError(
            f"spec: output {spec.name!r}: field 'where' = {spec.where!r} is not a condition (it gives {types[0]})",
            param="spec",
        )
    return f"COALESCE(({spec.where}), FALSE)"


def grouping_sets(spec: OutputSpec) -> list[tuple[str, ...]]:
    """The groupings released: the full table, and with margins the row, column and grand totals.

    Example:
        >>> grouping_sets(OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), margins=True))
        [('a', 'b'), ('a',), ('b',), ()]
    """
    sets = [spec.variables]
    if spec.margins:
        sets += [spec.rows, spec.columns, ()]
    return list(dict.fromkeys(sets))


def _label(column: str) -> str:
    return f"COALESCE(CAST({qi(column)} AS VARCHAR), '{MISSING}')"


def _value_sql(spec: OutputSpec, x: str) -> str:
    w = "__w" if spec.weights else None
    if spec.kind == "count":
        return f"SUM(CAST({w} AS DOUBLE))" if w else "COUNT(*)"
    if spec.kind == "sum":
        return f"SUM(CAST({x} AS DOUBLE) * {w})" if w else f"SUM(CAST({x} AS DOUBLE))"
    if spec.kind == "quantile":
        return f"QUANTILE_CONT({x}, {float(spec.q or 0.5)!r})"
    return {"mean": "AVG", "median": "MEDIAN", "min": "MIN", "max": "MAX"}[
        spec.kind
    ] + f"(CAST({x} AS DOUBLE))"


def table_cells(con: Any, spec: OutputSpec, policy: Policy) -> pd.DataFrame:
    """One row per released cell of a table: its labels (one column per grouping variable), its value, the
    number of contributors ``n``, and the evidence of the rules (``total``, ``top_n`` the sum of the
    ``safe_nk_n`` largest values, ``top1``, ``top2`` the sum of the two largest, ``negatives``, ``missing``).

    Cells the data leaves empty are released too (a crosstab shows them as 0): every combination of the
    observed rows and the observed columns is a cell.
    """
    if spec.kind in MODELS:
        raise PrivriskError(f"spec: output {spec.name!r} is a model, not a table", param="spec")
    cond = check_where(con, spec)
    x = "__x" if spec.variable else "NULL"
    k = max(policy.safe_nk_n, 2)
    sets = grouping_sets(spec)
    inner = [f"{_label(v)} AS {qi(v)}" for v in spec.variables]
    inner.append(f"{qi(spec.variable)} AS __x" if spec.variable else "NULL AS __x")
    inner.append(f"{qi(spec.weights)} AS __w" if spec.weights else "NULL AS __w")
    labels = [qi(v) for v in spec.variables]
    flags = [f"GROUPING({qi(v)}) AS {qi('__g_' + v)}" for v in spec.variables]
    magnitude = spec.variable is not None
    n_sql = f"COUNT({x})" if magnitude else "COUNT(*)"
    select = ", ".join(
        [
            *labels,
            *flags,
            f"{_value_sql(spec, x)} AS value",
            f"{n_sql} AS n",
            f"SUM(CAST({x} AS DOUBLE)) AS total" if magnitude else "NULL AS total",
            f"MAX(CAST({x} AS DOUBLE), {k}) AS top" if magnitude else "NULL AS top",
            f"COUNT(*) FILTER (WHERE {x} < 0) AS negatives" if magnitude else "0 AS negatives",
            f"COUNT(*) - COUNT({x}) AS missing" if magnitude else "0 AS missing",
        ]
    )
    group = ", ".join("(" + ", ".join(qi(v) for v in s) + ")" for s in sets)
    sql = f"SELECT {select} FROM (SELECT {', '.join(inner)} FROM data WHERE {cond})"
    if spec.variables:
        sql += f" GROUP BY GROUPING SETS ({group})"
    frame = con.sql(sql).df()
    frame = _complete(frame, spec, sets)
    tops = frame.pop("top")
    frame["top_n"] = [_top(t, policy.safe_nk_n) for t in tops]
    frame["top1"] = [_top(t, 1) for t in tops]
    frame["top2"] = [_top(t, 2) for t in tops]
    frame["n"] = frame["n"].astype("int64")
    frame["negatives"] = frame["negatives"].fillna(0).astype("int64")
    frame["missing"] = frame["missing"].fillna(0).astype("int64")
    return frame[[*spec.variables, "set", *_EVIDENCE]].reset_index(drop=True)


def _top(values: Any, n: int) -> float:
    if values is None or (isinstance(values, float) and np.isnan(values)):
        return float("nan")
    vals = sorted((float(v) for v in values if v is not None), reverse=True)
    return float(sum(vals[:n])) if vals else float("nan")


def _complete(frame: pd.DataFrame, spec: OutputSpec, sets: list[tuple[str, ...]]) -> pd.DataFrame:
    """Label margins ``All``, name each cell's grouping set, and add the empty cells of every grouping."""
    variables = list(spec.variables)
    if not variables:
        frame["set"] = [()] * len(frame)
        if frame.empty:
            frame = pd.DataFrame([{"value": 0 if spec.kind == "count" else np.nan, "n": 0}])
            frame["set"] = [()]
        return frame
    gflags = frame[[f"__g_{v}" for v in variables]].to_numpy(dtype=bool)
    frame["set"] = [tuple(v for v, g in zip(variables, row, strict=True) if not g) for row in gflags]
    for v, col in zip(variables, gflags.T, strict=True):
        frame.loc[col, v] = ALL
    frame = frame.drop(columns=[f"__g_{v}" for v in variables])
    # Every released grouping shows each observed row × each observed column (a crosstab's empty cells).
    parts = []
    for s in sets:
        # A boolean array, not a list: an empty list would select no columns instead of no rows.
        part = frame[np.fromiter((t == s for t in frame["set"]), dtype=bool, count=len(frame))]
        rows = [v for v in spec.rows if v in s]
        cols = [v for v in spec.columns if v in s]
        row_keys = part[rows].drop_duplicates().itertuples(index=False, name=None) if rows else [()]
        col_keys = part[cols].drop_duplicates().itertuples(index=False, name=None) if cols else [()]
        grid = [r + c for r, c in itertools.product(list(row_keys), list(col_keys))]
        if not grid:
            grid = [()]
        if rows + cols:
            # A condition no record meets leaves no observed row or column: the table has no cells.
            grid = [g for g in grid if len(g) == len(rows + cols)]
            full = pd.DataFrame(grid, columns=rows + cols) if grid else pd.DataFrame(columns=rows + cols)
        else:
            full = pd.DataFrame(index=[0])
        for v in variables:
            if v not in s:
                full[v] = ALL
        full = (
            full.merge(part.drop(columns=["set"]), on=variables, how="left")
            if rows + cols
            else (
                part.drop(columns=["set"]).reset_index(drop=True)
                if len(part)
                else full.assign(value=np.nan, n=0, total=np.nan, top=None, negatives=0, missing=0)
            )
        )
        full["set"] = [s] * len(full)
        parts.append(full)
    out = pd.concat(parts, ignore_index=True)
    empty = out["n"].isna()
    out.loc[empty, "n"] = 0
    if spec.kind == "count":
        out.loc[out["value"].isna(), "value"] = 0.0
    # The full table first, then its margins; inside each, the labels in their natural order (numbers as numbers).
    keys = pd.DataFrame({"__size": -out["set"].map(len)})
    for v in variables:
        keys[f"__k_{v}"] = out[v].map(lambda x: (x == ALL, *_order(str(x))))
    order = keys.sort_values(by=list(keys.columns), kind="stable").index
    return out.loc[order]


def _order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order before text (labels are read as text)."""
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)
