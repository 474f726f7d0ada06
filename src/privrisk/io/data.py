"""Reading survey and register files: CSV, Parquet, Stata ``.dta`` and SPSS ``.sav``; missing codes; column checks.

CSV and Parquet go through DuckDB (the delimiter is sniffed; a UTF-8 byte-order mark is fine), Stata through pandas
and SPSS through pyreadstat, always reading the numeric codes rather than their value labels, since SOEP-style
files label their negative missing codes ("-1 no answer", "-2 does not apply").

Errors name the file and the column that was wrong (``data.csv: no column 'hour'; the columns are: …``); a bad
missing-codes spec names the parameter ``missing``.

Example:
    >>> col = numeric_values([8, -1, 4.5, None], name="hours", missing="negative")
    >>> col.values.tolist(), col.to_dict()["dropped_codes"]
    ([8.0, 4.5], {'-1': 1})
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier
from privrisk.errors import PrivriskError

_T = TypeVar("_T")

__all__ = [
    "FileKind",
    "MissingCodes",
    "NumericColumn",
    "check_columns",
    "check_file",
    "duckdb_error_text",
    "file_kind",
    "numeric_values",
    "parse_missing",
    "plain_type",
    "read_column",
    "read_table",
    "table_columns",
]

FileKind = Literal["csv", "parquet", "stata", "spss"]

_CSV = {".csv", ".tsv", ".txt", ".tab"}
_PARQUET = {".parquet", ".pq"}
_STATA = {".dta"}
_SPSS = {".sav", ".zsav"}
# Strings that mean "no value" in files written by R, Stata, SAS and spreadsheets.
_NA_TOKENS = {"", "na", "n/a", "nan", "null", "none", ".", "-", "#n/a"}


@dataclass(frozen=True)
class MissingCodes:
    """Which numeric codes mean "missing": all negative values (the SOEP convention) and/or listed codes.

    Example:
        >>> parse_missing("-1,-3").codes
        (-1.0, -3.0)
        >>> parse_missing("negative").negative
        True
    """

    negative: bool = False
    codes: tuple[float, ...] = ()

    def mask(self, values: np.ndarray) -> np.ndarray:
        """True where a value is a missing code."""
        out = np.zeros(values.shape, dtype=bool)
        if self.negative:
            out |= values < 0
        if self.codes:
            out |= np.isin(values, np.asarray(self.codes, dtype=float))
        return out

    def __bool__(self) -> bool:
        return self.negative or bool(self.codes)


def parse_missing(spec: str | Sequence[float] | MissingCodes | None) -> MissingCodes:
    """Read which codes are missing: ``negative``, a comma-separated list of codes, or both (``negative,99``).

    Raises:
        PrivriskError: (parameter ``missing``) for a part that is neither ``negative`` nor a number.

    Example:
        >>> parse_missing("negative,99")
        MissingCodes(negative=True, codes=(99.0,))
    """
    if spec is None:
        return MissingCodes()
    if isinstance(spec, MissingCodes):
        return spec
    if not isinstance(spec, str):
        try:
            return MissingCodes(False, tuple(float(c) for c in spec))
        except (TypeError, ValueError):
            raise PrivriskError(
                f"missing: {spec!r} is not a list of numeric codes", param="missing"
            ) from None
    negative, codes = False, []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        if part.lower() in ("negative", "neg"):
            negative = True
            continue
        try:
            codes.append(float(part))
        except ValueError:
            raise PrivriskError(
                f"missing: {part!r} is neither 'negative' nor a numeric code (e.g. -1,-3)", param="missing"
            ) from None
    return MissingCodes(negative, tuple(codes))


@dataclass(frozen=True)
class NumericColumn:
    """A numeric column with its missing values removed, and what was removed (from :func:`numeric_values`)."""

    name: str
    values: np.ndarray
    n_read: int
    n_nan: int = 0
    dropped_codes: dict[float, int] = field(default_factory=dict)

    @property
    def n_dropped(self) -> int:
        return self.n_nan + sum(self.dropped_codes.values())

    def summary(self) -> str:
        """One sentence on what was read and dropped."""
        parts = [f"{self.values.size:,} of {self.n_read:,} values of {self.name!r} used"]
        if self.n_nan:
            parts.append(f"{self.n_nan:,} empty or NaN dropped")
        if self.dropped_codes:
            codes = ", ".join(f"{c:g}: {k:,}" for c, k in sorted(self.dropped_codes.items()))
            parts.append(f"{sum(self.dropped_codes.values()):,} missing codes dropped ({codes})")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """What was read, used and dropped, for a JSON document (the values themselves are left out)."""
        return {
            "column": self.name,
            "n_read": self.n_read,
            "n_used": int(self.values.size),
            "n_nan": self.n_nan,
            "dropped_codes": {f"{c:g}": k for c, k in sorted(self.dropped_codes.items())},
        }

    def as_dict(self) -> dict[str, Any]:
        """The same as :meth:`to_dict` (its earlier name)."""
        return self.to_dict()


def file_kind(path: Path) -> FileKind:
    """The format of a data file, from its suffix (``.csv.gz`` is CSV).

    Example:
        >>> file_kind(Path("survey.csv.gz")), file_kind(Path("soep.dta"))
        ('csv', 'stata')
    """
    suffixes = [s.lower() for s in path.suffixes]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in (".gz", ".zst") and len(suffixes) > 1:
        suffix = suffixes[-2]
    kinds: tuple[tuple[FileKind, set[str]], ...] = (
        ("csv", _CSV),
        ("parquet", _PARQUET),
        ("stata", _STATA),
        ("spss", _SPSS),
    )
    for kind, exts in kinds:
        if suffix in exts:
            return kind
    raise PrivriskError(
        f"{path}: unknown file type {suffix or '(none)'!r}; use CSV, Parquet (.parquet), Stata (.dta) or SPSS (.sav)"
    )


def check_file(path: str | os.PathLike[str]) -> Path:
    """The path of a data file that exists, is a file and is not empty."""
    p = Path(path)
    if not p.exists():
        raise PrivriskError(f"{p}: no such file")
    if p.is_dir():
        raise PrivriskError(f"{p}: is a folder, not a data file")
    if p.stat().st_size == 0:
        raise PrivriskError(f"{p}: the file is empty")
    return p


_DELIMITERS = (",", ";", "\t", "|")
_HEADER_LIMIT = 1 << 20


def _open_text(path: Path) -> io.TextIOBase | None:
    """The CSV file as text (BOM dropped, undecodable bytes replaced); None for a compression read elsewhere."""
    suffix = path.suffix.lower()
    if suffix == ".zst":
        return None
    raw: Any = gzip.open(path, "rb") if suffix == ".gz" else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="")


def _header_fields(path: Path, delimiter: str) -> list[str] | None:
    """The header of a CSV file split at ``delimiter``, or None if it cannot be read here."""
    try:
        handle = _open_text(path)
        if handle is None:
            return None
        with handle:
            line = handle.readline(_HEADER_LIMIT)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    rows = list(csv.reader([line], delimiter=delimiter))
    return rows[0] if rows else None


def _check_csv_shape(path: Path, columns: Sequence[str]) -> None:
    """Refuse a CSV whose header names a column twice, or whose rows do not have as many fields as its header.

    DuckDB renames a repeated column (``x``, ``x_1``) and, when rows are ragged, reads the whole line as one
    column named after the header line; both would silently analyse the wrong data.
    """
    unnamed = all(re.fullmatch(r"column\d+", c) for c in columns)  # DuckDB found no header
    for delimiter in _DELIMITERS:
        header = _header_fields(path, delimiter)
        if header is None:
            return
        if len(header) < 2:
            continue
        if len(header) == len(columns):
            if unnamed:
                return
            seen: dict[str, str] = {}
            for name in header:
                key = name.strip().lower()
                if key in seen:
                    raise PrivriskError(f"{path}: the header names the column {name.strip()!r} twice")
                seen[key] = name
            return
        if len(columns) == 1 or unnamed:
            _raise_ragged(path, delimiter, len(header))


def _raise_ragged(path: Path, delimiter: str, width: int) -> None:
    handle = _open_text(path)
    if handle is None:
        return
    with handle:
        reader = csv.reader(handle, delimiter=delimiter)
        for row in reader:
            if row and len(row) != width:
                raise PrivriskError(
                    f"{path}: line {reader.line_num} has {len(row)} fields but the header has {width}"
                )


def _duckdb_relation(con: Any, path: Path, kind: str, *, whole_file: bool = False) -> Any:
    """A DuckDB relation over a CSV or Parquet file; ``whole_file`` reads every row to choose a CSV's column types
    (DuckDB otherwise looks at the first 20,480 rows, and a text cell further down stops the read)."""
    from privrisk.io._interrupt import import_duckdb

    duckdb = import_duckdb()

    try:
        if kind == "csv":
            rel = con.read_csv(str(path), sample_size=-1) if whole_file else con.read_csv(str(path))
            _check_csv_shape(path, list(rel.columns))
            return rel
        return con.read_parquet(str(path))
    except duckdb.Error as exc:
        raise PrivriskError(
            f"{path}: could not be read as {kind.upper()}: {duckdb_error_text(exc)}"
        ) from None


# DuckDB's types in a reader's words.
_PLAIN_TYPES = (
    ("INT", "whole numbers"), ("DOUBLE", "numbers"), ("FLOAT", "numbers"), ("DECIMAL", "numbers"),
    ("REAL", "numbers"), ("VARCHAR", "text"), ("BOOL", "true or false"), ("TIMESTAMP", "dates and times"),
    ("DATE", "dates"), ("TIME", "times"),
)  # fmt: skip


def plain_type(sql_type: str) -> str:
    """A DuckDB or Spark column type in words: ``BIGINT`` → "whole numbers", ``VARCHAR`` → "text".

    Example:
        >>> plain_type("BIGINT"), plain_type("VARCHAR"), plain_type("string"), plain_type("STRUCT(a INT)")
        ('whole numbers', 'text', 'text', 'values of another kind')
    """
    upper = sql_type.upper()
    if upper.startswith(("STRUCT", "MAP", "LIST", "UNION")) or upper.endswith("[]"):
        return "values of another kind"
    if upper == "STRING":
        return "text"
    return next((words for key, words in _PLAIN_TYPES if key in upper), "values of another kind")


def read_typed(path: Path, kind: str, attempt: Callable[[bool], _T]) -> _T:
    """``attempt(whole_file)`` of a file DuckDB reads, with DuckDB's errors as :class:`PrivriskError`.

    A CSV whose cell below the rows DuckDB typed a column by does not fit is read again, typed by every row
    (``whole_file=True``), so that the column's own check names the cell (or an unused column does not matter).
    """
    from privrisk.io._interrupt import import_duckdb

    duckdb = import_duckdb()
    for whole_file in (False, True):
        try:
            return attempt(whole_file)
        except duckdb.ConversionException as exc:
            if kind == "csv" and not whole_file:
                continue
            raise PrivriskError(f"{path}: could not be read: {duckdb_error_text(exc)}") from None
        except duckdb.Error as exc:
            raise PrivriskError(f"{path}: could not be read: {duckdb_error_text(exc)}") from None
    raise AssertionError("unreachable")  # pragma: no cover


def duckdb_error_text(exc: BaseException) -> str:
    """What went wrong reading a file, in the user's words rather than DuckDB's (no error class, no SQL).

    A cell that does not fit its column's type names the line, the column and the value; other errors keep
    DuckDB's first sentence without its "Conversion Error:"-style prefix.

    Example:
        >>> class ConversionException(Exception):
        ...     pass
        >>> duckdb_error_text(ConversionException('Conversion Error: CSV Error on Line: 30002\\nOriginal Line: '
        ...     '1,abc\\nError when converting column "age". Could not convert string "abc" to \\'BIGINT\\''))
        "line 30002, column 'age': 'abc' where the rows before hold whole numbers"
    """
    text = str(exc).strip()
    cell = re.search(r'converting column "(?P<col>[^"]*)"\. Could not convert string "(?P<val>[^"]*)" to '
                     r"'(?P<type>[^']*)'", text)  # fmt: skip
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if cell:
        where = f"line {line.group(1)}, " if line else ""
        return (f"{where}column {cell['col']!r}: {cell['val']!r} where the rows before hold "
                f"{plain_type(cell['type'])}")  # fmt: skip
    first = text.splitlines()[0] if text else type(exc).__name__
    return re.sub(r"^[A-Z][A-Za-z ]*Error:\s*", "", first)


def table_columns(path: str | os.PathLike[str]) -> list[str]:
    """The column names of a data file, without reading its rows (where the format allows)."""
    p = check_file(path)
    kind = file_kind(p)
    if kind in ("csv", "parquet"):
        from privrisk.io._interrupt import import_duckdb, interruptible

        duckdb = import_duckdb()

        with duckdb.connect() as con:
            return interruptible(con, lambda: list(_duckdb_relation(con, p, kind).columns))
    return list(read_table(p).columns)


def read_table(path: str | os.PathLike[str], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a data file into a DataFrame, only the named columns if given.

    Raises:
        PrivriskError: for a missing or empty file, an unknown type, a missing column (the message lists the
            columns that exist) or a file that cannot be parsed.
    """
    p = check_file(path)
    kind = file_kind(p)
    wanted = list(columns) if columns is not None else None
    if kind in ("csv", "parquet"):
        from privrisk.io._interrupt import import_duckdb, interruptible

        duckdb = import_duckdb()

        def read(con: Any, whole_file: bool) -> pd.DataFrame:
            rel = _duckdb_relation(con, p, kind, whole_file=whole_file)
            check_columns(p, wanted, list(rel.columns))
            if wanted is not None:
                rel = rel.project(", ".join(quote_identifier(c) for c in wanted))
            return rel.df()

        # On a worker thread: Ctrl-C interrupts the query and is a KeyboardInterrupt (exit 130), not DuckDB's
        # "Query interrupted".
        with duckdb.connect() as con:
            return interruptible(con, lambda: read_typed(p, kind, lambda whole_file: read(con, whole_file)))
    if kind == "stata":
        try:
            with pd.io.stata.StataReader(p) as reader:
                available = list(reader.variable_labels().keys())
            check_columns(p, wanted, available)
            return pd.read_stata(p, columns=wanted, convert_categoricals=False, convert_missing=False)
        except (ValueError, OSError) as exc:
            raise PrivriskError(f"{p}: could not be read as Stata: {exc}") from None
    import pyreadstat

    try:
        _, meta = pyreadstat.read_sav(str(p), metadataonly=True)
        check_columns(p, wanted, list(meta.column_names))
        frame, _ = pyreadstat.read_sav(str(p), usecols=wanted, apply_value_formats=False, user_missing=False)
        return frame
    except pyreadstat.ReadstatError as exc:
        raise PrivriskError(f"{p}: could not be read as SPSS: {exc}") from None


