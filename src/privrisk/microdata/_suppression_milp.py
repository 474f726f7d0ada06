"""One record's fewest own suppressions: a table of every set of its keys, or an integer programme on HiGHS.

**The problem.** Record i shows the keys O_i. Another record j agrees with i after i suppresses the keys S when
every key where j differs from i is in S; the keys of that difference are

    D_ij = {key ∈ O_i : j shows the key and its value differs from i's}

(a value j does not show matches any value). The records with one difference pattern p enter together (n_p of
them), those that already agree as the constant n_0 (i itself among them); g is the fewest matches the target
needs: k, or, without weights, the least g with individual risk 1/g ≤ ``max_risk``. The fewest suppressions are
the least S with n_0 + Σ_{p ⊆ S} n_p ≥ g, least by size and then by Σ 2^rank of its keys (rank 0 the least
important): the order of the exhaustive search of :mod:`~privrisk.microdata.suppression`.

**The table** (up to :data:`TABLE_KEYS` keys the record may suppress): the mass Σ_{p ⊆ S} n_p of every S at once
by the subset-sum (zeta) transform over the 2^f sets, then the least S that reaches g. Exact, and measured faster
than the programme at every size it covers (``benchmarks/microdata_suppression.py``).

**The integer programme** (beyond, or asked for): binary s_key (i suppresses the key) and, per pattern, binary
m_p (its records agree with i):

    minimise   Σ_key c_key · s_key,           c_key = 1 + 2^r / 2^(f+1)    (r: the key's rank among the f free keys)
    subject to m_p ≤ s_key                     for every key of p
               Σ_p min(n_p, g − n_0) · m_p ≥ g − n_0,     Σ_key s_key ≤ |greedy|

Since Σ 2^r/2^(f+1) < 1/2 the optimum is the fewest suppressions and, among them, the least Σ 2^r. Each count is
capped at what is still needed (a tighter relaxation), and patterns with more keys than the greedy solution (the
least important keys one at a time) suppresses are left out (an optimum never suppresses more). A household's
shared keys enter fixed (``on``: suppressed, ``off``: kept). The relaxation of this covering model is weak (the
s_key of a pattern can share it fractionally): at 14–18 keys HiGHS takes seconds to minutes a record where the
table takes milliseconds.

Both are the per-record form of the model sdcMicro's ``ls_optimal`` solves with HiGHS (sdcTools/sdcMicro,
``R/ls_optimal.R``, formulation ``"modelB"``: per violating record, the mass each suppression pattern reaches
precomputed by the subset-sum transform, coefficients capped at the remaining need). sdcMicro solves one
programme for the whole file because its target lets records repair each other; privrisk's target is met by each
record's own suppressions (module docstring of :mod:`~privrisk.microdata.suppression`), so the file's optimum is
the sum of the records'.

**The risk target with weights** is not one linear threshold (the individual risk depends on g and on the weight
sum G together): the table computes G of every set by the same transform and reads the risk off each size in
turn; past :data:`TABLE_KEYS` keys such records keep the greedy fallback and a stated lower bound.

**A budget** (``nodes`` per programme, a ``deadline`` for all) that ends a search early gives the best feasible
set HiGHS had found (else the greedy one) and a lower bound from the programme's dual bound B: the count of the
optimum is more than B − 1/2.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp

from privrisk.microdata.risk import RiskMethod, individual_risk
from privrisk.solver import Program

__all__: list[str] = []

TABLE_KEYS = 20
"""Up to this many keys a record may suppress, its fewest are read off a table of every set (2^keys entries);
beyond, the integer programme."""

_NEVER = 2**62
"""More matches than any file has."""


@dataclass(frozen=True)
class RecordSuppression:
    """One record's suppressed keys (a bit mask, the fixed ``on`` keys included), a lower bound on their count
    and whether the count is proven the fewest."""

    mask: int
    bound: int
    optimal: bool


def matches_needed(k: int | None, limit: float | None, method: RiskMethod) -> int:
    """The fewest records (the record itself included) that must agree with a record without weights: k, and the
    least g whose individual risk (1/g: without weights F = f) is at most ``limit``; 0 if there is no target.

    >>> matches_needed(3, 0.2, "approx"), matches_needed(None, 1 / 3, "approx"), matches_needed(2, None, "approx")
    (5, 3, 2)
    """
    need = 0 if k is None else int(k)
    if limit is not None:
        if limit <= 0:
            return _NEVER  # no count reaches a risk of 0
        g = max(1, math.ceil(1.0 / limit) - 1)
        # the risk function decides at the boundary (1/g computed in floating point)
        while float(individual_risk([g], [g], method=method)[0]) > limit:
            g += 1
        while g > 1 and float(individual_risk([g - 1], [g - 1], method=method)[0]) <= limit:
            g -= 1
        need = max(need, g)
    return need


def popcount(values: np.ndarray) -> np.ndarray:
    """How many bits each value has set."""
    out = np.zeros(values.shape, dtype=np.int64)
    v = values.copy()
    while (v > 0).any():
        out += v & 1
        v >>= 1
    return out


def _zeta(local: np.ndarray, values: np.ndarray, f: int, dtype: type) -> np.ndarray:
    """Σ of ``values`` over the patterns (bit masks ``local`` of f bits) inside each of the 2^f sets."""
    out: np.ndarray = np.zeros(1 << f, dtype=dtype)
    np.add.at(out, local, values)
    for b in range(f):
        view = out.reshape(-1, 2, 1 << b)
        view[:, 1, :] += view[:, 0, :]
    return out


def _by_table(pats: np.ndarray, keys: list[int], rank: dict[int, int], enough) -> int | None:
    """The least set (fewest keys, then least Σ 2^rank) of ``keys`` for which ``enough(local_sets, inside)`` holds,
    ``inside(values)`` giving each set's Σ of per-pattern values over the patterns inside it (the subset-sum
    transform, sdcMicro's model B); None if no set does."""
    f = len(keys)
    local = np.zeros(pats.shape, dtype=np.int64)
    for c, key in enumerate(keys):
        local |= ((pats >> key) & 1) << c
    # only the keys' order among themselves matters: ranks 0 … f−1 keep the order's integers small
    relative = np.argsort(np.argsort([rank[key] for key in keys]))
    ordered, starts = _set_order(tuple(int(r) for r in relative))
    tables: dict[str, np.ndarray] = {}

    def inside(name: str, values: np.ndarray) -> np.ndarray:
        if name not in tables:
            tables[name] = _zeta(local, values, f, values.dtype.type)
        return tables[name]

    for size in range(f + 1):  # by size, so a risk is computed only for the sets of the sizes reached
        chunk = ordered[starts[size] : starts[size + 1]]
        ok = np.flatnonzero(enough(chunk, inside))
        if ok.size:
            best = int(chunk[ok[0]])
            return sum(1 << key for c, key in enumerate(keys) if (best >> c) & 1)
    return None


