"""004's other parts: joint queries (composition), adversary knowledge (Definition 4), added Laplace noise."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from privrisk.empirical.density import joint_hockey_stick_delta
from privrisk.empirical.measure import delta_column, empirical_privacy, query_spec
from privrisk.empirical.search import smallest_noise
from privrisk.errors import PrivacyLeakWarning, PrivriskError


def column_sum_table(t=120, people=30, seed=0):
    """004 §2's example: f₁ = a column sum, f₂ = the same sum without individual "j" (present every period)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(t):
        who = rng.choice(people, 25, replace=False)
        rows += [{"period": s, "who": f"p{w}", "v": rng.normal(0.0, 2.0)} for w in who]
        rows.append({"period": s, "who": "j", "v": 5.0 + rng.random()})
    df = pd.DataFrame(rows)
    df["v_without_j"] = np.where(df["who"] == "j", 0.0, df["v"])
    return df


def test_query_spec():
    assert query_spec("mean:hours") == ("mean", "hours", None)
    assert query_spec("rate:failed/inspected") == ("rate", "failed", "inspected")
    for bad in ("median:x", "sum", "mean:x/w"):
        with pytest.raises(PrivriskError, match=r"^joint:"):
            query_spec(bad)


def test_joint_queries_reveal_what_each_hides():
    df = column_sum_table()
    eps = [1.0]
    common = dict(period="period", individual="who", epsilons=eps)
    alone_1 = empirical_privacy(df, query="sum", value="v", **common).individuals.set_index("individual")
    alone_2 = empirical_privacy(df, query="sum", value="v_without_j", **common).individuals.set_index(
        "individual"
    )
    both = empirical_privacy(df, query="sum", value="v", joint="sum:v_without_j", **common)
    col = delta_column(1.0)
    assert alone_1.loc["j", col] < 0.2  # the sum alone hides j fairly well
    assert alone_2.loc["j", col] == 0.0  # the sum without j does not depend on j at all
    assert both.individuals.set_index("individual").loc["j", col] > 0.8  # together they reveal j's share
    assert both.summary["worst_individual"].iloc[0] == "j"
    assert both.joint is not None and both.joint.size == 120


def test_joint_density_on_identical_samples_is_zero_and_disjoint_is_one():
    rng = np.random.default_rng(3)
    y = rng.normal(size=(30, 2))
    assert joint_hockey_stick_delta(y, y, [0.0, 0.5]).tolist() == [0.0, 0.0]
    assert joint_hockey_stick_delta(y, y + 100.0, 0.5)[0] == pytest.approx(1.0)


def naive_box_2d(points, k, gx, gy):
    """The 2-D variable-width box density on a grid, kernel by kernel (bandwidths by sorting all distances)."""
    t = len(points)
    total = np.zeros(gx.shape)
    for j in range(t):
        d = sorted(
            max(abs(points[j, 0] - points[m, 0]), abs(points[j, 1] - points[m, 1]))
            for m in range(t)
            if m != j
        )
        h = d[k - 1]
        total += ((np.abs(gx - points[j, 0]) < h) & (np.abs(gy - points[j, 1]) < h)) / (4 * h * h)
    return total / t


def test_joint_delta_by_brute_force():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 40, (9, 2)) / 40.0
    a[0], a[1] = [0.0, 0.0], [1.0, 1.0]  # range 1 in both coordinates: the scaling is the identity
    b = rng.integers(0, 40, (9, 2)) / 40.0
    k, eps = 3, 0.2
    # a fine midpoint grid; both densities are constant on the cells of the kernel edges, so a 600 × 600 grid
    # integrates them exactly except in cells cut by a kernel edge (well under 1 % of the mass)
    gx, gy = np.meshgrid((np.arange(600) + 0.5) / 600, (np.arange(600) + 0.5) / 600, indexing="ij")
    lo_b, hi_b = b.min(axis=0), b.max(axis=0)
    inside = (gx >= lo_b[0]) & (gx <= hi_b[0]) & (gy >= lo_b[1]) & (gy <= hi_b[1])
    p = naive_box_2d(a, k, gx, gy)
    q = naive_box_2d(b, k, gx, gy) * inside
    p, q = p / p.sum(), q / q.sum()
    e = np.exp(eps)
    expected = max(np.maximum(p - e * q, 0).sum(), np.maximum(q - e * p, 0).sum())
    assert joint_hockey_stick_delta(a, b, eps, k=k)[0] == pytest.approx(expected, abs=0.01)


def seasonal_table(t=60, people=120, seed=1):
    rng = np.random.default_rng(seed)
    period = np.repeat(np.arange(t), 30)
    return pd.DataFrame(
        {
            "period": period,
            "who": rng.integers(0, people, period.size),
            "v": rng.gamma(2.0, 1.0, period.size) + 2.0 * (period % 2),
            "season": (period % 2).astype(float),
        }
    )


