"""Composition, subsampling and group privacy: exact rules against brute force and closed forms, the PLD against
an independent accountant, and monotonicity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting import (
    approximate_dp,
    compose,
    gaussian_dp,
    gaussian_guarantee,
    group,
    laplace_guarantee,
    pure_dp,
    randomised_response_guarantee,
    renyi_dp,
    risk_summary,
    subsample,
    zcdp,
)
from privrisk.accounting.composition import BestOf, ComposedGuarantee, KovComposition, PldComposition
from privrisk.accounting.concentrated import RenyiDP, ZeroConcentratedDP
from privrisk.accounting.guarantees import ApproximateDP, GaussianDP, PureDP


def canonical(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The four outcomes of the worst (ε, δ) mechanism (Kairouz, Oh and Viswanath 2015, Thm. 2.1)."""
    e = math.exp(eps)
    p = np.array([delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0])
    return p, p[::-1].copy()


def brute_force_composition(eps: float, delta: float, k: int, at: float) -> float:
    """δ(ε) of k independent copies, summed over all 4^k joint outcomes."""
    p, q = canonical(eps, delta)
    total = 0.0
    for outcome in itertools.product(range(4), repeat=k):
        pp = math.prod(p[i] for i in outcome)
        qq = math.prod(q[i] for i in outcome)
        total += max(0.0, pp - math.exp(at) * qq)
    return total


@pytest.mark.parametrize(
    ("eps", "delta", "k"), [(1.0, 0.0, 3), (0.5, 0.0, 5), (0.7, 0.01, 3), (0.3, 1e-3, 4)]
)
def test_kairouz_oh_viswanath_against_brute_force(eps, delta, k):
    g = compose([approximate_dp(eps, delta) if delta else pure_dp(eps)] * k)
    assert isinstance(g, KovComposition)
    assert g.conversion == "Kairouz, Oh and Viswanath (2015), optimal composition"
    for at in (0.0, 0.4 * eps, eps, 2.5 * eps, k * eps):
        assert g.delta_at(at) == pytest.approx(brute_force_composition(eps, delta, k, at), abs=1e-13)


def test_kov_tradeoff_is_exact_at_the_loss_points():
    # The composed pair's Neyman–Pearson curve from the binomial, directly: reject the j smallest first.
    eps, k = 0.8, 6
    g = compose([pure_dp(eps)] * k)
    p1 = math.exp(eps) / (1 + math.exp(eps))
    j = np.arange(k + 1)
    binom = np.array([math.comb(k, i) for i in j], dtype=float)
    p = binom * p1 ** (k - j) * (1 - p1) ** j  # P: j "wrong" answers
    q = binom * (1 - p1) ** (k - j) * p1**j
    alpha, power = np.cumsum(q), np.cumsum(p)
    assert np.allclose(g.tradeoff(alpha[:-1]), 1 - power[:-1], atol=1e-12)


def test_randomized_response_composes_by_kov():
    g = compose(
        [randomised_response_guarantee(epsilon=0.7), pure_dp(0.7), randomised_response_guarantee(epsilon=0.7)]
    )
    assert isinstance(g, KovComposition) and g.k == 3
    assert g.delta_at(0.5) == pytest.approx(brute_force_composition(0.7, 0.0, 3, 0.5), abs=1e-14)


def test_kov_large_k_and_large_epsilon_stay_finite():
    g = compose([pure_dp(3.0)] * 2000)
    assert 0 <= g.delta_at(100.0) <= 1
    e = g.epsilon_at(1e-6)
    assert e < 2000 * 3.0
    assert g.delta_at(e) <= 1e-6
    big = compose([pure_dp(700.0)] * 3)
    assert big.delta_at(0.0) == pytest.approx(1.0) and big.epsilon_at(0.0) == 2100.0


