"""Differencing: what all released outputs reveal together, atom by atom.

The atoms are the finest combinations of every grouping variable and every ``where`` condition of the released
count, sum and mean tables: each variable's observed levels crossed with the observed patterns of the conditions'
truth values (the intruder knows which levels exist, not which combinations are empty). Every released count is
the sum of the counts of its atoms, every released sum the sum of its atoms' sums; a mean whose group's count is
determined gives that group's sum (mean × count). The intruder knows all of it and that counts are whole and
non-negative; :func:`privrisk.outputs.intervals.intervals` gives each atom's interval.

Findings: an **exact** disclosure is an atom whose count is determined to lie in 1 … threshold − 1, or whose sum
is determined while it holds fewer than threshold people; an **approximate** disclosure is an atom whose sum is
known so closely that the p % rule fails for it: half the interval's width plus the contributions other than the
two largest is below p × the largest. Atoms that a single released cell shows on its own are left to the primary
rules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privrisk._format import listing, number
from privrisk._validation import quote_identifier as qi
from privrisk.outputs.compute import MISSING, _order, check_where
from privrisk.outputs.intervals import FULL_LIMIT, intervals
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


__all__ = ["Differencing", "System", "difference", "incidence", "measure"]

LINEAR = ("count", "sum", "mean")
# How long the two programs that decide whether one group's count is determined may take together; a group left
# open counts among the undecided (the verdict is then "review", never a silent pass).
GROUP_SECONDS = 10.0


@dataclass(frozen=True)
class System:
    """One released system A·x = b over the atoms (the counts, or one magnitude's sums), each equation kept once.

    ``times[e]`` is how many released cells gave equation e (a cell shown by two outputs is known though one
    of them hides it); ``lower``/``upper`` bound each atom's unknown (sums of an atom known to be empty are 0);
    ``known`` is the truth; ``integer`` says whether the unknowns are whole (counts of people). ``names[e]``
    are the outputs that released equation e.
    """

    a: sp.csr_matrix
    b: np.ndarray
    times: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    known: np.ndarray
    integer: bool
    names: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class Differencing:
    """The atoms (one row each: labels, true count, count interval; per magnitude its true sum and interval),
    the findings and the size of the released system."""

    atoms: pd.DataFrame
    variables: tuple[str, ...]
    conditions: tuple[str, ...]
    disclosures: list[dict[str, Any]]
    equations: int
    rank: int
    complete: bool
    magnitudes: tuple[str, ...] = field(default=())
    undecided: int = 0
    # The released systems (None: the counts; else a magnitude's sums) and, per output, the system of its cells
    # and each cell's equation in it (-1: none, e.g. a mean whose group's count is not known). Means whose
    # group count is not known keep their atoms in ``open_means`` (output → {cell position: atoms}).
    systems: dict[str | None, System] = field(default_factory=dict)
    cell_rows: dict[str, tuple[str | None, np.ndarray]] = field(default_factory=dict)
    open_means: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)


def incidence(atoms: pd.DataFrame, spec: OutputSpec, cells: pd.DataFrame, flag: str | None) -> sp.csr_matrix:
    """Which atoms make up each cell (a cells × atoms 0/1 matrix; cells in their frame's order).

    Labels are matched through the atoms' integer codes (``__c_`` columns): a cell of grouping set ``s`` is a
    key in mixed radix over the codes of ``s``, and every atom (of the ``where`` condition, if any) is looked up
    in one array, without a join.
    """
    n_atoms = len(atoms)
    base = np.ones(n_atoms, dtype=bool) if flag is None else atoms[flag].to_numpy(dtype=bool)
    positions = np.arange(len(cells))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    sets = cells["set"].to_numpy()
    for s in dict.fromkeys(sets.tolist()):
        keys = [str(v) for v in cast(Any, s)]
        mine = positions[np.fromiter((t == s for t in sets), dtype=bool, count=len(sets))]
        atom_key = np.zeros(n_atoms, dtype=np.int64)
        cell_key = np.zeros(mine.size, dtype=np.int64)
        valid = np.ones(mine.size, dtype=bool)
        size = 1
        for v in keys:
            levels = cast(pd.Index, atoms.attrs["levels"][v])
            atom_key = atom_key * len(levels) + atoms[f"__c_{v}"].to_numpy(dtype=np.int64)
            code = levels.get_indexer(cells[v].to_numpy()[mine].astype(str))
            valid &= code >= 0
            cell_key = cell_key * len(levels) + np.maximum(code, 0)
            size *= len(levels)
        lookup = np.full(size, -1, dtype=np.int64)
        lookup[cell_key[valid]] = mine[valid]
        cell_of = lookup[atom_key]
        sel = (cell_of >= 0) & base
        rows.append(cell_of[sel])
        cols.append(np.flatnonzero(sel))
    r = np.concatenate(rows) if rows else np.empty(0, np.int64)
    c = np.concatenate(cols) if cols else np.empty(0, np.int64)
    return sp.csr_matrix(
        (np.ones(r.size), (r.astype(np.int32), c.astype(np.int32))), shape=(len(cells), n_atoms)
    )


def _cells_atoms(
    atoms: pd.DataFrame, spec: OutputSpec, cells: pd.DataFrame, flag: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """(cell index, atom index) pairs: which atoms make up each cell."""
    coo = incidence(atoms, spec, cells, flag).tocoo()
    return cells.index.to_numpy()[coo.row], coo.col.astype(np.int64)


def measure(spec: OutputSpec) -> str | None:
    """The magnitude a table releases sums of (a weighted count: of its weights; a weighted sum: of the
    product), or None for a count of people.

    Example:
        >>> measure(OutputSpec(name="T", kind="sum", variable="income", weights="w"))
        'income weighted by w'
    """
    if spec.kind == "count":
        return spec.weights
    if spec.kind == "sum" and spec.weights:
        return f"{spec.variable} weighted by {spec.weights}"
    return spec.variable


def _measure_sql(spec: OutputSpec) -> str:
    if spec.kind == "count":
        return f"CAST({qi(str(spec.weights))} AS DOUBLE)"
    if spec.kind == "sum" and spec.weights:
        return f"(CAST({qi(str(spec.variable))} AS DOUBLE) * CAST({qi(spec.weights)} AS DOUBLE))"
    return f"CAST({qi(str(spec.variable))} AS DOUBLE)"


class _Rows:
    """Released equations over atoms, each kept once: identical rows (the same cells released by several
    outputs) are one equation, named after every output that released it."""

    def __init__(self, n_atoms: int) -> None:
        self.n_atoms = n_atoms
        self.parts: list[sp.csr_matrix] = []
        self.values: list[np.ndarray] = []
        self.names: list[set[str]] = []
        self.times: list[int] = []
        self.seen: dict[bytes, int] = {}
        self.released = 0

    def add(self, mat: sp.csr_matrix, values: np.ndarray, name: str) -> np.ndarray:
        """Add the rows of ``mat`` (released ``values``); the index of each row's equation."""
        index = np.empty(mat.shape[0], dtype=np.int64)
        keep: list[int] = []
        for i in range(mat.shape[0]):
            key = mat.indices[mat.indptr[i] : mat.indptr[i + 1]].tobytes()
            e = self.seen.get(key)
            if e is None:
                e = len(self.names)
                self.seen[key] = e
                self.names.append(set())
                self.times.append(0)
                keep.append(i)
            self.names[e].add(name)
            self.times[e] += 1
            index[i] = e
        self.released += mat.shape[0]
        if keep:
            self.parts.append(mat[keep])
            self.values.append(np.asarray(values, dtype=float)[keep])
        return index

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray]:
        if not self.parts:
            return sp.csr_matrix((0, self.n_atoms)), np.empty(0)
        a = sp.csr_matrix(sp.vstack(self.parts, format="csr"))
        a.sum_duplicates()
        a.data[:] = 1.0
        return a, np.concatenate(self.values)

    def row(self, e: int) -> np.ndarray:
        k = 0
        for part in self.parts:
            if e < k + part.shape[0]:
                i = e - k
                return part.indices[part.indptr[i] : part.indptr[i + 1]]
            k += part.shape[0]
        raise IndexError(e)


def difference(
    con: Any,
    tables: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    *,
    max_atoms: int = 200_000,
) -> Differencing:
    """Atoms, their intervals and the disclosures of the count, sum and mean tables given (spec, cells)."""
    linear = [(s, c) for s, c in tables if s.kind in LINEAR]
    variables = tuple(dict.fromkeys(v for s, _ in linear for v in s.variables))
    conditions = tuple(dict.fromkeys(s.where for s, _ in linear if s.where))
    sql_of: dict[str, str] = {}
    for s, _ in linear:
        name = measure(s)
        if name is not None:
            sql_of.setdefault(name, _measure_sql(s))
    magnitudes = tuple(sql_of)
    if not linear:
        return Differencing(pd.DataFrame(), (), (), [], 0, 0, True)
    atoms, complete = _atoms(con, linear, variables, conditions, sql_of, max_atoms)
    flag_of = {c: f"__f{i}" for i, c in enumerate(conditions)}
    t = policy.safe_threshold
    p = policy.safe_pratio_p
    n_atoms = len(atoms)
    counts = _Rows(n_atoms)
    mags: dict[str, _Rows] = {m: _Rows(n_atoms) for m in magnitudes}
    means: list[tuple[str, sp.csr_matrix, np.ndarray, str, frozenset[str], np.ndarray]] = []
    cell_rows: dict[str, tuple[str | None, np.ndarray]] = {}
    open_means: dict[str, dict[int, np.ndarray]] = {}
    for spec, cells in linear:
        mat = incidence(atoms, spec, cells, flag_of.get(spec.where) if spec.where else None)
        values = cells["value"].to_numpy(dtype=float)
        name = measure(spec)
        where_rows = np.full(len(cells), -1, dtype=np.int64)
        if spec.kind == "count" and name is None:
            where_rows[:] = counts.add(mat, values, spec.name)
        elif spec.kind in ("count", "sum") and name is not None:
            finite = np.flatnonzero(np.isfinite(values))
            where_rows[finite] = mags[name].add(mat[finite], values[finite], spec.name)
        elif spec.kind == "mean" and name is not None:
            ok = np.flatnonzero(np.isfinite(values) & (cells["missing"].to_numpy(dtype=np.int64) == 0))
            means.append((name, mat[ok], values[ok], spec.name, frozenset(spec.variables), ok))
        cell_rows[spec.name] = (name if spec.kind != "count" or name is not None else None, where_rows)
    a, b = counts.matrix()
    eq_names = counts.names
    truth = atoms["n"].to_numpy(dtype=float)
    systems: dict[str | None, System] = {}
    if eq_names:
        systems[None] = System(
            a, b, np.array(counts.times), np.zeros(n_atoms), np.full(n_atoms, np.inf), truth, True,
            tuple(frozenset(x) for x in eq_names),
        )  # fmt: skip
    singles = _singles(a)
    candidates = np.flatnonzero((truth >= 1) & (truth < t))

    def exposed(lo: np.ndarray, hi: np.ndarray, cols: np.ndarray) -> np.ndarray:
        k = truth[cols]
        return cols[(lo == hi) & (k >= 1) & (k < t)]

    def need_count(
        lo: np.ndarray, hi: np.ndarray, seen_lo: np.ndarray, seen_hi: np.ndarray, cols: np.ndarray
    ) -> np.ndarray:
        # An atom can be an exact disclosure only if its true count is 1 … t − 1 and no whole solution seen so
        # far gives it another count. (An empty atom's upper end is then its propagated bound: its sums are
        # known to be 0 only where that bound is 0, a safe simplification for very large blocks.)
        k = truth[cols]
        undecided = (seen_lo >= k) & (seen_hi <= k) & (lo < hi)
        return undecided & (k >= 1) & (k < t)

    faces = [frozenset(sp_.variables) for sp_, _ in linear if sp_.kind == "count" and not sp_.weights]
    reach_lo, reach_hi, movable = _moves(atoms, variables, conditions, faces, truth)
    mag_faces: dict[str, list[frozenset[str]]] = {m: [] for m in magnitudes}
    for sp_, _ in linear:
        if measure(sp_) is not None:
            mag_faces[cast(str, measure(sp_))].append(frozenset(sp_.variables))
    res = intervals(
        a,
        b,
        integer=True,
        lower=np.zeros(n_atoms),
        explain=exposed,
        known=truth,
        need=need_count,
        reached=(reach_lo, reach_hi),
    )
    atoms["lo"], atoms["hi"], atoms["tight"] = res.lo, res.hi, res.tight
    undecided = int(res.undecided.sum()) if res.undecided is not None else 0
    disclosures: list[dict[str, Any]] = []
    every_count = sorted({n for ns in eq_names for n in ns})
    for j in candidates[res.lo[candidates] == res.hi[candidates]]:
        if int(j) not in singles:
            names = sorted({n for e in res.witnesses.get(int(j), ()) for n in eq_names[e]}) or every_count
            disclosures.append(
                _finding(
                    "exact",
                    atoms,
                    int(j),
                    variables,
                    conditions,
                    names,
                    res.lo[j],
                    res.hi[j],
                    _count_sentence(names, int(res.lo[j]), _describe(atoms, int(j), variables, conditions)),
                )
            )
    # Means of groups whose count the intruder knows give sums (mean × count). Known when a released count
    # covers the same atoms, or every atom's count is determined, or two programs say so; a whole solution
    # seen on the way (other than the truth) that gives the group another count says it is not known.
    same = {counts.row(e).tobytes(): e for e in range(len(eq_names))} if eq_names else {}
    for var, mat, values, name, grouping, positions in means:
        mine = cell_rows[name][1]
        sums = atoms[f"__s_{var}"].to_numpy(dtype=float)
        # A move over variables the group's cells all separate changes the group's count by one.
        moving = [m for vs, m in movable.items() if vs <= grouping]
        for i in range(mat.shape[0]):
            members = np.sort(mat.indices[mat.indptr[i] : mat.indptr[i + 1]])
            if members.size == 0:
                continue
            e = same.get(members.astype(np.int32).tobytes())
            rows: set[str] | None = None
            if e is not None:
                rows = set(eq_names[e])
            elif np.all(res.lo[members] == res.hi[members]):
                rows = {n for j in members for w in res.witnesses.get(int(j), ()) for n in eq_names[w]}
            elif any(m[members].any() for m in moving):
                rows = None
            elif not any(pt[members].sum() != truth[members].sum() for pt in res.points):
                known = _group_count(a, b, members, n_atoms, deadline=time.perf_counter() + GROUP_SECONDS)
                if isinstance(known, str):  # not decided in time: the verdict says so ("review")
                    undecided += 1
                    known = None
                rows = None if known is None else {n for w in known[1] for n in eq_names[w]}
            if rows is not None:
                # mean × count is the group's sum; taken as the sum of its atoms' sums where the released mean
                # is today's, so that totals reached along different groupings agree to the last bit (a rounded
                # product would make the system infeasible); a mean released earlier from other data counts as
                # released.
                count = float(truth[members].sum())
                total = float(sums[members].sum())
                if count > 0 and not np.isclose(total / count, values[i], rtol=1e-9, atol=0.0):
                    total = float(values[i]) * count
                mags[var].add(
                    sp.csr_matrix(
                        (np.ones(members.size), (np.zeros(members.size, np.int32), members)),
                        shape=(1, n_atoms),
                    ),
                    np.array([total]),
                    name,
                )
                e2 = mags[var].seen[members.astype(np.int32).tobytes()]
                mags[var].names[e2] |= rows
                mine[positions[i]] = e2
            else:
                open_means.setdefault(name, {})[int(positions[i])] = members
    rank = res.rank
    equations = counts.released
    for var in magnitudes:
        rows_m = mags[var]
        if not rows_m.names:
            continue
        m, rhs = rows_m.matrix()
        sums = atoms[f"__s_{var}"].to_numpy(dtype=float)
        nonneg = bool(atoms[f"__min_{var}"].min() >= 0) if len(atoms) else True
        lower = np.zeros(n_atoms) if nonneg else np.full(n_atoms, -np.inf)
        upper = np.where(atoms["hi"].to_numpy() == 0, 0.0, np.inf)
        lower = np.where(upper == 0, 0.0, lower)
        systems[var] = System(
            m,
            rhs,
            np.array(rows_m.times),
            lower,
            upper,
            sums,
            False,
            tuple(frozenset(x) for x in rows_m.names),
        )
        # Determined means: equal up to the solver's precision on the scale of the whole variable.
        tol = 1e-7 * max(1.0, float(np.abs(sums).sum()))
        top1 = atoms[f"__t1_{var}"].to_numpy(dtype=float)
        top2 = atoms[f"__t2_{var}"].to_numpy(dtype=float)
        # Scaled to totals of order 1: HiGHS's tolerances are absolute, and sums of incomes are large.
        scale = float(np.max(np.abs(rhs))) or 1.0

        def telling(
            width: np.ndarray,
            cols: np.ndarray,
            sums: np.ndarray = sums,
            top1: np.ndarray = top1,
            top2: np.ndarray = top2,
            tol: float = tol,
        ) -> np.ndarray:
            # Would an interval this wide disclose the atom: its sum determined below the threshold, or known
            # more closely than the p % rule allows? (NaN widths never do; an infinite one never does.)
            k = truth[cols]
            with np.errstate(invalid="ignore"):
                exact = (width <= tol) & (k >= 1) & (k < t)
                approx = (
                    (k >= 1) & (top1[cols] > 0) & (width / 2 + (sums[cols] - top2[cols]) < p * top1[cols])
                )
            return exact | approx

        def close_scaled(
            lo: np.ndarray, hi: np.ndarray, cols: np.ndarray, scale: float = scale
        ) -> np.ndarray:
            width = (hi - lo) * scale
            return cols[np.isfinite(width) & telling(width, cols)]

        def need_sum(
            lo: np.ndarray,
            hi: np.ndarray,
            seen_lo: np.ndarray,
            seen_hi: np.ndarray,
            cols: np.ndarray,
            scale: float = scale,
        ) -> np.ndarray:
            # The true interval is at least as wide as the values seen: once those are too far apart for the
            # exact and the p % finding, the atom's interval cannot change a finding.
            return telling((seen_hi - seen_lo) * scale, cols) & (hi > lo)

        # The moves of the counts' kind, here of sums: every sum table (and mean) of this magnitude lacks a
        # variable of the move (an atom known to be empty gains nothing).
        m_lo, m_hi, _ = _moves(
            atoms, variables, conditions, mag_faces[var], sums / scale, lower=lower / scale, upper=upper
        )
        still_open = telling((m_hi - m_lo) * scale, np.arange(n_atoms))
        if n_atoms > FULL_LIMIT:
            _local_reach(
                atoms, variables, conditions, m, rhs / scale, sums / scale, lower / scale, upper,
                np.flatnonzero(still_open), m_lo, m_hi,
            )  # fmt: skip
            # A wider sub-grid for the few atoms still open: at 10⁵ atoms it settled 22 of the last 24 (whose
            # programs over the whole block take minutes), for about 10 s.
            still_open = telling((m_hi - m_lo) * scale, np.arange(n_atoms))
            if still_open.any():
                _local_reach(
                    atoms, variables, conditions, m, rhs / scale, sums / scale, lower / scale, upper,
                    np.flatnonzero(still_open), m_lo, m_hi, width=5,
                )  # fmt: skip
        rm = intervals(
            m,
            rhs / scale,
            integer=False,
            lower=lower,
            upper=upper,
            explain=close_scaled,
            known=sums / scale,
            need=need_sum,
            reached=(m_lo, m_hi),
        )
        rm = replace(rm, lo=rm.lo * scale, hi=rm.hi * scale)
        undecided += int(rm.undecided.sum()) if rm.undecided is not None else 0
        atoms[f"lo_{var}"], atoms[f"hi_{var}"] = rm.lo, rm.hi
        rank = -1 if rank < 0 or rm.rank < 0 else rank + rm.rank
        equations += rows_m.released
        single_m = _singles(m)
        every = sorted({n for ns in rows_m.names for n in ns})
        width_all = rm.hi - rm.lo
        flagged = np.isfinite(width_all) & telling(width_all, np.arange(n_atoms))
        for j in np.flatnonzero(flagged):
            lo, hi = rm.lo[j], rm.hi[j]
            if int(j) in single_m:
                continue
            width = hi - lo
            exact = width <= tol
            names = sorted({n for e in rm.witnesses.get(int(j), ()) for n in rows_m.names[e]}) or every
            who = _describe(atoms, int(j), variables, conditions)
            if exact and truth[j] < t:
                disclosures.append(
                    _finding(
                        "exact",
                        atoms,
                        int(j),
                        variables,
                        conditions,
                        names,
                        lo,
                        hi,
                        _sum_sentence(names, var, int(truth[j]), lo, who, exact=True),
                    )
                )
            elif top1[j] > 0 and width / 2 + (sums[j] - top2[j]) < p * top1[j]:
                disclosures.append(
                    _finding(
                        "approximate",
                        atoms,
                        int(j),
                        variables,
                        conditions,
                        names,
                        lo,
                        hi,
                        _sum_sentence(names, var, int(truth[j]), lo, who, exact=False, hi=hi),
                    )
                )
    return Differencing(
        atoms, variables, conditions, disclosures, equations, rank, complete, magnitudes, undecided,
        systems, cell_rows, open_means,
    )  # fmt: skip


def _moves(
    atoms: pd.DataFrame,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    faces: list[frozenset[str]],
    point: np.ndarray,
    *,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    rounds: int = 16,
    limit: int = 12,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict[frozenset[str], np.ndarray]]:
    """Solutions next to ``point`` (the truth) that keep every released total, found without a solver.

    Take variables V that no released table holds all together (``faces`` are the tables' variable sets), two
    levels of each, and the 2^|V| atoms that cross them (the other variables and the conditions' pattern
    fixed). Adding δ to the atoms an even number of level changes away from the first and taking δ from the
    others changes no released total: every table lacks some v ∈ V, and along v the two changes meet in the
    same cell with opposite signs. With δ the least of the atoms that lose (above ``lower``; none that gains
    may be held at ``upper`` = 0), the move stays a solution, whole if ``point`` is: every atom it touches is
    not determined, and moves the other way widen its range further.

    Returns the lowest and highest values so reached per atom, and per V the atoms some move changed (a
    group over variables that include V then has an undetermined total too).
    """
    import itertools

    n = len(atoms)
    lo, hi = point.astype(float).copy(), point.astype(float).copy()
    movable: dict[frozenset[str], np.ndarray] = {}
    room = point - (np.zeros(n) if lower is None else lower)  # how much each atom can lose
    can_gain = np.ones(n, dtype=bool) if upper is None else upper > point
    sizes = {v: len(cast(pd.Index, atoms.attrs["levels"][v])) for v in variables}
    fcols = [f"__f{i}" for i in range(len(conditions))]
    if fcols:
        bits = np.zeros(n, dtype=np.int64)
        for i, f in enumerate(fcols):
            bits |= atoms[f].to_numpy(dtype=np.int64) << i
        _, pattern = np.unique(bits, return_inverse=True)
        n_patterns = int(pattern.max()) + 1 if n else 1
    else:
        pattern = np.zeros(n, dtype=np.int64)
        n_patterns = 1
    total = int(np.prod([sizes[v] for v in variables], dtype=float)) * n_patterns
    if not variables or n == 0 or total != n:
        return lo, hi, movable  # only a complete grid of atoms has every partner of a move
    codes = {v: atoms[f"__c_{v}"].to_numpy(dtype=np.int64) for v in variables}
    radix: dict[str, int] = {}
    step = n_patterns
    key = pattern.astype(np.int64).copy()
    for v in variables:
        radix[v] = step
        key += codes[v] * step
        step *= sizes[v]
    lookup = np.empty(total, dtype=np.int64)
    lookup[key] = np.arange(n)
    usable = [v for v in variables if sizes[v] >= 2]
    sets: list[frozenset[str]] = []
    for k in range(1, min(5, len(usable)) + 1):
        for combo in itertools.combinations(usable, k):
            vs = frozenset(combo)
            if any(vs <= f for f in faces):
                continue
            if all(any(frozenset(sub) <= f for f in faces) for sub in itertools.combinations(combo, k - 1)):
                sets.append(vs)  # a smallest set no table holds: its moves touch the fewest atoms
        if len(sets) >= limit:
            break
    rng = np.random.default_rng(seed)
    active = point != 0

    def still() -> int:
        return int(np.sum(active & (lo >= point) & (hi <= point)))

    for vs in sets[:limit]:
        order = sorted(vs, key=variables.index)
        moved = np.zeros(n, dtype=bool)
        # Other pairs of levels reach other atoms: more rounds while they move more atoms (at most ``rounds``).
        left, idle = still(), 0
        for _ in range(rounds):
            if left == 0 or idle >= 2:
                break
            shift = {v: int(rng.integers(1, sizes[v])) for v in order}
            corners: list[tuple[int, np.ndarray]] = []
            for mask in range(1 << len(order)):
                partner = key.copy()
                changed = 0
                for bit, v in enumerate(order):
                    if mask >> bit & 1:
                        partner += ((codes[v] + shift[v]) % sizes[v] - codes[v]) * radix[v]
                        changed += 1
                corners.append((changed % 2, lookup[partner]))
            even = [idx for parity, idx in corners if parity == 0]
            odd = [idx for parity, idx in corners if parity == 1]
            # point − δ·move: the even corners lose δ, the odd ones gain it; point + δ·move the other way round.
            down = np.where(
                np.all([can_gain[i] for i in odd], axis=0), np.min([room[i] for i in even], axis=0), 0.0
            )
            up = np.where(
                np.all([can_gain[i] for i in even], axis=0), np.min([room[i] for i in odd], axis=0), 0.0
            )
            for parity, idx in corners:
                lose, gain = (down, up) if parity == 0 else (up, down)
                ok_l, ok_g = lose > 0, gain > 0
                np.minimum.at(lo, idx[ok_l], point[idx[ok_l]] - lose[ok_l])
                np.maximum.at(hi, idx[ok_g], point[idx[ok_g]] + gain[ok_g])
                moved[idx[ok_l | ok_g]] = True
            now = still()
            idle = idle + 1 if now >= left else 0
            left = now
        movable[vs] = moved
    return lo, hi, movable


def _local_reach(
    atoms: pd.DataFrame,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    m: sp.csr_matrix,
    rhs: np.ndarray,
    point: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    asked: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    width: int = 3,
    seed: int = 1,
) -> None:
    """Widen the reached range of the ``asked`` atoms by small programs: every atom outside a small sub-grid
    around the asked one (its own level and ``width`` − 1 others of each variable, its conditions' pattern)
    is held at ``point``; any solution of that program is a solution of the whole system, so its least and
    largest value of the atom are reached. (Only a lower bound on the atom's range: what it cannot show is
    left to the programs over the whole block.)"""
    from scipy.optimize import linprog

    if asked.size == 0 or not variables:
        return
    rng = np.random.default_rng(seed)
    codes = {v: atoms[f"__c_{v}"].to_numpy(dtype=np.int64) for v in variables}
    sizes = {v: len(cast(pd.Index, atoms.attrs["levels"][v])) for v in variables}
    fcols = [f"__f{i}" for i in range(len(conditions))]
    flags = atoms[fcols].to_numpy(dtype=bool) if fcols else np.zeros((len(atoms), 0), dtype=bool)
    csc = sp.csc_matrix(m)
    for j in asked.tolist():
        keep = np.all(flags == flags[j], axis=1)
        for v in variables:
            others = np.delete(np.arange(sizes[v]), codes[v][j])
            pick = rng.choice(others, size=min(width - 1, others.size), replace=False)
            keep &= np.isin(codes[v], np.append(pick, codes[v][j]))
        cols = np.flatnonzero(keep)
        fixed = point * ~keep
        local = csc[:, cols]
        rows = np.flatnonzero(np.diff(sp.csr_matrix(local).indptr) > 0)
        a_loc = sp.csr_matrix(local)[rows]
        b_loc = (rhs - m @ fixed)[rows]
        bounds = np.column_stack([lower[cols], upper[cols]])
        at = int(np.flatnonzero(cols == j)[0])
        for sign in (1.0, -1.0):
            c = np.zeros(cols.size)
            c[at] = sign
            res = linprog(c, A_eq=a_loc, b_eq=b_loc, bounds=bounds, method="highs")
            if res.status == 0:
                value = float(res.x[at])
                lo[j], hi[j] = min(lo[j], value), max(hi[j], value)
            elif res.status == 3:
                (lo if sign > 0 else hi)[j] = -np.inf if sign > 0 else np.inf


def _singles(a: sp.csr_matrix) -> set[int]:
    """The atoms that one released number shows by itself (a row holding only them): the primary rules'."""
    lone = np.flatnonzero(np.diff(a.indptr) == 1)
    return set(a.indices[a.indptr[lone]].tolist())


#: What :func:`_group_count` gives when its time ran out before the programs decided.
UNDECIDED = "undecided"


def _group_count(
    a: sp.csr_matrix, b: np.ndarray, members: np.ndarray, n: int, *, deadline: float = np.inf
) -> tuple[float, np.ndarray] | str | None:
    """The count of a group of atoms and the equations that give it, if the released counts determine it; None
    if they do not; :data:`UNDECIDED` if the programs did not end by ``deadline`` (``time.perf_counter()``)."""
    if a.shape[0] == 0 or members.size == 0:
        return None
    from scipy.optimize import linprog

    c = np.zeros(n)
    c[members] = 1.0
    ends = []
    for sign in (1.0, -1.0):
        left = deadline - time.perf_counter()
        if left <= 0:
            return UNDECIDED
        options = {} if not np.isfinite(left) else {"time_limit": float(left)}
        res = linprog(sign * c, A_eq=a, b_eq=b, bounds=(0, None), method="highs", options=options)
        if res.status == 1:  # the time limit (or the iteration limit) ran out
            return UNDECIDED
        ends.append(res)
    lo, hi = ends
    if lo.status != 0 or hi.status != 0:
        return None
    if abs(lo.fun + hi.fun) <= 1e-7 * max(1.0, abs(lo.fun)):
        duals = np.abs(lo.eqlin.marginals) + np.abs(hi.eqlin.marginals)
        return float(np.round(lo.fun)), np.flatnonzero(duals > 1e-9)
    return None


def _atoms(
    con: Any,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    sql_of: dict[str, str],
    max_atoms: int,
) -> tuple[pd.DataFrame, bool]:
    specs = {s.where: s for s, _ in linear if s.where}
    flags = [f"{check_where(con, specs[c])} AS __f{i}" for i, c in enumerate(conditions)]
    labels = [f"COALESCE(CAST({qi(v)} AS VARCHAR), '{MISSING}') AS {qi(v)}" for v in variables]
    aggs = ["COUNT(*) AS n"]
    magnitudes = tuple(sql_of)
    for m, x in sql_of.items():
        aggs += [
            f"COALESCE(SUM({x}), 0) AS {qi('__s_' + m)}",
            f"MIN({x}) AS {qi('__min_' + m)}",
            f"MAX({x}, 2) AS {qi('__top_' + m)}",
        ]
    keys = labels + flags
    sql = f"SELECT {', '.join(keys + aggs)} FROM data"
    if keys:
        sql += " GROUP BY ALL"
    observed = con.sql(sql).df()
    for m in magnitudes:
        tops = observed.pop(f"__top_{m}")
        observed[f"__t1_{m}"] = [float(t[0]) if t is not None and len(t) else 0.0 for t in tops]
        observed[f"__t2_{m}"] = [float(sum(t[:2])) if t is not None and len(t) else 0.0 for t in tops]
    fcols = [f"__f{i}" for i in range(len(conditions))]
    levels = [sorted(observed[v].unique(), key=_order) for v in variables]
    patterns = observed[fcols].drop_duplicates() if fcols else pd.DataFrame(index=[0])
    size = int(np.prod([len(lv) for lv in levels], dtype=float)) * len(patterns)
    complete = size <= max_atoms
    if complete and variables:
        grid = pd.MultiIndex.from_product(levels, names=list(variables)).to_frame(index=False)
        grid = grid.merge(patterns, how="cross") if fcols else grid
        atoms = grid.merge(observed, on=list(variables) + fcols, how="left")
    elif complete:
        atoms = patterns.reset_index(drop=True).merge(observed, on=fcols, how="left") if fcols else observed
    else:
        atoms = observed
    atoms = atoms.reset_index(drop=True)
    atoms["n"] = atoms["n"].fillna(0).astype("int64")
    for m in magnitudes:
        for col in (f"__s_{m}", f"__t1_{m}", f"__t2_{m}"):
            atoms[col] = atoms[col].fillna(0.0)
    for f in fcols:
        atoms[f] = atoms[f].astype(bool)
    # Integer codes of every grouping variable's levels: cells find their atoms through them.
    atoms.attrs["levels"] = {}
    for v in variables:
        index = pd.Index(sorted(atoms[v].astype(str).unique(), key=_order))
        atoms.attrs["levels"][v] = index
        atoms[f"__c_{v}"] = index.get_indexer(pd.Index(atoms[v].astype(str))).astype(np.int32)
    return atoms, complete


def _describe(atoms: pd.DataFrame, j: int, variables: tuple[str, ...], conditions: tuple[str, ...]) -> str:
    parts = [f"{v} = {_at(atoms)[j, v]}" for v in variables]
    for i, c in enumerate(conditions):
        parts.append(c if bool(_at(atoms)[j, f"__f{i}"]) else f"not ({c})")
    return listing(parts) if parts else "everyone"


def _finding(
    kind: str,
    atoms: pd.DataFrame,
    j: int,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    names: list[str],
    lo: float,
    hi: float,
    sentence: str,
) -> dict[str, Any]:
    labels: dict[str, Any] = {v: _at(atoms)[j, v] for v in variables}
    for i, c in enumerate(conditions):
        labels[c] = bool(_at(atoms)[j, f"__f{i}"])
    return {
        "kind": kind,
        "outputs": names,
        "labels": labels,
        "interval": [_clean(lo), _clean(hi)],
        "sentence": sentence,
        "atom": j,
    }


def _clean(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def _together(names: list[str]) -> str:
    return f"{names[0]} shows" if len(names) == 1 else f"{listing(names)} together show"


def _count_sentence(names: list[str], k: int, who: str) -> str:
    people = "person" if k == 1 else "people"
    verb = "has" if k == 1 else "have"
    return f"{_together(names)} that exactly {k} {people} {verb} {who}."


def _sum_sentence(
    names: list[str], var: str, n: int, lo: float, who: str, *, exact: bool, hi: float = 0.0
) -> str:
    people = "person" if n == 1 else "people"
    if exact:
        return f"{_together(names)} that the {var} of the {n} {people} with {who} sums to exactly {number(lo, 6)}."
    return f"{_together(names)} that the {var} of the {n} {people} with {who} lies between {number(lo, 6)} and {number(hi, 6)}."
