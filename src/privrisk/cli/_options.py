"""The options most commands share, declared once: ``--json``, ``--missing`` and ``--out`` (the report folder,
refused before the work starts when it cannot be written: :func:`check_out_folder`).

A parameter whose option is ``--`` + its name with dashes needs no name: Typer derives it (``sweep_record``:
``--sweep-record``), as :func:`privrisk.cli.main` derives the option an error's ``param`` names.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from privrisk.cli._common import MISSING_HELP

__all__ = ["JSON_OPTION", "MISSING_OPTION", "check_out_folder", "out_option"]

JSON_OPTION: Any = typer.Option(False, "--json", help="Print one JSON document instead of text.")
MISSING_OPTION: Any = typer.Option(None, "--missing", help=MISSING_HELP)


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
