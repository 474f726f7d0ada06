"""Benchmark: DuckDB (embedded) against Spark (local mode) for the big aggregations, side by side.

- presence: a population of 10⁶ and 10⁷ rows (4 quasi-identifiers, as ``benchmarks/presence.py``) and a 1 %
  research subset, Parquet; timed: the grouping pass (``prepare_presence``) and the least-generalisation search.
- empirical: Chicago's shape (32,036 establishments, 117 months, about 0.2 M inspections; ``chicago_like``) and
  10× the establishments; timed: ``empirical_privacy`` (aggregation + δᵢ of every individual).

Each case runs in its own subprocess so that peak memory is per case: the Python driver's peak RSS, and for Spark
also the JVM's (VmHWM, read before the session stops). Spark local mode on one machine is expected to be SLOWER
than DuckDB (JVM start, task scheduling, Arrow transfers to Python workers); it is there for data that lives on
a cluster or does not fit one machine. The JVM start-up (``spark start``) is reported separately.

    python benchmarks/scale.py            # 10⁶ and 10⁷ rows; Chicago and 10× Chicago
    python benchmarks/scale.py --quick    # a small smoke run (10⁵ rows; a tenth of Chicago; one Spark start)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

QI = ["zip", "age", "sex", "race"]
HIERARCHIES = {"zip": "prefix", "age": "interval:5", "race": "breaks:0,1,6"}
TARGETS = {"delta_max": 0.05, "k": 5}


def generate_presence(folder: Path, n_pop: int, seed: int = 1) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    pop = {
        "zip": (10000 + rng.zipf(1.3, n_pop) % 1000).astype(np.int32),
        "age": np.minimum(rng.gamma(4.0, 11.0, n_pop), 99).astype(np.int16),
        "sex": rng.integers(0, 2, n_pop).astype(np.int8),
        "race": rng.choice(6, n_pop, p=[0.6, 0.13, 0.17, 0.06, 0.03, 0.01]).astype(np.int8),
    }
    pop_path, data_path = folder / f"population_{n_pop}.parquet", folder / f"research_{n_pop}.parquet"
    if not pop_path.exists():
        pq.write_table(pa.table(pop), pop_path)
        pick = rng.choice(n_pop, max(1, n_pop // 100), replace=False)
        pq.write_table(pa.table({k: v[pick] for k, v in pop.items()}), data_path)
    return pop_path, data_path


def generate_empirical(folder: Path, establishments: int, months: int = 117) -> tuple[Path, int]:
    from privrisk.datasets.chicago import chicago_clean, chicago_like

    path = folder / f"inspections_{establishments}.parquet"
    if not path.exists():
        frame, _ = chicago_clean(chicago_like(establishments, months, seed=0))
        frame[["month", "License #", "failed"]].to_parquet(path, index=False)
    return path, int(pq.read_metadata(path).num_rows)


def _jvm_peak_mb(spark) -> float:
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except Exception:  # not Linux, or no access: leave it out
        pass
    return float("nan")


def run_cases(cases: list[str], engine: str, sizes: list[int], folder: Path) -> list[dict]:
    """The cases in this process, on one Spark session if the engine is Spark (the smoke run's; a full run has a
    process per case, so that peak memory is per case); one dict of timings and peak memory per case."""
    spark, start_s = None, None
    if engine == "spark":
        from privrisk.io.engine import spark_session

        t0 = time.perf_counter()
        spark = spark_session("local[*]")
        spark.range(1).count()
        start_s = time.perf_counter() - t0
    try:
        return [
            {**run_case(c, engine, n, folder, spark), "spark_start_s": start_s}
            for c, n in zip(cases, sizes, strict=True)
        ]
    finally:
        if spark is not None:
            spark.stop()


def run_case(case: str, engine: str, size: int, folder: Path, spark=None) -> dict:
    """One case in this process (on ``spark`` if the engine is Spark): the timings and peak memory."""
    from privrisk import empirical_privacy, prepare_presence, search_generalisation

    out: dict = {"case": case, "engine": engine, "size": size}
    if case.startswith("presence"):
        pop, data = generate_presence(folder, size)
        t0 = time.perf_counter()
        # presence-rollup: every roll-up to a lattice node runs in Spark as well (forced; normally above 10⁷ classes)
        force = {"spark_rollup_classes": 0} if case == "presence-rollup" and engine == "spark" else {}
        prep = prepare_presence(data, pop, QI, hierarchies=HIERARCHIES, engine=engine, **force)
        out["group_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = search_generalisation(prep, **TARGETS)
        out["search_s"] = time.perf_counter() - t0
        out["rows"] = size + prep.n_data
        out["classes"] = int(prep.enc.data_codes.shape[0] + prep.enc.pop_codes.shape[0])
        out["result"] = {"levels": found.best.levels if found.best else None, "evaluated": found.evaluated,
                         "delta_max": found.best.summary["delta_max"] if found.best else None}  # fmt: skip
    else:
        path, rows = generate_empirical(folder, size)
        t0 = time.perf_counter()
        r = empirical_privacy(str(path), period="month", individual="License #", query="rate", value="failed",
                              epsilons=[0.03, 0.1, 0.3], engine=engine) if engine == "spark" else None  # fmt: skip
        if r is None:
            import pandas as pd

            r = empirical_privacy(pd.read_parquet(path), period="month", individual="License #", query="rate",
                                  value="failed", epsilons=[0.03, 0.1, 0.3])  # fmt: skip
        out["measure_s"] = time.perf_counter() - t0
        out["rows"] = rows
        out["individuals"] = r.n_individuals
        out["periods"] = r.periods
        out["footprints"] = r.footprints
        out["result"] = {"delta": r.summary["delta"].tolist(), "total_risk": r.summary["total_risk"].tolist()}
    out["driver_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if spark is not None:
        out["jvm_peak_mb"] = _jvm_peak_mb(spark)
    return out


def _sub(cases: list[str], engine: str, sizes: list[int], folder: Path) -> list[dict]:
    cmd = [sys.executable, __file__, "--case", ",".join(cases), "--engine", engine]
    cmd += ["--size", ",".join(map(str, sizes)), "--folder", str(folder)]
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
    if done.returncode != 0 or not lines:
        error = done.stderr.strip().splitlines()[-1:]
        return [
            {"case": c, "engine": engine, "size": n, "error": error}
            for c, n in zip(cases, sizes, strict=True)
        ]
    return json.loads(lines[-1])


def _fmt(x) -> str:
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:,.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small smoke run")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # a child: presence, presence-rollup, empirical; commas
    ap.add_argument("--engine", choices=["duckdb", "spark"], help=argparse.SUPPRESS)
    ap.add_argument("--size", help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        sizes = [int(n) for n in args.size.split(",")]
        print(json.dumps(run_cases(args.case.split(","), args.engine, sizes, args.folder)))
        return
    presence_sizes = [100_000] if args.quick else [1_000_000, 10_000_000]
    empirical_sizes = [3_204] if args.quick else [32_036, 320_360]
    with tempfile.TemporaryDirectory(prefix="privrisk-scale-") as tmp:
        folder = Path(tmp)
        rows = []
        cases = (
            ("presence", presence_sizes),
            # Each case starts Spark once (about 40 s): the smoke run leaves the roll-up to tests/io/test_spark.py.
            ("presence-rollup", [] if args.quick else presence_sizes[:1]),
            ("empirical", empirical_sizes),
        )
        todo = [(case, size) for case, sizes in cases for size in sizes]
        # A process per run (peak memory per case); the smoke run starts Spark once, for all its cases.
        duckdb = [r for c, n in todo for r in _sub([c], "duckdb", [n], folder)]
        if args.quick:
            spark = _sub([c for c, _ in todo], "spark", [n for _, n in todo], folder)
        else:
            spark = [r for c, n in todo for r in _sub([c], "spark", [n], folder)]
        for (case, size), d, s in zip(todo, duckdb, spark, strict=True):
            pair = {"duckdb": d, "spark": s}
            rows.append((case, size, pair))
            same = d.get("result") == s.get("result")
            if case == "empirical" and not same and "result" in s:
                a, b = d["result"], s["result"]
                same = a["delta"] == b["delta"] and np.allclose(a["total_risk"], b["total_risk"], rtol=1e-12)
            pair["same"] = same
            print(f"done: {case} {size:,} ({'same results' if same else 'RESULTS DIFFER'})", file=sys.stderr)
    header = (f"{'case':<15} {'size':>12} {'rows':>12} {'classes/indiv.':>14} | {'duckdb s':>9} {'spark s':>9} "
              f"{'ratio':>6} {'(spark start s)':>15} | {'duckdb MB':>9} {'spark drv MB':>12} {'spark JVM MB':>12} same")  # fmt: skip
    print(header)
    print("-" * len(header))
    for case, size, pair in rows:
        d, s = pair["duckdb"], pair["spark"]
        if "error" in d or "error" in s:
            print(f"{case:<15} {size:>12,} error: {d.get('error') or s.get('error')}")
            continue
        key = ("group_s", "search_s") if case.startswith("presence") else ("measure_s",)
        td, ts = sum(d[k] for k in key), sum(s[k] for k in key)
        what = d.get("classes", d.get("individuals"))
        print(f"{case:<15} {size:>12,} {d['rows']:>12,} {what:>14,} | {td:>9.2f} {ts:>9.2f} {ts / td:>6.1f} "
              f"{s['spark_start_s']:>15.1f} | {_fmt(d['driver_peak_mb']):>9} {_fmt(s['driver_peak_mb']):>12} "
              f"{_fmt(s.get('jvm_peak_mb')):>12} {pair['same']}")  # fmt: skip
        if case.startswith("presence"):
            print(f"{'':<15} {'':>12}   grouping pass: duckdb {d['group_s']:.2f} s, spark {s['group_s']:.2f} s; "
                  f"search ({d['result']['evaluated']} nodes): duckdb {d['search_s']:.2f} s, spark {s['search_s']:.2f} s")  # fmt: skip
    print("ratio = spark time / duckdb time (same machine, same run); Spark's JVM start is not in its time.")
    if args.quick:
        print(
            "quick: one Spark session for every case (one start, shown on each row; the JVM's peak is cumulative)."
        )
    print(
        "presence-rollup: the Spark side rolls every lattice node up in Spark (forced with spark_rollup_classes=0)."
    )
    print("empirical, duckdb column: the local path (numpy aggregation over the rows read by pandas).")


if __name__ == "__main__":
    main()
