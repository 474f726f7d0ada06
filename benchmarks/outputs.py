"""Benchmark for output checking: a typical request and a large one, beside ACRO's per-output checks.

1. 20 tables over 10⁶ records (10,080 atoms): counts with margins, filtered counts, means and sums by region, sex,
   age band and education; checked with differencing. Target ≤ 10 s.
2. 200 different outputs over 10⁵ atoms (region × sex × age band × education × occupation: 25,000 cells, × 4
   patterns of 3 nested conditions on age). Target ≤ 2 min,
   memory ≤ 2 GB (peak resident size as the operating system reports it).

Beside each, in the same run, the naive baseline of the differencing audit: for each atom, its least and largest
value by two linear programs over the whole released system (scipy's ``linprog``, HiGHS, a model built from scratch
every time; no blocks, no propagation, no certificates, no warm start, no integer rounding). At 10⁴–10⁵ atoms that
takes hours, so it is timed on ``--naive-sample`` atoms per system (each program given ``--naive-limit`` seconds)
and multiplied out to all atoms; a program stopped by the limit makes the figure a lower bound (printed "≥").
The ratio compares it with privrisk's time for the same intervals (the ``intervals`` calls of the run).

Also beside each, in the same run, ACRO's own per-output checks of the same tables (its pivot_table, no
differencing) when an interpreter with ACRO is given: ``--acro-python PATH`` or $PRIVRISK_ACRO_PYTHON (ACRO pins
pandas ≤ 2.3.3, so it usually lives in a virtual environment of its own). It times ACRO inside that interpreter,
after its import, on the same data file.

Each wall time is printed with the CPU time of the process beside it (DuckDB's threads included), and the load
average at the end: on a shared machine the CPU time is the steadier figure.

Run: .venv/bin/python benchmarks/outputs.py [--quick] [--acro-python PATH] [--only typical|large]
     [--naive-sample K] [--naive-limit SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ACRO_SCRIPT = r"""
