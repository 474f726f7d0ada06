"""The outputs computed from the microdata with DuckDB, with what the rules need to know about each cell.

privrisk computes every table itself, so it knows each cell's contributors: their number, the sum of their
values, the largest ones (for the dominance rules) and whether any is negative or missing. Grouping values are
read as text (``NULL`` as ``(missing)``), and a margin's label is ``All``, as in ACRO and pandas.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
import weakref
from typing import Any

import numpy as np
import pandas as pd

from privrisk._format import listing
from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError
from privrisk.outputs.exact_sum import Grid, exact_sum_sql, from_limbs, limb_grid
from privrisk.outputs.knowledge import _EXACT_TEXT, _exact_text
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import MODELS, OutputSpec

__all__ = [
    "ALL",
    "MAX_CELLS",
    "MISSING",
    "check_where",
    "connect",
    "grouping_sets",
    "margin_labels",
    "table_cells",
]

ALL = "All"
# A margin's label when "All" is itself a level of the variable: the first of these that is not.
_MARGINS = ("All", "Total", "All (total)", "(all)")
# The most cells one table may have: a grouping by an identifier (10⁵ levels) is refused with its name rather
# than left to run for minutes; a table a checker reads cell by cell is far smaller.
MAX_CELLS = 10_000
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


def _types(con: Any) -> dict[str, str]:
    """The data's columns and their DuckDB types."""
    rel = con.sql("SELECT * FROM data LIMIT 0")
    return {str(c): str(t) for c, t in zip(rel.columns, rel.types, strict=True)}


def _kind_words(sql_type: str) -> str:
    """A DuckDB type as a checker says it: text, numbers, dates, true or false."""
    t = sql_type.upper()
    if t in ("VARCHAR", "STRING_LITERAL") or t.startswith("ENUM"):
        return "text"
    if t in _NUMERIC or t.startswith("DECIMAL") or t == "INTEGER_LITERAL":
        return "numbers" if t != "BOOLEAN" else "true or false"
    if t == "DATE":
        return "dates"
    if t.startswith(("TIMESTAMP", "TIME", "INTERVAL")):
        return "times"
    return "values of another kind"


_NUMERIC = {
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
    "UHUGEINT", "FLOAT", "DOUBLE", "BOOLEAN",
}  # fmt: skip
_EXAMPLE = "write conditions such as region = 'West' and age >= 18"


def _quoted(where: str, word: str) -> str:
    """The condition with a bare word put in quotes (outside the quotes it already has)."""
    parts = re.split(r"('(?:[^']|'')*')", where)
    pattern = re.compile(rf'(?<![\w\'"])"?{re.escape(word)}"?(?![\w\'"])')
    return "".join(p if p.startswith("'") else pattern.sub(f"'{word}'", p) for p in parts)


