"""The variables of a study read from a data file or a table: numeric columns, missing values dropped, each
described for the report's set-up table (Allmann et al. 2024, §4.2: each column's valid values are its universe)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from privrisk.errors import PrivriskError

__all__ = ["read_variables"]


def read_variables(
    path: Any,
    columns: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    missing: str | None = None,
    universe: Literal["data"] | tuple[float, float] = "data",
    universe_min: float | None = None,
    source: str | None = None,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Numeric columns of a data file (or a DataFrame) for the study: ``{label: values}`` and a description of
    each variable.

    Missing values and codes are dropped (``missing``: ``"negative"`` or ``"-1,-3"``); a column left with one
    value has no risk to study and is an error. The descriptions are what the report's set-up table and the JSON
    document show; ``source`` is what they call the data (default: the path as given, or ``table``).

    Example:
        >>> import pandas as pd
        >>> values, described = read_variables(pd.DataFrame({"h": [3, -1, 5, 7]}), ["h"], missing="negative")
        >>> values["h"].tolist(), described[0]["dropped"], described[0]["source"]
        ([3.0, 5.0, 7.0], 1, 'table')
    """
    import pandas as pd

    from privrisk.io.data import numeric_values, read_table

    labels = labels or {}
    if isinstance(path, pd.DataFrame):
        absent = [c for c in columns if c not in path.columns]
        if absent:
            raise PrivriskError(
                f"column: {', '.join(map(repr, absent))} not in the table; it has {', '.join(map(str, path.columns))}",
                param="column",
            )
        frame, where = path, source or "table"
    else:
        frame, where = read_table(path, list(columns)), source or str(os.fspath(path))
    values, variables = {}, []
    for c in columns:
        col = numeric_values(frame[c], name=c, missing=missing, source=where)
        distinct = np.unique(col.values).size
        if distinct < 2:
            raise PrivriskError(
                f"{where}: column {c!r} holds one value only ({col.values[0]:g}); there is no risk to study"
            )
        name = labels.get(c, c)
        values[name] = col.values
        if isinstance(universe, str):
            universe_text = f"its {distinct:,} distinct valid values"
        else:
            universe_text = f"the interval [{universe[0]:g}, {universe[1]:g}]"
        if universe_min is not None:
            universe_text += f", minimum set to {universe_min:g}"
        variables.append(
            {
                "label": name,
                "column": c,
                "source": where,
                "n": int(col.values.size),
                "dropped": col.n_dropped,
                "universe": universe_text,
                "summary": col.summary(),
                "data": col.as_dict(),
            }
        )
    return values, variables
