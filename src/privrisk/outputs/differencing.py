"""Differencing: what all released outputs reveal together, group by group.

**The intruder's model.** The intruder knows every released number (this request's and the ledger's), the spec
(every ``where``, every derived variable, every hierarchy), each variable's domain
(:mod:`privrisk.outputs.knowledge`), that counts are whole and non-negative, and the sign of a magnitude whose
values all have one sign. The unknowns are the **atoms**' counts (the possible combinations of the grouping
variables' labels and the conditions' truth values) and, per magnitude, the atoms' sums (0 where an atom is known to
be empty). Every released count is a total of atom counts, every released sum a total of atom sums, every released
mean an equation sum − mean × count = 0 (so a sum and a mean of one group give its count); a table's rows and
columns that are not shown hold nobody in its population.

**The findings** (:mod:`privrisk.outputs.findings`) are sought among every group, not only atoms
(:mod:`privrisk.outputs.groups`): a group whose count every solution puts within [1, threshold − 1] ("exact" when
it is one value), a group known to hold someone all of whom share one value of a dimension (a zero found by
differencing, when the policy's ``zeros_are_disclosive``), and a group whose sum is determined while it holds fewer
than threshold people or is known within the p % rule's protection on either side. A group whose atoms are those of
one released cell is left to the primary rules. Each interval is exact under the model (HiGHS through
:mod:`privrisk.solver`); groups the deterministic budgets leave open are counted as undecided (the verdict is then
"review", never "pass").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privrisk._validation import quote_identifier as qi
from privrisk.outputs.atom_table import atom_cube, atom_table
from privrisk.outputs.disclosures import _public
from privrisk.outputs.findings import zero_atoms
from privrisk.outputs.group_findings import group_findings, released_atoms
from privrisk.outputs.intervals import Region
from privrisk.outputs.knowledge import Knowledge
from privrisk.outputs.mean_counts import mean_counts
from privrisk.outputs.moves import TRIES, moves, moves_through
from privrisk.outputs.nearby import subtables
from privrisk.outputs.perturbed import Slacks
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec

__all__ = ["Differencing", "System", "difference", "incidence", "measure"]

LINEAR = ("count", "sum", "mean")
#: Up to this many atoms, every atom's interval is computed exactly (``atoms.csv``): integer programmes where a
#: linear bound is fractional. Up to :data:`ATOMS_LINEAR`, the rounded linear bounds (exact where ``tight``: a whole
#: solution reaches both ends); above, the propagated bounds. The verdicts never rest on these intervals: every
#: group, each atom among them, is examined apart (:mod:`privrisk.outputs.findings`).
ATOMS_EXACT = 100
ATOMS_LINEAR = 500
#: Batches of moves drawn around the atoms of the groups the first moves left open
#: (:func:`~privrisk.outputs.moves.moves_through`), before any programme: each batch is cheap, a programme on a
#: large block is not (the large request of ``benchmarks/outputs.py``: 3,846 groups open after the first moves).
TARGETED_ROUNDS = 4
#: Atoms a batch draws its full tries a set of dimensions for (:data:`~privrisk.outputs.moves.TRIES`); around
#: more, fewer tries each (at least one), so that a batch stays about this size. Every move is checked against
#: the released equations and then pooled for the walks: the large request's shape at 300,000 records left 88,822
#: atoms open, 3.8·10⁶ moves a batch, 90 s to check each and the walks over all of them not done after 10 minutes.
TARGETED_ATOMS = 10_000


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


@dataclass(frozen=True)
class System:
    """The released system A·x = b over the joint unknowns: the atoms' counts (from 0), then per magnitude the
    atoms' sums divided by its scale (from ``offsets[magnitude]``).

    ``times[e]`` is how many released cells gave equation e (a cell shown by two outputs is known though one of
    them hides it); ``lower``/``upper`` bound each unknown; ``known`` is the truth; ``integer`` marks the whole
    unknowns (counts); ``names[e]`` are the outputs that released equation e.
    """

    a: sp.csr_matrix
    b: np.ndarray
    times: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    known: np.ndarray
    integer: np.ndarray
    names: tuple[frozenset[str], ...] = ()
    offsets: dict[str | None, int] = field(default_factory=dict)
    scales: dict[str | None, float] = field(default_factory=dict)
    atoms: int = 0


@dataclass(frozen=True)
class Differencing:
    """The atoms (one row each: labels, true count, count interval; per magnitude its true sum and interval),
    the findings (``disclosures`` for people, ``findings`` every group found) and the size of the released
    system."""

    atoms: pd.DataFrame
    variables: tuple[str, ...]
    conditions: tuple[str, ...]
    disclosures: list[dict[str, Any]]
    equations: int
    rank: int
    complete: bool
    magnitudes: tuple[str, ...] = field(default=())
    undecided: int = 0
    # Every kind of cell (None: counts; else a magnitude) → the joint system, and per output the kind of its
    # cells and each cell's equation (-1: none). Means not in the system (their group has missing values) keep
    # their atoms in ``open_means`` (output → {cell position: atoms}).
    systems: dict[str | None, System] = field(default_factory=dict)
    cell_rows: dict[str, tuple[str | None, np.ndarray]] = field(default_factory=dict)
    open_means: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)
    assumed: list[dict[str, Any]] = field(default_factory=list)
    knowledge: Knowledge | None = None
    #: The groups the budgets left undecided, in words (at most :data:`~privrisk.outputs.group_findings.NAMED_UNDECIDED`; ``undecided`` counts all).
    undecided_groups: list[str] = field(default_factory=list)
    #: The fingerprints of the only groups a release telling less may find
    #: (:func:`~privrisk.outputs.group_findings.may_find`; None: any group), and what identifies the atoms.
    may_find: frozenset[tuple[int, int]] | None = None
    atoms_id: str = ""


class _Codes:
    """The atoms' integer codes read once: each variable's levels and codes, each condition's flags, and the
    mixed-radix key of each set of variables met. Reading a column of ``atoms`` copies its ``attrs`` (the
    levels) every time, and 200 outputs read them over a thousand times."""

    def __init__(self, atoms: pd.DataFrame) -> None:
        self.atoms = atoms
        self.n = len(atoms)
        self._levels: dict[str, pd.Index] = {}
        self._codes: dict[str, np.ndarray] = {}
        self._flags: dict[str, np.ndarray] = {}
        self._keys: dict[tuple[str, ...], tuple[np.ndarray, int]] = {}

    def levels(self, v: str) -> pd.Index:
        if v not in self._levels:
            self._levels[v] = cast(pd.Index, self.atoms.attrs["levels"][v])
            self._codes[v] = self.atoms[f"__c_{v}"].to_numpy(dtype=np.int64)
        return self._levels[v]

    def flag(self, flag: str | None) -> np.ndarray:
        if flag is None:
            return np.ones(self.n, dtype=bool)
        if flag not in self._flags:
            self._flags[flag] = self.atoms[flag].to_numpy(dtype=bool)
        return self._flags[flag]

    def atom_key(self, keys: list[str]) -> tuple[np.ndarray, int]:
        """Each atom's mixed-radix key over ``keys`` and the number of keys (the caller must not change it)."""
        t = tuple(keys)
        if t not in self._keys:
            atom_key = np.zeros(self.n, dtype=np.int64)
            size = 1
            for v in keys:
                levels = self.levels(v)
                atom_key = atom_key * len(levels) + self._codes[v]
                size *= len(levels)
            self._keys[t] = (atom_key, size)
        return self._keys[t]


