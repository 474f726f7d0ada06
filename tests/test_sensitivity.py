"""Sensitivities: the worked example of Allmann et al., brute force over small universes, invariants, errors."""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import privrisk as pr
from one_shape import assert_written_whole_or_not_at_all
from privrisk import PrivriskError, Universe
from privrisk.sensitivity import QUERIES, evaluate

FULL = [1, 3, 10, 17, 675]  # Allmann et al., Table 1a: the complete data set (docs/errata.md)
U = Universe.from_values(FULL)


# ---------------------------------------------------------------------------------------------- brute force
def neighbours_of(sample, universe_values, neighbours):
    x = list(sample)
    if neighbours == "unbounded":
        out = [[*x, v] for v in universe_values]
        if len(x) >= 2:
            out += [x[:i] + x[i + 1 :] for i in range(len(x))]
        return out
    return [[*x[:i], v, *x[i + 1 :]] for i in range(len(x)) for v in universe_values]


def brute_local(query, sample, universe_values, neighbours="unbounded"):
    f0 = evaluate(query, sample)
    return max(abs(evaluate(query, y) - f0) for y in neighbours_of(sample, universe_values, neighbours))


def brute_global(query, universe_values, neighbours="unbounded", n=None, max_size=4):
    sizes = range(1, max_size + 1) if neighbours == "unbounded" else [n]
    best = 0.0
    for size in sizes:
        for db in itertools.combinations_with_replacement(universe_values, size):
            best = max(best, brute_local(query, db, universe_values, neighbours))
    return best


# ---------------------------------------------------------------------------------------------- paper oracles
def test_allmann_et_al_example_global():
    assert pr.global_sensitivity("mean", U) == 337.0
    assert pr.global_sensitivity("variance", U) == 113569.0  # (674/2)², docs/errata.md
    assert pr.global_sensitivity("median", U) == 337.0
    assert pr.global_sensitivity("max", U) == 674.0
    assert pr.global_sensitivity("count", U) == 1.0


def test_allmann_et_al_example_local():
    without_max = [1, 3, 10, 17]  # Table 1b
    assert pr.local_sensitivity("mean", without_max, U) == pytest.approx(133.45)
    assert pr.local_sensitivity("median", FULL, U) == 3.5
    # the two neighbours the paper names for the median: 6.5 (without max) and 13.5 (without min)
    assert evaluate("median", without_max) == 6.5
    assert evaluate("median", [3, 10, 17, 675]) == 13.5


def test_paper_rule_differs_from_exact_for_the_variance():
    # Sample {0, 10} in the universe [0, 10]: the four cases (add 0 or 10, remove 0 or 10) move the variance by
    # 25 − 22.22 = 2.78 or 25; adding the mean 5 moves it to 16.67, and removing a record to 0, so exact = 25.
    # On {0, 0, 10, 10, 5}: adding the mean (5) lowers the variance most among additions; the paper misses it
    # when removals are small. Search a case where exact > paper, and check both against brute force.
    universe = list(range(0, 11))
    found = None
    for sample in itertools.combinations_with_replacement(universe, 5):
        exact = pr.local_sensitivity("variance", sample, universe)
        paper = pr.local_sensitivity("variance", sample, universe, method="paper")
        assert exact == pytest.approx(brute_local("variance", sample, universe))
        assert paper <= exact + 1e-9
        if exact > paper + 1e-9:
            found = sample
            break
    assert found is not None, "the four-case rule should miss the variance's interior neighbours somewhere"


def test_paper_rule_is_exact_for_mean_median_min_max():
    rng = np.random.default_rng(3)
    universe = np.arange(0, 30)
    for _ in range(200):
        sample = rng.choice(universe, size=rng.integers(1, 8))
        for q in ("count", "sum", "mean", "median", "min", "max"):
            assert pr.local_sensitivity(q, sample, universe, method="paper") == pytest.approx(
                pr.local_sensitivity(q, sample, universe)
            )


# ---------------------------------------------------------------------------------------------- brute force
small_universe = st.lists(st.integers(-6, 9), min_size=1, max_size=5, unique=True)


