"""privrisk.solver against scipy's linprog and milp (a second route to HiGHS) on random small programmes, and its
status translation on programmes whose answer is known by hand."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from privrisk.solver import Program, solve


@st.composite
def programmes(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 6))
    m = draw(st.integers(1, 4))
    a = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n), min_size=m, max_size=m)))
    x = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))  # a feasible point: b = A·x
    c = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    return a.astype(float), a @ x, c, np.full(n, 8.0)


@settings(max_examples=60, deadline=None)
@given(programmes(), st.booleans())
def test_matches_scipy(prog: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], whole: bool) -> None:
    a, b, c, upper = prog
    n = a.shape[1]
    ours = solve(c, sp.csr_matrix(a), b, b, lower=np.zeros(n), upper=upper, integer=[whole] * n)
    if whole:
        ref = milp(c, constraints=LinearConstraint(a, b, b), bounds=Bounds(0, upper), integrality=np.ones(n))
        assert ref.status == 0
        assert ours.value == pytest.approx(ref.fun, abs=1e-7)
    else:
        ref = linprog(c, A_eq=a, b_eq=b, bounds=list(zip(np.zeros(n), upper, strict=True)), method="highs")
        assert ref.status == 0
        assert ours.value == pytest.approx(ref.fun, abs=1e-7)
    assert ours.x is not None and np.allclose(a @ ours.x, b, atol=1e-7)


def test_resolve_with_changed_objective_gives_every_interval() -> None:
    # x0 + x1 = 3, x1 + x2 = 2, x ≥ 0: x1 ∈ [0, 2], x0 ∈ [1, 3], x2 ∈ [0, 2] (by hand).
    a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    prog = Program(a, [3, 2], [3, 2], lower=[0, 0, 0], upper=[np.inf] * 3)
    got = [(prog.minimise([j], [1.0]).value, prog.maximise([j], [1.0]).value) for j in range(3)]
    assert got == [(1.0, 3.0), (0.0, 2.0), (0.0, 2.0)]


def test_status_is_translated() -> None:
    a = np.array([[1.0, 1.0]])
    assert solve([1, 1], a, [5], [5], lower=[0, 0], upper=[2, 2]).status == "infeasible"
    assert solve([-1, 0], a, [-np.inf], [np.inf], lower=[0, 0], upper=[np.inf] * 2).status == "unbounded"
    sol = Program(a, [1], [1], lower=[0, 0], upper=[1, 1]).minimise([0], [1.0], time_limit=0.0)
    assert sol.status == "timeout" and np.isnan(sol.value) and sol.x is None


def test_the_first_programme_prints_nothing_on_stdout() -> None:
    # HiGHS prints a banner on the C library's stdout when its first instance is made; --json would break.
    code = (
        "from privrisk.solver import solve; print(solve([1], [[1.0]], [1], [1], lower=[0], upper=[2]).value)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "1.0\n"


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_a_node_limit_keeps_a_feasible_incumbent_and_a_true_bound(seed: int) -> None:
    """A search ended by its node limit: the incumbent (if any) is a whole feasible point no better than the true
    optimum (scipy's milp, a second route), and the dual bound is never above that optimum."""
    rng = np.random.default_rng(seed)
    n = 30  # three knapsack rows over 30 items: about half the searches need more than one node
    a = rng.integers(30, 400, size=(3, n)).astype(float)
    b = np.floor(a.sum(axis=1) / 2) + 0.5  # a half-integral right side: the linear optimum is fractional
    c = rng.integers(10, 300, size=n).astype(float)
    prog = Program(a, b, [np.inf] * 3, lower=np.zeros(n), upper=np.ones(n), integer=[True] * n)
    sol = prog.minimise(np.arange(n), c, nodes=1)
    ref = milp(c, constraints=LinearConstraint(a, b, np.inf), bounds=Bounds(0, 1), integrality=np.ones(n))
    assert ref.status == 0
    if sol.optimal:
        assert sol.value == pytest.approx(ref.fun)
        return
    assert sol.status == "timeout" and sol.x is None
    assert not sol.bound > ref.fun + 1e-7  # NaN (no bound) or at most the optimum
    if sol.incumbent is not None:
        x = sol.incumbent
        assert np.array_equal(x, np.round(x)) and np.all(a @ x >= b - 1e-9)
        assert c @ x >= ref.fun - 1e-7


@settings(max_examples=40, deadline=None)
@given(programmes(), st.integers(0, 2))
def test_a_primal_simplex_that_stalls_unperturbed_goes_on_with_perturbation(
    prog: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], cap: int
) -> None:
    # Re-solved programmes run primal simplex without bound perturbation; past a few iterations per row and column
    # (here 0 to 2: the fallback taken on almost every programme) they go on with it. Every objective re-solved so
    # must still be scipy's optimum; an iteration limit still ends a programme where it says.
    import privrisk.solver as solver

    a, b, c, upper = prog
    n = a.shape[1]
    bounds = list(zip(np.zeros(n), upper, strict=True))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver, "_UNPERTURBED_PER_SIZE", cap)
        p = Program(sp.csr_matrix(a), b, b, lower=np.zeros(n), upper=upper)
        nz = np.flatnonzero(c)
        for sign in (1.0, -1.0, 1.0):
            ref = linprog(sign * c, A_eq=a, b_eq=b, bounds=bounds, method="highs")
            sol = p.minimise(nz, sign * c[nz])
            assert ref.status == 0 and sol.status == "optimal"
            assert sol.value == pytest.approx(ref.fun, abs=1e-7)
        p.minimise(nz, -c[nz], iterations=0)
        assert p.iterations == 0


