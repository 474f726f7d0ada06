"""What every command shares: JSON on stdout, messages on stderr, ε and universe options, progress bars.

``percent`` (from :mod:`privrisk._format`) and ``parse_epsilon``/``parse_epsilons`` (from
:mod:`privrisk._validation`) are re-exported here, so a command module imports what it prints with from one place.
The helpers of this module are command-line code and may name options (``--universe``, ``--dv``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, Literal

from rich.console import Console, ConsoleDimensions

from privrisk import _validation
from privrisk._format import percent
from privrisk._validation import parse_epsilon, parse_epsilons, parse_numbers
from privrisk.io.files import to_jsonable

SCHEMA_VERSION = 1
MISSING_HELP = "Missing codes to drop: 'negative' (SOEP: −1, −2, …) or a list such as -1,-3."

# The library's defaults that options show in ``--help``, repeated here because their modules import pandas or
# scipy and ``privrisk COMMAND --help`` must not (tests/cli/test_startup.py checks each equals the library's).
DEFAULT_EPSILONS: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)  # privrisk.study.sampling
DEFAULT_QUERIES: tuple[str, ...] = ("mean", "median", "min", "max", "variance")  # privrisk.study.sampling
DEFAULT_ATTACK_TRIALS = 1_000  # privrisk.study.attack
DEFAULT_ATTACK_MAX_N = 50_000  # privrisk.study.attack
TOP_RECORDS = 20  # privrisk.audit.intruder
LOSS_MEASURES: tuple[Literal["precision", "height", "discernibility"], ...] = (
    "precision",
    "height",
    "discernibility",
)  # privrisk.presence.search
SPARK_ROLLUP_CLASSES = 10_000_000  # privrisk.io.engine
KEY_ENV = "PRIVRISK_LEDGER_KEY"  # privrisk.release.ledger
MAX_ROWS = 200  # privrisk.reports.html

# Lines on a pipe or in a file: as long as they need to be (a table as wide as its content).
UNWRAPPED = 10_000


class _Console(Console):
    """Rich's console, fitted to the terminal when there is one; on a pipe or in a file nothing is wrapped.

    Rich lays out for 80 columns (or the width of whatever terminal stdin or stderr is) when its stream is not a
    terminal, so ``privrisk demo > file`` folded a table's cells ("0.00314" over "%"). ``COLUMNS`` still sets the
    width when the user gives it.
    """

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal and not os.environ.get("COLUMNS"):
            return ConsoleDimensions(UNWRAPPED, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


out = _Console(highlight=False, soft_wrap=True)
err = _Console(stderr=True, highlight=False)

__all__ = [
    "DEFAULT_ATTACK_MAX_N",
    "DEFAULT_ATTACK_TRIALS",
    "DEFAULT_EPSILONS",
    "DEFAULT_QUERIES",
    "KEY_ENV",
    "LOSS_MEASURES",
    "MAX_ROWS",
    "MISSING_HELP",
    "SCHEMA_VERSION",
    "SPARK_ROLLUP_CLASSES",
    "TOP_RECORDS",
    "emit_json",
    "err",
    "floats",
    "out",
    "parse_bounds",
    "parse_epsilon",
    "parse_epsilons",
    "percent",
    "print_run",
    "progress",
]


def emit_json(document: dict[str, Any]) -> None:
    """Print one JSON document on stdout, with ``schema_version`` first; NaN and infinities become null."""
    doc = {"schema_version": SCHEMA_VERSION, **document}
    sys.stdout.write(json.dumps(to_jsonable(doc), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def floats(text: str, *, name: str) -> list[float]:
    """Read a comma-separated list of numbers (:func:`privrisk._validation.parse_numbers`)."""
    return parse_numbers(text, name=name)


def parse_bounds(text: str, *, name: str = "--universe") -> tuple[float, float]:
    """Read ``LO,HI`` with LO < HI (:func:`privrisk._validation.parse_bounds`)."""
    return _validation.parse_bounds(text, name=name)


def print_run(run: Any, as_json: bool, human: Callable[[Any], None]) -> None:
    """A run's ``--json`` document (its ``to_dict()``) on stdout, else ``human(run)``: what every command prints."""
    if as_json:
        emit_json(run.to_dict())
    else:
        human(run)


@contextlib.contextmanager
def progress(description: str, total: int | None) -> Iterator[Callable[..., None]]:
    """A Rich progress bar on stderr when stderr is a terminal; a silent stand-in otherwise.

    Yields a function ``advance(steps=1)``.
    """
    if not err.is_terminal:
        yield lambda steps=1: None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda steps=1: bar.advance(task, steps)

