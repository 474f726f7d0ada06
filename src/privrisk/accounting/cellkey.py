"""The cell-key method as a mechanism: a perturbation table's exact privacy profile, its risk, and its zero cells.

A statistical office that publishes a count c of a cell adds noise v looked up in a perturbation table by the
count and the cell key: the sum of the cell's record keys (ONS: integers 0…255, the sum taken mod 256; sdcTools'
``ptable`` and ``cellKey``: uniform numbers in [0, 1), the sum taken mod 1). What is assumed here, and nowhere
weaker:

- **Record keys are secret and uniform.** The attacker may know everyone else's data, but not their record keys.
  Then the key of any cell that holds at least one record is uniform, whatever the other records' keys, so the
  published value of a cell with count c is c + v with v drawn from the table's row for c: P(v | c) is the share
  of keys (ONS: of the 256) that the row gives v, or the row's probability p (ptable).
- **One person changes one count by one** (add or remove one record): the neighbouring pairs are the rows for c
  and c + 1, for every count c the table distinguishes (counts beyond it reuse its rows), in both orders.

The guarantee is the worst pair (:class:`~privrisk.accounting.pairwise.PairFamily`), exactly. A table that never
perturbs a zero discloses on its own: a cell that would be empty without the person is published above zero only
if the person is there, which happens with probability P(published > 0 | c = 1); no ε covers that mass, so it is
a δ of the table (:attr:`CellKeyPerturbation.zero_cell_disclosure`; about 0.63 for ``create_cnt_ptable(D = 2,
V = 1)``).

**The same cell gets the same noise**: its key is a function of its records, so a table published twice, or a
cell that appears in two tables with the same people, leaks nothing more; count distinct cells, not
publications. **Different cells holding the person compose** (:func:`cell_key_release`) when their keys are
independent: true when each holds records that the other published cells do not determine, i.e. their
membership vectors, reduced mod 2, are linearly independent of each other and of every other published cell's
(:func:`independent_cell_keys`; 256 = 2⁸, so independence mod 256 is independence mod 2). A margin and the cells
it sums are **not** independent (the margin's key is the sum of theirs), and then composition is not a bound: with
ptable's D = 2, V = 1 on 256 keys, a person in a cell of 3 beside a cell of 2 and their total of 5 is told apart
with δ(4) ≈ 0.30, where two independent cells give 0.12 (``tests/census/test_cellkey.py``). For such a layout the figures here hold for
each cell alone; :func:`independent_cell_keys` says which layout is which.

Example:
    >>> table = perturbation_table({0: {0: 1.0}, 1: {-1: 0.4, 0: 0.3, 1: 0.3}, 2: {-1: 0.3, 0: 0.4, 1: 0.3}})
    >>> g = cell_key_guarantee(table)
    >>> round(g.zero_cell_disclosure, 2), round(g.delta_at(100.0), 2)   # P(published > 0 | c = 1) = 0.6
    (0.6, 0.6)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from privrisk._validation import check_epsilon, check_whole
from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.pairwise import Pair, PairFamily, compose_pairs
from privrisk.errors import PrivriskError

__all__ = [
    "CellKeyPerturbation",
    "PerturbationTable",
    "additive_noise_table",
    "cell_key_guarantee",
    "cell_key_release",
    "independent_cell_keys",
    "perturbation_table",
    "truncated_discrete_laplace",
]

#: ONS's rule for counts above its table (cell_key_perturbation's create_perturbed_table): rows 501–750 again,
#: pcv = ((c − 1) mod 250) + 501 for c > 750.
ONS_TOP, ONS_PERIOD = 750, 250
# A row's probabilities must sum to 1 within this (ptable prints them to 8 digits).
ROW_TOLERANCE = 1e-6


@dataclass(frozen=True)
class PerturbationTable:
    """P(published = c + v | true count c), row by row, and how counts beyond the last row are treated.

    Attributes:
        rows: for each count c = 0, 1, …, top: (the noise values v, their probabilities), probabilities > 0
            summing to 1.
        period: 0 when every count above ``top`` takes the last row's noise (sdcTools' ptable: the row "i ≥ top,
            symmetry"); P > 0 when counts above ``top`` reuse the last P rows in turn (ONS: 250, pcv = ((c − 1) mod
            250) + 501 for c > 750).
        name: where the table came from, for labels.
    """

    rows: tuple[tuple[tuple[int, ...], tuple[float, ...]], ...]
    period: int = 0
    name: str = "a perturbation table"

    @property
    def top(self) -> int:
        """The largest count with a row of its own."""
        return len(self.rows) - 1

    def row_index(self, count: int) -> int:
        """Which row a count uses (ONS: ((c − 1) mod P) + top − P + 1 above top; ptable: the last row).

        Example:
            >>> t = PerturbationTable(tuple(((0,), (1.0,)) for _ in range(751)), period=250)
            >>> t.row_index(751), t.row_index(1000), t.row_index(1001)
            (501, 750, 501)
        """
        c = check_whole(count, name="count", minimum=0)
        if c <= self.top:
            return c
        if self.period == 0:
            return self.top
        return (c - 1) % self.period + self.top - self.period + 1

    def distribution(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The published values and their probabilities for a true count: what a cell of that count shows.

        Example:
            >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 1: 0.5}})
            >>> [v.tolist() for v in t.distribution(7)]
            [[6, 8], [0.5, 0.5]]
        """
        noise, probs = self.rows[self.row_index(count)]
        return np.asarray(noise, dtype=np.int64) + int(count), np.asarray(probs, dtype=float)

    def likelihood(self, published: int, counts: Sequence[int] | np.ndarray) -> np.ndarray:
        """P(published | c) for each true count c: what an output check weighs each count by.

        Example:
            >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 1: 0.5}})
            >>> t.likelihood(4, [3, 4, 5]).tolist()
            [0.5, 0.0, 0.5]
        """
        out = []
        for c in np.atleast_1d(np.asarray(counts)).tolist():
            values, probs = self.distribution(int(c))
            out.append(float(probs[values == published].sum()))
        return np.asarray(out)

    def consistent_counts(self, published: int) -> tuple[int, int]:
        """The least and the largest true count that can show ``published`` (an interval a checker solves over).

        Raises:
            PrivriskError: (param ``published``) when no count can show that value.

        Example:
            >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 1: 0.5}})
            >>> t.consistent_counts(0), t.consistent_counts(5)
            ((0, 1), (4, 6))
        """
        reach = max(abs(v) for noise, _ in self.rows for v in noise)
        candidates = range(max(0, int(published) - reach), int(published) + reach + 1)
        hits = [c for c in candidates if self.likelihood(published, [c])[0] > 0]
        if not hits:
            raise PrivriskError(
                f"published: no true count shows {published} under {self.name}", param="published"
            )
        return min(hits), max(hits)

    @property
    def max_noise(self) -> int:
        """The largest |published − true| the table can produce."""
        return max(abs(v) for noise, _ in self.rows for v in noise)

    def unchanged_probability(self, count: int) -> float:
        """P(published = c | c): how often a count of c is published as it is."""
        noise, probs = self.rows[self.row_index(count)]
        return float(sum(p for v, p in zip(noise, probs, strict=True) if v == 0))

    @property
    def zeros_unperturbed(self) -> bool:
        """Whether a count of 0 is always published as 0 (no record, no key: ONS and ptable)."""
        return self.rows[0] == ((0,), (1.0,))

    @property
    def zero_cell_disclosure(self) -> float:
        """The mass of the published values for c = 1 that a count of 0 never shows: P(published > 0 | c = 1)
        when zeros are not perturbed. It is a δ of the table that no ε covers."""
        zero_values, _ = self.distribution(0)
        values, probs = self.distribution(1)
        return float(probs[~np.isin(values, zero_values)].sum())

    def pairs(self, least: int = 0) -> Iterator[tuple[int, Pair]]:
        """(c, (P, Q)) for the published value on counts c + 1 and c, for every c ≥ ``least`` the table tells
        apart (beyond ``top`` the pairs repeat: the last row against itself, or ONS's cycle through its rows)."""
        for c in range(least, max(self.top, least) + 1):
            yield c, self._pair(c)

    def _pair(self, c: int) -> Pair:
        v0, p0 = self.distribution(c)
        v1, p1 = self.distribution(c + 1)
        support = np.union1d(v0, v1)
        p = np.zeros(support.size)
        q = np.zeros(support.size)
        np.add.at(p, np.searchsorted(support, v1), p1)
        np.add.at(q, np.searchsorted(support, v0), p0)
        return p, q