def test_programmes_side_by_side_give_what_one_thread_gives_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each programme on its own Program, solved in threads: every optimum the same as solved one after another
    (and as scipy's linprog), in the order asked; the threads were used."""
    import threading

    import privrisk.solver as solver

    rng = np.random.default_rng(7)
    cases = []
    for _ in range(24):
        a = (rng.random((6, 14)) < 0.4).astype(float)
        b = a @ rng.integers(0, 5, 14)
        cases.append((a, b, rng.integers(-3, 4, 14).astype(float)))
    names: set[str] = set()

    def optimum(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
        names.add(threading.current_thread().name)
        a, b, c = case
        return (
            Program(sp.csr_matrix(a), b, b, lower=np.zeros(14), upper=np.full(14, 9.0))
            .minimise(np.arange(14), c)
            .value
        )

    alone = [optimum(case) for case in cases]
    names.clear()
    monkeypatch.setattr(solver, "SIDE_BY_SIDE_LEAST", 1)
    monkeypatch.setattr(solver, "_cores", lambda: 2)
    together = solver.side_by_side(optimum, cases)
    assert together == alone
    assert all(name.startswith("privrisk-programme") for name in names)
    for (a, b, c), value in zip(cases, alone, strict=True):
        ref = linprog(c, A_eq=a, b_eq=b, bounds=[(0, 9)] * 14, method="highs")
        assert value == pytest.approx(ref.fun, abs=1e-7)


@pytest.mark.parametrize("error", [KeyboardInterrupt, ValueError])
def test_an_error_or_ctrl_c_in_one_programme_side_by_side_reaches_the_caller(
    monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
) -> None:
    """Ctrl-C (or any error) in one item's work ends the whole call with it; the items not yet started are dropped
    (not run after the caller has gone)."""
    import threading

    import privrisk.solver as solver

    monkeypatch.setattr(solver, "SIDE_BY_SIDE_LEAST", 1)
    monkeypatch.setattr(solver, "_cores", lambda: 2)
    started: list[int] = []
    gate = threading.Event()

    def work(i: int) -> int:
        started.append(i)
        if i == 3:
            raise error
        if i > 3:
            gate.wait(5)  # held until the caller has seen the error
        return i

    with pytest.raises(error):
        solver.side_by_side(work, list(range(200)))
    gate.set()
    for thread in threading.enumerate():  # let the threads end what they hold; the rest must not start
        if thread.name.startswith("privrisk-programme"):
            thread.join(30)
    assert len(started) < 200


def _cube_margins(seed: int) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """The three two-way margins of a random r × c × l table of real values, and the table."""
    rng = np.random.default_rng(seed)
    r, c, layers = (int(x) for x in rng.integers(2, 5, 3))
    cells = np.arange(r * c * layers).reshape(layers, r, c)
    rows = [cells[k, i, :] for k in range(layers) for i in range(r)]
    rows += [cells[k, :, j] for k in range(layers) for j in range(c)]
    rows += [cells[:, i, j] for i in range(r) for j in range(c)]
    a = np.zeros((len(rows), cells.size))
    for i, at in enumerate(rows):
        a[i, at] = 1.0
    truth = rng.integers(0, 4, cells.size) * rng.uniform(0.5, 2.0, cells.size)
    return sp.csr_matrix(a), a @ truth, truth


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_without_the_rows_of_basic_slacks_every_optimum_is_the_whole_programmes(seed: int) -> None:
    # The margins of a table (rows of rank below their number) started from a point inside: the rows whose slacks
    # the vertex leaves basic are dropped, and every optimum after, and its point, is that of every row (scipy's
    # linprog over all of them, an independent solver).
    margins, b, truth = _cube_margins(seed)
    a, n = margins.toarray(), margins.shape[1]
    rng = np.random.default_rng(seed + 1)
    prog = Program(margins, b, b, lower=np.zeros(n), upper=np.full(n, np.inf))
    assert prog.start_at(truth)
    lean = prog.without_basic_rows()
    assert lean is not None and lean[1].size == np.linalg.matrix_rank(a)
    for _ in range(4):
        j = int(rng.integers(0, n))
        for sign in (1.0, -1.0):
            got = (lean[0].minimise if sign > 0 else lean[0].maximise)([j], [1.0])
            best = linprog(sign * np.eye(n)[j], A_eq=a, b_eq=b, bounds=[(0, None)] * n, method="highs")
            assert got.status == "optimal" and got.x is not None
            assert abs(got.value - sign * best.fun) <= 1e-7 * max(1.0, abs(best.fun))
            assert np.allclose(a @ got.x, b, atol=1e-7 * max(1.0, float(b.max())))


def test_an_inequality_slack_at_the_vertex_is_kept() -> None:
    # x0 + x1 = 4 twice (one of them a combination of the other) and x0 ≤ 3, slack at the truth (1, 3): the repeat
    # is left out, the inequality kept, and x0 still cannot pass 3.
    a = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 0.0]]))
    prog = Program(a, [4, 4, -np.inf], [4, 4, 3], lower=[0, 0], upper=[10, 10])
    assert prog.start_at([1.0, 3.0])
    lean = prog.without_basic_rows()
    assert lean is not None and 2 in lean[1].tolist() and lean[1].size == 2
    assert lean[0].maximise([0], [1.0]).value == 3.0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 100_000))
