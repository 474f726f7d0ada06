"""Local suppression: the fewest key values set to missing, in an importance order, so that every record meets
k-anonymity or a largest individual risk, each record by its own suppressions.

**What a suppression has to achieve.** A released record with some key values suppressed could belong to every
person in the file whose key values agree with the values it still shows; the record meets k when at least k
people do (counting the person), and a risk target when the individual risk of that count g_i and its weight
sum G_i is at most ``max_risk``. This is the reading of the SDC practice guide's example ("by suppressing
'higher', the respondent … shares the same combination with at least three other respondents") and of
sdcMicro's ``localSuppression`` (it suppresses values of the records at risk only). A record thus meets its
target by its own suppressions alone, whatever the other records show. Since every person counted for a
record is also a record that matches it when a missing value matches any value (sdcMicro's ``freqCalc``), the
released file meets the same k and risk in privrisk's measures (and in sdcMicro's).

The looser target "f_k ≥ k with a suppressed value matching any value, counted for every record" has a
degenerate optimum that no statistical office would release: suppressing every key of one record makes that
record match all the others, so on sdcMicro's ``testdata2`` (93 records, all unique) 7 suppressions give
"2-anonymity" while 92 records keep their unique combination in full. Neither an exact optimiser nor a heuristic
should hunt for that; privrisk does not use that target.

**Exact.** The target of each record depends only on its own suppressions, so the fewest suppressions of the
file are the fewest of each record. First the sets of keys are tried on the whole file by increasing size and,
within a size, least important keys first (a set's rank is Σ 2^rank of its keys, rank 0 for the least important),
and each record takes the first set that makes it meet the target: a smallest one and, among the smallest, the
one that spares the important keys. This covers every set while at most ``max_patterns`` are tried (up to 12
keys). Each record still missing the target is then solved on its own
(:mod:`~privrisk.microdata._suppression_milp`): the other records grouped by the keys where they differ from it,
every set of its keys at once by a subset-sum table up to 20 keys, an integer programme on HiGHS (through
:mod:`privrisk.solver`, as sdcMicro's ``ls_optimal``) beyond, with the same order of sets (``"per-record"``). A budget
(``time_limit``, ``nodes``) that ends first leaves the best set found and a lower bound from the solver's dual
bound, never "optimal" without the solver's proof. A risk target with weights is not a threshold on one linear
count (the risk depends on g and G together): the table reads it off every set; past 20 keys (or asked for the
programme) such records lose their least important keys one at a time (``"greedy"``) and the result states a lower
bound (each needs more than the sets tried).

**Households.** A key that every household shows with one value (region, household size, dwelling) is
suppressed for every member of the household or for none, else the suppressed value could be read off another
member: the members' sets are chosen together, the household's shared keys first. A key constant in only some
households is made so afterwards (the result is then not proven minimal). With ``max_risk`` the household risk
1 − Π(1 − r) is part of the target: the members of a household above it are held to 1 − (1 − max_risk)^{1/m}
each (m members), which is enough.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata._suppression_milp import RecordSuppression, fewest_keys, matches_needed
from privrisk.microdata._suppression_milp import popcount as _popcount
from privrisk.microdata.frequencies import cell_frequencies, key_codes
from privrisk.microdata.risk import RiskMethod, household_risk, individual_risk

if TYPE_CHECKING:
    from privrisk.microdata.measure import MicrodataResult

__all__ = ["MAX_PATTERNS", "Suppression", "suppress", "suppress_microdata"]

MAX_PATTERNS = 4096
"""The most sets of keys the exact search tries (all of them for up to 12 keys)."""


@dataclass(frozen=True, eq=False)
class Suppression:
    """The result of :func:`suppress`.

    Attributes:
        codes: the key codes after suppression (−1 missing).
        cells: the suppressed (record, key index) pairs, sorted.
        by_key: how many values of each key were suppressed.
        method: ``"exact"`` (the search found every record's, or household's, fewest suppressions), ``"per-record"``
            (the records past the search's budget were solved each on its own: a table of every set of keys or
            an integer programme on HiGHS; ``optimal`` says whether every one is proven) or ``"greedy"`` (some
            records dropped their least important keys instead: a risk target with weights, or a spent budget).
        optimal: whether no solution with fewer suppressions exists (``len(cells) == bound``).
        bound: a lower bound on the fewest suppressions: the search's count (the records' fewest suppressions for
            their own target, before households share a key or hold their members to a share of the household
            risk), with the records the budget left counted at the size the search had covered.
        patterns: how many sets of keys were tried.
    """

    codes: np.ndarray
    cells: list[tuple[int, int]]
    by_key: dict[str, int]
    method: Literal["exact", "per-record", "greedy"]
    optimal: bool
    bound: int = 0
    patterns: int = 0
    records: int = field(default=0)

    @property
    def gap(self) -> float:
        """The share by which the result may exceed the fewest suppressions: (found − bound) / found, 0 if exact."""
        found = len(self.cells)
        return 0.0 if found == 0 or self.bound >= found else (found - self.bound) / found

    def apply(self, frame: pd.DataFrame, keys: tuple[str, ...] | list[str]) -> pd.DataFrame:
        """A copy of ``frame`` with the suppressed key values set to missing and every other cell unchanged; a
        column of whole numbers (or of booleans) becomes pandas' nullable type, so that it stays whole."""
        out = frame.copy()
        for j, key in enumerate(keys):
            rows = [r for r, c in self.cells if c == j]
            if rows:
                out[key] = _with_missing(out[key], rows)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"suppressed": len(self.cells), "by_key": self.by_key, "method": self.method,
                "optimal": self.optimal, "lower_bound": self.bound, "gap": self.gap,
                "sets_tried": self.patterns, "records_changed": self.records}  # fmt: skip