def _row(
    count: int, cells: Mapping[int, float], name: str, allow_negative: bool
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    if not isinstance(cells, Mapping):
        raise PrivriskError(
            f"table: {name}, count {count}: give the row as {{noise: probability}}", param="table"
        )
    items = list(cells.items())
    merged: dict[int, float] = {}
    for v, p in items:
        try:
            noise, prob = int(v), float(p)
        except (TypeError, ValueError):
            raise PrivriskError(f"table: {name}, count {count}: {v!r}: {p!r} is not a noise and a probability",
                                param="table") from None  # fmt: skip
        if not (math.isfinite(prob) and 0 <= prob <= 1):
            raise PrivriskError(f"table: {name}, count {count}: the probability of noise {noise} must be in [0, 1], "
                                f"got {p!r}", param="table")  # fmt: skip
        if count + noise < 0 and prob > 0 and not allow_negative:
            raise PrivriskError(f"table: {name}, count {count}: noise {noise} would publish a negative count",
                                param="table")  # fmt: skip
        merged[noise] = merged.get(noise, 0.0) + prob
    total = math.fsum(merged.values())
    if abs(total - 1.0) > ROW_TOLERANCE:
        raise PrivriskError(f"table: {name}, count {count}: the probabilities sum to {total:.9g}, not 1",
                            param="table")  # fmt: skip
    kept = sorted((v, p / total) for v, p in merged.items() if p > 0)
    return tuple(v for v, _ in kept), tuple(p for _, p in kept)


def perturbation_table(
    rows: Mapping[int, Mapping[int, float]] | Sequence[Mapping[int, float]],
    *,
    period: int = 0,
    name: str = "a perturbation table",
    allow_negative: bool = False,
) -> PerturbationTable:
    """A perturbation table from its rows: {count: {noise: probability}} for counts 0, 1, …, top.

    Args:
        rows: every count from 0 to the largest, each with its noise distribution (probabilities sum to 1).
        period: 0 (counts above the table take the last row) or the number of last rows reused in turn (ONS: 250).
        name: where the table came from.
        allow_negative: allow noise that publishes a negative count (additive noise tables such as Rinott et
            al.'s, which do not look at the count).

    Raises:
        PrivriskError: (param ``table``) naming the count of a row that is missing or does not sum to 1.

    Example:
        >>> perturbation_table({0: {0: 1.0}, 1: {0: 0.5, 1: 0.25}})
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: table: a perturbation table, count 1: the probabilities sum to 0.75, not 1
    """
    mapping = dict(rows) if isinstance(rows, Mapping) else dict(enumerate(rows))
    if not mapping:
        raise PrivriskError(f"table: {name} has no rows", param="table")
    try:
        counts = sorted(int(c) for c in mapping)
    except (TypeError, ValueError):
        raise PrivriskError(f"table: {name}: every row must be a whole count", param="table") from None
    missing = sorted(set(range(counts[-1] + 1)) - set(counts))
    if missing or counts[0] < 0:
        shown = ", ".join(str(c) for c in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise PrivriskError(f"table: {name}: no row for count {shown} (every count from 0 to the largest needs one)",
                            param="table")  # fmt: skip
    by_count = {int(c): r for c, r in mapping.items()}
    built = [_row(c, by_count[c], name, allow_negative) for c in range(counts[-1] + 1)]
    period = check_whole(period, name="period", minimum=0)
    if period > len(built):
        raise PrivriskError(f"period: {period} is more than the table's {len(built)} rows", param="period")
    return PerturbationTable(tuple(built), period, name)


def additive_noise_table(noise: Mapping[int, float], *, name: str = "additive noise") -> PerturbationTable:
    """A table that adds the same noise to every count (negative published counts allowed).

    Example:
        >>> additive_noise_table({-1: 0.25, 0: 0.5, 1: 0.25}).distribution(0)[0].tolist()
        [-1, 0, 1]
    """
    return perturbation_table({0: noise}, name=name, allow_negative=True)


def truncated_discrete_laplace(epsilon: float | str, bound: int) -> dict[int, float]:
    """P(v) ∝ e^(−ε|v|) for |v| ≤ D (Rinott et al. 2018, §3; National Academies 2024, Appendix C, Table C-1).

    Example:
        >>> p = truncated_discrete_laplace(1.5, 7)
        >>> round(p[0], 5), round(p[1], 5), round(p[7], 5)
        (0.63516, 0.14172, 2e-05)
    """
    eps = check_epsilon(epsilon, name="epsilon")
    d = check_whole(bound, name="bound", minimum=0)
    weights = {v: math.exp(-eps * abs(v)) for v in range(-d, d + 1)}
    total = math.fsum(weights.values())
    return {v: w / total for v, w in weights.items()}


@dataclass(frozen=True, eq=False)
class CellKeyPerturbation(PairFamily):
    """One cell published with a perturbation table: the worst pair of neighbouring counts (module docstring).

    Attributes:
        table: the perturbation table.
        least_count: only counts c ≥ this without the person (1: "the person is never alone in a cell"); 0, the
            default, is every count and the only choice that holds for every cell.
    """

    table: PerturbationTable = PerturbationTable(((((0,), (1.0,))),))
    least_count: int = 0

    def _pairs(self) -> Iterator[Pair]:
        return (pair for _, pair in self.table.pairs(self.least_count))

    @property
    def label(self) -> str:
        among = f", counts of at least {self.least_count} without the person" if self.least_count else ""
        return f"cell-key perturbation with {self.table.name} (noise at most ±{self.table.max_noise}{among})"

    @property
    def conversion(self) -> str:
        return ("exact: the worst count c of the table, its rows for c and c + 1 in both orders (record keys "
                "secret and uniform: a cell's key is uniform whatever the others' keys)")  # fmt: skip

    @property
    def zero_cell_disclosure(self) -> float:
        """P(published > 0 | c = 1) for a table that never perturbs zeros (:attr:`PerturbationTable.zero_cell_disclosure`)."""
        return self.table.zero_cell_disclosure if self.least_count == 0 else 0.0

    @cached_property
    def worst_count(self) -> int:
        """The count c (without the person) at which an attacker does best (largest δ(0))."""
        best, where = -1.0, self.least_count
        for c, (p, q) in self.table.pairs(self.least_count):
            tv = 0.5 * float(np.abs(p - q).sum())
            if tv > best + 1e-15:
                best, where = tv, c
        return where


def cell_key_guarantee(table: PerturbationTable, *, least_count: int = 0) -> CellKeyPerturbation:
    """One cell published with a perturbation table (exact; the module docstring says what is assumed).

    Args:
        table: a :class:`PerturbationTable` (:func:`~privrisk.accounting.perturbation_files.read_perturbation_table`
            reads ONS's CSV, sdcTools' ptable and a TOML).
        least_count: 0 (every count; the default, the only safe choice) or the least count without the person.

    Example:
        >>> g = cell_key_guarantee(additive_noise_table(truncated_discrete_laplace(1.5, 7)))
        >>> round(g.delta_at(1.5), 6)      # the one published value the shifted count cannot reach: p₇
        1.7e-05
    """
    if not isinstance(table, PerturbationTable):
        raise PrivriskError(
            "table: give a PerturbationTable (read_perturbation_table reads a file)", param="table"
        )
    return CellKeyPerturbation(
        table=table, least_count=check_whole(least_count, name="least_count", minimum=0)
    )


def cell_key_release(parts: Sequence[tuple[PerturbationTable, int]]) -> Guarantee:
    """The tables of a release, each as (its perturbation table, the number of its cells that hold one person),
    composed as independent noises: a bound only when the cells' keys are independent (:func:`independent_cell_keys`;
    not for a margin beside the cells it sums, the module docstring).

    Count each distinct cell once: a table published again, or a cell of another table with the same people, has
    the same key and the same noise.

    Example:
        >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}, 2: {-1: 0.25, 0: 0.5, 1: 0.25}})
        >>> one, three = cell_key_guarantee(t), cell_key_release([(t, 2), (t, 1)])
        >>> one.delta_at(10.0), round(three.delta_at(10.0), 6)   # 2 and 3 never show for 1: 0.75; three cells 1 − ¼³
        (0.75, 0.984375)
    """
    if not parts:
        raise PrivriskError("tables: give at least one table", param="tables")
    families: list[tuple[PairFamily, int]] = []
    for i, part in enumerate(parts, 1):
        try:
            table, cells = part
        except (TypeError, ValueError):
            raise PrivriskError(f"tables: table {i}: give (table, cells)", param="tables") from None
        families.append((cell_key_guarantee(table), check_whole(cells, name="cells", minimum=1)))
    if len(families) == 1 and families[0][1] == 1:
        return families[0][0]
    return compose_pairs(
        families, name=f"{sum(k for _, k in families)} cells, each with cell-key perturbation"
    )


def independent_cell_keys(membership: Sequence[Sequence[int]] | np.ndarray, person: int) -> bool:
    """Whether the keys of the cells holding ``person`` are independent of each other and of every other
    published cell's key, given the record keys of everyone but the person: the condition under which
    :func:`cell_key_release` composes them as independent noises.

    Keys are sums of uniform record keys mod 256 (or mod 1 on a grid of 2⁻ᵏ), a linear map whose image is
    uniform exactly when it is onto; 256 = 2⁸, so it is onto when its rows are independent mod 2. The cells
    holding the person must each add, beyond the person, a combination of records that the other cells do not
    determine: their rows without the person, mod 2, are independent modulo the span of the other cells' rows.

    Args:
        membership: one row per published cell, one column per record (1 if the record is in the cell).
        person: the column of the person.

    Example:
        >>> independent_cell_keys([[1, 1, 0, 0], [0, 0, 1, 1]], person=0)          # two cells of one table
        True
        >>> independent_cell_keys([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]], 0)   # … and their margin
        False
    """
    m = np.asarray(membership, dtype=np.int64) % 2
    if m.ndim != 2 or not 0 <= person < m.shape[1]:
        raise PrivriskError("membership: give one row per cell and one column per record", param="membership")
    holding = m[:, person] == 1
    others = np.delete(m, person, axis=1)
    rank_others = _rank_mod2(others[~holding])
    return _rank_mod2(np.vstack([others[~holding], others[holding]])) == rank_others + int(holding.sum())


def _rank_mod2(rows: np.ndarray) -> int:
    """The rank over GF(2) of a 0/1 matrix, by elimination."""
    a = np.array(rows, dtype=np.uint8) % 2
    rank = 0
    for col in range(a.shape[1] if a.ndim == 2 else 0):
        pivot = next((r for r in range(rank, a.shape[0]) if a[r, col]), None)
        if pivot is None:
            continue
        a[[rank, pivot]] = a[[pivot, rank]]
        below = a[:, col].astype(bool)
        below[rank] = False
        a[below] ^= a[rank]
        rank += 1
    return rank
