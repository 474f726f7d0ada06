"""Benchmark: the large request's differencing with HiGHS's crossovers in processes of their own, against the same
code crossing over in its own threads, in one run.

The request is ``benchmarks/outputs.py``'s large one (10⁶ records, 200 outputs, 10⁵ atoms); only its differencing
is timed. HiGHS's crossover, which finds the vertex next to the truth that a programme starts from, holds Python's
interpreter lock while it runs. The baseline sets ``privrisk.solver.ELSEWHERE`` to False: every crossover runs in
the thread that asks for it, and every other thread's Python waits. With it, each large block of sums has its
crossover begun in a process of its own when the Region is built (it runs while the count findings do), and each
sub-table's crossover is sent to such a process while the thread waits without the lock. The script says whether
both find the same groups with the same equations, and how many interval ends differ.

Run: .venv/bin/python benchmarks/crossovers_elsewhere.py [--quick]   (--quick: 300 records of a small survey, every tenth output)
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
    solver.ELSEWHERE = False
    w1, c1, f1, u1 = _findings(levels, records, step, threads)
    print(f"crossovers in the threads (baseline): {w1:.1f} s wall, {c1:.1f} s CPU; {len(f1)} findings, "
          f"{u1} undecided", flush=True)  # fmt: skip
    solver.ELSEWHERE = True
    w2, c2, f2, u2 = _findings(levels, records, step, threads)
    # The processes' own CPU is not this process's: it is counted by the children's times, once they have ended.
    from privrisk import _workers

    _workers.stop()
    children = os.times().children_user + os.times().children_system
    print(f"crossovers in processes of their own: {w2:.1f} s wall, {c2:.1f} s CPU here and {children:.1f} s in "
          f"them; {len(f2)} findings, {u2} undecided")  # fmt: skip
    same, narrower, wider = _compare(f1, f2)
    key = lambda f: (f["type"], f["group"], f.get("magnitude") or "")  # noqa: E731
    rows = {key(f): tuple(f["rows"]) for f in f1} == {key(f): tuple(f["rows"]) for f in f2}
    print(f"baseline / elsewhere = {w1 / w2:.2f}× wall; the same groups found: {same}, with the same equations: "
          f"{rows}; interval ends narrower than the baseline's: {narrower}, wider: {wider}")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
