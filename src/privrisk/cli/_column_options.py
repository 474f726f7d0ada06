"""The data file, ``--column`` and ``--query`` of the commands that query one column of a file, declared once."""

from __future__ import annotations

from typing import Any

import typer

from privrisk._validation import QUERIES

__all__ = ["COLUMN_OPTION", "FILE_ARGUMENT", "query_option"]

FILE_ARGUMENT: Any = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file.")
COLUMN_OPTION: Any = typer.Option(..., "--column", "-c", help="The numeric column the query runs on.")


def query_option(default: Any) -> Any:
    """The ``--query``/``-q`` option (``...``: required)."""
    return typer.Option(default, "--query", "-q", help=f"One of: {', '.join(QUERIES)}.")
