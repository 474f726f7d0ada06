"""The end of the ``privrisk`` process: its exit code, without the interpreter's finalisation (see
:func:`exit_process`)."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

__all__ = ["exit_process"]


def exit_process(code: int) -> None:
    """End the ``privrisk`` process with ``code``: flush, run the atexit functions, and skip the interpreter's
    finalisation.

    Finalisation is where an interrupted DuckDB query could still bring the process down ("Fatal Python error:
    PyThreadState_Get", "FATAL: exception not rethrown", exit −6), and where CPython turns a KeyboardInterrupt
    that a C extension saw, although privrisk caught it, into death by SIGINT (exit −2) whatever the exit code.
    Every output is already complete (written whole or not at all), so nothing is lost by skipping it.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
