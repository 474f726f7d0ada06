"""The heap of a local Spark JVM that privrisk starts (``spark.driver.memory``): in local mode the tasks and the
driver share it, and Spark's default of 1 GB is too small for the microdata passes at 10⁷ records. Used by
:func:`privrisk.io.engine.spark_session`; a cluster's and the user's own settings are left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from privrisk.errors import PrivriskError

__all__ = ["LOCAL_DRIVER_MEMORY_MB", "local_driver_memory"]

LOCAL_DRIVER_MEMORY_MB = (1024, 2048)
"""The bounds of a local JVM's heap chosen by :func:`local_driver_memory` (Spark's own default is the lower)."""


def local_driver_memory(
    master: str, environ: Mapping[str, str] | None = None, physical: int | None = None
) -> str | None:
    """The heap (``spark.driver.memory``) of a local JVM that privrisk starts: a quarter of the machine's memory
    (what the JVM itself takes by default; a container's limit counts), within :data:`LOCAL_DRIVER_MEMORY_MB`.

    Spark's default of 1 GB is too small on a local master, where the tasks and the driver share one heap: the
    driver holds a result partition's Arrow batches whole while they go to Python (10⁷ records' microdata passes
    ran out of it). ``PRIVRISK_SPARK_DRIVER_MEMORY`` chooses the heap; None (Spark's own settings) for a cluster
    master and when the user set it already (``SPARK_DRIVER_MEMORY``, ``--driver-memory`` or
    ``spark.driver.memory`` in ``PYSPARK_SUBMIT_ARGS`` or in ``spark-defaults.conf``).

    Example:
        >>> local_driver_memory("local[2]", {}, physical=24 * 2**30), local_driver_memory("local[*]", {}, 2**31)
        ('2048m', '1024m')
        >>> local_driver_memory("yarn", {}, physical=24 * 2**30) is None
        True
    """
    env = os.environ if environ is None else environ
    if not master.startswith("local"):
        return None
    chosen = env.get("PRIVRISK_SPARK_DRIVER_MEMORY", "").strip()
    if chosen:
        if not re.fullmatch(r"\d+[kmgt]?", chosen, flags=re.IGNORECASE):
            raise PrivriskError(
                f"PRIVRISK_SPARK_DRIVER_MEMORY: expected a JVM size such as 4g or 2048m, got {chosen!r}"
            )
        return chosen
    submit = env.get("PYSPARK_SUBMIT_ARGS", "")
    if env.get("SPARK_DRIVER_MEMORY") or "--driver-memory" in submit or "spark.driver.memory" in submit:
        return None
    folders = [env.get("SPARK_CONF_DIR"), env.get("SPARK_HOME") and os.path.join(env["SPARK_HOME"], "conf")]
    for folder in filter(None, folders):
        try:
            with open(os.path.join(folder, "spark-defaults.conf"), encoding="utf-8", errors="replace") as fh:
                if any(line.split()[:1] == ["spark.driver.memory"] for line in fh):
                    return None
        except OSError:
            continue
    total = physical if physical is not None else _physical_memory()
    low, high = LOCAL_DRIVER_MEMORY_MB
    return f"{min(max(total // 4 // 2**20, low), high)}m"


def _physical_memory() -> int:
    """The machine's memory in bytes, or its container's (cgroup) limit when lower; 0 when unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 0
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(limit) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < (total or int(text) + 1):
            total = int(text)
    return total