@functools.lru_cache(maxsize=4)
def _set_order(ranks: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every set of keys with these ranks (bit c for the c-th) in the search's order (by size, then Σ 2^rank), and
    where each size starts; kept for the next record (most show the same keys)."""
    sets = np.arange(1 << len(ranks), dtype=np.int64)
    weight = np.zeros(sets.shape, dtype=np.int64)
    for c, r in enumerate(ranks):
        weight += ((sets >> c) & 1) << r
    size = popcount(sets)
    ordered = sets[np.lexsort((weight, size))]
    starts = np.searchsorted(size[ordered], np.arange(len(ranks) + 2))
    return ordered, starts


def _bits(mask: int, q: int) -> list[int]:
    return [j for j in range(q) if (mask >> j) & 1]


def fewest_keys(codes: np.ndarray, i: int, need: int, least_first: list[int], *, on: int = 0, off: int = 0,
                nodes: int | None = None, deadline: float | None = None,
                engine: Literal["auto", "table", "milp"] = "auto", weights: np.ndarray | None = None,
                limit: float | None = None, method: RiskMethod = "approx") -> RecordSuppression | None:  # fmt: skip
    """Record i's fewest suppressions so that at least ``need`` records agree with it (module docstring), or None
    when even suppressing every key it may suppress is not enough.

    Args:
        codes: key codes (n × q, −1 missing).
        i: the record.
        need: the fewest agreeing records (i included).
        least_first: the key indices from the least to the most important.
        on, off: keys fixed suppressed and fixed kept (bit masks).
        nodes: the most branch-and-bound nodes of the programme.
        deadline: a ``time.perf_counter()`` instant that ends the programme.
        engine: ``"table"`` (every set of the free keys at once), ``"milp"`` or ``"auto"`` (the table up to
            :data:`TABLE_KEYS` free keys).
        weights, limit, method: a risk target with weights: the individual risk of the agreeing records' count g
            and weight sum G at most ``limit`` (besides ``need``); the table only (None past it).
    """
    q = codes.shape[1]
    row = codes[i]
    shown_bits = int(((row >= 0) * (1 << np.arange(q, dtype=np.int64))).sum())
    on &= shown_bits
    free = shown_bits & ~on & ~off
    pow2 = np.int64(1) << np.arange(q, dtype=np.int64)
    diff = (codes >= 0) & (codes != row) & (row >= 0)
    dmask = (diff @ pow2) & ~np.int64(on)
    usable = (dmask & np.int64(off)) == 0
    dmask = dmask[usable]
    fixed_cost = bin(on).count("1")
    keys = _bits(free, q)
    rank = {key: r for r, key in enumerate(least_first)}
    weighted = weights is not None and limit is not None
    if weighted and (engine == "milp" or len(keys) > TABLE_KEYS):
        return None  # the risk of g and G together is no linear threshold (module docstring)
    if weighted:
        assert weights is not None and limit is not None
        w = np.asarray(weights, dtype=float)[usable]
        pats, inverse = np.unique(dmask, return_inverse=True)
        counts = np.bincount(inverse, minlength=pats.size).astype(np.int64)
        sums = np.bincount(inverse, weights=w, minlength=pats.size)

        def enough(sets, inside):
            g, big_g = inside("g", counts)[sets], inside("G", sums)[sets]
            return (g >= need) & (individual_risk(g, big_g, method=method) <= limit)

        best = _by_table(pats, keys, rank, enough)
        return None if best is None else RecordSuppression(on | best, fixed_cost + bin(best).count("1"), True)
    base = int((dmask == 0).sum())
    if base >= need:
        return RecordSuppression(on, fixed_cost, True)
    pats, counts = np.unique(dmask[dmask != 0], return_counts=True)

    def meets(mask: int) -> bool:
        return base + int(counts[(pats & ~np.int64(mask)) == 0].sum()) >= need

    # greedy: the least important free keys one at a time; its size caps the patterns worth a variable
    greedy = 0
    for j in least_first:
        if (free >> j) & 1:
            greedy |= 1 << j
            if meets(greedy):
                break
    if not meets(greedy):
        return None
    size = bin(greedy).count("1")
    if size == 1:
        return RecordSuppression(on | greedy, fixed_cost + 1, True)  # one key is the fewest past n_0 < need
    if engine == "table" or (engine == "auto" and len(keys) <= TABLE_KEYS):
        best = _by_table(pats, keys, rank, lambda sets, inside: base + inside("g", counts)[sets] >= need)
        assert best is not None  # the greedy set is one
        return RecordSuppression(on | best, fixed_cost + bin(best).count("1"), True)
    pop = popcount(pats)
    keep = pop <= size
    kept, kept_counts = pats[keep], counts[keep]
    col = {key: c for c, key in enumerate(keys)}
    nk, npat = len(keys), len(kept)
    rows, cols, vals = [], [], []
    r = 0
    for p_index, p in enumerate(kept.tolist()):
        for key in _bits(p, q):
            rows += [r, r]
            cols += [nk + p_index, col[key]]
            vals += [1.0, -1.0]
            r += 1
    cover = r
    rows += [cover] * npat
    cols += list(range(nk, nk + npat))
    vals += np.minimum(kept_counts, need - base).astype(float).tolist()
    rows += [cover + 1] * nk
    cols += list(range(nk))
    vals += [1.0] * nk
    a = sp.csr_matrix((vals, (rows, cols)), shape=(cover + 2, nk + npat))
    lo = np.r_[np.full(cover, -np.inf), need - base, 0.0]
    hi = np.r_[np.zeros(cover), np.inf, size]
    prog = Program(
        a, lo, hi, lower=np.zeros(nk + npat), upper=np.ones(nk + npat), integer=np.ones(nk + npat, bool)
    )
    # the keys' order among themselves, so the tie-break steps are 2^−(f+1), far above HiGHS's gap of 10⁻⁹ up to
    # about 28 free keys (beyond, the count stays the fewest and the tie-break may not be the search's)
    relative = np.argsort(np.argsort([rank[key] for key in keys]))
    cost = [1.0 + 2.0 ** int(r) / 2.0 ** (nk + 1) for r in relative]
    sol = prog.minimise(np.arange(nk), cost, nodes=nodes, deadline=deadline)
    point = sol.x if sol.optimal else sol.incumbent
    mask, proven = greedy, False
    if point is not None:
        mask = sum(1 << key for c, key in enumerate(keys) if point[c] > 0.5)
        proven = sol.optimal
        if not meets(mask):  # the solver's tolerances never decide a released record: checked exactly
            mask, proven = greedy, False
    found = bin(mask).count("1")
    if proven:
        return RecordSuppression(on | mask, fixed_cost + found, True)
    low = 1  # n_0 < need: at least one key
    if np.isfinite(sol.bound):
        # the objective is the count plus less than 1/2: the count exceeds B − 1/2 (a hair of slack, safe side)
        low = max(low, math.ceil(sol.bound - 0.5 - 1e-6))
    low = min(low, found)
    return RecordSuppression(on | mask, fixed_cost + low, low == found)
