"""The Release page's query builder as text: its rows read as :class:`~privrisk.release.spec.ReleaseQuery`
objects (bounds kept as typed or refused), the older ``queries`` URL lines, and the command line and
``release.toml`` that give the same release.

Example:
    >>> bound_text("700"), bound_text(""), bound_text("0,5")
    ('700', '?', '0,5')
"""

from __future__ import annotations

import json
import math
from typing import Any

from privrisk.errors import PrivriskError

__all__ = [
    "ROWS",
    "ROW_FIELDS",
    "AtRow",
    "bound_text",
    "builder_rows",
    "epsilon_texts",
    "parse_bound",
    "parse_queries",
    "row_query",
    "single_options",
    "spec_toml",
]

#: How many queries the builder offers (rows whose column is empty are left out).
ROWS = 3
ROW_FIELDS = ("column", "query", "mechanism", "epsilon", "lower", "upper")


def parse_queries(text: str, *, missing: str | None = None) -> list[Any]:
    """Queries from lines ``column query epsilon LO,HI`` (the ``queries`` URL preset of earlier versions, which
    fills the query builder); blank lines and ``#`` comments are skipped.

    Example:
        >>> [q.label for q in parse_queries("hours mean ln3 0,24\\nhours max 0.5 0,24")]
        ['mean(hours)', 'max(hours)']
    """
    from privrisk.release.spec import ReleaseQuery

    queries = []
    for number_, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4:
            raise PrivriskError(
                f"queries: line {number_} has {len(parts)} parts; write 'column query epsilon LO,HI'",
                param="queries",
            )
        column, query, epsilon, universe = parts
        try:
            lo, hi = (float(b) for b in universe.split(","))
        except ValueError:
            raise PrivriskError(
                f"queries: line {number_}: the universe {universe!r} is not two numbers LO,HI",
                param="queries",
            ) from None
        try:
            queries.append(ReleaseQuery(column, query, epsilon, (lo, hi), missing))
        except PrivriskError as exc:
            raise PrivriskError(f"queries: line {number_}: {exc}", param="queries") from None
    return queries


def builder_rows(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The builder's rows that name a column."""
    rows = []
    for i in range(1, ROWS + 1):
        row = {f: values.get(f"q{i}_{f}") for f in ROW_FIELDS}
        if row["column"]:
            rows.append({"i": i, **row})
    return rows


def row_query(row: dict[str, Any], missing: str | None) -> Any:
    """A builder row as a :class:`~privrisk.release.spec.ReleaseQuery` (its errors name the parameter)."""
    from privrisk.release.spec import ReleaseQuery

    text = (row["epsilon"] or "").strip()
    if not text:
        raise PrivriskError("epsilon: required", param="epsilon")
    bounds = [parse_bound(row[name], which) for name, which in (("lower", "lowest"), ("upper", "highest"))]
    gaussian = row["mechanism"] == "gaussian"
    rho: Any = None
    if gaussian:
        try:
            rho = float(text)
        except ValueError:
            raise PrivriskError(f"rho: must be a number > 0, got {text!r}", param="rho") from None
    return ReleaseQuery(
        row["column"], row["query"], None if gaussian else text, bounds, missing,
        mechanism=row["mechanism"] or "laplace", rho=rho,
    )  # fmt: skip


def parse_bound(text: Any, which: str = "lowest") -> float:
    """A bound of a query's universe as typed: a number with a decimal point; anything else is refused, never read
    as another number (``0,5`` would be 5 to a browser's number field, or 0.5, or the pair 0 and 5).

    Raises:
        PrivriskError: (``universe``) naming what was typed.

    Example:
        >>> parse_bound("0.5"), parse_bound(" -3 "), parse_bound(700.0)
        (0.5, -3.0, 700.0)
        >>> parse_bound("0,5")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: universe: '0,5' for the lowest possible value: write a decimal point (0.5) and no thousands separator
    """
    raw = "" if text is None else str(text).strip()
    if not raw:
        raise PrivriskError(f"universe: give the {which} possible value", param="universe")
    if "," in raw:
        suggestion = raw.replace(",", ".") if raw.count(",") == 1 and "." not in raw else raw.replace(",", "")
        raise PrivriskError(
            f"universe: {raw!r} for the {which} possible value: write a decimal point ({suggestion}) and no "
            "thousands separator",
            param="universe",
        )
    try:
        value = float(raw)
    except ValueError:
        raise PrivriskError(
            f"universe: {raw!r} for the {which} possible value is not a number", param="universe"
        ) from None
    if not math.isfinite(value):
        raise PrivriskError(
            f"universe: the {which} possible value must be finite, got {raw!r}", param="universe"
        )
    return value


class AtRow(PrivriskError):
    """An error of one query of the builder, shown next to that row (worded already)."""

    def __init__(self, row: str, message: str) -> None:
        super().__init__(message, param=row)
        self.row, self.message = row, message


def epsilon_texts(text: str) -> list[str]:
    """The ε of each ``column query ε LO,HI`` line as written (``ln3`` stays ``ln3``)."""
    return [ln.split("#", 1)[0].split()[2] for ln in text.splitlines() if ln.split("#", 1)[0].strip()]


def bound_text(x: Any) -> str:
    """A bound as the command line and the builder show it: a number as ``700``, text as typed, empty as ``?``."""
    if x is None or str(x).strip() == "":
        return "?"
    try:
        return f"{float(x):g}"
    except ValueError:
        return str(x).strip()


def single_options(row: dict[str, Any]) -> dict[str, Any]:
    """The command line's single-query options of a builder row."""
    gaussian = row["mechanism"] == "gaussian"
    return {
        "column": row["column"],
        "query": row["query"],
        "mechanism": "gaussian" if gaussian else None,
        "rho" if gaussian else "epsilon": (row["epsilon"] or "").strip() or "?",
        "universe": f"{bound_text(row['lower'])},{bound_text(row['upper'])}",
    }


def spec_toml(rows: list[dict[str, Any]], missing: str | None) -> str:
    """The release.toml of the builder's queries (for the command line with --spec)."""
    out = []
    if missing:
        out.append(f"missing = {json.dumps(missing)}\n")
    for row in rows:
        text = (row["epsilon"] or "").strip()
        try:
            value = json.dumps(float(text))
        except ValueError:
            value = json.dumps(text)
        gaussian = row["mechanism"] == "gaussian"
        noise = f'mechanism = "gaussian"\nrho = {value}\n' if gaussian else f"epsilon = {value}\n"
        out.append(
            f"[[query]]\ncolumn = {json.dumps(row['column'])}\nquery = {json.dumps(row['query'])}\n{noise}"
            f"universe = [{bound_text(row['lower'])}, {bound_text(row['upper'])}]\n"
        )
    return "\n".join(out)
