"""Brute force for the output-checking tests: every whole non-negative solution of the released counts A·x = b."""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np


def whole_solutions(a: np.ndarray, b: np.ndarray, cols: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """Every whole non-negative x (zero outside ``cols``) with A x = b, depth first, pruned by the totals."""
    out: list[np.ndarray] = []
    caps = [int(min(b[i] for i in range(len(b)) if a[i, j])) for j in cols]
    x = np.zeros(a.shape[1], dtype=int)

    def go(k: int, used: np.ndarray) -> None:
        if np.any(used > b):
            return
        if k == len(cols):
            if np.array_equal(used, b):
                out.append(x.copy())
            return
        j = cols[k]
        for value in range(caps[k] + 1):
            x[j] = value
            go(k + 1, used + a[:, j] * value)
        x[j] = 0

    go(0, np.zeros(len(b), dtype=int))
    return out


def enumerated_bounds(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of every unknown over all whole x ≥ 0 with A·x = b (x_j at most the least total holding it)."""
    n = a.shape[1]
    cap = [int(min((b[i] for i in range(a.shape[0]) if a[i, j]), default=0)) for j in range(n)]
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    for x in itertools.product(*(range(k + 1) for k in cap)):
        v = np.array(x)
        if np.array_equal(a @ v, b):
            lo = np.minimum(lo, v)
            hi = np.maximum(hi, v)
    return lo, hi


def released_cube(
    rng: np.random.Generator,
) -> tuple[np.ndarray, tuple[int, ...], list[frozenset[int]], np.ndarray]:
    """A random cube of 2–3 dimensions of 2–3 levels: its atoms' coordinates, its sizes, some of its
    (dims − 1)-way tables as released (``held``, at least one), and their cells as rows of 0/1 over the atoms."""
    dims = int(rng.integers(2, 4))
    sizes = tuple(int(x) for x in rng.integers(2, 4, dims))
    coords = np.array(list(itertools.product(*(range(s) for s in sizes))))
    subsets = [frozenset(c) for c in itertools.combinations(range(dims), dims - 1)]
    held = [s for s in subsets if rng.random() < 0.7] or subsets[:1]
    a = np.array([[float(all(c[d] == key[i] for i, d in enumerate(sorted(h)))) for c in coords.tolist()]
                  for h in held for key in itertools.product(*(range(sizes[d]) for d in sorted(h)))])  # fmt: skip
    return coords, sizes, held, a


def sparse_release(rng: np.random.Generator, people: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random cube of :func:`released_cube` with 1 to ``people`` people in it (most atoms empty): its released
    cells as rows over the atoms, their counts, and the atoms' true counts."""
    _, _, _, a = released_cube(rng)
    truth = np.zeros(a.shape[1])
    for j in rng.choice(a.shape[1], size=int(rng.integers(1, people + 1)), replace=True).tolist():
        truth[j] += 1
    return a, a @ truth, truth


def bench_outputs() -> ModuleType:
    """``benchmarks/outputs.py`` as a module (its data and the large request's outputs), loaded by path."""
    path = Path(__file__).parents[1] / "benchmarks" / "outputs.py"
    spec = importlib.util.spec_from_file_location("bench_outputs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_survey_differencing(records: int, first: int, seed: int = 5) -> Any:
    """The differencing of every tenth of the large request's outputs (from ``first``) over ``records`` records of
    a small survey (2 regions, 2 sexes, 3 age bands, 2 levels of education and occupation)."""
    from privrisk.outputs import parse_spec
    from privrisk.outputs.compute import connect, table_cells
    from privrisk.outputs.differencing import LINEAR, difference
    from privrisk.outputs.policy import Policy

    bench = bench_outputs()
    frame = bench.make_data(records, {"region": 2, "sex": 2, "ageband": 3, "edu": 2, "occ": 2}, seed=seed)
    specs = [s for s in parse_spec(bench.to_toml(bench.large_specs()[first::10])) if s.kind in LINEAR]
    policy = Policy()
    con = connect(frame)
    return difference(con, [(s, table_cells(con, s, policy)) for s in specs], policy)


def exact_sum_intervals(diff: Any, magnitude: str = "income") -> dict[int, tuple[float, float]]:
    """Each sum finding's exact interval: scipy's linear programmes over the whole released system (no privrisk
    solver), in the magnitude's own units."""
    from scipy.optimize import linprog

    from privrisk.outputs.atom_table import atom_cube

    cube = atom_cube(diff.atoms, diff.variables, diff.conditions)
    system = diff.systems[magnitude]
    keep = np.isfinite(system.b)
    bounds = list(zip(system.lower, [hi if np.isfinite(hi) else None for hi in system.upper], strict=True))
    scale = system.scales[magnitude]
    out = {}
    for f in diff.findings:
        if f["type"] != "sum":
            continue
        c = np.zeros(system.a.shape[1])
        c[cube.members(np.array([f["group"]])).indices + system.offsets[magnitude]] = 1.0
        least, most = (linprog(s * c, A_eq=system.a[keep], b_eq=system.b[keep], bounds=bounds, method="highs")
                       for s in (1, -1))  # fmt: skip
        assert least.status == 0 and most.status == 0
        out[f["group"]] = (least.fun * scale, -most.fun * scale)
    return out
