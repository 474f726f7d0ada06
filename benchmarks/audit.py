"""Benchmark: the intruder's per-record table (f(X₋ᵢ) and Δf_{n−1}(X₋ᵢ) for every i) — naive vs privrisk.

The naive baseline is what the definition says: for every missing record i, build X₋ᵢ, and for every further
record j evaluate the query on X₋ᵢ₋ⱼ (the inner loop vectorised as a 2-D numpy batch): O(n³) work. privrisk
sorts once and reads every leave-two-out value from order statistics and moments: O(n log n).

Run: python benchmarks/audit.py [--quick]
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    args = parser.parse_args()
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
