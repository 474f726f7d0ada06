"""PRAM (the post-randomisation method of sdcMicro's ``pram``) as a guarantee: randomised response with a matrix.

Each released record's category i of a variable is replaced by k with probability P[i, k] (a row-stochastic
transition matrix, one per variable; Gouweleeuw et al. 1998). Neighbours are **bounded**: one person's record
is replaced by another (the file keeps its size), so a pair of neighbours is the pair of rows (i, j) of the
person's two possible categories, seen through every category k it may be published as. PRAM is then
randomised response (Warner 1965; Wang, Wu and Hu 2016), and its guarantee is exact:

- ε = max over k of ln(max_i P[i, k] / min_j P[j, k]), +∞ (with δ > 0) when some category k can come from one
  category and not from another;
- the privacy profile and the trade-off curve are those of the worst pair of rows
  (:class:`~privrisk.accounting.pairwise.PairFamily`); for P[i, i] = p and P[i, k] = (1 − p)/(K − 1) it is
  K-ary randomised response with e^ε = p(K − 1)/(1 − p) (:mod:`~privrisk.accounting.kary`).

Variables randomised independently compose (:func:`pram_guarantee` with several matrices): a replaced record
changes the person's value on every variable at once, and each variable's randomness is its own.

Example:
    >>> g = pram_guarantee([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    >>> round(g.pure_epsilon, 4)                                       # ln 8
    2.0794
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.pairwise import Pair, PairFamily, compose_pairs
from privrisk.errors import PrivriskError

__all__ = ["PramMatrix", "pram_epsilon", "pram_guarantee", "transition_matrix"]

# Rows of a transition matrix must sum to 1 within this (sdcMicro prints matrices to a few digits).
ROW_TOLERANCE = 1e-6


def transition_matrix(matrix: ArrayLike, *, name: str = "matrix", param: str = "matrix") -> np.ndarray:
    """A checked K × K transition matrix: K ≥ 2, entries in [0, 1], rows summing to 1 (then normalised).

    Raises:
        PrivriskError: (param ``name``) naming the row that breaks a rule.

    Example:
        >>> transition_matrix([[0.5, 0.5], [0.2, 0.7]])
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: matrix: row 2 sums to 0.9, not 1
    """
    try:
        m = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: give a square matrix of probabilities", param=param) from None
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
        raise PrivriskError(f"{name}: give a square matrix of at least 2 × 2 probabilities, got shape {m.shape}",
                            param=param)  # fmt: skip
    if not np.all(np.isfinite(m)) or m.min() < 0 or m.max() > 1:
        raise PrivriskError(f"{name}: every entry must be a probability in [0, 1]", param=param)
    sums = m.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_TOLERANCE)
    if bad.size:
        raise PrivriskError(f"{name}: row {bad[0] + 1} sums to {sums[bad[0]]:.6g}, not 1", param=param)
    return m / sums[:, None]


def pram_epsilon(matrix: ArrayLike) -> float:
    """ε = max over k of ln(max_i P[i, k] / min_j P[j, k]); +∞ when a column has a 0 beside a positive entry.

    Example:
        >>> round(pram_epsilon([[0.75, 0.25], [0.25, 0.75]]), 6) == round(math.log(3), 6)
        True
        >>> pram_epsilon([[1.0, 0.0], [0.5, 0.5]])
        inf
    """
    m = transition_matrix(matrix)
    top, low = m.max(axis=0), m.min(axis=0)
    used = top > 0
    if np.any(low[used] == 0):
        return math.inf
    return float(np.max(np.log(top[used]) - np.log(low[used]), initial=0.0))


@dataclass(frozen=True, eq=False)
class PramMatrix(PairFamily):
    """One variable randomised with a transition matrix (module docstring); bounded neighbours.

    Attributes:
        matrix: the K × K transition matrix, as nested tuples (row i: P[i, ·]).
        variable: the variable's name, for labels.
    """

    matrix: tuple[tuple[float, ...], ...] = ((1.0, 0.0), (0.0, 1.0))
    variable: str = ""

    def _pairs(self) -> Iterator[Pair]:
        m = np.asarray(self.matrix, dtype=float)
        for i in range(m.shape[0]):
            for j in range(i + 1, m.shape[0]):
                yield m[i], m[j]

    @property
    def label(self) -> str:
        k = len(self.matrix)
        which = f" of {self.variable}" if self.variable else ""
        return f"PRAM{which} with a {k} × {k} transition matrix (replace-one neighbours)"

    @property
    def conversion(self) -> str:
        return "exact: the worst pair of the matrix's rows, as randomised response (replace-one neighbours)"


def pram_guarantee(
    matrices: ArrayLike | Sequence[ArrayLike], *, variables: Sequence[str] | None = None
) -> Guarantee:
    """PRAM of one variable (a K × K matrix) or of several randomised independently (a list of matrices, composed).

    Args:
        matrices: a transition matrix, or one per variable.
        variables: the variables' names, for labels and messages.

    Raises:
        PrivriskError: (param ``matrix``) naming the variable whose matrix is not a transition matrix.

    Example:
        >>> two = pram_guarantee([[[0.9, 0.1], [0.1, 0.9]], [[0.8, 0.2], [0.2, 0.8]]], variables=["sex", "smoker"])
        >>> two.delta_at(0.0) > pram_guarantee([[0.9, 0.1], [0.1, 0.9]]).delta_at(0.0)
        True
    """
    items: list[Any] = list(matrices) if _several(matrices) else [matrices]  # type: ignore[arg-type]
    names = list(variables) if variables is not None else [""] * len(items)
    if len(names) != len(items):
        raise PrivriskError(f"variables: {len(names)} names for {len(items)} matrices", param="variables")
    parts: list[tuple[PairFamily, int]] = []
    for m, name in zip(items, names, strict=True):
        checked = transition_matrix(m, name=f"matrix of {name}" if name else "matrix")
        parts.append(
            (PramMatrix(matrix=tuple(tuple(float(x) for x in row) for row in checked), variable=name), 1)
        )
    if len(parts) == 1:
        return parts[0][0]
    return compose_pairs(parts, name=f"PRAM of {len(parts)} variables")


def _several(matrices: object) -> bool:
    """Whether ``matrices`` is a list of matrices (one per variable) rather than one matrix."""
    if isinstance(matrices, np.ndarray):
        return matrices.ndim == 3
    if not isinstance(matrices, Sequence) or not matrices:
        return False
    first = matrices[0]
    return isinstance(first, np.ndarray | Sequence) and len(first) > 0 and np.ndim(first[0]) == 1
