"""Benchmark: the intruder's per-record table (f(X₋ᵢ) and Δf_{n−1}(X₋ᵢ) for every i) — naive vs privrisk.

The naive baseline is what the definition says: for every missing record i, build X₋ᵢ, and for every further
record j evaluate the query on X₋ᵢ₋ⱼ (the inner loop vectorised as a 2-D numpy batch): O(n³) work. privrisk
sorts once and reads every leave-two-out value from order statistics and moments: O(n log n).

The second part runs the full audit (the per-record table, the JSON document with the riskiest records) on
``--rows`` values (5 M by default, 100,000 with --quick) in a child process per query and prints its time and
peak memory (ru_maxrss of the child) beside the figures of issue #12 before the fix (median at 5 M values:
10.8 GB, 97 s, 1.2 GB of JSON). The target: ≤ 1.5 GB and ≤ 30 s.

Run: python benchmarks/audit.py [--quick] [--rows N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from privrisk.audit.intruder import audit_data_dependent
from privrisk.audit.leave_out import leave_one_out
from privrisk.sensitivity import evaluate


def naive(x: np.ndarray, query: str) -> tuple[np.ndarray, np.ndarray]:
    n = x.size
    f = np.empty(n)
    delta = np.empty(n)
    for i in range(n):
        rest = np.delete(x, i)
        m = rest.size
        # Row j of the batch is rest without its j-th record.
        batch = np.broadcast_to(rest, (m, m))[~np.eye(m, dtype=bool)].reshape(m, m - 1)
        f[i] = evaluate(query, rest)
        delta[i] = np.max(np.abs(evaluate(query, batch, axis=1) - f[i]))
    return f, delta


def timed(fn, *args):
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


# Issue #12, item 11: `privrisk audit --json` of the median before the fix (peak RSS, wall time, JSON size).
OLD = {5_000_000: (10.8 * 1024, 97.0, 1.2e9), 1_000_000: (2.7 * 1024, None, None)}

CHILD = """
import json, resource, sys, time
import numpy as np
from privrisk.audit.intruder import audit_data_dependent
n, query = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
x = np.round(rng.normal(10, 2, n), 2)
x[-1] = 100.0
t0, c0 = time.perf_counter(), time.process_time()
res = audit_data_dependent(x, query, 2, u=0.75, universe=(-100, 200))
size = len(json.dumps(res.to_dict(), default=float))
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux: the child's own peak, in MiB
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "json_bytes": size, "violations": res.violations, "peak_mib": peak}))
"""


def child_audit(n: int, query: str) -> tuple[dict, float]:
    """The full audit in a fresh process: its report and its peak resident memory in MiB (its own ru_maxrss)."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), query], capture_output=True, text=True, check=True
    )
    rep = json.loads(proc.stdout)
    return rep, float(rep["peak_mib"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    parser.add_argument("--rows", type=int, default=None, help="values of the full audit (default 5,000,000)")
    args = parser.parse_args()
    rows = args.rows or (100_000 if args.quick else 5_000_000)
    print(
        f"full audit (JSON: summary and the 20 riskiest records) of {rows:,} values, one child process per query"
    )
    print(
        f"{'query':<8} {'n':>10} {'s':>7} {'CPU s':>7} {'peak MiB':>9} {'JSON bytes':>11}   before the fix (issue #12)"
    )
    for query in ("median", "mean", "std"):
        rep, peak = child_audit(rows, query)
        old = OLD.get(rows) if query == "median" else None
        before = "—"
        if old is not None:
            parts = [f"{old[0]:,.0f} MiB"]
            if old[1] is not None:
                parts.append(f"{old[1]:.0f} s ({old[1] / rep['seconds']:.1f}× slower)")
            if old[2] is not None:
                parts.append(f"{old[2]:,.0f} JSON bytes")
            before = ", ".join(parts) + f"; memory ratio {old[0] / peak:.1f}×"
        print(
            f"{query:<8} {rows:>10,} {rep['seconds']:>7.2f} {rep['cpu_seconds']:>7.2f} {peak:>9,.0f} "
            f"{rep['json_bytes']:>11,}   {before}"
        )
    print()
    rng = np.random.default_rng(0)
    naive_sizes = [100] if args.quick else [200, 500]
    big_sizes = [10_000] if args.quick else [100_000, 1_000_000]
    queries = ["mean", "median", "std"]

    leave_one_out(rng.normal(size=50), "mean")  # warm-up: imports and first-call costs are not the method's
    print(f"{'query':<8} {'n':>9} {'naive s':>10} {'privrisk s':>11} {'speed-up':>9}  agree")
    for query in queries:
        for n in naive_sizes:
            x = np.round(rng.normal(10, 2, n), 2)
            x[-1] = 100.0
            t_naive, (f, d) = timed(naive, x, query)
            t_ours, table = timed(leave_one_out, x, query)
            agree = np.allclose(table["f_without"], f) and np.allclose(table["delta_without"], d, atol=1e-9)
            print(f"{query:<8} {n:>9,} {t_naive:>10.3f} {t_ours:>11.4f} {t_naive / t_ours:>8.0f}×  {agree}")

    print()
    print(f"{'query':<8} {'n':>9} {'full audit s':>13} {'peak MiB':>9}")
    for query in queries:
        for n in big_sizes:
            x = np.round(rng.normal(10, 2, n), 2)
            x[-1] = 100.0
            tracemalloc.start()
            t, res = timed(lambda x=x, q=query: audit_data_dependent(x, q, 2, u=0.75, universe=(-100, 100)))
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(f"{query:<8} {n:>9,} {t:>13.3f} {peak:>9.1f}   violations: {res.violations}")


if __name__ == "__main__":
    main()
