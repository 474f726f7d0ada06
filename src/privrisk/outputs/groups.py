"""Every group, not only atoms: the cells of every cross-classification by any subset of the dimensions.

The atoms are cells of a cube with one axis per grouping variable (its levels) and per condition (false, true).
A **group** is a cell of the cube where any axis may also be "any": every cell of every cross-classification by
any subset of the grouping variables and the conditions (the lattice of subsets), down to everyone. A total over
all groups at once is one pass per axis over the cube (:meth:`Cube.totals`, a zeta transform): the true counts,
the truth at any whole solution (so that one solution rules out every group it shows to be large or empty), and
two 64-bit fingerprints of each group's set of atoms (groups with the same atoms are one group; a group whose
atoms are those of a released cell is that cell, left to the primary rules).

Candidates are the groups whose true count (or sum) could make a finding; each is then ruled out by a whole
solution that gives it another value, or decided by the programmes of :class:`privrisk.outputs.intervals.Region`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet

__all__ = ["GROUP_LIMIT", "Cube"]

#: The most groups (cells of the cube with "any") examined at once; above, only atoms and released cells.
GROUP_LIMIT = 8_000_000


@dataclass
class Cube:
    """The atoms (rows of ``coords``: one code per dimension) as cells of a cube of ``sizes`` levels per axis.

    Example:
        >>> cube = Cube(("sex", "adult"), (2, 2), np.array([[0, 0], [0, 1], [1, 0], [1, 1]]))
        >>> cube.totals(np.array([1.0, 2.0, 3.0, 4.0])).reshape(3, 3).tolist()   # the last position is "any"
        [[1.0, 2.0, 3.0], [3.0, 4.0, 7.0], [4.0, 6.0, 10.0]]
    """

    dims: tuple[str, ...]
    sizes: tuple[int, ...]
    coords: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(s + 1 for s in self.sizes)

    @property
    def groups(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.sizes else 1

    def ids(self) -> np.ndarray:
        """Each atom's own cell of the cube (every axis fixed)."""
        if not self.sizes:
            return np.zeros(self.coords.shape[0], dtype=np.int64)
        return np.ravel_multi_index(tuple(self.coords.T), self.shape).astype(np.int64)

    def totals(self, values: np.ndarray, *, wrap: bool = False) -> np.ndarray:
        """Σ values over every group's atoms (flat, in the cube's order); ``wrap``: unsigned sums modulo 2⁶⁴."""
        dtype: Any = np.uint64 if wrap else np.asarray(values).dtype
        if not np.issubdtype(dtype, np.number) or dtype == np.bool_:
            dtype = np.float64
        cube = np.zeros(self.shape, dtype=dtype)
        if not self.sizes:
            with np.errstate(over="ignore"):
                return np.array([np.sum(values, dtype=dtype)])
        np.add.at(cube, tuple(self.coords.T), np.asarray(values, dtype=dtype))
        with np.errstate(over="ignore"):
            for axis, size in enumerate(self.sizes):
                index: list[Any] = [slice(None)] * cube.ndim
                index[axis] = slice(0, size)
                total = cube[tuple(index)].sum(axis=axis, dtype=dtype)
                index[axis] = size
                cube[tuple(index)] = total
        return cube.ravel()

    def top_two(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The largest and second largest contribution in every group, from each atom's two largest."""
        a = np.full(self.shape, -np.inf)
        b = np.full(self.shape, -np.inf)
        if not self.sizes:
            vals = np.sort(np.concatenate([first, second]))[::-1]
            return np.array([vals[0] if vals.size else -np.inf]), np.array(
                [vals[1] if vals.size > 1 else -np.inf]
            )
        a[tuple(self.coords.T)] = first
        b[tuple(self.coords.T)] = second
        for axis, size in enumerate(self.sizes):
            index: list[Any] = [slice(None)] * a.ndim
            index[axis] = slice(0, size)
            both = np.concatenate([a[tuple(index)], b[tuple(index)]], axis=axis)
            both = -np.sort(-both, axis=axis)
            index[axis] = size
            a[tuple(index)] = np.take(both, 0, axis=axis)
            b[tuple(index)] = np.take(both, 1, axis=axis) if both.shape[axis] > 1 else -np.inf
        return a.ravel(), b.ravel()

    def fixed(self, group: int) -> dict[int, int]:
        """The axes a group fixes and their codes."""
        if not self.sizes:
            return {}
        codes = np.unravel_index(int(group), self.shape)
        return {d: int(c) for d, (c, s) in enumerate(zip(codes, self.sizes, strict=True)) if c < s}

    def fixed_count(self) -> np.ndarray:
        """How many axes each group fixes (fewer: a simpler description)."""
        if not self.sizes:
            return np.zeros(1, dtype=np.int64)
        grids = np.indices(self.shape, sparse=True)
        out = np.zeros(self.shape, dtype=np.int64)
        for g, s in zip(grids, self.sizes, strict=True):
            out = out + (g < s)
        return out.ravel()

    def members(self, groups: np.ndarray) -> sp.csr_matrix:
        """Which atoms make up each of ``groups`` (groups × atoms, 0/1), one pass per subset of axes."""
        groups = np.asarray(groups, dtype=np.int64)
        n = self.coords.shape[0]
        order = np.argsort(groups, kind="stable")
        ranked = groups[order]
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        if groups.size == 0:
            return sp.csr_matrix((0, n))
        if not self.sizes:
            rows.append(np.repeat(np.arange(groups.size), n))
            cols.append(np.tile(np.arange(n), groups.size))
        else:
            shape = self.shape
            for mask in itertools.product((False, True), repeat=len(self.sizes)):
                coords = [np.full(n, s) if any_ else self.coords[:, d]
                          for d, (s, any_) in enumerate(zip(self.sizes, mask, strict=True))]  # fmt: skip
                ids = np.ravel_multi_index(tuple(coords), shape).astype(np.int64)
                pos = np.minimum(np.searchsorted(ranked, ids), ranked.size - 1)
                hit = ranked[pos] == ids
                if hit.any():
                    # A group id may repeat in ``groups``: each copy gets the atoms.
                    atoms = np.flatnonzero(hit)
                    first = pos[hit]
                    last = np.searchsorted(ranked, ids[hit], side="right")
                    reps = last - first
                    rows.append(order[np.repeat(first, reps) + _ramp(reps)])
                    cols.append(np.repeat(atoms, reps))
        r = np.concatenate(rows) if rows else np.empty(0, np.int64)
        c = np.concatenate(cols) if cols else np.empty(0, np.int64)
        return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(groups.size, n))


