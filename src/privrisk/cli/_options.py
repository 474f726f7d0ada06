"""The options most commands share, declared once: ``--json``, ``--missing``, ``--out`` (the report folder,
refused before the work starts when it cannot be written: :func:`check_out_folder`), and the data file, column and
query of the one-column commands.

A parameter whose option is ``--`` + its name with dashes needs no name: Typer derives it (``sweep_record``:
``--sweep-record``), as :func:`privrisk.cli.main` derives the option an error's ``param`` names.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from privrisk._validation import QUERIES
from privrisk.cli._common import MISSING_HELP

__all__ = [
    "COLUMN_OPTION",
    "FILE_ARGUMENT",
    "JSON_OPTION",
    "MISSING_OPTION",
    "check_out_folder",
    "out_option",
    "query_option",
]

JSON_OPTION: Any = typer.Option(False, "--json", help="Print one JSON document instead of text.")
MISSING_OPTION: Any = typer.Option(None, "--missing", help=MISSING_HELP)
FILE_ARGUMENT: Any = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file.")
COLUMN_OPTION: Any = typer.Option(..., "--column", "-c", help="The numeric column the query runs on.")


def query_option(default: Any) -> Any:
    """The ``--query``/``-q`` option of a one-column command (``...``: required)."""
    return typer.Option(default, "--query", "-q", help=f"One of: {', '.join(QUERIES)}.")


def out_option(help: str) -> Any:
    """The ``--out`` option of a command that writes its report folder there (none: nothing is written)."""
    return typer.Option(None, "--out", help=help)


def check_out_folder(folder: Path | None, inputs: Iterable[Path | str | None], files: Iterable[str]) -> None:
    """Refuse ``--out`` before the work starts (an input inside it, a file that is no folder, files of its kind
    already there: :func:`privrisk.io.files.check_outputs`); nothing to check without ``--out``."""
    if folder is None:
        return
    from privrisk.io.files import check_outputs

    given = [p for p in inputs if p is not None]
    check_outputs(folder, given, param="--out", folder=True, files=tuple(files))
