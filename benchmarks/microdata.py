"""Benchmark: the risks of a sample file of 10⁶ records × 8 keys with weights and households, SUDA2 on 10⁵ × 8.

Targets (issue 24, this 2-core machine): frequencies, individual, global and household risk, ℓ and t of 10⁶
records × 8 keys with weights in ≤ 10 s and ≤ 2 GB; the same with 1 % of each key missing (issue 32: a missing
value matching any value) in ≤ 10 s and ≤ 2 GB, beside the naive baseline, the pass over every pair of missing
patterns across all cells that privrisk used before (its code is in this file); SUDA2 with maximum MSU size 4 on 10⁵ records × 8 keys in
≤ 60 s. pycanon (the only Python peer, without weights) runs on the same file in the same run: k-anonymity on
all records, ℓ-diversity and t-closeness on the first ``--pycanon-rows`` records (its per-class Python loop
takes minutes on all of them), and both times are printed for the same rows.

The data are synthetic and seeded: region (16), age (0–99), sex (2), marital status (5), education (8),
employment (4), nationality (10), household size (1–8); weights 50–500; households of 1–4 records; income
(numeric) and diagnosis (20 categories) as sensitive variables. Each timed part runs in its own process, so its
peak memory (ru_maxrss) is its own.

    python benchmarks/microdata.py            # the full run
    python benchmarks/microdata.py --quick    # 20,000 records, SUDA2 on 5,000 (a smoke run)
    python benchmarks/microdata.py --only missing   # only the missing-value comparison
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

KEYS = ["region", "age", "sex", "marital", "education", "employment", "nationality", "hhsize"]
SIZES = [16, 100, 2, 5, 8, 4, 10, 8]


def synthetic(n: int, seed: int = 24) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {k: rng.integers(0, s, n) for k, s in zip(KEYS, SIZES, strict=True)}
    cols["age"] = np.clip(rng.normal(45, 18, n).round(), 0, 99).astype(np.int64)  # skewed like a population
    frame = pd.DataFrame(cols)
    frame["w"] = rng.uniform(50, 500, n).round(1)
    frame["hid"] = np.cumsum(rng.random(n) < 0.45)  # households of about two records
    frame["income"] = rng.lognormal(10, 0.6, n).round(-2)
    frame["diagnosis"] = rng.choice([f"d{i:02d}" for i in range(20)], n)
    return frame


NAIVE = r"""
def NAIVE(codes, count, weight):
    # privrisk before issue 32: every pair of missing patterns, each grouped and counted over all cells
    import numpy as np
    from privrisk.microdata.frequencies import combine_codes
    m, q = codes.shape
    observed = codes >= 0
    bits = (~observed).astype(np.int64) @ (1 << np.arange(q, dtype=np.int64))
    patterns, of = np.unique(bits, return_inverse=True)
    members = [np.flatnonzero(of == i) for i in range(len(patterns))]
    fk = np.zeros(m, dtype=np.int64)
    Fk = np.zeros(m, dtype=float)
    ids_by_union = {}
    for pi, p in enumerate(patterns):
        for qi_, pq in enumerate(patterns):
            union = int(p) | int(pq)
            ids = ids_by_union.get(union)
            if ids is None:
                cols = [j for j in range(q) if not (union >> j) & 1]
                ids = combine_codes(np.maximum(codes[:, cols], 0)) if cols else np.zeros(m, dtype=np.int64)
                ids_by_union[union] = ids
            rows_q, rows_p = members[qi_], members[pi]
            size = int(ids.max()) + 1
            fk[rows_p] += np.bincount(ids[rows_q], weights=count[rows_q], minlength=size).astype(np.int64)[ids[rows_p]]
            Fk[rows_p] += np.bincount(ids[rows_q], weights=weight[rows_q], minlength=size)[ids[rows_p]]
    return fk, Fk
