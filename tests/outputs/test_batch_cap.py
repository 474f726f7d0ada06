"""The programmes over all open ends at once only look for whole vertices (certificates): cutting them short
(``BATCH_ITERATIONS``, issue 36) leaves every end to its own programme and changes no interval. Checked against
the whole solutions enumerated one by one."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.outputs import extremes as ex
from privrisk.outputs.intervals import Region


def _brute(a: np.ndarray, b: np.ndarray, g: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """The least and largest value of each total over every whole x in [0, top]ⁿ with A·x = b."""
    values = [g @ np.array(x, dtype=float) for x in itertools.product(range(top + 1), repeat=a.shape[1])
              if np.array_equal(a @ np.array(x, dtype=float), b)]  # fmt: skip
    stack = np.array(values)
    return stack.min(axis=0), stack.max(axis=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0, 1, 3]))
def test_a_cut_short_batch_changes_no_interval(seed: int, cap: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 6)), int(rng.integers(1, 4))
    a = (rng.random((m, n)) < 0.6).astype(float)
    truth = rng.integers(0, 3, n).astype(float)
    b = a @ truth
    g = (rng.random((4, n)) < 0.5).astype(float)
    # Every unknown in no equation is unbounded above; the enumeration's box must hold every solution.
    a = np.vstack([a, np.ones(n)])
    b = np.append(b, truth.sum())
    want_lo, want_hi = _brute(a, b, g, int(truth.sum()))
    saved = ex.BATCH_ITERATIONS
    ex.BATCH_ITERATIONS = cap  # hypothesis runs many examples per test: no function-scoped monkeypatch
    try:
        region = Region(sp.csr_matrix(a), b, lower=np.zeros(n), integer=np.ones(n, bool), known=truth)
        ends = region.extremes(sp.csr_matrix(g))
    finally:
        ex.BATCH_ITERATIONS = saved
    assert ends.lo.tolist() == want_lo.tolist()
    assert ends.hi.tolist() == want_hi.tolist()
    assert ends.lo_exact.all() and ends.hi_exact.all() and not ends.undecided.any()
