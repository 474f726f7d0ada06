"""Output checking of a census-like file: DuckDB's view of the file against the naive baseline, with peak memory.

Run: python benchmarks/outputs_scale.py [--rows 10000000] [--engines duckdb,spark,naive] [--quick]

The file is benchmarks/microdata_scale.py's (8 key variables, a sampling weight, a household id; Parquet written in
row groups, never whole in memory). 20 tables (counts, weighted counts and sums of the weight) are checked, each alone and all together (the differencing).

- duckdb: ``run_outputs`` on the file: DuckDB's view of it (privrisk.outputs._source), a memory limit of 1.5 GB
  and the rest spilled; only the aggregates come back.
- spark: ``engine="spark"`` on ``local[2]``: Spark groups the file by the columns the tables read, only that
  frequency table comes back, and the same check runs over it (privrisk.outputs._spark). Its peak memory includes
  Spark's JVM (a child process).
- naive: the path before it: the file read into pandas (``read_table``), registered in DuckDB and checked.

Each runs in its own process; its peak resident memory includes its children. The JSON documents must agree.
``--quick`` runs DuckDB and the naive baseline only (Spark's start alone takes longer than the rest).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from microdata_scale import _descendants_usage, make  # the same census file and memory reading


def specs() -> tuple:
    """20 tables over region, sex and marital status: counts, weighted counts and sums of the weight (conditions
    on age multiply the differencing's atoms and its time, which is not what this measures)."""
    from privrisk.outputs import OutputSpec

    out = []
    pairs = [
        ("region",),
        ("sex",),
        ("marital",),
        ("region", "sex"),
        ("marital", "sex"),
        ("region", "marital"),
    ]
    for i, rows in enumerate(pairs):
        out.append(
            OutputSpec(name=f"C{i}", kind="count", rows=rows[:1], columns=rows[1:], margins=len(rows) > 1)
        )
    for i, rows in enumerate(pairs + pairs[:1]):
        out.append(OutputSpec(name=f"W{i}", kind="count", rows=rows, weights="weight"))
        out.append(OutputSpec(name=f"S{i}", kind="sum", rows=rows, variable="weight"))
    return tuple(out)


def child(engine: str, path: str) -> None:
    from privrisk.io.files import to_jsonable
    from privrisk.outputs import OutputsSettings, run_outputs
    from privrisk.outputs import run as run_module

    start = time.perf_counter()
    if engine == "naive":
        setattr(run_module, "viewable_file", lambda data: None)  # noqa: B010  (the file read into pandas)
    on_spark = engine == "spark"
    run = run_outputs(OutputsSettings(data=path, spec=specs(), engine="spark" if on_spark else "duckdb",
                                      spark_master="local[2]" if on_spark else None))  # fmt: skip
    seconds = time.perf_counter() - start
    doc = json.dumps(to_jsonable(run.to_dict()), sort_keys=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + _descendants_usage(os.getpid())[0]
    print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "status": run.status,
                      "cells": run.summary["cells"], "digest": hashlib.sha256(doc.encode()).hexdigest()}))  # fmt: skip


def _in_child(engine: str, path: str) -> dict | None:
    """One engine's check of the file in a process of its own: its figures, or None (said) when it failed."""
    done = subprocess.run([sys.executable, __file__, "--child", engine, path], capture_output=True, text=True)
    if done.returncode:
        print(f"{engine}: failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


@contextmanager
def _census(rows: int) -> Iterator[str]:
    """The census file in a temporary folder, the machine's load said before and after."""
    print("load:", os.popen("uptime").read().strip())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "census.parquet")
        make(path, rows)
        print(f"{rows:,} rows, 8 keys, weights, household id; 20 tables")
        yield path
    print("load:", os.popen("uptime").read().strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--engines", default="duckdb,spark,naive")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10,000 rows")
    args = parser.parse_args()
    if args.quick:
        args.rows = 10_000
        args.engines = ",".join(e for e in args.engines.split(",") if e != "spark") or "duckdb"
    if args.child:
        child(*args.child)
        return
    with _census(args.rows) as path:
        results = {}
        for engine in args.engines.split(","):
            r = _in_child(engine, path)
            if r is not None:
                results[engine] = r
                print(f"{engine:7s} {r['seconds']:8.1f} s  peak {r['peak_mb']:7.0f} MB  {r['cells']} cells, "
                      f"{r['status']}")  # fmt: skip
        if "naive" in results:
            for engine, r in results.items():
                if engine != "naive":
                    n = results["naive"]
                    print(f"{engine} / naive: time {r['seconds'] / n['seconds']:.2f}, "
                          f"memory {r['peak_mb'] / n['peak_mb']:.2f}")  # fmt: skip
        assert len({r["digest"] for r in results.values()}) <= 1, "the engines' documents differ"


if __name__ == "__main__":
    main()
