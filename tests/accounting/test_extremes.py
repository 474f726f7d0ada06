"""Extreme parameters, long compositions and the worst case (issue 20, the hostile findings on the accountant).

Every guarantee built from huge or tiny parameters either answers with probabilities in [0, 1] or raises a
PrivriskError; pure ε composed 10⁵–10⁶ times runs in bounded time and agrees with brute force (small k) and
with dp_accounting's privacy loss distribution (large k); no exact mechanism states more risk than its worst case.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from privrisk.accounting import (
    approximate_dp,
    compose,
    gaussian_dp,
    group,
    laplace_guarantee,
    pure_dp,
    randomised_response_guarantee,
    risk_summary,
    subsample,
    zcdp,
)
from privrisk.accounting.composition import KovComposition, kov_deltas
from privrisk.errors import PrivriskError


def probabilities(summary: dict) -> list[float]:
    values = [summary["advantage"], summary["success"], summary["posterior_max"]]
    values += [row["tpr"] for row in summary["tpr_at_fpr"]]
    values += [v for v in (summary["reconstruction"], summary["delta_at_epsilon"]) if v is not None]
    return values


def assert_sound(summary: dict) -> None:
    for part in (summary, summary["worst_case"]):
        for value in probabilities(part):
            assert 0.0 <= value <= 1.0, part
        eps = part["epsilon_at_delta"]
        assert eps is None or eps >= 0.0


# ------------------------------------------------------------------------------------ the cases found by hand
@pytest.mark.parametrize(
    "build",
    [
        lambda: subsample(pure_dp(800.0), 0.5),
        lambda: zcdp(1e200),
        lambda: subsample(gaussian_dp(5000.0), 0.5),
        lambda: compose([laplace_guarantee(scale=1e-300)] * 2),
        lambda: subsample(approximate_dp(1e6, 1e-6), 0.3).compose(5),
    ],
    ids=["eps800-sampled", "rho1e200", "mu5000-sampled", "laplace-tiny-scale-composed", "huge-approx"],
)
def test_extreme_values_answer(build):
    summary = risk_summary(build(), n=100, at_delta=1e-5, at_epsilon=1.0)
    assert_sound(summary)
    assert (
        summary["advantage"] >= 0.5
    )  # the attacker is (nearly) certain wherever the sample holds the record


def test_huge_mu_composed_answers():
    # No finite ε reaches δ = 10⁻⁶: the worst case reveals every answer, as the exact guarantee nearly does.
    summary = risk_summary(compose([gaussian_dp(1e300)] * 2), n=100)
    assert_sound(summary)
    assert summary["advantage"] == 1.0 and summary["worst_case"]["advantage"] == 1.0


kinds = st.sampled_from(["pure", "approx", "gdp", "zcdp", "laplace", "rr"])
sizes = st.floats(min_value=-300, max_value=300).map(lambda x: 10.0**x)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=kinds,
    size=sizes,
    rate=st.one_of(st.just(1.0), st.floats(min_value=-300, max_value=0).map(lambda x: 10.0**x)),
    copies=st.sampled_from([1, 2, 5]),
    members=st.sampled_from([1, 2]),
)
def test_any_guarantee_gives_probabilities_or_a_privrisk_error(kind, size, rate, copies, members):
    try:
        g = {
            "pure": lambda: pure_dp(size),
            "approx": lambda: approximate_dp(size, 1e-7),
            "gdp": lambda: gaussian_dp(size),
            "zcdp": lambda: zcdp(size),
            "laplace": lambda: laplace_guarantee(scale=size),
            "rr": lambda: randomised_response_guarantee(epsilon=size),
        }[kind]()
        if rate < 1.0:
            g = subsample(g, rate)
        g = group(g, members)
        if copies > 1:
            g = compose([g] * copies)
        summary = risk_summary(g, n=100, at_delta=1e-5, at_epsilon=1.0)
    except PrivriskError as error:
        assert "\n" not in str(error)
        return
    assert_sound(summary)


# ------------------------------------------------------------------------------- pure ε composed very often
@pytest.mark.parametrize(("eps0", "delta0", "k"), [(1.0, 0.0, 4), (0.3, 0.0, 9), (0.7, 1e-3, 6)])
def test_kov_against_brute_force(eps0, delta0, k):
    # Enumerate every outcome of k randomized responses: the loss is (k − 2j)ε₀ with j ~ Binomial(k, q).
    p = math.exp(eps0) / (1 + math.exp(eps0))
    for eps in (0.0, 0.5, 1.0, 2.5):
        pure = sum(
            math.comb(k, j) * p ** (k - j) * (1 - p) ** j * (1 - math.exp(eps - (k - 2 * j) * eps0))
            for j in range(k + 1)
            if (k - 2 * j) * eps0 > eps
        )
        expected = 1 - (1 - delta0) ** k * (1 - pure)
        assert float(kov_deltas(eps0, delta0, k, np.array([eps]))[0]) == pytest.approx(expected, abs=1e-15)


def test_kov_at_large_k_against_dp_accountings_pld():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    common = pytest.importorskip("dp_accounting.pld.common")
    one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(0.01, 0.0))
    composed = one.self_compose(20_000)
    g = compose([pure_dp(0.01)] * 20_000)
    assert isinstance(g, KovComposition)
    for eps in (1.0, 2.0, 3.0):
        exact, pessimistic = g.delta_at(eps), composed.get_delta_for_epsilon(eps)
        assert exact <= pessimistic * (1 + 1e-9)
        assert exact == pytest.approx(pessimistic, rel=2e-2)


@pytest.mark.parametrize(
    "build",
    [
        lambda: compose([pure_dp(1.0)] * 100_000),
        lambda: compose([randomised_response_guarantee(epsilon=0.1)] * 1_000_000),
        lambda: compose([approximate_dp(0.1, 1e-9)] * 1_000_000),
    ],
    ids=["eps1-1e5", "rr-1e6", "approx-1e6"],
)
def test_pure_epsilon_composed_a_million_times_answers(build):
    g = build()
    summary = risk_summary(g, n=100, at_delta=1e-5)
    assert_sound(summary)
    # k·ε₀ is the pure bound; the optimal composition is far below it.
    assert summary["epsilon_at_delta"] < 0.5 * g.pure_epsilon if g.pure_epsilon else True


# ---------------------------------------------------------------------------- never riskier than the worst case
@pytest.mark.parametrize(
    "build",
    [
        lambda: subsample(laplace_guarantee(scale=1.0), 0.5),
        lambda: compose([subsample(laplace_guarantee(scale=1.0), 0.5)] * 3),
        lambda: group(subsample(laplace_guarantee(scale=2.0), 0.3), 2),
        lambda: compose([laplace_guarantee(scale=1.0), subsample(laplace_guarantee(scale=0.5), 0.2)]),
    ],
    ids=["sampled", "sampled-composed", "sampled-grouped", "mixed"],
)
def test_the_exact_mechanism_is_never_riskier_than_its_worst_case(build):
    summary = risk_summary(build(), n=100, fpr=(0.001, 0.01, 0.1, 0.5), at_delta=1e-6, at_epsilon=0.5)
    worst = summary["worst_case"]
    for key in ("advantage", "success", "posterior_max", "reconstruction", "delta_at_epsilon"):
        assert summary[key] <= worst[key] + 1e-12, key
    for ours, theirs in zip(summary["tpr_at_fpr"], worst["tpr_at_fpr"], strict=True):
        assert ours["tpr"] <= theirs["tpr"] + 1e-12


# ------------------------------------------------------------------- issue 30: never more than its own worst case
def exact_pure_tpr(eps: float, alpha: float) -> float:
    """1 − β(α) of pure ε-DP, β(α) = max(0, 1 − e^ε α, e^(−ε)(1 − α)), with mpmath (shares no code)."""
    import mpmath

    e, a = mpmath.mpf(eps), mpmath.mpf(alpha)
    return float(1 - max(0, 1 - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - a)))


def test_fifty_releases_of_epsilon_fifty_never_test_positive_at_fpr_zero():
    # Issue 30: pure_dp(50).compose(50) stated TPR 1 at FPR 0, which pure DP forbids (Q's mass e^(−2500)
    # underflowed to 0, so the test "rejected" it for free).
    g = pure_dp(50).compose(50)
    assert float(g.tradeoff(0.0)) == 1.0
    s = risk_summary(g, fpr=(0.0, 1e-300, 0.001))
    assert s["tpr_at_fpr"][0]["tpr"] == 0.0 and s["worst_case"]["tpr_at_fpr"][0]["tpr"] == 0.0
    for mine, worst in zip(s["tpr_at_fpr"], s["worst_case"]["tpr_at_fpr"], strict=True):
        assert mine["tpr"] <= worst["tpr"]


PURE_KINDS = {
    "pure": lambda e, k: pure_dp(e),
    "pure-composed": lambda e, k: pure_dp(e).compose(k),
    "rr-composed": lambda e, k: randomised_response_guarantee(epsilon=e).compose(k),
    "laplace": lambda e, k: laplace_guarantee(epsilon=e),
}


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(PURE_KINDS)),
    st.floats(min_value=1e-6, max_value=60.0),
    st.integers(min_value=1, max_value=60),
    st.sampled_from([0.0, 1e-300, 1e-12, 0.001, 0.1, 0.5]),
)
@example("pure-composed", 50.0, 50, 0.0)  # issue 30
@example("rr-composed", 60.0, 60, 1e-300)
def test_a_pure_guarantee_never_beats_its_total_epsilon(kind, eps, k, alpha):
    """Exact TPR at FPR α ≤ the worst case's, 1 − β_(kε)(α), for pure ε and its compositions at extreme ε."""
    g = PURE_KINDS[kind](eps, k)
    total = g.pure_epsilon
    assert total is not None
    tpr = 1.0 - float(g.tradeoff(alpha))
    assert tpr <= exact_pure_tpr(total, alpha) + 1e-12, (kind, eps, k, alpha, tpr)
    if alpha == 0.0:
        assert tpr == 0.0


