"""Population uniqueness: Zayatz by hand, Pitman's score equations, SNB's moments summed from the model, Dankar's
rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrisk import PrivriskError
from privrisk.generalisation.uniqueness import population_uniqueness


def _sample_sizes(seed=0, N=20000, n=1000):
    import collections

    rng = np.random.default_rng(seed)
    pop = rng.zipf(1.8, N) % 3000
    pick = rng.choice(N, n, replace=False)
    return list(collections.Counter(pop[pick]).values())


def test_zayatz_by_hand():
    def h(i):  # P(exactly one of a class of i is among 7 drawn from 70)
        return math.comb(i, 1) * math.comb(70 - i, 6) / math.comb(70, 7)

    want = (2 / 4 * h(1)) / (2 / 4 * h(1) + 1 / 4 * h(2) + 1 / 4 * h(3))
    r = population_uniqueness([1, 1, 2, 3], 70)
    assert r["models"]["zayatz"]["share_of_sample_uniques"] == pytest.approx(want, rel=1e-12)


def test_pitman_solves_its_score_equations():
    sizes = _sample_sizes()
    fit = population_uniqueness(sizes, 20000)["models"]["pitman"]
    t, a = fit["theta"], fit["alpha"]
    values, counts = np.unique(sizes, return_counts=True)
    u, n = len(sizes), sum(sizes)
    i = np.arange(1, u)
    d_theta = np.sum(1 / (t + i * a)) - np.sum(1 / (t + np.arange(1, n)))
    d_alpha = np.sum(i / (t + i * a)) - sum(
        c * np.sum(1 / (np.arange(1, v) - a)) for v, c in zip(values, counts, strict=True)
    )
    assert abs(d_theta) < 1e-4 and abs(d_alpha) < 1e-3
    assert fit["population_uniques"] == pytest.approx(
        math.exp(math.lgamma(t + 1) - math.lgamma(t + a)) * 20000**a
    )


def test_snb_fit_reproduces_the_sample_counts_by_summing_the_model():
    from scipy import stats

    sizes = _sample_sizes(seed=1, n=3000)  # f = 0.15: Dankar's rule weighs SNB against Zayatz
    r = population_uniqueness(sizes, 20000)
    snb = r["models"]["snb"]
    K, a, b, f = snb["classes_K"], snb["alpha"], snb["beta"], 3000 / 20000
    F = np.arange(1, 20000)
    pF = stats.nbinom.pmf(F - 1, a, b)  # shifted negative binomial class sizes
    e1 = K * np.sum(pF * stats.binom.pmf(1, F, f))
    e2 = K * np.sum(pF * stats.binom.pmf(2, F, f))
    assert e1 == pytest.approx(sizes.count(1), rel=1e-6) and e2 == pytest.approx(sizes.count(2), rel=1e-6)
    assert snb["population_uniques"] == pytest.approx(K * b**a)
    z = r["models"]["zayatz"]["population_uniques"]
    assert r["dankar_model"] == ("snb" if snb["population_uniques"] < z else "zayatz")


def test_dankar_rule_takes_pitman_for_small_samples_and_nothing_without_uniques():
    assert population_uniqueness(_sample_sizes(), 20000)["dankar_model"] == "pitman"
    none = population_uniqueness([2, 3, 5], 100)
    assert none["population_uniques"] == 0 and none["share_of_sample_uniques"] == 0


def test_a_population_smaller_than_the_sample_or_past_any_population_is_refused():
    for size in (3, 2e12, float("inf")):
        with pytest.raises(PrivriskError) as caught:
            population_uniqueness([1, 1, 2], size)
        assert caught.value.param == "population_size"
