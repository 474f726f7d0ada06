"""The intruder's audit: every printed number of Sarathy and Muralidhar (2009), invariants, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privrisk import (
    QUERIES,
    PrivriskError,
    audit_data_dependent,
    audit_sweep,
    evaluate,
    leave_one_out,
)

# Table 1 of Sarathy and Muralidhar (2009): 30 insurance claims ('000 $); the 30th is Terry Gross's.
CLAIMS = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18, 9.45, 12.65,
          9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08, 10.38, 12.32, 9.92, 100.00]  # fmt: skip

# Table 2 of Sarathy and Muralidhar: p1/p3 for missing records 1–29 (record 30: > 99999999).
TABLE2 = [0.91, 0.89, 0.92, 0.93, 0.92, 0.95, 0.92, 0.96, 0.89, 0.89, 0.98, 0.88, 0.93, 0.90, 0.96, 0.90,
          0.93, 0.88, 0.91, 0.92, 0.85, 0.92, 0.91, 0.90, 0.89, 0.91, 0.92, 0.96, 0.91]  # fmt: skip

# Table 3 of Sarathy and Muralidhar: p1/p3 for x₃₀ = value (u = 0.75). 40: an erratum (docs/errata.md), four digits.
TABLE3 = {14: 9, 15: 19, 16: 41, 17: 90, 18: 195, 19: 425, 20: 925, 25: 45140, 30: 2201886}


@pytest.fixture(scope="module")
def claims_audit():
    return audit_data_dependent(CLAIMS, "mean", 2, u=0.75)


def test_the_providers_numbers(claims_audit):
    res = claims_audit
    assert round(res.f_n, 3) == 13.312
    assert round(res.f_star, 3) == 10.323
    assert round(res.delta_n, 3) == 2.989
    assert round(res.b_n, 3) == 1.495
    assert round(res.response, 3) == 14.348
    assert round(res.response - res.f_n, 3) == 1.036  # Laplace⁻¹(0.75, 0, 1.495)
    assert res.p1 == pytest.approx(0.25)
    assert round(res.p2, 4) == 0.0338
    assert res.star == 30
    # The provider's check passes: p1/p2 ≤ e^ε (here exactly e^ε: r lies above both means).
    assert res.p1 / res.p2 == pytest.approx(math.exp(2))


def test_the_intruders_numbers(claims_audit):
    res = claims_audit
    assert round(res.f_star2, 3) == 10.439
    assert round(res.delta_star, 3) == 0.115
    assert round(res.b_star, 3) == 0.058
    # "the next most influential observation is the 21st observation with a value of 7.09"
    t = leave_one_out(CLAIMS, "mean")
    assert t.loc[29, "next_record"] == 21


def test_table_2_every_ratio(claims_audit):
    rec = claims_audit.records
    assert rec["ratio"].iloc[:29].round(2).tolist() == TABLE2
    assert rec["ratio"].iloc[29] > 99999999
    assert rec["violates"].tolist() == [False] * 29 + [True]
    assert claims_audit.violations == 1


def test_quantile_and_bound(claims_audit):
    assert round(claims_audit.quantile, 5) == 10.81483
    assert round(claims_audit.bound, 3) == 25.075
    assert claims_audit.bound_kind == "at least" and claims_audit.bound_learned


def test_hypothesis_test(claims_audit):
    h = claims_audit.hypothesis
    assert round(h["mean"], 2) == 10.32
    assert round(h["sd"], 3) == 1.377
    assert round(h["se"], 3) == 0.256
    # P[answer ≥ 14.348 | Normal(10.32, 0.256)] ≈ 0
    assert h["p_value"] == pytest.approx(stats.norm.sf(claims_audit.response, h["mean"], h["se"]))
    assert h["p_value"] < 1e-40


def test_table_3():
    table = audit_sweep(CLAIMS, "mean", 2, 30, [*TABLE3, 40, 50, 100], u=0.75)
    ratios = dict(zip(table["value"], table["ratio"], strict=True))
    for value, printed in TABLE3.items():
        assert round(ratios[value]) == printed, value
    assert f"{ratios[40]:.3e}" == "5.239e+09"  # the paper prints 5239083064; the formulas give 5239075290.9
    assert ratios[50] > 9999999999 and ratios[100] > 9999999999
    assert table["violates"].all()


def test_sweep_at_the_data_reproduces_the_audit(claims_audit):
    row = audit_sweep(CLAIMS, "mean", 2, 30, [100.0], u=0.75).iloc[0]
    assert row["ratio"] == pytest.approx(claims_audit.records["ratio"].iloc[29], rel=1e-9)


# --------------------------------------------------------------------------------------------------------------
# Invariants: global-sensitivity noise, tails, densities, bounds
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", QUERIES)
@settings(max_examples=40)
@given(
    x=st.lists(st.floats(0, 10, allow_nan=False).map(lambda v: round(v, 2)), min_size=3, max_size=12),
    u=st.floats(0.001, 0.999),
    event=st.sampled_from(["tail", "density"]),
)
def test_global_sensitivity_noise_never_breaks_e_epsilon(query, x, u, event):
    res = audit_data_dependent(x, query, 1.0, u=u, event=event, universe=(0, 10))
    g = res.global_audit
    assert g.violations == 0
    assert g.max_ratio <= math.exp(1.0) * (1 + 1e-9)
    assert np.all((res.records["p3"] >= 0) & (res.records["p3"] <= (1 if event == "tail" else np.inf)))
    assert not res.records[["p3", "ratio", "log10_ratio"]].isna().any().any()


def test_claims_under_global_sensitivity():
    res = audit_data_dependent(CLAIMS, "mean", 2, u=0.75, universe=(0, 100))
    g = res.global_audit
    assert g.sensitivity == 50 and g.scale == 25  # Δf = R/2 for the mean
    assert g.violations == 0 and res.violations == 1


def test_lower_tail_and_density_against_scipy():
    res = audit_data_dependent(CLAIMS, "mean", 2, u=0.2)
    assert res.tail == "lower" and res.p1 == pytest.approx(0.2)
    rec = res.records.iloc[0]
    p3 = stats.laplace.cdf(res.response, rec["f_without"], rec["b_without"])
    assert rec["p3"] == pytest.approx(p3, rel=1e-12)
    dens = audit_data_dependent(CLAIMS, "mean", 2, u=0.75, event="density")
    assert dens.p1 == pytest.approx(stats.laplace.pdf(dens.response, dens.f_n, dens.b_n))
    rec = dens.records.iloc[4]
    assert rec["ratio"] == pytest.approx(
        dens.p1 / stats.laplace.pdf(dens.response, rec["f_without"], rec["b_without"]), rel=1e-12
    )
    assert dens.records["violates"].iloc[29]


def test_response_given_instead_of_u():
    # By hand: f_n = mean of all 30, Δ_n = f_n − mean of the first 29 (Terry Gross's claim left out), b_n = Δ_n/ε;
    # the answer b_n·ln 2 above f_n is the upper 25 % point of f_n + Lap(b_n).
    f_n = math.fsum(CLAIMS) / 30
    b_n = (f_n - math.fsum(CLAIMS[:29]) / 29) / 2
    res = audit_data_dependent(CLAIMS, "mean", 2, response=f_n + b_n * math.log(2))
    assert res.u is None and res.p1 == pytest.approx(0.25, rel=1e-12)
    assert res.response == f_n + b_n * math.log(2) and res.b_n == pytest.approx(b_n, rel=1e-12)


def test_seed_gives_the_same_answer():
    a = audit_data_dependent(CLAIMS, "median", 1, seed=7)
    b = audit_data_dependent(CLAIMS, "median", 1, seed=7)
    c = audit_data_dependent(CLAIMS, "median", 1, seed=8)
    assert a.response == b.response and a.u == b.u
    assert a.response != c.response


def test_sum_bound_is_the_analogue_of_the_mean():
    res = audit_data_dependent(CLAIMS, "sum", 2, u=0.75)
    rest = np.delete(CLAIMS, res.star - 1)
    assert res.star == 30
    assert res.bound == pytest.approx(res.quantile - rest.sum())
    assert res.bound_kind == "at least" and res.bound_learned


@pytest.mark.parametrize("query", ["mean", "sum", "max", "variance", "std"])
def test_bound_reaches_the_quantile(query):
    res = audit_data_dependent(CLAIMS, query, 2, u=0.75)
    rest = np.delete(CLAIMS, res.star - 1)
    assert res.bound_learned
    x = res.bound + (np.mean(rest) if res.bound_kind.startswith("distance") else 0.0)
    assert evaluate(query, np.append(rest, x)) == pytest.approx(res.quantile, rel=1e-6)


def test_median_bound_when_reachable_and_not():
    # The median of the 29 others plus any x stays between their 14th and 16th values: 10.72 is out of reach.
    res = audit_data_dependent(CLAIMS, "median", 2, u=0.75)
    assert res.bound_kind == "none" and not res.bound_learned and res.violations == 0
    # Wide gaps and a large ε: the quantile 25 + 0.05·ln(5000) lies between the others' 3rd and 4th values.
    x = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    res = audit_data_dependent(x, "median", 100, response=40.0)
    rest = np.delete(x, res.star - 1)
    assert res.star == 7 and res.bound_kind == "at least" and res.bound_learned
    assert res.bound == pytest.approx(25 + 0.05 * math.log(5000))
    assert evaluate("median", np.append(rest, res.bound)) == pytest.approx(res.quantile, abs=1e-9)


def test_count_is_safe_and_min_has_no_upper_bound():
    count = audit_data_dependent(CLAIMS, "count", 1, u=0.75)
    assert count.violations == 0 and not count.hypothesis["applies"]
    low = audit_data_dependent(CLAIMS, "min", 1, u=0.75)
    assert low.bound_kind == "none"


def test_sentence(claims_audit):
    text = claims_audit.sentence("claim")
    assert text == (
        "An intruder holding the other 29 claims learns from one answer that the missing claim is at least "
        "25.08 (99.99 % confidence)."
    )
    safe = audit_data_dependent(CLAIMS, "count", 1, u=0.75).sentence()
    assert safe.startswith("No single answer")


# --------------------------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------------------------


def test_fewer_than_three_records():
    with pytest.raises(PrivriskError, match="at least 3 records"):
        audit_data_dependent([1.0, 2.0], "mean", 1, u=0.5)


@pytest.mark.parametrize("eps", [0, -1, math.inf])
def test_epsilon_not_positive(eps):
    with pytest.raises(PrivriskError, match="epsilon"):
        audit_data_dependent(CLAIMS, "mean", eps, u=0.5)


@pytest.mark.parametrize("u", [0, 1, 1.5, -0.2])
def test_u_outside_the_open_interval(u):
    with pytest.raises(PrivriskError, match="u: must lie strictly between 0 and 1"):
        audit_data_dependent(CLAIMS, "mean", 1, u=u)


def test_u_and_response_together():
    with pytest.raises(PrivriskError, match="not both"):
        audit_data_dependent(CLAIMS, "mean", 1, u=0.5, response=3.0)


@pytest.mark.parametrize("record", [0, 31, 2.5])
def test_unknown_record(record):
    with pytest.raises(PrivriskError, match="record"):
        audit_sweep(CLAIMS, "mean", 2, record, [14], u=0.75)


def test_unknown_event():
    with pytest.raises(PrivriskError, match="event"):
        audit_data_dependent(CLAIMS, "mean", 1, u=0.5, event="odds")


def test_values_outside_the_universe():
    with pytest.raises(PrivriskError, match="outside the universe"):
        audit_data_dependent(CLAIMS, "mean", 1, u=0.5, universe=(0, 50))


@settings(max_examples=60)
@given(
    rest=st.lists(st.integers(0, 30).map(float), min_size=2, max_size=8),
    level=st.floats(-5, 35),
    upper=st.booleans(),
)
def test_median_bound_against_a_grid(rest, level, upper):
    from privrisk.audit._inference import missing_bound as _missing_bound

    bound, kind = _missing_bound("median", np.asarray(rest), level, "upper" if upper else "lower")
    grid = np.linspace(-10, 40, 2001)
    meds = np.median(np.column_stack([np.broadcast_to(rest, (grid.size, len(rest))), grid]), axis=1)
    hits = meds >= level if upper else meds <= level
    if kind == "none":  # out of reach, or reached by every value (then nothing is learned)
        assert not hits.any() or hits.all()
    else:
        reach = grid[hits]
        assert 0 < reach.size < grid.size
        expected = reach.min() if upper else reach.max()
        assert bound == pytest.approx(expected, abs=0.03)


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("event", ["tail", "density"])
def test_constant_data_gives_no_nan(query, event):
    # Δf_n = 0 (or 1 for the count): the noise is a point mass; every number stays defined.
    res = audit_data_dependent([5.0, 5.0, 5.0, 5.0], query, 1, u=0.7, event=event, universe=(0, 10))
    cols = ["f_without", "b_without", "p3", "ratio", "log10_ratio"]
    assert not res.records[cols].isna().any().any()
    assert not math.isnan(res.p1) and not math.isnan(res.p2) and not math.isnan(res.quantile)
    assert res.global_audit.violations == 0
    assert res.violations == 0
    if query not in ("count", "sum"):
        assert res.b_n == 0 and res.response == res.f_n


def test_sentence_when_the_ratio_breaks_but_no_bound_is_learned():
    # u = 0.1: r = 13.312 + 1.495·ln(0.2) = 10.906 lies below f_n; without claim 30 the lower tail is ≈ 1, so
    # p3/p1 = 1/0.1 = 10 > e² while the answer stays inside the intruder's 99.99 % range.
    res = audit_data_dependent(CLAIMS, "mean", 2, u=0.1)
    assert res.tail == "lower" and res.violations == 1 and not res.bound_learned
    assert res.records["ratio"].iloc[29] == pytest.approx(0.1, rel=1e-4)  # p3 = 1 − e^(−10.1)/2
    assert res.sentence("claim") == (
        "An intruder holding the other 29 claims finds one answer 10 times less likely with claim 30 in the data "
        "than without it: beyond the e^ε = 7.389 that ε promises."
    )
