"""HiGHS's crossovers sent to processes of their own (``Program.start_soon``): a Region whose blocks of sums find
their first vertex there, and a sub-table's programme, give what crossing over in the caller gives, to the bit; and
each linear end is scipy's linprog optimum over the whole system (an independent solver)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import privrisk._workers as workers
import privrisk.outputs.nearby as nearby
import privrisk.solver as solver
from outputs_helpers import released_cube
from privrisk.outputs.intervals import Region

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")


def _system(seed: int) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray, sp.csr_matrix]:
    """Three released cubes of real values side by side, and totals over one block or several."""
    rng = np.random.default_rng(seed)
    a = sp.csr_matrix(sp.block_diag([sp.csr_matrix(released_cube(rng)[3]) for _ in range(3)]))
    n = a.shape[1]
    truth = rng.integers(0, 6, n) * rng.uniform(0.5, 2.0, n)
    g = sp.csr_matrix((rng.random((8, n)) < 0.2).astype(float))
    return a, a @ truth, truth, g


def _region(a: sp.csr_matrix, b: np.ndarray, truth: np.ndarray, elsewhere: bool) -> Region:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver, "ELSEWHERE", elsewhere)
        mp.setattr(solver, "ELSEWHERE_ROWS", 1)
        n = a.shape[1]
        return Region(a, b, lower=np.zeros(n), integer=np.zeros(n, bool), known=truth)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 100_000))
def test_blocks_started_in_processes_of_their_own_give_the_same_ends(seed: int) -> None:
    a, b, truth, g = _system(seed)
    here = _region(a, b, truth, elsewhere=False)
    away = _region(a, b, truth, elsewhere=True)
    assert not here._early and away._early  # the crossovers were sent away, each block's
    one, two = here.extremes(g), away.extremes(g)
    for field in ("lo", "hi", "lo_exact", "hi_exact", "undecided", "seen_lo", "seen_hi"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field), err_msg=field)
    for k, prog in here._lp.items():
        assert list(prog.vertex().col_status) == list(away._lp[k].vertex().col_status)
    n = a.shape[1]
    for i in range(g.shape[0]):
        c = g[i].toarray().ravel()
        for sign, end in ((1.0, two.lo[i]), (-1.0, two.hi[i])):
            ref = linprog(sign * c, A_eq=a.toarray(), b_eq=b, bounds=[(0, None)] * n, method="highs")
            assert ref.status == 0
            assert abs(end - sign * ref.fun) <= 1e-6 * max(1.0, abs(end))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 100_000))
def test_a_subtable_started_in_a_process_of_its_own_is_at_the_same_vertex(seed: int) -> None:
    a, b, truth, _ = _system(seed)
    n = a.shape[1]
    lower, upper = np.zeros(n), np.full(n, np.inf)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver, "ELSEWHERE", False)
        here = nearby._started(a, b, lower, upper, truth, started=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nearby, "ELSEWHERE_FROM_ROWS", 1)
        asked = []
        real_ask = workers.ask
        mp.setattr(workers, "ask", lambda module, request, **kw: asked.append(module) or real_ask(module, request, **kw))
        away = nearby._started(a, b, lower, upper, truth, started=True)
    assert asked == ["privrisk.solver"]
    assert list(here.vertex().row_status) == list(away.vertex().row_status)
    assert list(here.vertex().col_status) == list(away.vertex().col_status)
