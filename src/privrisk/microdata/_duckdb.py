"""Microdata risk of a CSV or Parquet file grouped by DuckDB where it lies: memory bounded, beyond it spilled.

The passes of :mod:`~privrisk.microdata._grouped` run in DuckDB over the file itself, inside
:func:`privrisk.io.engine.duckdb_connect` (a memory limit, the rest spilled to a private temporary folder): only
the key combinations and each household's risk come back, never the records. What Python holds grows with the
combinations and the households, not the records: per combination its keys (integers in the smallest type holding
them), count, first row and sum of weights (33 bytes for a census's 8 keys) and its risk, the key codes only where
a key value is missing; per household its risk and size. The rest stays in DuckDB's tables, spilled beyond its
memory limit: the combinations in order of first appearance (``__groups``, read back a column at a time), each
combination's 64-bit hash and number (``__cells``: a record finds its combination by the keys' hash when the
hashes tell the combinations apart, checked, else by the keys), each household's first row, size and list of
combinations (``__households``, stored in order of first row). While Python measures, DuckDB's memory limit is
lowered so that it writes its tables out (:data:`IDLE_LIMIT`), and its allocator gives back what a query freed
(:func:`_lean`); the weights are checked in one row over the records.

Only what the combinations decide is grouped here (:func:`groups_in_duckdb`): a reduction (suppression,
recoding), SUDA2 and ℓ-diversity or t-closeness (``sensitive``) need every record and read the file into memory.

:func:`~privrisk.microdata.run.run_microdata` groups such a file here by default when it is large
(:func:`grouped_by_default`): when its records × the columns measured × :data:`IN_MEMORY_BYTES_PER_VALUE` (32
bytes, the peak of a file read into memory) exceed DuckDB's memory limit (``PRIVRISK_DUCKDB_MEMORY_LIMIT``, 1 GB
unless set): about 3·10⁶ records of 10 columns at 1 GB. Smaller files are read into memory, where they fit and
which is no slower (10⁶ records: 13.0 s and 526 MB in memory, 13.6 s and 581 MB grouped); the document is the same
either way. Grouped, with DuckDB at 512 MB, 10⁷ records (8.2·10⁶ combinations) peaked at 998 MB, Python's own peak
489 MB, 63 bytes a combination (1,740 MB and 122 bytes before; ``python benchmarks/microdata_scale.py --rows
10000000 --engines grouped --memory-limit 512MB --trace``); 10⁸ records (2.36·10⁷ combinations, 3.17·10⁷
households) peaked at 1,885 MB in 656 s, Python's own peak 1,591 MB, 71 bytes a combination (``--rows
100000000``; 4,716 MB, 148 bytes a combination and 1,222 s before).

Rows are numbered in file order: a Parquet file's ``file_row_number``; a CSV's ``row_number() OVER ()`` under
``preserve_insertion_order`` (DuckDB then reads the CSV in order through its streaming window, which numbers the
rows as they come; the pass over a CSV is therefore single-threaded). The column types are DuckDB's, as when the
file is read into memory (:func:`privrisk.io.data.read_table`, retried with every row typing a CSV's columns when a
cell further down does not fit), so both print the same values. Each household's Σ m·log(1 − r) is added by numpy
in the order of the file read into memory (:func:`_ordered_sums`), from the list of its members' combinations that
one DuckDB aggregate per household gives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.microdata._grouped import (
    GroupedMicrodataResult,
    check_weights,
    grouping_sql,
    measure_grouped,
    missing_household,
    weight_checks_sql,
)
from privrisk.microdata.settings import MicrodataSettings
from privrisk.progress import Progress, report

__all__ = ["grouped_by_default", "groups_in_duckdb", "measure_in_duckdb"]

IN_MEMORY_BYTES_PER_VALUE = 32
"""Peak bytes per value (a record's key, weight or household column) of a file read into memory: 10⁷ records of
10 such columns peaked at 3,189 MB read into memory (``python benchmarks/microdata_scale.py --rows 10000000``),
33 bytes a value. :func:`grouped_by_default` groups a file in DuckDB when its records times its columns times this
exceed DuckDB's memory limit."""

# The first bytes of a CSV whose lines give its average record length (its records estimated from its size).
CSV_SAMPLE_BYTES = 1 << 20

# Vectors of 2,048 records per chunk of records.csv (read again from the file, in file order).
RECORDS_CHUNK = 512
# Households per batch of the household pass (each batch's members sorted by numpy at once).
HOUSEHOLD_BATCH = 1 << 18
# DuckDB's memory limit while Python measures the combinations (its tables written out to disk meanwhile).
IDLE_LIMIT = "16MB"
# DuckDB's memory limit for the riskiest records' queries (a scan of the file joined to a few combinations).
RISKIEST_LIMIT = "128MB"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _same(left: str, right: str, keys: list[str]) -> str:
    """The keys equal, a missing value equal to a missing value (the combinations' reading)."""
    return (
        " AND ".join(f"{left}.{_quote(k)} IS NOT DISTINCT FROM {right}.{_quote(k)}" for k in keys) or "TRUE"
    )


def groups_in_duckdb(settings: MicrodataSettings) -> bool:
    """Whether :func:`measure_in_duckdb` measures the settings' file: a CSV or Parquet file, and only measures the
    combinations decide (no reduction, no SUDA2, no ℓ or t: those need every record)."""
    data = settings.data
    if not isinstance(data, str | os.PathLike) or "://" in os.fspath(data):
        return False
    from privrisk.io.data import file_kind

    try:
        kind = file_kind(Path(os.fspath(data)))
    except PrivriskError:
        return False
    return kind in ("csv", "parquet") and settings.reduction == "none" and not settings.suda_max_size and not \
        settings.sensitive  # fmt: skip


def grouped_by_default(settings: MicrodataSettings) -> bool:
    """Whether :func:`~privrisk.microdata.run.run_microdata` groups the settings' file in DuckDB where it lies
    (:func:`measure_in_duckdb`) rather than reading it into memory: when :func:`groups_in_duckdb` holds and the file
    read into memory would take more than DuckDB's memory limit (:func:`privrisk.io.engine.duckdb_settings`:
    ``PRIVRISK_DUCKDB_MEMORY_LIMIT``, 1 GB unless set), that is, its records × the columns measured (keys,
    weights, household id) × :data:`IN_MEMORY_BYTES_PER_VALUE` bytes. A Parquet file's records are its metadata's
    row count; a CSV's, its size over the average length of the lines in its first :data:`CSV_SAMPLE_BYTES`
    bytes (a ``.gz`` CSV's compressed size over its lines' length: its records underestimated; a ``.zst`` CSV is
    read into memory). Both ways give the same document, so the choice is only one of time and memory: below
    the limit the file fits and reading it is no slower, above it grouping keeps the records out of memory.

    Example:
        >>> grouped_by_default(MicrodataSettings(data="examples/microdata_survey.csv", keys="region,age,sex"))
        False
    """
    if not groups_in_duckdb(settings):
        return False
    from privrisk.io.engine import duckdb_settings

    path = Path(os.fspath(settings.data))
    columns = len({*settings.keys, *(c for c in (settings.weights, settings.household) if c)})
    budget = _bytes(duckdb_settings()["memory_limit"])
    return _records_estimate(path) * columns * IN_MEMORY_BYTES_PER_VALUE > budget


def _bytes(size: str) -> float:
    """A DuckDB size (``1GB``, ``512 MiB``) in bytes: KB, MB… in powers of 1000, KiB, MiB… of 1024, as DuckDB.

    Example:
        >>> _bytes("1GB"), _bytes("512MiB"), _bytes("100B")
        (1000000000.0, 536870912.0, 100.0)
    """
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?)B\s*", size, flags=re.IGNORECASE)
    if found is None:  # duckdb_settings has checked it
        raise PrivriskError(f"memory_limit: expected a size such as 1GB or 512MB, got {size!r}")
    number, prefix, binary = found.groups()
    power = " KMGT".index(prefix.upper() or " ")
    return float(number) * (1024 if binary else 1000) ** power


