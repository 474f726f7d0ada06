"""The column a query runs on, from whatever a settings object holds as its ``data``.

``privrisk sensitivity``, ``privrisk attack`` and the app's page all name their data the same way: a data file
(CSV, Parquet, Stata, SPSS) and its column, a table and its column, a column read already
(:class:`~privrisk.io.data.NumericColumn`) or the values themselves. Missing values are dropped from each, and
missing codes as the user listed them (:func:`privrisk.io.data.numeric_values`).

Example:
    >>> col, file = column_values([3, -1, 5], "hours", missing="negative")
    >>> col.values.tolist(), file
    ([3.0, 5.0], None)
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.io.data import NumericColumn

__all__ = ["column_values", "is_table"]


def is_table(data: Any) -> bool:
    """True if ``data`` is a data file or a table, which needs a column named; False for a column or values."""
    import pandas as pd

    return isinstance(data, str | os.PathLike | pd.DataFrame)


def column_values(
    data: Any, column: str | None, *, missing: str | None = None, name: str | None = None
) -> tuple[NumericColumn, str | None]:
    """The column's values with missing values and codes dropped, and the file they were read from (or None).

    Args:
        data: a data file, a table (with ``column``), a :class:`~privrisk.io.data.NumericColumn` (used as it is)
            or the values (a sequence, array or Series; ``column`` then names them, else their own name).
        column: the column of a file or table.
        missing: the missing codes (``"negative"``, ``"-1,-3"``).
        name: what the messages call a table or values (a file is called by its path).

    Raises:
        PrivriskError: a file or column that cannot be read, text in a numeric column.
    """
    import pandas as pd

    from privrisk.io.data import NumericColumn, numeric_values, read_column

    if isinstance(data, NumericColumn):
        return data, None
    if isinstance(data, str | os.PathLike):
        return read_column(data, str(column), missing=missing), str(data)
    if isinstance(data, pd.DataFrame):
        if column not in data.columns:
            columns = ", ".join(map(str, data.columns))
            raise PrivriskError(f"{name or 'data'}: no column {column!r}; the columns are: {columns}",
                                param="column")  # fmt: skip
        return numeric_values(data[column], name=str(column), missing=missing, source=name), None
    label = column or str(getattr(data, "name", None) or "values")
    values = data if isinstance(data, pd.Series) else np.ravel(np.asarray(data))
    return numeric_values(values, name=label, missing=missing, source=name), None
