"""A CSV or Parquet file measured by DuckDB where it lies gives the document of the file read into memory, byte for
byte (issue 36 item 2): the example survey, random small files (missing keys, households, weights in halves), the
errors of bad weights and missing household ids, every record's risk and records.csv."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.cli._common import to_jsonable
from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataSettings
from privrisk.microdata._duckdb import groups_in_duckdb, measure_in_duckdb
from privrisk.microdata._grouped import GroupedMicrodataResult
from privrisk.microdata._repeated import repeated_mean, repeated_median, repeated_sum
from privrisk.microdata.measure import measure_microdata
from privrisk.microdata.run import MicrodataRun

EXAMPLE = "examples/microdata_survey.csv"


def _docs(**kw) -> tuple[str, str]:
    """The run's document (grouped by DuckDB) and the document of the file read into memory."""
    s = MicrodataSettings(**kw)
    run = MicrodataRun(s, measure_in_duckdb(s))
    assert isinstance(run.measured, GroupedMicrodataResult)
    in_memory = MicrodataRun(s, measure_microdata(None, s))
    return tuple(json.dumps(to_jsonable(r.to_dict()), ensure_ascii=False) for r in (run, in_memory))  # type: ignore[return-value]


@pytest.mark.parametrize("missing", ["any", "category"])
@pytest.mark.parametrize(
    "extra", [{"household": "hid", "k": 2, "top": 30}, {"method": "exact", "max_risk": 0.01}]
)
def test_example_file_same_json_as_in_memory(missing, extra):
    grouped, in_memory = _docs(
        data=EXAMPLE, keys="region,age,sex", weights="weight", missing=missing, **extra
    )
    assert grouped == in_memory


