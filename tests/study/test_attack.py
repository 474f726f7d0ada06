"""The study's attacker (``privrisk.study.attack``): brute force on the study's samples, hand cases, invariants."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import Universe, global_sensitivity, sampling_study, study_attack, study_samples, study_summary
from privrisk.errors import PrivriskError
from privrisk.study.attack import ATTACK_COLUMNS

ALL_QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance", "std"]
NUMPY = {
    "count": len,
    "sum": np.sum,
    "mean": np.mean,
    "median": np.median,
    "min": np.min,
    "max": np.max,
    "variance": np.var,
    "std": np.std,
}


def brute_force(sample, query, epsilon, df):
    """Worlds by deleting each record; the n × n posterior matrix; the success by the nearest-answer partition."""
    n = len(sample)
    f = np.array([NUMPY[query](np.delete(sample, i)) for i in range(n)], dtype=float)
    dist = np.abs(f[:, None] - f[None, :]) * epsilon / df
    exact = 1.0 / np.exp(-dist).sum(axis=1).min()
    # Success of the Bayes-optimal attacker: world i wins when γ lands in its answer's cell, then 1/(ties).
    u = np.unique(f)
    lo = np.concatenate([[-np.inf], (u[1:] + u[:-1]) / 2])
    hi = np.concatenate([(u[1:] + u[:-1]) / 2, [np.inf]])
    b = df / epsilon
    success = 0.0
    for i in range(n):
        g = np.searchsorted(u, f[i])
        c = np.count_nonzero(f == f[i])

        # P(lo < f + L < hi) for L ~ Laplace(b): CDF differences
        def cdf(t):
            return 0.5 * np.exp(t / b) if t < 0 else 1 - 0.5 * np.exp(-t / b)

        p = (1.0 if hi[g] == np.inf else cdf(hi[g] - f[i])) - (0.0 if lo[g] == -np.inf else cdf(lo[g] - f[i]))
        success += p / c / n
    bound = 1.0 / (1.0 + (n - 1) * np.exp(-epsilon * np.ptp(f) / df))
    return exact, success, bound


@pytest.fixture(scope="module")
def skewed():
    rng = np.random.default_rng(3)
    return {"income": np.round(rng.lognormal(2, 1, 120)), "hours": rng.integers(0, 50, 90).astype(float)}


@pytest.fixture(scope="module")
def attacked(skewed):
    return study_attack(
        skewed,
        queries=ALL_QUERIES,
        epsilons=[0.1, 1.0, 5.0],
        proportions=[0.05, 0.3, 1.0],
        repetitions=3,
        seed=4,
        trials=2000,
        max_n=40,
    )


def test_matches_brute_force_on_the_studys_samples(skewed, attacked):
    checked = 0
    for name, values in skewed.items():
        u = Universe.from_values(values)
        for r, m, sample in study_samples(
            values, proportions=[0.05, 0.3, 1.0], repetitions=3, seed=4, name=name
        ):
            for q in ALL_QUERIES:
                rows = attacked[
                    (attacked["variable"] == name) & (attacked["query"] == q)
                    & (attacked["n"] == m) & (attacked["repetition"] == r)
                ]  # fmt: skip
                assert len(rows) == 3
                if m > 40:
                    assert not rows["attacked"].any() and rows[list(ATTACK_COLUMNS)].isna().all().all()
                    continue
                df = global_sensitivity(q, u)
                for eps, row in zip([0.1, 1.0, 5.0], rows.itertuples(), strict=True):
                    exact, success, bound = brute_force(sample, q, eps, df)
                    assert row.exact_risk == pytest.approx(exact, rel=1e-9)
                    assert row.expected_success == pytest.approx(success, rel=1e-9, abs=1e-12)
                    assert row.lee_clifton_bound == pytest.approx(bound, rel=1e-9)
                    checked += 1
    assert checked > 100


def test_the_order_of_the_three_numbers(attacked):
    done = attacked[attacked["attacked"]]
    assert (done["expected_success"] <= done["exact_risk"] + 1e-12).all()
    assert (done["exact_risk"] <= done["lee_clifton_bound"] + 1e-12).all()
    assert ((done["exact_risk"] >= 1 / done["n"] - 1e-12) & (done["exact_risk"] <= 1)).all()


def test_simulated_success_within_its_standard_error(attacked):
    done = attacked[attacked["attacked"]]
    p = done["expected_success"].to_numpy()
    se = np.sqrt(p * (1 - p) / 2000)
    z = (done["simulated_success"].to_numpy() - p) / np.maximum(se, 1e-12)
    assert np.all(np.abs(z) < 5)
    # pooled over all rows the errors average out (correlated within a sample, hence the wide margin)
    assert abs(np.mean(z)) < 1.0


def test_hand_case_where_the_exact_risk_exceeds_rho_mw():
    """Four zeros and a one: worlds 1/4 (×4) and 0; Δf(mean) = 1/2, Δv = 0.2 (remove the 1 from mean 0.2)."""
    x = [0.0, 0.0, 0.0, 0.0, 1.0]
    kw = dict(queries=["mean"], epsilons=[1.0], proportions=[1.0], repetitions=1)
    a = study_attack(x, trials=10, **kw).iloc[0]
    s = sampling_study(x, **kw).iloc[0]
    assert a.exact_risk == pytest.approx(1 / (1 + 4 * math.exp(-0.5)))  # 0.2919
    assert a.expected_success == pytest.approx((2 - math.exp(-0.25)) / 5)  # 0.2442
    assert a.lee_clifton_bound == pytest.approx(a.exact_risk)  # one world against four: the bound is tight
    assert s.many_worlds == pytest.approx(1 / (1 + 4 * math.exp(-0.4)))  # 0.2717
    assert a.exact_risk > s.many_worlds


def test_two_records_two_worlds_hand_case():
    """Max of {0, 1} in universe {0, 1}: worlds 1 and 0, Δf = 1: exact 1/(1 + e^−ε), success 1 − ½e^(−ε/2)."""
    a = study_attack([0.0, 1.0], queries=["max"], epsilons=[0.5, 2.0], proportions=[1.0], repetitions=1)
    assert a["exact_risk"].tolist() == pytest.approx([1 / (1 + math.exp(-0.5)), 1 / (1 + math.exp(-2.0))])
    assert a["expected_success"].tolist() == pytest.approx(
        [1 - 0.5 * math.exp(-0.25), 1 - 0.5 * math.exp(-1)]
    )


def test_count_query_is_a_uniform_guess():
    a = study_attack(np.arange(30.0), queries=["count"], epsilons=[10.0], proportions=[1 / 3, 1.0],
                     repetitions=2, trials=3000)  # fmt: skip
    assert np.allclose(a["exact_risk"], 1 / a["n"]) and np.allclose(a["expected_success"], 1 / a["n"])


def test_same_seed_same_numbers_and_keys_line_up_with_the_study(skewed):
    kw = dict(queries=["max", "mean"], epsilons=[1.0, 2.0], proportions=[0.1, 0.5], repetitions=4, seed=9)
    a1 = study_attack(skewed, trials=300, **kw)
    a2 = study_attack(skewed, trials=300, **kw)
    pd.testing.assert_frame_equal(a1, a2)
    a3 = study_attack(skewed, trials=300, **{**kw, "seed": 10})
    assert not np.allclose(a1["simulated_success"], a3["simulated_success"])
    study = sampling_study(skewed, **kw)
    keys = ["variable", "query", "proportion", "n", "repetition", "epsilon"]
    pd.testing.assert_frame_equal(a1[keys], study[keys])
    # a variable's numbers depend neither on the others nor on the limit for larger samples
    alone = study_attack({"hours": skewed["hours"]}, trials=300, max_n=20, **kw)
    both = a1[(a1["variable"] == "hours") & (a1["n"] <= 20)].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone[alone["attacked"]].reset_index(drop=True), both)


def test_summary_gains_the_attack_risks(attacked, skewed):
    kw = dict(
        queries=ALL_QUERIES, epsilons=[0.1, 1.0, 5.0], proportions=[0.05, 0.3, 1.0], repetitions=3, seed=4
    )
    results = sampling_study(skewed, **kw)
    for col in ATTACK_COLUMNS:
        results[col] = attacked[col].to_numpy()
    summary = study_summary(results)
    assert set(summary["risk"]) == {"many_worlds", "two_worlds", "global_risk", *ATTACK_COLUMNS}
    exact = summary[summary["risk"] == "exact_risk"]
    assert exact["n"].max() <= 40 and (exact["repetitions"] == 3).all()
    assert not exact[["min", "median", "max"]].isna().any().any()


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(-5, 20), min_size=3, max_size=12).filter(lambda v: len(set(v)) > 1),
    eps=st.sampled_from([0.05, 0.7, 3.0, 40.0]),
    query=st.sampled_from(ALL_QUERIES),
)
def test_invariants_on_random_small_data(values, eps, query):
    a = study_attack(np.array(values, float), queries=[query], epsilons=[eps], proportions=[1.0],
                     repetitions=1, trials=50)  # fmt: skip
    row = a.iloc[0]
    df = global_sensitivity(query, Universe.from_values(values))
    exact, success, bound = brute_force(np.array(values, float), query, eps, df)
    assert row.exact_risk == pytest.approx(exact, rel=1e-9)
    assert row.expected_success == pytest.approx(success, rel=1e-9, abs=1e-12)
    assert row.lee_clifton_bound == pytest.approx(bound, rel=1e-9)
    assert row.expected_success <= row.exact_risk + 1e-12 <= row.lee_clifton_bound + 2e-12


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"trials": 0}, "trials"),
        ({"trials": -5}, "trials"),
        ({"trials": 2.5}, "trials"),
        ({"trials": True}, "trials"),
        ({"max_n": 1}, "max_n"),
        ({"repetitions": 0}, "repetitions"),
        ({"proportions": [0.0]}, "proportions"),
        ({"epsilons": [-1.0]}, "epsilon"),
        ({"queries": ["mode"]}, "query"),
    ],
)
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(PrivriskError, match=fragment):
        study_attack({"x": np.arange(20.0)}, **{"proportions": [1.0], "repetitions": 1, **kwargs})


def test_merge_attack_adds_the_columns_and_refuses_rows_that_do_not_line_up():
    from privrisk.study.attack import merge_attack

    args = {"queries": ["max"], "epsilons": [1.0], "proportions": [0.5, 1.0], "repetitions": 2}
    values = {"x": np.arange(40.0) % 9}
    study = sampling_study(values, **args)
    attack = study_attack(values, **args, trials=50)
    merged = merge_attack(study, attack)
    assert list(merged.columns) == [*study.columns, *ATTACK_COLUMNS, "attacked"]
    assert "exact_risk" not in study.columns  # a new table; the study's is unchanged
    with pytest.raises(PrivriskError, match="line up"):
        merge_attack(study, study_attack(values, **{**args, "repetitions": 1}, trials=50))