def _where_problem(con: Any, where: str, exc: Exception) -> str:
    """What is wrong with a ``where``, in a checker's words (never the database's message or SQL)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    columns = list(_types(con))
    m = re.search(r'Referenced column "(.+?)" not found', text)
    if m:
        name = m.group(1)
        for col, sql_type in _types(con).items():
            if _kind_words(sql_type) != "text":
                continue
            hit = con.execute(
                f"SELECT 1 FROM data WHERE CAST({qi(col)} AS VARCHAR) = ? LIMIT 1", [name]
            ).fetchall()
            if hit:
                return (
                    f"{name} is not a column; to compare {col} with the text {name}, put it in quotes: "
                    f"{_quoted(where, name)}"
                )
        close = difflib.get_close_matches(name, columns, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        shown = ", ".join(columns[:12]) + (", …" if len(columns) > 12 else "")
        return f"there is no column {name}{hint}; the columns are {shown}; text goes in quotes: 'West'"
    m = re.search(r"Could not convert string '(.*?)' to \w+(?: when casting from source column (\S+))?", text)
    if m and m.group(2):
        return (
            f"{m.group(2)} holds text (such as '{m.group(1)}') and is compared with a number: "
            f"put the number in quotes ({m.group(2)} = '5') or compare a column of numbers"
        )
    if m:
        return f"'{m.group(1)}' is not a number, and is compared with a column of numbers"
    m = re.search(r"Cannot compare values of type (\w+) and type (\w+)", text)
    if m:
        return f"it compares {_kind_words(m.group(1))} with {_kind_words(m.group(2))}"
    m = re.search(r"Function with name (\w+) does not exist", text)
    if m:
        return f"there is no function {m.group(1)}; {_EXAMPLE}"
    m = re.search(r"argument types '(\w+)\((.*?)\)'", text)
    if m:
        kinds = listing([_kind_words(t.strip()) for t in m.group(2).split(",") if t.strip()])
        return f"the function {m.group(1)} does not take {kinds}"
    if "syntax error" in text:
        near = re.search(r'at or near "(.*?)"', text)
        if near is None or near.group(1) == ")":
            return f"it cannot be read: it ends too early or has a bracket too many; {_EXAMPLE}"
        return f"it cannot be read near {near.group(1)}; {_EXAMPLE}"
    if "Permission" in text or "file system" in text or "Catalog" in text:
        return "it may read the data's columns only (no files, no other tables)"
    return f"it does not read as one on the data's columns; {_EXAMPLE}"


def check_where(con: Any, spec: OutputSpec) -> str:
    """The output's condition as SQL, checked to be a condition over the data's columns that every row can be
    evaluated on (``TRUE`` if none); a bad one is a one-line error in the checker's words."""
    if spec.where is None:
        return "TRUE"
    import duckdb

    head = f"spec: output {spec.name!r}: field 'where' = {spec.where!r}"
    if ";" in spec.where:
        raise PrivriskError(f"{head} must be one condition (no ';')", param="spec")
    try:
        types = con.sql(f"SELECT ({spec.where}) AS c FROM data LIMIT 0").types
    except duckdb.Error as exc:
        raise PrivriskError(
            f"{head} is not a condition: {_where_problem(con, spec.where, exc)}", param="spec"
        ) from None
    if str(types[0]) != "BOOLEAN":
        raise PrivriskError(
            f"{head} is not a condition: it gives {_kind_words(str(types[0]))}, not true or false; {_EXAMPLE}",
            param="spec",
        )
    # Binding is not enough: a comparison of text with a number fails only on a row that holds text. A condition
    # that ran on every row of this connection's data once runs again (the remedies' audits ask dozens of times).
    try:
        passed = _WHERE_RAN.setdefault(con, set())
    except TypeError:  # a connection that cannot be weakly referenced: nothing is kept
        passed = set()
    if spec.where not in passed:
        try:
            con.sql(f"SELECT COUNT(*) FROM data WHERE COALESCE(({spec.where}), FALSE)").fetchall()
        except duckdb.Error as exc:
            raise PrivriskError(
                f"{head} is not a condition: {_where_problem(con, spec.where, exc)}", param="spec"
            ) from None
        passed.add(spec.where)
    return f"COALESCE(({spec.where}), FALSE)"


# Per connection (its ``data`` is registered once, by :func:`connect`): the conditions that ran on every row.
_WHERE_RAN: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _check_magnitude(con: Any, spec: OutputSpec) -> None:
    """The magnitude and the weights of a table are finite numbers (missing values are allowed)."""
    types = _types(con)
    for field_, col in (("variable", spec.variable), ("weights", spec.weights)):
        if not col or col not in types:
            continue
        head = f"spec: output {spec.name!r}: {field_} {col!r}"
        sql_type = types[col].upper()
        if not (sql_type in _NUMERIC or sql_type.startswith("DECIMAL")):
            sample = con.sql(
                f"SELECT CAST({qi(col)} AS VARCHAR) FROM data WHERE {qi(col)} IS NOT NULL "
                f"ORDER BY TRY_CAST({qi(col)} AS DOUBLE) IS NOT NULL LIMIT 1"
            ).fetchall()
            if not sample:  # a header without records, or a column left empty: there is no kind to name
                raise PrivriskError(
                    f"{head} has no values (every cell is missing); give numbers", param="spec"
                )
            such = f" such as {_short(sample[0][0])!r}"
            raise PrivriskError(
                f"{head} is not numeric: it holds {_kind_words(sql_type)}{such}; give numbers "
                "(a missing value may be left empty)",
                param="spec",
            )
        if sql_type in ("FLOAT", "DOUBLE"):
            bad = con.sql(
                f"SELECT {qi(col)} FROM data WHERE isinf({qi(col)}) OR isnan({qi(col)}) LIMIT 1"
            ).fetchall()
            if bad and math.isinf(bad[0][0]):
                raise PrivriskError(
                    f"{head} holds an infinite value ({bad[0][0]}): give finite numbers (a missing value may "
                    "be left empty)",
                    param="spec",
                )


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"