def _kinds():
    from privrisk.accounting import dpsgd, gaussian_guarantee, renyi_dp

    return {
        "pure": lambda t: pure_dp(700 * t),
        "approximate": lambda t: approximate_dp(50 * t, 1e-6),
        "zcdp": lambda t: zcdp(1e3 * t),
        "gdp": lambda t: gaussian_dp(1e3 * t),
        "renyi": lambda t: renyi_dp([2.0, 4.0, 8.0], [t, 3 * t, 7 * t]),
        "laplace": lambda t: laplace_guarantee(epsilon=700 * t),
        "gaussian": lambda t: gaussian_guarantee(sigma=1 / (100 * t)),
        "rr": lambda t: randomised_response_guarantee(epsilon=700 * t),
        "composed": lambda t: pure_dp(50 * t).compose(50),
        "approximate-composed": lambda t: approximate_dp(10 * t, 1e-7).compose(20),
        "group": lambda t: group(pure_dp(10 * t), 5),
        "subsampled": lambda t: subsample(gaussian_guarantee(sigma=1 / (10 * t)), 0.1),
        "dpsgd": lambda t: dpsgd(dataset_size=1000, batch_size=100, epochs=1, noise_multiplier=0.5 / t),
    }


KINDS = ["pure", "approximate", "zcdp", "gdp", "renyi", "laplace", "gaussian", "rr", "composed",
         "approximate-composed", "group", "subsampled", "dpsgd"]  # fmt: skip


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(KINDS),
    st.floats(min_value=1e-9, max_value=1.0),
    st.sampled_from([None, 1e-5, 0.01]),
)
def test_the_accountant_never_states_more_than_its_own_worst_case(kind, t, at_delta):
    s = risk_summary(_kinds()[kind](t), n=10, fpr=(0.0, 1e-6, 0.001, 0.1, 0.5), at_delta=at_delta)
    assert_sound(s)
    w = s["worst_case"]
    for key in ("advantage", "success", "posterior_max", "reconstruction"):
        assert s[key] <= w[key], (kind, t, key)
    for mine, worst in zip(s["tpr_at_fpr"], w["tpr_at_fpr"], strict=True):
        assert mine["fpr"] - 1e-15 <= mine["tpr"] <= worst["tpr"], (kind, t, mine, worst)
    if w["epsilon"] is not None and w["delta"] == 0:  # pure: its worst case is randomized response, exactly
        for row in w["tpr_at_fpr"]:
            assert row["tpr"] == pytest.approx(exact_pure_tpr(w["epsilon"], row["fpr"]), abs=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        ("--epsilon", "1"),
        ("--epsilon", "1", "--delta", "1e-6"),
        ("--mechanism", "laplace", "--epsilon", "1"),
        ("--mechanism", "rr", "--epsilon", "1"),
        ("--renyi", "2:0.5,4:1"),
        ("--mechanism", "gaussian", "--sigma", "1", "--sample-rate", "0.01"),
    ],
    ids=["pure", "approximate", "laplace", "rr", "renyi", "sampled-gaussian"],
)
def test_ten_to_the_twenty_releases_answer_as_a_labelled_bound(cli, args):
    # Issue 30: --compose 99999999999999999999 ended in a MemoryError ("2.90 TiB") or an OverflowError.
    r = cli("risk", *args, "--compose", "99999999999999999999", "--n", "10", "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert_sound(doc)
    assert doc["success"] > 0.999  # 10²⁰ releases of any of these give everything away
    assert doc["conversion"].startswith("a bound: 100,000,000,000,000,000,000 releases are too many")
