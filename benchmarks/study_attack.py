"""Benchmark of ``privrisk study --attack`` (issue 3, part 3): the batched attack against a loop over samples.

Case (the demo's scale): a survey-like variable of N = 30,000 values (whole numbers with a long upper tail, about
two thousand distinct values, like an income in $100s), the ``auto`` grid of 20 sample proportions, 100
repetitions, the 5 default queries mean, median, min, max, variance, 6 values of ε, 1,000 simulated attacks per
sample.

- privrisk: ``study_attack`` end to end (the study's samples, world answers, exact risk, expected success, the
  simulation, the tidy table), in a child process so that its peak memory (max RSS) is its own.
- naive: a Python loop over the same samples (``study_samples``) that calls ``privrisk.simulate_attack`` per
  sample, query and ε (world answers, exact risk, expected success and 1,000 simulated attacks each), timed on a
  few repetitions and scaled to all of them.
- large samples: the cost of one sample of n = 10⁶ records (7 queries, 6 ε), which ``--attack-max-n`` guards.

Run: ``python benchmarks/study_attack.py`` or ``python benchmarks/study_attack.py --quick`` (a smoke run).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

QUERIES = ["mean", "median", "min", "max", "variance"]
ALL_QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance"]
EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]


def make_values(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.round(rng.lognormal(5.0, 0.8, n)).clip(0, 2500)


def run_privrisk(n: int, reps: int, trials: int, max_n: int | None) -> dict:
    from privrisk.study.attack import study_attack

    values = make_values(n)
    start = time.perf_counter()
    table = study_attack(
        {"income": values}, queries=QUERIES, epsilons=EPSILONS, repetitions=reps, trials=trials, max_n=max_n
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "seconds": seconds,
        "rows": len(table),
        "attacked": int(table["attacked"].sum()),
        "peak_bytes": peak,
    }


def run_large(n: int, reps: int) -> dict:
    from privrisk.study.attack import study_attack

    values = make_values(n)
    start = time.perf_counter()
    study_attack(
        {"income": values}, queries=ALL_QUERIES, epsilons=EPSILONS, proportions=[1.0], repetitions=reps,
        trials=1000, max_n=None,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"seconds": seconds, "peak_bytes": peak}


def naive_seconds(n: int, reps: int, trials: int, max_n: int | None) -> float:
    from privrisk import Universe, global_sensitivity, simulate_attack, study_proportions, study_samples

    values = make_values(n)
    u = Universe.from_values(values)
    gs = {q: global_sensitivity(q, u) for q in QUERIES}
    start = time.perf_counter()
    for r, m, sample in study_samples(
        values, proportions=study_proportions(n), repetitions=reps, name="income"
    ):
        if m < 2 or (max_n is not None and m > max_n):
            continue
        for q in QUERIES:
            for e in EPSILONS:
                simulate_attack(sample, q, e, sensitivity=gs[q], trials=trials, seed=r)
    return time.perf_counter() - start


def child(kind: str, args: dict) -> dict:
    here = str(Path(__file__).resolve().parent)  # not cwd-relative: the script runs from anywhere
    code = f"import json, sys; sys.path.insert(0, {here!r}); import study_attack as b; print(json.dumps(b.{kind}(**{args!r})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    opts = parser.parse_args()
    if opts.quick:
        n, reps, naive_reps, trials, large_n = 3_000, 5, 1, 200, 20_000
    else:
        n, reps, naive_reps, trials, large_n = 30_000, 100, 2, 1_000, 1_000_000
    max_n = 50_000
    ours = child("run_privrisk", {"n": n, "reps": reps, "trials": trials, "max_n": max_n})
    naive = naive_seconds(n, naive_reps, trials, max_n) * reps / naive_reps
    print(f"case: N = {n:,}, 20 proportions (auto), {reps} repetitions, {len(QUERIES)} queries, "
          f"{len(EPSILONS)} ε, {trials:,} trials per sample")  # fmt: skip
    print(f"privrisk study_attack: {ours['seconds']:8.2f} s   ({ours['rows']:,} rows, peak RSS "
          f"{ours['peak_bytes'] / 2**20:,.0f} MiB)")  # fmt: skip
    print(f"naive loop (simulate_attack per sample, query, ε; {naive_reps} repetitions scaled to {reps}): "
          f"{naive:8.2f} s")  # fmt: skip
    print(f"ratio naive / privrisk: {naive / ours['seconds']:.1f}×")
    large = child("run_large", {"n": large_n, "reps": 1})
    # the N = 10⁶ case: 20 proportions 0.05, 0.10, …, 1 sum to 10.5 samples of n = N per repetition
    print(f"estimated: N = {large_n:,}, proportions 0.05 … 1 (Σp = 10.5), 100 repetitions without "
          f"--attack-max-n: about {large['seconds'] * 10.5 * 100:,.0f} s")  # fmt: skip
    print(f"one sample of n = {large_n:,} (7 queries, 6 ε, 1,000 trials): {large['seconds']:.2f} s, peak RSS "
          f"{large['peak_bytes'] / 2**20:,.0f} MiB; at 20 proportions × 100 repetitions the samples near "
          "that size dominate: hence --attack-max-n")  # fmt: skip


if __name__ == "__main__":
    main()