def _check_size(con: Any, spec: OutputSpec, cond: str) -> None:
    """A table of at most :data:`MAX_CELLS` cells (a grouping by an identifier is refused, naming it)."""
    if not spec.variables:
        return
    # The table has at most as many cells as the product of its variables' levels in the whole data: when that
    # bound is small (the usual case) the exact count under the condition (three scans) is not needed.
    bounds = _level_bounds(con, spec.variables)
    if math.prod(bounds[v] for v in spec.variables) <= MAX_CELLS:
        return
    levels = con.sql(
        "SELECT "
        + ", ".join(f"COUNT(DISTINCT {_label(v)})" for v in spec.variables)
        + f" FROM data WHERE {cond}"
    ).fetchall()[0]
    size = 1
    for part in (spec.rows, spec.columns):
        if part:
            keys = ", ".join(_label(v) for v in part)
            size *= int(
                con.sql(f"SELECT COUNT(*) FROM (SELECT DISTINCT {keys} FROM data WHERE {cond})").fetchall()[
                    0
                ][0]
            )
    if size > MAX_CELLS:
        most = max(range(len(spec.variables)), key=lambda i: levels[i])
        v = spec.variables[most]
        raise PrivriskError(
            f"spec: output {spec.name!r}: the table would have {size:,} cells, more than the {MAX_CELLS:,} a "
            f"table may have ({v!r} has {int(levels[most]):,} levels): group {v} into fewer levels",
            param="spec",
        )


# Per connection (its ``data`` is registered once, by :func:`connect`): an upper bound on each column's number
# of labels in the whole data.
_BOUNDS: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
# Types whose text is never a margin's label (digits, true/false, dates).
_NO_MARGIN_TEXT = _EXACT_TEXT - {"VARCHAR"}


def _level_bounds(con: Any, variables: tuple[str, ...]) -> dict[str, int]:
    """An upper bound on the number of labels of each variable in the whole data: its distinct values (and one
    for missing) where a value has one label, else its distinct labels; kept per connection."""
    try:
        known = _BOUNDS.setdefault(con, {})
    except TypeError:  # a connection that cannot be weakly referenced: nothing is kept
        known = {}
    todo = [v for v in dict.fromkeys(variables) if v not in known]
    if todo:
        types = _types(con)
        exprs = [
            f"COUNT(DISTINCT {qi(v)}) + 1"
            if _exact_text(types.get(v, ""))
            else f"COUNT(DISTINCT {_label(v)})"
            for v in todo
        ]
        row = con.sql(f"SELECT {', '.join(exprs)} FROM data").fetchall()[0]
        known.update({v: int(x) for v, x in zip(todo, row, strict=True)})
    return {v: known[v] for v in variables}


