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
