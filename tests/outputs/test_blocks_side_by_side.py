"""The programmes per end of several large blocks run side by side (``Region.apart``), and so do the blocks of one
total over several (``Region.optimise``): the intervals, the exact ends, the points seen and kept and the budget
spent are the same, to the bit, as one block after another; and each linear end is scipy's linprog optimum over
the whole system (an independent solver)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import privrisk.outputs.extremes as extremes
import privrisk.outputs.intervals as intervals
import privrisk.solver as solver
from outputs_helpers import released_cube
from privrisk.outputs.intervals import Region

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")

_PATCHED = [(intervals, "SIDE_BY_SIDE_ROWS"), (solver, "_cores"), (intervals, "side_by_side"),
            (extremes, "BATCH_ROUNDS"), (extremes, "WHOLE_ROUNDS")]  # fmt: skip


def _ends(a: sp.csr_matrix, b: np.ndarray, truth: np.ndarray | None, whole: bool, g: sp.csr_matrix,
          side_by_side: bool, names: set[str]) -> tuple[object, int, list[np.ndarray]]:  # fmt: skip
    saved = [(module, name, getattr(module, name)) for module, name in _PATCHED]
    original = intervals.side_by_side

    def counted(work, items, **kw):  # type: ignore[no-untyped-def]
        def named(item):  # type: ignore[no-untyped-def]
            names.add(threading.current_thread().name)
            return work(item)

        return original(named, items, **kw)

    intervals.SIDE_BY_SIDE_ROWS = 0 if side_by_side else 10**9
    solver._cores = lambda: 2  # type: ignore[assignment]
    intervals.side_by_side = counted  # type: ignore[assignment]
    extremes.BATCH_ROUNDS = extremes.WHOLE_ROUNDS = 0  # every end left to its own programme
    try:
        n = a.shape[1]
        region = Region(a, b, lower=np.zeros(n), integer=np.full(n, whole), known=truth)
        return region.extremes(g), region.budget, region.points
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000), st.booleans(), st.booleans())
def test_blocks_side_by_side_give_the_ends_of_one_block_after_another(
    seed: int, whole: bool, truth_known: bool
) -> None:
    rng = np.random.default_rng(seed)
    cubes = [released_cube(rng)[3] for _ in range(3)]
    a = sp.csr_matrix(sp.block_diag([sp.csr_matrix(c) for c in cubes]))
    n = a.shape[1]
    truth = rng.integers(0, 6, n).astype(float)
    if not whole:
        truth = truth * rng.uniform(0.5, 2.0, n)
    b = a @ truth
    starts = np.cumsum([0] + [c.shape[1] for c in cubes])
    block = Region(
        a, b, lower=np.zeros(n), integer=np.full(n, whole)
    ).col_block  # the region splits a cube's tables
    rows = []
    for t in range(12):
        row = np.zeros(n)
        if t % 2:  # within one block, each block in turn
            k = (t // 2) % 3
            span = np.flatnonzero(block == block[starts[k]])  # the region's block of the cube's first atom
        else:  # over several
            span = np.arange(n)
        row[rng.choice(span, size=int(rng.integers(1, min(4, span.size) + 1)), replace=False)] = 1.0
        rows.append(row)
    g = sp.csr_matrix(np.array(rows))
    names: set[str] = set()
    known = truth if truth_known else None
    one, spent_one, kept_one = _ends(a, b, known, whole, g, False, set())
    two, spent_two, kept_two = _ends(a, b, known, whole, g, True, names)
    assert any(name.startswith("privrisk-programme") for name in names)  # they did run side by side
    for field in ("lo", "hi", "lo_exact", "hi_exact", "undecided", "seen_lo", "seen_hi"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field), err_msg=field)
    assert one.used == two.used and spent_one == spent_two
    assert len(kept_one) == len(kept_two)
    assert all(np.array_equal(p, q) for p, q in zip(kept_one, kept_two, strict=True))
    if not whole:
        for i in range(g.shape[0]):
            c = g[i].toarray().ravel()
            for sign, end in ((1.0, one.lo[i]), (-1.0, one.hi[i])):
                ref = linprog(sign * c, A_eq=a.toarray(), b_eq=b, bounds=[(0, None)] * n, method="highs")
                if ref.status == 3:  # unbounded above
                    assert sign < 0 and end == np.inf
                else:
                    assert end == np.float64(sign * ref.fun) or abs(end - sign * ref.fun) <= 1e-6 * max(
                        1, abs(end)
                    )