def _with_missing(column: pd.Series, rows: list[int]) -> pd.Series:
    """``column`` with the values at ``rows`` (positions) missing, in a type that holds a missing value."""
    col = column.copy()
    if pd.api.types.is_bool_dtype(col.dtype) and not isinstance(col.dtype, pd.BooleanDtype):
        col = col.astype("boolean")
    elif pd.api.types.is_integer_dtype(col.dtype) and not isinstance(
        col.dtype, pd.api.extensions.ExtensionDtype
    ):
        col = col.astype(cast(Any, col.dtype.name.replace("int", "Int").replace("uInt", "UInt")))
    elif isinstance(col.dtype, pd.CategoricalDtype) or pd.api.types.is_float_dtype(col.dtype):
        pass
    elif not isinstance(col.dtype, pd.api.extensions.ExtensionDtype):
        col = col.astype(object)
    col.iloc[rows] = None
    return col


def _pattern_order(least_first: list[int], q: int) -> np.ndarray:
    """Every set of the q keys as a bit mask, by size and then sparing the important keys: within a size, sets
    compare on their most important key first (a set weighs Σ 2^rank of its keys, rank 0 the least important)."""
    rank = np.zeros(q, dtype=np.int64)
    rank[least_first] = np.arange(q)
    masks = np.arange(1 << q, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(q)) & 1
    weight = bits @ (np.int64(1) << rank) if q else np.zeros(1, dtype=np.int64)
    return masks[np.lexsort((weight, bits.sum(axis=1)))]