def margin_labels(con: Any, spec: OutputSpec) -> dict[str, str]:
    """The label of each grouping variable's margin: ``All``, or else the first of ``Total``, ``All (total)``,
    ``(all)``, ``All (total 2)``, … that is not one of the variable's levels in the data: a margin never reads
    as a level (and two cells never share their labels)."""
    labels: dict[str, str] = {}
    types = _types(con)
    for v in spec.variables:
        if types.get(v, "").upper() in _NO_MARGIN_TEXT:
            labels[v] = ALL  # digits, true/false and dates never read as a margin's label
            continue
        taken = {
            str(r[0])
            for r in con.execute(
                f"SELECT DISTINCT {_label(v)} FROM data WHERE {_label(v)} IN (?, ?, ?, ?) "
                f"OR {_label(v)} LIKE 'All (total %)'",
                list(_MARGINS),
            ).fetchall()
        }
        extra = (f"All (total {k})" for k in itertools.count(2))
        labels[v] = next(x for x in itertools.chain(_MARGINS, extra) if x not in taken)
    return labels


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


def _memory_limit(con: Any) -> str:
    try:
        return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
    except Exception:  # the message stands without it
        return "its memory limit"


def _sum_of(spec: OutputSpec, x: str) -> tuple[str, bool] | None:
    """The expression a table's value adds up (and whether it is a mean), or None when its value is not a sum."""
    w = "__w" if spec.weights else None
    if spec.kind == "count" and w:
        return f"CAST({w} AS DOUBLE)", False
    if spec.kind == "sum":
        return (f"CAST({x} AS DOUBLE) * {w}" if w else f"CAST({x} AS DOUBLE)"), False
    if spec.kind == "mean":
        return f"CAST({x} AS DOUBLE)", True
    return None


def _value_sql(spec: OutputSpec, x: str, grids: dict[str, Grid]) -> str:
    summed = _sum_of(spec, x)
    if summed is not None:  # exact, whatever the order of the records (issue 31), and spilled (issue 36)
        return exact_sum_sql(summed[0], grids[summed[0]], mean=summed[1])
    if spec.kind == "count":
        return "COUNT(*)"
    if spec.kind == "quantile":
        return f"QUANTILE_CONT({x}, {float(spec.q or 0.5)!r})"
    return {"median": "MEDIAN", "min": "MIN", "max": "MAX"}[spec.kind] + f"(CAST({x} AS DOUBLE))"