def test_gaussian_dp_composition_is_exact():
    g = compose([gaussian_dp(0.3), gaussian_dp(0.4), gaussian_guarantee(sigma=2.0, sensitivity=1.2)])
    assert isinstance(g, GaussianDP)
    assert g.mu == pytest.approx(math.sqrt(0.09 + 0.16 + 0.36), rel=1e-15)
    assert g.conversion.startswith("exact")
    assert gaussian_dp(0.5).compose(4).mu == pytest.approx(1.0)


def test_zcdp_composition_adds_rho():
    g = compose([zcdp(0.1), zcdp(0.2), gaussian_dp(1.0)])
    assert isinstance(g, ZeroConcentratedDP)
    assert g.rho == pytest.approx(0.1 + 0.2 + 0.5)
    assert "Bun and Steinke" in g.conversion and "Canonne, Kamath and Steinke" in g.conversion


def test_renyi_composition_adds_curves():
    g = compose([renyi_dp([2, 4], [0.1, 0.3]), renyi_dp([2, 4], [0.2, 0.5]), zcdp(0.05)])
    assert isinstance(g, RenyiDP)
    assert g.orders == (2.0, 4.0)
    assert g.epsilons == pytest.approx((0.1 + 0.2 + 0.1, 0.3 + 0.5 + 0.2))
    assert "Balle et al. (2020)" in g.conversion


def test_laplace_with_zcdp_goes_through_renyi():
    g = compose([laplace_guarantee(epsilon=0.5), zcdp(0.1)])
    assert isinstance(g, BestOf) and any(isinstance(b, RenyiDP) for b in g.bounds)
    # Mironov (2017), Prop. 6 at α = 2: ln(2/3 e^ε + 1/3 e^(−2ε)).
    laplace_2 = math.log(2 / 3 * math.exp(0.5) + 1 / 3 * math.exp(-1.0))
    at_2 = g._rdp(np.array([2.0]))
    assert at_2 is not None and float(at_2[0]) <= laplace_2 + 0.2 + 1e-12


def test_approximate_with_zcdp_is_never_looser_than_basic_composition():
    a, z = approximate_dp(0.5, 1e-6), zcdp(0.1)
    g = compose([a, z])
    assert isinstance(g, BestOf) and any(isinstance(b, ComposedGuarantee) for b in g.bounds)
    for e in (0.5, 1.5, 3.0):
        # Basic composition at the split (0.5, e − 0.5): δ ≤ 1e-6 + δ_z(e − 0.5).
        assert g.delta_at(e) <= 1e-6 + z.delta_at(e - 0.5) + 1e-12
        assert g.delta_at(e) >= max(a.delta_at(e), z.delta_at(e)) - 1e-12


def test_pld_of_mixed_mechanisms_against_prv_accountant():
    prv = pytest.importorskip("prv_accountant")
    acc = prv.PRVAccountant(
        prvs=[prv.LaplaceMechanism(mu=0.2), prv.GaussianMechanism(noise_multiplier=5.0)],
        eps_error=1e-2,
        delta_error=1e-9,
        max_self_compositions=[30, 20],
    )
    lower, _, upper = acc.compute_epsilon(delta=1e-6, num_self_compositions=[30, 20])
    g = compose([laplace_guarantee(epsilon=0.2)] * 30 + [gaussian_guarantee(sigma=5.0)] * 20)
    assert isinstance(g, PldComposition)
    assert g.conversion == "privacy loss distribution (dp_accounting)"
    assert lower <= g.epsilon_at(1e-6) <= upper
    assert g.count == 50 and g.label.startswith("composition of 50 releases")


def test_pld_groups_identical_mechanisms():
    g = compose(
        [
            laplace_guarantee(scale=2.0),
            laplace_guarantee(scale=4.0, sensitivity=2.0),
            randomised_response_guarantee(epsilon=1.0),
        ]
    )
    assert isinstance(g, PldComposition)
    counts = sorted(count for _, count, _ in g.parts)
    assert counts == [1, 2]  # the two Laplace releases have the same Δ/b
    assert g.pure_epsilon == pytest.approx(2.0)
    assert g.epsilon_at(0.0) <= 2.0


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(0.05, 2.0), min_size=1, max_size=4),
    st.floats(0.05, 2.0),
    st.floats(0.0, 4.0),
)
def test_composition_is_monotone(epsilons, extra, at):
    base = compose([pure_dp(e) for e in epsilons])
    more = compose([*(pure_dp(e) for e in epsilons), pure_dp(extra)])
    assert more.delta_at(at) >= base.delta_at(at) - 1e-9


