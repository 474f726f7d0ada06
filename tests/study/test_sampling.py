"""The sampling study (000 §4): exact batched local sensitivities, the findings of 000, determinism, bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk as pr
from privrisk.errors import PrivriskError
from privrisk.sensitivity import Universe, local_sensitivity
from privrisk.study._samples import variable_universe as _variable_universe
from privrisk.study.sampling import (
    RESULT_COLUMNS,
    _variable_sensitivities,
    sample_sizes,
    sampling_study,
    study_samples,
    study_summary,
)

ALL_QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance", "std"]


def right_skewed(n=3000, seed=0):
    """Commuting-distance-like data: most values small, a long upper tail (as distance-work in 000)."""
    rng = np.random.default_rng(seed)
    return np.round(rng.lognormal(2.0, 0.9, n)).clip(1, None)


# ------------------------------------------------------------------------------------ the brute-force oracle
def check_against_oracle(values, universe_spec, universe_min, proportions, reps, seed, method, path):
    u = _variable_universe(np.asarray(values, float), universe_spec, universe_min, "x")
    sizes = sample_sizes(proportions, len(values))
    ls = _variable_sensitivities(
        np.asarray(values, float), u, ALL_QUERIES, sizes, reps, seed, "x", method, path=path
    )
    samples = list(study_samples(values, proportions=proportions, repetitions=reps, seed=seed, name="x"))
    assert len(samples) == reps * sizes.size
    for i, (r, m, sample) in enumerate(samples):
        k = i % sizes.size
        assert m == sizes[k] == sample.size
        for q in ALL_QUERIES:
            expected = local_sensitivity(q, sample, u, method=method)
            assert ls[q][r, k] == pytest.approx(expected, rel=1e-9, abs=1e-12), (q, method, path, sample)


@pytest.mark.parametrize("path", ["histogram", "sort", "ranks"])
@pytest.mark.parametrize("method", ["exact", "paper"])
def test_local_sensitivity_equals_the_oracle_on_random_data(method, path):
    rng = np.random.default_rng(11)
    for trial in range(12):
        n = int(rng.integers(3, 30))
        kind = trial % 3
        if kind == 0:
            values = rng.integers(0, 6, n).astype(float)
        elif kind == 1:
            values = np.round(rng.normal(3, 2, n), 3)
        else:
            values = rng.choice([0.1, 0.7, 3.3, 100.0], n)
        values[0], values[1] = 0.1, 7.5  # at least two distinct values
        spec = [("data", None), ("data", -1.0), ((-2.0, 200.0), None)][trial % 3]
        check_against_oracle(values, *spec, [0.2, 0.5, 1.0], 2, trial, method, path)


@settings(max_examples=100)
@given(
    values=st.lists(st.integers(-5, 20), min_size=2, max_size=25).filter(lambda v: len(set(v)) > 1),
    props=st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.8, 1.0]), min_size=1, max_size=3),
    seed=st.integers(0, 10**6),
    method=st.sampled_from(["exact", "paper"]),
    path=st.sampled_from(["histogram", "sort", "ranks"]),
)
def test_local_sensitivity_oracle_property(values, props, seed, method, path):
    if math.floor(min(props) * len(values) + 0.5) < 1:
        props = [*props, 1.0]
        props = [p for p in props if math.floor(p * len(values) + 0.5) >= 1]
    check_against_oracle(values, "data", None, props, 2, seed, method, path)


def test_histograms_and_sorting_give_the_same_numbers():
    values = right_skewed(500)
    u = Universe.from_values(values)
    sizes = sample_sizes([0.05, 0.3, 1.0], values.size)
    a = _variable_sensitivities(values, u, ALL_QUERIES, sizes, 5, 3, "x", "exact", path="histogram")
    b = _variable_sensitivities(values, u, ALL_QUERIES, sizes, 5, 3, "x", "exact", path="sort")
    for q in ALL_QUERIES:
        np.testing.assert_allclose(a[q], b[q], rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------------ hand calculations
def test_whole_data_set_of_table_1_by_hand():
    # 000 Table 1: {1, 3, 10, 17, 675}. With p = 1 the sample is the data set itself.
    r = sampling_study(
        {"distance": [1, 3, 10, 17, 675]},
        queries=["mean", "median", "max"],
        epsilons=[1.0],
        proportions=[1.0],
        repetitions=2,
    )
    by_query = r.set_index(["query", "repetition"])
    mean = by_query.loc[("mean", 0)]
    # Δv: removing 675 moves the mean from 141.2 to 7.75 (133.45); Δf = (675 − 1)/2 = 337.
    assert mean["local_sensitivity"] == pytest.approx(133.45)
    assert mean["global_sensitivity"] == 337.0
    ratio = 133.45 / 337
    assert mean["two_worlds"] == pytest.approx(1 / (1 + math.exp(-ratio)))
    assert mean["many_worlds"] == pytest.approx(1 / (1 + 4 * math.exp(-ratio)))
    assert by_query.loc[("median", 1), "local_sensitivity"] == pytest.approx(3.5)  # 000 §3.2
    # max: the sample holds the universe's maximum; removing it drops the max from 675 to 17.
    assert by_query.loc[("max", 0), "local_sensitivity"] == 658.0
    assert by_query.loc[("max", 0), "ratio"] == pytest.approx(658 / 674)


def test_bounds_universe_and_universe_min():
    values = [2, 4, 4, 9]
    r = sampling_study({"x": values}, queries=["max", "mean"], epsilons=[1], proportions=[1.0],
                       repetitions=1, universe=(0, 10))  # fmt: skip
    gs = r.set_index("query")["global_sensitivity"]
    assert gs["max"] == 10 and gs["mean"] == 5
    r = sampling_study({"x": values}, queries=["min"], epsilons=[1], proportions=[1.0], repetitions=1,
                       universe_min=0)  # fmt: skip
    assert r["global_sensitivity"].iloc[0] == 9 and r["local_sensitivity"].iloc[0] == 2  # add 0: 2 − 0


def test_results_table_shape_and_sizes():
    values = np.arange(1000) % 37
    r = sampling_study({"a": values, "b": values * 2.0}, queries=["count", "max"], epsilons=[0.5, 1, 2],
                       proportions=[0.0105, 0.5, 1], repetitions=4)  # fmt: skip
    assert tuple(r.columns) == RESULT_COLUMNS
    assert len(r) == 2 * 2 * 3 * 4 * 3
    assert sorted(r["n"].unique()) == [11, 500, 1000]  # round(10.5) = 11: halves round up
    assert (r.loc[r["query"] == "count", "ratio"] == 1).all()
    assert r["repetition"].max() == 3


def test_summary_quantiles_by_brute_force():
    r = sampling_study({"x": right_skewed(400)}, queries=["max", "mean"], epsilons=[1, 5],
                       proportions=[0.05, 0.5], repetitions=9)  # fmt: skip
    s = study_summary(r)
    assert set(s["risk"]) == {"many_worlds", "two_worlds", "global_risk"}
    row = s[(s["query"] == "max") & (s["epsilon"] == 5) & (s["n"] == 20) & (s["risk"] == "two_worlds")].iloc[
        0
    ]
    vals = r[(r["query"] == "max") & (r["epsilon"] == 5) & (r["n"] == 20)]["two_worlds"].to_numpy()
    assert row["median"] == pytest.approx(np.median(vals))
    assert row["q1"] == pytest.approx(np.quantile(vals, 0.25)) and row["q3"] == pytest.approx(
        np.quantile(vals, 0.75)
    )
    assert row["min"] == vals.min() and row["max"] == vals.max() and row["repetitions"] == 9


# ------------------------------------------------------------------------------------ the findings of 000
@pytest.fixture(scope="module")
def skewed_study():
    return sampling_study({"distance": right_skewed()}, queries=["mean", "median", "min", "max", "variance"],
                          epsilons=[0.1, 1, 10], proportions=[0.005, 0.02, 0.1, 0.5, 1], repetitions=30,
                          seed=4)  # fmt: skip


def test_two_worlds_risk_stays_between_half_and_one(skewed_study):
    assert skewed_study["two_worlds"].between(0.5, 1).all()
    assert (skewed_study["many_worlds"] <= skewed_study["two_worlds"] + 1e-15).all()


def test_many_worlds_risk_falls_with_sample_size(skewed_study):
    for (_, _), part in skewed_study.groupby(["query", "epsilon"]):
        medians = part.groupby("n")["many_worlds"].median().to_numpy()
        assert np.all(np.diff(medians) < 0), medians


def test_max_is_riskier_than_min_on_right_skewed_data(skewed_study):
    at1 = skewed_study[skewed_study["epsilon"] == 1]
    mean_tw = at1.groupby("query")["two_worlds"].mean()
    assert mean_tw["max"] > mean_tw["min"] + 0.02
    # and per sample size, the median too, wherever the samples are small
    small = at1[at1["n"] <= 60].groupby("query")["two_worlds"].median()
    assert small["max"] > small["min"]


def test_global_risk_at_epsilon_one_is_0731(skewed_study):
    # 000: the global risk at ε is e^ε/(1 + e^ε); at ε = 1 that is 0.7311, on every row of ε = 1.
    at1 = skewed_study.loc[skewed_study["epsilon"] == 1, "global_risk"]
    np.testing.assert_allclose(at1, math.e / (1 + math.e), rtol=1e-12)


def test_two_worlds_never_exceeds_global_risk_with_the_data_universe(skewed_study):
    # LS ≤ GS for unbounded neighbours and the data universe, so ρ_tw ≤ ρ_gl.
    assert (skewed_study["ratio"] <= 1 + 1e-12).all()
    assert (skewed_study["two_worlds"] <= skewed_study["global_risk"] + 1e-15).all()


# ------------------------------------------------------------------------------------ randomness
def test_same_seed_same_numbers_and_other_seed_other_numbers():
    data = {"x": right_skewed(800)}
    kw = {"queries": ["max", "median"], "epsilons": [1], "proportions": [0.02, 0.2], "repetitions": 6}
    a, b = sampling_study(data, seed=7, **kw), sampling_study(data, seed=7, **kw)
    pd.testing.assert_frame_equal(a, b)
    c = sampling_study(data, seed=8, **kw)
    assert not np.allclose(a["local_sensitivity"], c["local_sensitivity"])


def test_repetitions_do_not_depend_on_their_number_or_other_variables():
    x = right_skewed(800)
    kw = {"queries": ["max"], "epsilons": [1], "proportions": [0.02, 0.2], "seed": 3}
    few = sampling_study({"x": x}, repetitions=3, **kw)
    many = sampling_study({"x": x, "y": x + 1}, repetitions=10, **kw)
    many_x = many[(many["variable"] == "x") & (many["repetition"] < 3)].reset_index(drop=True)
    pd.testing.assert_frame_equal(few, many_x)


def test_samples_of_one_repetition_are_nested_draws_without_replacement():
    values = np.arange(200.0)  # all distinct, so a repeat would show
    samples = list(study_samples(values, proportions=[0.05, 0.25, 1.0], repetitions=2, seed=1))
    for r in range(2):
        small, mid, full = (s for rep, _, s in samples if rep == r)
        assert np.array_equal(mid[: small.size], small) and np.array_equal(full[: mid.size], mid)
        assert np.unique(full).size == 200 and np.array_equal(np.sort(full), values)
    assert not np.array_equal(samples[0][2], samples[3][2])


# ------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"proportions": [0.0]}, "(0, 1]"),
        ({"proportions": [1.5]}, "(0, 1]"),
        ({"proportions": [-0.1, 0.5]}, "(0, 1]"),
        ({"repetitions": 0}, "repetitions"),
        ({"queries": ["mode"]}, "unknown query"),
        ({"epsilons": [-1]}, "epsilon"),
        ({"ls_method": "fast"}, "ls_method"),
        ({"proportions": [0.001]}, "empty sample"),
        ({"universe": (0, 5)}, "outside the universe"),
        ({"universe_min": 3}, "above the smallest"),
    ],
)
def test_bad_arguments_raise(kwargs, fragment):
    with pytest.raises(PrivriskError, match=None) as info:
        sampling_study({"x": [1, 2, 3, 9]}, **{"repetitions": 2, "proportions": [1.0], **kwargs})
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ([4.0, 4.0, 4.0], "one value only"),
        ([float("nan")] * 3, "all are missing"),
        (["a", "b"], "must be numbers"),
    ],
)
def test_bad_values_raise(values, fragment):
    with pytest.raises(PrivriskError) as info:
        sampling_study({"x": values}, repetitions=1, proportions=[1.0])
    assert fragment in str(info.value)


def test_public_names():
    assert pr.sampling_study is sampling_study and pr.study_summary is study_summary


# ------------------------------------------------------------------------------------ the same samples as before
def _reference_samples(values, sizes, reps, seed, name):
    """The naive draw the study documents: per repetition r, ``Generator.permutation`` of the values with the
    generator of ``SeedSequence(seed, spawn_key=(crc32(name), r))``, and its prefixes."""
    import zlib

    for r in range(reps):
        key = (zlib.crc32(name.encode("utf-8")), r)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
        perm = rng.permutation(np.asarray(values))
        yield r, [perm[:m] for m in sizes]


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("distinct", [True, False], ids=["continuous", "few-values"])
def test_the_study_evaluates_the_samples_of_the_naive_draw(monkeypatch, seed, distinct):
    """The draw in place, the reused buffers and the second thread give the very samples of
    ``Generator.permutation`` for the same seed: each Δv equals the brute force on the naive sample."""
    import privrisk.study.sampling as sampling

    rng = np.random.default_rng(seed + 7)
    n, reps, name = 400, 7, "income"
    values = rng.lognormal(5, 0.8, n) if distinct else rng.integers(0, 9, n).astype(float)
    # Blocks of 2 repetitions (4 blocks, the last short): the drawing thread and both buffers are used.
    monkeypatch.setattr(sampling, "_BLOCK_ELEMENTS", 2 * n)
    proportions = [0.01, 0.05, 0.3, 0.77, 1.0]
    u = _variable_universe(values, "data", None, name)
    sizes = sample_sizes(proportions, n)
    path = "ranks" if distinct else "histogram"
    ls = _variable_sensitivities(values, u, ALL_QUERIES, sizes, reps, seed, name, "exact", path=path)
    for r, samples in _reference_samples(values, sizes, reps, seed, name):
        for k, sample in enumerate(samples):
            for q in ALL_QUERIES:
                expected = local_sensitivity(q, sample, u)
                assert ls[q][r, k] == pytest.approx(expected, rel=1e-9, abs=1e-12), (q, r, k)


@pytest.mark.parametrize("stop", [10, 137, 500])
def test_draw_block_gives_the_prefixes_of_generator_permutation(stop):
    from privrisk.study._samples import code_values, draw_block

    values = np.random.default_rng(3).normal(size=500)
    _, codes = code_values(values)
    buffer = np.full((4, stop), -1, dtype=codes.dtype)
    drawn = draw_block(codes, stop, 5, "x", range(2, 6), out=buffer)
    assert drawn.base is buffer or drawn is buffer  # written into the caller's buffer
    for i, (_, samples) in enumerate(_reference_samples(codes, [stop], 6, 5, "x")):
        if i >= 2:
            assert drawn[i - 2].tolist() == samples[0].tolist()
