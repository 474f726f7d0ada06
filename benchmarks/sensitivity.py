"""Exact local sensitivity: privrisk's candidate-neighbour kernel against evaluating every neighbour.

The naive way evaluates the query on every neighbour of the sample: X ∪ {v} for every universe value v and
X \\ {xᵢ} for every record, O(n·(n + |U|)) work. privrisk needs a handful of candidates after one sort.

    python benchmarks/sensitivity.py [--n 2000] [--universe 500] [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import privrisk as pr
from privrisk.sensitivity import evaluate


def naive_local_sensitivity(query, sample, universe_values):
    x = np.asarray(sample, dtype=float)
    f0 = evaluate(query, x)
    best = 0.0
    for v in universe_values:
        best = max(best, abs(evaluate(query, np.append(x, v)) - f0))
    if x.size >= 2:
        for i in range(x.size):
            best = max(best, abs(evaluate(query, np.delete(x, i)) - f0))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="sample size")
    parser.add_argument("--universe", type=int, default=500, help="distinct universe values")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a smoke run: n = 200, 50 universe values")
    args = parser.parse_args()
    if args.quick:
        args.n, args.universe = 200, 50
    rng = np.random.default_rng(args.seed)
    universe = pr.Universe.from_values(np.round(rng.lognormal(3, 1, args.universe), 1))
    sample = rng.choice(universe.values, size=args.n)
    print(f"sample n = {args.n:,}, universe of {universe.size:,} values")
    print(f"{'query':<10}{'naive s':>12}{'privrisk s':>12}{'ratio':>10}")
    for query in pr.QUERIES:
        t0 = time.perf_counter()
        slow = naive_local_sensitivity(query, sample, universe.values)
        t1 = time.perf_counter()
        reps = 20
        for _ in range(reps):
            fast = pr.local_sensitivity(query, sample, universe)
        t2 = time.perf_counter()
        assert np.isclose(slow, fast, rtol=1e-9), (query, slow, fast)
        naive_s, ours_s = t1 - t0, (t2 - t1) / reps
        print(f"{query:<10}{naive_s:>12.4f}{ours_s:>12.6f}{naive_s / ours_s:>10.0f}x")


if __name__ == "__main__":
    main()
