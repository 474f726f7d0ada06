"""Benchmark: a suppression pattern for a hierarchical count table of up to 10⁶ cells (issue 36, item 3).

The table: 3 hierarchical dimensions, each a total, ``--fanout`` subtotals and leaves under each (``9 10``: 100
codes a dimension, 10⁶ cells), the leaf counts of ``--records`` records drawn with skewed (Zipf-like) margins and
an interaction, so most leaf cells are 0 and many are small (as in sdcTools/sdcTable #146). Seeded.

privrisk (:func:`privrisk.outputs.hierarchical.suppression_pattern`): primaries by the threshold rule, secondary
suppressions by hypercubes along the hierarchies, each primary's protection proven by whole tables, and every
primary's exact interval: ends where the shuttle algorithm's whole bounds meet a witness (a whole table with the
published cells) or that grow without end need no programme; the block's programme (started from the truth)
then finds witnesses for many ends at once (rounds maximising the sum of the open cells), a neighbourhood's
programme tightens the bound of an end still open, and the rest take a linear programme each over their block
(warm started; integer where the rounded linear end is not met by a witness). It prints how many ends each way
settled.

The naive baseline, in the same run: for each primary two linear programmes over the whole table (every
cell an unknown, published cells fixed by their bounds, scipy's ``linprog`` with HiGHS, a model built from scratch
each time), timed on ``--naive-sample`` primaries and multiplied out to all of them.

With ``--chained``, the same pattern again as the code before 2026-12-01 settled it (each round of witnesses
from the last round's vertex, 3,000 iterations, no whole table sought next to a fractional optimum), its time
beside ours and whether every interval is the same.

With ``--perturbed``, the same pattern again with HiGHS's bound perturbation in every programme (the solver
before 2026-12-01), its time beside ours and whether every interval is the same.

Prints wall and CPU time, peak memory (resident, as the OS reports it) and the machine's load.

With ``--intervals bounds`` no programme is solved: each primary's protection is still proven by two whole tables
with the published cells (the witnesses), and its interval is the outer bound [0, ceiling], marked not exact; the
naive baseline still solves the two programmes per primary a proof by linear programming needs.

Run: .venv/bin/python benchmarks/differencing_scale.py [--fanout 9 10] [--records N] [--threshold 10]
     [--naive-sample K] [--seed S] [--intervals exact|bounds] [--perturbed] [--chained] [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import scipy.sparse as sp


def make_leaves(leaves: tuple[int, ...], records: int, seed: int) -> np.ndarray:
    """Leaf counts: each dimension's leaf drawn from a Zipf-like law (weights 1/rank^1.1, shuffled), the third
    leaning on the first, so the table is sparse and its small cells are spread out."""
    rng = np.random.default_rng(seed)
    draws = []
    for n in leaves:
        w = 1.0 / np.arange(1, n + 1) ** 1.1
        rng.shuffle(w)
        draws.append(rng.choice(n, size=records, p=w / w.sum()))
    # an interaction: a third of the records take dimension 3's leaf next to dimension 1's
    lean = rng.random(records) < 1 / 3
    draws[2] = np.where(lean, draws[0] % leaves[2], draws[2])
    out = np.zeros(leaves, dtype=np.int64)
    np.add.at(out, tuple(draws), 1)
    return out


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def naive(
    a: sp.csr_matrix, values: np.ndarray, suppressed: np.ndarray, primary: np.ndarray, sample: int, seed: int
) -> tuple[float, int]:
    """Seconds for every primary's two programmes over the whole table, from ``sample`` primaries."""
    from scipy.optimize import linprog

    hid = np.flatnonzero(primary)
    n = values.size
    lower = np.where(suppressed, 0.0, values)
    upper = np.where(suppressed, np.inf, values)
    bounds = np.column_stack([lower, upper])
    rng = np.random.default_rng(seed)
    picks = rng.choice(hid, size=min(sample, hid.size), replace=False)
    spent, runs = 0.0, 0
    for j in picks:
        for sign in (1.0, -1.0):
            c = np.zeros(n)
            c[j] = sign
            started = time.perf_counter()
            linprog(c, A_eq=a, b_eq=np.zeros(a.shape[0]), bounds=bounds, method="highs")
            spent += time.perf_counter() - started
            runs += 1
    return spent / max(1, picks.size) * hid.size, runs


def baseline(name: str, settings: dict[str, object], parents: list, values: np.ndarray, threshold: int,
             exact: bool, ours: object, cpu: float) -> None:  # fmt: skip
    """The same pattern again with ``settings`` (``"module.ATTRIBUTE"`` → value) in force, timed, and whether
    every interval is the same as ours."""
    import importlib

    from privrisk.outputs.hierarchical import suppression_pattern

    places = [
        (importlib.import_module(k.rsplit(".", 1)[0]), k.rsplit(".", 1)[1], v) for k, v in settings.items()
    ]
    saved = [(module, attr, getattr(module, attr)) for module, attr, _ in places]
    for module, attr, value in places:
        setattr(module, attr, value)
    try:
        wall, spent = time.perf_counter(), time.process_time()
        theirs = suppression_pattern(parents, values, threshold, intervals=exact)
        wall, spent = time.perf_counter() - wall, time.process_time() - spent
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)
    same = all(
        np.array_equal(getattr(ours, f), getattr(theirs, f), equal_nan=True)
        for f in ("suppressed", "lo", "hi", "exact")
    )
    print(
        f"{name}: {wall:.2f} s ({spent:.2f} s CPU), {theirs.summary['not_exact']:,} intervals not exact; "
        f"baseline / privrisk = {spent / max(cpu, 1e-9):.1f}× CPU; the same pattern and intervals: {same}"
    )


