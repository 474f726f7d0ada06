"""Reading data files (CSV, Parquet, Stata, SPSS) and the aggregation engines (DuckDB, Spark); writing outputs whole or not at all.

Generic reading lives here; what a capability does with the data lives in its own subpackage.

Example:
    >>> parse_missing("negative,-99")
    MissingCodes(negative=True, codes=(-99.0,))
"""

from __future__ import annotations

from privrisk.io.data import (
    MissingCodes,
    NumericColumn,
    numeric_values,
    parse_missing,
    read_column,
    read_table,
    table_columns,
)
from privrisk.io.engine import ENGINES, spark_session

__all__ = [
    "ENGINES",
    "MissingCodes",
    "NumericColumn",
    "numeric_values",
    "parse_missing",
    "read_column",
    "read_table",
    "spark_session",
    "table_columns",
]
