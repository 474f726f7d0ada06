"""Benchmark: δ-presence on a 10,000,000-row population and a 100,000-row research subset (4 quasi-identifiers).

Targets (issue 4, on a 2-core machine): one node measured in ≤ 10 s including reading; a full search over a
lattice of ≥ 200 nodes in ≤ 30 s; and that search ≥ 10× faster than a pandas group-by over the raw rows for each
node (timed on a few nodes and scaled to the nodes the search evaluated), both in the same run.

    python benchmarks/presence.py            # the full size (writes ~100 MB of Parquet to a temporary folder)
    python benchmarks/presence.py --quick    # a small smoke run

The population is generated (seeded) and stored as Parquet; the research subset is a random sample of it.
Quasi-identifiers: zip (1,000 five-digit codes, hierarchy ``prefix``), age (0–99, ``interval:5``), sex (0/1,
raw → *), race (0–5, ``breaks:0,1,6``: white / non-white / *). Lattice: 6 × 7 × 2 × 3 = 252 nodes.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from privrisk import delta_presence, prepare_presence, search_generalisation

QI = ["zip", "age", "sex", "race"]
HIERARCHIES = {"zip": "prefix", "age": "interval:5", "race": "breaks:0,1,6"}
TARGETS = {"delta_max": 0.05, "k": 5}


def generate(folder: Path, n_pop: int, n_data: int, seed: int = 1) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    zips = 10000 + rng.zipf(1.3, n_pop) % 1000
    pop = {
        "zip": zips.astype(np.int32),
        "age": np.minimum(rng.gamma(4.0, 11.0, n_pop), 99).astype(np.int16),
        "sex": rng.integers(0, 2, n_pop).astype(np.int8),
        "race": rng.choice(6, n_pop, p=[0.6, 0.13, 0.17, 0.06, 0.03, 0.01]).astype(np.int8),
    }
    pop_path, data_path = folder / "population.parquet", folder / "research.parquet"
    pq.write_table(pa.table(pop), pop_path)
    pick = rng.choice(n_pop, n_data, replace=False)
    pq.write_table(pa.table({k: v[pick] for k, v in pop.items()}), data_path)
    return pop_path, data_path


def pandas_node(pop: pd.DataFrame, data: pd.DataFrame, prep, levels) -> float:
    """The naive way: generalise the raw rows of both tables (label lookup per value) and group them by the labels,
    for one node."""
    t0 = time.perf_counter()
    gen = []
    for frame in (pop, data):
        cols = {}
        for j, name in enumerate(QI):
            h = prep.plans[j].hierarchy
            lookup = dict(
                zip(h.domain.tolist(), h.labels[levels[j]][h.codes[levels[j]]].tolist(), strict=True)
            )
            cols[name] = frame[name].map(lookup)
        gen.append(pd.DataFrame(cols))
    p = gen[0].groupby(QI).size().rename("p")
    t = gen[1].groupby(QI).size().rename("t")
    joined = pd.concat([t, p], axis=1, join="inner")
    (joined["t"] / joined["p"]).max()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200,000-row population, 5,000-row subset")
    ap.add_argument("--baseline-nodes", type=int, default=3, help="nodes timed with pandas")
    args = ap.parse_args()
    n_pop, n_data = (200_000, 5_000) if args.quick else (10_000_000, 100_000)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        pop_path, data_path = generate(Path(tmp), n_pop, n_data)
        print(f"generated {n_pop:,} population rows and {n_data:,} research rows as Parquet in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip

        t0 = time.perf_counter()
        prep = prepare_presence(data_path, pop_path, QI, hierarchies=HIERARCHIES)
        t_read = time.perf_counter() - t0
        r = delta_presence(prep, levels={"zip": 2, "age": 1})
        t_node = time.perf_counter() - t0
        lattice = len(prep.enc.nodes())
        print(f"read once (DuckDB GROUP BY): {t_read:.2f} s; finest classes: {len(prep.enc.pop_codes):,} in the "
              f"population, {len(prep.enc.data_codes):,} in the subset; lattice {lattice} nodes")  # fmt: skip
        print(
            f"one node including reading: {t_node:.2f} s (target ≤ 10 s); δ_max = {r.summary['delta_max']:.4f}"
        )

        nodes = prep.enc.nodes()
        t0 = time.perf_counter()
        for v in nodes:
            delta_presence(prep, levels=tuple(v))
        t_all = time.perf_counter() - t0
        print(
            f"every node rolled up: {t_all:.2f} s for {lattice} nodes ({1000 * t_all / lattice:.0f} ms per node)"
        )

        t0 = time.perf_counter()
        s = search_generalisation(prep, **TARGETS)
        t_search = time.perf_counter() - t0
        print(f"search ({', '.join(f'{k}={v}' for k, v in TARGETS.items())}): {t_search:.2f} s, "
              f"{s.evaluated} of {lattice} nodes evaluated, {len(s.minimal)} minimal; "
              f"search incl. reading {t_read + t_search:.2f} s (target ≤ 30 s)")  # fmt: skip

        t0 = time.perf_counter()
        s_sup = search_generalisation(prep, suppression=0.02, **TARGETS)
        t_sup = time.perf_counter() - t0
        print(f"search with --suppression 0.02 (δ_max no longer monotone): {t_sup:.2f} s, {s_sup.evaluated} of "
              f"{lattice} nodes evaluated, {len(s_sup.minimal)} minimal")  # fmt: skip

        t0 = time.perf_counter()
        pop = pd.read_parquet(pop_path)
        data = pd.read_parquet(data_path)
        t_load = time.perf_counter() - t0
        rng = np.random.default_rng(0)
        sample = nodes[rng.choice(len(nodes), args.baseline_nodes, replace=False)]
        per_node = np.mean([pandas_node(pop, data, prep, v) for v in sample])
        naive_search = per_node * s.evaluated
        naive_all = per_node * lattice
        print(f"pandas group-by over the raw rows: {per_node:.2f} s per node (mean of {args.baseline_nodes}; "
              f"loading {t_load:.2f} s not counted)")  # fmt: skip
        print(f"  scaled to the search's {s.evaluated} nodes: {naive_search:.1f} s  → ours {t_search:.2f} s, "
              f"{naive_search / t_search:.0f}× faster (target ≥ 10×)")  # fmt: skip
        print(f"  scaled to all {lattice} nodes: {naive_all:.1f} s  → ours {t_all:.2f} s, "
              f"{naive_all / t_all:.0f}× faster")  # fmt: skip
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory (max RSS, includes the pandas baseline's raw rows): {rss:.0f} MB")


if __name__ == "__main__":
    main()
