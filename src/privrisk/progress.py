"""The one progress protocol every run function takes: ``progress(done, message)``.

A run function (``run_<capability>(settings, *, progress=None)``) calls ``progress(done, message)`` with ``done``
the share of the work finished, in [0, 1] and never decreasing, and ``message`` a short phrase for a person ("drawing
samples", "solving 3 of 12 blocks"). The command line draws it as a bar on a terminal; the app as its progress bar;
a notebook may print it. ``None`` means nobody is watching: a run function must not cost anything for it.

Parts of a run report through :func:`part` (a share of the whole), loops through :func:`steps`.

Example:
    >>> seen = []
    >>> report = part(lambda d, m: seen.append((round(d, 2), m)), 0.5, 1.0)
    >>> tick = steps(report, 4, "solving")
    >>> for _ in range(4):
    ...     tick()
    >>> seen
    [(0.62, 'solving 1 of 4'), (0.75, 'solving 2 of 4'), (0.88, 'solving 3 of 4'), (1.0, 'solving 4 of 4')]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["Progress", "part", "report", "steps"]


class Progress(Protocol):
    """Called with the share of the work done (in [0, 1], never decreasing) and what is being done."""

    def __call__(self, done: float, message: str, /) -> None: ...


def report(progress: Progress | None, done: float, message: str) -> None:
    """Call ``progress`` if somebody is watching, with ``done`` clipped to [0, 1]."""
    if progress is not None:
        progress(min(1.0, max(0.0, float(done))), message)


def part(progress: Progress | None, start: float, end: float) -> Progress | None:
    """A progress for one part of a run that takes the shares ``start`` … ``end`` of the whole."""
    if progress is None:
        return None
    outer = progress

    def inner(done: float, message: str, /) -> None:
        report(outer, start + (end - start) * min(1.0, max(0.0, done)), message)

    return inner


def steps(progress: Progress | None, total: int, message: str) -> Callable[[], None]:
    """A function to call once per finished step of ``total``; it reports "``message`` i of total"."""
    count = 0

    def tick() -> None:
        nonlocal count
        count += 1
        if progress is not None and total > 0:
            report(progress, count / total, f"{message} {count:,} of {total:,}")

    return tick