@given(data=st.data(), query=st.sampled_from(QUERIES), neighbours=st.sampled_from(["unbounded", "bounded"]))
def test_local_sensitivity_equals_brute_force(data, query, neighbours):
    values = sorted(data.draw(small_universe))
    sample = data.draw(st.lists(st.sampled_from(values), min_size=1, max_size=7))
    expected = brute_local(query, sample, values, neighbours)
    got = pr.local_sensitivity(query, sample, values, neighbours=neighbours)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("query", QUERIES)
def test_global_unbounded_equals_brute_force(query):
    for values in ([0, 1], [0, 2, 7], [-3, 1, 4], [2, 5, 6, 11]):
        assert pr.global_sensitivity(query, values) == pytest.approx(brute_global(query, values))


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_global_bounded_equals_brute_force(query, n):
    for values in ([0, 1], [0, 3, 10], [-2, 1, 5]):
        expected = brute_global(query, values, "bounded", n=n)
        assert pr.global_sensitivity(query, values, neighbours="bounded", n=n) == pytest.approx(expected)


@given(
    lo=st.floats(-100, 100),
    width=st.floats(0.5, 100),
    raw=st.lists(st.floats(0, 1), min_size=1, max_size=9),
    query=st.sampled_from(["mean", "median", "variance", "std", "min", "max", "sum"]),
)
def test_interval_universe_against_a_fine_grid(lo, width, raw, query):
    """For an interval, no grid point (nor the sample's mean) beats the exact answer, and a fine grid gets close."""
    hi = lo + width
    sample = [lo + r * width for r in raw]
    exact = pr.local_sensitivity(query, sample, (lo, hi))
    grid = [*np.linspace(lo, hi, 201).tolist(), float(np.mean(sample))]
    brute = brute_local(query, sample, grid)
    assert brute <= exact + 1e-7 * max(1.0, abs(exact))
    # A grid step of width/200 changes the variance by at most ~ step·width/(m+1).
    assert exact - brute <= width * width / 100 + 1e-9


@given(data=st.data(), query=st.sampled_from(QUERIES))
def test_local_never_exceeds_global_unbounded(data, query):
    values = sorted(data.draw(small_universe))
    sample = data.draw(st.lists(st.sampled_from(values), min_size=1, max_size=7))
    assert pr.local_sensitivity(query, sample, values) <= pr.global_sensitivity(query, values) + 1e-9


def test_batched_equals_one_by_one():
    rng = np.random.default_rng(7)
    universe = Universe.from_values(rng.integers(0, 100, 50))
    batch = rng.choice(universe.values, size=(40, 9))
    for q in QUERIES:
        for nb in ("unbounded", "bounded"):
            got = pr.local_sensitivity(q, batch, universe, neighbours=nb)
            one = [pr.local_sensitivity(q, row, universe, neighbours=nb) for row in batch]
            np.testing.assert_allclose(got, one)
    ragged = [batch[0, :3], batch[1, :7], batch[2]]
    np.testing.assert_allclose(
        pr.local_sensitivity("variance", ragged, universe),
        [pr.local_sensitivity("variance", r, universe) for r in ragged],
    )


def test_single_record_has_only_additions():
    assert pr.local_sensitivity("mean", [5], (0, 10)) == 2.5
    assert pr.local_sensitivity("variance", [5], (0, 10)) == 6.25


