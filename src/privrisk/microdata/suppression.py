"""Local suppression: the fewest key values set to missing, in an importance order, to reach k-anonymity or a
largest individual risk (as sdcMicro's ``localSuppression``, with missing values matching any value).

A suppressed value matches every value, so it raises the f_k of its own record and of the records it now
matches, never lowers one; a record with every key suppressed matches the whole file. The target is therefore
always reachable when the file holds at least k records.

- ``exact``: sets of cells are tried by increasing size until one meets the target, the cells of the records
  that miss it first, of the least important keys first. The first set found is a smallest one (no solution with
  fewer suppressions exists) and, among the smallest, prefers the records at risk and the least important keys. Used while the number of sets to try
  stays under ``max_sets``.
- ``greedy`` (otherwise): round by round, every record that still misses the target loses its least important
  key value that is not yet missing, then the frequencies are measured again. Not proven minimal (the result
  says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata.frequencies import cell_frequencies, key_codes
from privrisk.microdata.risk import RiskMethod, individual_risk

if TYPE_CHECKING:
    from privrisk.microdata.measure import MicrodataResult

__all__ = ["Suppression", "suppress", "suppress_microdata"]

MAX_SETS = 20_000


@dataclass(frozen=True, eq=False)
class Suppression:
    """The result of :func:`suppress`.

    Attributes:
        codes: the key codes after suppression (−1 missing).
        cells: the suppressed (record, key index) pairs.
        by_key: how many values of each key were suppressed.
        method: ``"exact"`` or ``"greedy"``.
        optimal: whether no solution with fewer suppressions exists (True for ``exact``).
    """

    codes: np.ndarray
    cells: list[tuple[int, int]]
    by_key: dict[str, int]
    method: Literal["exact", "greedy"]
    optimal: bool

    def apply(self, frame: pd.DataFrame, keys: tuple[str, ...] | list[str]) -> pd.DataFrame:
        """A copy of ``frame`` with the suppressed key values set to missing."""
        out = frame.copy()
        for j, key in enumerate(keys):
            rows = [r for r, c in self.cells if c == j]
            if rows:
                out[key] = out[key].astype(object)
                out.loc[out.index[rows], key] = None
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"suppressed": len(self.cells), "by_key": self.by_key, "method": self.method,
                "optimal": self.optimal}  # fmt: skip


def _meets(codes, weights, k, max_risk, method) -> np.ndarray:
    """Whether each record meets the target (f_k ≥ k and/or individual risk ≤ max_risk)."""
    cells = cell_frequencies(codes, weights, missing="any")
    ok = np.ones(codes.shape[0], dtype=bool)
    if k is not None:
        ok &= cells.record_fk >= k
    if max_risk is not None:
        ok &= individual_risk(cells.fk, cells.Fk, method=method)[cells.cell] <= max_risk
    return ok


def suppress(codes: np.ndarray, keys: tuple[str, ...] | list[str], *, weights: np.ndarray | None = None,
             k: int | None = None, max_risk: float | None = None, importance: list[str] | None = None,
             method: RiskMethod = "approx", max_sets: int = MAX_SETS) -> Suppression:  # fmt: skip
    """Set the fewest key values to missing so that every record meets the target (module docstring).

    Args:
        codes: key codes (n × q) from :func:`privrisk.microdata.frequencies.key_codes`.
        keys: the key names.
        weights: sampling weights (for a risk target).
        k: every record's f_k must be at least k.
        max_risk: every record's individual risk must be at most this.
        importance: the keys from the most to the least important (the least important are suppressed first);
            default: the order of ``keys``.
        method: the individual risk's method.
        max_sets: the most sets of cells the exact search may try.

    Example:
        >>> codes = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [1, 1]])
        >>> s = suppress(codes, ["sex", "age"], k=2)
        >>> s.cells, s.optimal
        ([(2, 1)], True)
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
    ok = _meets(codes, weights, k, max_risk, method)
    if ok.all():
        return Suppression(codes.copy(), [], dict.fromkeys(keys, 0), "exact", True)
    # the cells of records that miss the target first (as sdcMicro suppresses only there), then the others' — a
    # value suppressed elsewhere can help too, by matching more records; within each, least important keys first
    candidates = [(int(r), j) for group in (~ok, ok) for j in least_first
                  for r in np.flatnonzero(group & (codes[:, j] >= 0))]  # fmt: skip
    budget, size = 0, 0
    while size < len(candidates):
        size += 1
        budget += comb(len(candidates), size)
        if budget > max_sets:
            break
        for chosen in combinations(candidates, size):
            trial = codes.copy()
            for r, j in chosen:
                trial[r, j] = -1
            if _meets(trial, weights, k, max_risk, method).all():
                return _result(trial, list(chosen), keys, "exact", True)
    return _greedy(codes, keys, weights, k, max_risk, method, least_first)


def _greedy(codes, keys, weights, k, max_risk, method, least_first) -> Suppression:
    trial = codes.copy()
    chosen: list[tuple[int, int]] = []
    while True:
        bad = np.flatnonzero(~_meets(trial, weights, k, max_risk, method))
        if bad.size == 0:
            break
        for r in bad:
            j = next((j for j in least_first if trial[r, j] >= 0), None)
            if j is None:
                raise PrivriskError("max_risk: cannot be reached even with every key value suppressed",
                                    param="max_risk")  # fmt: skip
            trial[r, j] = -1
            chosen.append((int(r), int(j)))
    return _result(trial, chosen, keys, "greedy", False)


def _result(trial, chosen, keys, method, optimal) -> Suppression:
    by_key = {name: sum(1 for _, j in chosen if j == i) for i, name in enumerate(keys)}
    return Suppression(trial, sorted(chosen), by_key, method, optimal)


def suppress_microdata(result: MicrodataResult, *, importance: list[str] | None = None,
                       max_sets: int = MAX_SETS) -> tuple[Suppression, MicrodataResult]:  # fmt: skip
    """Local suppression towards the settings' ``k`` and ``max_risk``, and the suppressed file measured again.

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
    keys = list(st.keys)
    s = suppress(codes, keys, weights=w, k=st.k, max_risk=st.max_risk, importance=importance,
                 method=st.method, max_sets=max_sets)  # fmt: skip
    frame = s.apply(result.frame, keys)
    return s, measure_microdata(frame, st)