def test_a_vertex_found_in_a_process_of_its_own_is_the_one_found_here(seed: int) -> None:
    # The crossover sent to a process of its own (every programme, whatever its size) reaches the basis the
    # crossover here reaches, and the optima from it are scipy's linprog's (an independent solver).
    import privrisk.solver as solver

    a, b, truth = _cube_margins(seed)
    n = a.shape[1]
    here = Program(a, b, b, lower=np.zeros(n), upper=np.full(n, np.inf))
    assert here.start_at(truth)
    away = Program(a, b, b, lower=np.zeros(n), upper=np.full(n, np.inf))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver, "ELSEWHERE_ROWS", 1)
        assert away.start_soon(truth)
    assert away.start_at(truth)
    assert list(away.vertex().col_status) == list(here.vertex().col_status)
    assert list(away.vertex().row_status) == list(here.vertex().row_status)
    j = int(np.random.default_rng(seed).integers(0, n))
    got = away.maximise([j], [1.0])
    best = linprog(-np.eye(n)[j], A_eq=a.toarray(), b_eq=b, bounds=[(0, None)] * n, method="highs")
    assert got.status == "optimal" and abs(got.value + best.fun) <= 1e-7 * max(1.0, abs(best.fun))


def test_a_process_that_fails_leaves_the_crossover_to_this_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that cannot start (here: its module does not exist) answers None, and start_at crosses over here.
    import privrisk._workers as workers
    import privrisk.solver as solver

    a, b, truth = _cube_margins(7)
    n = a.shape[1]
    real_ask = workers.ask
    monkeypatch.setattr(solver, "ELSEWHERE_ROWS", 1)
    monkeypatch.setattr(workers, "ask", lambda module, request, **kw: real_ask("privrisk.no_such_module", request, **kw))
    prog = Program(a, b, b, lower=np.zeros(n), upper=np.full(n, np.inf))
    assert prog.start_soon(truth)
    assert prog.start_at(truth) and prog.vertex() is not None
    assert prog.minimise([0], [1.0]).status == "optimal"


def test_the_processes_ignore_ctrl_c_and_end_with_their_caller() -> None:
    # Ctrl-C reaches the whole process group: the caller answers it (exit 130), its processes go on to the end of
    # their request and end with it, leaving none behind; the threads that wait for their replies hold no exit up.
    code = (
        "import os, pickle, signal\n"
        "import numpy as np, scipy.sparse as sp\n"
        "import privrisk.solver as solver, privrisk._workers as workers\n"
        "solver.ELSEWHERE_ROWS = 1\n"
        "p = solver.Program(sp.csr_matrix(np.ones((2, 3))), [5, 5], [5, 5], lower=[0] * 3, upper=[10] * 3)\n"
        "assert p.start_soon([2.0, 2.0, 1.0]) and p.start_at([2.0, 2.0, 1.0])\n"
        "(process,) = workers._STARTED\n"
        "os.kill(process.pid, signal.SIGINT)\n"
        "q = solver.Program(sp.csr_matrix(np.ones((2, 3))), [5, 5], [5, 5], lower=[0] * 3, upper=[10] * 3)\n"
        "csc, (rl, rh, lo, up) = q._a, q._bounds\n"
        "ask = (csc.indptr, csc.indices, csc.data, csc.shape, rl, rh, lo, up, np.array([1.0, 1, 3]), True, False)\n"
        "pickle.dump(ask, process.stdin); process.stdin.flush()  # the same process, asked directly\n"
        "assert pickle.load(process.stdout) is not None, 'it ended on Ctrl-C'\n"
        "import threading\n"
        "talking = [t for t in threading.enumerate() if t.name.startswith('privrisk-worker')]\n"
        "assert talking and all(t.daemon for t in talking), 'exit would wait for a reply'\n"
        "print(process.pid)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.strip())
    with pytest.raises(ProcessLookupError):  # killed at the caller's exit
        import os

        os.kill(pid, 0)
