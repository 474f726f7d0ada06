"""One BLAS thread for small dense factorisations (the rank of a block of the released system).

numpy's OpenBLAS starts one thread per core for an eigen-decomposition of a few hundred rows; on a machine whose
cores are busy those threads wait for each other, and a rank that takes 0.07 s on one thread took 6 s (4 s of
CPU) on two. The limit is set through OpenBLAS's own entry points in the libraries the process has loaded (found
as threadpoolctl finds them, in ``/proc/self/maps``) and put back afterwards; where there is no OpenBLAS, or no
``/proc``, nothing changes. The numbers do not depend on it beyond the last bits of the eigenvalues, far below the
rank's tolerance.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

_SETTERS = ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads")
_GETTERS = ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads")


@cache
def _libraries() -> tuple[tuple[Any, Any], ...]:
    """(get, set) of the number of threads of each OpenBLAS the process has loaded."""
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    paths = dict.fromkeys(
        line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower() and "/" in line
    )
    found = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0))  # only a library already loaded
        except OSError:
            continue
        get = next((getattr(lib, g) for g in _GETTERS if hasattr(lib, g)), None)
        put = next((getattr(lib, s) for s in _SETTERS if hasattr(lib, s)), None)
        if get is not None and put is not None:
            get.restype = ctypes.c_int
            put.argtypes = [ctypes.c_int]
            put.restype = None
            found.append((get, put))
    return tuple(found)


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS on one thread inside the block (each library's own number is put back after it).

    Example:
        >>> import numpy as np
        >>> with one_thread():
        ...     int(np.linalg.matrix_rank(np.eye(3)))
        3
    """
    libs = _libraries()
    before = [get() for get, _ in libs]
    for _, put in libs:
        put(1)
    try:
        yield
    finally:
        for (_, put), n in zip(libs, before, strict=True):
            put(n)
