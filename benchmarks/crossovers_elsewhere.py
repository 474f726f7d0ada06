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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from local_bounds import _switched

import privrisk.solver as solver


def main() -> None:
    _switched(__doc__ or "", lambda on: setattr(solver, "ELSEWHERE", on), "crossovers in the threads",
              "crossovers in processes of their own")


if __name__ == "__main__":
    main()
