"""``privrisk empirical``: JSON keys, outputs, the Chicago preset, one-line errors for bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.datasets.chicago import chicago_like
from privrisk.empirical.density import hockey_stick_delta


@pytest.fixture(scope="module")
def inspections(tmp_path_factory):
    path = tmp_path_factory.mktemp("emp") / "inspections.parquet"
    chicago_like(600, 36, seed=4).to_parquet(path)
    return path


@pytest.fixture
def panel_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "month": np.repeat(np.arange(24), 20),
            "shop": rng.integers(0, 80, 480),
            "failed": (rng.random(480) < 0.25).astype(int),
            "inspected": rng.integers(1, 3, 480),
        }
    )
    path = tmp_path / "panel.csv"
    df.to_csv(path, index=False)
    return path, df


def test_preset_chicago_json(cli, inspections):
    r = cli("empirical", inspections, "--preset", "chicago", "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["schema_version"] == 1
    assert {"periods", "individuals", "k", "density", "rows"} <= set(doc)
    assert doc["periods"] == 36 and doc["k"] == 6 and doc["density"] == "kde-box"
    assert [row["epsilon"] for row in doc["rows"]] == [0.03, 0.1, 0.3]
    for row in doc["rows"]:
        assert set(row) == {"epsilon", "delta", "total_risk", "worst_individual"}
        assert 0 <= row["delta"] <= row["total_risk"] <= 1
    assert len(doc["top"]) == 10
    assert doc["cleaning"]["re-inspection or other type"] > 0
    assert 1 <= doc["appearances"]["min"] <= doc["appearances"]["median"] <= doc["appearances"]["max"] <= 36


def test_outputs_folder(cli, inspections, tmp_path):
    out = tmp_path / "result"
    r = cli("empirical", inspections, "--preset", "chicago", "--out", out, "--window", "24", "--step", "12")
    assert r.code == 0, r.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "empirical"
    assert manifest["summary"]["periods"] == 36
    for fig in manifest["figures"]:
        assert (out / fig["png"]).stat().st_size > 0 and (out / fig["svg"]).read_text().startswith("<?xml")
    for table in manifest["tables"]:
        assert (out / table["path"]).exists()
    people = pd.read_parquet(out / "individuals.parquet")
    assert {"individual", "periods", "delta_0.03", "delta_0.1", "delta_0.3"} <= set(people.columns)
    assert people["delta_0.03"].max() == pytest.approx(manifest["summary"]["rows"][0]["delta"])
    windows = pd.read_csv(out / "windows.csv")
    assert windows["first"].nunique() == 2
    doc = cli(
        "empirical", inspections, "--preset", "chicago", "--window", "24", "--step", "12", "--json"
    ).json
    assert [w["first"] for w in doc["windows"]][::3] == [
        "2010-01-01",
        "2011-01-01",
    ]  # monthly periods as dates
    assert "Empirical privacy" in r.out and "riskiest" in r.out


def test_generic_columns_and_human_output(cli, panel_csv):
    path, _ = panel_csv
    r = cli(
        "empirical",
        path,
        "--period",
        "month",
        "--individual",
        "shop",
        "--query",
        "rate",
        "--value",
        "failed",
        "--weight",
        "inspected",
        "--epsilons",
        "0.1,ln2",
        "--density",
        "ecdf",
        "--k",
        "4",
        "--json",
    )
    assert r.code == 0, r.err
    doc = r.json
    assert doc["periods"] == 24 and doc["individuals"] == 80 and doc["k"] == 4 and doc["density"] == "ecdf"
    assert doc["rows"][1]["epsilon"] == pytest.approx(np.log(2))
    # Independently: re-run the rate Σfailed/Σinspected on every month without each shop (the definition of δᵢ),
    # then δ = maxᵢ δᵢ and δ* = 1 − Πᵢ(1 − δᵢ).
    _, df = panel_csv
    eps = [0.1, np.log(2)]
    grouped = df.groupby("month")[["failed", "inspected"]].sum()
    full = (grouped["failed"] / grouped["inspected"]).to_numpy(float)
    deltas = {}
    for shop, own in df.groupby("shop"):
        rest = grouped.sub(own.groupby("month")[["failed", "inspected"]].sum(), fill_value=0)
        without = np.where(
            rest["inspected"] > 0, rest["failed"] / rest["inspected"].where(rest["inspected"] > 0), np.nan
        )
        deltas[shop] = hockey_stick_delta(full, without, eps, density="ecdf", k=4)
    table = np.array(list(deltas.values()))
    for j, row in enumerate(doc["rows"]):
        assert row["delta"] == pytest.approx(table[:, j].max(), abs=1e-12)
        assert row["total_risk"] == pytest.approx(1 - np.prod(1 - table[:, j]), abs=1e-9)
        assert table[list(deltas).index(int(row["worst_individual"])), j] == pytest.approx(
            row["delta"], abs=1e-12
        )
    text = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count")
    assert text.code == 0 and "δ* (total risk)" in text.out


def test_bad_input_one_period(cli, panel_csv, tmp_path):
    _, df = panel_csv
    one = tmp_path / "one.csv"
    df.assign(month=3).to_csv(one, index=False)
    r = cli("empirical", one, "--period", "month", "--individual", "shop", "--query", "count")
    one_line_error(r, "--period", "1 period")


def test_bad_input_missing_ids(cli, panel_csv, tmp_path):
    _, df = panel_csv
    gaps = tmp_path / "gaps.csv"
    df.assign(shop=df["shop"].astype(float).where(df.index % 50 != 0)).to_csv(gaps, index=False)
    r = cli("empirical", gaps, "--period", "month", "--individual", "shop", "--query", "count")
    one_line_error(r, "--individual", "missing ids")


def test_bad_input_rate_weight_sums_to_zero(cli, panel_csv, tmp_path):
    _, df = panel_csv
    zero = tmp_path / "zero.csv"
    df.assign(inspected=np.where(df["month"] == 5, 0, df["inspected"])).to_csv(zero, index=False)
    r = cli(
        "empirical",
        zero,
        "--period",
        "month",
        "--individual",
        "shop",
        "--query",
        "rate",
        "--value",
        "failed",
        "--weight",
        "inspected",
    )
    one_line_error(r, "--weight", "sums to zero", "period 5")


@pytest.mark.parametrize("eps", ["0", "-0.1", "0.1,0"])
def test_bad_input_epsilon(cli, panel_csv, eps):
    path, _ = panel_csv
    r = cli(
        "empirical", path, "--period", "month", "--individual", "shop", "--query", "count", "--epsilons", eps
    )
    one_line_error(r, "--epsilons")


def test_bad_input_k_larger_than_t(cli, panel_csv):
    path, _ = panel_csv
    r = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count", "--k", "30")
    one_line_error(r, "--k", "24 periods")


def test_bad_input_options(cli, panel_csv):
    path, _ = panel_csv
    one_line_error(cli("empirical", path, "--individual", "shop", "--query", "count"), "--period")
    one_line_error(
        cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "max"), "--query"
    )
    one_line_error(cli("empirical", path, "--preset", "paris"), "--preset")
    one_line_error(cli("empirical", path, "--preset", "chicago"), "--preset chicago", "Results")
    one_line_error(
        cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "sum"), "--value"
    )


def test_extras_from_the_command_line(cli, panel_csv):
    path, _ = panel_csv
    base = (
        "empirical",
        path,
        "--period",
        "month",
        "--individual",
        "shop",
        "--query",
        "rate",
        "--value",
        "failed",
        "--epsilons",
        "0.5",
        "--json",
    )
    joint = cli(*base, "--joint", "count").json
    assert joint["joint"] == "count" and 0 <= joint["rows"][0]["delta"] <= 1
    cond = cli(*base, "--condition-on", "sum:failed", "--buckets", "3")
    assert cond.code == 0 and sum(b["periods"] for b in cond.json["conditional"]) == 24
    assert "too few" in cond.err  # about 8 periods per bucket
    same = cli(*base, "--condition-on", "count", "--buckets", "3").json  # 20 rows every month: one bucket
    assert [b["periods"] for b in same["conditional"]] == [24]
    noisy = cli(*base, "--noise", "laplace:0.5", "--draws", "4", "--seed", "2").json
    assert noisy["noise"] == {"distribution": "laplace", "scale": 0.5, "draws": 4, "seed": 2}
    target = cli(*base, "--target-delta", "0.05", "--draws", "4").json
    row = target["smallest_noise"][0]
    assert row["delta"] <= 0.05 or row["scale"] is None


@pytest.mark.parametrize(
    ("flag", "value"), [("--noise", "gauss:1"), ("--noise", "laplace:x"), ("--joint", "max:x")]
)
def test_extras_bad_input(cli, panel_csv, flag, value):
    path, _ = panel_csv
    r = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count", flag, value)
    one_line_error(r, flag)


def test_the_library_warning_about_autocorrelation_is_shown_once(cli, tmp_path):
    rng = np.random.default_rng(1)
    months = np.repeat(np.arange(60), 50)
    level = np.cumsum(rng.normal(size=60))  # a random walk: the monthly means are autocorrelated
    path = tmp_path / "walk.csv"
    pd.DataFrame(
        {
            "m": months,
            "id": rng.integers(0, 400, months.size),
            "v": level[months] + rng.normal(size=months.size),
        }
    ).to_csv(path, index=False)
    args = ("empirical", path, "--period", "m", "--individual", "id", "--query", "mean", "--value", "v")
    r = cli(*args, "--epsilons", "0.5", "--window", "20", "--json")
    assert r.code == 0, r.err
    assert r.json["independence"]["significant"] is True
    text = " ".join(r.err.split())  # Rich wraps long lines
    assert text.count("autocorrelated") == 1
    assert "warning: --aggregate: the answers are autocorrelated" in text
    assert "merge 2 consecutive periods into one" in text


def test_target_delta_and_windows_show_their_steps_on_a_terminal(cli, panel_csv, monkeypatch):
    """Issue 20: ``empirical … --target-delta`` ran for minutes without a word."""
    import io

    from rich.console import Console

    from privrisk.cli import _progress

    path, _ = panel_csv
    drawn = io.StringIO()
    monkeypatch.setattr(_progress, "err", Console(file=drawn, force_terminal=True, width=100))
    base = ("empirical", path, "--period", "month", "--individual", "shop", "--query", "rate", "--value", "failed",
            "--epsilons", "0.5", "--draws", "4")  # fmt: skip
    r = cli(*base, "--target-delta", "0.05", "--window", "6")
    assert r.code == 0, r.err
    for step in ("Reading the data", "Measuring the individuals", "Measuring the rolling windows",
                 "Searching the noise scale"):  # fmt: skip
        assert step in drawn.getvalue()
    before = len(drawn.getvalue())
    assert cli(*base, "--target-delta", "0.05", "--json").code == 0 and len(drawn.getvalue()) == before


def test_the_library_counts_its_steps():
    from privrisk.empirical.search import smallest_noise
    from privrisk.empirical.windows import rolling_privacy

    rng = np.random.default_rng(4)
    df = pd.DataFrame({"m": np.repeat(np.arange(30), 10), "id": rng.integers(0, 40, 300), "v": rng.gamma(2.0, 1.0, 300)})
    counted: list[int] = []
    found = smallest_noise(df, target_delta=0.02, epsilons=[0.1], steps=3, period="m", individual="id",
                           query="mean", value="v", draws=4, progress=counted.append)  # fmt: skip
    assert sum(counted) >= 1 + 3 and not found.empty  # the measurement without noise, then the bisection
    counted.clear()
    w = rolling_privacy(df, window=10, period="m", individual="id", query="count", epsilons=[1.0],
                        progress=counted.append)  # fmt: skip
    assert sum(counted) == w["first"].nunique() == 5


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (("--step", "3"), "--step"),  # a step without a window
        (("--spark-master", "local[2]"), "--spark-master"),  # only with --engine spark
        (("--engine", "spark", "--window", "6"), "--window"),  # not with Spark
        (("--noise", "laplace:0.5", "--target-delta", "0.1"), "--target-delta"),
        (("--joint", "count", "--density", "ecdf"), "--joint"),
        (("--k", "many"), "--k"),
    ],
)
def test_options_that_do_not_go_together_name_the_option(cli, panel_csv, extra, option):
    """EmpiricalSettings checks every combination; the command names its own option for the field."""
    path, _ = panel_csv
    r = cli("empirical", path, "--period", "month", "--individual", "shop", "--query", "count", *extra)
    one_line_error(r, option)
