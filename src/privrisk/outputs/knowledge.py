"""What the intruder knows besides the released numbers: the spec's definitions and each variable's domain.

The intruder knows every released number, the spec (every ``where``, every derived variable, every hierarchy),
that counts are whole and non-negative, the sign of a magnitude whose values all have one sign, and which
combinations are impossible by definition. A record is a point of the **domain**: one value of each variable that
a grouping or a condition reads, from that variable's domain:

- a text, boolean or date variable: the values in the data (and those the spec declares);
- a whole-number variable: every whole number from its least to its largest value in the data (above 10,000 such
  numbers: the values in the data, the numbers the conditions name, one less and one more, and one whole number in
  every gap between them);
- a real variable: the values in the data (above 10,000 distinct ones, 10,000 of their quantiles), the numbers the
  conditions name and the midpoints between neighbours;
- missing, where the data has missing values; a domain in the spec (``[domains]``) replaces any of these.

The **atoms** are the combinations of the grouping variables' labels and the conditions' truth values that some
point of the domain has: each ``where`` is evaluated on every point (so ``age >= 18`` is known false for age 17
and for the age group "0–17"), a derived variable is computed from its definition, and a hierarchy
(``nested``) keeps only the pairs of levels that occur. A combination nobody in the data has but some point of the
domain has stays possible: a sampling zero is not a structural one. Where one variable is a function of another
in the data and that is very unlikely by chance (below :data:`CHANCE` if the two were independent), the
dependency is assumed known and reported (``assumed``), never silently.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError

__all__ = ["CHANCE", "Domain", "Knowledge", "Universe", "derive", "universe"]

#: A dependency found in the data is assumed known when independence would give it at most this probability.
CHANCE = 1e-6
#: Whole numbers a variable's range may hold and still be taken in full; distinct values of a real variable kept.
RANGE_LIMIT = 10_000
#: Points of one group of related variables evaluated before the data's own combinations are used instead.
POINT_LIMIT = 2_000_000
MISSING = "(missing)"
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
            "UBIGINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL")  # fmt: skip


@dataclass(frozen=True)
class Domain:
    """A variable's domain declared in the spec: a list of values, or a range (``low`` … ``high``, whole numbers
    only if ``whole``)."""

    values: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    whole: bool = False

    def to_dict(self) -> Any:
        if self.values is not None:
            return list(self.values)
        return {"min": self.low, "max": self.high, "whole": self.whole}


@dataclass(frozen=True)
class Knowledge:
    """The spec's knowledge: derived variables (name, SQL over the data's columns), hierarchies (finer, coarser:
    every level of the finer lies in one level of the coarser) and declared domains.

    Example:
        >>> Knowledge(derived=(("agegroup", "CASE WHEN age < 18 THEN 'young' ELSE 'adult' END"),)).names
        ('agegroup',)
    """

    derived: tuple[tuple[str, str], ...] = ()
    nested: tuple[tuple[str, str], ...] = ()
    domains: tuple[tuple[str, Domain], ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The derived variables' names."""
        return tuple(n for n, _ in self.derived)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        if self.derived:
            doc["derived"] = dict(self.derived)
        if self.nested:
            doc["nested"] = [list(p) for p in self.nested]
        if self.domains:
            doc["domains"] = {n: d.to_dict() for n, d in self.domains}
        return doc


