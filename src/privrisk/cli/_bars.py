"""The one progress of a run (:class:`privrisk.progress.Progress`) drawn as the terminal's steps
(:mod:`privrisk.cli._progress`): a bar per message, filled to the share of the whole run done."""

from __future__ import annotations

from collections.abc import Callable

from privrisk.cli._progress import Steps
from privrisk.progress import Progress

__all__ = ["bars"]

_SCALE = 100


def bars(show: Steps) -> Progress:
    """A :class:`~privrisk.progress.Progress` that starts a step of ``show`` for each new message and fills its
    bar to the share done (in per cent of the whole run).

    Example:
        >>> from privrisk.cli._progress import steps
        >>> with steps(quiet=True) as show:
        ...     progress = bars(show)
        ...     progress(0.25, "Sampling study")
        ...     progress(1.0, "Sampling study")
    """
    return _Bars(show)


class _Bars:
    def __init__(self, show: Steps) -> None:
        self._show = show
        self._message: str | None = None
        self._advance: Callable[..., None] = _nothing
        self._filled = 0

    def __call__(self, done: float, message: str, /) -> None:
        if message != self._message:
            self._message, self._advance, self._filled = message, self._show(message, total=_SCALE), 0
        filled = min(_SCALE, int(done * _SCALE))
        if filled > self._filled:
            self._advance(filled - self._filled)
            self._filled = filled


def _nothing(steps: int = 1) -> None:
    """Nothing is drawn before the first message."""
