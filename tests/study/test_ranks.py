"""Order statistics of nested prefixes from rank counts (privrisk.study._ranks), against sorting every prefix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.sensitivity import Universe, local_sensitivity
from privrisk.study._ranks import prefix_statistics, rank_variable
from privrisk.study._samples import code_values, draw_block
from privrisk.study.sampling import _variable_sensitivities, sample_sizes, study_samples

ALL_QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance", "std"]


def brute_force(drawn, sorted_values, sizes, centre, mus):
    """Every order statistic, the moments and the record nearest μ of every prefix, by sorting it."""
    rows = []
    for b in range(drawn.shape[0]):
        for j, m in enumerate(sizes):
            x = np.sort(sorted_values[drawn[b, :m]])
            mu = mus[b * sizes.size + j]
            nearest = x[np.argmin(np.abs(x - mu))]  # argmin takes the first: the lower one on a tie
            rows.append((x, np.sum(x - centre), np.sum((x - centre) ** 2), nearest))
    return rows


def check_prefixes(values, sizes, reps, seed):
    ranked = rank_variable(values)
    drawn = draw_block(ranked.ranks, int(sizes[-1]), seed, "x", range(reps))
    centre = float(np.mean(values))
    stats = prefix_statistics(drawn, ranked, sizes, centre)
    rng = np.random.default_rng(seed)
    # Means inside and outside the data, and exactly on values (ties between two records are then possible).
    mus = rng.uniform(values.min() - 1, values.max() + 1, reps * sizes.size)
    mus[::3] = rng.choice(values, mus[::3].size)
    expected = brute_force(drawn, ranked.sorted_values, sizes, centre, mus)
    assert stats.m.tolist() == np.tile(sizes, reps).tolist()
    nearest = stats.nearest_record(mus)
    for row, (x, s1, s2, near) in enumerate(expected):
        ranks = np.arange(x.size)
        got = stats.order_stat(np.full(stats.m.size, 0))  # shape check of a whole call
        assert got.shape == stats.m.shape
        for r in ranks:
            query = np.zeros(stats.m.size, dtype=np.int64)
            query[row] = r
            assert stats.order_stat(query)[row] == x[r]  # exactly: the same records
        # Sums added in another order: equal up to rounding, which scales with Σ|x − c| (s1 may cancel to ~0).
        assert abs(stats.s1[row] - s1) <= 1e-12 * np.sum(np.abs(x - centre)) + 1e-300
        assert stats.s2[row] == pytest.approx(s2, rel=1e-12, abs=1e-300)
        assert abs(nearest[row] - mus[row]) == abs(near - mus[row])


@pytest.mark.parametrize("ties", [False, True])
def test_order_statistics_of_every_prefix_by_brute_force(ties):
    rng = np.random.default_rng(5 + ties)
    n = 300  # blocks of 16 ranks: 19 blocks, the last one partial
    values = rng.lognormal(3.0, 1.0, n)
    if ties:
        values = np.round(values)  # about a tenth as many distinct values as records
    sizes = sample_sizes([0.01, 0.1, 0.33, 0.5, 1.0], n)
    check_prefixes(values, sizes, 3, 11)


def test_prefixes_not_reaching_the_end_and_many_blocks():
    rng = np.random.default_rng(2)
    values = rng.normal(0.0, 1.0, 4099)  # blocks of 64, the last one holds 3 ranks
    ranked = rank_variable(values)
    assert ranked.shift == 6
    sizes = sample_sizes([0.001, 0.01, 0.2], values.size)
    drawn = draw_block(ranked.ranks, int(sizes[-1]), 3, "x", range(2))
    stats = prefix_statistics(drawn, ranked, sizes, 0.0)
    for b in range(2):
        for j, m in enumerate(sizes):
            x = np.sort(ranked.sorted_values[drawn[b, :m]])
            row = b * sizes.size + j
            for r in (0, 1, m // 2, m - 2, m - 1):
                query = np.zeros(stats.m.size, dtype=np.int64)
                query[row] = max(r, 0)
                assert stats.order_stat(query)[row] == x[max(r, 0)]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=32), min_size=2, max_size=80).filter(
        lambda v: len(set(v)) > 1
    ),
    props=st.lists(st.sampled_from([0.05, 0.2, 0.5, 0.7, 1.0]), min_size=1, max_size=4),
    seed=st.integers(0, 10**6),
)
def test_prefix_order_statistics_property(values, props, seed):
    x = np.asarray(values, dtype=float)
    props = [p for p in props if np.floor(p * x.size + 0.5) >= 1] or [1.0]
    check_prefixes(x, sample_sizes(props, x.size), 2, seed)


def test_ranks_permute_the_records_as_the_codes_do():
    # The study's samples must not change: the same generator moves ranks and codes alike.
    rng = np.random.default_rng(0)
    values = np.round(rng.lognormal(2.0, 1.0, 500), 1)
    vals, codes = code_values(values)
    ranked = rank_variable(values)
    assert np.array_equal(ranked.sorted_values[ranked.ranks], values)
    by_codes = vals[draw_block(codes, 500, 4, "x", range(3))]
    by_ranks = ranked.sorted_values[draw_block(ranked.ranks, 500, 4, "x", range(3))]
    assert np.array_equal(by_codes, by_ranks)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("method", ["exact", "paper"])
def test_study_on_continuous_data_equals_the_oracle(ties, method):
    """The study's Δv on the ranks path against local_sensitivity on each drawn sample, and against sorting."""
    rng = np.random.default_rng(17)
    values = rng.lognormal(5.0, 0.8, 2000)
    if ties:
        values = np.round(values, -1)
    u = Universe.from_values(values)
    props = [0.005, 0.05, 0.3, 0.75, 1.0]
    sizes = sample_sizes(props, values.size)
    ls = _variable_sensitivities(values, u, ALL_QUERIES, sizes, 3, 9, "x", method, path="ranks")
    by_sorting = _variable_sensitivities(values, u, ALL_QUERIES, sizes, 3, 9, "x", method, path="sort")
    for i, (r, m, sample) in enumerate(study_samples(values, proportions=props, repetitions=3, seed=9)):
        k = i % sizes.size
        assert m == sizes[k]
        for q in ALL_QUERIES:
            expected = local_sensitivity(q, sample, u, method=method)
            assert ls[q][r, k] == pytest.approx(expected, rel=1e-9, abs=1e-12), (q, m)
    for q in ("count", "sum", "median", "min", "max"):  # order statistics only: the very same numbers
        assert np.array_equal(ls[q], by_sorting[q])
    for q in ("mean", "variance", "std"):  # moments summed in another order
        np.testing.assert_allclose(ls[q], by_sorting[q], rtol=1e-12)


def test_continuous_data_takes_the_ranks_path(monkeypatch):
    import privrisk.study.sampling as sampling

    called = []
    original = sampling._block_by_ranks
    monkeypatch.setattr(sampling, "_block_by_ranks", lambda *a: called.append(1) or original(*a))
    values = np.random.default_rng(0).normal(size=20_000)
    props = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0]  # 9 × 20,000 distinct > 4 N + 65,536: no histograms
    sampling.sampling_study({"x": values}, queries=["median"], epsilons=[1], proportions=props, repetitions=2)
    assert called