def derive(frame: pd.DataFrame, knowledge: Knowledge | None) -> pd.DataFrame:
    """The data with the derived variables computed (a column of that name already in the data must agree with its
    definition on every record: the intruder knows the definition, so the data must follow it)."""
    if knowledge is None or not knowledge.derived:
        return frame
    import duckdb

    con = duckdb.connect()
    con.register("data", frame)
    _run(con, "SET enable_external_access = false")
    out = frame.copy()
    for name, sql in knowledge.derived:
        try:
            values = con.sql(f"SELECT ({sql}) AS v FROM data").df()["v"]
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise PrivriskError(f"spec: derived {name!r} = {sql!r} is not an expression over the data: {first}",
                                param="spec") from None  # fmt: skip
        if name in frame.columns:
            same = (values.astype(str).to_numpy() == frame[name].astype(str).to_numpy()) | (
                values.isna().to_numpy() & frame[name].isna().to_numpy()
            )
            if not same.all():
                row = int(np.flatnonzero(~same)[0])
                raise PrivriskError(
                    f"spec: derived {name!r}: the data's column {name!r} differs from its definition in row "
                    f"{row + 1} ({frame[name].iloc[row]!r}, defined {values.iloc[row]!r})",
                    param="spec",
                )
            continue
        out[name] = values.to_numpy()
    con.close()
    return out


def references(con: Any, sql: str, columns: list[str], *, what: str) -> tuple[list[str], list[float]]:
    """The data's columns an SQL expression reads, and the numbers it names; refused if it is not a function of
    one record's values (a subquery or a window reads other records)."""
    query = f"SELECT ({sql}) FROM data"
    tree = json.loads(_run(con, "SELECT json_serialize_sql(?)", [query])[0][0])
    by_lower = {c.lower(): c for c in columns}
    found: list[str] = []
    numbers: list[float] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            cls = node.get("class")
            if cls in ("SUBQUERY", "WINDOW"):
                raise PrivriskError(
                    f"spec: {what} = {sql!r} reads other records (a subquery or a window); a condition must "
                    "depend on each record's own values",
                    param="spec",
                )
            if cls == "COLUMN_REF":
                name = str(node.get("column_names", [""])[-1])
                if name.lower() in by_lower:
                    found.append(by_lower[name.lower()])
            if cls == "CONSTANT":
                lit = node.get("value") or node.get("literal") or {}
                try:
                    x = float(lit.get("text", ""))
                    if math.isfinite(x):
                        numbers.append(x)
                except (TypeError, ValueError):
                    pass
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(tree.get("statements", []))
    return list(dict.fromkeys(found)), numbers


@dataclass
class Universe:
    """The atoms an intruder cannot rule out: one row per possible combination of the grouping variables' labels
    (columns named after them) and the conditions' truth values (``__f0``, ``__f1`` …), with what was assumed."""

    atoms: pd.DataFrame
    complete: bool = True
    assumed: list[dict[str, Any]] = field(default_factory=list)


# Types whose text is a one-to-one function of the value: grouping by the values groups by their labels (the text
# is then made once per group, not once per record). A float's -0.0 and 0.0 are one value and two labels, so
# floats are not among them.
_EXACT_TEXT = frozenset({
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
    "UHUGEINT", "BOOLEAN", "VARCHAR", "DATE",
})  # fmt: skip


def _exact_text(sql_type: str) -> bool:
    """Whether a column of this DuckDB type has one label (text) per value (see :data:`_EXACT_TEXT`)."""
    t = sql_type.upper()
    return t in _EXACT_TEXT or t.startswith("ENUM")


def _run(con: Any, sql: str, params: list[Any] | None = None) -> list[Any]:
    """Run a statement to its end (DuckDB keeps an unfinished result open otherwise)."""
    return con.execute(sql, params or []).fetchall()


def _sql_type(con: Any, column: str) -> str:
    return str(con.sql(f"SELECT {qi(column)} FROM data LIMIT 0").types[0])


