"""Microdata risk of a census-like file on DuckDB, Spark local[2] and a naive pandas baseline, with peak memory.

Run: python benchmarks/microdata_scale.py [--rows 1000000] [--engines memory,grouped,default,spark,pandas]
     [--memory-limit 512MB] [--trace] [--quick]

``memory`` reads the file into memory (``measure_microdata``); ``grouped`` groups the Parquet file where it lies in
DuckDB (``privrisk.microdata._duckdb``): its peak memory is DuckDB's limit (``--memory-limit``, else
``PRIVRISK_DUCKDB_MEMORY_LIMIT`` or 1 GB) plus what the key combinations take, not the records (the target: 10⁸
records within 2 GB); ``default`` is ``run_microdata`` as it runs by default (grouped when the file read into
memory would take more than DuckDB's memory limit, ``privrisk.microdata._duckdb.grouped_by_default``, else in
memory); ``spark`` groups it in Spark ``local[2]``;
``pandas`` is the naive baseline (every record in pandas, f_k and F_k by ``transform``, no risks). 10⁸ records:
``--rows 100000000 --engines grouped,pandas --memory-limit 512MB`` (a Parquet file of about 1 GB in the temporary
folder; DuckDB spills there too). ``--quick``: 10,000 records, memory, grouped and pandas. ``--trace``: privrisk's
engines also report Python's own peak (tracemalloc: numpy and pandas, not DuckDB's or Arrow's memory) and what it
comes to a key combination.

The file: 8 key variables (region, district, age, sex, marital status, education, occupation, tenure), a sampling
weight and a household id, written once as Parquet. Each engine runs in its own process (its peak resident memory
is that process's, the JVM's for Spark); the sample uniques of all must agree, and privrisk's engines must give the
same household risk to the last bit.
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

import numpy as np
import pandas as pd

KEYS = ["region", "district", "age", "sex", "marital", "education", "occupation", "tenure"]


def make(path: str, rows: int, chunk: int = 2_000_000) -> None:
    """The census file, written in row groups of ``chunk`` records (10⁸ records never in memory at once)."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    rng = np.random.default_rng(36)
    writer = None
    for start in range(0, rows, chunk):
        m = min(chunk, rows - start)
        households = rng.integers(0, max(1, rows // 3), m)
        frame = pd.DataFrame({"hid": households, "region": households % 12, "district": households % 300,
                              "age": rng.integers(0, 100, m), "sex": rng.integers(1, 3, m),
                              "marital": rng.integers(1, 6, m), "education": rng.integers(1, 9, m),
                              "occupation": rng.integers(1, 11, m), "tenure": households % 4,
                              "weight": rng.integers(20, 200, m) * 0.5})  # fmt: skip
        table = pa.Table.from_pandas(frame, preserve_index=False)
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=min(chunk, 1_000_000))
    if writer is not None:
        writer.close()


def _descendants(pid: int) -> list[int]:
    """The live descendants of ``pid`` (Linux /proc): Spark's JVM and its Python workers."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found += [int(entry), *_descendants(int(entry))]
    return found


def _descendants_usage(pid: int) -> tuple[int, float]:
    """The peak resident kB (VmHWM) and CPU seconds (user + system, their own finished children's too) of the live
    descendants of ``pid``: the JVM's CPU is most of Spark's, and Python's process_time does not count it."""
    peak, cpu = 0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for child_pid in _descendants(pid):
        try:
            with open(f"/proc/{child_pid}/status") as fh:
                peak += sum(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
            with open(f"/proc/{child_pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            cpu += sum(int(v) for v in fields[11:15]) / tick  # utime, stime, cutime, cstime
        except (OSError, ValueError, IndexError):
            continue
    return peak, cpu


def child(engine: str, path: str) -> None:
    trace = os.environ.get("MICRODATA_SCALE_TRACE") == "1"
    start, cpu = time.perf_counter(), time.process_time()
    if engine == "pandas":  # the naive baseline: every row in pandas, f_k and F_k by transform (no risks)
        frame = pd.read_parquet(path)
        by_keys = frame.groupby(KEYS, dropna=False)
        fk = by_keys["weight"].transform("size")
        result = {"uniques": int((fk == 1).sum()), "F_k_sum": float(by_keys["weight"].transform("sum").sum())}
    else:
        import tracemalloc

        from privrisk.cli._common import to_jsonable
        from privrisk.microdata import MicrodataSettings, run_microdata
        from privrisk.microdata._duckdb import measure_in_duckdb
        from privrisk.microdata._repeated import repeated_sum
        from privrisk.microdata.measure import MicrodataResult, measure_microdata
        from privrisk.microdata.run import MicrodataRun

        if trace:  # after the imports: what the measuring takes, not the modules
            tracemalloc.start()

        grouped, memory = engine == "grouped", engine == "memory"
        engine = "spark" if engine == "spark" else "duckdb"

        settings = MicrodataSettings(data=path, keys=tuple(KEYS), weights="weight", household="hid", k=3, engine=engine,
                                     spark_master="local[2]" if engine == "spark" else None)  # fmt: skip
        if grouped:  # DuckDB over the file where it lies (privrisk.microdata._duckdb)
            m: MicrodataResult = measure_in_duckdb(settings)
        elif memory:  # the file read into memory
            m = measure_microdata(None, settings)
        else:
            m = run_microdata(settings).measured
        # the --json document, to compare privrisk's engines byte for byte (its digest)
        document = json.dumps(to_jsonable(MicrodataRun(settings, m).to_dict()), ensure_ascii=False)
        result = {"uniques": m.measures["k_anonymity"]["sample_uniques"],
                  "document": hashlib.sha256(document.encode()).hexdigest(),
                  # numpy's sum over the records, bit for bit, without an array of every record (800 MB at 10⁸)
                  "F_k_sum": repeated_sum(m.cells.Fk, m.cells.count),
                  "household": m.measures["household_risk"]["expected_reidentifications"],
                  "combinations": m.measures["combinations"], "grouped": type(m).__name__ != "MicrodataResult"}  # fmt: skip
        if trace:
            result["python_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    # this process's peak and CPU, plus those of its children still running (Spark's JVM)
    child_peak, child_cpu = _descendants_usage(os.getpid())
    result["cpu_seconds"] = cpu + child_cpu
    result["jvm_cpu_seconds"] = child_cpu
    result["jvm_peak_mb"] = child_peak / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + child_peak
    print(json.dumps({**result, "seconds": seconds, "peak_mb": peak / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--engines", default="memory,grouped,spark,pandas")
    parser.add_argument(
        "--memory-limit", help="DuckDB's memory limit (PRIVRISK_DUCKDB_MEMORY_LIMIT), e.g. 512MB"
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help="Python's own peak memory (tracemalloc) too")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 10,000 rows; in memory, grouped in DuckDB and pandas",
    )
    args = parser.parse_args()
    if args.quick:
        args.rows, args.engines = 10_000, "memory,grouped,pandas"
    if args.child:
        child(*args.child)
        return
    if args.trace:
        os.environ["MICRODATA_SCALE_TRACE"] = "1"
    if args.memory_limit:  # the children's DuckDB connections read it
        os.environ["PRIVRISK_DUCKDB_MEMORY_LIMIT"] = args.memory_limit
    print("load:", os.popen("uptime").read().strip())
    print("DuckDB memory limit:", os.environ.get("PRIVRISK_DUCKDB_MEMORY_LIMIT", "1GB (default)"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "census.parquet")
        make(path, args.rows)
        print(f"{args.rows:,} rows, 8 keys, weights, household id")
        results = {}
        for engine in args.engines.split(","):
            out = subprocess.run(
                [sys.executable, __file__, "--child", engine, path], capture_output=True, text=True
            )
            if out.returncode:
                print(f"{engine}: failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            results[engine] = json.loads(out.stdout.strip().splitlines()[-1])
            r = results[engine]
            jvm = f", {r['jvm_cpu_seconds']:.1f} s of it the JVM's" if r.get("jvm_cpu_seconds") else ""
            jvm_mb = f" ({r['jvm_peak_mb']:.0f} MB the JVM's)" if r.get("jvm_peak_mb") else ""
            print(
                f"{engine:7s} {r['seconds']:8.1f} s ({r['cpu_seconds']:.1f} s CPU{jvm})  peak {r['peak_mb']:7.0f} MB"
                f"{jvm_mb}  "
                f"uniques {r['uniques']:,}  household risk Σ {r.get('household', float('nan'))!r}"
            )
            if "combinations" in r:
                how = (
                    f"grouped in {'Spark' if engine == 'spark' else 'DuckDB'}"
                    if r["grouped"]
                    else "read into memory"
                )
                line = f"        {r['combinations']:,} combinations, {how}"
                if "python_peak_mb" in r:
                    per = r["python_peak_mb"] * 2**20 / max(r["combinations"], 1)
                    line += f"; Python's peak {r['python_peak_mb']:.0f} MB, {per:.0f} bytes a combination"
                print(line)
        for base in ("pandas", "memory"):
            for engine, r in results.items():
                if base in results and engine not in ("pandas", base):
                    print(f"{engine} / {base} time: {r['seconds'] / results[base]['seconds']:.2f}")
        assert len({r["uniques"] for r in results.values()}) <= 1, "the engines disagree"
        households = {r["household"] for e, r in results.items() if e != "pandas"}
        assert len(households) <= 1, "privrisk's engines disagree on the household risk"
        documents = {r["document"] for e, r in results.items() if e != "pandas"}
        assert len(documents) <= 1, "privrisk's engines give different --json documents"
        if documents:
            print(f"privrisk's engines: the same --json document (sha256 {next(iter(documents))[:16]}…)")
    print("load:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
