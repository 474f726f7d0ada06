"""The Spark engine gives the same classes, δ, k and k-map as DuckDB (local mode, one shared SparkSession).

The Spark tests skip only when CI is unset and pyspark or Java is missing; in CI they must run.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.empirical.measure import empirical_privacy
from privrisk.errors import PrivriskError
from privrisk.io.engine import check_engine, group_sql
from privrisk.presence import delta_presence, prepare_presence, search_generalisation
from privrisk.presence import lattice as _lattice


def _tables(tmp_path, seed=7, n_pop=4000, share=0.3):
    """A population of rows with text ZIP codes (leading zeros), ages and sex; the subset a random share of it."""
    rng = np.random.default_rng(seed)
    zips = np.asarray([f"0{z:04d}" for z in rng.integers(1000, 1040, size=n_pop)])
    pop = pd.DataFrame({
        "zip": zips,
        "age": rng.integers(17, 90, size=n_pop),
        "sex": rng.choice(["f", "m"], size=n_pop),
        "income": rng.normal(3000, 800, size=n_pop).round(2),
    })  # fmt: skip
    data = pop[rng.random(n_pop) < share].reset_index(drop=True)
    files = {}
    for name, frame in (("pop", pop), ("data", data)):
        files[f"{name}.csv"] = tmp_path / f"{name}.csv"
        frame.to_csv(files[f"{name}.csv"], index=False)
        files[f"{name}.parquet"] = tmp_path / f"{name}.parquet"
        frame.to_parquet(files[f"{name}.parquet"], index=False)
    return files


HIER = {"zip": "prefix", "age": "interval:5"}
QI = ["zip", "age", "sex"]


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False)


# ------------------------------------------------------------------------------------------ no Spark needed


def test_group_sql_is_one_statement_for_both_engines():
    duck = group_sql("t", ["a b", "c"], "n")
    assert duck == (
        'SELECT "a b", "c", SUM(CAST("n" AS DOUBLE)) AS __n, MIN("n") AS __min FROM t GROUP BY "a b", "c"'
    )
    assert group_sql("t", ["a b", "c"], "n", engine="spark") == duck.replace('"', "`")
    assert (
        group_sql("t", ["x`y"], engine="spark")
        == "SELECT `x``y`, COUNT(*) AS __n, 0 AS __min FROM t GROUP BY `x``y`"
    )


def test_unknown_engine_is_an_error():
    with pytest.raises(PrivriskError, match=r"^engine: unknown engine 'polars'"):
        check_engine("polars")


def test_pyspark_missing_says_how_to_install(monkeypatch, tmp_path):
    import sys

    from privrisk.io.engine import spark_session

    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(PrivriskError, match=r"privrisk\[spark\]"):
        spark_session()


def test_cli_unknown_engine_exits_2(cli):
    r = cli("presence", "examples/presence_trial.csv", "-p", "examples/presence_census.csv", "--qi", "zip,age",
            "--population-count", "n", "--engine", "polars")  # fmt: skip
    one_line_error(r, "--engine", "polars")


def test_cli_spark_master_needs_the_spark_engine(cli):
    r = cli("presence", "examples/presence_trial.csv", "-p", "examples/presence_census.csv", "--qi", "zip,age",
            "--population-count", "n", "--spark-master", "local[2]")  # fmt: skip
    one_line_error(r, "--spark-master", "spark engine")


def test_cli_negative_rollup_threshold_exits_2(cli):
    r = cli("presence", "examples/presence_trial.csv", "-p", "examples/presence_census.csv", "--qi", "zip,age",
            "--population-count", "n", "--engine", "spark", "--spark-rollup-classes", "-1")  # fmt: skip
    one_line_error(r, "--spark-rollup-classes")


# ------------------------------------------------------------------------------------------ Spark, local mode


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_both_engines_give_the_same_classes_delta_k_and_kmap(spark, tmp_path, fmt):
    f = _tables(tmp_path)
    args = (f[f"data.{fmt}"], f[f"pop.{fmt}"], QI)
    duck = prepare_presence(*args, hierarchies=HIER)
    sprk = prepare_presence(*args, hierarchies=HIER, engine="spark")
    assert sprk.engine == "spark" and sprk.n_data == duck.n_data and sprk.n_population == duck.n_population
    # ZIP stays text with its leading zero on both engines.
    assert all(v.startswith("0") for v in sprk.plans[0].hierarchy.domain)
    for levels in ({"zip": 0, "age": 0}, {"zip": 2, "age": 1}, {"zip": 3, "age": 2, "sex": 1}):
        a, b = delta_presence(duck, levels=levels), delta_presence(sprk, levels=levels)
        _same(a.classes, b.classes)
        assert a.summary == b.summary
        for key in ("delta_max", "delta_min", "k_anonymity", "k_map", "classes"):
            assert a.summary[key] == b.summary[key]


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_both_engines_find_the_same_least_generalisation(spark, tmp_path):
    f = _tables(tmp_path, seed=3)
    kw = dict(hierarchies=HIER, delta_max=0.5, k=3, kmap=5, suppression=0.02)
    a = search_generalisation(f["data.parquet"], f["pop.parquet"], QI, **kw)
    b = search_generalisation(f["data.csv"], f["pop.csv"], QI, engine="spark", **kw)
    _same(a.minimal, b.minimal)
    _same(a.nodes, b.nodes)
    assert a.best is not None and a.best.levels == b.best.levels
    _same(a.best.classes, b.best.classes)


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_seed_001_population_given_as_counts_per_band(spark):
    """Seed 001's example on Spark: δ = 1 with 10-year bands and 0.25 after widening to 10-39 (by hand)."""
    h = {"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"}
    prep = prepare_presence("examples/presence_trial.csv", "examples/presence_census.csv", ["zip", "age"],
                            hierarchies=h, population_count="n", engine="spark")  # fmt: skip
    assert delta_presence(prep, levels={"age": 1}).summary["delta_max"] == 1.0
    s = delta_presence(prep, levels={"age": 2}).summary
    assert (s["delta_max"], s["k_map"], s["k_anonymity"]) == (0.25, 10, 1)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_rollups_equal_the_local_ones_across_the_lattice(spark, tmp_path):
    f = _tables(tmp_path, seed=11, n_pop=1500)
    local = prepare_presence(f["data.parquet"], f["pop.parquet"], QI, hierarchies=HIER)
    remote = prepare_presence(f["data.parquet"], f["pop.parquet"], QI, hierarchies=HIER, engine="spark",
                              spark_rollup_classes=0)  # fmt: skip
    assert remote.roller is not None and local.roller is None
    assert any("roll-ups run in Spark" in n for n in remote.notes)
    nodes = local.enc.nodes()
    for node in nodes[:: max(1, len(nodes) // 6)]:
        a, b = _lattice.roll_up(local.enc, node), remote.roll_up(node)
        np.testing.assert_array_equal(a.codes, b.codes)
        np.testing.assert_array_equal(a.data, b.data)
        np.testing.assert_array_equal(a.pop, b.pop)
    kw = dict(delta_max=0.4, kmap=4)
    _same(search_generalisation(local, **kw).nodes, search_generalisation(remote, **kw).nodes)


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_a_spark_dataframe_is_grouped_in_spark(spark, tmp_path):
    f = _tables(tmp_path, seed=5, n_pop=800)
    frames = [spark.read.parquet(str(f[k])) for k in ("data.parquet", "pop.parquet")]
    a = delta_presence(f["data.parquet"], f["pop.parquet"], QI, hierarchies=HIER, levels={"zip": 3})
    b = delta_presence(*frames, QI, hierarchies=HIER, levels={"zip": 3})
    _same(a.classes, b.classes)
    assert b.prepared.dataset_label == "dataset (Spark DataFrame)"


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_semicolon_csv_with_a_byte_order_mark_and_a_folder_of_parts(spark, tmp_path):
    t = tmp_path / "t.csv"
    t.write_bytes("\ufeffzip;age\n01234;30\n01234;31\n01235;30\n".encode())
    parts = tmp_path / "pop"
    parts.mkdir()
    pd.DataFrame({"zip": ["01234", "01234", "01235"], "age": [30, 31, 30]}).to_parquet(
        parts / "part-0.parquet"
    )
    pd.DataFrame({"zip": ["01234", "01235"], "age": [30, 30]}).to_parquet(parts / "part-1.parquet")
    r = delta_presence(t, parts, ["zip", "age"], hierarchies={"zip": "prefix"}, engine="spark")
    got = r.classes.sort_values(["zip", "age"]).reset_index(drop=True)
    # By hand: (01234, 30) 1 of 2, (01234, 31) 1 of 1, (01235, 30) 1 of 2.
    assert got["zip"].tolist() == ["01234", "01234", "01235"]
    assert got["delta"].tolist() == [0.5, 1.0, 0.5]


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_json_is_the_same_on_both_engines(cli, spark, tmp_path):
    f = _tables(tmp_path, seed=9, n_pop=1200)
    base = ["presence", f["data.csv"], "-p", f["pop.csv"], "--qi", ",".join(QI), "-H", "zip=prefix", "-H",
            "age=interval:5", "--delta-max", "0.5", "--kmap", "3", "--search", "--json"]  # fmt: skip
    a = cli(*base)
    b = cli(*base, "--engine", "spark", "--spark-rollup-classes", "0")
    assert a.code == b.code and a.code in (0, 1), (a.err, b.err)  # 1: the measured table misses a target
    da, db = json.loads(a.out), json.loads(b.out)
    assert (da.pop("engine"), db.pop("engine")) == ("duckdb", "spark")
    db["notes"] = [n for n in db["notes"] if "roll-ups run in Spark" not in n]
    assert da == db


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_spark_missing_file_exits_2(cli, spark, tmp_path):
    r = cli("presence", tmp_path / "nope.parquet", "-p", "examples/presence_census.csv", "--qi", "zip,age",
            "--population-count", "n", "--engine", "spark")  # fmt: skip
    one_line_error(r, "nope.parquet", "no such file")


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_spark_rejects_stata_with_one_line(cli, spark, tmp_path):
    p = tmp_path / "t.dta"
    pd.DataFrame({"zip": [1, 2], "age": [3, 4]}).to_stata(p, write_index=False)
    r = cli("presence", p, "-p", p, "--qi", "zip,age", "--engine", "spark")
    one_line_error(r, "t.dta", "engine 'spark' reads CSV and Parquet")


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_spark_missing_column_exits_2(cli, spark, tmp_path):
    f = _tables(tmp_path, seed=1, n_pop=100)
    r = cli("presence", f["data.parquet"], "-p", f["pop.parquet"], "--qi", "zip,height", "--engine", "spark")
    one_line_error(r, "data.parquet", "no column 'height'")


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_spark_count_column_must_be_numeric(cli, spark, tmp_path):
    f = _tables(tmp_path, seed=1, n_pop=100)
    r = cli("presence", f["data.parquet"], "-p", f["pop.parquet"], "--qi", "age", "--population-count", "sex",
            "--engine", "spark")  # fmt: skip
    one_line_error(r, "pop.parquet", "count column 'sex' holds text, not numbers of records")


# ------------------------------------------------------------------------------------------ empirical


def _inspections(tmp_path, n=400, months=30, seed=2):
    """Inspection-like rows: dates over ``months`` months, shops inspected a few times, integer outcomes."""
    rng = np.random.default_rng(seed)
    rows = n * 4
    day = pd.Series(
        pd.Timestamp("2015-01-01") + pd.to_timedelta(rng.integers(0, months * 30, rows), unit="D")
    )
    frame = pd.DataFrame({
        "date": day,
        "month": day.dt.to_period("M").dt.start_time,
        "shop": rng.integers(0, n, rows),
        "failed": (rng.random(rows) < 0.25).astype(int),
        "visits": rng.integers(1, 4, rows),
    })  # fmt: skip
    path = tmp_path / "inspections.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def _by_individual(r) -> pd.DataFrame:
    return r.individuals.sort_values("individual").reset_index(drop=True)


@pytest.mark.parametrize(
    "options",
    [
        dict(period="month", query="rate", value="failed", weight="visits"),
        dict(period="date", period_unit="month", query="count", aggregate=2),
        dict(period="month", query="mean", value="failed", density="ecdf", noise=0.05, draws=5, seed=3),
    ],
    ids=["rate", "count-by-month-aggregated", "mean-with-noise"],
)
@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_both_engines_give_the_same_delta_i_delta_and_total_risk(spark, tmp_path, options):
    frame, path = _inspections(tmp_path)
    kw = dict(individual="shop", epsilons=[0.1, 1.0], **options)
    a = empirical_privacy(frame, **kw)
    b = empirical_privacy(path, engine="spark", chunk_size=50, **kw)
    _same(_by_individual(a), _by_individual(b))
    for col in ("epsilon", "delta"):
        np.testing.assert_array_equal(a.summary[col], b.summary[col])
    # The same δᵢ summed in another order of individuals: equal up to the last bits of the log-space sum.
    np.testing.assert_allclose(a.summary["total_risk"], b.summary["total_risk"], rtol=1e-12)
    pd.testing.assert_series_equal(a.series, b.series)
    assert (a.footprints, a.k, a.dropped_periods) == (b.footprints, b.k, b.dropped_periods)


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_writes_delta_i_as_parquet_and_takes_a_spark_dataframe(spark, tmp_path):
    _, path = _inspections(tmp_path, n=150, months=20)
    kw = dict(period="month", individual="shop", query="rate", value="failed", epsilons=[0.3])
    out = tmp_path / "deltas"
    b = empirical_privacy(spark.read.parquet(str(path)), engine="spark", deltas_path=str(out), **kw)
    written = pd.read_parquet(out).sort_values("individual").reset_index(drop=True)
    assert list(written.columns) == ["individual", "delta_0.3"]
    mine = _by_individual(b)
    np.testing.assert_array_equal(written["individual"], mine["individual"])
    np.testing.assert_array_equal(written["delta_0.3"], mine["delta_0.3"])
    # δ* from the written δᵢ, by hand in log space: 1 − Π(1 − δᵢ).
    by_hand = -np.expm1(np.sum(np.log1p(-written["delta_0.3"].to_numpy())))
    assert b.summary["total_risk"].iloc[0] == pytest.approx(by_hand, rel=1e-12)
    assert b.summary["delta"].iloc[0] == written["delta_0.3"].max()


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_empirical_json_is_the_same_on_both_engines(cli, spark, tmp_path):
    frame, _ = _inspections(tmp_path, n=150, months=20)
    csv_path = tmp_path / "inspections.csv"
    frame.drop(columns=["date"]).to_csv(csv_path, index=False)
    base = ["empirical", csv_path, "--period", "month", "--individual", "shop", "--query", "rate", "--value",
            "failed", "--epsilons", "0.1,1", "--json"]  # fmt: skip
    a = cli(*base)
    b = cli(*base, "--engine", "spark", "--deltas-parquet", tmp_path / "d")
    assert a.code == b.code == 0, (a.err, b.err)
    da, db = json.loads(a.out), json.loads(b.out)
    assert (da.pop("engine"), db.pop("engine")) == ("duckdb", "spark")
    key = lambda r: r["individual"]  # noqa: E731
    for doc in (da, db):
        # Ties between individuals: first appearance locally, id order on Spark.
        doc["top"] = sorted(doc["top"], key=key)
        for row in doc["rows"]:
            row.pop("worst_individual")
    assert [r["delta"] for r in da["rows"]] == [r["delta"] for r in db["rows"]]
    for ra, rb in zip(da["rows"], db["rows"], strict=True):
        assert rb["total_risk"] == pytest.approx(ra["total_risk"], rel=1e-12)
    assert da["top"] == db["top"] and da["appearances"] == db["appearances"]
    assert da["footprints"] == db["footprints"] and (tmp_path / "d").is_dir()


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_empirical_spark_missing_column_exits_2(cli, spark, tmp_path):
    _, path = _inspections(tmp_path, n=20, months=5)
    r = cli("empirical", path, "--period", "month", "--individual", "store", "--query", "count",
            "--engine", "spark")  # fmt: skip
    one_line_error(r, "--individual", "no column 'store'")


def test_cli_empirical_deltas_parquet_needs_spark(cli, tmp_path):
    _, path = _inspections(tmp_path, n=20, months=5)
    r = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count",
            "--deltas-parquet", tmp_path / "d")  # fmt: skip
    one_line_error(r, "--deltas-parquet", "engine spark")


def test_cli_empirical_window_is_not_on_spark(cli, tmp_path):
    _, path = _inspections(tmp_path, n=20, months=5)
    r = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count",
            "--engine", "spark", "--window", "3")  # fmt: skip
    one_line_error(r, "--window", "engine spark")


def test_library_joint_is_not_on_spark(tmp_path):
    frame, _ = _inspections(tmp_path, n=20, months=5)
    with pytest.raises(PrivriskError, match="engine: spark measures one query"):
        empirical_privacy(frame, period="month", individual="shop", query="count", joint="sum:failed",
                          engine="spark")  # fmt: skip


@pytest.mark.spark
def test_a_local_session_gets_its_heap(spark):
    """The local JVM privrisk starts has the heap local_driver_memory chose, not Spark's 1 GB."""
    from privrisk.io.driver_memory import local_driver_memory

    heap = local_driver_memory("local[2]")
    if heap is None:
        pytest.skip("this environment sets the driver's memory itself")
    assert spark.sparkContext.getConf().get("spark.driver.memory") == heap
    assert heap.endswith("m")
    largest = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    assert largest >= 0.8 * int(heap[:-1]) * 2**20  # (the JVM counts one survivor space out)
