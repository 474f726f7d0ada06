"""Reading data files (CSV, Parquet, Stata, SPSS) and the aggregation engines (DuckDB, Spark); writing outputs whole or not at all."""

from __future__ import annotations

from privrisk.io.data import MissingCodes, NumericColumn, parse_missing, read_column, read_table
from privrisk.io.engine import ENGINES, spark_session

__all__ = [
    "ENGINES",
    "MissingCodes",
    "NumericColumn",
    "parse_missing",
    "read_column",
    "read_table",
    "spark_session",
]