def test_conditioning_equals_the_largest_delta_within_buckets():
    df = seasonal_table()
    eps = [0.2, 1.0]
    r = empirical_privacy(
        df,
        period="period",
        individual="who",
        query="mean",
        value="v",
        epsilons=eps,
        condition_on="season",
        buckets=2,
    )
    assert r.conditional["periods"].tolist() == [30, 30]
    by_hand = []
    for season in (0.0, 1.0):
        part = empirical_privacy(
            df[df["season"] == season],
            period="period",
            individual="who",
            query="mean",
            value="v",
            epsilons=eps,
        ).individuals.set_index("individual")
        by_hand.append(part[[delta_column(e) for e in eps]])
    expected = (
        pd.concat(by_hand, axis=1)
        .T.groupby(level=0)
        .max()
        .T.reindex(by_hand[0].index.union(by_hand[1].index))
        .fillna(0)
    )
    got = r.individuals.set_index("individual").loc[expected.index, expected.columns]
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), atol=1e-12)


def test_conditioning_on_a_query_and_small_bucket_warning():
    df = seasonal_table(t=40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = empirical_privacy(
            df,
            period="period",
            individual="who",
            query="mean",
            value="v",
            epsilons=[0.5],
            condition_on="count",
            buckets=1,
        )
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert r.conditional["periods"].tolist() == [40]
    with pytest.warns(PrivacyLeakWarning, match="too few"):
        r = empirical_privacy(
            df,
            period="period",
            individual="who",
            query="mean",
            value="v",
            epsilons=[0.5],
            condition_on="sum:v",
            buckets=8,
        )
    assert r.conditional["periods"].sum() == 40


def test_noise_lowers_delta_and_is_reproducible():
    df = seasonal_table(t=40, people=60)
    common = dict(period="period", individual="who", query="mean", value="v", epsilons=[0.1], draws=10)
    plain = (
        empirical_privacy(df, **{k: v for k, v in common.items() if k != "draws"}).summary["delta"].iloc[0]
    )
    a = empirical_privacy(df, noise=5.0, seed=3, **common).summary["delta"].iloc[0]
    b = empirical_privacy(df, noise=5.0, seed=3, **common).summary["delta"].iloc[0]
    huge = empirical_privacy(df, noise=500.0, seed=3, **common).summary["delta"].iloc[0]
    assert a == b
    assert huge < plain and huge < 0.05


def test_smallest_noise_reaches_the_target():
    df = seasonal_table(t=30, people=40)
    common = dict(period="period", individual="who", query="mean", value="v", draws=5, seed=1)
    found = smallest_noise(df, target_delta=0.02, epsilons=[0.1], steps=4, **common)
    row = found.iloc[0]
    assert row["delta_without_noise"] > 0.02
    assert row["scale"] > 0 and row["delta"] <= 0.02
    check = empirical_privacy(df, epsilons=[0.1], noise=row["scale"], **common).summary["delta"].iloc[0]
    assert check == pytest.approx(row["delta"])
    with pytest.raises(PrivriskError, match=r"^target_delta:"):
        smallest_noise(df, target_delta=1.5, **common)


def test_extras_bad_input():
    df = column_sum_table(t=20)
    common = dict(period="period", individual="who", query="sum", value="v", epsilons=[1.0])
    with pytest.raises(PrivriskError, match=r"^joint:"):
        empirical_privacy(df, joint="sum:v_without_j", density="ecdf", **common)
    with pytest.raises(PrivriskError, match=r"^joint:"):
        empirical_privacy(df, joint="sum:nope", **common)
    with pytest.raises(PrivriskError, match=r"^noise:"):
        empirical_privacy(df, noise=-1.0, **common)
    with pytest.raises(PrivriskError, match=r"^buckets:"):
        empirical_privacy(df, condition_on="count", buckets=0, **common)


def test_merge_periods_refuses_an_aggregate_leaving_one_database():
    import numpy as np

    from privrisk import PrivriskError
    from privrisk.empirical.periods import merge_periods

    codes = np.arange(24)
    assert merge_periods(codes, codes, 12)[1].tolist() == [
        0,
        12,
    ]  # 24 periods: 12 per database still gives two
    with pytest.raises(PrivriskError, match="the data has 24 periods") as info:
        merge_periods(codes, codes, 13)
    assert info.value.param == "aggregate"


def test_noise_draws_refuse_a_negative_seed():
    from privrisk import PrivriskError
    from privrisk.empirical.inputs import noise_draws

    assert noise_draws(1.0, 2, 3, 5).shape == (2, 3)
    with pytest.raises(PrivriskError, match="seed") as info:
        noise_draws(1.0, 2, 3, -1)
    assert info.value.param == "seed"