def _frame(data) -> pd.DataFrame:
    n = data.draw(st.integers(1, 60))
    ints = st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n)
    frame = pd.DataFrame({
        "a": pd.array(data.draw(ints), dtype="Int64"),
        "b": data.draw(st.lists(st.one_of(st.none(), st.sampled_from(["x", "y", "z"])), min_size=n, max_size=n)),
        "w": [v / 2 for v in data.draw(st.lists(st.integers(2, 400), min_size=n, max_size=n))],
        "h": data.draw(st.lists(st.integers(0, max(1, n // 3)), min_size=n, max_size=n)),
    })  # fmt: skip
    return frame


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(["csv", "parquet"]), missing=st.sampled_from(["any", "category"]))
def test_random_files_same_json_as_in_memory(tmp_path_factory, data, kind, missing):
    frame = _frame(data)
    path = tmp_path_factory.mktemp("f") / f"sample.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    top = data.draw(st.integers(0, 8))
    grouped, in_memory = _docs(
        data=str(path), keys="a,b", weights="w", household="h", missing=missing, top=top, k=2
    )
    assert grouped == in_memory
    grouped, in_memory = _docs(data=str(path), keys="a,b", missing=missing, max_risk=0.3, method="exact")
    assert grouped == in_memory


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(["csv", "parquet"]))
def test_every_option_through_duckdb_same_json_and_records_csv(tmp_path_factory, data, kind):
    """Every option :func:`groups_in_duckdb` accepts, drawn together: the document, combinations.csv and
    records.csv of the file grouped in DuckDB are those of the file read into memory, byte for byte."""
    frame = _frame(data)
    folder = tmp_path_factory.mktemp("f")
    path = folder / f"sample.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    weighted = data.draw(st.booleans())
    options = {
        "keys": data.draw(st.sampled_from(["a,b", "b,a", "a", "b"])),
        "weights": "w" if weighted else None,
        "household": data.draw(st.sampled_from([None, "h"])),
        "missing": data.draw(st.sampled_from(["any", "category"])),
        "method": data.draw(st.sampled_from(["approx", "exact"])),
        "k": data.draw(st.one_of(st.none(), st.integers(1, 5))),
        "max_risk": data.draw(st.one_of(st.none(), st.sampled_from([0.01, 0.2, 0.5, 1.0]))),
        "top": data.draw(st.integers(0, 70)),
        "population_size": None if weighted else data.draw(st.sampled_from([None, 100.0, 1e6])),
    }
    s = MicrodataSettings(data=str(path), **options)
    assert groups_in_duckdb(s)
    grouped, in_memory = MicrodataRun(s, measure_in_duckdb(s)), MicrodataRun(s, measure_microdata(None, s))
    docs = [json.dumps(to_jsonable(r.to_dict()), ensure_ascii=False) for r in (grouped, in_memory)]
    assert docs[0] == docs[1]
    grouped.write(folder / "grouped")
    in_memory.write(folder / "memory")
    for name in ("records.csv", "combinations.csv"):
        assert (folder / "grouped" / name).read_bytes() == (folder / "memory" / name).read_bytes(), name


def test_integer_keys_narrowed_values_kept(tmp_path):
    """The combinations' integer keys are held in the smallest type (a census's memory), the values unchanged."""
    path = tmp_path / "wide.parquet"
    pd.DataFrame({"a": [1, 2, 2, -5], "b": [10**12, 3, 3, 3], "c": [None, "x", "x", "y"]}).to_parquet(path)
    s = MicrodataSettings(data=str(path), keys="a,b,c")
    frame = measure_in_duckdb(s).frame
    assert frame["a"].dtype == np.int8 and frame["b"].dtype == np.int64
    assert frame["a"].tolist() == [1, 2, -5] and frame["b"].tolist() == [10**12, 3, 3]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize(
    "weights", [[1.0, -2.0, 3.0, -1.0], [1.0, np.nan, 3.0, np.nan], [1.0, 2.0, np.inf, 1.0]]
)
def test_bad_weights_same_error_as_in_memory(tmp_path, kind, weights):
    path = tmp_path / f"bad.{kind}"
    frame = pd.DataFrame({"a": [1, 2, 3, 4], "w": weights})
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    s = MicrodataSettings(data=str(path), keys="a", weights="w")
    errors = []
    for measure in (lambda: measure_in_duckdb(s), lambda: measure_microdata(None, s)):
        with pytest.raises(PrivriskError) as info:
            measure()
        errors.append((str(info.value), info.value.param))
    assert errors[0] == errors[1]
    assert errors[0][1] == "weights"


@pytest.mark.parametrize("kind", ["csv", "parquet-nan", "parquet-null-and-nan"])
def test_missing_household_same_error_as_in_memory(tmp_path, kind):
    # A float NaN in a Parquet file is not NULL in DuckDB; it is a missing id in memory, and so it is here.
    path = tmp_path / ("bad.csv" if kind == "csv" else "bad.parquet")
    ids = {"csv": [1.0, None, 2.0, None], "parquet-nan": [1.0, np.nan, 2.0, np.nan]}
    if kind in ids:
        frame = pd.DataFrame({"a": [1, 2, 3, 4], "h": ids[kind]})
        frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    else:  # one NaN and one NULL in the same float column: two groups in DuckDB, one count of 2 here
        import pyarrow as pa
        import pyarrow.parquet as pq

        h = pa.array([1.0, float("nan"), 2.0, None], type=pa.float64(), from_pandas=False)
        pq.write_table(pa.table({"a": [1, 2, 3, 4], "h": h}), path)
    s = MicrodataSettings(data=str(path), keys="a", household="h")
    with pytest.raises(PrivriskError) as grouped:
        measure_in_duckdb(s)
    with pytest.raises(PrivriskError) as in_memory:
        measure_microdata(None, s)
    assert str(grouped.value) == str(in_memory.value)
    assert "in 2 record(s) (first: record 2)" in str(grouped.value)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_every_record_and_records_csv_as_in_memory(tmp_path, kind):
    frame = pd.read_csv(EXAMPLE)
    path = tmp_path / f"survey.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    s = MicrodataSettings(data=str(path), keys="region,age,sex", weights="weight", household="hid")
    run = MicrodataRun(s, measure_in_duckdb(s))
    in_memory = measure_microdata(None, s)
    pd.testing.assert_frame_equal(run.measured.records(), in_memory.records())
    run.write(tmp_path / "grouped")
    MicrodataRun(s, in_memory).write(tmp_path / "memory")
    for name in ("records.csv", "combinations.csv"):
        assert (tmp_path / "grouped" / name).read_bytes() == (tmp_path / "memory" / name).read_bytes()


def test_csv_rows_numbered_in_file_order(tmp_path, monkeypatch):
    """Two threads, a CSV of several DuckDB blocks: the unique record at the end keeps its row number."""
    monkeypatch.setenv("PRIVRISK_DUCKDB_THREADS", "2")
    n = 300_000
    frame = pd.DataFrame({"a": np.arange(n) % 7, "b": np.arange(n) % 5})
    frame.loc[n - 2, "a"] = 99
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    measured = measure_in_duckdb(MicrodataSettings(data=str(path), keys="a,b", top=1))
    assert measured.top_records()["row"].tolist() == [n - 1]


def test_which_files_are_grouped_in_duckdb():
    assert groups_in_duckdb(MicrodataSettings(data="f.csv", keys="a"))
    assert groups_in_duckdb(MicrodataSettings(data="f.parquet", keys="a", household="h"))
    assert not groups_in_duckdb(MicrodataSettings(data="f.dta", keys="a"))
    assert not groups_in_duckdb(MicrodataSettings(data=pd.DataFrame({"a": [1]}), keys="a"))
    assert not groups_in_duckdb(MicrodataSettings(data="f.csv", keys="a", suda_max_size=1))
    assert not groups_in_duckdb(MicrodataSettings(data="f.csv", keys="a", sensitive="s"))
    assert not groups_in_duckdb(MicrodataSettings(data="f.csv", keys="a", k=2, reduction="suppress"))


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=40),
    counts=st.lists(st.integers(1, 3000), min_size=40, max_size=40),
    leaf=st.sampled_from([16, 128, 1000]),
)
def test_repeated_sums_are_numpys_bit_for_bit(values, counts, leaf):
    v, c = np.array(values), np.array(counts[: len(values)])
    repeated = np.repeat(v, c)
    assert repeated_sum(v, c, leaf=leaf) == repeated.sum()
    assert repeated_mean(v, c) == repeated.mean()
    assert repeated_median(v, c) == np.median(repeated)


