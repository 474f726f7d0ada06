"""Benchmark of the sampling study (issue 3, part 4): privrisk against the plain loop, and the floor.

The case of the issue: a universe of N = 1,000,000 survey-like values (whole numbers, a long upper tail, about two
thousand distinct values, like an income in $100s), 20 sample proportions, 100 repetitions, the 7 queries count,
sum, mean, median, min, max, variance, 6 values of ε.

- privrisk: ``sampling_study`` end to end (samples, exact local sensitivities, the risks, the tidy table), run in a
  child process so that its peak memory (max RSS, the interpreter included) is its own.
- floor: drawing the samples themselves, one permutation of N per repetition (what the study draws).
- naive: a Python loop over samples that draws each sample with ``rng.choice(N, m, replace=False)`` and
  evaluates every candidate neighbour of every query with numpy (add the universe's smallest, largest and
  nearest-to-the-mean value; remove the smallest, largest and nearest-to-the-mean record), timed on a few
  repetitions and scaled to all of them.

Run: ``python benchmarks/study.py`` (the issue's case) or ``python benchmarks/study.py --quick`` (a smoke run of
both cases at N = 20,000). Add ``--continuous`` for data with every value distinct (lognormal incomes, issue 14
part 2): privrisk then takes the order statistics of the prefixes from rank counts, and the previous way, merging
sorted prefixes, is timed in the same run beside it (with its peak memory). Add ``--cli`` to time, as a user runs
it, ``python -m privrisk study incomes.parquet -c income -q … -p … --out …`` on the same values written to a
Parquet file (reading, the study, the figures and the report included).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance"]
EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]


def make_values(n: int, continuous: bool = False, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    income = rng.lognormal(5.0, 0.8, n)
    return income if continuous else np.round(income).clip(0, 2500)


def proportions(count: int = 20) -> np.ndarray:
    return np.round(np.linspace(1 / count, 1.0, count), 4)


# ------------------------------------------------------------------------------------------- privrisk (child)
def run_privrisk(n: int, reps: int, continuous: bool, previous: bool = False) -> dict:
    import privrisk.study.sampling as sampling
    from privrisk.study.sampling import sampling_study

    if previous:  # the way before issue 14: sort every prefix by merging the previous one with the new chunk
        sampling._block_by_ranks = lambda drawn, ranked, *rest: sampling._block_by_sorting(
            drawn, ranked.sorted_values, *rest
        )
    values = make_values(n, continuous)
    start, cpu = time.perf_counter(), time.process_time()
    table = sampling_study(
        {"income": values},
        queries=QUERIES,
        epsilons=EPSILONS,
        proportions=proportions(),
        repetitions=reps,
        seed=1,
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kilobytes
    return {"seconds": seconds, "cpu_seconds": cpu, "rows": len(table), "peak_bytes": peak}


# ------------------------------------------------------------------------------------------- floor
def floor_seconds(values: np.ndarray, reps: int) -> float:
    """One permutation of N per repetition, as the study draws them."""
    from privrisk.study._samples import code_values, draw_block

    _, codes = code_values(values)
    start = time.perf_counter()
    for r in range(reps):
        draw_block(codes, codes.size, 1, "income", range(r, r + 1))
    return time.perf_counter() - start


# ------------------------------------------------------------------------------------------- naive
def _f(query: str, x: np.ndarray) -> float:
    return {
        "count": lambda a: float(a.size),
        "sum": np.sum,
        "mean": np.mean,
        "median": np.median,
        "min": np.min,
        "max": np.max,
        "variance": np.var,
    }[query](x)


def naive_local_sensitivity(query: str, sample: np.ndarray, universe: np.ndarray) -> float:
    """Evaluate f on every candidate neighbour with numpy (the exact candidates, see privrisk.sensitivity)."""
    base = _f(query, sample)
    mu = sample.mean()
    nearest_u = universe[np.argmin(np.abs(universe - mu))]
    candidates = [
        np.append(sample, universe[0]),
        np.append(sample, universe[-1]),
        np.append(sample, nearest_u),
    ]
    if sample.size > 1:
        for i in (np.argmin(sample), np.argmax(sample), np.argmin(np.abs(sample - mu))):
            candidates.append(np.delete(sample, i))
    return max(abs(_f(query, c) - base) for c in candidates)


def naive_seconds(values: np.ndarray, reps: int) -> float:
    from privrisk.risk import global_risk, many_worlds, two_worlds
    from privrisk.sensitivity import global_sensitivity

    rng = np.random.default_rng(1)
    universe = np.unique(values)
    gs = {q: global_sensitivity(q, universe) for q in QUERIES}
    eps = np.asarray(EPSILONS)
    rows = []
    start = time.perf_counter()
    for r in range(reps):
        for p in proportions():
            m = int(np.floor(p * values.size + 0.5))
            sample = values[rng.choice(values.size, m, replace=False)]
            for q in QUERIES:
                ratio = naive_local_sensitivity(q, sample, universe) / gs[q]
                rows.append((r, p, q, many_worlds(eps, m, ratio), two_worlds(eps, ratio), global_risk(eps)))
    return time.perf_counter() - start


# ------------------------------------------------------------------------------------------- children
def child(n: int, reps: int, continuous: bool, previous: bool = False) -> dict:
    """``sampling_study`` in a fresh process, so that its peak memory is its own."""
    flags = ["1" if continuous else "0", "1" if previous else "0"]
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(n), str(reps), *flags],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cli_seconds(values: np.ndarray, reps: int) -> float:
    """``privrisk study`` on a Parquet file of the values, end to end, in a fresh process."""
    import tempfile
    from pathlib import Path

    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "incomes.parquet"
        pd.DataFrame({"income": values}).to_parquet(path)
        command = [sys.executable, "-m", "privrisk", "study", str(path), "-c", "income", "-q", ",".join(QUERIES),
                   "-e", ",".join(map(str, EPSILONS)), "-p", ",".join(map(str, proportions())),
                   "-r", str(reps), "--out", str(Path(tmp) / "out")]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, text=True, check=True)
        return time.perf_counter() - start


# ------------------------------------------------------------------------------------------- main
def run_case(n: int, reps: int, continuous: bool, naive_reps: int, cli: bool) -> None:
    values = make_values(n, continuous)
    kind = "continuous" if continuous else f"{np.unique(values).size:,} distinct values"
    print(f"sampling study: N = {n:,} ({kind}), {proportions().size} proportions, {reps} repetitions, "
          f"{len(QUERIES)} queries, {len(EPSILONS)} ε")  # fmt: skip
    ours = child(n, reps, continuous)
    previous = child(n, reps, continuous, previous=True) if continuous else None
    floor = floor_seconds(values, reps)
    naive_measured = naive_seconds(values, naive_reps)
    naive = naive_measured * reps / naive_reps

    print(f"privrisk  sampling_study     {ours['seconds']:8.2f} s   (CPU {ours['cpu_seconds']:.2f} s; "
          f"{ours['rows']:,} rows, peak memory {ours['peak_bytes'] / 2**30:.2f} GiB)")  # fmt: skip
    if previous is not None:
        print(f"previous  sorted prefixes    {previous['seconds']:8.2f} s   (CPU {previous['cpu_seconds']:.2f} s; "
              f"peak memory {previous['peak_bytes'] / 2**30:.2f} GiB; privrisk is "
              f"{previous['seconds'] / ours['seconds']:.1f}× faster, {previous['cpu_seconds'] / ours['cpu_seconds']:.1f}× "
              f"in CPU time)")  # fmt: skip
    print(
        f"floor     {reps} permutations of N {floor:8.2f} s   (privrisk is {ours['seconds'] / floor:.2f}× the floor)"
    )
    print(f"naive     Python loop        {naive:8.2f} s   (measured {naive_measured:.2f} s on {naive_reps} "
          f"repetition{'s' if naive_reps > 1 else ''}, scaled to {reps})")  # fmt: skip
    print(f"speed-up  naive / privrisk   {naive / ours['seconds']:8.1f}×")
    if cli:
        print(f"end to end  privrisk study FILE.parquet  {cli_seconds(values, reps):8.2f} s   (reading, study, "
              f"figures, report)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="N = 20,000, 10 repetitions, both cases (smoke run)"
    )
    parser.add_argument("--continuous", action="store_true", help="all values distinct: the sorting fallback")
    parser.add_argument("--naive-reps", type=int, default=None, help="repetitions the naive loop is timed on")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--cli", action="store_true", help="also time `privrisk study` on a Parquet file")
    args = parser.parse_args()
    if args.child:
        n, reps, cont, prev = (
            int(args.child[0]),
            int(args.child[1]),
            args.child[2] == "1",
            args.child[3] == "1",
        )
        print(json.dumps(run_privrisk(n, reps, cont, prev)))
        return

    # Quick: N = 20,000 keeps each case on its path (histograms; rank counts, as K·D > 4N + 65,536).
    n, reps = (20_000, 10) if args.quick else (1_000_000, 100)
    naive_reps = args.naive_reps or (1 if args.quick else 2)
    # The quick run smoke-tests both ways: histograms (survey-coded) and rank counts (continuous).
    for continuous in (False, True) if args.quick else (args.continuous,):
        run_case(n, reps, continuous, naive_reps, args.cli)


if __name__ == "__main__":
    main()