"""

CHILD = NAIVE.replace("{", "{{").replace("}", "}}") + r"""
import json, resource, sys, time
import pandas as pd
part, path, arg = sys.argv[1], sys.argv[2], sys.argv[3]
frame = pd.read_parquet(path)
keys = {keys!r}
from privrisk.microdata import MicrodataSettings, measure_microdata
import scipy.special, scipy.stats, scipy.optimize  # imported before the clocks start
start, cpu = time.perf_counter(), time.process_time()
if part == "core":
    # what the issue's target lists: f_k, F_k, individual, global and household risk, ℓ and t
    import numpy as np
    from privrisk.microdata import cell_frequencies, diversity, household_risk, individual_risk, key_codes
    w = frame["w"].to_numpy(dtype=float)
    cells = cell_frequencies(key_codes(frame, keys), w)
    risk = individual_risk(cells.fk, cells.Fk)[cells.cell]
    hh = household_risk(risk, pd.factorize(frame["hid"])[0])
    div = [diversity(cells.cell, frame[s]).summary() for s in ("income", "diagnosis")]
    out = {{"global_risk": float(risk.mean()), "household": float(hh.sum()), "t": [d["t"] for d in div]}}
elif part in ("missing", "missing-naive", "missing-measure"):
    import numpy as np
    from privrisk.microdata import cell_frequencies, household_risk, individual_risk, key_codes
    from privrisk.microdata import frequencies as fq
    rng = np.random.default_rng(32)
    frame = frame.astype({{k: "float64" for k in keys}})
    for k in keys:
        frame.loc[rng.random(len(frame)) < 0.01, k] = np.nan
    w = frame["w"].to_numpy(dtype=float)
    start, cpu = time.perf_counter(), time.process_time()  # the missing values are part of the input
    if part == "missing-naive":
        fq._matching = NAIVE
    if part == "missing-measure":
        r = measure_microdata(frame, MicrodataSettings(keys=keys, weights="w", household="hid",
                                                       sensitive=["income", "diagnosis"]))
        out = {{"k": r.measures["k_anonymity"]["k"], "global_risk": r.measures["individual_risk"]["global_risk"]}}
    else:
        cells = cell_frequencies(key_codes(frame, keys), w)
        risk = individual_risk(cells.fk, cells.Fk)[cells.cell]
        hh = household_risk(risk, pd.factorize(frame["hid"])[0])
        out = {{"k": int(cells.record_fk.min()), "global_risk": float(risk.mean()), "fk_sum": int(cells.record_fk.sum())}}
elif part == "measure":
    r = measure_microdata(frame, MicrodataSettings(keys=keys, weights="w", household="hid",
                                                   sensitive=["income", "diagnosis"]))
    out = {{"k": r.measures["k_anonymity"]["k"], "global_risk": r.measures["individual_risk"]["global_risk"],
           "l": [d["l_distinct"] for d in r.measures["diversity"]], "t": [d["t"] for d in r.measures["diversity"]]}}
elif part == "suda":
    from privrisk.microdata import key_codes, suda2
    s = suda2(key_codes(frame.head(int(arg)), keys), keys, max_size=4)
    out = s.summary()
else:
    import warnings
    warnings.simplefilter("ignore")
    from pycanon import anonymity
    qi = keys
    k_all = anonymity.k_anonymity(frame, qi)
    t_k = time.perf_counter() - start
    sub = frame.head(int(arg))
    start = time.perf_counter()
    l = anonymity.l_diversity(sub, qi, ["diagnosis"])
    t = anonymity.t_closeness(sub, qi, ["income"])
    t_lt = time.perf_counter() - start
    r = measure_microdata(sub, MicrodataSettings(keys=keys, sensitive=["income", "diagnosis"]))
    by = {{d["variable"]: d for d in r.measures["diversity"]}}
    out = {{"k": k_all, "k_seconds": t_k, "l": l, "t": t, "lt_seconds": t_lt,
           "ours_l": by["diagnosis"]["l_distinct"], "ours_t": by["income"]["t"]}}
    start = time.perf_counter() - t_lt
    cpu = time.process_time()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({{"seconds": seconds, "cpu": cpu, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "out": out}}, default=float))
