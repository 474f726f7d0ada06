"""The counts of the released means' groups that the released counts determine (``_mean_counts``), against a
brute-force enumeration of every whole non-negative solution; a group that is itself a released count is read off
its equation without a programme, and that shortcut must agree with the enumeration too."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.outputs.mean_counts import mean_counts as _mean_counts


def _solutions(a: np.ndarray, b: np.ndarray, top: int) -> list[np.ndarray]:
    """Every whole x with 0 ≤ x ≤ top and a·x = b (the total row bounds every atom by top)."""
    n = a.shape[1]
    return [
        np.array(x) for x in itertools.product(range(top + 1), repeat=n) if np.array_equal(a @ np.array(x), b)
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    truth=st.lists(st.integers(0, 2), min_size=2, max_size=5),
    masks=st.lists(st.integers(1, 31), min_size=1, max_size=4),
    picks=st.lists(st.integers(0, 6), min_size=1, max_size=4),
    extra=st.lists(st.integers(1, 31), max_size=2),
)
def test_determined_mean_groups_match_an_enumeration(
    truth: list[int], masks: list[int], picks: list[int], extra: list[int]
) -> None:
    n = len(truth)
    x = np.array(truth, dtype=float)
    full = (1 << n) - 1
    # Released counts: the total (so every atom is bounded) and some sums of atoms.
    rows = sorted({full, *(m & full for m in masks if m & full)})
    a = np.array([[(m >> j) & 1 for j in range(n)] for m in rows], dtype=float)
    b = a @ x
    names = [{f"C{i}"} for i in range(len(rows))]
    # The means' groups: some are released counts' groups (the shortcut), some are not.
    groups = sorted({rows[p % len(rows)] for p in picks} | {m & full for m in extra if m & full})
    mat = sp.csr_matrix(np.array([[(m >> j) & 1 for j in range(n)] for m in groups], dtype=float))
    values = np.ones(len(groups))
    got = _mean_counts(sp.csr_matrix(a), b, x, [(mat, values, None)], names, sp.csr_matrix((0, n)))
    solutions = _solutions(a, b, int(x.sum()))
    for m in groups:
        members = np.array([j for j in range(n) if (m >> j) & 1], dtype=np.int64)
        values_seen = {int(s[members].sum()) for s in solutions}
        key = members.tobytes()
        if len(values_seen) == 1:
            assert key in got and got[key][0] == values_seen.pop(), (rows, m)
            assert got[key][1] <= {f"C{i}" for i in range(len(rows))}
            if m in rows:  # read off its own equation
                assert f"C{rows.index(m)}" in got[key][1]
        else:
            assert key not in got, (rows, m, values_seen)


def test_a_released_count_with_a_cleared_row_is_not_read_as_a_group() -> None:
    # A perturbed cell's row is cleared (its entries 0, its value 0) before the means: it determines nothing.
    # The first row keeps an explicit zero where the cleared row had an atom.
    a = sp.csr_matrix(
        (np.array([0.0, 1.0, 1.0, 1.0]), np.array([0, 0, 1, 2]), np.array([0, 1, 4])), shape=(2, 3)
    )
    b = np.array([0.0, 5.0])
    mat = sp.csr_matrix(np.array([[1.0, 0.0, 0.0]]))
    truth = np.array([2.0, 1.0, 2.0])
    got = _mean_counts(a, b, truth, [(mat, np.ones(1), None)], [{"P"}, {"T"}], sp.csr_matrix((0, 3)))
    assert got == {}