def check_columns(path: Path, wanted: Sequence[str] | None, available: Sequence[str]) -> None:
    """Raise, naming the file and listing its columns, if a wanted column is not available."""
    if wanted is None:
        return
    missing = [c for c in wanted if c not in available]
    if missing:
        shown = ", ".join(available[:20]) + (f", … ({len(available)} in all)" if len(available) > 20 else "")
        raise PrivriskError(f"{path}: no column {missing[0]!r}; the columns are: {shown}")


def numeric_values(
    series: Any, *, name: str = "values", missing: MissingCodes | str | None = None, source: str | None = None
) -> NumericColumn:
    """Turn a column into finite floats: NaN and empty cells dropped, missing codes dropped, text rejected.

    Example:
        >>> col = numeric_values(pd.Series([3, -1, 5, None, -2]), name="hours", missing="negative")
        >>> col.values.tolist(), col.summary()
        ([3.0, 5.0], "2 of 5 values of 'hours' used; 1 empty or NaN dropped; 2 missing codes dropped (-2: 1, -1: 1)")
    """
    where = f"{source}: " if source else ""
    s = pd.Series(series)
    n_read = int(s.size)
    if s.dtype == bool:
        s = s.astype(float)
    if not pd.api.types.is_numeric_dtype(s):
        text = s.astype("string").str.strip()
        is_na_token = text.isna() | text.str.lower().isin(_NA_TOKENS)
        converted = pd.to_numeric(text.where(~is_na_token), errors="coerce")
        bad = converted.isna() & ~is_na_token
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise PrivriskError(
                f"{where}column {name!r} is not numeric: {text.iloc[row]!r} in row {row + 1} "
                f"({int(bad.sum()):,} such value{'' if int(bad.sum()) == 1 else 's'})"
            )
        s = converted
    values = s.to_numpy(dtype=float, na_value=np.nan)
    finite = np.isfinite(values)
    if np.any(np.isinf(values)):
        raise PrivriskError(f"{where}column {name!r} holds infinite values")
    n_nan = int((~finite).sum())
    values = values[finite]
    codes = parse_missing(missing)
    dropped: dict[float, int] = {}
    if codes:
        mask = codes.mask(values)
        if mask.any():
            uniq, counts = np.unique(values[mask], return_counts=True)
            dropped = {float(u): int(c) for u, c in zip(uniq, counts, strict=True)}
            values = values[~mask]
    if values.size == 0:
        what = "all values are missing" if n_read else "the column has no rows"
        raise PrivriskError(f"{where}column {name!r}: no values left ({what})")
    return NumericColumn(name, values, n_read, n_nan, dropped)


def read_column(
    path: str | os.PathLike[str], column: str, *, missing: MissingCodes | str | None = None
) -> NumericColumn:
    """Read one numeric column of a data file, with its missing values and codes removed.

    Args:
        path: a CSV, Parquet, Stata or SPSS file.
        column: the column's name.
        missing: ``"negative"`` drops negative codes (SOEP); ``"-1,-3"`` drops the listed codes.

    Raises:
        PrivriskError: for a missing file or column, a non-numeric column, or no values left.
    """
    frame = read_table(path, [column])
    return numeric_values(frame[column], name=column, missing=missing, source=str(path))
