"""The Release page's query builder as text: its rows read as :class:`~privrisk.release.spec.ReleaseQuery`
objects by the library's rules (:mod:`privrisk.release.typed`: bounds kept as typed or refused), the older
``queries`` URL lines, and the command line and ``release.toml`` that give the same release.

Example:
    >>> bound_text("700"), bound_text(""), bound_text("0,5")
    ('700', '?', '0,5')
"""

from __future__ import annotations

import json
from typing import Any

from privrisk.release.typed import parse_bound
from privrisk.release.typed import parse_query_lines as parse_queries

__all__ = [
    "ROWS",
    "ROW_FIELDS",
    "AtRow",
    "bound_text",
    "builder_rows",
    "epsilon_texts",
    "parse_bound",
    "parse_queries",
    "row_queries",
    "single_options",
    "spec_toml",
]

#: How many queries the builder offers (rows whose column is empty are left out).
ROWS = 3
ROW_FIELDS = ("column", "query", "mechanism", "epsilon", "lower", "upper")


def builder_rows(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The builder's rows that name a column."""
    rows = []
    for i in range(1, ROWS + 1):
        row = {f: values.get(f"q{i}_{f}") for f in ROW_FIELDS}
        if row["column"]:
            rows.append({"i": i, **row})
    return rows


def row_queries(values: dict[str, Any], missing: str | None) -> list[Any]:
    """The builder's rows that name a column, as :class:`~privrisk.release.spec.ReleaseQuery` objects read by the
    library's rules (:func:`~privrisk.release.typed.typed_query`); a row's error comes as :class:`AtRow`."""
    from privrisk.errors import PrivriskError
    from privrisk.release.typed import typed_query

    queries = []
    for row in builder_rows(values):
        try:
            queries.append(typed_query(row, missing))
        except PrivriskError as exc:
            raise AtRow(f"q{row['i']}", exc) from None
    return queries


class AtRow(Exception):
    """The library's error of one query of the builder, to be shown next to that row (``q1``, ``q2``, …)."""

    def __init__(self, row: str, error: Exception) -> None:
        super().__init__(str(error))
        self.row, self.error = row, error


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
