"""engine='spark' gives the same JSON document as DuckDB, byte for byte (issue 36 item 1), on a local Spark session.

The settings' refusals and the choice of the riskiest records' combinations need no Spark and always run.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privrisk.cli._common import to_jsonable
from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataSettings, run_microdata
from privrisk.microdata._grouped import _candidates

EXAMPLE = "examples/microdata_survey.csv"


def _doc(**kw) -> str:
    return json.dumps(to_jsonable(run_microdata(MicrodataSettings(**kw)).to_dict()), ensure_ascii=False)


def _random_file(path, seed: int, n: int = 400) -> None:
    """Whole-number, text and decimal keys with missing values, and weights in halves (sums exact in any order)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 4, n).astype(float), "b": rng.choice(list("xyz"), n).astype(object),
                          "c": rng.integers(0, 3, n) / 2, "w": rng.integers(8, 40, n) * 0.5,
                          "h": rng.choice([f"h{i}" for i in range(n // 3)], n)})  # fmt: skip
    for col in "abc":
        frame.loc[rng.random(n) < 0.1, col] = None
    frame.to_csv(path, index=False)


@pytest.mark.spark
@pytest.mark.parametrize("missing", ["any", "category"])
def test_example_file_same_json_as_duckdb(spark, missing):
    kw = dict(
        data=EXAMPLE, keys="region,age,sex", weights="weight", household="hid", k=2, missing=missing, top=30
    )
    assert _doc(**kw, engine="spark") == _doc(**kw)


@pytest.mark.spark
@pytest.mark.parametrize("missing", ["any", "category"])
def test_random_file_with_missing_values_same_json(spark, tmp_path, missing):
    path = tmp_path / "sample.csv"
    _random_file(path, seed=11 if missing == "any" else 12)
    # several partitions, so that the row numbers cross partitions of Spark's reading
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2000")
    try:
        kw = dict(
            data=str(path), keys="a,b,c", weights="w", household="h", max_risk=0.2, missing=missing, top=25
        )
        assert _doc(**kw, engine="spark") == _doc(**kw)
        kw = dict(data=str(path), keys="a,b", k=3, missing=missing, method="exact")
        assert _doc(**kw, engine="spark") == _doc(**kw)
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


@pytest.mark.spark
def test_bad_weights_same_error_as_duckdb(spark, tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"a": [1, 2, 3, 4], "w": [1.0, -2.0, 3.0, -1.0]}).to_csv(path, index=False)
    errors = []
    for engine in ("duckdb", "spark"):
        with pytest.raises(PrivriskError) as info:
            run_microdata(MicrodataSettings(data=str(path), keys="a", weights="w", engine=engine))
        errors.append((str(info.value), info.value.param))
    assert (
        errors[0] == errors[1] == ("weights: 'w' is negative in 2 record(s) (first: record 2, -2)", "weights")
    )


@pytest.mark.spark
def test_missing_household_same_error_as_duckdb(spark, tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"a": [1, 2, 3, 4], "h": [1.0, None, 2.0, None]}).to_csv(path, index=False)
    errors = []
    for engine in ("duckdb", "spark"):
        with pytest.raises(PrivriskError) as info:
            run_microdata(MicrodataSettings(data=str(path), keys="a", household="h", engine=engine))
        errors.append((str(info.value), info.value.param))
    assert errors[0] == errors[1]
    assert errors[0][1] == "household" and "(first: record 2)" in errors[0][0]


@pytest.mark.parametrize(
    "field, value", [("reduction", "suppress"), ("suda_max_size", 1), ("sensitive", "s")]
)
def test_what_needs_every_record_is_refused_on_spark(field, value):
    extra = {"k": 2} if field == "reduction" else {}
    with pytest.raises(PrivriskError) as info:
        MicrodataSettings(data="f.csv", keys="a,b", engine="spark", **{field: value}, **extra)
    assert info.value.param == field and "engine 'spark'" in str(info.value)


def test_engine_rules():
    with pytest.raises(PrivriskError) as info:
        MicrodataSettings(keys="a", spark_master="local[2]")
    assert info.value.param == "spark_master"
    with pytest.raises(PrivriskError) as info:
        MicrodataSettings(data=pd.DataFrame({"a": [1]}), keys="a", engine="spark")
    assert info.value.param == "engine"
    with pytest.raises(PrivriskError) as info:
        MicrodataSettings(keys="a", engine="hadoop")
    assert info.value.param == "engine"
    assert (
        "engine" not in MicrodataSettings(keys="a", engine="spark").to_dict()
    )  # one document for both engines


@pytest.mark.parametrize("seed", range(30))
def test_candidates_hold_the_riskiest_records(seed):
    """Brute force: the top records by (risk desc, row asc) all lie in the candidate combinations."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    risk = rng.choice([0.1, 0.2, 0.5, 1.0], m)
    cell = np.r_[np.arange(m), rng.integers(0, m, int(rng.integers(0, 30)))]
    rng.shuffle(cell)
    count = np.bincount(cell, minlength=m)
    first = np.array([np.flatnonzero(cell == c)[0] for c in range(m)])
    top = int(rng.integers(1, 8))
    order = sorted(range(cell.size), key=lambda i: (-risk[cell[i]], i))[:top]
    chosen = set(_candidates(risk, count, first, top).tolist())
    assert {int(cell[i]) for i in order} <= chosen
    assert len(chosen) <= 2 * top


@pytest.mark.spark
def test_results_in_many_small_partitions_same_json(spark, tmp_path, monkeypatch):
    """The passes' shuffles in partitions of 7 records' worth (ROWS_PER_PARTITION forced down, as 10⁷ records
    take 20 partitions): the combinations and households come back in many partitions, in any order, and the
    document is still DuckDB's; the session's own settings are given back."""
    import privrisk.microdata._spark as on_spark

    path = tmp_path / "sample.csv"
    _random_file(path, seed=13)
    monkeypatch.setattr(on_spark, "ROWS_PER_PARTITION", 7)
    names = ("spark.sql.shuffle.partitions", "spark.sql.adaptive.coalescePartitions.enabled")
    before = [spark.conf.get(name, None) for name in names]
    kw = dict(data=str(path), keys="a,b,c", weights="w", household="h", missing="any", top=25)
    assert _doc(**kw, engine="spark") == _doc(**kw)
    assert [spark.conf.get(name, None) for name in names] == before


@pytest.mark.spark
@pytest.mark.parametrize("missing", ["any", "category"])
def test_no_row_per_record_comes_back(spark, tmp_path, monkeypatch, missing):
    """What Spark hands to Python grows with the combinations and households, never the records: here 600
    records in 200 households make about 500 household-combination pairs (what came back before, one row per
    pair: at 10⁷ records 10⁷ rows, and the local JVM's heap ran out), and no result has more than 200 rows. The
    keys are whole numbers, one with missing values (the combinations come back as Arrow columns, narrowed)."""
    rng = np.random.default_rng(36)
    n = 600
    a = pd.array(rng.integers(0, 3, n), dtype="Int64")
    a[rng.random(n) < 0.1] = pd.NA
    frame = pd.DataFrame({"a": a, "b": rng.integers(-1, 1, n) * 1000, "w": rng.integers(2, 9, n) * 0.5,
                          "h": np.repeat(np.arange(n // 3), 3)})  # fmt: skip
    path = tmp_path / "people.parquet"
    frame.to_parquet(path, index=False)
    kinds = type(spark.range(1))
    sizes: list[int] = []

    def counting(method):
        def counted(self, *args, **kwargs):
            out = method(self, *args, **kwargs)
            rows = out if isinstance(out, list) else [out]  # a table, a frame or a list of Arrow batches
            sizes.append(sum(r.num_rows if hasattr(r, "num_rows") else len(r) for r in rows))
            return out

        return counted

    kw = dict(data=str(path), keys="a,b", weights="w", household="h", top=5, missing=missing)
    with monkeypatch.context() as patch:
        arrow = "toArrow" if hasattr(kinds, "toArrow") else "_collect_as_arrow"  # (pyspark 3.5: the batches)
        for name in ("toPandas", arrow):
            patch.setattr(kinds, name, counting(getattr(kinds, name)))
        doc = _doc(**kw, engine="spark")
    assert doc == _doc(**kw)
    pairs = len(frame[["h", "a", "b"]].drop_duplicates())
    assert pairs > 2 * (n // 3) and sizes and max(sizes) <= n // 3, (pairs, sizes)
