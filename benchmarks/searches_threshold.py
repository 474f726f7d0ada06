"""Benchmark: the differencing with the searches for points before the programmes, against the programmes alone,
at several sizes, in one run: where ``privrisk.outputs.extremes.SEARCHES_FROM`` lies.

The requests are every fifth of ``benchmarks/outputs.py``'s large outputs over sparse files of 2,880 to 17,280
atoms (the full run, several minutes), or every tenth over 300 records of a small survey (``--quick``). The
baseline sets ``SEARCHES_FROM`` to 0 (more moves, walks, programmes around the moves and over sub-tables before
the programmes, at any size, as before 2026-12-02); then to 10¹² (the exact programmes alone). Printed per size:
both times, the ratio, and whether both find the same groups with 0 undecided.

Run: .venv/bin/python benchmarks/searches_threshold.py [--quick]   (--quick: 300 records of a small survey)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from local_bounds import _compare
from side_by_side import _findings

import privrisk.outputs.extremes as extremes
import privrisk.solver as solver

# (records, levels, every n-th output) of the full run: sparse files, most atoms holding a person or two.
SIZES = [
    (4_000, dict(region=4, sex=2, ageband=6, edu=3, occ=5), 5),
    (8_000, dict(region=5, sex=2, ageband=8, edu=3, occ=6), 5),
    (30_000, dict(region=6, sex=2, ageband=10, edu=3, occ=12), 5),
]
QUICK = [(300, dict(region=2, sex=2, ageband=3, edu=2, occ=2), 10)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 records of a small survey: a smoke run")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; SEARCHES_FROM as shipped: "
          f"{extremes.SEARCHES_FROM:,} unknowns")  # fmt: skip
    shipped = extremes.SEARCHES_FROM
    try:
        for records, levels, step in QUICK if args.quick else SIZES:
            extremes.SEARCHES_FROM = 0
            w1, c1, f1, u1 = _findings(levels, records, step, solver.SIDE_BY_SIDE_THREADS)
            extremes.SEARCHES_FROM = 10**12
            w2, c2, f2, u2 = _findings(levels, records, step, solver.SIDE_BY_SIDE_THREADS)
            same, _, _ = _compare(f1, f2)
            cells = 1
            for k in levels.values():
                cells *= k
            print(f"{records:,} records, {cells:,} cells of the key variables: with the searches (baseline) "
                  f"{w1:.1f} s wall, {c1:.1f} s CPU; the programmes alone {w2:.1f} s wall, {c2:.1f} s CPU; "
                  f"baseline / alone = {w1 / w2:.2f}× wall; {len(f2)} findings, undecided {u1} and {u2}; the same "
                  f"groups found: {same}", flush=True)  # fmt: skip
    finally:
        extremes.SEARCHES_FROM = shipped
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