def _records_estimate(path: Path) -> int:
    """The records of a CSV or Parquet file, from its metadata or size (0 when it cannot be read: the file read
    into memory then gives its error)."""
    from privrisk.io.data import file_kind

    try:
        if file_kind(path) == "parquet":
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            return int(pq.ParquetFile(path).metadata.num_rows)
        size = path.stat().st_size
        compression = path.suffix.lower()
        if compression == ".zst":  # no reader in the standard library: read into memory
            return 0
        import gzip

        with gzip.open(path, "rb") if compression == ".gz" else open(path, "rb") as fh:
            sample = fh.read(CSV_SAMPLE_BYTES)
    except Exception:  # any unreadable file is left to the reading's own error
        return 0
    lines = sample.count(b"\n") + (not sample.endswith(b"\n"))
    return int(size * lines / max(len(sample), 1))


def _rows_view(con: Any, path: Path, kind: str, needed: list[str], whole_file: bool) -> None:
    """``__rows``: the needed columns and ``__id``, the 1-based row number in the file."""
    from privrisk.io.data import check_columns
    from privrisk.io.engine import duckdb_relation

    cols = ", ".join(_quote(c) for c in needed)
    if kind == "parquet":
        rel = con.read_parquet(str(path), file_row_number=True)
        check_columns(path, needed, [c for c in rel.columns if c != "file_row_number"])
        rel.create_view("__file", replace=True)
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW __rows AS SELECT {cols}, file_row_number + 1 AS __id FROM __file"
        )
        return
    rel = duckdb_relation(con, path, kind, whole_file=whole_file)
    check_columns(path, needed, list(rel.columns))
    rel.create_view("__file", replace=True)
    con.execute("SET preserve_insertion_order = true")  # the streaming window numbers the rows in file order
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW __rows AS SELECT {cols}, row_number() OVER () AS __id FROM __file"
    )


