"""Both histograms of δ-presence rolled up to a node of the generalisation lattice.

The lattice itself and its search are :mod:`privrisk.generalisation.lattice`; this module holds what a node of it
means for δ-presence: the research subset's and the population's classes and counts at the node's levels.

Cost model (why this is fast): the raw tables are read once and grouped on the finest levels, so a node costs
O(C_T + C_P + K) where C_T and C_P are the numbers of distinct finest classes of the research subset and the
population and K the number of class keys at that node (a dense ``bincount`` when K is small, a sort of the
C_P + C_T keys otherwise); it never depends on the number of rows. A search costs that times the number of
nodes evaluated, at most the lattice size Π_j h_j (h_j the number of levels of quasi-identifier j); predictive
tagging usually leaves far fewer.

When the base codes span a small grid (Π_j n_j cells, n_j the base values of quasi-identifier j; a census of 10⁸
people on five quasi-identifiers has a few million classes in a grid of a few million cells), :class:`CubeRollUp`
keeps both histograms as one dense array of counts and rolls a node up axis by axis (``np.add.reduceat`` over the
base codes sorted by their code at the node's level). Every axis shrinks the array, the widest first, so a node
costs O(Π_j n_j) at most and far less above the bottom of the lattice; the classes come out in the same order as
from :func:`roll_up`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privrisk.generalisation.lattice import lattice_nodes

# Dense bincount up to this many keys (8 bytes each, twice): a sort is cheaper beyond.
_DENSE_LIMIT = 1 << 22
# A dense cube of both histograms up to this many cells (16 bytes each, 268 MB at most, twice while rolling) and
# at most this many cells per finest class (a sparse grid is cheaper to roll up from its classes). The grouping
# pass counts rows densely up to as many cells (privrisk.io.engine.DENSE_GROUP_CELLS).
_CUBE_LIMIT = 1 << 24
_CUBE_SPARSITY = 16
# Grids of base codes above this many cells (a census's postcodes × single years × …) roll up sparsely: only the
# classes holding research records are counted (:func:`roll_up_present`), the population's other classes only
# tallied. A module constant so that tests can lower it.
_SPARSE_CELLS = 1 << 24
# Population classes looked up per slice in the sparse roll-up (8 bytes each, a few arrays at a time).
_SLICE = 1 << 22
# Beyond _SLICE population classes, nodes of at most this many cells are counted densely slice by slice.
_SLICED_CELLS = 1 << 24
# Nodes of at most this many cells mark the population's missed keys in one flag (byte) per cell; more, sort them.
_SEEN_CELLS = 1 << 28


@dataclass(frozen=True)
class Encoded:
    """Both histograms on the finest usable levels, as integer codes.

    ``maps[j][level]`` maps the base code of quasi-identifier ``j`` to its code at ``level`` (``None`` below the
    base level); ``sizes[j][level]`` is the number of codes at that level.
    """

    data_codes: np.ndarray  # (C_T, q) integer base codes
    data_counts: np.ndarray  # (C_T,) int64
    pop_codes: np.ndarray  # (C_P, q) integer base codes (prepare_presence: the smallest type that holds them)
    pop_counts: np.ndarray  # (C_P,)
    base: tuple[int, ...]
    heights: tuple[int, ...]
    maps: tuple[tuple[np.ndarray | None, ...], ...]
    sizes: tuple[tuple[int, ...], ...]

    @property
    def q(self) -> int:
        return len(self.base)

    def nodes(self) -> np.ndarray:
        """Every node of the lattice, as rows of levels (bottom first; :func:`lattice_nodes`)."""
        return lattice_nodes(self.base, self.heights)


@dataclass(frozen=True)
class Rolled:
    """One node: its classes (codes at the node's levels), their counts, and each research class's class index."""

    codes: np.ndarray  # (C, q) codes at the node's levels
    data: np.ndarray  # (C,) research-subset count per class
    pop: np.ndarray  # (C,) population count per class
    data_class: np.ndarray  # (C_T,) class index of each finest research class (empty: not computed)
    pop_only: int = 0  # population classes without research records left out of the arrays (sparse roll-up)


def _keys(columns: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """Combine code columns into one int64 key per row; compact with ``np.unique`` where the radix would overflow."""
    key = np.zeros(columns[0].shape[0] if columns else 0, dtype=np.int64)
    radix = 1
    for col, size in zip(columns, sizes, strict=True):
        if radix * size >= 2**62:
            uniq, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).ravel()
            radix = len(uniq)
        key = key * size + col
        radix *= size
    return key


def roll_up(enc: Encoded, levels, *, every_class: bool = False, tally: bool = True) -> Rolled:
    """Aggregate both finest histograms to the node ``levels`` (one level per quasi-identifier).

    On a grid above :data:`_SPARSE_CELLS` cells only the classes holding research records are listed
    (:func:`roll_up_present`, ``tally`` passed on) unless ``every_class``.
    """
    if not every_class and cube_cells(enc) > _SPARSE_CELLS:
        return roll_up_present(enc, levels, tally=tally)
    levels = [int(x) for x in levels]
    n_d, n_p = enc.data_codes.shape[0], enc.pop_codes.shape[0]
    cols, sizes = [], []
    for j, lvl in enumerate(levels):
        m = enc.maps[j][lvl]
        cols.append(np.concatenate([m[enc.pop_codes[:, j]], m[enc.data_codes[:, j]]]))
        sizes.append(enc.sizes[j][lvl])
    key = _keys(cols, sizes)
    total = int(np.prod(np.asarray(sizes, dtype=float)))
    weights = np.concatenate([enc.pop_counts, enc.data_counts]).astype(np.float64)
    if total <= max(_DENSE_LIMIT, 2 * (n_d + n_p)) and total < 2**62:
        pop = np.bincount(key[:n_p], weights=weights[:n_p], minlength=total)
        dat = np.bincount(key[n_p:], weights=weights[n_p:], minlength=total)
        present = np.flatnonzero((pop > 0) | (dat > 0))
        pop, dat = pop[present], dat[present]
        data_class = np.searchsorted(present, key[n_p:])
        codes = np.stack(np.unravel_index(present, sizes), axis=1).astype(np.int64).reshape(present.size, -1)
        return Rolled(codes, dat.astype(np.int64), pop.astype(np.int64), data_class.astype(np.int64))
    else:
        present, inv = np.unique(key, return_inverse=True)
        inv = inv.ravel()
        pop = np.bincount(inv[:n_p], weights=weights[:n_p], minlength=present.size)
        dat = np.bincount(inv[n_p:], weights=weights[n_p:], minlength=present.size)
        data_class = inv[n_p:]
        first = np.empty(present.size, dtype=np.int64)
        first[inv[::-1]] = np.arange(inv.size - 1, -1, -1)
    codes = np.stack([c[first] for c in cols], axis=1) if cols else np.zeros((present.size, 0), np.int64)
    return Rolled(codes, dat.astype(np.int64), pop.astype(np.int64), data_class.astype(np.int64))


def roll_up_present(enc: Encoded, levels, *, tally: bool = True) -> Rolled:
    """The node ``levels`` with only the classes that hold research records; the others are only tallied.

    δ_c = |T_c|/|P_c|, k-anonymity and k-map read the classes that hold research records only; the population's
    other classes enter the measures only through their number (and δ_min = 0 when there is one). So the
    population's finest classes are looked up among the research subset's C_T keys at the node (a semi-join:
    a hash table of the research keys, pandas' ``Index.get_indexer``) and summed there, and the misses are only
    counted: O(C_P) per node, the population taken in slices of :data:`_SLICE` classes (temporaries of
    a slice only, and one buffer of the missed keys, sorted to count them), never an argsort of every class's
    key. Nodes with few keys (coarse ones) are counted densely: by :func:`roll_up` (keeping the classes holding
    research records) for up to :data:`_SLICE` population classes, slice by slice beyond. The classes come out in key order, as from :func:`roll_up`, and ``Rolled.pop_only`` holds the number
    of population classes left out.

    Example:
        >>> enc = Encoded(np.array([[0, 1]]), np.array([1]), np.array([[0, 0], [0, 1], [1, 1]]),
        ...               np.array([2, 3, 4]), (0, 0), (2, 2),
        ...               ((np.arange(2), np.zeros(2, np.int64)),) * 2, ((2, 1), (2, 1)))
        >>> r = roll_up_present(enc, (0, 0))
        >>> r.codes.tolist(), r.data.tolist(), r.pop.tolist(), r.pop_only
        ([[0, 1]], [1], [3], 2)
        >>> roll_up_present(enc, (0, 1)).pop_only
        1
    """
    levels = [int(x) for x in levels]
    sizes = [int(enc.sizes[j][lvl]) for j, lvl in enumerate(levels)]
    total = math.prod(sizes)
    classes = enc.data_codes.shape[0] + enc.pop_codes.shape[0]
    n_p = enc.pop_codes.shape[0]
    if total >= 2**62 or (total <= max(_DENSE_LIMIT, 2 * classes) and n_p <= _SLICE):
        # Few keys at this node: roll_up's dense count of every class is cheaper than looking each class up (a
        # hash lookup per class). Too many for one int64: roll_up compacts them.
        # Only for a population of at most _SLICE classes: roll_up holds q + 3 arrays of every class's codes.
        full = roll_up(enc, levels, every_class=True)
        held = full.data > 0
        return Rolled(full.codes[held], full.data[held], full.pop[held],
                      np.cumsum(held)[full.data_class] - 1, int((~held & (full.pop > 0)).sum()))  # fmt: skip
    key_d = _node_key(enc.data_codes, enc.maps, levels, sizes)
    # Whole counts below 2⁵³ are exact in float64, bincount's weights.
    w_d = enc.data_counts.astype(np.float64)
    if n_p > _SLICE and total <= _SLICED_CELLS:
        present, inv, dat, pop, pop_only = _counted_densely(enc, levels, sizes, total, key_d, w_d)
    else:
        present, inv, pop, pop_only = _looked_up(enc, levels, sizes, key_d, tally)
        inv = inv.ravel().astype(np.int64)
        dat = np.bincount(inv, weights=w_d, minlength=present.size)
    codes = np.stack(np.unravel_index(present, sizes), axis=1).astype(np.int64).reshape(present.size, -1)
    return Rolled(codes, dat.astype(np.int64), pop.astype(np.int64), inv.astype(np.int64), pop_only)


def _counted_densely(
    enc: Encoded, levels: list[int], sizes: list[int], total: int, key_d: np.ndarray, w_d: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """A large population at a node of at most :data:`_SLICED_CELLS` cells (a coarse node of a census on
    postcodes), counted densely slice by slice: two arrays of the node's cells (128 MB each at most) and a
    slice's temporaries. The research keys at the node, each finest research class's index among them, the
    research and population counts there, and the number of population classes without research records."""
    dat_grid = np.bincount(key_d, weights=w_d, minlength=total)
    pop_grid = np.zeros(total, dtype=np.float64)
    n_p = enc.pop_codes.shape[0]
    for start in range(0, n_p, _SLICE):
        stop = min(start + _SLICE, n_p)
        key_p = _node_key(enc.pop_codes[start:stop], enc.maps, levels, sizes)
        pop_grid += np.bincount(key_p, weights=enc.pop_counts[start:stop].astype(np.float64), minlength=total)
    present = np.flatnonzero(dat_grid)
    pop = pop_grid[present]
    pop_only = int(np.count_nonzero(pop_grid)) - int(np.count_nonzero(pop))
    return present, np.searchsorted(present, key_d), dat_grid[present], pop, pop_only


def _looked_up(
    enc: Encoded, levels: list[int], sizes: list[int], key_d: np.ndarray, tally: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The research keys at the node (sorted), each finest research class's index among them, the population
    counted there (a semi-join: each population class looked up among them) and the number of distinct keys of
    the population classes that miss them (0 unless ``tally``)."""
    import pandas as pd  # its hash table: 8× as fast as a searchsorted into C_T keys (4·10⁶ keys into 10⁵)

    present, inv = np.unique(key_d, return_inverse=True)
    index = pd.Index(present)
    n_p = enc.pop_codes.shape[0]
    pop = np.zeros(present.size, dtype=np.float64)
    # The population's classes in slices (a census on postcodes has ~10⁸ of them): each slice's temporaries are
    # a few arrays of _SLICE integers, never of C_P. The missed keys are marked in one flag per cell of the node
    # (at most _SEEN_CELLS bytes; a sixth of the time of sorting them) or else go to one buffer of C_P keys whose
    # pages are only touched as it fills (np.empty), deduplicated slice by slice and then sorted.
    total = math.prod(sizes)
    seen = np.zeros(total if tally and total <= _SEEN_CELLS else 0, dtype=bool)
    missed = np.empty(n_p if tally and not seen.size else 0, dtype=np.int64)
    n_missed = 0
    for start in range(0, n_p, _SLICE):
        stop = min(start + _SLICE, n_p)
        key_p = _node_key(enc.pop_codes[start:stop], enc.maps, levels, sizes)
        at = index.get_indexer(key_p)
        hit = at >= 0
        pop += np.bincount(at[hit], weights=enc.pop_counts[start:stop][hit].astype(np.float64),
                           minlength=present.size)  # fmt: skip
        miss = key_p[~hit]
        if seen.size:
            seen[miss] = True
        elif tally:
            # np.sort, not np.unique: numpy 2.4's unique of 3·10⁶ int64 keys took 170× as long as this sort.
            miss.sort()
            miss = miss[np.r_[True, miss[1:] != miss[:-1]]] if miss.size else miss
            missed[n_missed : n_missed + miss.size] = miss
            n_missed += miss.size
    if seen.size:
        pop_only = int(np.count_nonzero(seen))
    else:  # deduplicated within each slice; across slices the same key may recur
        pop_only = n_missed if n_p <= _SLICE else _distinct(missed[:n_missed])
    return present, inv, pop, pop_only


def _distinct(keys: np.ndarray) -> int:
    """The number of distinct values of ``keys``, sorting them in place."""
    keys.sort()
    return int(keys.size > 0) + int(np.count_nonzero(keys[1:] != keys[:-1]))


def _node_key(codes: np.ndarray, maps, levels: list[int], sizes: list[int]) -> np.ndarray:
    """One int64 key per class at the node (mixed radix, last quasi-identifier fastest), one column at a time."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for j, (lvl, size) in enumerate(zip(levels, sizes, strict=True)):
        key *= size
        key += maps[j][lvl][codes[:, j]]
    return key


def cube_cells(enc: Encoded) -> int:
    """The number of cells of the grid of base codes, Π_j n_j."""
    return math.prod(int(enc.sizes[j][b]) for j, b in enumerate(enc.base))


def cube_fits(enc: Encoded) -> bool:
    """Whether :class:`CubeRollUp` suits ``enc``: a small grid that the finest classes fill well enough."""
    cells = cube_cells(enc)
    classes = enc.pop_codes.shape[0] + enc.data_codes.shape[0]
    return cells <= _CUBE_LIMIT and cells <= max(1 << 16, _CUBE_SPARSITY * classes)


class CubeRollUp:
    """Roll-ups from a dense array of counts over the grid of base codes, axis by axis.

    ``cube[0]`` holds the population's counts and ``cube[1]`` the research subset's, with one axis per
    quasi-identifier (its base codes). A node sums each axis over the groups of base codes that share a code at
    the node's level (``np.add.reduceat`` after sorting the base codes by that code), the axes that shrink most
    first. ``data_class`` is not computed (the measures do not use it).

    Example:
        >>> enc = Encoded(np.array([[0, 1]]), np.array([1]), np.array([[0, 0], [0, 1], [1, 1]]),
        ...               np.array([2, 3, 4]), (0, 0), (2, 2),
        ...               ((np.arange(2), np.zeros(2, np.int64)),) * 2, ((2, 1), (2, 1)))
        >>> r = CubeRollUp(enc)((0, 1))
        >>> r.codes.tolist(), r.pop.tolist(), r.data.tolist()
        ([[0, 0], [1, 0]], [5, 4], [1, 0])
    """

    def __init__(self, enc: Encoded):
        self.enc = enc
        self.shape = tuple(int(enc.sizes[j][b]) for j, b in enumerate(enc.base))
        cells = math.prod(self.shape)
        cube = np.zeros((2, cells), dtype=np.int64)
        for side, (codes, counts) in enumerate(
            ((enc.pop_codes, enc.pop_counts), (enc.data_codes, enc.data_counts))
        ):
            key = (
                np.ravel_multi_index(tuple(codes.T), self.shape) if codes.shape[0] else np.zeros(0, np.int64)
            )
            # Whole counts below 2⁵³ are exact in float64, bincount's weights.
            cube[side] = np.bincount(key, weights=counts.astype(np.float64), minlength=cells).astype(np.int64)
        self.cube = cube.reshape((2, *self.shape))
        self._plans: dict[tuple[int, int], tuple[np.ndarray | None, np.ndarray, np.ndarray]] = {}

    def _plan(self, j: int, level: int) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """Axis ``j`` at ``level``: the base codes' order (None: already sorted), group starts, group codes."""
        plan = self._plans.get((j, level))
        if plan is None:
            m = np.asarray(self.enc.maps[j][level], dtype=np.int64)
            order = np.argsort(m, kind="stable")
            ms = m[order]
            starts = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1]])
            sorted_already = bool(np.array_equal(order, np.arange(m.size)))
            plan = (None if sorted_already else order, starts, ms[starts])
            self._plans[(j, level)] = plan
        return plan

    def __call__(self, levels) -> Rolled:
        levels = [int(x) for x in levels]
        q = len(levels)
        axis_codes = [np.arange(n, dtype=np.int64) for n in self.shape]
        plans = {j: self._plan(j, lvl) for j, lvl in enumerate(levels) if lvl != self.enc.base[j]}
        a = self.cube
        for j in sorted(plans, key=lambda j: plans[j][1].size / self.shape[j]):
            order, starts, codes = plans[j]
            if order is not None:
                a = np.take(a, order, axis=j + 1)
            a = np.add.reduceat(a, starts, axis=j + 1)
            axis_codes[j] = codes
        flat = a.reshape(2, -1)
        present = np.flatnonzero((flat[0] > 0) | (flat[1] > 0))
        index = np.unravel_index(present, a.shape[1:])
        codes_at = np.stack([axis_codes[j][index[j]] for j in range(q)], axis=1).reshape(present.size, q)
        return Rolled(codes_at, flat[1][present], flat[0][present], np.zeros(0, dtype=np.int64))
