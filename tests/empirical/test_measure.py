"""Empirical DP over a sequence of databases (004): aggregates against re-running f, δ*, checks, presets."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk
from privrisk.datasets.chicago import chicago_clean, chicago_like
from privrisk.empirical.density import hockey_stick_delta
from privrisk.empirical.measure import delta_column, empirical_privacy, empirical_privacy_of, total_risk
from privrisk.empirical.periods import ljung_box
from privrisk.empirical.windows import rolling_privacy
from privrisk.errors import PrivriskError

EPS = [0.05, 0.2, 1.0]


def panel(periods=30, people=40, rows=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "period": rng.integers(0, periods, rows),
            "who": rng.integers(0, people, rows).astype(str),
            "value": rng.gamma(2.0, 3.0, rows).round(1),
            "weight": rng.integers(1, 4, rows).astype(float),
        }
    )


def naive_answer(rows: pd.DataFrame, query: str) -> float:
    """f on one database, straight from its rows; NaN for an empty database."""
    if rows.empty:
        return math.nan
    if query == "count":
        return float(len(rows))
    if query == "sum":
        return float(rows["value"].sum())
    if query == "mean":
        return float(rows["value"].mean())
    return float(rows["value"].sum() / rows["weight"].sum())


def naive_deltas(df: pd.DataFrame, query: str, eps, **kw) -> pd.DataFrame:
    """Re-run f on every database without every individual (the definition; slow)."""
    periods = sorted(df["period"].unique())
    full = np.array([naive_answer(df[df["period"] == s], query) for s in periods])
    out = {}
    for who in df["who"].unique():
        rest = df[df["who"] != who]
        without = np.array([naive_answer(rest[rest["period"] == s], query) for s in periods])
        out[who] = hockey_stick_delta(full, without, eps, **kw)
    return pd.DataFrame(out, index=[delta_column(e) for e in eps]).T


@pytest.mark.parametrize("query", ["count", "sum", "mean", "rate"])
def test_aggregates_equal_rerunning_the_query(query):
    df = panel(people=25, rows=120, seed=4)  # sparse: some people alone make up a period
    weight = "weight" if query == "rate" else None
    result = empirical_privacy(df, period="period", individual="who", query=query, value="value",
                               weight=weight, epsilons=EPS, density="kde-box")  # fmt: skip
    naive = naive_deltas(df, query, EPS)
    got = result.individuals.set_index("individual")[naive.columns].loc[naive.index]
    np.testing.assert_allclose(got.to_numpy(), naive.to_numpy(), atol=1e-12)
    # the summary is the max and the log-space product of the same δᵢ
    np.testing.assert_allclose(result.summary["delta"], naive.max(axis=0).to_numpy(), atol=1e-12)
    np.testing.assert_allclose(
        result.summary["total_risk"], 1 - np.prod(1 - naive.to_numpy(), axis=0), atol=1e-9
    )


def test_sole_periods_are_counted():
    df = pd.DataFrame({"period": [0, 0, 1, 1, 2, 3, 3, 4], "who": list("abacaabb"), "value": [1.0] * 8})
    r = empirical_privacy(
        df, period="period", individual="who", query="sum", value="value", k=1, epsilons=[1]
    )
    sole = r.individuals.set_index("individual")["sole_periods"]
    assert sole.to_dict() == {"a": 1, "b": 1, "c": 0}  # a alone in period 2; b alone in period 4
    assert r.individuals.set_index("individual")["periods"].to_dict() == {"a": 4, "b": 3, "c": 1}


def test_total_risk_against_definition():
    d = np.array([0.1, 0.2, 0.0, 0.05])
    assert total_risk(d) == pytest.approx(1 - 0.9 * 0.8 * 1.0 * 0.95)
    assert total_risk(np.full(32036, 1e-5)) == pytest.approx(
        1 - (1 - 1e-5) ** 32036, rel=1e-10
    )  # 1 − 1e-5 is rounded
    assert total_risk([]) == 0.0 and total_risk([1.0, 0.0]) == 1.0
    np.testing.assert_allclose(total_risk(np.array([[0.5, 0.1], [0.5, 0.1]]), axis=0), [0.75, 0.19])


def test_ljung_box_by_hand():
    lb = ljung_box([1, -1, 1, -1, 1, -1], lags=1)
    assert lb["autocorrelation"].iloc[0] == pytest.approx(-5 / 6)
    assert lb["statistic"].iloc[0] == pytest.approx(6 * 8 * (25 / 36) / 5)
    noise = np.random.default_rng(0).normal(size=200)
    assert ljung_box(noise)["p_value"].iloc[-1] > 0.05
    ar = np.zeros(200)
    for i in range(1, 200):
        ar[i] = 0.8 * ar[i - 1] + noise[i]
    assert ljung_box(ar)["p_value"].iloc[-1] < 1e-6


def test_independent_databases_of_an_autocorrelated_statistic_are_flagged():
    rng = np.random.default_rng(1)
    months = np.repeat(np.arange(60), 50)
    level = np.cumsum(rng.normal(size=60))  # a random walk: strongly autocorrelated
    df = pd.DataFrame(
        {
            "m": months,
            "id": rng.integers(0, 400, months.size),
            "v": level[months] + rng.normal(size=months.size),
        }
    )
    r = empirical_privacy(df, period="m", individual="id", query="mean", value="v", epsilons=[0.5])
    assert r.independence["p_value"].iloc[-1] < 0.01
    merged = empirical_privacy(
        df, period="m", individual="id", query="mean", value="v", epsilons=[0.5], aggregate=4
    )
    assert merged.periods == 15


def test_aggregate_drops_incomplete_last_group():
    df = panel(periods=31)
    r = empirical_privacy(df, period="period", individual="who", query="count", epsilons=[1], aggregate=3)
    assert r.periods == 10 and r.dropped_periods == 1
    assert r.series.sum() == (df["period"] < 30).sum()


def test_period_unit_from_dates():
    days = pd.date_range("2020-01-01", periods=180, freq="D")
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {"day": np.repeat(days, 5), "who": rng.integers(0, 50, 900), "late": rng.random(900) < 0.3}
    )
    r = empirical_privacy(
        df, period="day", individual="who", query="rate", value="late", period_unit="month", epsilons=[1]
    )
    assert r.periods == 6 and r.k == 2
    w = empirical_privacy(
        df, period="day", individual="who", query="rate", value="late", period_unit="week", epsilons=[1]
    )
    assert w.periods == df["day"].dt.to_period("W").nunique() == 26  # Mon–Sun weeks, the first one partial


def test_rolling_windows():
    df = panel(periods=40, people=30, rows=600)
    windows = rolling_privacy(
        df, window=20, step=10, period="period", individual="who", query="count", epsilons=[0.1, 1]
    )
    assert len(windows) == 3 * 2
    assert windows["first"].tolist()[::2] == [0, 10, 20]
    assert set(windows.columns) >= {"first", "last", "periods", "epsilon", "delta", "total_risk"}
    # Each window is the definition re-run on its 20 periods alone: δ = maxᵢ δᵢ and δ* = 1 − Πᵢ(1 − δᵢ).
    for first in (0, 10, 20):
        rows = windows[windows["first"] == first]
        assert rows["last"].tolist() == [first + 19] * 2 and rows["periods"].tolist() == [20, 20]
        naive = naive_deltas(df[df["period"].between(first, first + 19)], "count", [0.1, 1])
        np.testing.assert_allclose(rows["delta"], naive.max(axis=0), atol=1e-12)
        np.testing.assert_allclose(rows["total_risk"], 1 - np.prod(1 - naive.to_numpy(), axis=0), atol=1e-9)


def test_identical_footprints_share_delta():
    df = pd.DataFrame(
        {"period": np.repeat(np.arange(12), 4), "who": [f"p{i}" for i in range(48)], "value": 1.0}
    )
    r = empirical_privacy(df, period="period", individual="who", query="count", epsilons=[0.5])
    assert r.footprints == 12  # the 4 people of a period leave the same answers behind
    assert r.individuals[delta_column(0.5)].nunique() == 1  # and all periods look alike


def test_riskiest_first_and_without_worst():
    df = panel(seed=7)
    r = empirical_privacy(df, period="period", individual="who", query="sum", value="value", epsilons=EPS)
    col = delta_column(EPS[0])
    assert r.individuals[col].is_monotonic_decreasing
    assert r.summary["delta"].iloc[0] == r.individuals[col].iloc[0]
    assert r.without_worst.shape == r.series.shape
    assert len(r.top(10)) == 10
    # The series and the answers without the worst individual (the figure's ε is the one nearest 0.1: 0.05), by
    # summing the rows directly.
    assert r.individuals[col].iloc[0] == r.individuals.set_index("individual").loc[r.worst, col]
    periods = sorted(df["period"].unique())
    np.testing.assert_allclose(
        r.series.to_numpy(), [naive_answer(df[df["period"] == s], "sum") for s in periods]
    )
    rest = df[df["who"] != r.worst]
    without = [naive_answer(rest[rest["period"] == s], "sum") for s in periods]
    np.testing.assert_allclose(r.without_worst, without, atol=1e-9)


def test_chicago_preset_cleaning():
    raw = chicago_like(400, 24, seed=5)
    clean, dropped = chicago_clean(raw)
    assert not clean["Inspection Type"].str.contains("Re-Inspection").any()
    assert set(clean["Results"]) <= {"Pass", "Fail", "Pass w/ Conditions"}
    assert (
        dropped["re-inspection or other type"] == raw["Inspection Type"].str.contains("Re-Inspection").sum()
    )
    assert clean["month"].nunique() == 24
    assert clean["failed"].mean() == pytest.approx((clean["Results"] == "Fail").mean())
    with pytest.raises(PrivriskError, match="Results"):
        chicago_clean(raw.drop(columns="Results"))


def test_generator_is_reproducible():
    pd.testing.assert_frame_equal(chicago_like(50, 6, seed=9), chicago_like(50, 6, seed=9))


@pytest.mark.parametrize(
    ("change", "kwargs", "match"),
    [
        (lambda d: d.assign(period=0), {}, "^period:"),
        (lambda d: d.assign(who=d["who"].where(d.index != 3)), {}, "^individual:"),
        (
            lambda d: d.assign(weight=np.where(d["period"] == 2, 0.0, d["weight"])),
            {"weight": "weight"},
            "^weight:",
        ),
        (lambda d: d, {"epsilons": [0.1, 0.0]}, "^epsilons:"),
        (lambda d: d, {"epsilons": [-1.0]}, "^epsilons:"),
        (lambda d: d, {"k": 30}, "^k:"),
        (lambda d: d, {"density": "histogram"}, "^density:"),
        (lambda d: d, {"query": "median"}, "^query:"),
        (lambda d: d, {"value": "nope"}, "^value:"),
    ],
)
def test_bad_input(change, kwargs, match):
    df = change(panel(periods=30))
    args = dict(period="period", individual="who", query="rate", value="value", epsilons=[0.1]) | kwargs
    with pytest.raises(PrivriskError, match=match):
        empirical_privacy(df, **args)


def test_public_names():
    for name in (
        "empirical_privacy",
        "hockey_stick_delta",
        "total_risk",
        "gaussian_shift_delta",
        "chicago_like",
    ):
        assert hasattr(privrisk, name)


def test_callable_statistic_matches_the_builtin_query():
    df = panel(people=25, rows=150, seed=5)
    builtin = empirical_privacy(
        df, period="period", individual="who", query="mean", value="value", epsilons=EPS
    )
    slow = empirical_privacy_of(
        df, lambda rows: rows["value"].mean(), period="period", individual="who", epsilons=EPS
    )
    cols = [delta_column(e) for e in EPS]
    a = builtin.individuals.set_index("individual").sort_index()
    b = slow.individuals.set_index("individual").sort_index()
    np.testing.assert_allclose(a[cols].to_numpy(), b[cols].to_numpy(), atol=1e-9)
    assert (a["sole_periods"] == b["sole_periods"]).all() and (a["rows"] == b["rows"]).all()


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    periods=st.integers(3, 15),
    query=st.sampled_from(["count", "sum", "mean", "rate"]),
    density=st.sampled_from(["kde-box", "kde-triangle", "ecdf"]),
)
def test_invariants(seed, periods, query, density):
    df = panel(periods=periods, people=12, rows=60, seed=seed)
    if df["period"].nunique() < 3:
        return
    eps = [0.0001, 0.1, 1.0, 5.0]
    r = empirical_privacy(
        df,
        period="period",
        individual="who",
        query=query,
        value="value",
        weight="weight" if query == "rate" else None,
        epsilons=eps,
        density=density,
    )
    d, star = r.summary["delta"].to_numpy(), r.summary["total_risk"].to_numpy()
    assert np.all((0 <= d) & (d <= star + 1e-12) & (star <= 1))
    assert np.all(np.diff(d) <= 1e-12) and np.all(np.diff(star) <= 1e-12)
    cols = [delta_column(e) for e in eps]
    assert np.all(np.diff(r.individuals[cols].to_numpy(), axis=1) <= 1e-12)
