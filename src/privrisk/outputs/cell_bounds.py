"""What an intruder could reconstruct of each released cell if that cell alone were suppressed.

For every cell of a count, sum or mean table (margins included), the interval [lo, hi] of its value over
everything released EXCEPT the cell itself: min and max of its total subject to the other released equations of
the joint system of :mod:`privrisk.outputs.differencing` (counts whole and ≥ 0; sums of their sign; a mean's
sum − mean × count = 0), by linear programming with HiGHS through :mod:`privrisk.solver` (an integer programme
where the linear optimum is not whole). It tells the checker whether suppressing the cell would hide it:

- a count cell is **protected** by its suppression when lo < hi (its value is not recomputable);
- a magnitude cell (a sum, or a mean × its count) is protected when the interval's distance to the true total is,
  below and above, at least the p % rule's protection level p × the largest contribution − (the total less the two
  largest): τ-ARGUS's two-sided rule (half the width would let an interval [0, 41.9 M] around a total of 41.5 M
  pass, though its upper end is 0.4 M away).

A cell shown by two outputs (or twice) is known while one of them is shown: its interval is its value. A hidden
mean's interval is its sum's over its count where the rest determines the count; otherwise sum / count over the two
intervals (a valid but wider bound, marked not exact).

Work, cheapest first:

1. a cell released twice (by two outputs, or twice in one) is known while one copy is shown;
2. identities: a cell that other released cells make up exactly (its margin less its siblings, the margin
   released or made up of another table's cells, down to the grand total; or a sum of finer cells) is given
   back: its interval is its value. Each identity is checked atom by atom (by fingerprints above
   :data:`~privrisk.outputs.cell_identities.EXACT_CHECK` atoms);
3. programmes: the cells of one connected block share one HiGHS model (primal simplex, warm started); a cell's
   equation is freed, its two programmes solved, the equation restored.

The programmes share one budget of simplex iterations (:data:`CELL_ITERATIONS`; deterministic, unlike seconds;
an iteration on a large block costs more of it), failing cells first; a block of more than
:data:`CELL_BLOCK_ROWS` equations gets no programme. An end left over keeps a valid outer bound (the bounds the
remaining equations imply) and the cell is counted as not exact (``cells_undecided``). Every interval holds the
truth, and only an exact one can show a cell protected: an outer interval says "not protected" or nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privrisk.outputs.cell_identities import Certificates
from privrisk.outputs.intervals import MIP_ROWS, WORK_ROWS
from privrisk.outputs.reduction import propagate
from privrisk.solver import Program

if TYPE_CHECKING:
    from privrisk.outputs.differencing import Differencing, System
    from privrisk.outputs.policy import Policy
    from privrisk.outputs.spec import OutputSpec

__all__ = ["CELL_BLOCK_ROWS", "CELL_ITERATIONS", "CellBounds", "cell_bounds", "hidden_cells", "protected", "system_bounds"]

# Simplex iterations all cells' programmes of one call may take together; cells left then keep an outer interval.
# An iteration on a block of more equations than ``WORK_ROWS`` costs (equations / WORK_ROWS)² of it, as in
# :mod:`privrisk.outputs.intervals`.
CELL_ITERATIONS = 20_000_000
# Blocks of more equations get no programme at all: the start from the truth (a crossover) alone takes minutes on
# the joint system of the large request of ``benchmarks/outputs.py`` (one block of about 200,000 unknowns), and each
# cell would need two programmes on it. Their cells keep an outer interval, marked not exact (never protected).
CELL_BLOCK_ROWS = 5_000
# Up to this many equations a cell's outer interval is the propagation of its block without its own equation;
# above, one propagation per block without every equation any cell of the call frees (valid for each of them).
PROPAGATE_ROWS = 2_000
# Branch-and-bound nodes of one integer programme.
NODES = 2_000
_TOL = 1e-7


@dataclass(frozen=True)
class CellBounds:
    """The intervals of some totals over the atoms: ``lo``, ``hi`` and whether both ends are exact."""

    lo: np.ndarray
    hi: np.ndarray
    exact: np.ndarray


def _whole(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-6 * np.maximum(1.0, np.abs(x))))


class _Budget:
    def __init__(self, iterations: int) -> None:
        self.left = int(iterations)


class _Model:
    """One block's programmes, solved again and again with rows freed and objectives changed: the linear one
    (primal simplex from the last basis), and the integer one where whole unknowns come out fractional."""

    def __init__(self, a: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                 integer: np.ndarray, known: np.ndarray | None = None) -> None:  # fmt: skip
        self.a, self.b, self.lower, self.upper, self.integer = a, b, lower, upper, integer
        self.lp = Program(a, b, b, lower=lower, upper=upper)
        if known is not None and a.shape[0]:
            # From the truth, not from scratch: a large block's first phase is its costliest part.
            self.lp.start_at(known)
        self.mip: Program | None = None
        self.freed: set[int] = set()
        # The budget one simplex iteration here costs.
        self.weight = max(1, int((a.shape[0] / WORK_ROWS) ** 2))

    def free(self, rows: Sequence[int]) -> None:
        for r in rows:
            self.freed.add(int(r))
            for prog in (self.lp, self.mip):
                if prog is not None:
                    prog.set_row_bounds(int(r), -np.inf, np.inf)

    def fix(self, rows: Sequence[int]) -> None:
        for r in rows:
            self.freed.discard(int(r))
            for prog in (self.lp, self.mip):
                if prog is not None:
                    prog.set_row_bounds(int(r), float(self.b[r]), float(self.b[r]))

    def bound(
        self, idx: np.ndarray, sign: float, budget: _Budget, deadline: float
    ) -> tuple[str, float, bool]:
        """The least (``sign`` 1) or largest (−1) Σ x[idx]: (status ok, unbounded or undecided; value; exact)."""
        if budget.left < self.weight or time.perf_counter() > deadline:
            return "undecided", np.nan, False
        val = np.ones(idx.size)
        run = self.lp.minimise if sign > 0 else self.lp.maximise
        sol = run(
            idx,
            val,
            iterations=budget.left // self.weight,
            deadline=None if not np.isfinite(deadline) else deadline,
        )
        budget.left -= self.lp.iterations * self.weight
        if sol.status == "unbounded":
            return "unbounded", -sign * np.inf, True
        if sol.status != "optimal" or sol.x is None:
            return "undecided", np.nan, False
        if not self.integer.any() or _whole(sol.x[self.integer]):
            value = float(np.round(sol.value)) if self.integer[idx].all() else sol.value
            return "ok", value, True
        if self.a.shape[0] > MIP_ROWS:
            # Too large for an integer programme (as in :mod:`privrisk.outputs.intervals`): the rounded bound.
            if self.integer[idx].all():
                return "ok", float(np.ceil(sol.value - 1e-6) if sign > 0 else np.floor(sol.value + 1e-6)), False
            return "ok", sol.value, False
        if self.mip is None:
            self.mip = Program(
                self.a, self.b, self.b, lower=self.lower, upper=self.upper, integer=self.integer
            )
            for r in self.freed:
                self.mip.set_row_bounds(r, -np.inf, np.inf)
        run = self.mip.minimise if sign > 0 else self.mip.maximise
        msol = run(idx, val, nodes=NODES, iterations=max(budget.left // self.weight, 1))
        budget.left -= self.mip.iterations * self.weight
        if msol.status == "optimal":
            return "ok", msol.value, True
        bound = msol.bound if np.isfinite(msol.bound) else sol.value
        bound = max(bound, sol.value) if sign > 0 else min(bound, sol.value)
        if self.integer[idx].all():
            bound = float(np.ceil(bound - 1e-6)) if sign > 0 else float(np.floor(bound + 1e-6))
        return "ok", bound, False


def system_bounds(
    system: System,
    targets: Sequence[np.ndarray],
    *,
    drop: Sequence[Sequence[int]] | None = None,
    order: Sequence[int] | None = None,
    deadline: float = np.inf,
    memo: dict[int, Any] | None = None,
    budget: Any = None,
) -> CellBounds:
    """The interval of Σ x[t] for each target t (an array of unknowns) over the system without its ``drop``-ed
    releases (one list of equation indices per target, each taken out once: a cell released twice stays known).

    ``memo`` (a dict the caller keeps while the system lives) saves the set-up between calls on one system.
    Targets are solved in ``order`` (default: as given) while the budget of simplex iterations lasts (and before
    ``deadline``, a ``time.perf_counter()`` instant, if one is given); later ones keep an outer interval, marked
    not exact. Values are in the system's units (a magnitude's sums divided by its scale).

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> from privrisk.outputs.differencing import System
        >>> a = sp.csr_matrix(np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]))
        >>> x = np.array([3.0, 1.0, 2.0, 4.0])   # a 2 × 2 table: its rows, then its columns
        >>> s = System(a, a @ x, np.ones(4, int), np.zeros(4), np.full(4, np.inf), x, np.ones(4, bool))
        >>> r = system_bounds(s, [np.array([0])])            # one interior cell, from the margins
        >>> r.lo.tolist(), r.hi.tolist()                     # Fréchet: max(0, 4 + 5 − 10) … min(4, 5)
        ([0.0], [4.0])
        >>> r = system_bounds(s, [np.array([0, 1])], drop=[[0]])   # the first row total, itself hidden
        >>> r.lo.tolist(), r.hi.tolist()
        ([4.0], [4.0])
    """
    m, n = system.a.shape
    k = len(targets)
    drop = [()] * k if drop is None else drop
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    exact = np.zeros(k, dtype=bool)
    b = system.b
    integer = np.asarray(system.integer, dtype=bool)
    if integer.size == 1 and n != 1:
        integer = np.full(n, bool(integer))
    times = np.asarray(system.times, dtype=np.int64)
    budget = budget if budget is not None else _Budget(CELL_ITERATIONS)
    if memo is not None and id(system) in memo:
        key, csr, row_comp, col_comp, models = memo[id(system)]
    else:
        csr = sp.csr_matrix(system.a)
        csr.sort_indices()
        key = {}
        for e in range(m):
            lo_, hi_ = csr.indptr[e], csr.indptr[e + 1]
            if np.all(csr.data[lo_:hi_] == 1.0):
                key.setdefault(csr.indices[lo_:hi_].tobytes(), e)
        coo = csr.tocoo()
        graph = sp.csr_matrix((np.ones(coo.nnz, dtype=np.int8), (coo.row, coo.col + m)), shape=(m + n, m + n))
        _, comp = connected_components(graph, directed=False)
        row_comp, col_comp = comp[:m], comp[m:]
        models = {}
        if memo is not None:
            memo[id(system)] = (key, csr, row_comp, col_comp, models)

    def model(c: int) -> tuple[_Model | None, np.ndarray, np.ndarray, dict[int, int], sp.csr_matrix]:
        """Block ``c``'s programmes (None above :data:`CELL_BLOCK_ROWS` equations), equations, unknowns."""
        if c not in models:
            rows = np.flatnonzero(row_comp == c)
            cols = np.flatnonzero(col_comp == c)
            sub = sp.csr_matrix(csr[rows][:, cols])
            where = {int(e): i for i, e in enumerate(rows)}
            mdl = None
            if rows.size <= CELL_BLOCK_ROWS:
                mdl = _Model(
                    sub, b[rows], system.lower[cols], system.upper[cols], integer[cols], system.known[cols]
                )
            models[c] = (mdl, rows, cols, where, sub)
        return models[c]

    # Equations some target of this call frees: without all of them, one propagation bounds every target.
    everyone_frees = {int(r) for t in range(k) for r in drop[t]}
    shared: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def outer(c: int, freed_here: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Valid bounds of block ``c``'s unknowns without the equations ``freed_here`` (block-local)."""
        _, rows, cols, where, sub = model(c)
        lower, upper, whole = system.lower[cols], system.upper[cols], integer[cols]
        if rows.size <= PROPAGATE_ROWS:
            keep = np.setdiff1d(np.arange(rows.size), freed_here)
            return propagate(sub[keep], b[rows][keep], lower, upper, whole)
        if c not in shared:
            gone = [where[r] for r in everyone_frees if r in where]
            keep = np.setdiff1d(np.arange(rows.size), gone)
            shared[c] = propagate(sub[keep], b[rows][keep], lower, upper, whole)
        return shared[c]

    for t in order if order is not None else range(k):
        idx = np.sort(np.asarray(targets[t], dtype=np.int64))
        value = float(system.known[idx].sum())
        if idx.size == 0:
            lo[t] = hi[t] = 0.0
            exact[t] = True
            continue
        gone: dict[int, int] = {}
        for r in drop[t]:
            gone[int(r)] = gone.get(int(r), 0) + 1
        e = key.get(idx.astype(np.int32).tobytes())
        if e is not None and times[e] > gone.get(e, 0):
            lo[t] = hi[t] = float(b[e])  # the same total is released by a cell still shown
            exact[t] = True
            continue
        freed = np.array(sorted(r for r, g in gone.items() if times[r] <= g), dtype=np.int64)
        total = {1.0: 0.0, -1.0: 0.0}
        tight = {1.0: True, -1.0: True}
        for c in np.unique(col_comp[idx]).tolist():
            mine = idx[col_comp[idx] == c]
            if not np.any(row_comp == c):
                for sign in (1.0, -1.0):
                    end = system.lower[mine] if sign > 0 else system.upper[mine]
                    total[sign] += float(end.sum())
                continue
            mdl, _, cols, where, _ = model(c)
            local = np.searchsorted(cols, mine)
            freed_here = [where[int(r)] for r in freed if row_comp[r] == c]
            if mdl is None:
                o_lo, o_hi = outer(c, freed_here)
                total[1.0] += float(o_lo[local].sum())
                total[-1.0] += float(o_hi[local].sum())
                tight[1.0] = tight[-1.0] = False
                continue
            mdl.free(freed_here)
            try:
                for sign in (1.0, -1.0):
                    status, v, ok = mdl.bound(local, sign, budget, deadline)
                    if status == "undecided":
                        o_lo, o_hi = outer(c, freed_here)
                        v = float(o_lo[local].sum()) if sign > 0 else float(o_hi[local].sum())
                        ok = False
                    total[sign] += v
                    tight[sign] &= ok
            finally:
                mdl.fix(freed_here)
        lo[t] = min(total[1.0], value)
        hi[t] = max(total[-1.0], value)
        exact[t] = tight[1.0] and tight[-1.0]
        if not integer[idx].all() and hi[t] - lo[t] <= 1e-6 * max(1.0, abs(value)):
            lo[t] = hi[t] = value  # one value, up to the solver's precision: the truth's
    return CellBounds(lo, hi, exact)


def protected(
    kind: str, lo: float, hi: float, *, total: float, top1: float, top2: float, count: float, p: float
) -> bool:
    """Whether suppressing a cell hides it: its interval (over everything else released) is not a single value,
    and for a magnitude (``kind`` sum or mean: ``lo``, ``hi`` of the value; ``count`` people) its distance to the
    true total, below and above, is each at least the p % rule's protection level p × largest − (total − the two
    largest) (τ-ARGUS's; ``top2`` is the sum of the two largest).

    Example:
        >>> # 1000 in all, the largest 900, the two largest 990: 10 % of 900 less the other 10 is 80 a side.
        >>> protected("sum", 900.0, 1100.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
        True
        >>> protected("sum", 990.0, 1010.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
        False
        >>> # Half of [0, 41.9 M] is far wider than 10 % of 40 M, but the upper end is only 0.4 M away.
        >>> protected("sum", 0.0, 41.9e6, total=41.5e6, top1=40e6, top2=41e6, count=5, p=0.1)
        False
    """
    if not (np.isfinite(lo) or np.isfinite(hi)):
        return True
    if kind == "mean":
        lo, hi = lo * count, hi * count
    scale = max(1.0, abs(total) if np.isfinite(total) else 1.0)
    if not (hi - lo) > _TOL * scale:
        return False
    if kind in ("sum", "mean") and np.isfinite(top1) and top1 > 0 and np.isfinite(total):
        level = p * top1 - (total - (top2 if np.isfinite(top2) else top1))
        return bool(min(hi - total, total - lo) >= level)
    return True


def _column(cells: pd.DataFrame, col: str) -> np.ndarray:
    if col not in cells:
        return np.full(len(cells), np.nan)
    return pd.to_numeric(cells[col], errors="coerce").to_numpy(dtype=float)


class _Plan:
    """The targets of some cells over one joint system: a count or sum cell is its row's total; a mean cell
    (sum − mean × count) is its sum over its count, two targets."""

    def __init__(self, diff: Differencing) -> None:
        self.diff = diff
        self.system = next(iter(diff.systems.values())) if diff.systems else None
        self.targets: list[np.ndarray] = []
        self.drops: list[list[int]] = []
        self.urgent: list[bool] = []

    def add(self, idx: np.ndarray, drop: list[int], urgent: bool = False) -> int:
        self.targets.append(np.asarray(idx, dtype=np.int64))
        self.drops.append(drop)
        self.urgent.append(urgent)
        return len(self.targets) - 1

    def parts(self, key: str | None, e: int, mean: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """A cell's sum (or count) unknowns, and a mean's count unknowns (None for other cells)."""
        assert self.system is not None
        a = self.system.a
        idx = a.indices[a.indptr[e] : a.indptr[e + 1]]
        if key is None:
            return idx, None
        n, o = self.system.atoms, self.system.offsets[key]
        own = idx[(idx >= o) & (idx < o + n)]
        return own, (own - o if mean else None)

    def solve(self, budget: Any = None, memo: dict[int, Any] | None = None) -> CellBounds:
        k = len(self.targets)
        if self.system is None or k == 0:
            return CellBounds(np.full(k, np.nan), np.full(k, np.nan), np.zeros(k, bool))
        order = sorted(range(k), key=lambda i: (not self.urgent[i], self.targets[i].size))
        return system_bounds(
            self.system, self.targets, drop=self.drops, order=order, memo=memo, budget=budget
        )


def _mean(
    s: tuple[float, float, bool], c: tuple[float, float, bool], scale: float
) -> tuple[float, float, bool]:
    """A mean's interval from its sum's (in the system's units) and its count's: exact where the count is one
    value; otherwise sum / count over the two intervals (valid but wider), the count at least 1."""
    s_lo, s_hi, s_ok = s[0] * scale, s[1] * scale, s[2]
    n_lo, n_hi, n_ok = c
    if n_ok and n_lo == n_hi and n_lo >= 1:
        return s_lo / n_lo, s_hi / n_lo, s_ok
    n_lo, n_hi = max(n_lo, 1.0), max(n_hi, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        corners = [s_lo / n_lo, s_lo / n_hi, s_hi / n_lo, s_hi / n_hi]
    corners = [0.0 if np.isnan(v) else v for v in corners]
    return float(min(corners)), float(max(corners)), False


def cell_bounds(
    diff: Differencing,
    tables: Sequence[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    *,
    released: Sequence[tuple[OutputSpec, pd.DataFrame]] | None = None,
    first: dict[str, np.ndarray] | None = None,
    budget: int | None = None,
) -> tuple[dict[str, pd.DataFrame], int]:
    """Each table's cells' intervals over everything released but the cell: per output, a frame aligned with
    its cells (``lo``, ``hi``, ``exact``, ``protected``; NaN/None where the cell is not a released number), and
    how many cells kept an outer interval when the budget ran out.

    ``released`` are all the tables that entered the differencing (default: ``tables``); ``first`` marks, per
    output, the cells to solve first (those failing the primary rules); ``budget`` is the programmes' simplex
    iterations (default :data:`CELL_ITERATIONS`).
    """
    certificates = Certificates(diff, released if released is not None else tables)
    plan = _Plan(diff)
    system = plan.system
    # Per (output, cell): its value's interval straight away, or the targets whose intervals give it.
    direct: dict[tuple[str, int], tuple[float, float, bool]] = {}
    pending: dict[tuple[str, int], tuple[str | None, int, int | None]] = {}
    for spec, _cells in tables:
        if spec.name not in diff.cell_rows or system is None:
            continue
        key, rows = diff.cell_rows[spec.name]
        urgent = first.get(spec.name) if first else None
        for i, e in enumerate(rows.tolist()):
            if e < 0:
                continue
            hurry = bool(urgent is not None and urgent[i])
            own, people = plan.parts(key, e, spec.kind == "mean")
            if people is None:
                if system.times[e] >= 2 or certificates.determined(key, e):
                    v = float(system.b[e]) * system.scales.get(key, 1.0)
                    direct[(spec.name, i)] = (v, v, True)
                    continue
                pending[(spec.name, i)] = (key, plan.add(own, [e], hurry), None)
            else:
                pending[(spec.name, i)] = (key, plan.add(own, [e], hurry), plan.add(people, [e], hurry))
    memo: dict[int, Any] = {}
    left = _Budget(CELL_ITERATIONS if budget is None else budget)
    res = plan.solve(left, memo)
    frames: dict[str, pd.DataFrame] = {}
    undecided = 0
    for spec, cells in tables:
        n_cells = len(cells)
        lo, hi = np.full(n_cells, np.nan), np.full(n_cells, np.nan)
        exact = np.zeros(n_cells, dtype=bool)
        for i in range(n_cells):
            if (spec.name, i) in direct:
                lo[i], hi[i], exact[i] = direct[(spec.name, i)]
            elif (spec.name, i) in pending:
                key, t, t2 = pending[(spec.name, i)]
                scale = system.scales.get(key, 1.0) if system is not None else 1.0
                got = (float(res.lo[t]), float(res.hi[t]), bool(res.exact[t]))
                if t2 is None:
                    lo[i], hi[i], exact[i] = got[0] * scale, got[1] * scale, got[2]
                else:
                    lo[i], hi[i], exact[i] = _mean(
                        got, (float(res.lo[t2]), float(res.hi[t2]), bool(res.exact[t2])), scale
                    )
        if spec.name in diff.cell_rows:
            key = diff.cell_rows[spec.name][0]
            for i, members in diff.open_means.get(spec.name, {}).items():
                lo[i], hi[i], exact[i] = _ratio(diff, key, members, memo=memo, budget=left)
        undecided += int(np.sum(~np.isnan(lo) & ~exact))
        frames[spec.name] = _frame(spec, cells, lo, hi, exact, policy)
    return frames, undecided


def _established(exact: bool, guard: bool) -> bool | None:
    """What an interval says of a cell's protection: an exact one, yes or no; an outer one (wider than the
    truth), only no (the truth is narrower still); its yes would be unproven, a wrong "safe": unknown (None)."""
    return guard if exact or not guard else None


def _frame(spec: OutputSpec, cells: pd.DataFrame, lo: np.ndarray, hi: np.ndarray, exact: np.ndarray,
           policy: Policy) -> pd.DataFrame:  # fmt: skip
    total, top1, top2 = (_column(cells, c) for c in ("total", "top1", "top2"))
    counts = _column(cells, "n")
    kind = spec.kind if spec.kind != "sum" or not spec.weights else "count"
    guard = [
        None
        if np.isnan(lo[i])
        else _established(
            bool(exact[i]),
            protected(
                kind,
                lo[i],
                hi[i],
                total=total[i],
                top1=top1[i],
                top2=top2[i],
                count=counts[i],
                p=policy.safe_pratio_p,
            ),
        )
        for i in range(len(cells))
    ]
    return pd.DataFrame({"lo": lo, "hi": hi, "exact": exact, "protected": guard})


def hidden_cells(
    diff: Differencing,
    spec: OutputSpec,
    cells: pd.DataFrame,
    hidden: Sequence[int],
    *,
    deadline: float = np.inf,
    budget: int | None = None,
) -> CellBounds:
    """The intervals of the cells ``hidden`` (positions in ``cells``) of one released table when all of them are
    suppressed at once: over everything else released (other outputs, the table's other cells, the ledger).
    A mean's interval is its value's (its sum's over its count); NaN where the cell is not a released number.
    ``budget``: simplex iterations (default :data:`CELL_ITERATIONS`); ``deadline`` (a ``time.perf_counter()``
    instant) only as a safety net: a result it cuts short is marked not exact.
    """
    k = len(hidden)
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    exact = np.zeros(k, dtype=bool)
    if spec.name not in diff.cell_rows or not diff.systems:
        return CellBounds(lo, hi, exact)
    key, rows = diff.cell_rows[spec.name]
    drop = [int(rows[i]) for i in hidden if rows[i] >= 0]
    plan = _Plan(diff)
    system = plan.system
    assert system is not None
    slots: dict[int, tuple[int, int | None]] = {}
    for t, i in enumerate(hidden):
        if rows[i] >= 0:
            own, people = plan.parts(key, int(rows[i]), spec.kind == "mean")
            slots[t] = (plan.add(own, drop), None if people is None else plan.add(people, drop))
    left = _Budget(CELL_ITERATIONS if budget is None else budget)
    if slots:
        targets = plan.targets
        res = system_bounds(system, targets, drop=plan.drops, deadline=deadline, budget=left)
        scale = system.scales.get(key, 1.0)
        for t, (t1, t2) in slots.items():
            got = (float(res.lo[t1]), float(res.hi[t1]), bool(res.exact[t1]))
            if t2 is None:
                lo[t], hi[t], exact[t] = got[0] * scale, got[1] * scale, got[2]
            else:
                lo[t], hi[t], exact[t] = _mean(
                    got, (float(res.lo[t2]), float(res.hi[t2]), bool(res.exact[t2])), scale
                )
    for t, i in enumerate(hidden):
        members = diff.open_means.get(spec.name, {}).get(int(i))
        if members is not None:
            lo[t], hi[t], exact[t] = _ratio(diff, key, members, drop=drop, budget=left)
    return CellBounds(lo, hi, exact)


def _ratio(
    diff: Differencing,
    key: str | None,
    members: np.ndarray,
    *,
    drop: Sequence[int] = (),
    memo: dict[int, Any] | None = None,
    budget: Any = None,
) -> tuple[float, float, bool]:
    """The interval of a mean not in the system (its group has missing values of its variable): sum / count over
    the two intervals, the count at least 1 (the mean of no one is not a number); valid but not exact."""
    system = next(iter(diff.systems.values()))
    n = system.atoms
    own = members + system.offsets[key] if key in system.offsets else None
    res = system_bounds(system, [members] + ([own] if own is not None else []), drop=[list(drop)] * (2 if own is not None else 1),
                        memo=memo, budget=budget)  # fmt: skip
    count = (float(res.lo[0]), float(res.hi[0]), False)
    if own is None:
        return 0.0, np.inf, False
    del n
    lo, hi, _ = _mean((float(res.lo[1]), float(res.hi[1]), False), count, system.scales.get(key, 1.0))
    return lo, hi, False
