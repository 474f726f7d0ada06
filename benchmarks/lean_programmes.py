"""Benchmark: the large request's differencing with programmes that leave out rows combining the rest, against the
same code keeping every row, in one run.

The request is ``benchmarks/outputs.py``'s large one (10⁶ records, 200 outputs, 10⁵ atoms); only its differencing
is timed. The baseline sets ``privrisk.solver.LEAN_ROWS`` to False: every sub-table programme keeps each released
row that meets it, every block programme each of its equations, and every move is checked against the released
rows. With it, a sub-table keeps each of its rows once, a block's programmes leave out the equations their vertex
next to the truth leaves to basic slacks (each optimum checked against them), and moves of whole steps of counts are
checked against the equations taken apart. The script says whether both find the same groups with the same
equations, and how many interval ends differ.

Run: .venv/bin/python benchmarks/lean_programmes.py [--quick]   (--quick: 300 records of a small survey, every tenth output)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from local_bounds import _compare
from side_by_side import _findings, _request

import privrisk.solver as solver


def main() -> None:
    levels, records, step = _request(__doc__ or "")
    threads = solver.SIDE_BY_SIDE_THREADS
    solver.LEAN_ROWS = False
    w1, c1, f1, u1 = _findings(levels, records, step, threads)
    print(f"every row kept (baseline): {w1:.1f} s wall, {c1:.1f} s CPU; {len(f1)} findings, {u1} undecided",
          flush=True)  # fmt: skip
    solver.LEAN_ROWS = True
    w2, c2, f2, u2 = _findings(levels, records, step, threads)
    print(f"rows combining the rest left out: {w2:.1f} s wall, {c2:.1f} s CPU; {len(f2)} findings, {u2} undecided")
    same, narrower, wider = _compare(f1, f2)
    key = lambda f: (f["type"], f["group"], f.get("magnitude") or "")  # noqa: E731
    rows = {key(f): tuple(f["rows"]) for f in f1} == {key(f): tuple(f["rows"]) for f in f2}
    print(f"baseline / lean = {w1 / w2:.2f}× wall, {c1 / c2:.2f}× CPU; the same groups found: {same}, with the same "
          f"equations: {rows}; interval ends narrower than the baseline's: {narrower}, wider: {wider}")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