# HiGHS's bound perturbation in every programme (the solver before 2026-12-01): a stall cap of 0 iterations sends
# each re-solve to privrisk.solver's perturbed fallback at once.
PERTURBED = {"privrisk.solver._UNPERTURBED_PER_SIZE": 0}
# The rounds of witnesses as before 2026-12-01: each from the last round's vertex, 3,000 simplex iterations each,
# and a fractional linear end left to the block's integer programme.
CHAINED = {
    "privrisk.outputs.block_ends._FROM_TRUTH": False,
    "privrisk.outputs.block_ends._ROUND_ITERATIONS_PER_CELL": 0.0,
    "privrisk.outputs.hidden_intervals._NEAR_RADII": (),
}


def main() -> None:
    from privrisk.outputs.hierarchical import hierarchy, relations, suppression_pattern, table_from_leaves

    parser = argparse.ArgumentParser()
    parser.add_argument("--fanout", type=int, nargs="+", default=[9, 10])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--threshold", type=int, default=10)
    parser.add_argument("--naive-sample", type=int, default=2)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument(
        "--intervals",
        choices=["exact", "bounds"],
        default="exact",
        help="exact: every primary's interval by programmes; bounds: the protection proven by whole tables only, "
        "the interval an outer bound (no programmes)",
    )
    parser.add_argument(
        "--perturbed",
        action="store_true",
        help="also run the same pattern with HiGHS's bound perturbation in every programme (the solver before "
        "2026-12-01) and check that the intervals are the same",
    )
    parser.add_argument(
        "--chained",
        action="store_true",
        help="also run the same pattern with the rounds of witnesses chained, each from the last round's vertex, "
        "3,000 iterations each, and no whole table sought next to a fractional optimum (the code before "
        "2026-12-01), and check that the intervals are the same",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small table (3 × 3 codes a dimension): a smoke test"
    )
    args = parser.parse_args()
    if args.quick:
        args.fanout, args.records, args.naive_sample, args.perturbed, args.chained = [2], 60, 1, True, True
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    parents = [hierarchy(*args.fanout) for _ in range(3)]
    n_leaves = int(np.prod(args.fanout))
    leaves = make_leaves((n_leaves,) * 3, args.records, args.seed)
    values = table_from_leaves(parents, leaves)
    print(
        f"table: {values.size:,} cells ({' × '.join(str(p.size) for p in parents)} codes), {args.records:,} records, "
        f"{(values == 0).mean():.0%} of cells zero, threshold {args.threshold}"
    )
    wall, cpu = time.perf_counter(), time.process_time()
    stats: dict[str, int] = {}
    pattern = suppression_pattern(
        parents, values, args.threshold, intervals=args.intervals == "exact", stats=stats
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    s = pattern.summary
    print(
        f"privrisk: {wall:.2f} s ({cpu:.2f} s CPU), peak memory {peak_mb():,.0f} MB; {s['primary']:,} primary and "
        f"{s['secondary']:,} secondary suppressions, {s['unprotected']} primaries not proven protected, "
        f"{s['not_exact']:,} intervals not exact ({args.intervals}); load {os.getloadavg()[0]:.1f}"
    )
    if stats:
        print(
            f"interval ends: {stats['shuttle_ends']:,} by whole bounds a witness meets (no programme per end; "
            f"{stats['rounds']:,} rounds of witnesses for many ends, {stats['local']:,} neighbourhood programmes, "
            f"{stats['local_ends']:,} ends settled by their bounds), "
            f"{stats['lp']:,} linear programmes per end ({stats['lp_ends']:,} ends settled by them, "
            f"{stats['near_ends']:,} by a whole table next to a fractional optimum), {stats['mip']:,} "
            f"integer programmes ({stats['mip_gap']:,} below the linear end), {stats['not_exact']:,} left as "
            f"bounds; {stats['fixed']:,} cells pinned by the bounds; largest block {stats['largest']:,} cells"
        )
    exact = args.intervals == "exact"
    if args.perturbed:
        name = "perturbed baseline (HiGHS's bound perturbation in every programme)"
        baseline(name, PERTURBED, parents, values, args.threshold, exact, pattern, cpu)
    if args.chained:
        name = "chained baseline (rounds from the last vertex, 3,000 iterations, no whole table next to a fractional optimum)"
        baseline(name, CHAINED, parents, values, args.threshold, exact, pattern, cpu)
    if args.naive_sample > 0:
        a = relations(parents)
        base, runs = naive(
            a,
            values.reshape(-1),
            pattern.suppressed.reshape(-1),
            pattern.primary.reshape(-1),
            args.naive_sample,
            args.seed,
        )
        print(
            f"naive baseline (2 linear programmes per primary over the whole table, timed on {runs} and "
            f"multiplied out): {base:,.0f} s; naive / privrisk = {base / max(wall, 1e-9):,.0f}"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}; peak memory {peak_mb():,.0f} MB")


if __name__ == "__main__":
    main()