def incidence(
    atoms: pd.DataFrame, spec: OutputSpec, cells: pd.DataFrame, flag: str | None, codes: _Codes | None = None
) -> sp.csr_matrix:
    """Which atoms make up each cell (a cells × atoms 0/1 matrix; cells in their frame's order).

    Labels are matched through the atoms' integer codes (``__c_`` columns): a cell of grouping set ``s`` is a
    key in mixed radix over the codes of ``s``, and every atom (of the ``where`` condition, if any) is looked up
    in one array, without a join. ``codes`` (for these ``atoms``) keeps what several calls read alike.
    """
    codes = _Codes(atoms) if codes is None else codes
    n_atoms = len(atoms)
    base = codes.flag(flag)
    positions = np.arange(len(cells))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    sets = cells["set"].to_numpy()
    for s in dict.fromkeys(sets.tolist()):
        keys = [str(v) for v in cast(Any, s)]
        mine = positions[np.fromiter((t == s for t in sets), dtype=bool, count=len(sets))]
        atom_key, cell_key, valid, size = _keys(codes, keys, cells, mine)
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


def _keys(
    codes: _Codes, keys: list[str], cells: pd.DataFrame, mine: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Mixed-radix keys over the variables ``keys``: each atom's, and each of the cells ``mine``'s (with whether
    its labels are levels at all), and the number of keys."""
    atom_key, size = codes.atom_key(keys)
    cell_key = np.zeros(mine.size, dtype=np.int64)
    valid = np.ones(mine.size, dtype=bool)
    for v in keys:
        levels = codes.levels(v)
        code = levels.get_indexer(cells[v].to_numpy()[mine].astype(str))
        valid &= code >= 0
        cell_key = cell_key * len(levels) + np.maximum(code, 0)
    return atom_key, cell_key, valid, size


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
    """Released equations over the joint unknowns, each kept once: identical rows (the same cells released by
    several outputs) are one equation, named after every output that released it."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.parts: list[sp.csr_matrix] = []
        self.values: list[float] = []
        self.names: list[set[str]] = []
        self.times: list[int] = []
        self.seen: dict[tuple[bytes, bytes], int] = {}
        self.cells: list[bool] = []  # whether a released cell gave the equation (not only a row left out)
        self.released = 0

    def add(self, mat: sp.csr_matrix, values: np.ndarray, name: str, *, cell: bool = True) -> np.ndarray:
        """Add the rows of ``mat`` with their released ``values`` (not finite: not released); each row's
        equation (−1: none). ``cell``: the rows are cells (not the rows and columns a table leaves out)."""
        mat = sp.csr_matrix(mat)
        mat.sort_indices()
        values = np.asarray(values, dtype=float)
        index = np.full(mat.shape[0], -1, dtype=np.int64)
        keep: list[int] = []
        for i in range(mat.shape[0]):
            if not np.isfinite(values[i]):
                continue
            lo, hi = mat.indptr[i], mat.indptr[i + 1]
            key = (mat.indices[lo:hi].tobytes(), mat.data[lo:hi].tobytes())
            e = self.seen.get(key)
            if e is None:
                e = len(self.names)
                self.seen[key] = e
                self.names.append(set())
                self.times.append(0)
                self.values.append(float(values[i]))
                self.cells.append(False)
                keep.append(i)
            self.names[e].add(name)
            if cell:
                self.times[e] += 1
                self.released += 1
                self.cells[e] = True
            index[i] = e
        if keep:
            self.parts.append(mat[keep])
        return index

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray]:
        if not self.parts:
            return sp.csr_matrix((0, self.width)), np.empty(0)
        return sp.csr_matrix(sp.vstack(self.parts, format="csr")), np.array(self.values)