@pytest.mark.parametrize("join", ["hash", "colliding hash", "keys"])
def test_households_by_hash_or_by_keys_same_json(monkeypatch, join):
    """The household pass joins each record to its combination by the keys' hash, or by the keys themselves (forced
    here), or by the keys after a hash shared by two combinations (forced: a hash with three values) gave records
    twice: the same document every way."""
    from privrisk.microdata import _duckdb

    if join == "keys":
        monkeypatch.setattr(_duckdb._DuckDBPasses, "by_hash", False)
    if join == "colliding hash":
        original = _duckdb._key_hash
        monkeypatch.setattr(_duckdb, "_key_hash", lambda keys, prefix: f"({original(keys, prefix)} % 3)")
    grouped, in_memory = _docs(data=EXAMPLE, keys="region,age,sex", weights="weight", household="hid", top=40)
    assert grouped == in_memory


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_combinations_fetched_in_many_chunks_same_json(tmp_path, monkeypatch, kind):
    """Pass 1's combinations fetched in chunks of 2,048 and joined a column at a time (a census's millions): an
    integer key missing only in later chunks (a float column there), a string key and a float key; the document,
    combinations.csv and records.csv are those of the file read into memory."""
    import privrisk.microdata._duckdb as duckdb_module

    monkeypatch.setattr(duckdb_module, "RECORDS_CHUNK", 1)  # one vector of 2,048 rows a chunk
    rng = np.random.default_rng(36)
    n = 12_000
    a = pd.array(rng.integers(-3, 120, n), dtype="Int64")
    a[n // 2 :: 7] = pd.NA
    frame = pd.DataFrame({"a": a, "b": rng.choice([f"v{i}" for i in range(40)], n),
                          "c": rng.choice([0.5, 1.25, -2.0], n), "w": rng.integers(2, 400, n) / 2,
                          "h": rng.integers(0, n // 3, n)})  # fmt: skip
    path = tmp_path / f"sample.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    s = MicrodataSettings(data=str(path), keys="a,b,c", weights="w", household="h", k=3, top=25)
    grouped, in_memory = MicrodataRun(s, measure_in_duckdb(s)), MicrodataRun(s, measure_microdata(None, s))
    assert grouped.measured.measures["combinations"] > 3 * 2048  # several chunks
    docs = [json.dumps(to_jsonable(r.to_dict()), ensure_ascii=False) for r in (grouped, in_memory)]
    assert docs[0] == docs[1]
    grouped.write(tmp_path / "grouped")
    in_memory.write(tmp_path / "memory")
    for name in ("records.csv", "combinations.csv"):
        assert (tmp_path / "grouped" / name).read_bytes() == (tmp_path / "memory" / name).read_bytes(), name