# ---------------------------------------------------------------------------------------------- subsampling
def test_subsampled_pure_and_approximate_formula():
    g = subsample(pure_dp(1.0), 0.1)
    assert isinstance(g, PureDP)
    assert g.epsilon == pytest.approx(math.log(1 + 0.1 * (math.e - 1)), rel=1e-15)
    h = subsample(approximate_dp(2.0, 1e-4), 0.05, method="without_replacement")
    assert isinstance(h, ApproximateDP)
    assert h.epsilon == pytest.approx(math.log(1 + 0.05 * (math.exp(2) - 1)))
    assert h.delta == pytest.approx(5e-6)
    assert "Balle, Barthe and Gaboardi" in h.conversion
    assert subsample(pure_dp(1.0), 1.0) == pure_dp(1.0)


def test_subsampled_laplace_pld_is_no_worse_than_the_formula():
    g = subsample(laplace_guarantee(epsilon=1.0), 0.1)
    formula = math.log(1 + 0.1 * (math.e - 1))
    assert g.epsilon_at(1e-9) <= formula + 1e-3
    assert g.pure_epsilon == pytest.approx(formula)


def test_subsampled_profile_transform():
    # Any profile: δ′(ε′) = γ δ(ln(1 + (e^ε′ − 1)/γ)).
    g = subsample(zcdp(0.5), 0.2)
    for e in (0.1, 1.0, 3.0):
        inner = math.log1p(math.expm1(e) / 0.2)
        assert g.delta_at(e) == pytest.approx(0.2 * zcdp(0.5).delta_at(inner), rel=1e-12)
    assert 0 <= g.delta_at(800.0) <= 1


# ---------------------------------------------------------------------------------------------- group privacy
def test_group_rules():
    assert group(pure_dp(0.5), 3).pure_epsilon == 1.5
    g = group(approximate_dp(0.5, 1e-6), 3)
    assert g.epsilon == 1.5 and g.delta == pytest.approx(3 * math.exp(1.0) * 1e-6)
    assert group(gaussian_dp(0.5), 4).mu == 2.0
    assert group(zcdp(0.1), 3).rho == pytest.approx(0.9)
    assert group(laplace_guarantee(scale=2.0), 2).epsilon == 1.0
    assert group(gaussian_guarantee(sigma=2.0), 2).mu == 1.0
    assert group(pure_dp(0.5), 1) == pure_dp(0.5)
    assert "group privacy" in group(randomised_response_guarantee(epsilon=1.0), 2).conversion
    assert group(laplace_guarantee(scale=2.0), 2).conversion.startswith("group privacy for groups of 2")
    assert group(gaussian_guarantee(sigma=2.0), 3).conversion.endswith("exact (Gaussian mechanism)")


def test_group_of_a_composition_groups_each_release():
    g = compose([laplace_guarantee(epsilon=0.5)] * 3 + [gaussian_guarantee(sigma=4.0)])
    h = group(g, 2)
    direct = compose([laplace_guarantee(epsilon=1.0)] * 3 + [gaussian_guarantee(sigma=2.0)])
    assert h.epsilon_at(1e-6) == pytest.approx(direct.epsilon_at(1e-6), rel=1e-9)


def test_group_of_renyi_goes_point_by_point():
    base = renyi_dp([2, 8], [0.1, 0.5])
    g = group(base, 2)
    for e in (1.0, 3.0):
        expected = min(1.0, 2 * math.exp(e / 2) * base.delta_at(e / 2))
        assert g.delta_at(e) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------------------------------------- the PLD views
