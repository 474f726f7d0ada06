"""Reading data files (CSV, Parquet, Stata, SPSS) and the aggregation engines (DuckDB, Spark); writing outputs whole or not at all.

Generic reading lives here; what a capability does with the data lives in its own subpackage. The names below are
imported on first use (PEP 562), so ``privrisk.io.files`` (writing outputs) does not pull in pandas and the engines.

Example:
    >>> parse_missing("negative,-99")
    MissingCodes(negative=True, codes=(-99.0,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privrisk.errors import lazy_attribute

if TYPE_CHECKING:
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

# Where each name lives: data reading needs pandas, the engines pandas and (when used) DuckDB or Spark.
_HOMES = {
    "ENGINES": "privrisk.io.engine",
    "MissingCodes": "privrisk.io.data",
    "NumericColumn": "privrisk.io.data",
    "numeric_values": "privrisk.io.data",
    "parse_missing": "privrisk.io.data",
    "read_column": "privrisk.io.data",
    "read_table": "privrisk.io.data",
    "spark_session": "privrisk.io.engine",
    "table_columns": "privrisk.io.data",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    return lazy_attribute(globals(), _HOMES, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
