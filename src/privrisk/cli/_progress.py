"""What a long command is doing while it runs, and how long the whole of it took.

One small API for every command that can run for seconds (``demo``, ``study``, ``empirical``, ``presence``, and
later ``risk``)::

    with steps(quiet=as_json) as step:
        step("Reading the data")                               # a spinner and the time this step has run
        advance = step("Sampling study", total=n)              # a bar: call advance(k) as k more are done
        sampling_study(..., progress=advance)
        step("Writing the report")
    err.print(f"… the whole run took {duration(step.seconds)}")  # wall time since the process started

Each call of ``step`` ends the step before it. The steps are drawn on stderr only when stderr is a terminal and
the command was not asked for ``--json`` (``quiet``); otherwise nothing is drawn and the advance functions do
nothing, so piped output and JSON stay clean. The library reports its progress through the ``progress=``
callbacks it takes; this module never reaches into it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from privrisk.cli._common import err

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["Steps", "process_seconds", "steps"]

#: When this module was imported: the start of the command, where the process's own start is unknown.
_IMPORTED = time.monotonic()


def process_seconds() -> float:
    """Wall seconds since this process started (from ``/proc`` on Linux), else since the command module loaded.

    This is the time a user waits, start-up and imports included, so a printed time is the wall time.

    Example:
        >>> 0 < process_seconds() < 86_400
        True
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            # Field 22 is the start time in clock ticks after boot; the name (field 2) may hold spaces, so count
            # from the closing parenthesis, after which field 3 comes first.
            started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime", encoding="ascii") as f:
            now = float(f.read().split()[0])
        if now >= started:
            return now - started
    except (OSError, ValueError, IndexError):
        pass
    return time.monotonic() - _IMPORTED


def _nothing(steps: int = 1) -> None:
    """The advance function when nothing is drawn."""


class Steps:
    """The steps of one command (see the module's docstring); call it to start the next step."""

    def __init__(self, bar: Progress | None) -> None:
        self._bar = bar
        self._task: TaskID | None = None
        self.started = time.monotonic()

    @property
    def seconds(self) -> float:
        """Wall seconds since the process started: what the user waited for (see :func:`process_seconds`)."""
        return process_seconds()

    @property
    def shown(self) -> bool:
        """Whether the steps are drawn (stderr is a terminal and not quiet)."""
        return self._bar is not None

    def __call__(self, description: str, total: int | None = None) -> Callable[..., None]:
        """End the step before, start this one, and return ``advance(steps=1)`` for its bar (or spinner)."""
        bar = self._bar
        if bar is None:
            return _nothing
        if self._task is not None:
            bar.remove_task(self._task)
        task = bar.add_task(description, total=total)
        self._task = task

        def advance(steps: int = 1) -> None:
            bar.advance(task, steps)

        return advance

    def progress(self, description: str) -> Callable[[float, str], None] | None:
        """End the step before and draw a run function's :class:`privrisk.progress.Progress` as one bar: its
        share done and its message (``None`` when nothing is drawn, so the run pays nothing for it)."""
        bar = self._bar
        if bar is None:
            return None
        if self._task is not None:
            bar.remove_task(self._task)
        task = bar.add_task(description, total=1.0, share=True)
        self._task = task

        def show(done: float, message: str, /) -> None:
            bar.update(task, completed=done, description=message or description)

        return show


@contextlib.contextmanager
def steps(*, quiet: bool = False, console: Console | None = None) -> Iterator[Steps]:
    """The steps of a command on stderr when it is a terminal and not ``quiet``; a silent stand-in otherwise.

    Args:
        quiet: draw nothing (``--json``).
        console: where to draw (default: the commands' stderr console).

    Example:
        >>> with steps(quiet=True) as step:
        ...     advance = step("Counting", total=3)
        ...     advance(3)
        >>> step.shown
        False
    """
    console = err if console is None else console
    if quiet or not console.is_terminal:
        yield Steps(None)
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    class Counted(TextColumn):
        """'3/10' with a known total, '3' without, nothing before the first step is counted."""

        def render(self, task: Any) -> Any:
            from rich.text import Text

            if not task.completed:
                return Text("")
            if task.fields.get("share"):
                return Text(f"{task.completed:.0%}")
            done = f"{task.completed:,.0f}"
            return Text(done if task.total is None else f"{done}/{task.total:,.0f}")

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        Counted(""),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        yield Steps(bar)
