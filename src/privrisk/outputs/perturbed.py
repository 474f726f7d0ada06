"""Count tables released with cell-key perturbation: what each cell shows, and what the intruder learns from it.

The cell-key method (ONS, ABS, Zensus 2022; sdcTools' ``cellKey``) gives each record a key in [0, 1), and each
cell the sum of its records' keys mod 1. The published value of a cell of true count c is c + v, where v is the
noise the perturbation table's row for c gives that cell key: the row's noise values in increasing order, each
over an interval of keys as long as its probability (ptable's ``p_int_lb``, ``p_int_ub``). A cell's key is a
function of its records, so **the same cell gets the same noise in every table**: two outputs that show the same
records publish the same value.

The intruder of the differencing knows the published value v and the table, not the record keys: the true count
of the cell is one of the counts that can show v, {c ≥ 0 : P(v | c) > 0}
(:meth:`~privrisk.accounting.cellkey.PerturbationTable.consistent_counts`), here always an interval
[lo, hi] (a table whose counts for one value have a gap is refused). For a table that never perturbs a zero, a
published value above every value a zero shows means the cell holds someone (lo ≥ 1).

Record keys: a column of the data (``[cell_key] record_key``, numbers in [0, 1)), or, by default, a hash of each
row's values (deterministic, the same on every run). Keys are used on a grid of 2⁻³², so that the sums mod 1 are
exact. A hash of the row is reproducible by anyone who has the row: for a real release, give secret random keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.accounting.cellkey import PerturbationTable
    from privrisk.outputs.spec import OutputSpec

__all__ = [
    "KEY_COLUMN", "Slacks", "allowed_counts", "cell_keys", "perturb", "perturbed_lines", "published_counts",
    "record_keys",
]  # fmt: skip

#: The keys' grid: a key k in [0, 1) is held as the whole number floor(k · 2³²).
GRID = 2**32
#: The column of record keys in the data the cell keys are computed from.
KEY_COLUMN = "__privrisk_record_key"


def record_keys(frame: pd.DataFrame, column: str | None = None) -> np.ndarray:
    """Each record's key as a whole number in [0, 2³²): from ``column`` (numbers in [0, 1)) or a hash of the row.

    Example:
        >>> record_keys(pd.DataFrame({"k": [0.0, 0.5, 0.25]}), "k").tolist()
        [0, 2147483648, 1073741824]
        >>> a = record_keys(pd.DataFrame({"x": [1, 2]}))
        >>> bool((a == record_keys(pd.DataFrame({"x": [1, 2]}))).all()), bool((a < 2**32).all())
        (True, True)
    """
    if column is None:
        hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)
        return (hashed >> np.uint64(32)).astype(np.int64)
    if column not in frame.columns:
        raise PrivriskError(
            f"spec: [cell_key]: field 'record_key': no column {column!r} in the data", param="spec"
        )
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 0) | (values >= 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise PrivriskError(
            f"spec: [cell_key]: record key column {column!r} must hold numbers in [0, 1); row {row + 1} holds "
            f"{frame[column].iloc[row]!r}",
            param="spec",
        )
    return np.floor(values * GRID).astype(np.int64)


def cell_keys(con: Any, spec: OutputSpec, cells: pd.DataFrame) -> np.ndarray:
    """The cell key of each cell of a table (its records' keys summed mod 1, in units of 2⁻³²): ``con`` sees the
    data with the record keys in :data:`KEY_COLUMN`; ``cells`` are the table's cells (labels and ``set``)."""
    from privrisk.outputs.compute import _label, check_where

    cond = check_where(con, spec)
    variables = list(spec.variables)
    inner = [f"{_label(v)} AS {qi(v)}" for v in variables] + [f"{qi(KEY_COLUMN)} AS __k"]
    select = [qi(v) for v in variables] + [f"GROUPING({qi(v)}) AS {qi('__g_' + v)}" for v in variables]
    select.append(f"CAST(SUM(__k) % {GRID} AS BIGINT) AS __key")
    sql = f"SELECT {', '.join(select)} FROM (SELECT {', '.join(inner)} FROM data WHERE {cond})"
    if variables:
        from privrisk.outputs.compute import grouping_sets

        group = ", ".join("(" + ", ".join(qi(v) for v in s) + ")" for s in grouping_sets(spec))
        sql += f" GROUP BY GROUPING SETS ({group})"
    found = con.sql(sql).df()
    keys: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
    for values in found.to_dict("records"):
        shown = tuple(v for v in variables if not values[f"__g_{v}"])
        key = values["__key"]
        keys[(shown, tuple(str(values[v]) for v in shown))] = 0 if pd.isna(key) else int(key)
    out = np.zeros(len(cells), dtype=np.int64)
    for i, (s, labels) in enumerate(zip(cells["set"], cells[variables].itertuples(index=False, name=None)
                                        if variables else [()] * len(cells), strict=True)):  # fmt: skip
        by = dict(zip(variables, labels, strict=True))
        out[i] = keys.get((tuple(s), tuple(str(by[v]) for v in s)), 0)
    return out


def published_counts(table: PerturbationTable, counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """What each cell publishes: its count plus the noise the table's row for the count gives its key (the row's
    noise values in increasing order, each over a share of the keys equal to its probability).

    Example:
        >>> from privrisk.accounting.cellkey import perturbation_table
        >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 1: 0.5}})
        >>> published_counts(t, np.array([0, 3, 3]), np.array([7, 0, 2**31])).tolist()
        [0, 2, 4]
    """
    out = np.empty(len(counts), dtype=np.int64)
    for i, (c, k) in enumerate(zip(np.asarray(counts).tolist(), np.asarray(keys).tolist(), strict=True)):
        noise, probs = table.rows[table.row_index(int(c))]
        edges = np.cumsum(probs)
        j = min(int(np.searchsorted(edges, (k + 0.5) / GRID, side="right")), len(noise) - 1)
        out[i] = int(c) + noise[j]
    return out


def allowed_counts(table: PerturbationTable, published: int) -> tuple[int, int]:
    """The true counts a published value can come from, an interval [lo, hi] (counts ≥ 0 whose row gives the
    value a probability above 0).

    Raises:
        PrivriskError: when no count shows the value, or the counts that do have a gap.

    Example:
        >>> from privrisk.accounting.cellkey import perturbation_table
        >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.25, 1: 0.25}})
        >>> allowed_counts(t, 0), allowed_counts(t, 1), allowed_counts(t, 5)
        ((0, 1), (1, 2), (4, 6))
    """
    reach = table.max_noise
    counts = np.arange(max(0, int(published) - reach), int(published) + reach + 1)
    hits = counts[table.likelihood(int(published), counts) > 0]
    if hits.size == 0:
        raise PrivriskError(f"spec: no true count shows {published} under {table.name}", param="spec")
    if hits.size != int(hits[-1] - hits[0]) + 1:
        raise PrivriskError(
            f"spec: under {table.name} the counts that show {published} have a gap ({hits.tolist()}); privrisk "
            "models a published count as an interval of true counts",
            param="spec",
        )
    return int(hits[0]), int(hits[-1])


def perturb(con: Any, spec: OutputSpec, cells: pd.DataFrame) -> pd.DataFrame:
    """A count table's cells as released with its perturbation table: ``value`` the published count,
    ``true_value`` the count, ``cell_key`` and the interval of true counts the published value allows
    (``allowed_lo``, ``allowed_hi``), which the differencing solves over."""
    table = spec.ptable
    assert table is not None
    counts = cells["value"].to_numpy(dtype=float)
    keys = cell_keys(con, spec, cells)
    shown = published_counts(table, counts.astype(np.int64), keys)
    bounds = {v: allowed_counts(table, v) for v in set(shown.tolist())}
    out = cells.assign(
        true_value=counts,
        value=shown.astype(float),
        cell_key=keys / GRID,
        allowed_lo=[float(bounds[v][0]) for v in shown.tolist()],
        allowed_hi=[float(bounds[v][1]) for v in shown.tolist()],
    )
    out.attrs.update(cells.attrs)
    return out


def description(spec: OutputSpec, record_key: str | None) -> dict[str, Any]:
    """What the JSON says of a perturbed output: the table, its largest noise, whether zeros are kept, the keys."""
    table = spec.ptable
    assert table is not None
    return {
        "table": spec.perturbation or table.name,
        "name": table.name,
        "max_noise": table.max_noise,
        "zeros_unperturbed": table.zeros_unperturbed,
        "record_key": record_key or "hash of each row",
    }


def perturbed_lines(outputs: list[dict[str, Any]]) -> list[str]:
    """One sentence per perturbation table: which outputs it perturbed, and what the differencing then solves over.

    Example:
        >>> o = {"name": "T1", "perturbation": {"table": "p.csv", "max_noise": 2, "zeros_unperturbed": True,
        ...      "record_key": "hash of each row"}}
        >>> perturbed_lines([o])[0]
        'Perturbed: T1 with p.csv (noise at most ±2, zeros kept; record keys: hash of each row): the differencing \
solves over the true counts each published value allows.'
    """
    by: dict[tuple[str, int, bool, str], list[str]] = {}
    for o in outputs:
        p = o.get("perturbation")
        if p:
            key = (str(p["table"]), int(p["max_noise"]), bool(p["zeros_unperturbed"]), str(p["record_key"]))
            by.setdefault(key, []).append(str(o["name"]))
    lines = []
    for (table, noise, zeros, keys), names in by.items():
        listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
        lines.append(
            f"Perturbed: {listed} with {table} (noise at most ±{noise}{', zeros kept' if zeros else ''}; record "
            f"keys: {keys}): the differencing solves over the true counts each published value allows."
        )
    return lines


class Slacks:
    """The perturbed cells in the released system: a cell whose published value allows the true counts [lo, hi]
    is the equation (its atoms' total) + s = hi with a whole unknown s in [0, hi − lo], one s per distinct set of
    atoms and interval (the same records have the same key, hence the same published value); a cell allowing one
    count is an equation as an exact cell is. The unknowns s follow the atoms' counts and sums (from ``start``)."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.seen: dict[tuple[bytes, float, float], int] = {}
        self.upper: list[float] = []
        self.known: list[float] = []
        self.plans: dict[str, tuple[Any, np.ndarray, np.ndarray]] = {}

    def plan(self, name: str, mat: Any, cells: pd.DataFrame, values: np.ndarray, truth: np.ndarray) -> None:
        """Give each released cell of the output ``name`` (atoms ``mat``, ``values`` not finite where hidden) its
        unknown s (−1: none) and the right-hand side of its equation."""
        lo = cells["allowed_lo"].to_numpy(dtype=float)
        hi = cells["allowed_hi"].to_numpy(dtype=float)
        col = np.full(len(cells), -1, dtype=np.int64)
        rhs = np.where(np.isfinite(values), lo, np.nan)
        for i in np.flatnonzero(np.isfinite(values) & (hi > lo)).tolist():
            members = np.sort(mat.indices[mat.indptr[i] : mat.indptr[i + 1]]).astype(np.int64)
            key = (members.tobytes(), float(lo[i]), float(hi[i]))
            j = self.seen.get(key)
            if j is None:
                j = self.seen[key] = len(self.upper)
                self.upper.append(float(hi[i] - lo[i]))
                self.known.append(float(hi[i] - truth[members].sum()))
            col[i] = j
            rhs[i] = hi[i]
        self.plans[name] = (mat, col, rhs)

    @property
    def size(self) -> int:
        return len(self.upper)

    def rows(self, name: str, width: int) -> tuple[Any, np.ndarray]:
        """The output's cells as rows over the joint unknowns (width ``width``) and their right-hand sides."""
        import scipy.sparse as sp

        mat, col, rhs = self.plans[name]
        mat = sp.csr_matrix(mat)
        base = sp.csr_matrix((mat.data, mat.indices, mat.indptr), shape=(mat.shape[0], width))
        has = np.flatnonzero(col >= 0)
        extra = sp.csr_matrix((np.ones(has.size), (has, col[has] + self.start)), shape=(mat.shape[0], width))
        return sp.csr_matrix(base + extra), rhs