import json, logging, sys, time
import pandas as pd
import acro
logging.disable(logging.CRITICAL)
df = pd.read_csv(sys.argv[1])
tables = json.loads(open(sys.argv[2]).read())
session = acro.ACRO(suppress=False)
start = time.perf_counter()
for t in tables:
    data = df.query(t["where"]) if t.get("where") else df
    session.pivot_table(data, index=t["rows"], columns=t.get("columns") or None, values="income",
                        aggfunc="count" if t["kind"] == "count" else t["kind"], margins=bool(t.get("margins")))
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def make_data(n: int, levels: dict[str, int], seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({v: rng.integers(0, k, n).astype("int16") for v, k in levels.items()})
    frame["age"] = rng.integers(0, 90, n).astype("int16")
    frame["income"] = np.round(rng.pareto(1.5, n) * 20000, 2)
    return frame


def typical_specs() -> list[dict]:
    dims = ["region", "sex", "ageband", "edu"]
    specs: list[dict] = []
    for i, (a, b) in enumerate([(a, b) for a in dims for b in dims if a < b]):
        specs.append(
            {"name": f"Count {i + 1}", "kind": "count", "rows": [a], "columns": [b], "margins": True}
        )
        specs.append(
            {"name": f"Adults {i + 1}", "kind": "count", "rows": [a], "columns": [b], "where": "age >= 18"}
        )
    for v in dims:
        specs.append({"name": f"Mean income by {v}", "kind": "mean", "variable": "income", "rows": [v]})
    for v in dims[:4]:
        specs.append({"name": f"Pensioners by {v}", "kind": "count", "rows": [v], "where": "age >= 65"})
    return specs[:20]


def large_specs() -> list[dict]:
    """200 different outputs: 100 counts (25 groupings of 1 to 3 variables × 4 conditions, every fourth with
    margins), 25 means and 75 sums of income (the 25 groupings × 3 conditions)."""
    import itertools

    dims = ["region", "sex", "ageband", "edu", "occ"]
    groupings = [list(g) for k in (1, 2, 3) for g in itertools.combinations(dims, k)]
    conditions = ["", "age >= 18", "age >= 30", "age >= 65"]
    specs: list[dict] = []
    for where in conditions:
        for g in groupings:
            spec = {"name": f"Count {len(specs) + 1}", "kind": "count", "rows": g[:1], "columns": g[1:]}
            if where:
                spec["where"] = where
            if len(specs) % 4 == 0 and len(g) > 1:
                spec["margins"] = True
            specs.append(spec)
    for g in groupings:
        specs.append({"name": f"Mean {len(specs) + 1}", "kind": "mean", "variable": "income", "rows": g})
    for where in conditions[1:]:
        for g in groupings:
            specs.append(
                {
                    "name": f"Sum {len(specs) + 1}",
                    "kind": "sum",
                    "variable": "income",
                    "rows": g,
                    "where": where,
                }
            )
    return specs


def to_toml(specs: list[dict]) -> str:
    out = []
    for s in specs:
        out.append("[[output]]")
        out.extend(f"{k} = {json.dumps(v)}" for k, v in s.items())
        out.append("")
    return "\n".join(out)


def linear_tables(frame: pd.DataFrame, specs: list[dict], policy: Any) -> tuple[Any, list]:
    """A DuckDB connection over ``frame`` and the request's linear outputs with their cells, as the differencing
    takes them: (connection, [(spec, cells), ...])."""
    from privrisk.outputs import parse_spec
    from privrisk.outputs.compute import connect, table_cells
    from privrisk.outputs.differencing import LINEAR

    con = connect(frame)
    return con, [(s, table_cells(con, s, policy)) for s in parse_spec(to_toml(specs)) if s.kind in LINEAR]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """CPU time of this process (user and system), in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def naive(systems: list[dict], sample: int, limit: float, seed: int = 0) -> tuple[float, bool, int]:
    """The naive baseline's time for every atom's interval of every system: (seconds, whether a program hit the
    time limit, programs run). Two programs per atom, timed on ``sample`` atoms per system, multiplied out."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(seed)
    total, capped, runs = 0.0, False, 0
    for system in systems:
        a, b = system["a"], system["b"]
        n = a.shape[1]
        upper = system["upper"]
        bounds = np.column_stack([system["lower"], np.full(n, np.inf) if upper is None else upper])
        spent = 0.0
        picks = rng.choice(n, size=min(sample, n), replace=False)
        for j in picks:
            for sign in (1.0, -1.0):
                c = np.zeros(n)
                c[j] = sign
                started = time.perf_counter()
                res = linprog(c, A_eq=a, b_eq=b, bounds=bounds, method="highs", options={"time_limit": limit})
                spent += time.perf_counter() - started
                capped |= res.status == 1
                runs += 1
        total += spent / max(1, picks.size) * n
    return total, capped, runs


def run(
    label: str,
    frame: pd.DataFrame,
    specs: list[dict],
    acro_python: str | None,
    target: float,
    naive_sample: int = 2,
    naive_limit: float = 20.0,
) -> None:
    from privrisk.outputs import check_frame, parse_spec
    from privrisk.outputs.compute import connect, table_cells
    from privrisk.outputs.differencing import LINEAR, difference
    from privrisk.outputs.policy import Policy

    parsed = parse_spec(to_toml(specs))
    start, cpu = time.perf_counter(), time.process_time()
    result = check_frame(frame, parsed)
    ours, ours_cpu = time.perf_counter() - start, time.process_time() - cpu
    # The differencing alone (every group's finding and every atom's interval) and its released system, which the
    # naive baseline below solves atom by atom.
    policy = Policy()
    con = connect(frame)
    linear = [(spec, table_cells(con, spec, policy)) for spec in parsed if spec.kind in LINEAR]
    started, cpu = time.perf_counter(), time.process_time()
    diff = difference(con, linear, policy, knowledge=parsed.knowledge)
    solving, solving_cpu = time.perf_counter() - started, time.process_time() - cpu
    con.close()
    joint = diff.systems.get(None)
    systems: list[dict] = []
    if joint is not None:
        keep = np.isfinite(joint.b)
        systems.append({"a": joint.a[np.flatnonzero(keep)], "b": joint.b[keep], "lower": joint.lower,
                        "upper": joint.upper, "seconds": solving})  # fmt: skip
    s = result.summary
    print(
        f"{label}: {len(frame):,} records, {len(specs)} outputs, {s['atoms']:,} atoms, {s['equations']:,} released "
        f"numbers: {ours:.2f} s ({ours_cpu:.2f} s CPU; target ≤ {target:g} s), peak memory {peak_mb():,.0f} MB; "
        f"{s['cells_fail']} cells fail, {s['disclosures_exact']} exact and {s['disclosures_approximate']} "
        f"approximate disclosures, {s['atoms_undecided']} groups undecided within the budgets"
    )
    if systems and naive_sample > 0:
        baseline, capped, runs = naive(systems, naive_sample, naive_limit)
        sign = "≥ " if capped else ""
        sizes = ", ".join(f"{x['a'].shape[1]:,}" for x in systems)
        print(
            f"  differencing of the released system ({sizes} "
            f"unknowns): privrisk {solving:.2f} s ({solving_cpu:.2f} s CPU, every group); naive baseline (2 linear programs per atom, timed on "
            f"{runs} programs and multiplied out) {sign}{baseline:,.0f} s; naive / privrisk = "
            f"{sign}{baseline / max(solving, 1e-9):,.0f}"
        )
    if acro_python:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.csv"
            frame.to_csv(data, index=False)
            tables = Path(tmp) / "tables.json"
            tables.write_text(json.dumps(specs))
            script = Path(tmp) / "acro_run.py"
            script.write_text(ACRO_SCRIPT)
            done = subprocess.run(
                [acro_python, str(script), str(data), str(tables)], capture_output=True, text=True
            )
            if done.returncode != 0:
                print(
                    f"  ACRO failed: {done.stderr.strip().splitlines()[-1] if done.stderr else done.returncode}"
                )
                return
            theirs = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
            print(
                f"  ACRO's per-output checks of the same tables (no differencing): {theirs:.2f} s; "
                f"privrisk / ACRO = {ours / theirs:.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--quick", action="store_true", help="a smoke test: small data, few atoms, 20 large outputs"
    )
    parser.add_argument("--acro-python", default=os.environ.get("PRIVRISK_ACRO_PYTHON"))
    parser.add_argument("--only", choices=["typical", "large"])
    parser.add_argument(
        "--naive-sample",
        type=int,
        default=2,
        help="atoms per system the naive baseline is timed on (0: skip it)",
    )
    parser.add_argument(
        "--naive-limit", type=float, default=20.0, help="seconds each naive program may take (then '≥')"
    )
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.only in (None, "typical"):
        n = 5_000 if args.quick else 1_000_000
        levels = (
            {"region": 2, "sex": 2, "ageband": 3, "edu": 2}
            if args.quick
            else {"region": 42, "sex": 2, "ageband": 10, "edu": 4}
        )
        frame = make_data(n, levels)
        run("typical", frame, typical_specs(), args.acro_python, 10, args.naive_sample, args.naive_limit)
    if args.only in (None, "large"):
        n = 5_000 if args.quick else 1_000_000
        levels = {"region": 2, "sex": 2, "ageband": 2, "edu": 2, "occ": 2}
        frame = make_data(
            n, levels if args.quick else {"region": 50, "sex": 2, "ageband": 10, "edu": 5, "occ": 5}
        )
        specs = large_specs()
        if args.quick:
            specs = specs[::10]
        run("large", frame, specs, args.acro_python, 120, args.naive_sample, args.naive_limit)
    # The machine is often shared: the load at the end tells how far the wall times above are from an idle one.
    print(f"load average at the end {os.getloadavg()[0]:.1f}; CPU time of this process "
          f"{cpu_seconds():.1f} s")  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
