"""What an intruder could reconstruct of each released cell if that cell alone were suppressed.

For every cell of a count, sum or mean table (margins included), the interval [lo, hi] of its value over
everything released EXCEPT the cell itself: min and max of c·x subject to the other released equations A·x = b
over the atoms (x ≥ 0 and whole for counts of people; a magnitude's atom sums within their bounds), by linear
programming with HiGHS (integer programs where the linear optimum is fractional). It tells the checker whether
suppressing the cell would hide it:

- a count cell is **protected** by its suppression when lo < hi (its value is not recomputable);
- a magnitude cell (a sum, or a mean × its count) is protected when its interval is wider than its p % protection
  (the p % rule of :mod:`privrisk.outputs.rules` applied to the intruder's uncertainty, as for the atoms in
  :mod:`privrisk.outputs.differencing`): width / 2 + (total − the two largest) ≥ p × the largest, and the
  interval is not a single value. Otherwise suppressing it alone is an approximate (or exact) disclosure.

A cell shown by two outputs (or twice) is known while one of them is shown: its interval is its value. Means:
a mean whose group's count the released counts determine is a sum (mean × count, as in the differencing): its
interval is its sum's divided by the count; a mean of a group whose count is not determined gives no equation,
and its interval is that of sum / count over the sums' and the counts' intervals (both ≥ 1 person).

Work, cheapest first:

1. a cell released twice (by two outputs, or twice in one) is known while one copy is shown;
2. identities: a cell that other released cells make up exactly (its margin less its siblings, the margin
   released or made up of another table's cells, down to the grand total; or a sum of finer cells) is given
   back: its interval is its value. Each identity is checked atom by atom (by fingerprints above
   :data:`EXACT_CHECK` atoms). Tables with margins, and tables that share a margin, are settled here;
3. programs: the cells of one connected block share one HiGHS model (primal simplex, warm started); a cell's
   equation is freed, its two programs solved, the equation restored. For counts, a bound is whole where the
   program's vertex is, where the truth attains it, or where moving people between twin atoms (atoms in the
   same kept equations) attains it; the other ends get integer programs after every linear one.

The programs share one time budget (:data:`CELL_BUDGET`), sums first, failing cells first; an end left over
keeps a valid outer bound (lower bounds; the least other released total holding each atom) and the cell is
counted as not exact (``cells_undecided``). Every interval holds the truth.
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

from privrisk.outputs.intervals import highs_model

if TYPE_CHECKING:
    from privrisk.outputs.differencing import Differencing, System
    from privrisk.outputs.policy import Policy
    from privrisk.outputs.spec import OutputSpec

__all__ = ["CELL_BUDGET", "CellBounds", "cell_bounds", "hidden_cells", "protected", "system_bounds"]

# Seconds all cells' programs of one check may take together; cells left then keep their outer interval.
CELL_BUDGET = 5.0
# Seconds one integer program may take before the linear bound, rounded inwards, is kept (not exact).
MILP_SECONDS = 1.0
_TOL = 1e-7
# Up to this many atoms an identity between released cells is checked atom by atom; above, by two 64-bit
# fingerprints (random weights), whose chance of taking unequal sets for equal is below 2⁻⁶².
EXACT_CHECK = 50_000


@dataclass(frozen=True)
class CellBounds:
    """The intervals of some totals over the atoms: ``lo``, ``hi`` and whether both ends are exact."""

    lo: np.ndarray
    hi: np.ndarray
    exact: np.ndarray


def _whole(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-6 * np.maximum(1.0, np.abs(x))))


class _Model:
    """One HiGHS model of A·x = b with bounds, solved again and again with rows freed and objectives changed.

    scipy's bundled HiGHS through ``_highspy`` (as :mod:`privrisk.outputs.intervals` uses it); ``linprog`` where
    that module is missing.
    """

    def __init__(self, a: sp.csr_matrix, b: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        self.a, self.b, self.lower, self.upper = a, b, lower, upper
        self.n = a.shape[1]
        self.free_rows: set[int] = set()
        self.cost_idx = np.empty(0, dtype=np.int32)
        self.h: Any = None
        self.core, self.h = highs_model(a, b, lower, upper)

    def free(self, rows: Sequence[int]) -> None:
        for r in rows:
            self.free_rows.add(int(r))
            if self.h is not None:
                self.h.changeRowBounds(int(r), -np.inf, np.inf)

    def fix(self, rows: Sequence[int]) -> None:
        for r in rows:
            self.free_rows.discard(int(r))
            if self.h is not None:
                self.h.changeRowBounds(int(r), float(self.b[r]), float(self.b[r]))

    def solve(self, idx: np.ndarray, sign: float, deadline: float) -> tuple[str, float, np.ndarray | None]:
        """Minimise sign · Σ x[idx]: (status, optimum of Σ x[idx], x); status ok, unbounded or timeout."""
        if self.h is not None:
            h, core = self.h, self.core
            if self.cost_idx.size:
                h.changeColsCost(self.cost_idx.size, self.cost_idx, np.zeros(self.cost_idx.size))
            self.cost_idx = np.asarray(idx, dtype=np.int32)
            h.changeColsCost(self.cost_idx.size, self.cost_idx, np.full(self.cost_idx.size, sign))
            left = deadline - time.perf_counter()
            if left <= 0:
                return "timeout", np.nan, None
            h.setOptionValue("time_limit", float(left))
            h.run()
            status = h.getModelStatus()
            if status == core.HighsModelStatus.kOptimal:
                x = np.asarray(h.getSolution().col_value)
                return "ok", float(x[idx].sum()), x
            if status in (core.HighsModelStatus.kUnbounded, core.HighsModelStatus.kUnboundedOrInfeasible):
                return "unbounded", -sign * np.inf, None
            if status == core.HighsModelStatus.kTimeLimit:
                return "timeout", np.nan, None
            # Anything else (a numerical difficulty of the warm start): solve this one from scratch.
        from scipy.optimize import linprog

        keep = np.array([i for i in range(self.a.shape[0]) if i not in self.free_rows], dtype=np.int64)
        c = np.zeros(self.n)
        c[idx] = sign
        res = linprog(
            c,
            A_eq=self.a[keep] if keep.size else None,
            b_eq=self.b[keep] if keep.size else None,
            bounds=np.column_stack([self.lower, self.upper]),
            method="highs",
        )
        if res.status == 3:
            return "unbounded", -sign * np.inf, None
        if res.status != 0:
            return "timeout", np.nan, None
        x = np.asarray(res.x)
        return "ok", float(x[idx].sum()), x

    def integer_bound(
        self, idx: np.ndarray, sign: float, relaxed: float, deadline: float = np.inf
    ) -> tuple[float, bool]:
        """The bound over whole x where the linear optimum ``relaxed`` is fractional, and whether it is exact."""
        from scipy.optimize import Bounds, LinearConstraint, milp

        rounded = float(np.ceil(relaxed - 1e-9)) if sign > 0 else float(np.floor(relaxed + 1e-9))
        seconds = min(MILP_SECONDS, deadline - time.perf_counter())
        if seconds <= 0:
            return rounded, False
        keep = np.array([i for i in range(self.a.shape[0]) if i not in self.free_rows], dtype=np.int64)
        c = np.zeros(self.n)
        c[idx] = sign
        kept = sp.csc_matrix(self.a[keep])
        # Each unknown is at most the least kept total holding it (all are ≥ 0): a bounded program is quicker.
        cap = self.upper.astype(float).copy()
        for j in range(self.n):
            held = kept.indices[kept.indptr[j] : kept.indptr[j + 1]]
            if held.size:
                cap[j] = min(cap[j], float(self.b[keep][held].min()))
        res = milp(
            c,
            constraints=LinearConstraint(self.a[keep], self.b[keep], self.b[keep]) if keep.size else (),
            integrality=np.ones(self.n),
            bounds=Bounds(self.lower, cap),
            options={"time_limit": seconds},
        )
        if res.status == 0 and res.x is not None:
            return float(np.round(res.x[idx].sum())), True
        return rounded, False


class _Twins:
    """Whole solutions next to the truth, without a program: two atoms in the same kept equations (twins) can
    trade people without changing any of them. Moving every person of a target's atom to a twin outside the
    target (or from such a twin in) gives the least (largest) target total these moves reach; where a linear
    bound equals it, the bound is attained by whole counts. Twins are found by a 64-bit fingerprint of each
    atom's set of equations (random weights; a false twin has probability below 2⁻⁶²)."""

    def __init__(self, csc: sp.csc_matrix, known: np.ndarray) -> None:
        self.csc, self.known = csc, known
        rng = np.random.default_rng(20232)
        self.w = rng.integers(0, 2**63, size=csc.shape[0], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        n = csc.shape[1]
        self.sig = np.zeros(n, dtype=np.uint64)
        full = np.flatnonzero(np.diff(csc.indptr) > 0)
        with np.errstate(over="ignore"):
            if full.size:
                self.sig[full] = np.add.reduceat(self.w[csc.indices], csc.indptr[:-1][full])
        order = np.argsort(self.sig, kind="stable")
        self.sorted_sig = self.sig[order]
        self.order = order
        self.csr = sp.csr_matrix(csc)

    def reach(self, target: np.ndarray, freed: np.ndarray) -> tuple[float, float]:
        sig = self.sig.copy() if freed.size else self.sig
        touched = np.empty(0, dtype=np.int64)
        with np.errstate(over="ignore"):
            for r in freed.tolist():
                atoms = self.csr.indices[self.csr.indptr[r] : self.csr.indptr[r + 1]]
                sig[atoms] -= self.w[r]
                touched = np.union1d(touched, atoms)
        inside = np.zeros(sig.size, dtype=bool)
        inside[target] = True
        lo = hi = float(self.known[target].sum())
        for s in np.unique(sig[target]).tolist():
            mine = target[sig[target] == s]
            # Twins outside the target: untouched atoms of the same (unchanged) fingerprint, and touched ones
            # whose fingerprint without the freed equations is the same.
            a, b = (
                np.searchsorted(self.sorted_sig, [s, s], side="left")[0],
                np.searchsorted(self.sorted_sig, s, side="right"),
            )
            same = self.order[a:b]
            same = same[~np.isin(same, touched)] if touched.size else same
            if touched.size:
                same = np.concatenate([same, touched[sig[touched] == s]])
            outside = same[~inside[same]]
            if s == 0:
                # In no kept equation: as many people as one likes, or none.
                lo -= float(self.known[mine].sum())
                hi = np.inf
                continue
            if outside.size:
                lo -= float(self.known[mine].sum())
                hi += float(self.known[outside].sum())
        return lo, hi


def _outer(
    csc: sp.csc_matrix,
    b: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    freed: np.ndarray,
    idx: np.ndarray,
) -> tuple[float, float]:
    """A valid interval of Σ x[idx] over A·x = b (``csc``) without the rows ``freed``: each atom between its
    lower bound and the least kept total holding it (when every unknown is ≥ 0)."""
    lo = float(lower[idx].sum())
    if np.any(lower[idx] < 0):
        return lo, np.inf
    cap = upper[idx].astype(float).copy()
    for k, j in enumerate(idx.tolist()):
        held = csc.indices[csc.indptr[j] : csc.indptr[j + 1]]
        held = held[~np.isin(held, freed)]
        if held.size:
            cap[k] = min(cap[k], float(b[held].min()))
    return lo, float(cap.sum())


def system_bounds(
    system: System,
    targets: Sequence[np.ndarray],
    *,
    drop: Sequence[Sequence[int]] | None = None,
    order: Sequence[int] | None = None,
    deadline: float = np.inf,
    memo: dict[int, Any] | None = None,
) -> CellBounds:
    """The interval of Σ x[t] for each target t (an array of atoms) over the system without its ``drop``-ed
    releases (one list of equation indices per target, each taken out once: a cell released twice stays known).

    ``memo`` (a dict the caller keeps while the system lives) saves the set-up between calls on one system.
    Targets are solved in ``order`` (default: as given) until ``deadline``; later ones keep an outer interval,
    marked not exact.

    Example:
        >>> import numpy as np, scipy.sparse as sp
        >>> from privrisk.outputs.differencing import System
        >>> a = sp.csr_matrix(np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]))
        >>> x = np.array([3.0, 1.0, 2.0, 4.0])   # a 2 × 2 table: its rows, then its columns
        >>> s = System(a, a @ x, np.ones(4, int), np.zeros(4), np.full(4, np.inf), x, True)
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
    scale = 1.0 if system.integer else (float(np.max(np.abs(system.b), initial=0.0)) or 1.0)
    b = system.b / scale
    lower = system.lower / scale if not system.integer else system.lower.astype(float)
    upper = system.upper / scale if not system.integer else system.upper.astype(float)
    known = system.known / scale
    times = np.asarray(system.times, dtype=np.int64)
    # What does not depend on the targets is kept in ``memo`` (per system) for the next call.
    if memo is not None and id(system) in memo:
        key, csc, row_comp, col_comp, models, twins = memo[id(system)]
    else:
        key = {system.a.indices[system.a.indptr[e] : system.a.indptr[e + 1]].tobytes(): e for e in range(m)}
        csc = sp.csc_matrix(system.a)
        # Connected blocks of equations and atoms: a program touches only the blocks its target's atoms lie in.
        coo = system.a.tocoo()
        graph = sp.csr_matrix((np.ones(coo.nnz, dtype=np.int8), (coo.row, coo.col + m)), shape=(m + n, m + n))
        _, comp = connected_components(graph, directed=False)
        row_comp, col_comp = comp[:m], comp[m:]
        models = {}
        twins = _Twins(csc, known) if system.integer else None
        if memo is not None:
            memo[id(system)] = (key, csc, row_comp, col_comp, models, twins)

    def model(c: int) -> tuple[_Model, np.ndarray, np.ndarray, dict[int, int]]:
        if c not in models:
            rows = np.flatnonzero(row_comp == c)
            cols = np.flatnonzero(col_comp == c)
            sub = sp.csr_matrix(system.a[rows][:, cols])
            where = {int(e): i for i, e in enumerate(rows)}
            models[c] = (_Model(sub, b[rows], lower[cols], upper[cols]), rows, cols, where)
        return models[c]

    later: list[tuple[int, int, float, np.ndarray, list[int], float, float]] = []
    sides: dict[int, dict[float, bool]] = {}
    for t in order if order is not None else range(k):
        idx = np.sort(np.asarray(targets[t], dtype=np.int64))
        if idx.size == 0:
            lo[t] = hi[t] = 0.0
            exact[t] = True
            continue
        gone: dict[int, int] = {}
        for r in drop[t]:
            gone[int(r)] = gone.get(int(r), 0) + 1
        e = key.get(idx.astype(np.int32).tobytes())
        if e is not None and times[e] > gone.get(e, 0):
            # The same total is released by a cell still shown.
            lo[t] = hi[t] = float(b[e])
            exact[t] = True
            continue
        freed = np.array(sorted(r for r, g in gone.items() if times[r] <= g), dtype=np.int64)
        # Per end: its value summed over the blocks, whether it is exact, whether it was computed at all.
        total = {1.0: 0.0, -1.0: 0.0}
        tight = {1.0: True, -1.0: True}
        done = {1.0: time.perf_counter() < deadline, -1.0: time.perf_counter() < deadline}
        for c in np.unique(col_comp[idx]).tolist() if done[1.0] else []:
            mdl, _rows, cols, where = model(c)
            local = np.searchsorted(cols, idx[col_comp[idx] == c])
            mine = [where[int(r)] for r in freed if row_comp[r] == c]
            mdl.free(mine)
            try:
                for sign in (1.0, -1.0):
                    if not done[sign]:
                        continue
                    status, value, x = mdl.solve(local, sign, deadline)
                    if status == "timeout":
                        done[sign] = False
                        continue
                    if status == "ok" and twins is not None:
                        assert x is not None
                        truth = float(known[cols[local]].sum())
                        near = 1e-6 * max(1.0, abs(value))
                        if (
                            _whole(x)
                            or abs(truth - value) <= near
                            or abs(twins.reach(cols[local], freed)[0 if sign > 0 else 1] - value) <= near
                        ):
                            # A whole solution (the program's, the truth or the truth with twins' people
                            # moved) attains the linear bound.
                            value = float(np.round(value))
                        else:
                            # The linear bound rounded inwards holds; the integer program, after every
                            # target's linear ones, may tighten it.
                            relaxed = value
                            value = (
                                float(np.ceil(value - 1e-9)) if sign > 0 else float(np.floor(value + 1e-9))
                            )
                            tight[sign] = False
                            later.append((t, c, sign, local, mine, relaxed, value))
                    total[sign] += value
            finally:
                mdl.fix(mine)
        outer = None
        if not (done[1.0] and done[-1.0]):
            outer = _outer(csc, b, lower, upper, freed, idx)
        # The truth is always a solution: every interval holds it.
        value = float(known[idx].sum())
        lo[t] = min(total[1.0] if done[1.0] else outer[0], value)  # type: ignore[index]
        hi[t] = max(total[-1.0] if done[-1.0] else outer[1], value)  # type: ignore[index]
        exact[t] = done[1.0] and done[-1.0] and tight[1.0] and tight[-1.0]
        sides[t] = {1.0: done[1.0] and tight[1.0], -1.0: done[-1.0] and tight[-1.0]}
    # The integer programs where a linear optimum was fractional, while there is time.
    open_ends: dict[tuple[int, float], int] = {}
    for t, _c, sign, *_ in later:
        open_ends[(t, sign)] = open_ends.get((t, sign), 0) + 1
    for t, c, sign, local, mine, relaxed, rounded in later:
        mdl = models[c][0]
        mdl.free(mine)
        try:
            value, whole = mdl.integer_bound(local, sign, relaxed, deadline)
        finally:
            mdl.fix(mine)
        if sign > 0:
            lo[t] = max(lo[t], lo[t] + value - rounded) if whole else lo[t]
        else:
            hi[t] = min(hi[t], hi[t] + value - rounded) if whole else hi[t]
        if whole:
            open_ends[(t, sign)] -= 1
            if open_ends[(t, sign)] == 0:
                sides[t][sign] = True
                exact[t] = sides[t][1.0] and sides[t][-1.0]
    lo, hi = lo * scale, hi * scale
    if not system.integer:
        # The programs are exact to about 1e-9 of the largest total: digits below that are the solver's noise.
        digits = max(0, 9 - int(np.ceil(np.log10(scale))))
        lo, hi = np.round(lo, digits), np.round(hi, digits)
    return CellBounds(lo, hi, exact)


def protected(
    kind: str, lo: float, hi: float, *, total: float, top1: float, top2: float, count: float, p: float
) -> bool:
    """Whether suppressing a cell hides it: its interval (over everything else released) is not a single value,
    and for a magnitude (``kind`` sum or mean: ``lo``, ``hi`` of the value; ``count`` people) wider than its
    p % protection: half the width of the sum's interval plus the contributions other than the two largest is
    at least p × the largest.

    Example:
        >>> # 1000 in all, the largest 900, the two largest 990: 10 % of 900 less the other 10 is 80 a side.
        >>> protected("sum", 900.0, 1100.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
        True
        >>> protected("sum", 990.0, 1010.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
        False
    """
    if not (np.isfinite(lo) or np.isfinite(hi)):
        return True
    width = hi - lo
    if kind == "mean":
        width *= count
    scale = max(1.0, abs(total) if np.isfinite(total) else 1.0)
    if not width > _TOL * scale:
        return False
    if kind in ("sum", "mean") and np.isfinite(top1) and top1 > 0:
        return bool(width / 2 + (total - top2) >= p * top1)
    return True


class _Certificates:
    """Cells that other released cells give back exactly, found without a program: a cell is the difference of
    a total and its siblings, where the total (the cell's labels on some of its variables, down to the grand
    total) is released or is the sum of released cells of a finer grouping (a margin of another table), and the
    siblings are released; or the cell is itself the sum of released cells of a finer grouping. Every such identity is checked atom by atom (by
    fingerprints above :data:`EXACT_CHECK` atoms), so it holds for every solution: the cell's interval is its
    value."""

    def __init__(self, diff: Differencing, released: Sequence[tuple[OutputSpec, pd.DataFrame]]) -> None:
        self.diff = diff
        self.flag = {c: f"__f{i}" for i, c in enumerate(diff.conditions)}
        # Per system: (where, labels) → equation, and (where, grouping) → [(labels, equation)].
        self.index: dict[str | None, dict[tuple[str | None, frozenset[tuple[str, str]]], int]] = {}
        self.by_set: dict[
            str | None, dict[tuple[str | None, frozenset[str]], list[tuple[dict[str, str], int]]]
        ] = {}
        self.meta: dict[tuple[str | None, int], tuple[str | None, dict[str, str]]] = {}
        self._cache: dict[Any, dict[frozenset[tuple[str, str]], list[int]]] = {}
        self._fingerprints: dict[str | None, np.ndarray] = {}
        self._cands: dict[Any, dict[tuple[int, int], list[list[int]]]] = {}
        for spec, cells in released:
            if spec.name not in diff.cell_rows:
                continue
            key, rows = diff.cell_rows[spec.name]
            sets = cells["set"].tolist()
            cols = {v: cells[v].astype(str).tolist() for v in spec.variables}
            for i, e in enumerate(rows.tolist()):
                if e < 0:
                    continue
                labels = {v: cols[v][i] for v in sets[i]}
                item = frozenset(labels.items())
                self.index.setdefault(key, {}).setdefault((spec.where, item), e)
                group = self.by_set.setdefault(key, {}).setdefault((spec.where, frozenset(labels)), [])
                if (labels, e) not in group:
                    group.append((labels, e))
                self.meta.setdefault((key, e), (spec.where, labels))

    def _row(self, key: str | None, e: int) -> np.ndarray:
        a = self.diff.systems[key].a
        return a.indices[a.indptr[e] : a.indptr[e + 1]]

    def _within(
        self, key: str | None, where: str | None, grouping: frozenset[str], on: frozenset[str]
    ) -> dict[frozenset[tuple[str, str]], list[int]]:
        """The released equations of (where, grouping), by their labels on the variables ``on`` (cached)."""
        k = (key, where, grouping, on)
        if k not in self._cache:
            out: dict[frozenset[tuple[str, str]], list[int]] = {}
            for lab, q in self.by_set.get(key, {}).get((where, grouping), []):
                out.setdefault(frozenset((v, lab[v]) for v in on), []).append(q)
            self._cache[k] = out
        return self._cache[k]

    def _prints(self, key: str | None) -> np.ndarray:
        """Two fingerprints per equation: the sums (mod 2⁶⁴) of random odd 64-bit weights of its atoms. Sums and
        differences of rows that are equal as sets of atoms have equal fingerprints; unequal ones collide with
        probability below 2⁻⁶² per pair of fingerprints."""
        if key not in self._fingerprints:
            a = self.diff.systems[key].a
            rng = np.random.default_rng(20231)
            weights = rng.integers(0, 2**63, size=(a.shape[1], 2), dtype=np.uint64) * np.uint64(
                2
            ) + np.uint64(1)
            sums = np.zeros((a.shape[0], 2), dtype=np.uint64)
            starts = a.indptr[:-1]
            full = np.flatnonzero(np.diff(a.indptr) > 0)
            with np.errstate(over="ignore"):
                sums[full] = np.add.reduceat(weights[a.indices], starts[full], axis=0)
            self._fingerprints[key] = sums
        return self._fingerprints[key]

    def _candidates(
        self, key: str | None, where: str | None, labels: dict[str, str]
    ) -> dict[tuple[int, int], list[list[int]]]:
        """Sets of released equations each of which may make up the atoms of (where, labels) disjointly: the
        cell itself if released, and the matching cells of every finer grouping; by their fingerprint."""
        item = frozenset(labels.items())
        k = (key, where, item)
        if k not in self._cands:
            prints = self._prints(key)
            found: list[list[int]] = []
            direct = self.index.get(key, {}).get((where, item))
            if direct is not None:
                found.append([direct])
            on = frozenset(labels)
            for w, grouping in self.by_set.get(key, {}):
                if w == where and on < grouping:
                    parts = self._within(key, where, grouping, on).get(item, [])
                    if parts:
                        found.append(parts)
            out: dict[tuple[int, int], list[list[int]]] = {}
            with np.errstate(over="ignore"):
                for parts in found:
                    fp = prints[parts].sum(axis=0, dtype=np.uint64)
                    out.setdefault((int(fp[0]), int(fp[1])), []).append(parts)
            self._cands[k] = out
        return self._cands[k]

    def determined(self, key: str | None, e: int) -> bool:
        """Whether released cells other than e make up e's atoms: e = (a total over its labels on some of its
        variables, R) − (e's siblings: the other cells of its grouping with the same labels on R), the total
        being released or made up of the cells of a finer grouping (R = all of e's variables: no siblings)."""
        if (key, e) not in self.meta:
            return False
        import itertools

        where, labels = self.meta[(key, e)]
        n = self.diff.systems[key].a.shape[1]
        prints = self._prints(key)
        grouping = frozenset(labels)
        for size in range(len(labels), -1, -1):
            for r in itertools.combinations(sorted(labels), size):
                rest = {v: labels[v] for v in r}
                line = self._within(key, where, grouping, frozenset(rest)).get(frozenset(rest.items()), [])
                siblings = [q for q in line if q != e]
                with np.errstate(over="ignore"):
                    fp = prints[e] + prints[siblings].sum(axis=0, dtype=np.uint64)
                for parts in self._candidates(key, where, rest).get((int(fp[0]), int(fp[1])), []):
                    if e in parts:
                        continue
                    if n > EXACT_CHECK or self._zero(key, parts, [*siblings, e]):
                        return True
        return False

    def _zero(self, key: str | None, plus: list[int], minus: list[int]) -> bool:
        """Whether the atoms of the ``plus`` equations are those of the ``minus`` ones, counted atom by atom."""
        a = self.diff.systems[key].a
        n = a.shape[1]
        counted = np.bincount(a[plus].indices, minlength=n) - np.bincount(a[minus].indices, minlength=n)
        return not counted.any()


def cell_bounds(
    diff: Differencing,
    tables: Sequence[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    *,
    released: Sequence[tuple[OutputSpec, pd.DataFrame]] | None = None,
    first: dict[str, np.ndarray] | None = None,
    budget: float | None = None,
) -> tuple[dict[str, pd.DataFrame], int]:
    """Each table's cells' intervals over everything released but the cell: per output, a frame aligned with
    its cells (``lo``, ``hi``, ``exact``, ``protected``; NaN/None where the cell is not a released number), and
    how many cells kept an outer interval when the budget ran out.

    ``released`` are all the tables that entered the differencing (default: ``tables``); ``first`` marks, per
    output, the cells to solve first (those failing the primary rules); ``budget`` is the programs' time in
    seconds (default :data:`CELL_BUDGET`).
    """
    deadline = time.perf_counter() + (CELL_BUDGET if budget is None else budget)
    atoms_n = diff.atoms["n"].to_numpy(dtype=float) if not diff.atoms.empty else np.empty(0)
    certificates = _Certificates(diff, released if released is not None else tables)
    memo: dict[int, Any] = {}
    # Every (system, equation) asked for, once; the failing cells' first.
    asked: dict[str | None, dict[int, bool]] = {}
    for spec, _cells in tables:
        if spec.name not in diff.cell_rows:
            continue
        key, rows = diff.cell_rows[spec.name]
        if key not in diff.systems:
            continue
        urgent = first.get(spec.name) if first else None
        for i, e in enumerate(rows.tolist()):
            if e >= 0:
                mine = asked.setdefault(key, {})
                mine[e] = mine.get(e, False) or bool(urgent is not None and urgent[i])
    solved: dict[tuple[str | None, int], tuple[float, float, bool]] = {}
    undecided = 0
    # The sums' programs first: they are linear only; the counts' integer programs may then take the rest.
    for key, eqs in sorted(asked.items(), key=lambda item: item[0] is None):
        system = diff.systems[key]
        a = system.a
        wanted = []
        for e in eqs:
            if system.times[e] >= 2 or certificates.determined(key, e):
                solved[(key, e)] = (float(system.b[e]), float(system.b[e]), True)
            else:
                wanted.append(e)
        targets = [a.indices[a.indptr[e] : a.indptr[e + 1]] for e in wanted]
        order = sorted(
            range(len(wanted)),
            key=lambda i: (not eqs[wanted[i]], a.indptr[wanted[i] + 1] - a.indptr[wanted[i]]),
        )
        res = system_bounds(
            system, targets, drop=[[e] for e in wanted], order=order, deadline=deadline, memo=memo
        )
        for i, e in enumerate(wanted):
            solved[(key, e)] = (float(res.lo[i]), float(res.hi[i]), bool(res.exact[i]))
    frames: dict[str, pd.DataFrame] = {}
    for spec, cells in tables:
        n_cells = len(cells)
        lo, hi = np.full(n_cells, np.nan), np.full(n_cells, np.nan)
        exact = np.zeros(n_cells, dtype=bool)
        if spec.name in diff.cell_rows:
            key, rows = diff.cell_rows[spec.name]
            for i, e in enumerate(rows.tolist()):
                if e >= 0 and (key, e) in solved:
                    lo[i], hi[i], exact[i] = solved[(key, e)]
                    if spec.kind == "mean":
                        members = diff.systems[key].a.indices[
                            diff.systems[key].a.indptr[e] : diff.systems[key].a.indptr[e + 1]
                        ]
                        people = float(atoms_n[members].sum())
                        lo[i], hi[i] = lo[i] / people, hi[i] / people
            for i, members in diff.open_means.get(spec.name, {}).items():
                lo[i], hi[i], exact[i] = _ratio(diff, key, members, deadline, memo=memo)
        undecided += int(np.sum(~np.isnan(lo) & ~exact))
        total, top1, top2 = (_column(cells, c) for c in ("total", "top1", "top2"))
        counts = _column(cells, "n")
        kind = spec.kind if spec.kind != "sum" or not spec.weights else "count"
        guard = [
            None
            if np.isnan(lo[i])
            else protected(
                kind,
                lo[i],
                hi[i],
                total=total[i],
                top1=top1[i],
                top2=top2[i],
                count=counts[i],
                p=policy.safe_pratio_p,
            )
            for i in range(n_cells)
        ]
        frames[spec.name] = pd.DataFrame({"lo": lo, "hi": hi, "exact": exact, "protected": guard})
    return frames, undecided


def _column(cells: pd.DataFrame, col: str) -> np.ndarray:
    if col not in cells:
        return np.full(len(cells), np.nan)
    return pd.to_numeric(cells[col], errors="coerce").to_numpy(dtype=float)


def hidden_cells(
    diff: Differencing,
    spec: OutputSpec,
    cells: pd.DataFrame,
    hidden: Sequence[int],
    *,
    deadline: float = np.inf,
) -> CellBounds:
    """The intervals of the cells ``hidden`` (positions in ``cells``) of one released table when all of them are
    suppressed at once: over everything else released (other outputs, the table's other cells, the ledger).
    A mean's interval is its value's (its sum's over its count); NaN where the cell is not a released number.
    """
    k = len(hidden)
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    exact = np.zeros(k, dtype=bool)
    if spec.name not in diff.cell_rows:
        return CellBounds(lo, hi, exact)
    key, rows = diff.cell_rows[spec.name]
    drop = [int(rows[i]) for i in hidden if rows[i] >= 0]
    system = diff.systems.get(key)
    with_row = [t for t, i in enumerate(hidden) if rows[i] >= 0]
    if system is not None and with_row:
        a = system.a
        targets = [a.indices[a.indptr[rows[hidden[t]]] : a.indptr[rows[hidden[t]] + 1]] for t in with_row]
        res = system_bounds(system, targets, drop=[drop] * len(targets), deadline=deadline)
        atoms_n = diff.atoms["n"].to_numpy(dtype=float)
        for t, idx, r_lo, r_hi, r_ok in zip(with_row, targets, res.lo, res.hi, res.exact, strict=True):
            count = float(atoms_n[idx].sum()) if spec.kind == "mean" else 1.0
            lo[t], hi[t], exact[t] = r_lo / count, r_hi / count, r_ok
    for t, i in enumerate(hidden):
        members = diff.open_means.get(spec.name, {}).get(int(i))
        if members is not None:
            lo[t], hi[t], exact[t] = _ratio(diff, key, members, deadline, drop=drop)
    return CellBounds(lo, hi, exact)


def _ratio(
    diff: Differencing,
    key: str | None,
    members: np.ndarray,
    deadline: float,
    *,
    drop: Sequence[int] = (),
    memo: dict[int, Any] | None = None,
) -> tuple[float, float, bool]:
    """The interval of a mean whose group's count is not determined: sum / count over the two intervals (the
    counts and the sums are separate systems), the count at least 1 (the mean of no one is not a number)."""
    if key in diff.systems:
        s = system_bounds(diff.systems[key], [members], drop=[list(drop)], deadline=deadline, memo=memo)
        s_lo, s_hi, s_ok = float(s.lo[0]), float(s.hi[0]), bool(s.exact[0])
    else:
        s_lo, s_hi, s_ok = 0.0, np.inf, True
        if "__min_" + str(key) in diff.atoms and float(diff.atoms["__min_" + str(key)].min()) < 0:
            s_lo = -np.inf
    if None in diff.systems:
        c = system_bounds(diff.systems[None], [members], deadline=deadline, memo=memo)
        n_lo, n_hi, n_ok = float(c.lo[0]), float(c.hi[0]), bool(c.exact[0])
    else:
        n_lo, n_hi, n_ok = 0.0, np.inf, True
    # Whole counts from 0: the least positive count may exceed 1 (then the bound is valid but not tight).
    n_ok &= n_lo >= 1 or n_hi <= 1
    n_lo = max(n_lo, 1.0)
    n_hi = max(n_hi, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        corners = [s_lo / n_lo, s_lo / n_hi, s_hi / n_lo, s_hi / n_hi]
    corners = [0.0 if np.isnan(v) else v for v in corners]
    return float(min(corners)), float(max(corners)), s_ok and n_ok
