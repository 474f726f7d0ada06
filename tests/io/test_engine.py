"""DuckDB's grouping pass: bounded memory, spilling to a private folder, the same histogram as brute force."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.io.engine import DUCKDB_MEMORY_LIMIT, duckdb_connect, duckdb_settings, group_counts


def _setting(con, name: str):
    return con.sql(f"SELECT current_setting('{name}')").fetchall()[0][0]


def test_the_connection_has_the_settings_of_a_pass_over_rows():
    with duckdb_connect("300MB", 1) as con:
        assert _setting(con, "threads") == 1
        assert _setting(con, "preserve_insertion_order") is False
        assert _setting(con, "enable_progress_bar") is False
        # DuckDB prints the limit in its own units: 300 MB ≈ 286.1 MiB.
        assert "286" in str(_setting(con, "memory_limit"))
        spill = Path(_setting(con, "temp_directory"))
        assert spill.parent == Path(tempfile.gettempdir()) and spill.name.startswith("privrisk-duckdb-")


def test_the_defaults_and_the_environment(monkeypatch):
    monkeypatch.delenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", raising=False)
    monkeypatch.delenv("PRIVRISK_DUCKDB_THREADS", raising=False)
    assert duckdb_settings()["memory_limit"] == DUCKDB_MEMORY_LIMIT == "1GB"
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", "2.5GiB")
    monkeypatch.setenv("PRIVRISK_DUCKDB_THREADS", "3")
    assert duckdb_settings()["memory_limit"] == "2.5GiB" and duckdb_settings()["threads"] == "3"


@pytest.mark.parametrize("limit", ["lots", "1GB'; SET threads=1; --", "-1GB"])
def test_a_bad_memory_limit_is_a_one_line_error(limit, monkeypatch):
    with pytest.raises(PrivriskError) as info:
        duckdb_settings(limit)
    assert info.value.param == "memory_limit" and "\n" not in str(info.value)
    # From the environment: the message names the variable, not a parameter (no option to name).
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", limit)
    with pytest.raises(PrivriskError, match=r"^PRIVRISK_DUCKDB_MEMORY_LIMIT: expected a size") as info:
        duckdb_settings()
    assert info.value.param != "memory_limit"


@pytest.mark.parametrize("threads", ["0", "two"])
def test_bad_threads_are_a_one_line_error(threads, monkeypatch):
    monkeypatch.setenv("PRIVRISK_DUCKDB_THREADS", threads)
    with pytest.raises(PrivriskError, match=r"^PRIVRISK_DUCKDB_THREADS: expected a whole number"):
        duckdb_settings()
    with pytest.raises(PrivriskError) as info:
        duckdb_settings(threads=-1)
    assert info.value.param == "threads"


def test_a_grouping_under_a_tight_memory_limit_counts_exactly(tmp_path, monkeypatch):
    # 400,000 distinct combinations read in row groups under 16 MB (DuckDB spills to the private folder if needed).
    rng = np.random.default_rng(0)
    n = 600_000
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 2000, n).astype(np.int32),
            "b": rng.integers(0, 200, n).astype(np.int16),
            "c": rng.choice(["x", "y"], n),
        }
    )
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, row_group_size=50_000)
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", "16MB")
    monkeypatch.setenv("PRIVRISK_DUCKDB_THREADS", "1")
    before = set(Path(tempfile.gettempdir()).glob("privrisk-duckdb-*"))
    hist, label = group_counts(path, ["a", "b", "c"])
    assert label == str(path)
    expected = frame.groupby(["a", "b", "c"]).size()
    got = hist.set_index(["a", "b", "c"])["__n"]
    assert len(got) == len(expected) > 300_000
    pd.testing.assert_series_equal(got.sort_index().astype(np.int64), expected.sort_index().astype(np.int64),
                                   check_names=False)  # fmt: skip
    # The spill folder is gone.
    assert set(Path(tempfile.gettempdir()).glob("privrisk-duckdb-*")) <= before


def _grouped_both_ways(path, columns, monkeypatch):
    import privrisk.io.engine as engine

    dense, _ = group_counts(path, columns)
    monkeypatch.setattr(engine, "DENSE_GROUP_CELLS", 0)  # every grid too large: the GROUP BY statement
    hashed, _ = group_counts(path, columns)
    monkeypatch.undo()
    return dense, hashed


def _sorted(frame: pd.DataFrame, columns) -> pd.DataFrame:
    return frame.sort_values(list(columns)).reset_index(drop=True)


def test_integer_codes_are_counted_densely_as_the_group_by_counts(tmp_path, monkeypatch):
    import privrisk.io.engine as engine

    rng = np.random.default_rng(1)
    n = 50_000
    frame = pd.DataFrame(
        {
            "zip": rng.integers(10_000, 10_400, n).astype(np.int32),
            "age": rng.integers(-3, 99, n).astype(np.int16),  # negative codes (missing-value codes) too
            "sex": rng.integers(0, 2, n).astype(np.uint8),
            "n": rng.integers(0, 5, n).astype(np.int64),
        }
    )
    path = tmp_path / "codes.parquet"
    frame.to_parquet(path, row_group_size=7_000)
    calls = []
    real = engine._group_dense
    monkeypatch.setattr(engine, "_group_dense", lambda *a: calls.append(real(*a)) or calls[-1])
    dense, hashed = _grouped_both_ways(path, ["zip", "age", "sex"], monkeypatch)
    assert calls[0] is not None  # the dense path counted the first time
    # The same values; the streamed GROUP BY keeps each code in its smallest integer type, the dense path in its own.
    pd.testing.assert_frame_equal(
        _sorted(dense, ["zip", "age", "sex"]), _sorted(hashed, ["zip", "age", "sex"]), check_dtype=False
    )
    brute = frame.groupby(["zip", "age", "sex"]).size().to_numpy()
    np.testing.assert_array_equal(_sorted(dense, ["zip", "age", "sex"])["__n"].to_numpy(), brute)
    # A count column is summed by the GROUP BY statement (the dense path counts rows only).
    summed, _ = group_counts(path, ["zip"], count="n")
    assert summed["__n"].sum() == frame["n"].sum()


@pytest.mark.parametrize(
    "column",
    [
        pd.Series([1, None, 3, 3], dtype="Int32"),  # empty values: the GROUP BY path names them
        pd.Series(["a", "b", "a", "a"]),  # text
        pd.Series([0, 2**40, 5, 5], dtype=np.int64),  # a range wider than the dense grid
    ],
    ids=["empty", "text", "wide"],
)
def test_other_columns_are_grouped_by_the_statement(column, tmp_path, monkeypatch):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": column, "b": np.array([1, 1, 2, 2], dtype=np.int8)}).to_parquet(path)
    dense, hashed = _grouped_both_ways(path, ["a", "b"], monkeypatch)
    key = ["a", "b"]
    pd.testing.assert_frame_equal(
        dense.sort_values(key, na_position="first").reset_index(drop=True),
        hashed.sort_values(key, na_position="first").reset_index(drop=True),
    )
