"""Benchmark of ``privrisk empirical`` (issue 6 §4).

1. Chicago's shape: 117 monthly databases × 32,036 establishments, a failure rate, read from Parquet, the
   three-ε table (target ≤ 5 s), in-process and as the ``privrisk`` command in a subprocess.
2. The naive baseline in the same run: a per-individual loop that fits KDEpy's ``NaiveKDE`` (box kernel,
   per-point bandwidths) to the answers without each individual and integrates the hockey stick on a grid,
   timed on a subset and extrapolated to all individuals; our time per individual on the full run beside it
   (target ≥ 30×).
3. 365 daily databases × 1,000,000 individuals, processed in chunks, in a subprocess: wall and CPU time and peak
   memory (issue 6: < 4 GiB; issue 14 part 5: ≤ 20 s at the same memory as the 57 s, 0.56 GiB of before); beside
   it, in its own subprocess, the old path (every row's hockey stick on the merged breakpoints of both densities,
   in cache-sized blocks, rather than on windows around the changed kernels): the ratio of the two CPU times and
   the largest difference of δ. The machine's load (``uptime``) is printed with them.

Run: ``.venv/bin/python benchmarks/empirical.py`` (``--quick`` for a small smoke run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def panel(individuals: int, periods: int, *, seed: int, mean_visits: float = 3.0) -> pd.DataFrame:
    """Rate data in the cleaned Chicago layout: every individual appears at least once; a monthly climate."""
    rng = np.random.default_rng(seed)
    visits = 1 + rng.poisson(mean_visits - 1, individuals)
    who = np.repeat(np.arange(individuals, dtype=np.int64), visits)
    period = rng.integers(0, periods, who.size)
    propensity = rng.beta(2, 8, individuals)
    climate = rng.normal(0, 0.3, periods)
    logit = np.log(propensity[who] / (1 - propensity[who])) + climate[period]
    failed = (rng.random(who.size) < 1 / (1 + np.exp(-logit))).astype(np.float64)
    return pd.DataFrame({"month": period, "licence": 1_000_000 + who, "failed": failed})


def naive_deltas(full: np.ndarray, without: np.ndarray, epsilons, k: int, grid: int = 2000) -> np.ndarray:
    """The baseline: per individual, KDEpy box kernels with per-point bandwidths, truncated, on a grid."""
    from KDEpy import NaiveKDE

    from privrisk.empirical.density import knn_bandwidths

    def fitted(sample):
        y = np.sort(sample)
        h = np.maximum(knn_bandwidths(y, k), 1e-12)
        return NaiveKDE(kernel="box", bw=h / math.sqrt(3)).fit(y), y[0], y[-1]

    kde_p, lo_p, hi_p = fitted(full)
    out = np.zeros((without.shape[0], len(epsilons)))
    for i, row in enumerate(without):
        kde_q, lo_q, hi_q = fitted(row)
        x = np.linspace(min(lo_p, lo_q), max(hi_p, hi_q), grid)
        p = kde_p.evaluate(x) * ((x >= lo_p) & (x <= hi_p))
        q = kde_q.evaluate(x) * ((x >= lo_q) & (x <= hi_q))
        p, q = p / np.trapezoid(p, x), q / np.trapezoid(q, x)
        for e, eps in enumerate(epsilons):
            f = math.exp(eps)
            out[i, e] = max(
                np.trapezoid(np.maximum(p - f * q, 0), x), np.trapezoid(np.maximum(q - f * p, 0), x)
            )
    return out


def chicago_case(folder: Path, individuals: int, periods: int, subset: int) -> dict:
    from privrisk.empirical.deltas import aggregate_pairs, answers
    from privrisk.empirical.measure import empirical_privacy
    from privrisk.io.data import read_table

    path = folder / "chicago_shape.parquet"
    panel(individuals, periods, seed=1).to_parquet(path)
    eps = [0.03, 0.1, 0.3]

    start = time.perf_counter()
    frame = read_table(path, ["month", "licence", "failed"])
    result = empirical_privacy(
        frame, period="month", individual="licence", query="rate", value="failed", epsilons=eps
    )
    ours = time.perf_counter() - start

    start = time.perf_counter()
    cmd = [
        str(Path(sys.executable).with_name("privrisk")),
        "empirical",
        str(path),
        "--period",
        "month",
        "--individual",
        "licence",
        "--query",
        "rate",
        "--value",
        "failed",
        "--json",
    ]
    doc = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    command = time.perf_counter() - start
    assert doc["individuals"] == individuals and doc["periods"] == periods

    # the same first `subset` individuals, by both methods
    codes, labels = pd.factorize(frame["licence"], sort=False)
    per_codes, _ = pd.factorize(frame["month"], sort=True)
    pairs = aggregate_pairs(codes, per_codes, frame["failed"].to_numpy(float), np.ones(len(frame)), periods)
    full = answers("rate", pairs.totals_rows, pairs.totals_value, pairs.totals_weight)
    keep = pairs.individual < subset
    answer = answers(
        "rate",
        pairs.totals_rows[pairs.period[keep]] - pairs.rows[keep],
        pairs.totals_value[pairs.period[keep]] - pairs.value[keep],
        pairs.totals_weight[pairs.period[keep]] - pairs.weight[keep],
    )
    without = np.broadcast_to(full, (subset, periods)).copy()
    without[pairs.individual[keep], pairs.period[keep]] = answer
    start = time.perf_counter()
    naive = naive_deltas(full, without, eps, result.k)
    naive_time = time.perf_counter() - start
    ours_sub = result.individuals.set_index("individual").loc[
        labels[:subset], [f"delta_{e:.6g}" for e in eps]
    ]
    agreement = float(np.max(np.abs(ours_sub.to_numpy() - naive)))
    per_naive = naive_time / subset
    per_ours = ours / individuals
    return {
        "table_seconds": ours,
        "command_seconds": command,
        "naive_subset": subset,
        "naive_seconds": naive_time,
        "naive_extrapolated_seconds": per_naive * individuals,
        "speedup": per_naive / per_ours,
        "max_abs_difference_vs_naive_grid": agreement,
        "summary": result.summary.to_dict(orient="records"),
    }


def big_case(individuals: int, periods: int, previous: bool = False) -> dict:
    """Run in a fresh process so that its peak memory is its own."""
    from privrisk.empirical import density
    from privrisk.empirical.measure import empirical_privacy

    if previous:  # before the windows: every row on the merged breakpoints of both densities
        density._WINDOWED = False

    start = time.perf_counter()
    frame = panel(individuals, periods, seed=2, mean_visits=2.0)
    made = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    result = empirical_privacy(
        frame,
        period="month",
        individual="licence",
        query="rate",
        value="failed",
        epsilons=[0.03, 0.1, 0.3],
        chunk_size=1024,
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "rows": len(frame),
        "generate_seconds": made,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "footprints": result.footprints,
        "peak_memory_gib": peak_kib / 2**20,
        "delta": result.summary["delta"].tolist(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument(
        "--big-only",
        nargs=3,
        type=int,
        metavar=("INDIVIDUALS", "PERIODS", "PREVIOUS"),
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args()
    if args.big_only:
        print(json.dumps(big_case(args.big_only[0], args.big_only[1], bool(args.big_only[2]))))
        return
    individuals, periods, subset = (3000, 60, 40) if args.quick else (32036, 117, 200)
    big_size = (20_000, 365) if args.quick else (1_000_000, 365)
    with tempfile.TemporaryDirectory() as tmp:
        c = chicago_case(Path(tmp), individuals, periods, subset)
    print(f"{periods} periods × {individuals:,} individuals, rate, three ε, from Parquet:")
    print(f"  privrisk (library, read + measure): {c['table_seconds']:.2f} s   (target ≤ 5 s)")
    print(f"  privrisk empirical --json (process): {c['command_seconds']:.2f} s")
    print(
        f"  naive KDEpy NaiveKDE loop: {c['naive_seconds']:.2f} s for {c['naive_subset']} individuals "
        f"→ {c['naive_extrapolated_seconds']:.0f} s extrapolated to all"
    )
    print(f"  speed-up per individual: {c['speedup']:.0f}×   (target ≥ 30×)")
    print(f"  largest |δᵢ ours − δᵢ naive grid| on the subset: {c['max_abs_difference_vs_naive_grid']:.2g}")
    for row in c["summary"]:
        print(f"    ε = {row['epsilon']:<5g} δ = {row['delta']:.4g}   δ* = {row['total_risk']:.3g}")
    env = dict(os.environ)

    def big(individuals: int, periods: int, previous: bool = False) -> dict:
        cmd = [sys.executable, __file__, "--big-only", str(individuals), str(periods), str(int(previous))]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)

    load = os.getloadavg()
    b, o = big(*big_size), big(*big_size, previous=True)
    print(
        f"{big_size[1]} periods × {big_size[0]:,} individuals ({b['rows']:,} rows, {b['footprints']:,} footprints), "
        f"chunks; load average {load[0]:.1f} on {os.cpu_count()} cores (wall time is only meaningful when quiet):"
    )
    for name, r in (("privrisk (windows)", b), ("old path (merged)", o)):
        print(
            f"  {name}: CPU {r['cpu_seconds']:.1f} s, wall {r['seconds']:.1f} s (+ {r['generate_seconds']:.1f} s "
            f"to generate), peak memory {r['peak_memory_gib']:.2f} GiB"
        )
    gap = max(abs(x - y) for x, y in zip(b["delta"], o["delta"], strict=True))
    print(
        f"  old / ours: {o['cpu_seconds'] / b['cpu_seconds']:.2f}× in CPU time, {o['seconds'] / b['seconds']:.2f}× "
        f"in wall time; largest |δ difference| {gap:.1g}   (issue 14: ≤ 20 s; before: 57 s, 0.56 GiB)"
    )


if __name__ == "__main__":
    main()