def _shift(mat: sp.csr_matrix, offset: int, width: int, scale: float = 1.0) -> sp.csr_matrix:
    mat = sp.csr_matrix(mat)
    return sp.csr_matrix((mat.data * scale, mat.indices + offset, mat.indptr), shape=(mat.shape[0], width))


def _absent(
    atoms: pd.DataFrame, spec: OutputSpec, cells: pd.DataFrame, flag: str | None, codes: _Codes | None = None
) -> np.ndarray:
    """Atoms of the table's population whose row (or column) the table does not show: nobody is in them."""
    codes = _Codes(atoms) if codes is None else codes
    base = codes.flag(flag)
    full = np.fromiter((t == spec.variables for t in cells["set"]), dtype=bool, count=len(cells))
    out = np.zeros(len(atoms), dtype=bool)
    if not spec.variables:
        return out
    mine = np.flatnonzero(full)
    for part in (spec.rows, spec.columns):
        if not part:
            continue
        atom_key, cell_key, valid, _ = _keys(codes, [str(v) for v in part], cells, mine)
        out |= ~np.isin(atom_key, cell_key[valid])
    return out & base


def difference(
    con: Any,
    tables: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    *,
    max_atoms: int = 200_000,
    knowledge: Knowledge | None = None,
    atoms_memo: dict[Any, tuple[pd.DataFrame, Any]] | None = None,
    within: Differencing | None = None,
    findings: bool = True,
    atom_intervals: bool = True,
) -> Differencing:
    """Atoms, the released system and the findings of the count, sum and mean tables given (spec, cells).

    A cell whose value is not finite is not a released number (a cell of a ``suppressed`` column that is true
    likewise); its labels still show its row and column. An empty sum or mean cell (no value, nobody, nothing
    missing) shows that its group is empty.

    ``atoms_memo`` (a dict the caller keeps while the data and the knowledge stay the same) keeps the atoms of
    each set of variables and conditions: the audits of a request's remedies difference the same atoms dozens of
    times, and reading them from the data is most of each audit's time on small data.

    ``within``: the differencing of a release that tells at least as much as this one, with the same intruder and
    policy (every number released here is released there, or these tables are those with cells hidden). Only the
    groups it found, left open or released can be findings here (:func:`~privrisk.outputs.group_findings.may_find`),
    so the count and sum findings examine those alone; it is ignored unless its atoms are these. Without
    ``findings``, only the atoms and the system are built (for the intervals of cells,
    :func:`privrisk.outputs.cell_bounds.hidden_cells`): no finding, no atom interval, rank 0. Without
    ``atom_intervals``, the findings alone (an audit of a remedy reads nothing else): the atoms get no ``lo``/``hi``
    columns, whose exact ends on small data cost more than the findings (up to :data:`ATOMS_EXACT` atoms, integer
    programmes per end, in every one of a request's dozens of audits).
    """
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
        return Differencing(pd.DataFrame(), (), (), [], 0, 0, True, knowledge=knowledge)
    memo_key = (variables, conditions, tuple(sql_of.items()), max_atoms)
    if atoms_memo is not None and memo_key in atoms_memo:
        kept, uni = atoms_memo[memo_key]
    else:
        kept, uni = atom_table(con, variables, conditions, sql_of, max_atoms, knowledge)
        if atoms_memo is not None:
            atoms_memo[memo_key] = (kept, uni)
    atoms = kept.copy()  # the intervals are written into it below
    atoms_id = _identity(kept)
    codes = _Codes(atoms)
    flag_of = {c: f"__f{i}" for i, c in enumerate(conditions)}
    n = len(atoms)
    slacks = _perturbed(atoms, linear, flag_of, n * (1 + len(magnitudes)), codes)
    width = n * (1 + len(magnitudes)) + slacks.size
    offsets: dict[str | None, int] = {None: 0, **{m: n * (i + 1) for i, m in enumerate(magnitudes)}}
    truth = atoms["n"].to_numpy(dtype=float)
    sums = {m: atoms[f"__s_{m}"].to_numpy(dtype=float) for m in magnitudes}
    scales: dict[str | None, float] = {
        None: 1.0,
        **{m: max(1.0, float(np.abs(sums[m]).sum())) for m in magnitudes},
    }
    rows = _Rows(width)
    cell_rows: dict[str, tuple[str | None, np.ndarray]] = {}
    open_means: dict[str, dict[int, np.ndarray]] = {}
    later: list[tuple[OutputSpec, pd.DataFrame, sp.csr_matrix, np.ndarray, str]] = []
    # Counts first (the tables' cells, the rows and columns they leave out, the empty cells of magnitude
    # tables): a mean whose group's count they determine is a sum (mean × count), which keeps the counts' system
    # apart from the sums'.
    for spec, cells in linear:
        flag = flag_of.get(spec.where) if spec.where else None
        mat = incidence(atoms, spec, cells, flag, codes)
        values = cells["value"].to_numpy(dtype=float).copy()
        hidden = (
            cells["suppressed"].to_numpy(dtype=bool) if "suppressed" in cells else np.zeros(len(cells), bool)
        )
        values[hidden] = np.nan
        name = measure(spec)
        key = None if spec.kind == "count" and name is None else name
        absent = _absent(atoms, spec, cells, flag, codes)
        if absent.any():
            zero = sp.csr_matrix((np.ones(int(absent.sum())), np.flatnonzero(absent), [0, int(absent.sum())]),
                                 shape=(1, width))  # fmt: skip
            rows.add(zero, np.zeros(1), spec.name, cell=False)
        if spec.name in slacks.plans:
            cell_rows[spec.name] = (key, rows.add(*slacks.rows(spec.name, width), spec.name))
            continue
        if key is None:
            cell_rows[spec.name] = (key, rows.add(_shift(mat, 0, width), values, spec.name))
            continue
        missing = cells["missing"].to_numpy(dtype=float) if "missing" in cells else np.zeros(len(cells))
        counted = cells["n"].to_numpy(dtype=float) if "n" in cells else np.ones(len(cells))
        shown_empty = ~np.isfinite(values) & (counted == 0) & (missing == 0) & ~hidden
        if shown_empty.any():
            empty_rows = np.flatnonzero(shown_empty)
            rows.add(_shift(mat[empty_rows], 0, width), np.zeros(empty_rows.size), spec.name)
        later.append((spec, cells, mat, values, key))
    counts_a, counts_b = rows.matrix()
    cube = atom_cube(atoms, variables, conditions)
    dims = {d: i for i, d in enumerate(cube.dims)}

    def holds(kinds: tuple[str | None, ...]) -> list[frozenset[int]]:
        return [
            frozenset(dims[v] for v in (*s.variables, *([s.where] if s.where else [])))
            for s, _ in linear if (None if s.kind == "count" and measure(s) is None else measure(s)) in kinds
        ]  # fmt: skip

    count_moves = moves(cube.coords, cube.sizes, holds((None, *magnitudes)), truth)
    known_count: dict[bytes, tuple[float, set[str]]] = {}
    means = [(mat, values, cells) for spec, cells, mat, values, _ in later if spec.kind == "mean"]
    if means:
        # A perturbed cell's equation has its own unknown: left out here (bounding fewer counts is safe).
        exact = (
            (np.diff(counts_a[:, n:].tocsr().indptr) == 0).astype(float) if counts_a.shape[0] else np.ones(0)
        )
        counts_a = sp.csr_matrix(sp.diags(exact) @ counts_a[:, :n]) if counts_a.shape[0] else counts_a[:, :n]
        known_count = mean_counts(counts_a, counts_b * exact, truth, means, rows.names, count_moves)
    for spec, cells, mat, values, key in later:
        o, sc = offsets[key], scales[key]
        if spec.kind != "mean":
            cell_rows[spec.name] = (key, rows.add(_shift(mat, o, width), values / sc, spec.name))
            continue
        missing = cells["missing"].to_numpy(dtype=float) if "missing" in cells else np.zeros(len(cells))
        index = np.full(len(cells), -1, dtype=np.int64)
        for i in range(len(cells)):
            members = mat.indices[mat.indptr[i] : mat.indptr[i + 1]]
            if not np.isfinite(values[i]):
                continue
            if missing[i] != 0:
                open_means.setdefault(spec.name, {})[i] = members
                continue
            own = sp.csr_matrix((np.ones(members.size), members + o, [0, members.size]), shape=(1, width))
            got = known_count.get(np.sort(members).astype(np.int64).tobytes())
            if got is not None:
                # The count is known: mean × count is the group's sum (the atoms' own sum where the released
                # mean is today's, so that totals reached along different groupings agree to the last bit).
                count = got[0]
                total = float(sums[key][members].sum())
                if count > 0 and not np.isclose(total / count, values[i], rtol=1e-9, atol=0.0):
                    total = float(values[i]) * count
                index[i] = rows.add(own, np.array([total / sc]), spec.name)[0]
                rows.names[index[i]] |= got[1]
            else:
                # sum − mean × count = 0, in the sums' scale.
                people = sp.csr_matrix((np.full(members.size, -values[i] / sc), members, [0, members.size]),
                                       shape=(1, width))  # fmt: skip
                index[i] = rows.add(sp.csr_matrix(own + people), np.zeros(1), spec.name)[0]
        cell_rows[spec.name] = (key, index)
    a, b = rows.matrix()
    lower = np.zeros(width)
    upper = np.full(width, np.inf)
    known = np.concatenate([truth, *(sums[m] / scales[m] for m in magnitudes), slacks.known])
    integer = np.zeros(width, dtype=bool)
    integer[:n] = True
    integer[slacks.start :] = True
    upper[slacks.start :] = slacks.upper
    for m in magnitudes:
        sl = slice(offsets[m], offsets[m] + n)
        lo_v = float(np.nanmin(atoms[f"__min_{m}"].to_numpy(dtype=float), initial=np.inf))
        hi_v = float(np.nanmax(atoms[f"__max_{m}"].to_numpy(dtype=float), initial=-np.inf))
        lower[sl] = 0.0 if lo_v >= 0 else -np.inf
        upper[sl] = 0.0 if hi_v <= 0 else np.inf
    names = tuple(frozenset(x) for x in rows.names)
    region = Region(a, b, lower=lower, upper=upper, integer=integer, known=known)
    region.moves = _widen(count_moves, 0, width)
    held_counts = holds((None, *magnitudes))

    def around(unknowns: np.ndarray) -> Iterator[sp.csr_matrix]:
        targets = unknowns[unknowns < n]
        tries = int(np.clip(TRIES * TARGETED_ATOMS // max(targets.size, 1), 1, TRIES))
        for seed in range(TARGETED_ROUNDS):
            yield _widen(
                moves_through(cube.coords, cube.sizes, held_counts, truth, targets, tries=tries, seed=seed),
                0,
                width,
            )

    region.more_moves = around
    region.subtable = subtables(
        cube.coords,
        cube.sizes,
        np.array([True] * len(variables) + [False] * len(conditions)),
        [(0, truth), *((offsets[m], sums[m]) for m in magnitudes)],
    )
    zero, unsure = zero_atoms(region, truth)
    if magnitudes:
        if zero.any():
            # An atom known to be empty has every sum 0: a second region with those sums held at 0.
            for m in magnitudes:
                sl = np.arange(offsets[m], offsets[m] + n)[zero]
                lower[sl] = upper[sl] = 0.0
            subtable, found = region.subtable, region.found
            region = Region(a, b, lower=lower, upper=upper, integer=integer, known=known)
            region.more_moves = around
            region.subtable = subtable
            region.found = found  # checked against the sums held at 0 before use
        parts = [_widen(count_moves, 0, width)]
        for m in magnitudes:
            o, sc = offsets[m], scales[m]
            s_true = sums[m]
            room = np.where(np.isfinite(lower[o : o + n]), s_true - lower[o : o + n], np.abs(s_true) + 1.0)
            mm = moves(cube.coords, cube.sizes, holds((m,)), s_true, room=room, can_gain=upper[o : o + n] > 0,
                       whole=False)  # fmt: skip
            parts.append(_widen(mm, o, width, 1.0 / sc))
        region.moves = sp.csr_matrix(sp.vstack(parts, format="csr"))
    system = System(a, b, np.array(rows.times), lower, upper, known, integer, names, offsets, scales, n)
    systems = {k: system for k in (None, *magnitudes)}
    if not findings:
        return Differencing(atoms, variables, conditions, [], rows.released, 0, uni.complete, magnitudes, 0,
                            systems, cell_rows, open_means, [], uni.assumed, knowledge, atoms_id=atoms_id)  # fmt: skip
    released = released_atoms(system, np.array(rows.cells, dtype=bool))
    narrow = getattr(within, "may_find", None) if getattr(within, "atoms_id", None) == atoms_id else None
    found, undecided, open_groups, may = group_findings(
        atoms, variables, conditions, magnitudes, region, system, policy, zero, unsure, released, narrow
    )
    if atom_intervals:
        _atom_intervals(atoms, region, magnitudes, offsets, scales)
    disclosures = _public(found, atoms, variables, conditions, names)
    return Differencing(
        atoms, variables, conditions, disclosures, rows.released, region.rank(), uni.complete, magnitudes,
        undecided, systems, cell_rows, open_means, found, uni.assumed, knowledge, open_groups, may, atoms_id,
    )  # fmt: skip


def _identity(atoms: pd.DataFrame) -> str:
    """What identifies a table of atoms (its columns, labels, counts and sums, in order), for ``within``."""
    digest = hashlib.sha256(repr((list(atoms.columns), len(atoms))).encode())
    digest.update(pd.util.hash_pandas_object(atoms, index=True).to_numpy().tobytes())
    return digest.hexdigest()


def _perturbed(
    atoms: pd.DataFrame, linear: list[tuple[OutputSpec, pd.DataFrame]], flag_of: dict[str, str], start: int,
    codes: _Codes | None = None,
) -> Slacks:  # fmt: skip
    """The unknowns of the cells of count tables released with cell-key perturbation (``allowed_lo``/``hi``)."""
    slacks = Slacks(start)
    truth = atoms["n"].to_numpy(dtype=float)
    for spec, cells in linear:
        if spec.kind == "count" and measure(spec) is None and "allowed_lo" in cells:
            values = cells["value"].to_numpy(dtype=float).copy()
            if "suppressed" in cells:
                values[cells["suppressed"].to_numpy(dtype=bool)] = np.nan
            mat = incidence(atoms, spec, cells, flag_of.get(spec.where) if spec.where else None, codes)
            slacks.plan(spec.name, mat, cells, values, truth)
    return slacks


def _widen(m: sp.csr_matrix, offset: int, width: int, scale: float = 1.0) -> sp.csr_matrix:
    """Moves over the atoms as changes to the joint unknowns (from ``offset``, divided by the kind's scale)."""
    m = sp.csr_matrix(m)
    return sp.csr_matrix((m.data * scale, m.indices + offset, m.indptr), shape=(m.shape[0], width))


def _atom_intervals(
    atoms: pd.DataFrame, region: Region, magnitudes: tuple[str, ...], offsets: dict[str | None, int],
    scales: dict[str | None, float],
) -> None:  # fmt: skip
    """Each atom's count interval (and per magnitude its sum's): exact up to :data:`ATOMS_EXACT` atoms, the
    rounded linear bounds up to :data:`ATOMS_LINEAR`, else the propagated bounds (``tight`` where a whole solution
    reaches both ends)."""
    n = len(atoms)
    for key in (None, *magnitudes):
        o = offsets[key]
        g = sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(o, o + n))), shape=(n, region.n))
        every = n <= ATOMS_LINEAR

        def need(e: Any, every: bool = every) -> tuple[np.ndarray, np.ndarray]:
            return np.full(n, every), np.full(n, every)

        ends = region.extremes(g, need=need, exact=n <= ATOMS_EXACT)
        s = scales[key]
        if key is None:
            atoms["lo"], atoms["hi"], atoms["tight"] = ends.lo, ends.hi, ends.lo_exact & ends.hi_exact
        else:
            atoms[f"lo_{key}"], atoms[f"hi_{key}"] = ends.lo * s, ends.hi * s
