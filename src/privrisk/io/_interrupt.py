"""Run DuckDB work so that Ctrl-C stays a :class:`KeyboardInterrupt` (exit 130), never a DuckDB error or an abort."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["import_duckdb", "interruptible"]

_T = TypeVar("_T")


def interruptible(con: Any, work: Callable[[], _T]) -> _T:
    """Run ``work`` (DuckDB calls on ``con``) in a worker thread, so that Ctrl-C is a :class:`KeyboardInterrupt`.

    DuckDB checks Python's signals while a query runs on the main thread and turns Ctrl-C into
    ``RuntimeError: Query interrupted`` (a bug's exit 70 instead of 130); a query still running when the
    interpreter shuts down can abort it ("Fatal Python error", exit −6). Here the query runs on a worker thread
    and, while it runs, SIGINT (and SIGTERM, when Python handles it) only record the signal and call
    ``con.interrupt()``: no exception can leave the main thread while the worker is inside DuckDB. When the worker
    is done, the signal's own handler is called (a :class:`KeyboardInterrupt` for Ctrl-C). Off the main thread
    ``work`` just runs.

    Example:
        >>> import duckdb
        >>> with duckdb.connect() as con:
        ...     interruptible(con, lambda: con.sql("SELECT 42").fetchall())
        [(42,)]
    """
    if threading.current_thread() is not threading.main_thread():
        return work()
    box: dict[str, Any] = {}
    # An Event, not Thread.join: join() is also where a KeyboardInterrupt used to land (CPython issue 90882).
    done = threading.Event()
    caught: list[tuple[int, Any]] = []

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the main thread, which raises it
            box["error"] = exc
        finally:
            done.set()

    def hold(signum: int, frame: Any) -> None:
        caught.append((signum, frame))
        with contextlib.suppress(Exception):
            con.interrupt()

    previous: dict[int, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(sig)
        if callable(handler):  # not SIG_IGN or SIG_DFL: those stay as they are
            previous[sig] = signal.signal(sig, hold)
    try:
        threading.Thread(target=run, name="privrisk-duckdb").start()
        while not done.wait(0.05):
            if caught:  # again: a signal that came before the query started must stop it too
                with contextlib.suppress(Exception):
                    con.interrupt()
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)
    if caught:
        box.clear()  # the worker's "Query interrupted" holds DuckDB objects; they go with the connection
        signum, frame = caught[0]
        previous[signum](signum, frame)  # KeyboardInterrupt for Ctrl-C, the command's Terminated for SIGTERM
    if "error" in box:
        raise box.pop("error")
    return box.pop("value")


def import_duckdb() -> Any:
    """``import duckdb`` with Ctrl-C held back until the import is done, then raised as :class:`KeyboardInterrupt`.

    An interrupt inside DuckDB's extension initialisation aborts the process ("Critical nanobind error", exit −6)
    instead of raising; held back, it interrupts the command a moment later, cleanly (exit 130).

    Example:
        >>> import_duckdb().__name__
        'duckdb'
    """
    import sys

    if "duckdb" in sys.modules:
        return sys.modules["duckdb"]
    if threading.current_thread() is not threading.main_thread():
        import duckdb

        return duckdb
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        import duckdb
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt
    return duckdb
