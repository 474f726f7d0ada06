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

import csv
import math
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.pairwise import Pair, PairFamily, compose_pairs
from privrisk.errors import PrivriskError

__all__ = [
    "PramMatrix",
    "pram_epsilon",
    "pram_guarantee",
    "pram_matrices_from_text",
    "read_pram_matrices",
    "transition_matrix",
]

# Rows of a transition matrix must sum to 1 within this (sdcMicro prints matrices to a few digits).
ROW_TOLERANCE = 1e-6
#: The largest matrix file read (a 1,000 × 1,000 matrix printed to 8 digits is about 10 MB).
MAX_MATRIX_BYTES = 16 * 1024 * 1024


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


def read_pram_matrices(path: str | os.PathLike[str], *, param: str = "pram") -> dict[str, np.ndarray]:
    """The transition matrices of a file: a CSV of one K × K matrix (sdcMicro's, as ``write.csv`` saves it, with or
    without a header of categories and a first column of them; ``,`` or ``;``), or a TOML with one matrix per
    variable (``sex = [[0.9, 0.1], [0.1, 0.9]]``, or ``[sex]`` with ``matrix = …``). Each is checked
    (:func:`transition_matrix`); the CSV's one variable is named after the file.

    Raises:
        PrivriskError: (``param``) for a missing file, one that is not a regular file, or text that is not a
            transition matrix (naming the variable and the row).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "sex.csv"
        >>> _ = p.write_text(',"f","m"\\n"f",0.9,0.1\\n"m",0.1,0.9\\n')
        >>> {k: v.tolist() for k, v in read_pram_matrices(p).items()}
        {'sex': [[0.9, 0.1], [0.1, 0.9]]}
    """
    from pathlib import Path

    from privrisk.io.files import read_regular_file

    p = Path(path)
    try:
        raw = read_regular_file(p, MAX_MATRIX_BYTES, what="the transition matrix", param=param)
    except FileNotFoundError:
        raise PrivriskError(f"{param}: {p}: no such file", param=param) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PrivriskError(f"{param}: {p}: not UTF-8 text", param=param) from None
    kind = "toml" if p.suffix.lower() == ".toml" else "csv"
    return pram_matrices_from_text(text, kind=kind, name=p.stem, param=param)


def pram_matrices_from_text(
    text: str, *, kind: str = "csv", name: str = "matrix", param: str = "pram"
) -> dict[str, np.ndarray]:
    """The checked transition matrices of a CSV (one, named ``name``) or a TOML (one per variable).

    Example:
        >>> m = pram_matrices_from_text("sex = [[0.9, 0.1], [0.1, 0.9]]", kind="toml")
        >>> list(m), m["sex"][0].tolist()
        (['sex'], [0.9, 0.1])
    """
    raw: dict[str, Any] = (
        _toml_matrices(text, name, param) if kind == "toml" else {name: _csv_matrix(text, name, param)}
    )
    return {
        variable: transition_matrix(m, name=f"{param}: the matrix of {variable}", param=param)
        for variable, m in raw.items()
    }


def _csv_matrix(text: str, name: str, param: str) -> list[list[float]]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise PrivriskError(f"{param}: {name}: the file is empty", param=param)
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    rows = [[cell.strip() for cell in row] for row in csv.reader(lines, delimiter=delimiter)]

    def number(cell: str) -> float | None:
        try:
            return float(cell)
        except ValueError:
            return None

    if all(number(cell) is None for cell in rows[0]):  # a header of categories
        rows = rows[1:]
    matrix = []
    for line, row in enumerate(rows, start=len(lines) - len(rows) + 1):
        if row and number(row[0]) is None:  # the row's category
            row = row[1:]
        values = [number(cell) for cell in row]
        if not values or any(v is None for v in values):
            raise PrivriskError(f"{param}: {name}, line {line}: give the row's probabilities as numbers",
                                param=param)  # fmt: skip
        matrix.append([float(v) for v in values if v is not None])
    if len({len(row) for row in matrix}) != 1:
        raise PrivriskError(f"{param}: {name}: every row needs as many probabilities as there are rows",
                            param=param)  # fmt: skip
    return matrix


def _toml_matrices(text: str, name: str, param: str) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrivriskError(f"{param}: {name}: not TOML ({exc})", param=param) from None
    if not doc:
        raise PrivriskError(f"{param}: {name}: give one matrix per variable, e.g. sex = [[0.9, 0.1], [0.1, 0.9]]",
                            param=param)  # fmt: skip
    out = {}
    for variable, value in doc.items():
        matrix = value.get("matrix") if isinstance(value, Mapping) else value
        if not isinstance(matrix, list):
            raise PrivriskError(f"{param}: {name}: {variable} must be a matrix, e.g. [[0.9, 0.1], [0.1, 0.9]]",
                                param=param)  # fmt: skip
        out[str(variable)] = matrix
    return out
