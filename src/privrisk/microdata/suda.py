"""Special uniques: SUDA2's minimal sample uniques, SUDA and DIS-SUDA scores (Elliot et al.; sdcMicro ``suda2``).

A minimal sample unique (MSU) of a record is a set S of keys on which the record's values are unique in the
sample while on every proper subset of S they are not. Uniqueness only grows with S, so S is minimal exactly when
the record is unique on S and on none of the sets S minus one key; the search goes through the key sets of size
1, 2, …, ``max_size`` and keeps one boolean per record and set (Manning, Haglin and Keane 2008 find the same MSUs
recursively).

An MSU of size k among ATT keys scores Π_{i=k}^{M−1} (ATT − i) with M the largest size searched (Elliot et al.,
"SUDA: a program for detecting special uniques"); with M = ATT this is (ATT − k)!, sdcMicro's ``suda2`` with
``original_scores = TRUE``. A record's SUDA score is the sum over its MSUs. Its DIS-SUDA score, as sdcMicro's
``Suda2.h``, is 1 / (1 + (U/DIS − U) / (score^Q · Σ_j score_j^{−Q})) with U the records unique on all keys,
DIS = U·f / (U·f + P·(1 − f)), P the records in pairs on all keys, f the sampling fraction (``dis_fraction``)
and Q = 1 + (8 − ATT)/20. ``original_scores=False`` scores an MSU of size k by (2^{ATT−k} − 1) / C(ATT, k), the
IHSN's first implementation (sdcMicro's ``original_scores = FALSE``, the scores the SDC practice guide prints).

A missing key value is read as the rest of the measures read it (``missing``): with ``"any"`` (sdcMicro's reading)
it matches any value, so a record is unique on a set of keys only if no other record agrees with it where both
show a value, and a missing value never makes an MSU; with ``"category"`` it is a value of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from privrisk.microdata.frequencies import MissingRule, cell_frequencies, combine_codes

__all__ = ["Suda", "suda2"]


@dataclass(frozen=True, eq=False)
class Suda:
    """SUDA2 of a sample.

    Attributes:
        keys: the key names.
        max_size: the largest MSU size searched.
        msu_counts: records × sizes: how many MSUs of size 1, …, max_size each record has.
        score: the SUDA score of each record.
        dis_score: the DIS-SUDA score of each record.
        contribution: records × keys: how many of each record's MSUs use each key.
    """

    keys: tuple[str, ...]
    max_size: int
    msu_counts: np.ndarray
    score: np.ndarray
    dis_score: np.ndarray
    contribution: np.ndarray

    def summary(self) -> dict[str, object]:
        """Counts of records with MSUs, by smallest MSU size, and the largest scores."""
        has = self.msu_counts.sum(axis=1) > 0
        smallest = np.where(has, np.argmax(self.msu_counts > 0, axis=1) + 1, 0)
        return {
            "max_size": self.max_size,
            "records_with_msu": int(has.sum()),
            "records_by_smallest_msu": {str(k): int((smallest == k).sum()) for k in range(1, self.max_size + 1)},
            "msus_by_size": {str(k): int(self.msu_counts[:, k - 1].sum()) for k in range(1, self.max_size + 1)},
            "max_score": float(self.score.max()) if self.score.size else 0.0,
            "max_dis_score": float(self.dis_score.max()) if self.dis_score.size else 0.0,
        }


def suda2(codes: np.ndarray, keys: tuple[str, ...] | list[str], *, max_size: int | None = None,
          dis_fraction: float = 0.01, missing: MissingRule = "any", original_scores: bool = True) -> Suda:  # fmt: skip
    """Minimal sample uniques up to ``max_size`` keys, SUDA and DIS-SUDA scores (module docstring).

    Args:
        codes: key codes (n × q) from :func:`privrisk.microdata.frequencies.key_codes` (−1: missing, a value).
        keys: the key names.
        max_size: the largest MSU size (default: all keys).
        dis_fraction: the sampling fraction f of DIS-SUDA (sdcMicro's ``DisFraction``, default 0.01).
        missing: ``"any"`` (a missing value matches any value) or ``"category"``.
        original_scores: Elliot et al.'s scores (True) or the IHSN's (module docstring).

    Example (the book example of sdcMicro's ``test_suda2.R``: SUDA scores of records 5 to 8 are 4, 2, 6, 8):
        >>> rows = [("20s", "m", "50k+", "hs"), ("20s", "m", "50k+", "hs"), ("20s", "m", "50k-", "hs"),
        ...         ("20s", "m", "50k-", "hs"), ("20s", "f", "50k-", "uni"), ("20s", "f", "50k-", "hs"),
        ...         ("20s", "f", "50k-", "ms"), ("60s", "m", "50k-", "uni")]
        >>> import pandas as pd
        >>> codes = np.column_stack([pd.factorize(np.array(c))[0] for c in zip(*rows)])
        >>> suda2(codes, ["age", "gender", "income", "education"]).score[4:].tolist()
        [4.0, 2.0, 6.0, 8.0]

    The SDC practice guide's ten records (residence, gender, education, labour status) with the IHSN's scores:
        >>> ten = [("u", "f", "si", "e"), ("u", "f", "si", "e"), ("u", "f", "pi", "n"), ("u", "m", "sc", "e"),
        ...        ("r", "f", "sc", "u"), ("u", "m", "sc", "e"), ("u", "f", "pc", "n"), ("u", "m", "ps", "u"),
        ...        ("u", "f", "si", "n"), ("u", "f", "si", "n")]
        >>> codes = np.column_stack([pd.factorize(np.array(c))[0] for c in zip(*ten)])
        >>> s = suda2(codes, ["residence", "gender", "education", "labour"], original_scores=False)
        >>> s.score.tolist(), s.dis_score[:5].round(9).tolist()
        ([0.0, 0.0, 1.75, 0.0, 3.25, 0.0, 1.75, 2.75, 0.0, 0.0], [0.0, 0.0, 0.005120313, 0.0, 0.010702061])
    """
    n, att = codes.shape
    size_max = att if max_size is None else int(max_size)
    shifted = codes + 1
    unique: dict[tuple[int, ...], np.ndarray] = {}
    msu_counts = np.zeros((n, size_max), dtype=np.int64)
    contribution = np.zeros((n, att), dtype=np.int64)
    wildcard = missing == "any" and bool((codes < 0).any())
    for k in range(1, size_max + 1):
        for subset in combinations(range(att), k):
            if wildcard:
                is_unique = cell_frequencies(codes[:, subset], missing="any").record_fk == 1
            else:
                ids = combine_codes(shifted[:, subset])
                is_unique = np.bincount(ids)[ids] == 1
            unique[subset] = is_unique
            minimal = is_unique.copy()
            if k > 1:
                for drop in range(k):
                    minimal &= ~unique[subset[:drop] + subset[drop + 1 :]]
            msu_counts[:, k - 1] += minimal
            contribution[:, list(subset)] += minimal[:, None]
        # sets of size k − 2 are no longer needed
        for subset in [s for s in unique if len(s) < k - 1]:
            del unique[subset]
    if original_scores:
        weights = np.array([math.prod(att - i for i in range(k, size_max)) for k in range(1, size_max + 1)],
                           dtype=float)  # fmt: skip
    else:
        weights = np.array([(2.0 ** (att - k) - 1) / math.comb(att, k) for k in range(1, size_max + 1)])
    score = msu_counts @ weights
    fk = cell_frequencies(codes, missing="any" if wildcard else "category").record_fk
    uniques_all = int((fk == 1).sum())
    pairs = int((fk == 2).sum())
    dis_score = _dis_suda(score, uniques_all, pairs, dis_fraction, att)
    return Suda(tuple(keys), size_max, msu_counts, score, dis_score, contribution)


def _dis_suda(score: np.ndarray, uniques: int, pairs: int, fraction: float, att: int) -> np.ndarray:
    """DIS-SUDA scores as sdcMicro's ``Suda2.h`` (module docstring)."""
    if uniques == 0 or not (score > 0).any():
        return np.zeros_like(score)
    dis = uniques * fraction / (uniques * fraction + pairs * (1 - fraction))
    q = 1.0 + (8.0 - att) / 20.0
    pos = score > 0
    adj = float(np.sum(score[pos] ** -q))
    out = np.zeros_like(score)
    out[pos] = 1.0 / (1.0 + (uniques / dis - uniques) / (score[pos] ** q * adj))
    return out
