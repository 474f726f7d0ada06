"""Issue 12, hostile inputs: every bad value or file is exit 2 with one line naming it; no input changes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import one_line_error

BANDS = "age=breaks:10,20,30,40,50,inf/10,40,50,inf"


@pytest.fixture
def seed(trial_and_census):
    return trial_and_census


def presence(cli, t, *extra, hierarchy=BANDS):
    before = t.read_bytes()
    r = cli("presence", t, "--qi", "zip,age", "-H", hierarchy, "--levels", "age=1", "--kmap", "2", *extra)
    assert t.read_bytes() == before
    return r


# ----------------------------------------------------------------------------------------------- presence


@pytest.mark.parametrize("value", ["nan", "inf", "1e308"])
def test_presence_population_size_not_finite_or_huge(cli, seed, value):
    t, _ = seed
    one_line_error(presence(cli, t, "--population-size", value), "--population-size")


def test_presence_interval_width_tiny(cli, seed):
    t, _ = seed
    one_line_error(
        presence(cli, t, "--population-size", "100", hierarchy="age=interval:1e-300"),
        "--hierarchy",
        "'age'",
        "bins",
    )


def test_presence_binary_table_hierarchy(cli, seed, tmp_path):
    t, _ = seed
    table = tmp_path / "ages.bin"
    table.write_bytes(bytes(range(256)) * 8)
    r = presence(cli, t, "--population-size", "100", hierarchy=f"age=table:{table}")
    one_line_error(r, "ages.bin")


def test_presence_breaks_with_nan(cli, seed):
    t, _ = seed
    one_line_error(
        presence(cli, t, "--population-size", "100", hierarchy="age=breaks:10,nan,30"),
        "--hierarchy",
        "'age'",
        "NaN",
    )


def test_presence_population_count_is_a_quasi_identifier(cli, seed):
    t, p = seed
    r = presence(cli, t, "-p", p, "--population-count", "zip")
    one_line_error(r, "--population-count", "zip")


# ------------------------------------------------------------------------------------------------ data files


def release(cli, data, column="x"):
    before = data.read_bytes()
    r = cli("release", data, "-c", column, "-q", "mean", "-e", "1", "--universe", "0,100", "--allow-useless")
    assert data.read_bytes() == before
    return r


def test_duplicate_header_is_refused(cli, tmp_path):
    data = tmp_path / "dup.csv"
    data.write_text("x,x\n1,50\n2,60\n3,70\n")
    one_line_error(release(cli, data), "dup.csv", "'x'")


def test_ragged_csv_is_refused_with_its_line(cli, tmp_path):
    data = tmp_path / "ragged.csv"
    data.write_text("x,y\n1,2\n3,4,5\n6,7\n")
    one_line_error(release(cli, data), "ragged.csv", "line 3")


def test_empty_file(cli, tmp_path):
    data = tmp_path / "empty.csv"
    data.write_text("")
    one_line_error(release(cli, data), "empty.csv")


def test_text_in_a_numeric_column(cli, tmp_path):
    data = tmp_path / "text.csv"
    data.write_text("x\n1\nabc\n3\n")
    one_line_error(release(cli, data), "'x'")


def test_nan_in_a_numeric_column(cli, tmp_path):
    data = tmp_path / "nan.csv"
    data.write_text("x\n1\nnan\n3\n")
    r = release(cli, data)
    assert r.code in (0, 2) and "Traceback" not in r.err
    if r.code == 2:
        one_line_error(r, "'x'")


def test_negative_missing_codes(tmp_path):
    from privrisk.io.data import read_column

    data = tmp_path / "neg.csv"
    data.write_text("x\n" + "\n".join(["10", "-1", "20", "-2", "30"] * 4) + "\n")
    before = data.read_bytes()
    col = read_column(data, "x", missing="negative")
    assert data.read_bytes() == before
    assert sorted(col.values.tolist()) == [10.0] * 4 + [20.0] * 4 + [30.0] * 4  # 8 negative codes dropped
    assert col.dropped_codes == {-1.0: 4, -2.0: 4}


# -------------------------------------------------------------------------------------------------- empirical


@pytest.fixture
def panel(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "month": np.repeat(np.arange(24), 20),
            "shop": rng.integers(0, 80, 480),
            "failed": (rng.random(480) < 0.25).astype(int),
        }
    )
    path = tmp_path / "panel.csv"
    df.to_csv(path, index=False)
    return path


def empirical(cli, panel, *extra):
    before = panel.read_bytes()
    r = cli(
        "empirical",
        panel,
        "--period",
        "month",
        "--individual",
        "shop",
        "--query",
        "sum",
        "--value",
        "failed",
        *extra,
    )
    assert panel.read_bytes() == before
    return r


def test_empirical_aggregate_larger_than_the_periods(cli, panel):
    r = empirical(cli, panel, "--aggregate", "1000")
    one_line_error(r, "--aggregate", "24 periods")
    assert "--period" not in r.err.replace("24 periods", "")


def test_empirical_negative_noise_seed(cli, panel):
    one_line_error(empirical(cli, panel, "--noise", "laplace:1", "--seed", "-1"), "--seed")


# ----------------------------------------------------------------------------------------------- study, demo


def test_study_negative_seed(cli, tmp_path):
    data = tmp_path / "survey.csv"
    data.write_text("x\n" + "\n".join(str(i) for i in range(40)) + "\n")
    out = tmp_path / "o"
    one_line_error(cli("study", data, "-c", "x", "--seed", "-1", "--out", out), "--seed")
    assert not out.exists()


def test_demo_negative_seed(cli, tmp_path):
    out = tmp_path / "demo"
    one_line_error(cli("demo", "--out", out, "--seed", "-1"), "--seed")
    assert not out.exists()


# ----------------------------------------------------------------------------------------------------- ledger


def test_deeply_nested_ledger(cli, tmp_path):
    data = tmp_path / "survey.csv"
    data.write_text("x\n" + "\n".join(str(i) for i in range(40)) + "\n")
    led = tmp_path / "ledger.json"
    led.write_text("[" * 100_000 + "]" * 100_000)
    before = led.read_bytes()
    r = cli("ledger", led)
    one_line_error(r, "ledger.json")
    r = cli("release", data, "-c", "x", "-q", "mean", "-e", "1", "--universe", "0,100", "--ledger", led)
    one_line_error(r, "ledger.json")
    assert led.read_bytes() == before
