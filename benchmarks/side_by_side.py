"""Benchmark: the large request's differencing with its programmes side by side, against one thread, in one run.

The request is ``benchmarks/outputs.py``'s large one (10⁶ records, 200 outputs, 10⁵ atoms); only its differencing
is timed (the atoms, the released system and every finding), not the remedies' audits. The baseline is the same
code with ``privrisk.solver.SIDE_BY_SIDE_THREADS`` set to 1 (every programme one after another); the two runs must
give the same findings, intervals and named equations, and the script says whether they did.

Run: .venv/bin/python benchmarks/side_by_side.py [--quick]   (--quick: 300 records of a small survey, every tenth output)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import outputs as bench
import privrisk.solver as solver
from privrisk.outputs import parse_spec
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import LINEAR, difference
from privrisk.outputs.policy import Policy

LARGE = {"region": 50, "sex": 2, "ageband": 10, "edu": 5, "occ": 5}


def _run(levels: dict[str, int], records: int, step: int, threads: int) -> tuple[float, float, str, int, int]:
    """The differencing's wall and CPU seconds, its findings (as JSON, in a fixed order), and how many it found and
    left undecided (:func:`_findings` gives the findings themselves)."""
    wall, cpu, findings, undecided = _findings(levels, records, step, threads)
    found = json.dumps(sorted(findings, key=lambda f: (f["type"], f["group"], f.get("magnitude") or "")),
                       sort_keys=True, default=str)  # fmt: skip
    return wall, cpu, found, len(findings), undecided


def _findings(
    levels: dict[str, int], records: int, step: int, threads: int
) -> tuple[float, float, list, int]:
    solver.SIDE_BY_SIDE_THREADS = threads
    frame = bench.make_data(records, levels)
    parsed = parse_spec(bench.to_toml(bench.large_specs()[::step]))
    con = connect(frame)
    linear = [(s, table_cells(con, s, Policy())) for s in parsed if s.kind in LINEAR]
    wall, cpu = time.perf_counter(), time.process_time()
    diff = difference(con, linear, Policy(), knowledge=parsed.knowledge)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, diff.findings, diff.undecided


def _request(doc: str) -> tuple[dict[str, int], int, int]:
    """The command line's request (``--quick``: 300 records of a small survey, every tenth output): its levels, its
    records and the step through the outputs; the machine's load printed."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="300 records of a small survey, every tenth output: a smoke run"
    )
    args = parser.parse_args()
    records, step = (300, 10) if args.quick else (1_000_000, 1)
    # --quick: remedy_audits.py's small survey (2 regions, 3 age bands, 2 levels of education and occupation)
    levels = dict(region=2, sex=2, ageband=3, edu=2, occ=2) if args.quick else LARGE
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"load average {os.getloadavg()[0]:.1f} on {cores} cores; {records:,} records, the large request's outputs"
    )
    return levels, records, step


def main() -> None:
    levels, records, step = _request(__doc__ or "")
    default = solver.SIDE_BY_SIDE_THREADS
    w1, c1, f1, n1, u1 = _run(levels, records, step, 1)
    print(
        f"one thread (baseline): {w1:.1f} s wall, {c1:.1f} s CPU; {n1} findings, {u1} undecided", flush=True
    )
    w2, c2, f2, n2, u2 = _run(levels, records, step, default)
    print(
        f"side by side (up to {default} threads): {w2:.1f} s wall, {c2:.1f} s CPU; {n2} findings, {u2} undecided"
    )
    print(
        f"one thread / side by side = {w1 / w2:.2f}× wall; the same findings, intervals and equations: {f1 == f2}"
    )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
