"""Solutions next to the truth from small programmes: each total pushed as far as it goes while only the unknowns
around it may change.

A released system of 10⁵ atoms splits into blocks of 25,000 unknowns and 8,752 equations, on which one linear
programme takes seconds (the large request of ``benchmarks/outputs.py``). To show that a group's total is *not*
pinned down, a point that reaches far enough is all that is needed, not the optimum. Hold every unknown at its true
value except a few around the group (the group's own and those the moves of :mod:`privrisk.outputs.moves` through
it touch): every equation that meets them keeps the total it has at the truth, so

    max Σ g·x   over   A[:, S]·x_S = A[:, S]·known_S,   lower_S ≤ x_S ≤ upper_S

is a programme of a few hundred unknowns, and its optimum, put back into the truth, solves the whole system. Its
value is reached, so it certifies like a move (it is never a bound: the whole system may reach further). Where
some of S must be whole, a point counts only when the linear optimum is whole there. The caller checks every point
against the released equations before it counts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privrisk.solver import Program

__all__ = ["nearby_points"]

# Unknowns one small programme may change, and the simplex iterations it may take.
SUPPORT = 2_000
ITERATIONS = 5_000


def _around(
    gain_row: tuple[np.ndarray, np.ndarray], pool: sp.csr_matrix, own: np.ndarray, limit: int
) -> np.ndarray:
    """The group's unknowns and those of the moves through it, the moves that change its total most first."""
    js, change = gain_row
    order = js[np.argsort(-np.abs(change), kind="stable")]
    parts = [own]
    count = own.size
    for j in order.tolist():
        at = pool.indices[pool.indptr[j] : pool.indptr[j + 1]]
        if count + at.size > limit:
            break
        parts.append(at)
        count += at.size
    return np.unique(np.concatenate(parts))


def nearby_points(
    a: sp.csr_matrix,
    known: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    integer: np.ndarray,
    g: sp.csr_matrix,
    pool: sp.csr_matrix,
    *,
    support: int = SUPPORT,
    iterations: int = ITERATIONS,
) -> sp.csr_matrix:
    """For each row of ``g``, a change to ``known`` that raises that total as far as a programme over the unknowns
    around it reaches (one row per total, zeros where it found nothing). ``a``: the equations ``known`` solves;
    ``pool``: moves (rows over the unknowns) whose supports say which unknowns are around a total.

    Example:
        >>> # x0 + x1 = 4 and x2 + x3 = 6; the group x0 + x2 (1 + 2) may take everyone: 10.
        >>> a = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]]))
        >>> pool = sp.csr_matrix(np.array([[1.0, -1, 0, 0], [0, 0, 1, -1]]))
        >>> known = np.array([1.0, 3, 2, 4])
        >>> g = sp.csr_matrix(np.array([[1.0, 0, 1, 0]]))
        >>> d = nearby_points(a, known, np.zeros(4), np.full(4, np.inf), np.ones(4, bool), g, pool)
        >>> (known + d.toarray()[0]).tolist()
        [4.0, 0.0, 6.0, 0.0]
    """
    a_csc = sp.csc_matrix(a)
    g = sp.csr_matrix(g)
    n = a.shape[1]
    gain = sp.csr_matrix(g @ pool.T) if pool.shape[0] else sp.csr_matrix((g.shape[0], 0))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for i in range(g.shape[0]):
        own = g.indices[g.indptr[i] : g.indptr[i + 1]]
        weights = g.data[g.indptr[i] : g.indptr[i + 1]]
        if own.size == 0 or own.size > support:
            continue
        span = (
            gain.indices[gain.indptr[i] : gain.indptr[i + 1]],
            gain.data[gain.indptr[i] : gain.indptr[i + 1]],
        )
        s = _around(span, pool, own, support)
        cut = sp.csr_matrix(a_csc[:, s])  # only the entries in S: a margin's row holds thousands of others
        sub = cut[np.flatnonzero(np.diff(cut.indptr))]
        rhs = sub @ known[s]
        whole = integer[s]
        prog = Program(sub, rhs, rhs, lower=lower[s], upper=upper[s], primal=False, presolve=True)
        sol = prog.maximise(np.searchsorted(s, own), weights, iterations=iterations)
        if sol.status != "optimal" or sol.x is None:
            continue
        x = sol.x
        if whole.any():
            if not np.all(np.abs(x[whole] - np.round(x[whole])) <= 1e-6):
                continue
            x = np.where(whole, np.round(x), x)
        change = x - known[s]
        nz = np.abs(change) > 1e-9 * np.maximum(1.0, np.abs(known[s]))
        if not nz.any():
            continue
        rows.append(np.full(int(nz.sum()), i))
        cols.append(s[nz])
        vals.append(change[nz])
    if not rows:
        return sp.csr_matrix((g.shape[0], n))
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(g.shape[0], n)
    )