"""


def child(part: str, path: Path, arg: int) -> dict:
    code = CHILD.format(keys=KEYS)
    proc = subprocess.run([sys.executable, "-c", code, part, str(path), str(arg)], capture_output=True, text=True,
                          check=False)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def missing(path: Path) -> None:
    """The same file with 1 % of each key missing: the naive baseline and privrisk, in the same run."""
    naive = child("missing-naive", path, 0)
    ours = child("missing", path, 0)
    assert naive["out"]["fk_sum"] == ours["out"]["fk_sum"], "the two disagree"
    print("  1 % of each key missing, f_k, F_k, individual and household risk:")
    print(f"    naive (every pair of missing patterns over all cells): {naive['seconds']:6.2f} s wall, "
          f"{naive['cpu']:.2f} s CPU, peak {naive['peak_mib']:,.0f} MiB")  # fmt: skip
    print(f"    privrisk (the pattern lattice, each pair on its own cells): {ours['seconds']:6.2f} s wall, "
          f"{ours['cpu']:.2f} s CPU, peak {ours['peak_mib']:,.0f} MiB; {naive['cpu'] / max(ours['cpu'], 1e-9):.1f}× "
          f"less CPU; targets ≤ 10 s CPU, ≤ 2 GB: {'met' if ours['cpu'] <= 10 and ours['peak_mib'] <= 2048 else 'NOT met'}")  # fmt: skip
    whole = child("missing-measure", path, 0)
    print(f"    privrisk measure_microdata (ℓ, t over overlapping classes, attacker and population models): "
          f"{whole['seconds']:6.2f} s wall, {whole['cpu']:.2f} s CPU, peak {whole['peak_mib']:,.0f} MiB")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 records, SUDA2 on 5,000")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--suda-rows", type=int, default=100_000)
    parser.add_argument("--pycanon-rows", type=int, default=1_000)
    parser.add_argument("--only", choices=["missing"], help="run only the missing-value comparison")
    args = parser.parse_args()
    # pycanon's t-closeness takes minutes on 200 records of a loaded machine: the smoke run gives it 50.
    rows, suda_rows, pyc_rows = (20_000, 5_000, 50) if args.quick else (args.rows, args.suda_rows,
                                                                           args.pycanon_rows)  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sample.parquet"
        synthetic(rows).to_parquet(path)
        print(f"{rows:,} records × {len(KEYS)} keys with weights and households (synthetic, seeded)")
        missing(path)
        if args.only == "missing":
            return
        c = child("core", path, 0)
        print(f"  privrisk f_k, F_k, individual/global/household risk, ℓ, t: {c['seconds']:6.2f} s wall, "
              f"{c['cpu']:.2f} s CPU, peak {c['peak_mib']:,.0f} MiB")  # fmt: skip
        m = child("measure", path, 0)
        print(f"  privrisk measure_microdata (all of it, population models too): {m['seconds']:6.2f} s wall, "
              f"{m['cpu']:.2f} s CPU, peak {m['peak_mib']:,.0f} MiB; k = {m['out']['k']}, global risk "
              f"{m['out']['global_risk']:.4f}")  # fmt: skip
        s = child("suda", path, suda_rows)
        print(f"  privrisk SUDA2, max size 4, {suda_rows:,} records: {s['seconds']:6.2f} s wall, {s['cpu']:.2f} s CPU, "
              f"peak {s['peak_mib']:,.0f} MiB; {s['out']['records_with_msu']:,} records with an MSU")  # fmt: skip
        try:
            p = child("pycanon", path, pyc_rows)
        except SystemExit as exc:
            print(f"  pycanon: not run ({str(exc).strip().splitlines()[-1] if str(exc).strip() else 'failed'})")
            return
        print(f"  pycanon k-anonymity, {rows:,} records: {p['out']['k_seconds']:6.2f} s (k = {p['out']['k']})")
        print(f"  pycanon ℓ-diversity + t-closeness, first {pyc_rows:,} records: {p['out']['lt_seconds']:6.2f} s "
              f"(ℓ = {p['out']['l']}, t = {p['out']['t']:.4f}; privrisk: ℓ = {p['out']['ours_l']}, "
              f"t = {p['out']['ours_t']:.4f})")
        if not args.quick:
            met = c["cpu"] <= 10 and c["peak_mib"] <= 2048 and s["cpu"] <= 60
            print(f"  targets (≤ 10 s CPU and ≤ 2 GB; SUDA2 ≤ 60 s CPU): {'met' if met else 'NOT met'}; load "
                  f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall time counts the other jobs too)")


if __name__ == "__main__":
    main()
