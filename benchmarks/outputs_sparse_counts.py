"""Benchmark: the count findings of a typical request over a small survey (most groups hold a few people).

The typical request of ``benchmarks/outputs.py`` (20 count tables by pairs of region, sex, age band and education,
and their conditions) over ``--records`` records (default 300) of 8 regions, 2 sexes, 10 age bands and 4 levels of
education: 1,920 atoms, most groups between 1 and 9 people. A group is a finding when every whole solution keeps
it within [1, 9]; to show that it is not, a whole table that empties it or takes it to 10 is enough, and where the
linear vertices are fractional each end's own programme is an integer one (about a second each here).

Both sides run the whole differencing in the same process, on the same data. Ours, run to its end: the whole
solutions met by the empty atoms' programmes are read for every later total (``Region.found``), whole tables from
the root of each block's integer programme settle many ends at once (``Region.whole_points``), and an end whose
rounded linear bound a solution already met reaches needs no integer programme. The baseline: none of these (the
code before 2026-11-30, evening); its ends left to a programme of their own are counted, ``--naive-sample`` of
them timed and the rest multiplied out (at the default size it took more than 20 minutes in all).

Prints, per side, the CPU time besides the programmes per end, how many there are, the total (the baseline's
estimated), and the ratio.

Run: .venv/bin/python benchmarks/outputs_sparse_counts.py [--records N] [--naive-sample K] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import outputs as bench  # the typical request's data and outputs
import privrisk.outputs.differencing as differencing
import privrisk.outputs.extremes as extremes
from privrisk.outputs.intervals import Region
from privrisk.outputs.policy import Policy


def side(con: Any, linear: list, policy: Policy, *, ours: bool, sample: int) -> tuple[float, int, float, int]:
    """(CPU up to and around the programmes per end, their count, CPU of the ones timed, how many were timed)."""
    real = Region.optimise
    state = {"ends": 0, "timed": 0, "spent": 0.0}

    def optimise(self: Region, idx: Any, val: Any, sign: float, **kwargs: Any) -> Any:
        if "cap" in kwargs:  # the linear rounds over all ends: part of both sides
            return real(self, idx, val, sign, **kwargs)
        state["ends"] += 1
        if not ours:
            kwargs.pop("met", None)  # the code before did not read the end's best value met
        if ours or state["timed"] < sample:
            t0 = bench.cpu_seconds()
            out = real(self, idx, val, sign, **kwargs)
            state["spent"] += bench.cpu_seconds() - t0
            state["timed"] += 1
            return out
        return float("nan"), False, False, [], set()  # the baseline's, left undecided: timed on the sample

    saved = (extremes.FOUND, extremes.WHOLE_ROUNDS)
    if not ours:
        extremes.FOUND, extremes.WHOLE_ROUNDS = 0, 0
    Region.optimise = optimise  # type: ignore[method-assign]
    t0 = bench.cpu_seconds()
    try:
        differencing.difference(con, linear, policy)
    finally:
        Region.optimise = real  # type: ignore[method-assign]
        extremes.FOUND, extremes.WHOLE_ROUNDS = saved
    total = bench.cpu_seconds() - t0 - state["spent"]
    return total, int(state["ends"]), float(state["spent"]), int(state["timed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--naive-sample", type=int, default=20, help="programmes per end the baseline is timed on")
    parser.add_argument("--quick", action="store_true", help="100 records of fewer levels (for the tests)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    levels = (
        {"region": 2, "sex": 2, "ageband": 3, "edu": 2}
        if args.quick
        else {"region": 8, "sex": 2, "ageband": 10, "edu": 4}
    )
    n = 100 if args.quick else args.records
    sample = 4 if args.quick else args.naive_sample
    policy = Policy()
    con, linear = bench.linear_tables(bench.make_data(n, levels), bench.typical_specs(), policy)
    results = {}
    for name, ours in (("ours", True), ("baseline", False)):
        before, ends, spent, timed = side(con, linear, policy, ours=ours, sample=sample)
        each = spent / max(1, timed)
        results[name] = before + each * ends
        how = "run to its end" if ours else f"timed on {timed}, the rest multiplied out"
        print(f"{name}: {before:.1f} s CPU besides the programmes per end; {ends:,} programmes per end, "
              f"{each:.2f} s CPU each ({how}): {results[name]:,.0f} s CPU in all")  # fmt: skip
    print(f"{n:,} records; ratio ≈ {results['baseline'] / max(results['ours'], 1e-9):,.1f}×")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