def test_universe_with_min_and_nearest():
    u = Universe.from_values([3, 8, 20]).with_min(0)
    assert u.lo == 0 and u.size == 4
    np.testing.assert_array_equal(u.nearest([1, 5.4, 5.6, 100]), [0, 3, 8, 20])
    assert Universe.from_bounds(0, 24).nearest(30) == 24


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pr.local_sensitivity("mean", [], U), "empty"),
        (lambda: pr.local_sensitivity("mean", [2], U), "outside the universe"),
        (lambda: pr.local_sensitivity("mean", [30], (0, 24)), "outside the universe"),
        (lambda: pr.local_sensitivity("mode", [1], U), "unknown query"),
        (lambda: pr.global_sensitivity("mode", U), "unknown query"),
        (lambda: pr.local_sensitivity("mean", [1], U, method="guess"), "method"),
        (lambda: pr.local_sensitivity("mean", [1], U, neighbours="near"), "neighbours"),
        (lambda: pr.global_sensitivity("mean", U, neighbours="bounded"), "give n"),
        (lambda: pr.sensitivity_ratio(1.0, 0.0), "undefined"),
        (lambda: Universe.from_bounds(5, 1), "above the upper"),
        (lambda: Universe.from_values([]), "no values"),
        (lambda: Universe.from_values([1, float("nan")]), "finite"),
        (lambda: pr.local_sensitivity("mean", [1, float("nan")], U), "NaN"),
    ],
)
def test_errors(call, message):
    with pytest.raises(PrivriskError, match=message):
        call()


def test_ratio_may_exceed_one_and_zero_global_is_an_error():
    assert pr.sensitivity_ratio(2.0, 1.0) == 2.0
    single = Universe.from_values([4, 4])
    assert pr.global_sensitivity("mean", single) == 0.0
    with pytest.raises(PrivriskError):
        pr.sensitivity_ratio(pr.local_sensitivity("mean", [4], single), 0.0)


# ------------------------------------------------------------------ the one way in: SensitivitySettings, run_sensitivity
EXAMPLE = Path(__file__).parent.parent / "examples" / "distance_work.csv"


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"query": "mode"}, "query"),
        ({"query": "mean", "neighbours": "close"}, "neighbours"),
        ({"query": "mean", "method": "fast"}, "method"),
        ({"query": "mean", "universe": "5,1"}, "universe"),
        ({"query": "mean", "universe": "a,b"}, "universe"),
        ({"query": "mean", "universe": (0, float("inf"))}, "universe"),
        ({"query": "mean", "universe_min": "low"}, "universe_min"),
        ({"query": "mean", "epsilon": "-1"}, "epsilon"),
        ({"query": "mean", "epsilon": 0}, "epsilon"),
        ({"query": "mean", "missing": "blank"}, "missing"),
        ({"query": "mean", "epsilon": 1, "max_risk": 1.5}, "max_risk"),
        # combinations of fields
        ({"query": "mean", "max_risk": 0.6}, "max_risk"),
        ({"query": "mean", "universe": "0,10", "universe_file": "u.csv", "universe_column": "x"}, "universe"),
        ({"query": "mean", "universe_file": "u.csv"}, "universe_column"),
        ({"query": "mean", "universe_column": "x"}, "universe_column"),
        ({"query": "mean", "universe": "0,10", "universe_min": 3}, "universe_min"),
        ({"query": "mean", "neighbours": "bounded", "method": "paper"}, "method"),
        ({"query": "mean", "data": "distance_work.csv"}, "column"),  # a file needs its column
        ({"query": "mean", "data": pd.DataFrame({"d": [1, 2]})}, "column"),  # so does a table
    ],
)
def test_sensitivity_settings_name_the_field_of_a_bad_setting_or_combination(kwargs, param):
    from privrisk.sensitivity.run import SensitivitySettings

    with pytest.raises(PrivriskError) as caught:
        SensitivitySettings(**{"data": FULL, **kwargs})
    assert caught.value.param == param
    assert str(caught.value).startswith(f"{param}: ")