def _domain_table(
    con: Any, column: str, declared: Domain | None, numbers: list[float], table: str
) -> tuple[int, str]:
    """Create ``table`` with the domain of ``column`` (one column of the data's type); (its size, a description)."""
    typ = _sql_type(con, column)
    c = qi(column)
    base = typ.split("(")[0]
    numeric = base in _NUMERIC
    nulls = _run(con, f"SELECT COUNT(*) - COUNT({c}) FROM data")[0][0] > 0
    where = "the spec" if declared is not None else "the data"
    if declared is not None and declared.values is not None:
        values = pd.DataFrame({"v": list(declared.values)})
        con.register("__declared", values)
        _run(
            con,
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT DISTINCT CAST(v AS {typ}) AS {c} FROM __declared",
        )
        con.unregister("__declared")
        text = f"{len(values)} values"
    elif numeric:
        lo, hi, whole, distinct = _run(
            con,
            f"SELECT MIN({c}), MAX({c}), BOOL_AND(CAST({c} AS DOUBLE) = ROUND(CAST({c} AS DOUBLE))), "
            f"COUNT(DISTINCT {c}) FROM data",
        )[0]
        if declared is not None:
            lo, hi, whole = declared.low, declared.high, declared.whole
        if lo is None:
            _run(con, f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT CAST(NULL AS {typ}) AS {c} LIMIT 0")
            text = "no values"
        elif whole and float(hi) - float(lo) + 1 <= RANGE_LIMIT:
            _run(
                con,
                f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT CAST(range AS {typ}) AS {c} "
                f"FROM range({math.floor(float(lo))}, {math.floor(float(hi)) + 1})",
            )
            text = f"every whole number from {_num(lo)} to {_num(hi)}"
        else:
            if distinct <= RANGE_LIMIT:
                rows = _run(con, f"SELECT DISTINCT CAST({c} AS DOUBLE) FROM data WHERE {c} IS NOT NULL")
                vals = np.array([r[0] for r in rows], dtype=float)
            else:
                qs = ", ".join(repr(q) for q in np.linspace(0, 1, RANGE_LIMIT).tolist())
                rows = _run(con, f"SELECT UNNEST(QUANTILE_DISC(CAST({c} AS DOUBLE), [{qs}])) FROM data")
                vals = np.array([r[0] for r in rows], dtype=float)
            lo_f, hi_f = float(lo), float(hi)
            extra = [x for t in numbers for x in ((t - 1, t, t + 1) if whole else (t,)) if lo_f <= x <= hi_f]
            vals = np.unique(np.concatenate([vals, np.asarray(extra, dtype=float), [lo_f, hi_f]]))
            if whole:
                gaps = vals[:-1][np.diff(vals) > 1] + 1
            else:
                gaps = (vals[:-1] + vals[1:]) / 2
            vals = np.unique(np.concatenate([vals, gaps]))
            con.register("__values", pd.DataFrame({"v": vals}))
            _run(con, f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT CAST(v AS {typ}) AS {c} FROM __values")
            con.unregister("__values")
            text = f"the values in the data and the conditions' thresholds, and points between them ({vals.size})"
    else:
        _run(
            con,
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT DISTINCT {c} FROM data WHERE {c} IS NOT NULL",
        )
        text = "the values in the data"
    if nulls:
        _run(con, f"INSERT INTO {table} SELECT NULL")
        text += ", and missing"
    _run(con, f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT DISTINCT * FROM {table}")
    size = int(_run(con, f"SELECT COUNT(*) FROM {table}")[0][0])
    return size, f"{text} (from {where})"


def _num(x: Any) -> str:
    v = float(x)
    return str(int(v)) if v.is_integer() else repr(v)


def _dependencies(
    con: Any, columns: list[str], declared: set[tuple[str, str]]
) -> list[tuple[str, str, float]]:
    """Pairs (x, y) where y is a function of x in the data and independence would make that unlikely: the
    probability Π_x Σ_y p_y^{n_x} (n_x records with value x, p_y the share of y) is below :data:`CHANCE`."""
    found: list[tuple[str, str, float]] = []
    pairs = [(x, y) for i, x in enumerate(columns) for y in columns[i + 1 :]]
    if not pairs:
        return found
    # One scan for every pair (a grouping set each), grouped by the values where each value has one label.
    inner = ", ".join(
        qi(c) if _exact_text(_sql_type(con, c)) else f"CAST({qi(c)} AS VARCHAR) AS {qi(c)}" for c in columns
    )
    keys = ", ".join(f"{qi(c)} IS NULL, CAST({qi(c)} AS VARCHAR)" for c in columns)
    flags = ", ".join(f"GROUPING({qi(c)})" for c in columns)
    sets = ", ".join(f"({qi(x)}, {qi(y)})" for x, y in pairs)
    every = _run(
        con,
        f"SELECT {keys}, {flags}, COUNT(*) FROM (SELECT {inner} FROM data) GROUP BY GROUPING SETS ({sets})",
    )
    width = len(columns)
    for x, y in pairs:
        i, j = columns.index(x), columns.index(y)
        grouped = tuple(int(c not in (x, y)) for c in columns)
        rows = [
            (r[2 * i], r[2 * i + 1], r[2 * j], r[2 * j + 1], r[-1])
            for r in every
            if r[2 * width : 3 * width] == grouped
        ]
        frame = pd.DataFrame(rows, columns=["xn", "x", "yn", "y", "n"])
        frame["x"] = frame["x"].where(~frame["xn"], None)
        frame["y"] = frame["y"].where(~frame["yn"], None)
        for a, b in ((x, y), (y, x)):
            if (a, b) in declared:
                continue
            ka, kb = ("x", "y") if a == x else ("y", "x")
            per = frame.groupby(ka, dropna=False)[kb].nunique(dropna=False)
            if per.size < 2 or (per > 1).any():
                continue
            share = frame.groupby(kb, dropna=False)["n"].sum()
            if share.size < 2:
                continue
            p = (share / share.sum()).to_numpy(dtype=float)
            n_a = frame.groupby(ka, dropna=False)["n"].sum().to_numpy(dtype=float)
            # log Σ_y p_y^{n_x} in log space: p_y^{n_x} underflows to 0 at census sizes, and log 0 is −inf.
            top = np.log(p.max())
            log_chance = float(sum(k * top + np.log(np.sum((p / p.max()) ** k)) for k in n_a))
            if log_chance < math.log(CHANCE):
                found.append((a, b, log_chance))
    return found


def _pairs_table(con: Any, x: str, y: str, table: str, dom_x: str, dom_y: str) -> None:
    """The pairs (x, y) a dependency x → y allows: those in the data and, for values of x's domain the data does
    not have, the levels of y on either side of them when each level of y holds a run of x (a binning); else
    every level of y."""
    cx, cy = qi(x), qi(y)
    _run(con, f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT DISTINCT {cx}, {cy} FROM data")
    unseen = _run(
        con,
        f"SELECT {cx} FROM {dom_x} d WHERE NOT EXISTS (SELECT 1 FROM data WHERE data.{cx} IS NOT DISTINCT FROM d.{cx})",
    )
    if not unseen:
        return
    numeric = _sql_type(con, x).split("(")[0] in _NUMERIC
    runs = False
    if numeric:
        seen = con.sql(
            f"SELECT CAST({cx} AS DOUBLE) AS x, CAST({cy} AS VARCHAR) AS y FROM {table} WHERE {cx} IS NOT NULL ORDER BY 1"
        ).df()
        changes = (seen["y"] != seen["y"].shift()).sum()
        runs = bool(changes == seen["y"].nunique(dropna=False))
    if runs and len(seen):
        xs = seen["x"].to_numpy(dtype=float)
        rows = []
        for (u,) in unseen:
            if u is None:
                continue
            k = int(np.searchsorted(xs, float(u)))
            for j in {max(k - 1, 0), min(k, len(xs) - 1)}:
                rows.append((float(u), seen["y"].iloc[j]))
        con.register("__extra", pd.DataFrame(rows, columns=["x", "y"]))
        _run(
            con,
            f"INSERT INTO {table} SELECT d.{cx}, e.{cy} FROM __extra x JOIN {dom_x} d ON CAST(d.{cx} AS DOUBLE) = x.x "
            f"JOIN (SELECT DISTINCT {cy} FROM {table}) e ON CAST(e.{cy} AS VARCHAR) IS NOT DISTINCT FROM x.y",
        )
        con.unregister("__extra")
    else:
        _run(
            con,
            f"INSERT INTO {table} SELECT d.{cx}, e.{cy} FROM {dom_x} d, {dom_y} e "
            f"WHERE NOT EXISTS (SELECT 1 FROM data WHERE data.{cx} IS NOT DISTINCT FROM d.{cx})",
        )


def universe(
    con: Any,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    knowledge: Knowledge | None = None,
    *,
    max_atoms: int = 200_000,
) -> Universe:
    """The possible atoms over the grouping ``variables`` and the ``conditions`` (SQL over the data ``data``),
    evaluated on the domain (see the module's description); what was assumed comes with them."""
    knowledge = knowledge or Knowledge()
    columns = [str(c) for c in con.sql("SELECT * FROM data LIMIT 0").columns]
    derived = dict(knowledge.derived)
    declared = dict(knowledge.domains)
    assumed: list[dict[str, Any]] = []
    reads: dict[str, list[str]] = {}
    numbers: dict[str, list[float]] = {}
    expand: dict[str, list[str]] = {}
    for name, sql in derived.items():
        refs, nums = references(con, sql, [c for c in columns if c not in derived], what=f"derived {name!r}")
        expand[name] = refs
        for r in refs:
            numbers.setdefault(r, []).extend(nums)
        assumed.append(
            {"kind": "derived", "variables": [name, *refs], "sentence": f"{name} is {sql} (the spec)."}
        )

    def raw(refs: list[str]) -> list[str]:
        return list(dict.fromkeys(r2 for r in refs for r2 in (expand.get(r, [r]))))

    for v in variables:
        reads[v] = raw([v])
    for i, cond in enumerate(conditions):
        refs, nums = references(con, cond, columns, what=f"where {cond!r}")
        reads[f"__f{i}"] = raw(refs)
        for r in reads[f"__f{i}"]:
            numbers.setdefault(r, []).extend(nums)
    raws = list(dict.fromkeys(r for refs in reads.values() for r in refs))
    tables: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for i, r in enumerate(raws):
        tables[r] = f"__dom{i}"
        sizes[r], text = _domain_table(con, r, declared.get(r), numbers.get(r, []), tables[r])
        assumed.append({"kind": "domain", "variables": [r], "sentence": f"The domain of {r}: {text}."})
    # Hierarchies: declared ones must hold in the data; others found where chance would not explain them.
    deps: list[tuple[str, str]] = []
    for finer, coarser in knowledge.nested:
        if finer not in raws or coarser not in raws:
            continue
        bad = _run(
            con,
            f"SELECT CAST({qi(finer)} AS VARCHAR) FROM data GROUP BY {qi(finer)} "
            f"HAVING COUNT(DISTINCT COALESCE(CAST({qi(coarser)} AS VARCHAR), '{MISSING}')) > 1 LIMIT 1",
        )
        if bad:
            raise PrivriskError(
                f"spec: nested [{finer!r}, {coarser!r}]: {finer} = {bad[0][0]} lies in more than one {coarser} "
                "in the data",
                param="spec",
            )
        deps.append((finer, coarser))
        assumed.append({"kind": "nested", "variables": [finer, coarser],
                        "sentence": f"Each {finer} lies in one {coarser} (the spec)."})  # fmt: skip
    for x, y, log_chance in _dependencies(con, raws, set(deps)):
        deps.append((x, y))
        assumed.append({
            "kind": "dependency", "variables": [x, y],
            "sentence": f"{y} is a function of {x} in the data (by chance with probability below "
                        f"10^{math.floor(log_chance / math.log(10)) + 1}): assumed known.",
        })  # fmt: skip
    # Groups of related variables (read by one condition or definition, or dependent): evaluated apart.
    parent = {r: r for r in raws}

    def find(r: str) -> str:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    for refs in [*reads.values(), *([x, y] for x, y in deps)]:
        for r in refs[1:]:
            parent[find(r)] = find(refs[0])
    pairs: dict[str, list[tuple[str, str, str]]] = {}
    for k, (x, y) in enumerate(deps):
        _pairs_table(con, x, y, f"__pairs{k}", tables[x], tables[y])
        pairs.setdefault(find(x), []).append((x, y, f"__pairs{k}"))
    dims_of: dict[str | None, list[str]] = {}
    for dim, refs in reads.items():
        dims_of.setdefault(find(refs[0]) if refs else None, []).append(dim)
    cond_sql = {f"__f{i}": c for i, c in enumerate(conditions)}

    def expr(dim: str) -> str:
        if dim in cond_sql:
            return f"COALESCE(({cond_sql[dim]}), FALSE) AS {dim}"
        return f"COALESCE(CAST({qi(dim)} AS VARCHAR), '{MISSING}') AS {qi(dim)}"

    complete = True
    parts: list[pd.DataFrame] = []
    for comp, dims in dims_of.items():
        members = [r for r in raws if comp is not None and find(r) == comp]
        points = math.prod(sizes[r] for r in members)
        select = ", ".join(expr(d) for d in dims)
        if points > POINT_LIMIT:
            complete = False
            parts.append(con.sql(f"SELECT DISTINCT {select} FROM data").df())
            assumed.append({"kind": "observed", "variables": members,
                            "sentence": f"The combinations of {', '.join(members)} are those in the data "
                                        f"({points:,} points of their domain are too many to evaluate)."})  # fmt: skip
            continue
        source = " CROSS JOIN ".join(tables[r] for r in members) or "(SELECT 1 AS __one)"
        filters = [
            f"EXISTS (SELECT 1 FROM {t} p WHERE p.{qi(x)} IS NOT DISTINCT FROM d.{qi(x)} "
            f"AND p.{qi(y)} IS NOT DISTINCT FROM d.{qi(y)})"
            for x, y, t in (pairs.get(comp, []) if comp is not None else [])
        ]  # fmt: skip
        extra = "".join(
            f", ({sql}) AS {qi(n)}" for n, sql in derived.items() if set(expand[n]) <= set(members)
        )
        inner = f"SELECT *{extra} FROM (SELECT * FROM {source}) d" + (
            f" WHERE {' AND '.join(filters)}" if filters else ""
        )
        parts.append(con.sql(f"SELECT DISTINCT {select} FROM ({inner})").df())
    size = math.prod(len(p) for p in parts)
    if size > max_atoms:
        complete = False
        dims = [*variables, *cond_sql]
        atoms = con.sql(f"SELECT DISTINCT {', '.join(expr(d) for d in dims)} FROM data").df()
        assumed.append({"kind": "observed", "variables": list(variables),
                        "sentence": f"The atoms are the combinations in the data ({size:,} possible ones are "
                                    f"more than the {max_atoms:,} crossed in full)."})  # fmt: skip
    else:
        atoms = pd.DataFrame(index=[0])
        for p in parts:
            atoms = atoms.merge(p, how="cross")
    for i in range(len(conditions)):
        atoms[f"__f{i}"] = atoms[f"__f{i}"].astype(bool)
    for v in variables:
        atoms[v] = atoms[v].astype(str)
    # SELECT DISTINCT gives its rows in the order DuckDB's threads finish: sorted, the programmes see the atoms in
    # one order, so the same request gives the same answer (and names the same outputs) on every run.
    atoms = atoms[[*variables, *cond_sql]].drop_duplicates()
    if variables or cond_sql:
        atoms = atoms.sort_values(by=[*variables, *cond_sql], kind="stable")
    atoms = atoms.reset_index(drop=True)
    for t in [*tables.values(), *(f"__pairs{k}" for k in range(len(deps)))]:
        _run(con, f"DROP TABLE IF EXISTS {t}")
    return Universe(atoms, complete, assumed)
