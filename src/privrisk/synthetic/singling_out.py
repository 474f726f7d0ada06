"""Singling out: queries that pick exactly one record of the synthetic file, tried on the real records.

The attacker of Giomi et al. (2023, §3.1; Cohen and Nissim 2020 for the notion) writes predicates from the
synthetic file alone: univariate ones from its rare values and extremes (``age ≥ 97``, ``zip == 10115``), and
multivariate ones from a random synthetic record and a few of its columns (``age ≤ 23 & sex == 'f' & region ==
'north'``; a numeric value bounds the column on the side away from the median). A query that singles out one
synthetic record is a guess that it singles out one real person; it succeeds on a set of records when exactly one
record there matches. The success on the training records beyond the success on the control records is the risk.

Three differences from Anonymeter, each on the side of not understating the risk:

- rates are over the queries found, and the shortfall is reported: Anonymeter divides by the queries asked for, so a
  synthetic file that yields few singling-out queries looks safer (LeakPro issue 182);
- the training and control records are compared at the same size (a random subset of the larger): whether a query
  singles out depends on the size of the set, and a fitted correction (Anonymeter's) is an estimate of its own;
- duplicate records are kept: two identical people are not singled out by a query that matches both.

Example:
    >>> import pandas as pd
    >>> from privrisk.synthetic._frames import encode
    >>> frame = pd.DataFrame({"age": range(40), "sex": list("mf") * 20})
    >>> enc = encode(frame, frame, frame.copy())
    >>> o = singling_out(enc, mode="univariate", queries=10, seed=1)
    >>> o.found, o.risk.attack_rate, o.risk.control_rate
    (10, 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from privrisk.synthetic._frames import Encoded, Table
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE, excess_risk
from privrisk.synthetic.outcome import AttackOutcome

__all__ = ["DEFAULT_QUERY_COLUMNS", "MAX_ATTEMPTS_PER_QUERY", "Query", "singling_out"]

DEFAULT_QUERY_COLUMNS = 3
"""Columns in a multivariate query (Anonymeter's default)."""
MAX_ATTEMPTS_PER_QUERY = 25
"""Random records tried per query asked for, before the attacker stops with fewer (the shortfall is reported)."""

#: One predicate: (column, operator, value) with operator ``==``, ``<=``, ``>=`` or ``na`` (the value is missing).
Predicate = tuple[int, str, float]
Query = tuple[Predicate, ...]


class _Index:
    """A table sorted once per column, so that the records matching a predicate are a slice."""

    def __init__(self, table: Table) -> None:
        self.values = table.values
        # One contiguous array per column (a column of a row-major matrix is strided: searching it copies it).
        self.order = [np.argsort(x, kind="stable") for x in table.values.T]  # NaN sorts last
        self.present = [int(np.sum(~np.isnan(x))) for x in table.values.T]
        self.sorted = [x[o][:p] for x, o, p in zip(table.values.T, self.order, self.present, strict=True)]

    def span(self, p: Predicate) -> tuple[int, int]:
        j, op, v = p
        column = self.sorted[j]
        if op == "na":
            return self.present[j], int(self.values.shape[0])
        if op == "<=":
            return 0, int(np.searchsorted(column, v, side="right"))
        if op == ">=":
            return int(np.searchsorted(column, v, side="left")), self.present[j]
        return int(np.searchsorted(column, v, side="left")), int(np.searchsorted(column, v, side="right"))

    def count(self, query: Query, limit: int = 2) -> int:
        """How many records match every predicate (counted up to ``limit``: singling out needs only 0, 1 or more)."""
        spans = [self.span(p) for p in query]
        sizes = [b - a for a, b in spans]
        first = int(np.argmin(sizes))
        if sizes[first] == 0:
            return 0
        a, b = spans[first]
        order = self.order[query[first][0]]
        found, start, chunk = 0, a, 256
        while start < b and found < limit:  # most queries match two records early: stop there
            rows = order[start : min(b, start + chunk)]
            keep = np.ones(rows.size, dtype=bool)
            for i, (j, op, v) in enumerate(query):
                if i == first:
                    continue
                x = self.values[rows, j]
                if op == "na":
                    keep &= np.isnan(x)
                elif op == "<=":
                    keep &= x <= v
                elif op == ">=":
                    keep &= x >= v
                else:
                    keep &= x == v
            found += int(keep.sum())
            start += chunk
            chunk *= 4
        return min(found, limit)


def _univariate(index: _Index, numeric: Sequence[bool], rng: np.random.Generator, wanted: int) -> list[Query]:
    values = index.values
    candidates: list[Query] = []
    for j, is_numeric in enumerate(numeric):
        x = values[:, j]
        missing = np.isnan(x)
        if missing.sum() == 1:
            candidates.append(((j, "na", np.nan),))
        present = x[~missing]
        if present.size == 0:
            continue
        if is_numeric:
            candidates.append(((j, "<=", float(present.min())),))
            candidates.append(((j, ">=", float(present.max())),))
        found, counts = np.unique(present, return_counts=True)
        candidates.extend(((j, "==", float(v)),) for v in found[counts == 1])
    order = rng.permutation(len(candidates))
    out: list[Query] = []
    seen: set[Query] = set()
    for i in order:
        q = candidates[i]
        if q not in seen and index.count(q) == 1:
            seen.add(q)
            out.append(q)
            if len(out) == wanted:
                break
    return out


def _predicate(j: int, value: float, is_numeric: bool, median: float) -> Predicate:
    if np.isnan(value):
        return (j, "na", np.nan)
    if is_numeric:
        return (j, ">=" if value > median else "<=", float(value))
    return (j, "==", float(value))


def _multivariate(
    index: _Index,
    numeric: Sequence[bool],
    rng: np.random.Generator,
    wanted: int,
    width: int,
    step: Callable[[], None],
) -> list[Query]:
    values = index.values
    n, d = values.shape
    width = min(width, d)
    is_numeric = np.asarray(numeric, dtype=bool)
    medians = np.array([np.nanmedian(values[:, j]) if numeric[j] and (~np.isnan(values[:, j])).any() else 0.0
                        for j in range(d)])  # fmt: skip
    out: list[Query] = []
    seen: set[Query] = set()
    attempts = 0
    limit = MAX_ATTEMPTS_PER_QUERY * wanted
    while len(out) < wanted and attempts < limit:
        batch = min(2048, limit - attempts)
        attempts += batch
        # A batch of records and, for each, `width` distinct random columns (the first of a random permutation).
        records = rng.integers(0, n, size=batch)
        cols = np.sort(np.argsort(rng.random((batch, d)), axis=1)[:, :width], axis=1)
        vals = values[records[:, None], cols]
        ops = np.where(np.isnan(vals), "na", np.where(is_numeric[cols],
                       np.where(vals > medians[cols], ">=", "<="), "=="))  # fmt: skip
        for i in range(batch):
            q = tuple((int(j), str(op), float(v)) for j, op, v in zip(cols[i], ops[i], vals[i], strict=True))
            if q in seen:
                continue
            seen.add(q)
            if index.count(q) == 1:
                out.append(q)
                if len(out) == wanted:
                    break
        step()
    return out


def _baseline(
    index: _Index, numeric: Sequence[bool], rng: np.random.Generator, count: int, width: int
) -> list[Query]:
    """Random queries: random columns, each bound at a random value of the column with a random operator."""
    values = index.values
    n, d = values.shape
    width = min(width, d)
    out: list[Query] = []
    for _ in range(count):
        cols = np.sort(rng.choice(d, size=width, replace=False))
        preds = []
        for j in cols:
            v = values[rng.integers(0, n), j]
            if np.isnan(v):
                preds.append((int(j), "na", np.nan))
            elif numeric[j]:
                preds.append((int(j), str(rng.choice(["<=", ">=", "=="])), float(v)))
            else:
                preds.append((int(j), "==", float(v)))
        out.append(tuple(preds))
    return out


def evaluation_sets(enc: Encoded, rng: np.random.Generator) -> tuple[Table, Table | None]:
    """The training and control records at the same size (a random subset of the larger of the two)."""
    if enc.control is None:
        return enc.original, None
    m = min(enc.original.rows, enc.control.rows)
    train = enc.original.take(np.sort(rng.choice(enc.original.rows, size=m, replace=False)))
    control = enc.control.take(np.sort(rng.choice(enc.control.rows, size=m, replace=False)))
    return train, control


def singling_out(
    enc: Encoded,
    *,
    mode: str = "multivariate",
    queries: int = 2000,
    columns: int = DEFAULT_QUERY_COLUMNS,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
    progress: Callable[[], None] | None = None,
) -> AttackOutcome:
    """The singling-out attack, univariate or multivariate, and its excess risk over the control.

    Args:
        enc: the encoded files (:func:`~privrisk.synthetic._frames.encode`).
        mode: ``univariate`` or ``multivariate``.
        queries: how many singling-out queries the attacker writes (fewer when the synthetic file has not enough).
        columns: columns per multivariate query.
        confidence: of the risk's interval.
        seed: the randomness of the queries and of the equal-size subsets.
        progress: called now and then while queries are searched.

    Returns:
        An :class:`~privrisk.synthetic.outcome.AttackOutcome`; its ``found`` counts the queries written.
    """
    rng = np.random.default_rng(seed)
    step = progress or (lambda: None)
    synthetic = _Index(enc.synthetic)
    if mode == "univariate":
        found = _univariate(synthetic, enc.numeric, rng, queries)
        width = 1
    else:
        found = _multivariate(synthetic, enc.numeric, rng, queries, columns, step)
        width = columns
    train, control = evaluation_sets(enc, rng)
    on_train = _Index(train)
    hits = sum(on_train.count(q) == 1 for q in found)
    control_hits = None
    if control is not None:
        on_control = _Index(control)
        control_hits = sum(on_control.count(q) == 1 for q in found)
    guesses = _baseline(synthetic, enc.numeric, rng, len(found), width)
    guessed = sum(on_train.count(q) == 1 for q in guesses)
    risk = excess_risk(hits, len(found), control_hits, None if control is None else len(found),
                       confidence=confidence)  # fmt: skip
    note = None
    if len(found) < queries:
        note = (
            f"The synthetic file yields {len(found):,} singling-out queries of the {queries:,} asked for; the rates "
            "are over the queries found (a shortfall is not counted as failed attacks)."
        )
    title = "Singling out, univariate" if mode == "univariate" else f"Singling out, {width} columns"
    return AttackOutcome(
        f"singling_out_{mode}", title, risk, (guessed, len(guesses)), queries, len(found), note=note
    )
