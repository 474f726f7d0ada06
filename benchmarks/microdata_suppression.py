"""Optimal local suppression past 12 keys: the set search with its greedy fallback against the per-record solvers.

Run: python benchmarks/microdata_suppression.py [--rows 10000] [--keys 18] [--k 3] [--milp-seconds 120]
     [--table-alone] [--quick]

The file: records drawn around profiles (one for 25 records), each key of a record leaving its profile's value with
chance 0.12, so many records share their combination and the others need a few suppressions, some many. Paths, in
one run on the same file:

- ``search+greedy``: the set search of the whole file (``max_patterns`` sets), the records it leaves dropping their
  least important keys one at a time (privrisk before the solver; reproduced with ``time_limit=0``);
- ``search+table``: the same search, the records it leaves solved each on its own by the subset-sum table (the
  default up to 20 keys);
- ``search+milp``: the same search, the records it leaves solved each by the integer programme on HiGHS within
  ``--milp-seconds`` (the records left then are greedy and the lower bound is stated);
- with ``--table-alone``, ``table``: every record at risk solved by the table, no search (``max_patterns=0``).

Each line: seconds, suppressions, whether proven the fewest (else the lower bound), and the ratio of its time to
the old path's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privrisk.microdata.suppression import suppress


def make(rows: int, keys: int, seed: int = 33) -> np.ndarray:
    rng = np.random.default_rng(seed)
    cardinality = rng.integers(2, 9, keys)
    count = max(10, rows // 25)
    profiles = np.column_stack([rng.integers(0, c, count) for c in cardinality])
    codes = profiles[rng.integers(0, count, rows)]
    noise = rng.random((rows, keys)) < 0.12
    fresh = np.column_stack([rng.integers(0, c, rows) for c in cardinality])
    return np.where(noise, fresh, codes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--keys", type=int, default=18)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--milp-seconds", type=float, default=120.0)
    ap.add_argument("--table-alone", action="store_true", help="also the table without the search")
    ap.add_argument("--quick", action="store_true", help="a small file (the benchmarks' smoke test)")
    a = ap.parse_args()
    if a.quick:
        a.rows, a.keys, a.milp_seconds = 400, 16, 20.0
    codes = make(a.rows, a.keys)
    names = [f"key{j}" for j in range(a.keys)]
    print(f"{a.rows:,} records, {a.keys} keys, k = {a.k}")
    paths: dict[str, dict] = {
        "search+greedy": {"time_limit": 0.0},
        "search+table": {"_engine": "table"},
        "search+milp": {"_engine": "milp", "time_limit": a.milp_seconds},
    }
    if a.table_alone:
        paths["table"] = {"max_patterns": 0, "_engine": "table"}
    base = None
    for label, options in paths.items():
        t = time.perf_counter()
        s = suppress(codes, names, k=a.k, **options)
        took = time.perf_counter() - t
        base = base or took
        proof = "optimal" if s.optimal else f"lower bound {s.bound:,} (gap {s.gap:.1%})"
        print(f"{label:>14}: {took:8.2f} s  {len(s.cells):7,} suppressed  {s.method:>6}  {proof:<32} "
              f"time ×{took / base:.2f} of search+greedy")  # fmt: skip


if __name__ == "__main__":
    main()
