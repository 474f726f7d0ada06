"""Released cells that other released cells give back exactly, found without a programme (the identities of
:mod:`privrisk.outputs.cell_bounds`): a cell is its total less its siblings, or the sum of a finer table's cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from privrisk.outputs.differencing import Differencing
    from privrisk.outputs.spec import OutputSpec

__all__ = ["EXACT_CHECK", "Certificates"]

# Up to this many atoms an identity between released cells is checked atom by atom; above, by two 64-bit
# fingerprints (random weights), whose chance of taking unequal sets for equal is below 2⁻⁶².
EXACT_CHECK = 50_000


class Certificates:
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
            # A mean's equation (sum − mean × count) is not a total of atoms: no identity holds it.
            if spec.name not in diff.cell_rows or spec.kind == "mean":
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

        def atoms(rows: list[int]) -> np.ndarray:
            # Each row's unknowns read from the matrix's arrays (a row selection copies the matrix each time).
            if not rows:
                return np.empty(0, dtype=a.indices.dtype)
            return np.sort(np.concatenate([a.indices[a.indptr[r] : a.indptr[r + 1]] for r in rows]))

        # The same atoms, each as often: the two sorted lists of unknowns are equal.
        return bool(np.array_equal(atoms(plus), atoms(minus)))
