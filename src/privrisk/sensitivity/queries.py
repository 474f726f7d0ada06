"""The queries the sensitivities are of, the two kinds of neighbours and the two methods of the local sensitivity.

Conventions (docs/architecture.md): the median of an even count is the mean of the two middle values; the variance
is the population variance (ddof = 0) and ``std`` its square root.

Example:
    >>> evaluate("mean", [1, 3, 10, 17, 675])
    141.2
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import QUERIES, Query, check_query
from privrisk.errors import PrivriskError

__all__ = ["METHODS", "NEIGHBOURS", "QUERIES", "Neighbours", "Query", "SensitivityMethod", "evaluate"]

Neighbours = Literal["unbounded", "bounded"]
"""Unbounded: add or remove one record (the default); bounded: replace one record, n fixed."""
NEIGHBOURS: tuple[Neighbours, ...] = ("unbounded", "bounded")

SensitivityMethod = Literal["exact", "paper"]
"""Exact local sensitivity, or the four-case rule of Allmann et al., §3.2."""
METHODS: tuple[SensitivityMethod, ...] = ("exact", "paper")


def _query(query: Query | str) -> Query:
    """A query of the core by name (``var`` for ``variance``, any case)."""
    return cast(Query, check_query(query))


# numpy's reducers: the median of an even count is the mean of the two middle values; variance with ddof = 0.
_REDUCERS: dict[str, Callable[..., Any]] = {"sum": np.sum, "mean": np.mean, "median": np.median, "min": np.min,
                                            "max": np.max, "variance": np.var, "std": np.std}  # fmt: skip


def evaluate(query: Query | str, sample: ArrayLike, axis: int = -1) -> float | np.ndarray:
    """f(X) for a query by name, along ``axis`` (numpy's median; population variance).

    Example:
        >>> evaluate("median", [1, 3, 10, 17])
        6.5
        >>> evaluate("variance", [1, 675])
        113569.0
    """
    q = _query(query)
    x = np.asarray(sample, dtype=float)
    if x.shape[axis] == 0:
        raise PrivriskError("sample: is empty; a query needs at least one record")
    if q == "count":
        result = np.full(np.delete(x.shape, axis % x.ndim), x.shape[axis], dtype=float)
    else:
        result = _REDUCERS[q](x, axis=axis)
    return float(result) if np.ndim(result) == 0 else np.asarray(result)
