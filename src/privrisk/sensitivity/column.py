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
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk.errors import PrivriskError, deprecation_message

if TYPE_CHECKING:
    from privrisk.io.data import NumericColumn

__all__ = ["checked_column", "column_values", "is_table"]


def is_table(data: Any) -> bool:
    """True if ``data`` is a data file or a table, which needs a column named; False for a column or values."""
    import pandas as pd

    return isinstance(data, str | os.PathLike | pd.DataFrame)


def checked_column(data: Any, column: Any, *, settings: str) -> str | None:
    """The column a settings object named ``settings`` names, stripped (None if blank); a file or a table needs one.

    Settings made without data (the old shape, where the data went to the run function beside them) warn with a
    :class:`DeprecationWarning`, for one release.

    Raises:
        PrivriskError: (parameter ``column``) a file or table without its column.

    Example:
        >>> checked_column([1, 2], " hours ", settings="AttackSettings")
        'hours'
    """
    if data is None:
        warnings.warn(deprecation_message(f"{settings} without data", f"{settings}(data=…)"), DeprecationWarning,
                      stacklevel=4)  # fmt: skip
    name = None if column is None or not str(column).strip() else str(column).strip()
    if name is None and data is not None and is_table(data):
        raise PrivriskError(
            "column: choose the numeric column of the data file the query runs on", param="column"
        )
    return name


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