def test_pld_profile_is_dp_accountings():
    g = compose([laplace_guarantee(epsilon=0.3)] * 7 + [gaussian_guarantee(sigma=4.0)] * 3)
    assert isinstance(g, PldComposition)
    for e in (0.0, 0.5, 1.5, 3.0):
        assert g.delta_at(e) == pytest.approx(float(g.pld.get_delta_for_epsilon(e)), rel=1e-9, abs=1e-15)


def test_pld_tradeoff_matches_riskcal():
    analysis = pytest.importorskip("riskcal.analysis")
    g = compose([laplace_guarantee(epsilon=0.5)] * 4 + [gaussian_guarantee(sigma=3.0)] * 2)
    alpha = np.array([0.001, 0.01, 0.1, 0.3, 0.6])
    theirs = analysis.get_beta_from_pld(g.pld, alpha=alpha)
    assert np.allclose(g.tradeoff(alpha), theirs, atol=2e-4)
    # Consistent with the profile: the largest gap 1 − α − β is δ(0).
    grid = np.linspace(0, 1, 20_001)
    assert float(np.max(1 - grid - g.tradeoff(grid))) == pytest.approx(g.delta_at(0.0), abs=1e-4)


def test_subsampled_pld_curve_is_a_valid_bound():
    g = subsample(gaussian_guarantee(sigma=1.0), 0.05)
    assert isinstance(g, PldComposition)
    alpha = np.linspace(0, 1, 2001)
    beta = g.tradeoff(alpha)
    assert np.all((beta >= 0) & (beta <= 1 - alpha + 1e-12)) and np.all(np.diff(beta) <= 1e-12)
    # Never above what the (ε, δ) profile allows at any ε: β ≥ envelope is what we can check from below.
    for e in (0.05, 0.2, 1.0):
        d = g.delta_at(e)
        assert np.all(beta >= np.maximum(0, 1 - d - np.exp(e) * alpha) - 1e-9)


def test_large_epsilon_composition_is_quick_and_sane():
    g = compose([laplace_guarantee(epsilon=700.0)] * 3)
    assert g.epsilon_at(1e-6) <= 2100.0
    assert float(g.tradeoff(0.5)) == 0.0
    assert g.pure_epsilon == 2100.0


def test_group_of_a_kov_composition():
    g = group(compose([approximate_dp(0.5, 1e-7)] * 4), 2)
    assert isinstance(g, KovComposition)
    assert g.epsilon == 1.0 and g.k == 4
    assert g.delta == pytest.approx(2 * math.exp(0.5) * 1e-7)


def test_the_split_modules_keep_the_public_imports():
    # composition.py was split by what each part computes; every earlier import still gives the same object.
    import privrisk.accounting as A
    from privrisk.accounting import composition, grouping, subsampling

    assert A.subsample is subsampling.subsample is composition.subsample
    assert A.group is grouping.group is composition.group
    assert composition.SubsampledGuarantee is subsampling.SubsampledGuarantee
    assert composition.GroupGuarantee is grouping.GroupGuarantee
    with pytest.raises(AttributeError):
        composition.no_such_name


@pytest.mark.parametrize(("delta", "k"), [(0.9, 40), (0.5, 200), (0.5, 40)])
def test_pld_whose_finite_mass_vanishes_is_certain_not_an_index_error(delta, k):
    # dp_accounting's tail truncation empties a loss distribution whose finite mass is below about 10⁻¹⁵
    # (an IndexError after a few dozen copies of a large δ); the composition is then told apart for certain.
    g = compose([approximate_dp(1.0, delta)] * k + [laplace_guarantee(epsilon=1.0)])
    assert isinstance(g, PldComposition)
    floor = -math.expm1(k * math.log1p(-delta))  # δ(∞) of the composition, by hand: 1 − (1 − δ)^k
    for eps in (0.0, 1.0, 100.0):
        assert g.delta_at(eps) >= floor - 1e-15
    assert g.epsilon_at(0.999) == math.inf
    assert float(g.tradeoff(np.array([0.0]))[0]) <= 1 - floor + 1e-12
    assert risk_summary(g)["advantage"] >= floor - 1e-12