def test_run_sensitivity_gives_table_1s_numbers_by_hand():
    """Allmann et al., Table 1: five distances 1, 3, 10, 17, 675 and the mean; by hand, Δf = (675 − 1)/2 = 337 and
    Δv = 133.45 (removing 675 moves the mean from 141.2 to 7.75), ρ_tw = 1/(1 + e^(−ε·Δv/Δf))."""
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    values = np.array([1.0, 3, 10, 17, 675])
    settings = SensitivitySettings(data=values, column="distance", name="distance_work.csv", query="mean",
                                   epsilon="ln3", max_risk=0.9)  # fmt: skip
    run = run_sensitivity(settings)
    doc = run.to_dict()
    assert doc["schema_version"] == 1 and doc["column"] == "distance" and doc["n"] == 5
    assert doc["global_sensitivity"] == 337.0
    assert doc["local_sensitivity"] == pytest.approx(141.2 - 7.75)
    ratio = (141.2 - 7.75) / 337
    assert doc["ratio"] == pytest.approx(ratio)
    assert doc["two_worlds"] == pytest.approx(1 / (1 + math.exp(-math.log(3) * ratio)))
    assert doc["many_worlds"] == pytest.approx(1 / (1 + 4 * math.exp(-math.log(3) * ratio)))
    assert doc["universe"]["description"].startswith("the column's own 5 distinct values")
    assert run.exceeded() is None and "stays within the largest acceptable risk of 0.9" in run.sentence()
    with pytest.raises(PrivriskError, match=r"^distance_work\.csv: column 'distance': value 675") as caught:
        run_sensitivity(dataclasses.replace(settings, universe="0,100", epsilon=None, max_risk=None))
    assert caught.value.param == "universe"  # shown at the universe's field in the app


def test_run_sensitivity_shows_the_universe_files_name_not_its_path(tmp_path):
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    path = tmp_path / "upload-1234.csv"
    path.write_text("u\n0\n5\n10\n")
    settings = SensitivitySettings(data=[0.0, 5.0], column="x", query="max", universe_file=path,
                                   universe_column="u", universe_file_name="levels.csv")  # fmt: skip
    doc = run_sensitivity(settings).to_dict()
    assert (
        "levels.csv" in doc["universe"]["description"] and str(tmp_path) not in doc["universe"]["description"]
    )
    assert doc["global_sensitivity"] == 10.0  # max over {0, 5, 10}: one record of 10 added to a data set of 0
    bad = dataclasses.replace(settings, universe_column="v")
    with pytest.raises(PrivriskError) as caught:
        run_sensitivity(bad)
    assert str(tmp_path) not in str(caught.value)


def test_a_file_a_table_a_column_read_and_the_values_give_the_same_document():
    from privrisk.io.data import read_column
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    s = SensitivitySettings(data=EXAMPLE, column="distance", query="median", epsilon=1)
    docs = [
        run_sensitivity(dataclasses.replace(s, data=data)).to_dict()
        for data in (EXAMPLE, pd.read_csv(EXAMPLE), read_column(EXAMPLE, "distance"), pd.Series(FULL))
    ]
    assert all(doc == docs[0] for doc in docs)
    # By hand: the median of 1, 3, 10, 17, 675 is 10; removing 17 or 675 gives 6.5, adding 675 gives 13.5.
    assert docs[0]["local_sensitivity"] == 3.5 and docs[0]["global_sensitivity"] == 337.0


def test_no_data_is_refused_by_the_run():
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    with pytest.warns(DeprecationWarning, match="SensitivitySettings without data is deprecated"):
        s = SensitivitySettings(query="mean")
    with pytest.raises(PrivriskError) as caught:
        run_sensitivity(s)
    assert caught.value.param == "data" and str(caught.value).startswith("data: ")


def test_the_run_is_the_commands_json_and_out_folder(cli, tmp_path):
    import json

    from privrisk.sensitivity.run import OUT_FILES, SensitivitySettings, run_sensitivity

    args = ["-c", "distance", "-q", "std", "--method", "paper", "--epsilon", "ln3", "--max-risk", "0.5"]
    r = cli("sensitivity", EXAMPLE, *args, "--json", "--out", tmp_path / "cli")
    assert r.code == 1 and "two-worlds risk 0.7005 exceeds --max-risk 0.5" in r.err
    run = run_sensitivity(SensitivitySettings(data=EXAMPLE, column="distance", query="std", method="paper",
                                              epsilon="ln3", max_risk=0.5))  # fmt: skip
    assert run.to_dict() == json.loads(r.out)
    # ρ_tw = 1/(1 + e^(−ε·Δv/Δf)) > 0.5: the threshold is exceeded, and said so.
    problem = run.exceeded()
    assert problem is not None and problem.param == "max_risk" and str(problem).startswith("two-worlds risk")
    assert "exceeds the largest acceptable risk of 0.5" in run.sentence()
    written = run.write(tmp_path / "lib")
    assert [p.name for p in written] == list(OUT_FILES)
    for name in OUT_FILES:
        a, b = (json.loads((tmp_path / d / name).read_text()) for d in ("cli", "lib"))
        a.pop("created", None), b.pop("created", None)
        assert a == b, name
    assert json.loads((tmp_path / "lib" / "sensitivity.json").read_text()) == run.to_dict()
    manifest = json.loads((tmp_path / "lib" / "manifest.json").read_text())
    assert manifest["kind"] == "sensitivity" and manifest["findings"] == [run.sentence()]