def _counts(codes: np.ndarray, mask: int, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """g and G of each record if it showed only the keys outside ``mask``: the records (and their weights) whose
    values agree with it on those keys, a missing value in the file as given matching any value."""
    q = codes.shape[1]
    keep = [j for j in range(q) if not (mask >> j) & 1]
    if not keep:
        n = codes.shape[0]
        total = float(n if weights is None else weights.sum())
        return np.full(n, n, dtype=np.int64), np.full(n, total)
    cells = cell_frequencies(codes[:, keep], weights, missing="any")
    return cells.record_fk, cells.record_Fk


def _meets(
    g: np.ndarray, G: np.ndarray, k: int | None, limit: np.ndarray | None, method: RiskMethod
) -> np.ndarray:
    ok = np.ones(g.shape, dtype=bool)
    if k is not None:
        ok &= g >= k
    if limit is not None:
        ok &= individual_risk(g, G, method=method) <= limit
    return ok


def _search(codes, weights, k, limit, method, order, rows, max_patterns, shared=0, fixed=None):
    """Each record's first set in ``order`` that makes it meet its target (−1: none within the budget), and how
    many sets were tried and the size of the largest size tried in full. With ``fixed`` only sets whose part in
    the ``shared`` keys is exactly ``fixed`` are tried."""
    n, q = codes.shape
    missing = (codes < 0) @ (np.int64(1) << np.arange(q, dtype=np.int64))
    chosen = np.full(n, -1, dtype=np.int64)
    todo = np.zeros(n, dtype=bool)
    todo[rows] = True
    tried, full_size, size = 0, -1, 0
    for mask in order:
        mask = int(mask)
        if not todo.any():
            break
        if fixed is not None and (mask & shared) != fixed:
            continue
        this = bin(mask).count("1")
        if this > size:
            full_size, size = size, this
        if tried >= max_patterns:
            return chosen, tried, full_size
        # a set that names a key the record does not show is the same set without it, tried once without it
        cand = todo & ((missing & mask) == 0)
        if not cand.any():
            continue
        tried += 1
        g, G = _counts(codes, mask, weights)
        ok = cand & _meets(g, G, k, limit, method)
        chosen[ok] = mask
        todo &= ~ok
    return chosen, tried, q


def _greedy_mask(codes, weights, k, limit, method, least_first, r, start) -> int:
    """Drop the record's least important shown keys one at a time until it meets its target."""
    mask = start
    sel = slice(r, r + 1)
    for j in [*least_first, None]:
        g, G = _counts(codes, mask, weights)
        if _meets(g[sel], G[sel], k, None if limit is None else limit[sel], method)[0]:
            return mask
        if j is not None:
            mask |= 1 << j
    raise PrivriskError("max_risk: cannot be reached even with every key value of a record suppressed",
                        param="max_risk")  # fmt: skip


def suppress(codes: np.ndarray, keys: tuple[str, ...] | list[str], *, weights: np.ndarray | None = None,
             k: int | None = None, max_risk: float | None = None, importance: list[str] | None = None,
             method: RiskMethod = "approx", households: np.ndarray | None = None,
             max_patterns: int = MAX_PATTERNS, time_limit: float | None = None, nodes: int | None = None,
             _engine: Literal["auto", "table", "milp"] = "auto") -> Suppression:  # fmt: skip
    """Set the fewest key values to missing so that every record meets the target by its own suppressions
    (module docstring).

    Args:
        codes: key codes (n × q) from :func:`privrisk.microdata.frequencies.key_codes` (−1 missing).
        keys: the key names.
        weights: sampling weights (for a risk target).
        k: every record must agree on the values it shows with at least k records (itself included).
        max_risk: every record's individual risk (and, with ``households``, its household's) must be at most this.
        importance: the keys from the most to the least important (the least important are suppressed first);
            default: the order of ``keys``.
        method: the individual risk's method.
        households: dense household ids of the records, or None.
        max_patterns: the most sets of keys the search of the whole file tries before each record left is
            solved on its own (module docstring).
        time_limit: seconds for the records solved on their own, all together; the records left when it ends
            drop their least important keys (``"greedy"``) and the result states a lower bound.
        nodes: the most branch-and-bound nodes of each record's integer programme (a deterministic budget).

    Example (the SDC practice guide's seven respondents: suppressing 'higher' of the first is the fewest):
        >>> rows = ["frh", "mrh", "mrh", "mrh", "frl", "frl", "frl"]
        >>> codes = np.array([[ord(c) for c in r] for r in rows])
        >>> s = suppress(codes, ["gender", "region", "education"], k=3)
        >>> s.cells, s.optimal
        ([(0, 2)], True)
    """
    if k is None and max_risk is None:
        raise PrivriskError("k: give k or max_risk as the target of the suppression", param="k")
    n = codes.shape[0]
    if k is not None and k > n:
        raise PrivriskError(f"k: {k} is larger than the file ({n:,} records)", param="k")
    order = list(keys) if importance is None else list(importance)
    if sorted(order) != sorted(keys):
        raise PrivriskError(f"importance: must list the keys {', '.join(keys)} once each", param="importance")
    least_first = [list(keys).index(name) for name in reversed(order)]
    w = None if weights is None else np.asarray(weights, dtype=float)
    limit = None if max_risk is None else np.full(n, float(max_risk))
    hh = None if households is None else np.asarray(households, dtype=np.int64)
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    plan = _Plan(codes, w, k, method, least_first, hh, max_patterns, nodes, deadline, _engine)
    masks, how, bound = plan.solve(limit)
    if hh is not None and max_risk is not None and limit is not None:
        # the household risk is part of the target: a household above it holds its members to a share each
        # (enough for the household, not proven necessary: the bound stays the one of the members alone)
        over = household_risk(_risks(codes, masks, w, method), hh) > max_risk
        if over.any():
            size = np.bincount(hh)[hh]
            limit = np.where(over, np.minimum(limit, 1.0 - (1.0 - float(max_risk)) ** (1.0 / size)), limit)
            masks, how_again, _ = plan.solve(limit)
            how = _worst([how, how_again])
    if hh is not None:
        masks = _close_households(codes, masks, hh)
    trial = _apply(codes, masks)
    chosen = [(int(r), int(j)) for r, j in zip(*np.nonzero((trial < 0) & (codes >= 0)), strict=True)]
    by_key = {name: sum(1 for _, j in chosen if j == i) for i, name in enumerate(keys)}
    bound = min(bound, len(chosen))
    return Suppression(trial, chosen, by_key, how, bound == len(chosen), bound, plan.tried,
                       len({r for r, _ in chosen}))  # fmt: skip


def _apply(codes: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The codes with each record's set of keys (a bit mask) suppressed."""
    bits = ((masks[:, None] >> np.arange(codes.shape[1])) & 1).astype(bool)
    return np.where(bits, -1, codes)


def _risks(codes: np.ndarray, masks: np.ndarray, w: np.ndarray | None, method: RiskMethod) -> np.ndarray:
    cells = cell_frequencies(_apply(codes, masks), w, missing="any")
    return individual_risk(cells.fk, cells.Fk, method=method)[cells.cell]


class _Plan:
    """The search of one file: each record's (or household's) fewest suppressions for a given risk limit."""

    def __init__(self, codes, w, k, method, least_first, hh, max_patterns, nodes=None, deadline=None,
                 engine="auto") -> None:  # fmt: skip
        self.codes, self.w, self.k, self.method = codes, w, k, method
        self.least_first, self.hh, self.max_patterns = least_first, hh, max_patterns
        self.nodes, self.deadline, self.engine = nodes, deadline, engine
        q = codes.shape[1]
        self.order = _pattern_order(least_first, q)
        self.observed = (codes >= 0) @ (np.int64(1) << np.arange(q, dtype=np.int64))
        self.shared = 0 if hh is None else _shared_keys(codes, hh)
        self.tried = 0

    def _records(self, rows, limit, shared=0, fixed=None):
        """Masks of ``rows``, how they were found (``"exact"``, ``"per-record"`` or ``"greedy"``), and a lower bound."""
        c = self
        chosen, tried, full_size = _search(c.codes, c.w, c.k, limit, c.method, c.order, rows, c.max_patterns,
                                           shared, fixed)  # fmt: skip
        self.tried += tried
        masks = chosen[rows]
        lost = masks < 0
        low = np.zeros(rows.size, dtype=np.int64)
        how: Literal["exact", "per-record", "greedy"] = "per-record" if lost.any() else "exact"
        start = 0 if fixed is None else fixed
        for i in np.flatnonzero(lost):
            found = self._fewest(rows[i], limit, shared, start)
            if found is None:
                masks[i] = _greedy_mask(c.codes, c.w, c.k, limit, c.method, c.least_first, rows[i], start)
                low[i] = 1  # at risk as it is: one key at least
                how = "greedy"
            else:
                masks[i], low[i] = found.mask, found.bound
        cost = _popcount(masks & c.observed[rows])
        # a record the search did not reach needs more than the largest size it tried in full
        low = np.where(lost, np.minimum(cost, np.maximum(low, full_size + 1)), cost)
        return masks, how, low

    def _fewest(self, r, limit, shared, fixed) -> RecordSuppression | None:
        """Record r's fewest suppressions past the search (None where they cannot be modelled: a risk target with
        weights past the table's keys, a spent time budget, or a household's shared part that cannot meet it)."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return None
        weighted = limit is not None and self.w is not None
        need = matches_needed(self.k, None if limit is None or weighted else float(limit[r]), self.method)
        return fewest_keys(self.codes, int(r), max(need, 1), self.least_first, on=fixed, off=shared & ~fixed,
                           nodes=self.nodes, deadline=self.deadline, engine=self.engine,
                           weights=self.w if weighted else None, limit=None if limit is None else float(limit[r]),
                           method=self.method)  # fmt: skip

    def solve(self, limit):
        n = self.codes.shape[0]
        g0, G0 = _counts(self.codes, 0, self.w)
        bad = np.flatnonzero(~_meets(g0, G0, self.k, limit, self.method))
        masks = np.zeros(n, dtype=np.int64)
        if bad.size == 0:
            return masks, "exact", 0
        if self.hh is None or self.shared == 0:
            found, how, low = self._records(bad, limit)
            masks[bad] = found
            return masks, how, int(low.sum())
        return self._households(bad, limit)

    def _households(self, bad, limit):
        """For every subset of the shared keys, each member at risk takes its fewest own suppressions; the
        household takes the subset of least total (a member not at risk loses only the shared keys)."""
        q = self.codes.shape[1]
        bits = [j for j in range(q) if (self.shared >> j) & 1]
        subsets = sorted((sum(1 << bits[i] for i in range(len(bits)) if (s >> i) & 1) for s in range(1 << len(bits))),
                         key=lambda m: (bin(m).count("1"), m))  # fmt: skip
        hh = self.hh
        assert hh is not None
        rows = np.flatnonzero(np.isin(hh, hh[bad]))
        cost = np.zeros((rows.size, len(subsets)), dtype=np.int64)
        low = np.zeros((rows.size, len(subsets)), dtype=np.int64)
        mask = np.zeros((rows.size, len(subsets)), dtype=np.int64)
        at_risk = np.isin(rows, bad)
        hows: list[str] = ["exact"]
        for si, sub in enumerate(subsets):
            mask[~at_risk, si] = sub
            if at_risk.any():
                found, how, lo = self._records(rows[at_risk], limit, self.shared, sub)
                mask[at_risk, si] = found | sub
                low[at_risk, si] = lo
                hows.append(how)
            cost[:, si] = _popcount(mask[:, si] & self.observed[rows])
            low[~at_risk, si] = cost[~at_risk, si]
        masks = np.zeros(self.codes.shape[0], dtype=np.int64)
        bound = 0
        ids = hh[rows]
        for h in np.unique(ids):
            mine = ids == h
            si = int(np.argmin(cost[mine].sum(axis=0)))  # ties keep the fewer shared suppressions
            masks[rows[mine]] = mask[mine, si]
            bound += int(low[mine].sum(axis=0).min())
        return masks, _worst(hows), bound


def _worst(hows) -> Literal["exact", "per-record", "greedy"]:
    """The weakest of the ways records were found: greedy, then the per-record solver, then the search."""
    return "greedy" if "greedy" in hows else "per-record" if "per-record" in hows else "exact"


def _shared_keys(codes: np.ndarray, hh: np.ndarray) -> int:
    """The keys every household shows with one value (a bit mask)."""
    out = 0
    for j in range(codes.shape[1]):
        col = codes[:, j]
        if (col >= 0).all() and (pd.Series(col).groupby(hh).nunique() <= 1).all():
            out |= 1 << j
    return out


def _close_households(codes: np.ndarray, masks: np.ndarray, hh: np.ndarray) -> np.ndarray:
    """Suppress a key for every member of a household that shows it with one value, once one member loses it."""
    out = masks.copy()
    for j in range(codes.shape[1]):
        col = pd.Series(codes[:, j])
        constant = (col.groupby(hh).transform("nunique") <= 1).to_numpy() & (codes[:, j] >= 0)
        hit = ((masks >> j) & 1).astype(bool) & constant
        out[constant & np.isin(hh, np.unique(hh[hit]))] |= 1 << j
    return out


def suppress_microdata(result: MicrodataResult, *, importance: list[str] | None = None,
                       max_patterns: int = MAX_PATTERNS) -> tuple[Suppression, MicrodataResult]:  # fmt: skip
    """Local suppression towards the settings' ``k`` and ``max_risk`` (with households, by household), and the
    suppressed file measured again.

    Example:
        >>> from privrisk.microdata import MicrodataSettings, measure_microdata
        >>> frame = pd.DataFrame({"sex": list("mmmff"), "age": [30, 30, 40, 50, 50]})
        >>> before = measure_microdata(frame, MicrodataSettings(keys="sex,age", k=2))
        >>> s, after = suppress_microdata(before)
        >>> s.cells, after.measures["k_anonymity"]["k"], after.failures()
        ([(2, 1)], 2, [])
    """
    from privrisk.microdata.measure import measure_microdata

    st = result.settings
    if st.k is None and st.max_risk is None:
        raise PrivriskError("k: give k or max_risk as the target of the suppression", param="k")
    codes = key_codes(result.frame, st.keys)
    w = None if st.weights is None else result.frame[st.weights].to_numpy(dtype=float)
    hh = None
    if st.household is not None:
        hh = np.asarray(pd.factorize(result.frame[st.household])[0], dtype=np.int64)
    keys = list(st.keys)
    s = suppress(codes, keys, weights=w, k=st.k, max_risk=st.max_risk, importance=importance,
                 method=st.method, households=hh, max_patterns=max_patterns)  # fmt: skip
    frame = s.apply(result.frame, keys)
    return s, measure_microdata(frame, st)
