"""Benchmark: which empty atoms a typical request over a small survey determines (most atoms are empty).

The typical request of ``benchmarks/outputs.py`` (20 count tables by pairs of region, sex, age band and education,
and their conditions) over ``--records`` records (default 2,000) of the same four variables (42 regions, 2 sexes,
10 age bands, 4 levels of education): 10,080 atoms, most of them empty, most cells below the threshold and
suppressed. Whether each empty atom could hold someone, and whether each small group could be emptied or taken to
the threshold, are questions of whole numbers: the linear optimum is fractional, and an integer programme per
question costs seconds.

Both sides start from the released system the differencing builds. Ours:
:func:`privrisk.outputs.findings.zero_atoms`, whose integer programmes ask all empty atoms of a block at once
(:mod:`privrisk.outputs.reach`). The baseline, in the same run: the empty atoms no move fills asked one at a time as
before (a linear programme, then whole vertices, then an integer programme each), timed on ``--naive-sample``
atoms and multiplied out. (The groups' counts are still asked one end at a time, and at this size take long: not
timed here.)

Prints the CPU time of each side, their ratio, and how many atoms are determined empty or left undecided.

Run: .venv/bin/python benchmarks/outputs_sparse.py [--records N] [--naive-sample K] [--quick]
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import outputs as bench  # the typical request's data and outputs
import privrisk.outputs.differencing as differencing
from privrisk.outputs.extremes import _valid
from privrisk.outputs.policy import Policy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=2_000)
    parser.add_argument("--naive-sample", type=int, default=4, help="empty atoms the baseline is timed on")
    parser.add_argument("--quick", action="store_true", help="300 records of fewer levels (for the tests)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    levels = (
        {"region": 8, "sex": 2, "ageband": 5, "edu": 4}
        if args.quick
        else {"region": 42, "sex": 2, "ageband": 10, "edu": 4}
    )
    n = 300 if args.quick else args.records
    policy = Policy()
    con, linear = bench.linear_tables(bench.make_data(n, levels), bench.typical_specs(), policy)

    # The baseline: the region the differencing builds, its empty atoms asked one at a time.
    caught: dict[str, object] = {}

    def catch(region: object, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        caught["region"], caught["truth"] = region, truth
        raise KeyboardInterrupt  # out of the differencing, with its region

    real = differencing.zero_atoms
    differencing.zero_atoms = catch  # type: ignore[assignment]
    try:
        differencing.difference(con, linear, policy)
    except KeyboardInterrupt:
        pass
    finally:
        differencing.zero_atoms = real
    region, truth = caught["region"], caught["truth"]
    assert isinstance(truth, np.ndarray)
    fresh = copy.deepcopy(
        region
    )  # the baseline's own copy: programmes change a region (its budget, its bases)

    # Ours: every empty atom asked at once, a block's integer programme a round.
    t0, w0 = bench.cpu_seconds(), time.perf_counter()
    zero, unsure = differencing.zero_atoms(region, truth)  # type: ignore[arg-type]
    ours, ours_wall = bench.cpu_seconds() - t0, time.perf_counter() - w0
    print(f"{n:,} records, {truth.size:,} atoms, {int((truth == 0).sum()):,} empty: ours {ours:.1f} s CPU "
          f"({ours_wall:.1f} s wall), {int(zero.sum()):,} determined empty, {int(unsure.sum())} undecided")  # fmt: skip
    region = fresh
    ask = (truth == 0) & (region.hi[: truth.size] > 0)  # type: ignore[attr-defined]
    moves = _valid(region, region.moves)  # type: ignore[arg-type, attr-defined]
    ask &= ~(
        np.asarray((moves[:, : truth.size] > 0).sum(axis=0)).ravel() > 0
    )  # those a move fills are not asked
    ask = np.flatnonzero(ask)
    sample = np.random.default_rng(0).choice(ask, size=min(args.naive_sample, ask.size), replace=False)
    t0 = bench.cpu_seconds()
    for j in sample.tolist():
        region.optimise(np.array([j]), np.array([1.0]), -1.0)  # type: ignore[attr-defined]
    each = (bench.cpu_seconds() - t0) / max(1, sample.size)
    naive = each * ask.size
    print(f"baseline: {ask.size:,} empty atoms asked one at a time, {each:.2f} s CPU each (timed on {sample.size}): "
          f"≈ {naive:,.0f} s CPU for the atoms alone")  # fmt: skip
    print(
        f"ratio ≈ {naive / max(ours, 1e-9):,.1f}×"
    )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
