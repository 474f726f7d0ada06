"""The one way in to empirical DP: every bad combination of EmpiricalSettings names its field; the Chicago preset's
defaults live once; the run's δ and δ* against a recomputation by hand; the verdict's words follow its number."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from privrisk.datasets.chicago import chicago_like
from privrisk.empirical import CHICAGO, EmpiricalSettings, run_empirical, write_outputs
from privrisk.empirical.density import hockey_stick_delta
from privrisk.empirical.run import chance_words
from privrisk.errors import DependenceWarning, PrivriskError

COLS = {"data": "x.csv", "period": "m", "individual": "id", "query": "count"}


@pytest.mark.parametrize(
    ("given", "param"),
    [
        ({"data": None}, "data"),
        ({"period": None}, "period"),
        ({"individual": " "}, "individual"),
        ({"query": None}, "query"),
        ({"query": "max"}, "query"),
        ({"query": "sum"}, "value"),  # a sum needs its column
        ({"query": "mean", "value": "v", "weight": "w"}, "weight"),  # only a rate takes a weight
        ({"preset": "paris"}, "preset"),
        ({"period_unit": "fortnight"}, "period_unit"),
        ({"epsilons": "0.1,0"}, "epsilons"),
        ({"epsilons": "x"}, "epsilons"),
        ({"epsilons": []}, "epsilons"),
        ({"density": "kde"}, "density"),
        ({"k": "0"}, "k"),
        ({"k": "many"}, "k"),
        ({"aggregate": 0}, "aggregate"),
        ({"window": 2}, "window"),
        ({"step": 2}, "step"),  # a step without a window
        ({"window": 6, "step": "0"}, "step"),
        ({"lags": 0}, "lags"),
        ({"buckets": 0}, "buckets"),
        ({"draws": 0}, "draws"),
        ({"seed": -1}, "seed"),
        ({"top": -1}, "top"),
        ({"noise": "gauss:1"}, "noise"),
        ({"noise": "laplace:x"}, "noise"),
        ({"noise": "laplace:"}, "noise"),
        ({"noise": -0.5}, "noise"),
        ({"target_delta": "1.5"}, "target_delta"),
        ({"target_delta": "x"}, "target_delta"),
        ({"target_delta": 0.1, "noise": 0.5}, "target_delta"),  # the search finds the noise itself
        ({"joint": "max:x"}, "joint"),
        ({"joint": "count", "density": "ecdf"}, "joint"),  # joint densities are box kernels
        ({"joint": "count", "noise": 1}, "joint"),
        ({"joint": "count", "condition_on": "count"}, "joint"),
        ({"engine": "flink"}, "engine"),
        ({"spark_master": "local[2]"}, "spark_master"),  # only with Spark
        ({"deltas_path": "d.parquet"}, "deltas_path"),
        ({"engine": "spark", "window": 6}, "window"),  # not with Spark
        ({"engine": "spark", "target_delta": 0.1}, "target_delta"),
        ({"engine": "spark", "joint": "count"}, "joint"),
        ({"engine": "spark", "condition_on": "count"}, "condition_on"),
    ],
)
def test_every_bad_combination_names_its_field(given, param):
    with pytest.raises(PrivriskError) as caught:
        EmpiricalSettings(**{**COLS, **given})
    assert caught.value.param == param
    assert str(caught.value).startswith(param + ":")


def test_the_chicago_defaults_live_once_and_give_way_to_what_is_given():
    s = EmpiricalSettings.chicago("i.csv")
    assert {k: getattr(s, k) for k in CHICAGO} == dict(CHICAGO)
    assert CHICAGO == {"period": "month", "individual": "License #", "query": "rate", "value": "failed"}
    assert s.epsilons == (0.03, 0.1, 0.3) and s.density == "kde-box" and s.k is None and s.top == 10
    # A period unit applies to a period column given, not to the preset's month (as --preset without --period).
    assert EmpiricalSettings.chicago("i.csv", period_unit="week").period_unit is None
    own = EmpiricalSettings.chicago("i.csv", period="Inspection Date", period_unit="week", query="count")
    assert (own.period, own.period_unit, own.query, own.individual) == (
        "Inspection Date",
        "week",
        "count",
        "License #",
    )


def test_text_as_a_page_holds_it_is_normalised():
    s = EmpiricalSettings(**COLS, epsilons="0.1, ln2", k="auto", aggregate="2", window="", noise="laplace:0.5",
                          target_delta="", draws="4", seed="3", top="")  # fmt: skip
    assert s.epsilons == (0.1, pytest.approx(math.log(2))) and (s.k, s.aggregate, s.window) == (None, 2, None)
    assert (s.noise, s.target_delta, s.draws, s.seed, s.top) == (0.5, None, 4, 3, 10)
    assert s.measure_options()["epsilons"] == [0.1, pytest.approx(math.log(2))]


@pytest.fixture(scope="module")
def panel():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "month": np.repeat(np.arange(24), 20),
            "shop": rng.integers(0, 80, 480),
            "failed": (rng.random(480) < 0.25).astype(int),
            "inspected": rng.integers(1, 3, 480),
        }
    )


def test_the_run_gives_delta_and_total_risk_recomputed_by_hand(panel, tmp_path):
    path = tmp_path / "panel.csv"
    panel.to_csv(path, index=False)
    eps = [0.1, math.log(2)]
    s = EmpiricalSettings(data=path, period="month", individual="shop", query="rate", value="failed",
                          weight="inspected", epsilons=eps, density="ecdf", k=4, name="panel.csv")  # fmt: skip
    run = run_empirical(s)
    # By hand: the rate Σfailed/Σinspected every month without each shop (the definition of δᵢ), δ = maxᵢ δᵢ and
    # δ* = 1 − Πᵢ(1 − δᵢ) (Burchard and Daoud 2022, Definitions 2 and 3).
    grouped = panel.groupby("month")[["failed", "inspected"]].sum()
    full = (grouped["failed"] / grouped["inspected"]).to_numpy(float)
    table = []
    for _, own in panel.groupby("shop"):
        rest = grouped.sub(own.groupby("month")[["failed", "inspected"]].sum(), fill_value=0)
        without = np.where(
            rest["inspected"] > 0, rest["failed"] / rest["inspected"].where(rest["inspected"] > 0), np.nan
        )
        table.append(hockey_stick_delta(full, without, eps, density="ecdf", k=4))
    table = np.array(table)
    doc = run.to_dict()
    assert doc["file"] == "panel.csv" and doc["periods"] == 24 and doc["k"] == 4
    for j, row in enumerate(doc["rows"]):
        assert row["delta"] == pytest.approx(table[:, j].max(), abs=1e-12)
        assert row["total_risk"] == pytest.approx(1 - np.prod(1 - table[:, j]), abs=1e-9)
    # The verdict's number is δ* at the largest ε; its words come from that number.
    p = doc["rows"][1]["total_risk"]
    v = run.verdict()
    assert v.sentence.startswith(
        f"It is {chance_words(p)} that publishing the rate every period exposes someone"
    )
    assert "a factor of 2" in v.sentence and not any(ch in v.sentence for ch in "εδΔ")
    folder = run.write(tmp_path / "out")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["parameters"]["weight"] == "inspected" and manifest["parameters"]["k"] == 4


def test_the_run_collects_the_warnings_once_and_reports_its_steps():
    rng = np.random.default_rng(1)
    months = np.repeat(np.arange(60), 50)
    level = np.cumsum(rng.normal(size=60))  # a random walk: the monthly means are autocorrelated
    df = pd.DataFrame(
        {
            "m": months,
            "id": rng.integers(0, 400, months.size),
            "v": level[months] + rng.normal(size=months.size),
        }
    )
    seen: list[tuple[float, str]] = []

    s = EmpiricalSettings(
        data=df, period="m", individual="id", query="mean", value="v", epsilons=[0.5], window=20
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DependenceWarning)  # collected, not issued
        run = run_empirical(s, progress=lambda done, message: seen.append((done, message)))
    assert run.warned(DependenceWarning) == [next(t for _, t in run.warnings)]
    assert run.warned(DependenceWarning)[0].startswith("aggregate: the answers are autocorrelated")
    assert [m for _, m in seen if "done" not in m] == [
        "Reading the data",
        "Measuring the individuals",
        "Measuring the rolling windows",
    ]
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)  # each step keeps its share of the bar
    # one unit per distinct footprint measured (Burchard and Daoud: δᵢ once per footprint), then one per window
    assert (
        seen[-1][1]
        == "Measuring the rolling windows: 5 done"
        == f"Measuring the rolling windows: {run.windows['first'].nunique()} done"
    )
    assert f"Measuring the individuals: {run.result.footprints:,} done" in [m for _, m in seen]


def test_the_preset_cleans_and_measures_the_chicago_file(tmp_path):
    path = tmp_path / "inspections.parquet"
    chicago_like(300, 24, seed=4).to_parquet(path)
    run = run_empirical(EmpiricalSettings.chicago(path, epsilons=[0.3], top=3))
    doc = run.to_dict()
    assert doc["preset"] == "chicago" and doc["cleaning"]["re-inspection or other type"] > 0
    assert doc["periods"] == 24 and len(doc["top"]) == 3 and run.result.query == "rate"


@pytest.mark.parametrize(
    ("p", "words"),
    [(1.0, "certain"), (0.9999, "almost certain"), (0.95, "very likely"), (0.51, "more likely than not"),
     (0.5, "as likely as not"), (0.2, "less likely than not"), (0.02, "unlikely"), (1e-9, "very unlikely"),
     (0.0, "not expected")],
)  # fmt: skip
def test_chance_words_follow_the_number(p, words):
    assert chance_words(p) == words


def test_a_verdict_of_certainty_says_certain():
    df = pd.DataFrame({"m": np.repeat(np.arange(12), 4), "id": np.tile([1, 2, 3, 4], 12)})
    # 4 rows a month, 3 without anyone: every count without i differs from every count with it, so δᵢ = 1.
    v = run_empirical(EmpiricalSettings(data=df, period="m", individual="id", query="count")).verdict()
    assert v.headline == "100 % chance that someone is exposed"
    assert v.sentence.startswith("It is certain that") and "more likely than not" not in v.sentence


def test_the_old_write_outputs_warns(tmp_path):
    df = pd.DataFrame({"m": np.repeat(np.arange(12), 4), "id": np.tile([1, 2, 3, 4], 12)})
    run = run_empirical(EmpiricalSettings(data=df, period="m", individual="id", query="count"))
    with pytest.warns(DeprecationWarning, match="write_outputs is deprecated"):
        folder = write_outputs(tmp_path / "old", run.result)
    assert json.loads((folder / "manifest.json").read_text())["kind"] == "empirical"


def test_the_old_names_and_the_old_progress_warn_and_give_the_same(tmp_path):
    import importlib

    df = pd.DataFrame({"m": np.repeat(np.arange(12), 4), "id": np.tile([1, 2, 3, 4], 12)})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    new = run_empirical(
        EmpiricalSettings(data=path, name="d.csv", period="m", individual="id", query="count")
    )
    with pytest.warns(DeprecationWarning, match=r"EmpiricalSettings\(file=…\) is deprecated"):
        old = EmpiricalSettings(file=path, period="m", individual="id", query="count")
    steps: list[str] = []
    with pytest.warns(DeprecationWarning) as caught:
        by_old = run_empirical(
            old, stages=lambda text: steps.append(text) or (lambda k=1: None), name="d.csv"
        )
    said = [str(w.message) for w in caught]
    assert any(m.startswith("run_empirical(…, stages=…) is deprecated") for m in said)
    assert any(m.startswith("run_empirical(…, name=…) is deprecated") for m in said)
    assert by_old.to_dict() == new.to_dict() and steps == ["Reading the data", "Measuring the individuals"]
    with pytest.warns(DeprecationWarning, match=r"EmpiricalSettings\(table=…\) is deprecated"):
        assert EmpiricalSettings(table=df, period="m", individual="id", query="count").data is df
    shim = importlib.import_module("privrisk.empirical.settings")
    for name in ("EmpiricalSettings", "EmpiricalRun", "run_empirical", "Stages", "CHICAGO", "chance_words"):
        with pytest.warns(DeprecationWarning, match=f"use privrisk.empirical.run.{name}"):
            assert getattr(shim, name) is getattr(importlib.import_module("privrisk.empirical.run"), name)
