"""The counts of the released means' groups that the released counts determine.

A mean m of a group is released as the equation sum − m × count = 0. Where the released counts determine the
group's count c (its interval over the counts' region is one value), the mean is a sum: sum = m × c, which keeps
the counts' system apart from the sums' (:mod:`privrisk.outputs.differencing`). A group that is itself a released
count (a row of the counts' system with a 1 at exactly its atoms) is read off that equation; the others need the
counts' region (:class:`~privrisk.outputs.intervals.Region`), whose programmes over every unknown are the costly
part of a large request.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from privrisk.outputs.intervals import Region

__all__ = ["mean_counts", "released_counts"]


def mean_counts(
    a: sp.csr_matrix,
    b: np.ndarray,
    truth: np.ndarray,
    means: list[tuple[sp.csr_matrix, np.ndarray, Any]],
    names: list[set[str]],
    count_moves: sp.csr_matrix,
) -> dict[bytes, tuple[float, set[str]]]:
    """The groups of the released means whose count the released counts determine: their atoms (as bytes of
    sorted indices) → (count, the outputs whose equations give it).

    ``a``·x = ``b`` are the released counts over the atoms' counts x (whole, ≥ 0; ``truth`` is one solution),
    ``means`` the mean tables' (cells × atoms incidence, released values, cells), ``names[e]`` the outputs of
    equation e, ``count_moves`` whole solutions as changes to the truth.

    Example:
        >>> a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]))  # x0 + x1 = 3, all = 5
        >>> groups = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
        >>> got = mean_counts(a, np.array([3.0, 5.0]), np.array([1.0, 2.0, 2.0]), [(groups, np.ones(3), None)],
        ...                   [{"A"}, {"B"}], sp.csr_matrix((0, 3)))
        >>> sorted(v[0] for v in got.values())  # x0 + x1 (its own equation) and x2 (= 5 − 3); x0 is open
        [2.0, 3.0]
    """
    groups: dict[bytes, np.ndarray] = {}
    for mat, values, _cells in means:
        for i in np.flatnonzero(np.isfinite(values)).tolist():
            members = np.sort(mat.indices[mat.indptr[i] : mat.indptr[i + 1]]).astype(np.int64)
            if members.size:
                groups.setdefault(members.tobytes(), members)
    if not groups or a.shape[0] == 0:
        return {}
    out = released_counts(a, b, groups, names)
    groups = {k: v for k, v in groups.items() if k not in out}
    if not groups:
        return out
    n = truth.size
    region = Region(a, b, lower=np.zeros(n), integer=np.ones(n, dtype=bool), known=truth)
    region.moves = count_moves
    keys = list(groups)
    r = np.concatenate([np.full(groups[k].size, i) for i, k in enumerate(keys)])
    c = np.concatenate([groups[k] for k in keys])
    g = sp.csr_matrix((np.ones(c.size), (r, c)), shape=(len(keys), n))

    def need(e: Any) -> tuple[np.ndarray, np.ndarray]:
        same = e.seen_lo >= e.seen_hi
        return same, same

    ends = region.extremes(g, need=need)
    for i, k in enumerate(keys):
        if ends.lo_exact[i] and ends.hi_exact[i] and ends.lo[i] == ends.hi[i]:
            used = region.why(groups[k], np.ones(groups[k].size), ends, i)
            out[k] = (float(ends.lo[i]), {x for e in used for x in names[e]})
    return out


def released_counts(
    a: sp.csr_matrix, b: np.ndarray, groups: dict[bytes, np.ndarray], names: list[set[str]]
) -> dict[bytes, tuple[float, set[str]]]:
    """The groups (atoms as bytes of sorted indices) that are themselves a released count: a row of ``a`` with
    a 1 at exactly their atoms (a cell, or a row or column a table leaves out, whose total is 0). That equation
    alone determines the count (no programme needed): group → (its value, the outputs that released it).

    Example:
        >>> a = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]))
        >>> members = np.array([0, 1], dtype=np.int64)
        >>> released_counts(a, np.array([3.0, 5.0]), {members.tobytes(): members}, [{"A"}, {"B"}])
        {b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00': (3.0, {'A'})}
    """
    out: dict[bytes, tuple[float, set[str]]] = {}
    a = sp.csr_matrix(a)
    a.sort_indices()
    for e in range(a.shape[0]):
        lo, hi = a.indptr[e], a.indptr[e + 1]
        if hi == lo or not np.all(a.data[lo:hi] == 1.0):
            continue
        key = a.indices[lo:hi].astype(np.int64).tobytes()
        if key in groups and key not in out:
            out[key] = (float(b[e]), set(names[e]))
    return out