def test_write_is_whole_or_nothing(tmp_path, monkeypatch):
    import privrisk.reports.manifest as manifest
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    run = run_sensitivity(SensitivitySettings(data=FULL, query="mean"))
    assert_written_whole_or_not_at_all(run, tmp_path / "sensitivity", monkeypatch, manifest, "write_manifest")


def test_progress_moves_forward_to_done():
    from privrisk.sensitivity.run import SensitivitySettings, run_sensitivity

    seen: list[tuple[float, str]] = []
    run_sensitivity(
        SensitivitySettings(data=FULL, query="variance"), progress=lambda d, m: seen.append((d, m))
    )
    shares = [done for done, _ in seen]
    assert shares == sorted(shares) and shares[0] == 0.0 and seen[-1] == (1.0, "done")


# ------------------------------------------------------------------ the old call shapes, kept one release
def test_the_old_run_sensitivity_call_warns_and_gives_the_same_document():
    from privrisk.sensitivity import SensitivitySettings, run_sensitivity
    from privrisk.sensitivity.run import run_sensitivity as new_run

    values = np.array(FULL, dtype=float)
    with pytest.warns(DeprecationWarning, match="SensitivitySettings without data is deprecated"):
        old_settings = SensitivitySettings(query="mean", epsilon="ln3", universe="0,700")
    with pytest.warns(
        DeprecationWarning, match=r"run_sensitivity\(values, settings, column=…\) is deprecated"
    ):
        old = run_sensitivity(values, old_settings, column="distance", source="distance_work.csv",
                              data={"column": "distance"})  # fmt: skip
    new = new_run(dataclasses.replace(old_settings, data=values, column="distance")).to_dict()
    assert "schema_version" not in old and old["data"] == {"column": "distance"}
    assert old == {k: v for k, v in new.items() if k not in ("schema_version", "data")} | {
        "data": old["data"]
    }
    assert list(old) == [k for k in new if k != "schema_version"]  # the same keys in the same order


def test_the_names_of_privrisk_sensitivity_stay_where_they_were():
    import privrisk.sensitivity as sensitivity
    from privrisk.sensitivity import global_, local, queries, run, universe

    for name in ("Universe", "as_universe", "choose_universe"):
        assert getattr(sensitivity, name) is getattr(universe, name)
    assert sensitivity.global_sensitivity is global_.global_sensitivity
    assert sensitivity.local_sensitivity is local.local_sensitivity
    assert sensitivity.sensitivity_ratio is local.sensitivity_ratio
    assert sensitivity.evaluate is queries.evaluate and sensitivity.QUERIES is queries.QUERIES
    assert sensitivity.SensitivitySettings is run.SensitivitySettings
    assert sensitivity.SensitivityRun is run.SensitivityRun
    assert set(sensitivity.__all__) >= {"METHODS", "NEIGHBOURS", "Neighbours", "Query", "SensitivityMethod",
                                        "evaluate", "run_sensitivity"}  # fmt: skip
    assert all(hasattr(sensitivity, name) for name in sensitivity.__all__)
    # One settings object: the new call through the old name needs no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = sensitivity.run_sensitivity(run.SensitivitySettings(data=FULL, query="max")).to_dict()
    assert doc["local_sensitivity"] == 658.0  # removing 675 leaves max 17