class _DuckDBPasses:
    """The passes of :mod:`~privrisk.microdata._grouped` in DuckDB over ``__rows``.

    What grows with the combinations or the households stays in DuckDB's tables (spilled beyond its memory limit)
    wherever the document does not need it in Python: each combination's hash and number (``__cells``), the
    households' lists of combinations (``__households``)."""

    engine = "duckdb"
    # riskiest() sums the picked households itself, from the combinations' risks (``cell_risk``, given first)
    riskiest_before_households = True
    by_hash = True  # records find their combinations by the keys' hash when it tells them apart (False: by the keys)
    hashed = False

    def __init__(self, con: Any, settings: MicrodataSettings):
        self.con, self.settings = con, settings
        self.keys = list(settings.keys)
        self.cell_risk: np.ndarray | None = None  # the combinations' risks, given before riskiest()
        self._household_counts = (0, 0)  # households and the largest one's size (_household_table)
        self._limit: str | None = None  # DuckDB's memory limit while it is idle (_evict)

    def groups(self) -> pd.DataFrame:
        """Pass 1 kept in DuckDB: the weights checked in one row over the records, the combinations stored in
        order of first appearance (``__groups``, each numbered by its rowid: ``__cell``), and only the keys,
        ``__n``, ``__first`` and ``__w`` brought back, a column at a time, the integer keys narrowed. When the keys'
        64-bit hashes tell the combinations apart (``hashed``, counted in DuckDB), the later passes find a record's
        combination by its hash in ``__cells`` (hash and number) and ``__groups`` is dropped; otherwise they join
        the keys themselves (``__numbered``)."""
        weights = self.settings.weights
        if weights is not None:
            checks = self.con.sql(weight_checks_sql("__rows", weights, _quote)).df()
            if checks["__bad"].notna().iloc[0]:  # a file without records is refused after this pass
                check_weights(checks, weights)
        grouped = grouping_sql("__rows", self.keys, weights, _quote, checks=False)
        # stored in order of first appearance (insertion order kept): a combination's number is its rowid, and
        # each column is read back in that order (both checked as the first rows are read)
        self.con.execute("SET preserve_insertion_order = true")
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE __groups AS SELECT *, {_key_hash(self.keys, '')} AS __k "
                         f"FROM ({grouped}) ORDER BY __first")  # fmt: skip
        shown = [*self.keys, "__n", "__first", *(["__w"] if weights else [])]
        combinations = self.con.execute("SELECT COUNT(*) FROM __groups").fetchall()[0][0]
        if not combinations:
            return self.con.sql(f"SELECT {', '.join(map(_quote, shown))} FROM __groups").df()
        # whether the hashes tell the combinations apart, sorted here while Python holds nothing else (DuckDB's
        # COUNT(DISTINCT) does not spill: out of memory at 2.4·10⁷ combinations in 512 MB)
        hashes = self._column("__k", int(combinations), array=True)
        hashes.sort()
        self.hashed = self.by_hash and not bool((hashes[1:] == hashes[:-1]).any())
        del hashes
        # a column at a time, in chunks each narrowed: never the whole table in DuckDB's result and in eight-byte
        # integers at once, nor every column's chunks beside the columns joined
        columns = {name: self._column(name, int(combinations)) for name in shown}
        if self.hashed:  # only the hashes and numbers stay in DuckDB
            self.con.execute("CREATE OR REPLACE TEMP TABLE __cells AS SELECT __k, CAST(rowid AS INTEGER) AS __cell "
                             "FROM __groups")  # fmt: skip
            self.con.execute("DROP TABLE __groups")
        else:
            self.con.execute("CREATE OR REPLACE TEMP VIEW __numbered AS SELECT *, CAST(rowid AS INTEGER) AS __cell "
                             "FROM __groups")  # fmt: skip
        if self.settings.household is not None:  # while Python holds only the combinations' columns
            self._household_table()
        self._evict()
        return pd.DataFrame(columns, copy=False)

    def _evict(self) -> None:
        """Python's measures come next, DuckDB idle: its tables (``__cells``, ``__households``) are written out
        to its temporary folder by a memory limit of :data:`IDLE_LIMIT` until :meth:`_restore`, and their memory
        given back (10⁷ records: 762 → 456 MB; DuckDB otherwise keeps up to its limit of them in memory). At
        best: a limit DuckDB cannot meet is left as it was."""
        import duckdb

        self._limit = self.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        try:
            self.con.execute(f"SET memory_limit = '{IDLE_LIMIT}'")
        except duckdb.Error:
            self.con.execute(f"SET memory_limit = '{self._limit}'")
            self._limit = None

    def _restore(self) -> None:
        """DuckDB's memory limit as it was before :meth:`_evict`."""
        if self._limit is not None:
            self.con.execute(f"SET memory_limit = '{self._limit}'")
            self._limit = None

    def _household_table(self) -> None:
        """``__households``: one DuckDB aggregate per household (its first row, size and its members'
        combinations, as a list), stored in order of first row; a missing id refused as the file read into memory
        refuses it (after the weights). Built here, before the measures, so that DuckDB's memory for it is
        given back before Python holds the combinations' measures."""
        column = str(self.settings.household)
        h = _quote(column)
        # A float NaN is not NULL in DuckDB, but it is a missing id in memory (and on Spark): both are refused.
        floats = str(self.con.sql(f"SELECT {h} FROM __rows LIMIT 0").types[0]) in ("FLOAT", "DOUBLE")
        missing_sql = f"r.{h} IS NULL" + (f" OR isnan(r.{h})" if floats else "")
        self.con.execute(
            f"CREATE OR REPLACE TEMP TABLE __households AS SELECT ({missing_sql}) AS __missing, MIN(r.__id) AS "
            f"__hfirst, COUNT(*) AS __size, list(c.__cell) AS __cells FROM __rows r JOIN {self._cells_join('r')} "
            f"GROUP BY r.{h} ORDER BY __hfirst"
        )
        # the NULL and the NaN group counted together
        lacking, first, households, largest = self.con.execute(
            "SELECT SUM(__size) FILTER (WHERE __missing), MIN(__hfirst) FILTER (WHERE __missing), COUNT(*), "
            "MAX(__size) FROM __households"
        ).fetchall()[0]
        if lacking:
            raise missing_household(column, int(lacking), int(first))
        self._household_counts = (int(households), int(largest or 0))

    def _column(self, name: str, size: int, *, array: bool = False) -> Any:
        """One column of ``__groups`` in its order: a key in chunks narrowed then joined (and narrowed again, as
        :func:`_narrowed` the whole column), a count, first row, sum of weights or hash (eight bytes, one type)
        written into one array as its chunks come (that array itself with ``array``). The first rows come with the
        rowids, which must be 0, 1, … in a column of first rows strictly increasing: the combinations' numbers are
        their order of first appearance."""
        first = name == "__first"
        self.con.execute(f"SELECT {_quote(name)}{', rowid AS __rowid' if first else ''} FROM __groups")
        parts: list[pd.Series] = []
        out: np.ndarray | None = None
        at = 0
        while len(chunk := self.con.fetch_df_chunk(RECORDS_CHUNK)):
            if name in self.keys:
                parts.append(_narrowed(chunk, self.keys)[name])
                continue
            values = chunk[name].to_numpy()
            if out is None:
                out = np.empty(size, dtype=values.dtype)
            if values.dtype != out.dtype:  # DuckDB's types for these are fixed; kept safe if not
                raise PrivriskError(f"engine: DuckDB gave {name} as {values.dtype} and {out.dtype}")
            if first and not np.array_equal(chunk["__rowid"].to_numpy(), np.arange(at, at + values.size)):
                raise PrivriskError("engine: DuckDB read the combinations out of their order")
            out[at : at + values.size] = values
            at += values.size
        if out is not None:
            if at != size or (first and not bool(np.all(out[1:] > out[:-1]))):
                raise PrivriskError("engine: DuckDB read the combinations out of their order")
            return out if array else pd.Series(out, name=name, copy=False)
        column = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
        del parts
        return _narrowed(column.to_frame(), self.keys, copy=False)[name]

    def _cells_join(self, rows: str) -> str:
        """The join that gives each record of ``rows`` its combination's number ``c.__cell``."""
        if self.hashed:
            return f"__cells c ON {_key_hash(self.keys, rows + '.')} = c.__k"
        return f"__numbered c ON {_same(rows, 'c', self.keys)}"

    def households(self, table: pd.DataFrame, cell_risk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each household's risk and size, households in order of first appearance: ``__households``
        (:meth:`_household_table`) read in its order of first rows, each household's Σ m·log(1 − r) added by numpy
        in the order of the file read into memory (:func:`_ordered_sums`), into two arrays of the households'
        number: only the risks (eight bytes a household) and sizes (in the smallest unsigned type holding them)
        are held in Python.

        Each record finds its combination by the keys' 64-bit hash when the hashes tell the combinations apart
        (``hashed``), else by the keys."""
        import duckdb

        households, largest = self._household_counts
        sums = np.empty(households)
        sizes = np.empty(households, dtype=np.min_scalar_type(largest))
        try:  # a scan, read still within the idle limit (DuckDB would keep up to its limit of the table cached)
            at = self._read_households(cell_risk, sums, sizes)
        except duckdb.OutOfMemoryException:  # (not seen) read again from the start within the whole limit
            self._restore()
            at = self._read_households(cell_risk, sums, sizes)
        self.con.execute("DROP TABLE __households")
        self._restore()
        if at != households:
            raise PrivriskError(f"engine: DuckDB gave {at:,} of {households:,} households")
        np.expm1(sums, out=sums)  # 1 − Π(1 − r) = −expm1(Σ log(1 − r)), in place
        return np.negative(sums, out=sums), sizes

    def _read_households(self, cell_risk: np.ndarray, sums: np.ndarray, sizes: np.ndarray) -> int:
        """``__households`` read in batches in its order: each household's size and Σ m·log(1 − r) into
        ``sums`` and ``sizes``; returns how many were read."""
        stored = self.con.sql("SELECT __hfirst, __size, __cells FROM __households")
        reader = stored.to_arrow_reader(HOUSEHOLD_BATCH)
        at, last = 0, 0
        for batch in reader:
            n = batch.num_rows
            first = batch.column(0).to_numpy(zero_copy_only=False)
            # read in order of first row, as stored (insertion order kept), else refused
            if n and (first[0] <= last or not bool(np.all(first[1:] > first[:-1]))):
                raise PrivriskError("engine: DuckDB read the households out of their order")
            last = int(first[-1]) if n else last
            sizes[at : at + n] = batch.column(1).to_numpy(zero_copy_only=False)
            sums[at : at + n] = _ordered_sums(batch.column(2), cell_risk)
            at += n
        return at

    def riskiest(self, table: pd.DataFrame, chosen: np.ndarray) -> pd.DataFrame:
        """The first ``top`` records of each chosen combination and, with a household, their household's risk
        summed again from its members' combinations (as :meth:`households` sums it). Run before the households'
        arrays exist, within :data:`RISKIEST_LIMIT` of DuckDB's memory (a scan of the file joined to a few
        combinations), within its whole limit only if that is not enough."""
        import duckdb

        if self._limit is not None:
            self.con.execute(f"SET memory_limit = '{RISKIEST_LIMIT}'")
        try:
            return self._riskiest(table, chosen)
        except duckdb.OutOfMemoryException:  # read again within the whole limit
            self._restore()
            return self._riskiest(table, chosen)
        finally:
            if self._limit is not None:  # idle again until the households are read
                self.con.execute(f"SET memory_limit = '{IDLE_LIMIT}'")

    def _riskiest(self, table: pd.DataFrame, chosen: np.ndarray) -> pd.DataFrame:
        household = _quote(str(self.settings.household)) if self.settings.household else None
        extra = f", r.{household} AS __h" if household else ""
        self.con.register("__chosen", pd.DataFrame({"__cell": chosen.astype(np.int64)}))
        if self.hashed:  # the chosen combinations by their hashes
            cells = "(SELECT __k, __cell FROM __cells WHERE __cell IN (SELECT __cell FROM __chosen)) c"
            on = f"{_key_hash(self.keys, 'r.')} = c.__k"
        else:
            cols = ", ".join(_quote(k) for k in self.keys)
            cells = f"(SELECT {cols}, __cell FROM __numbered WHERE __cell IN (SELECT __cell FROM __chosen)) c"
            on = _same("r", "c", self.keys)
        picked = f"""SELECT c.__cell, r.__id AS row{extra} FROM __rows r JOIN {cells} ON {on}
            QUALIFY row_number() OVER (PARTITION BY c.__cell ORDER BY r.__id) <= {int(self.settings.top)}"""
        if not household:
            return self.con.sql(picked).df()
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE __picked AS {picked}")
        # each picked record's household summed again from its members' combinations, as households() did
        join = self._cells_join("r")
        got = self.con.sql(f"""SELECT p.__cell, p.row, m.__cells FROM __picked p JOIN
            (SELECT r.{household} AS __h, list(c.__cell) AS __cells FROM __rows r JOIN {join}
             WHERE r.{household} IN (SELECT __h FROM __picked) GROUP BY r.{household}) m ON p.__h = m.__h""")
        got = got.to_arrow_table()
        risk = self.cell_risk if self.cell_risk is not None else np.zeros(0)
        logs = _ordered_sums(got.column("__cells").combine_chunks(), risk)
        return pd.DataFrame({"__cell": got.column("__cell").to_numpy(), "row": got.column("row").to_numpy(),
                             "household_risk": -np.expm1(logs)})  # fmt: skip


def _key_hash(keys: list[str], prefix: str) -> str:
    """DuckDB's 64-bit hash of a record's (or a combination's) keys."""
    return f"hash({', '.join(prefix + _quote(k) for k in keys)})"


def _ordered_sums(cells: Any, cell_risk: np.ndarray) -> np.ndarray:
    """Each household's Σ m_c·log(1 − r_c) over its combinations c (m_c of its members in c), added in the order of
    :func:`~privrisk.microdata.measure.household_cells_risk` on the file read into memory: combinations in order
    of first appearance, from 0.0 (``np.bincount``), each log1p(−r_c) taken of the combinations gathered, so the
    same float to the last bit.

    ``cells`` is an Arrow list per household of its members' combinations (their indices in order of first
    appearance), ``cell_risk`` the combinations' individual risks.

    Example:
        >>> import pyarrow as pa
        >>> _ordered_sums(pa.array([[2, 0, 2], [1]]), np.array([0.5, 0.75, 0.25])).round(6).tolist()
        [-1.268511, -1.386294]
    """
    lengths = cells.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
    member = cells.flatten().to_numpy(zero_copy_only=False).astype(np.int64)
    span = max(int(cell_risk.size), 1)
    # by household, then combination: one sort of the batch
    key = np.sort(np.repeat(np.arange(lengths.size, dtype=np.int64), lengths) * span + member)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, dtype=np.int64)
    members = np.diff(np.r_[starts, key.size])
    pair = key[starts]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log1p(-cell_risk[pair % span]) * members
    return np.bincount(pair // span, weights=logs, minlength=lengths.size)


def _narrowed(table: pd.DataFrame, keys: list[str], *, copy: bool = True) -> pd.DataFrame:
    """The integer key columns in the smallest integer type holding their values (a census's ages and regions in
    one byte, not eight): the combinations, not the records, are what a 10⁸-record file holds in memory. The
    values, and so every table and document, are those of the file read into memory."""
    columns = {}
    for name in table.columns:
        column = table[name]
        if name in keys and column.dtype.kind in "iu" and len(column):
            column = pd.to_numeric(column, downcast="integer" if column.dtype.kind == "i" else "unsigned")
        columns[name] = column
    # A new frame: a column replaced in place would leave the others views of DuckDB's block of every eight-byte
    # column, which would then stay in memory whole (64 bytes a combination of a census). ``copy``: each column
    # copied (a chunk as DuckDB gave it), else kept as it is, each its own array (columns joined already).
    return pd.DataFrame(columns, copy=copy)


def _lean(con: Any) -> None:
    """DuckDB's allocator gives back what a query freed as soon as it is done (a flush after every task, a
    background thread that returns pages): otherwise what grouping a census took (its memory limit) stays in the
    process beside the combinations' arrays, as much again (10⁷ records: peak 1,672 MB; so, 1,409 MB). Both are
    settings of the whole DuckDB instance; they cost no time measured."""
    con.execute("SET allocator_flush_threshold = '0B'")
    con.execute("SET allocator_background_threads = true")


def _connected(path: Path, kind: str, needed: list[str], work: Any) -> Any:
    """``work(con)`` on a connection whose ``__rows`` is the file; a CSV typed again by every row when a cell
    below the rows DuckDB typed its columns by does not fit (as :func:`privrisk.io.data.read_table` does)."""
    from privrisk.io.data import read_typed
    from privrisk.io.engine import duckdb_connect, interruptible

    def attempt(whole_file: bool) -> Any:
        with duckdb_connect() as con:

            def run(con: Any = con) -> Any:
                _lean(con)
                _rows_view(con, path, kind, needed, whole_file)
                return work(con)

            return interruptible(con, run)

    return read_typed(path, kind, attempt)


def measure_in_duckdb(
    settings: MicrodataSettings, *, progress: Progress | None = None
) -> GroupedMicrodataResult:
    """The measures of :func:`~privrisk.microdata.measure.measure_microdata`, grouped by DuckDB over the file.

    Args:
        settings: a :class:`MicrodataSettings` whose file :func:`groups_in_duckdb` accepts.
        progress: told the share done and each stage (:class:`privrisk.progress.Progress`), or None.
    """
    from privrisk.io.data import check_file, file_kind

    path = check_file(settings.data)
    kind = file_kind(path)
    needed = list(dict.fromkeys([*settings.keys, *(c for c in (settings.weights, settings.household) if c)]))
    report(progress, 0.0, "grouping the file in DuckDB")
    result = _connected(path, kind, needed,
                        lambda con: measure_grouped(_DuckDBPasses(con, settings), str(path), settings, progress,
                                                    records_reader=_records))  # fmt: skip
    return result


def _records(result: GroupedMicrodataResult) -> Iterator[pd.DataFrame]:
    """Every record's risk in file order, in chunks: each record joined to its combination's (and household's)
    risk in DuckDB, as :meth:`~privrisk.microdata.measure.MicrodataResult.records` gives it (DuckDB's own
    conversion to pandas, as a file read into memory)."""
    import duckdb

    from privrisk.io.data import file_kind
    from privrisk.io.engine import duckdb_connect

    settings = result.settings
    path = Path(os.fspath(settings.data))
    keys = list(settings.keys)
    needed = list(dict.fromkeys([*keys, *(c for c in (settings.weights, settings.household) if c)]))
    cols = ", ".join(_quote(k) for k in keys)
    # each record finds its combination by the keys' hash when the hashes tell the combinations apart (as many
    # distinct hashes as combinations), else by the keys themselves
    by_hash = f"JOIN __ids g ON hash({', '.join(f'r.{_quote(k)}' for k in keys)}) = g.__k "
    by_keys = f"JOIN (SELECT {cols}, MIN(__id) AS __first FROM __rows GROUP BY {cols}) g ON {_same('r', 'g', keys)} "
    joins = "JOIN __cell_values c ON g.__first = c.__first"
    extra = ""
    if settings.household is not None and result.household is not None:
        h = _quote(str(settings.household))
        joins += (f" JOIN (SELECT {h}, row_number() OVER (ORDER BY MIN(__id)) - 1 AS __index FROM __rows "
                  f"GROUP BY {h}) hh ON r.{h} IS NOT DISTINCT FROM hh.{h} "
                  "JOIN __household_values hv ON hh.__index = hv.__index")  # fmt: skip
        extra = ", hv.household_risk"
    shown = ", ".join(f"r.{_quote(k)}" for k in keys)
    select = f"SELECT r.__id AS row, {shown}, c.__sample, c.__population, c.risk{extra} FROM __rows r "
    for whole_file in (False, True):
        with duckdb_connect() as con:
            _lean(con)
            _rows_view(con, path, file_kind(path), needed, whole_file)
            # the arrays themselves, not copies (copy=False): DuckDB reads them where they are
            con.register("__cell_values", pd.DataFrame({"__first": result.frame["__first"].to_numpy(np.int64),
                                                        "__sample": result.cells.fk, "__population": result.cells.Fk,
                                                        "risk": result.risk}, copy=False))  # fmt: skip
            if extra:
                con.register("__household_values", pd.DataFrame({"__index": np.arange(0 if result.household is None else result.household.size),
                                                                 "household_risk": result.household}, copy=False))  # fmt: skip
            try:
                con.execute(f"CREATE TEMP TABLE __ids AS SELECT hash({cols}) AS __k, MIN(__id) AS __first FROM __rows "
                            "GROUP BY __k")  # fmt: skip
                exact = con.execute("SELECT COUNT(*) FROM __ids").fetchall()[0][0] == len(result.frame)
                con.execute(f"{select}{by_hash if exact else by_keys}{joins} ORDER BY r.__id")
                chunk = con.fetch_df_chunk(RECORDS_CHUNK)
            except duckdb.ConversionException:
                if whole_file:
                    raise
                continue
            while len(chunk):
                # DuckDB's names are case-blind (f_k and F_k would clash): named here
                yield chunk.rename(columns={"__sample": "f_k", "__population": "F_k"})
                chunk = con.fetch_df_chunk(RECORDS_CHUNK)
            return