def table_cells(con: Any, spec: OutputSpec, policy: Policy) -> pd.DataFrame:
    """One row per released cell of a table: its labels (one column per grouping variable), its value, the
    number of contributors ``n``, and the evidence of the rules (``total``, ``top_n`` the sum of the
    ``safe_nk_n`` largest values, ``top1``, ``top2`` the sum of the two largest, ``negatives``, ``missing``).

    Cells the data leaves empty are released too (a crosstab shows them as 0): every combination of the
    observed rows and the observed columns is a cell.
    """
    if spec.kind in MODELS:
        raise PrivriskError(f"spec: output {spec.name!r} is a model, not a table", param="spec")
    import duckdb

    cond = check_where(con, spec)
    _check_magnitude(con, spec)
    _check_size(con, spec, cond)
    margins = margin_labels(con, spec) if spec.margins else {}
    x = "__x" if spec.variable else "NULL"
    k = max(policy.safe_nk_n, 2)
    sets = grouping_sets(spec)
    # Grouped by the values where each value has one label (its text is made once per group, not per record).
    types = _types(con)
    native = [v for v in spec.variables if _exact_text(types.get(v, ""))]
    inner = [f"{qi(v) if v in native else _label(v)} AS {qi(v)}" for v in spec.variables]
    inner.append(f"{qi(spec.variable)} AS __x" if spec.variable else "NULL AS __x")
    inner.append(f"{qi(spec.weights)} AS __w" if spec.weights else "NULL AS __w")
    labels = [qi(v) for v in spec.variables]
    flags = [f"GROUPING({qi(v)}) AS {qi('__g_' + v)}" for v in spec.variables]
    magnitude = spec.variable is not None
    total = f"CAST({x} AS DOUBLE)"
    summed = _sum_of(spec, x)
    # Each sum's limbs are read off every record, whatever the condition (a grid that holds more values is as exact).
    source = f"(SELECT {', '.join(inner)} FROM data)"
    adds = ([summed[0]] if summed else []) + ([total] if magnitude else [])
    grids = {e: limb_grid(con, e, source) for e in dict.fromkeys(adds)}
    n_sql = f"COUNT({x})" if magnitude else "COUNT(*)"
    select = ", ".join(
        [
            *labels,
            *flags,
            f"{_value_sql(spec, x, grids)} AS value",
            f"{n_sql} AS n",
            f"{exact_sum_sql(total, grids[total])} AS total" if magnitude else "NULL AS total",
            f"MAX(CAST({x} AS DOUBLE), {k}) AS top" if magnitude else "NULL AS top",
            f"COUNT(*) FILTER (WHERE {x} < 0) AS negatives" if magnitude else "0 AS negatives",
            f"COUNT(*) - COUNT({x}) AS missing" if magnitude else "0 AS missing",
        ]
    )
    group = ", ".join("(" + ", ".join(qi(v) for v in s) + ")" for s in sets)
    sql = f"SELECT {select} FROM (SELECT {', '.join(inner)} FROM data WHERE {cond})"
    if spec.variables:
        sql += f" GROUP BY GROUPING SETS ({group})"
    if native:
        sql = f"SELECT * REPLACE ({', '.join(f'{_label(v)} AS {qi(v)}' for v in native)}) FROM ({sql})"
    try:
        frame = con.sql(sql).df()
    except duckdb.OutOfMemoryException:  # not the data's fault: say what to change
        raise PrivriskError(
            f"data: output {spec.name!r} needs more memory than DuckDB's limit ({_memory_limit(con)}); raise "
            "PRIVRISK_DUCKDB_MEMORY_LIMIT or use engine 'spark'",
            param="data",
        ) from None
    except duckdb.Error as exc:
        # The condition, the magnitude and the weights were checked: what is left is a value the data holds.
        raise PrivriskError(
            f"spec: output {spec.name!r} cannot be computed from the data ({_where_problem(con, '', exc)})",
            param="spec",
        ) from None
    if summed:
        frame["value"] = from_limbs(frame["value"], grids[summed[0]], mean=summed[1])
    if magnitude:
        frame["total"] = from_limbs(frame["total"], grids[total])
    frame = _complete(frame, spec, sets, margins)
    tops = frame.pop("top")
    frame["top_n"] = [_top(t, policy.safe_nk_n) for t in tops]
    frame["top1"] = [_top(t, 1) for t in tops]
    frame["top2"] = [_top(t, 2) for t in tops]
    frame["n"] = frame["n"].astype("int64")
    frame["negatives"] = frame["negatives"].fillna(0).astype("int64")
    frame["missing"] = frame["missing"].fillna(0).astype("int64")
    out = frame[[*spec.variables, "set", *_EVIDENCE]].reset_index(drop=True)
    out.attrs["margins"] = margins
    return out


def _top(values: Any, n: int) -> float:
    # A group whose every value is missing has no list: None, NaN, or pandas's NA (DuckDB's NULL under pandas 3).
    if values is None or (np.ndim(values) == 0 and pd.isna(values)):
        return float("nan")
    vals = sorted((float(v) for v in values if v is not None), reverse=True)
    return float(sum(vals[:n])) if vals else float("nan")


def _complete(
    frame: pd.DataFrame, spec: OutputSpec, sets: list[tuple[str, ...]], margins: dict[str, str]
) -> pd.DataFrame:
    """Label margins (``All`` unless that is a level, :func:`margin_labels`), name each cell's grouping set, and
    add the empty cells of every grouping."""
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
        frame.loc[col, v] = margins.get(v, ALL)
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
                full[v] = margins.get(v, ALL)
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
        # A margin sorts last: it is known by its grouping set, never by its label.
        margin = out["set"].map(lambda t, v=v: v not in t)
        keys[f"__k_{v}"] = [(m, *_order(str(x))) for m, x in zip(margin, out[v], strict=True)]
    order = keys.sort_values(by=list(keys.columns), kind="stable").index
    return out.loc[order]


def _order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order before text (labels are read as text)."""
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)
