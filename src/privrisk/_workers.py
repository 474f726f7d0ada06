"""Work sent to Python processes of their own, for C code that holds Python's interpreter lock.

HiGHS's crossover is such code (highspy gives the lock up in ``Highs.run`` only): in a thread it stops every other
thread's Python for as long as it runs, seconds on a large block. :meth:`privrisk.solver.Program.start_soon` sends it
here instead. Each process runs ``python -m <module>``, which reads pickled requests from its stdin and writes one
pickled reply per request to its stdout until its stdin ends (:func:`serve`, which ``privrisk.solver`` runs as
``__main__``). The processes are started with :mod:`subprocess`, not :mod:`multiprocessing`: a process of
:mod:`multiprocessing` imports the caller's ``__main__`` again, which a script that calls privrisk without
``if __name__ == "__main__":`` cannot stand. They ignore Ctrl-C (the caller answers it, exit 130) and are ended
when the caller exits.

Example:
    >>> PROCESSES        # at most, however many requests wait
    2
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

#: The processes at most (each talked to by a thread of its own); the caller's own threads share the cores.
PROCESSES = 2

_LOCK = threading.Lock()
_QUEUES: dict[str, queue.SimpleQueue[tuple[Future[Any], Any]]] = {}  # per module: the requests not yet taken
_BUSY: dict[str, int] = {}  # requests sent and not yet answered, per module
_STARTED: list[subprocess.Popen[bytes]] = []
_OWN = threading.local()  # each pool thread's own process: {module: process}


def _process(module: str) -> subprocess.Popen[bytes]:
    """This thread's process running ``module`` (started on first use, and again after one died)."""
    own: dict[str, subprocess.Popen[bytes]] = _OWN.__dict__.setdefault("processes", {})
    process = own.get(module)
    if process is None or process.poll() is not None:
        root = str(Path(__file__).resolve().parents[1])  # where ``privrisk`` is, for an interpreter started anew
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": root if not path else root + os.pathsep + path}
        process = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=env)  # fmt: skip
        own[module] = process
        with _LOCK:
            _STARTED.append(process)
    return process


def _exchange(module: str, request: Any) -> Any:
    """The reply of this thread's process to ``request``; None if there was none (no process, a crash, a broken
    pipe): the caller then does the work itself."""
    try:
        process = _process(module)
        assert process.stdin is not None and process.stdout is not None
        pickle.dump(request, process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        process.stdin.flush()
        return pickle.load(process.stdout)
    except Exception:  # whatever went wrong, the work is done in the caller's process
        own: dict[str, subprocess.Popen[bytes] | None] = _OWN.__dict__.setdefault("processes", {})
        failed = own.pop(module, None)
        if failed is not None:
            with contextlib.suppress(Exception):
                failed.kill()
        return None


def ask(module: str, request: Any, *, unless_busy: bool = False) -> Future[Any] | None:
    """Send ``request`` to a process running ``python -m module``; the future's result is its reply (None if it
    failed). At most :data:`PROCESSES` run at once; more requests wait their turn, or with ``unless_busy`` are
    not sent (None: the caller does the work now rather than wait behind longer work)."""
    with _LOCK:
        if unless_busy and _BUSY.get(module, 0) >= PROCESSES:
            return None
        if module not in _QUEUES:
            if not _QUEUES:
                atexit.register(stop)
            _QUEUES[module] = queue.SimpleQueue()
            for i in range(PROCESSES):
                # Daemon threads: at exit (Ctrl-C too) nobody waits for a reply; stop() ends the processes.
                threading.Thread(target=_talk, args=(module, _QUEUES[module]), daemon=True,
                                 name=f"privrisk-worker-{i}").start()  # fmt: skip
        _BUSY[module] = _BUSY.get(module, 0) + 1
        asked = _QUEUES[module]
    future: Future[Any] = Future()
    asked.put((future, request))
    return future


def _talk(module: str, asked: queue.SimpleQueue[tuple[Future[Any], Any]]) -> None:
    """One thread's loop: each request asked of ``module`` in turn, to this thread's own process."""
    while True:
        future, request = asked.get()
        try:
            if future.set_running_or_notify_cancel():
                future.set_result(_exchange(module, request))
        finally:
            with _LOCK:
                _BUSY[module] -= 1


def stop() -> None:
    """End every process (at exit; a request under way is not waited for)."""
    with _LOCK:
        processes = list(_STARTED)
        _STARTED.clear()
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
            process.wait(5)


def serve(answer: Any) -> None:
    """The loop of a process of its own: ``answer(request)`` for each request on stdin, the reply on stdout, until
    stdin ends. Ctrl-C is left to the caller; whatever the work prints goes to the null device, not into the
    replies; a request that fails is answered None."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    requests = sys.stdin.buffer
    while True:
        try:
            request = pickle.load(requests)
        except (EOFError, OSError, pickle.UnpicklingError):
            return
        try:
            reply = answer(request)
        except Exception:  # the caller does the work itself
            reply = None
        pickle.dump(reply, replies, protocol=pickle.HIGHEST_PROTOCOL)
        replies.flush()