def _ramp(reps: np.ndarray) -> np.ndarray:
    """0, 1, …, r − 1 for each r in ``reps``, concatenated."""
    total = int(reps.sum())
    starts = np.repeat(np.cumsum(reps) - reps, reps)
    return np.arange(total) - starts


def fingerprints(n: int, seed: int = 20240) -> np.ndarray:
    """Two random odd 64-bit weights per atom: a set of atoms is known by the two sums (mod 2⁶⁴) of its weights;
    two different sets share both with probability below 2⁻¹²⁴."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**63, size=(n, 2), dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def set_prints(weights: np.ndarray, sets: list[np.ndarray]) -> set[tuple[int, int]]:
    """The fingerprints of some sets of atoms (each an array of atom indices)."""
    out: set[tuple[int, int]] = set()
    with np.errstate(over="ignore"):
        for cols in sets:
            if cols.size:
                s = weights[cols].sum(axis=0, dtype=np.uint64)
                out.add((int(s[0]), int(s[1])))
    return out


def representatives(prints: np.ndarray, fixed: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Among the ``wanted`` groups, one per set of atoms (the one fixing fewest axes, then the first): groups
    with the same atoms are the same group."""
    idx = np.flatnonzero(wanted)
    if idx.size == 0:
        return idx
    order = np.lexsort((idx, fixed[idx], prints[idx, 1], prints[idx, 0]))
    idx = idx[order]
    keys = prints[idx]
    first = np.r_[True, np.any(keys[1:] != keys[:-1], axis=1)]
    return np.sort(idx[first])


def in_prints(prints: np.ndarray, known: AbstractSet[tuple[int, int]]) -> np.ndarray:
    """Which rows of ``prints`` (fingerprints) are among ``known``."""
    if not known or prints.shape[0] == 0:
        return np.zeros(prints.shape[0], dtype=bool)
    firsts = np.fromiter((k[0] for k in known), dtype=np.uint64, count=len(known))
    out = np.isin(prints[:, 0], firsts)
    for i in np.flatnonzero(out).tolist():
        out[i] = (int(prints[i, 0]), int(prints[i, 1])) in known
    return out
