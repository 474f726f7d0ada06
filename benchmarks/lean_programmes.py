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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from local_bounds import _switched

import privrisk.solver as solver


def main() -> None:
    _switched(__doc__ or "", lambda on: setattr(solver, "LEAN_ROWS", on), "every row kept",
              "rows combining the rest left out")


if __name__ == "__main__":
    main()
