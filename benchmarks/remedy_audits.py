"""Benchmark: the audits of a request's remedies, narrowed to the groups the request's differencing may find.

A remedy that only hides cells (suppress, withhold, noise) releases less than the request, so its audit examines
only the groups the request's own differencing found, left open or released (``within`` of
:func:`privrisk.outputs.release_audit.audit_release`), and the differencings behind the hidden cells' intervals
build the released system without findings. The baseline, in the same run, is the audit as it was before: every
group examined, and findings computed for every differencing. Both audit the same remedies: for each count table
with failing cells (below the threshold), withholding it and suppressing its failing cells; the run checks that
both give the same findings and the same hidden cells' intervals.

The request: the 200 outputs of the large request of ``benchmarks/outputs.py`` (counts, means and sums by up to
three of region, sex, age band, education and occupation, under conditions on age) over ``--records`` records
(default 1,000) with fewer levels (``--regions``, default 6; 2 sexes, 3 age bands, 2 levels of education and
occupation), so that cells are small and fail.

Prints the CPU and wall time of each side, their ratio and the machine's load.

Run: .venv/bin/python benchmarks/remedy_audits.py [--records N] [--regions R] [--outputs K] [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import outputs as bench  # the large request's data and outputs


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000)
    parser.add_argument("--regions", type=int, default=6)
    parser.add_argument("--outputs", type=int, default=4, help="failing count tables whose remedies are audited")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 300 records, 2 regions, 20 outputs, 1 table")
    args = parser.parse_args()
    records, regions, tables = (300, 2, 1) if args.quick else (args.records, args.regions, args.outputs)

    import privrisk.outputs.differencing as differencing
    from privrisk.outputs import parse_spec
    from privrisk.outputs.compute import connect, table_cells
    from privrisk.outputs.policy import Policy
    from privrisk.outputs.release_audit import Change, audit_release, finding_key

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    frame = bench.make_data(records, {"region": regions, "sex": 2, "ageband": 3, "edu": 2, "occ": 2})
    every = bench.large_specs()
    specs = [s for s in parse_spec(bench.to_toml(every[::10] if args.quick else every)) if s.kind in differencing.LINEAR]
    policy = Policy()
    con = connect(frame)
    linear = [(s, table_cells(con, s, policy)) for s in specs]
    started, c0 = time.perf_counter(), cpu()
    request = differencing.difference(con, linear, policy)
    print(
        f"{records:,} records, {len(specs)} outputs, {len(request.atoms):,} atoms: the request's differencing "
        f"{time.perf_counter() - started:.1f} s ({cpu() - c0:.1f} s CPU), {len(request.disclosures)} findings, "
        f"{request.undecided} undecided"
    )
    remedies: list[tuple[dict[str, Change], dict[str, list[int]]]] = []
    for spec, cells in linear:
        if spec.kind != "count" or len(remedies) >= 2 * tables:
            continue
        n = cells["n"].to_numpy()
        failing = [int(i) for i in ((n >= 1) & (n < policy.safe_threshold)).nonzero()[0]]
        if failing:
            remedies.append(({spec.name: Change("withhold")}, {spec.name: failing}))
            remedies.append(({spec.name: Change("suppress", tuple(failing))}, {spec.name: failing}))

    real = differencing.difference

    def every_group(*a: Any, **k: Any) -> Any:
        # The audit before: every differencing computes every finding, whatever it is for.
        k.pop("findings", None)
        k.pop("within", None)
        return real(*a, **k)

    results: dict[str, list[Any]] = {}
    times: dict[str, tuple[float, float]] = {}
    for label in ("baseline", "privrisk"):
        differencing.difference = every_group if label == "baseline" else real
        memo: dict[Any, Any] = {}
        started, c0 = time.perf_counter(), cpu()
        within = request if label == "privrisk" else None
        results[label] = [
            audit_release(con, linear, changes, targets, policy, atoms_memo=memo, within=within)
            for changes, targets in remedies
        ]
        times[label] = (time.perf_counter() - started, cpu() - c0)
    differencing.difference = real
    same = all(
        {finding_key(d) for d in a.disclosures} == {finding_key(d) for d in b.disclosures}
        and [(t.lo, t.hi, t.exact) for t in a.targets] == [(t.lo, t.hi, t.exact) for t in b.targets]
        for a, b in zip(results["baseline"], results["privrisk"], strict=True)
    )
    (bw, bc), (ow, oc) = times["baseline"], times["privrisk"]
    print(
        f"{len(remedies)} remedy audits of {len(remedies) // 2} failing tables: baseline (every group examined, "
        f"findings in every differencing) {bw:.1f} s ({bc:.1f} s CPU); privrisk {ow:.1f} s ({oc:.1f} s CPU); "
        f"baseline / privrisk = {bc / max(oc, 1e-9):.1f}× CPU; the same findings and intervals: {same}"
    )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if not same:
        raise SystemExit("the narrowed audits differ from the baseline's")


if __name__ == "__main__":
    main()
