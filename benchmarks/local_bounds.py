"""Benchmark: the large request's differencing with outer bounds from the equations around each total, against the
same code without them, in one run.

The request is ``benchmarks/outputs.py``'s large one (10⁶ records, 200 outputs, 10⁵ atoms); only its differencing
is timed. The baseline sets ``privrisk.outputs.extremes.LOCAL_BOUNDS`` to False: every end a sum's p % rule still
asks for is proven by a programme over its whole block. With the bounds, an end whose bound over the equations
around its total already lies within the protection is decided by that bound. The script says whether both find
the same groups, and how many reported ends differ (a bound from the equations around a total is never narrower
than the exact end, and each interval is compared with the baseline's).

Run: .venv/bin/python benchmarks/local_bounds.py [--quick]   (--quick: 300 records of a small survey, every tenth output)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from side_by_side import _findings, _request

import privrisk.outputs.extremes as extremes
import privrisk.solver as solver


def _compare(before: list[dict], after: list[dict]) -> tuple[bool, int, int]:
    """Whether both found the same groups; how many interval ends are narrower and wider than the baseline's."""
    key = lambda f: (f["type"], f["group"], f.get("magnitude") or "")  # noqa: E731
    old = {key(f): f for f in before}
    new = {key(f): f for f in after}
    narrower = wider = 0
    for k in set(old) & set(new):
        for end, sign in (("lo", 1.0), ("hi", -1.0)):
            gap = (new[k][end] - old[k][end]) * sign
            tol = 1e-9 * max(1.0, abs(old[k][end]))
            narrower += gap > tol
            wider += gap < -tol
    return set(old) == set(new), narrower, wider


def _switched(doc: str, switch: Callable[[bool], None], off: str, on: str) -> None:
    """The request of the command line (``doc`` its help) with ``switch(False)`` (the baseline, ``off``) and then
    ``switch(True)`` (``on``), in one run: both times, the ratio, and whether both find the same groups with the
    same equations, and how many interval ends differ."""
    levels, records, step = _request(doc)
    threads = solver.SIDE_BY_SIDE_THREADS
    switch(False)
    w1, c1, f1, u1 = _findings(levels, records, step, threads)
    print(f"{off} (baseline): {w1:.1f} s wall, {c1:.1f} s CPU; {len(f1)} findings, {u1} undecided", flush=True)
    switch(True)
    w2, c2, f2, u2 = _findings(levels, records, step, threads)
    # The CPU of processes of privrisk's own (privrisk._workers) counts once they have ended.
    from privrisk import _workers

    _workers.stop()
    children = os.times().children_user + os.times().children_system
    print(f"{on}: {w2:.1f} s wall, {c2:.1f} s CPU here and {children:.1f} s in processes of its own; {len(f2)} "
          f"findings, {u2} undecided")  # fmt: skip
    same, narrower, wider = _compare(f1, f2)
    key = lambda f: (f["type"], f["group"], f.get("magnitude") or "")  # noqa: E731
    rows = {key(f): tuple(f["rows"]) for f in f1} == {key(f): tuple(f["rows"]) for f in f2}
    print(f"baseline / {on} = {w1 / w2:.2f}× wall, {c1 / c2:.2f}× CPU here; the same groups found: {same}, with "
          f"the same equations: {rows}; interval ends narrower than the baseline's: {narrower}, wider: {wider}")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    levels, records, step = _request(__doc__ or "")
    threads = solver.SIDE_BY_SIDE_THREADS
    extremes.LOCAL_BOUNDS = False
    w1, c1, f1, u1 = _findings(levels, records, step, threads)
    print(f"every end by its block's programme (baseline): {w1:.1f} s wall, {c1:.1f} s CPU; {len(f1)} findings, "
          f"{u1} undecided", flush=True)  # fmt: skip
    extremes.LOCAL_BOUNDS = True
    w2, c2, f2, u2 = _findings(levels, records, step, threads)
    print(
        f"with the bounds around each total: {w2:.1f} s wall, {c2:.1f} s CPU; {len(f2)} findings, {u2} undecided"
    )
    same, narrower, wider = _compare(f1, f2)
    print(f"baseline / with the bounds = {w1 / w2:.2f}× wall, {c1 / c2:.2f}× CPU; the same groups found: {same}; "
          f"interval ends narrower than the baseline's: {narrower}, wider: {wider}")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
