"""The Release page's query builder, filled: the data's columns offered in each row, an example's queries, the
queries a link asks for (``q1_column=…``, or the older ``queries=column query ε LO,HI`` lines), and a new upload's
first useful column.

A link's rows win over an example's, once; a new file clears an example's ε and bounds, which belong to another
column; the first query of an upload runs on its first numeric column that is not an id.

Example:
    >>> link_rows({"queries": "distance mean ln3 0,700"})[0]["epsilon"], link_rows({"queries": "x"})
    ('ln3', [])
"""

from __future__ import annotations

import re
from typing import Any

from shiny import reactive, ui

from privrisk.app._examples import EXAMPLES
from privrisk.app.pages._release_form import ROW_FIELDS, ROWS, bound_text, epsilon_texts, parse_queries
from privrisk.errors import PrivriskError

__all__ = ["EXAMPLE_ROWS", "ROW_KINDS", "builder_columns", "fill_builder", "link_rows"]

#: The example's queries: (column, query, mechanism, ε or ρ, lower, upper).
EXAMPLE_ROWS = {
    "distance_work": [("distance", "mean", "laplace", "ln3", 0.0, 700.0),
                      ("distance", "median", "laplace", "0.5", 0.0, 700.0)],
    "claims": [("claims", "mean", "laplace", "1", 0.0, 100_000.0)],
}  # fmt: skip
#: Each input of the builder and its kind (as a link may set it).
ROW_KINDS = {f"q{i}_{f}": "text" if f in ("lower", "upper", "epsilon") else "select"
             for i in range(1, ROWS + 1) for f in ROW_FIELDS}  # fmt: skip
_ID_NAME = re.compile(r"(^|[_\W])id$", re.IGNORECASE)


def link_rows(params: dict[str, str]) -> list[dict[str, Any]]:
    """The builder's rows the older ``queries`` link asks for (none when it does not read)."""
    if "queries" not in params:
        return []
    try:
        return [
            {"column": q.column, "query": q.query, "mechanism": q.mechanism, "epsilon": epsilon,
             "lower": q.universe.lo, "upper": q.universe.hi}
            for q, epsilon in zip(parse_queries(params["queries"]), epsilon_texts(params["queries"]), strict=True)
        ]  # fmt: skip
    except PrivriskError:
        return []


def builder_columns(input: Any, uploads: Any) -> Any:
    """A reactive calc: the data's columns, and those a query may run on (numeric, not an id) for an upload."""

    @reactive.calc
    def columns() -> tuple[list[str], list[str]]:
        if input.example():
            return list(EXAMPLES[input.example()][1]), []
        if uploads.current() is None:
            return [], []
        try:
            profile = uploads.profile()  # read once per upload, for every page
        except PrivriskError:
            try:  # the header of a file whose rows do not read (the preview says why)
                return uploads.columns(), []
            except PrivriskError:
                return [], []
        return list(profile.names), list(profile.numeric)

    return columns


def fill_builder(input: Any, columns: Any, params: dict[str, str]) -> None:
    """Fill the builder's rows whenever the data's columns change (an effect of the page's session)."""
    url_rows = link_rows(params)
    url_columns = {i: params[f"q{i}_column"] for i in range(1, ROWS + 1) if f"q{i}_column" in params}
    first_fill = reactive.value(True)

    @reactive.effect
    def _fill_columns() -> None:
        found, numeric = columns()
        with reactive.isolate():
            first = first_fill.get()
            example = input.example()
        defaults: list[dict[str, Any]] = []
        if first and url_rows:
            defaults = url_rows
        elif example in EXAMPLE_ROWS and not (first and url_columns):
            defaults = [dict(zip(ROW_FIELDS, r, strict=True)) for r in EXAMPLE_ROWS[example]]
        upload = not example and bool(found)
        if not defaults and upload:
            sensible = numeric or [c for c in found if not _ID_NAME.search(c)] or found
            defaults = [{"column": sensible[0]}]
        if found:
            first_fill.set(False)
        for i in range(1, ROWS + 1):
            row = defaults[i - 1] if i <= len(defaults) else {}
            wanted = url_columns.get(i) if first and url_columns else row.get("column", "")
            choices = {"": "(none)", **{c: c for c in found}}
            if wanted and wanted not in choices:
                choices[wanted] = wanted  # the page's check names a column the data does not have
            ui.update_select(f"q{i}_column", choices=choices, selected=wanted or "")
            if "query" in row:
                ui.update_select(f"q{i}_query", selected=row["query"])
                ui.update_select(f"q{i}_mechanism", selected=row["mechanism"])
                ui.update_text(f"q{i}_epsilon", value=str(row["epsilon"]))
                ui.update_text(f"q{i}_lower", value=bound_text(row["lower"]))
                ui.update_text(f"q{i}_upper", value=bound_text(row["upper"]))
            elif upload and not first:
                # A new file clears the example's settings: its ε and bounds belong to another column.
                for field_ in ("epsilon", "lower", "upper"):
                    ui.update_text(f"q{i}_{field_}", value="")
