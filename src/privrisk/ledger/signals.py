"""Interrupts held back while the ledger is charged and the outputs that go with it are moved into place."""

from __future__ import annotations

from typing import Any

__all__ = ["deferred_signals"]


class deferred_signals:
    """Hold SIGINT and SIGTERM back while a short critical section (charge the ledger, move the outputs into
    place) runs, and deliver them when it is done.

    Entering does nothing yet; :meth:`arm` starts holding the signals back (from the main thread only), and
    leaving restores the handlers and re-sends a signal that arrived meanwhile, so the process is interrupted
    (exit 130 or 143) only after the section is complete.

    Example:
        >>> with deferred_signals() as guard:
        ...     guard.arm()
        >>> guard.pending
        []
    """

    def __init__(self) -> None:
        self.pending: list[int] = []
        self._previous: dict[int, Any] = {}

    def arm(self) -> None:
        """Start holding SIGINT and SIGTERM back (a no-op outside the main thread or when armed already)."""
        import signal
        import threading

        if self._previous or threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, lambda num, _frame: self.pending.append(num))

    def __enter__(self) -> deferred_signals:
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
        for sig in dict.fromkeys(self.pending):
            signal.raise_signal(sig)
