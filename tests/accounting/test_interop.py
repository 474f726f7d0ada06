"""from_opendp with real OpenDP measurements (every output measure it reads) and from_opacus with literal
histories, against OpenDP's own maps and dp_accounting's privacy loss distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrisk import accounting as A
from privrisk.errors import PrivriskError

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib", "honest-but-curious")  # the user measurements below need the second
SPACE = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))


def test_pure_dp_from_a_laplace_measurement():
    m = dp.m.make_laplace(*SPACE, scale=2.0)
    g = A.from_opendp(m, 1.0)
    assert g.pure_epsilon == m.map(1.0) == 0.5
    assert g.conversion.startswith("read from OpenDP's privacy map (MaxDivergence at d_in = 1.0); exact")
    assert A.from_opendp(m, 3.0).pure_epsilon == 1.5  # d_in is OpenDP's: three times the distance


def test_zcdp_from_a_gaussian_measurement():
    m = dp.m.make_gaussian(*SPACE, scale=2.0)
    g = A.from_opendp(m, 1.0)
    assert g.rho == pytest.approx(1 / 8)  # Δ²/(2σ²)
    assert "OpenDP" in g.conversion and "Canonne, Kamath and Steinke" in g.conversion
    assert g.epsilon_at(1e-6) == A.zcdp(1 / 8).epsilon_at(1e-6)


def test_approximate_dp_from_a_fixed_delta():
    gauss = dp.m.make_gaussian(*SPACE, scale=2.0)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-6)
    eps, delta = fixed.map(1.0)
    g = A.from_opendp(fixed, 1.0)
    assert (g.epsilon_at(delta), g.delta_at(eps)) == pytest.approx((eps, delta), rel=1e-12)
    assert g.delta_at(0.0) > delta  # the worst (ε, δ) mechanism, not the Gaussian: δ(0) is larger
    pure = A.from_opendp(dp.c.make_approximate(dp.m.make_laplace(*SPACE, scale=1.0)), 1.0)
    assert pure.pure_epsilon == 1.0  # (1, 0)


def test_a_privacy_profile_is_read_point_by_point():
    gauss = dp.m.make_gaussian(*SPACE, scale=2.0)
    curve = dp.c.make_zCDP_to_approxDP(gauss)
    profile = curve.map(1.0)
    g = A.from_opendp(curve, 1.0)
    for eps in (0.0, 0.5, 1.0, 3.0):
        assert g.delta_at(eps) == pytest.approx(profile.delta(eps), rel=1e-12, abs=1e-15)
    assert g.epsilon_at(1e-6) == pytest.approx(profile.epsilon(1e-6), rel=1e-9)
    # The risks follow from the profile: never riskier than what the profile's worst case allows.
    adv = A.membership_risk(g).advantage
    assert 0 < adv <= profile.delta(0.0) + 1e-9


def test_a_renyi_curve_from_a_user_measurement():
    rho = 0.125
    m = dp.m.make_user_measurement(
        *SPACE, dp.renyi_divergence(), function=lambda x: x, privacy_map=lambda d: lambda a: a * rho * d * d
    )
    g = A.from_opendp(m, 1.0)
    # An RDP curve α ↦ αρ at the library's orders converts as ρ-zCDP's curve does (Balle et al. 2020, Thm. 21).
    orders = np.asarray(g.orders)
    np.testing.assert_allclose(np.asarray(g.epsilons), orders * rho, rtol=1e-12)
    assert g.epsilon_at(1e-6) == pytest.approx(A.renyi_dp(orders, orders * rho).epsilon_at(1e-6), rel=1e-12)


def test_bad_measurements_and_distances():
    m = dp.m.make_laplace(*SPACE, scale=2.0)
    with pytest.raises(PrivriskError, match=r"^d_in: OpenDP's privacy map refused"):
        A.from_opendp(m, "one")
    with pytest.raises(PrivriskError, match=r"^measurement: .*not an OpenDP measurement"):
        A.from_opendp(object(), 1.0)
    user = dp.m.make_user_measurement(*SPACE, dp.user_divergence("MyDivergence"), function=lambda x: x,
                                      privacy_map=lambda d: d)  # fmt: skip
    with pytest.raises(PrivriskError, match=r"^measurement: the output measure .* is not one privrisk reads"):
        A.from_opendp(user, 1.0)
    zero = dp.m.make_user_measurement(
        *SPACE, dp.max_divergence(), function=lambda x: x, privacy_map=lambda d: 0.0
    )
    with pytest.raises(PrivriskError, match=r"^measurement: .*ε = 0"):
        A.from_opendp(zero, 1.0)


# ------------------------------------------------------------------------------------------------------ Opacus
def test_opacus_history_against_dp_accounting():
    """Opacus keeps (noise_multiplier, sample_rate, steps) runs; two runs compose like dp_accounting's PLD."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    history = [(2.0, 0.1, 30), (1.5, 0.05, 20)]
    g = A.from_opacus(history)
    bounds = []
    for pessimistic in (False, True):
        parts = [
            pld.from_gaussian_mechanism(s, sampling_prob=q, pessimistic_estimate=pessimistic,
                                        value_discretization_interval=1e-4).self_compose(t)
            for s, q, t in history
        ]  # fmt: skip
        bounds.append(parts[0].compose(parts[1]))
    eps = g.epsilon_at(1e-5)
    low, high = (b.get_epsilon_for_delta(1e-5) for b in bounds)
    assert low * (1 - 1e-3) <= eps <= high * (1 + 1e-3)


def test_opacus_runs_of_the_same_step_add_up():
    split = A.from_opacus([(1.0, 0.01, 40), (1.0, 0.01, 60)])
    whole = A.from_opacus([[1.0, 0.01, 100]])
    assert split.epsilon_at(1e-5) == whole.epsilon_at(1e-5)
    assert A.from_opacus([(1.0, 1.0, 4)]).mu == 2.0  # full batches: μ = √4/1


@pytest.mark.parametrize(
    ("history", "fragment"),
    [
        ([], "give a list"),
        ("1,2,3", "give a list"),
        ([(1.0, 0.1)], "entry 1"),
        ([(1.0, 0.1, 10), (1.0, "x", 10)], "entry 2 holds 'x'"),
        ([(0.0, 0.1, 10)], "noise multiplier"),
        ([(1.0, 0.0, 10)], "sample rate"),
        ([(1.0, 1.5, 10)], "sample rate"),
        ([(1.0, 0.1, 2.5)], "whole number"),
        ([(1.0, 0.1, True)], "not a number"),
        ([(math.nan, 0.1, 1)], "noise multiplier"),
    ],
)
def test_bad_histories(history, fragment):
    with pytest.raises(PrivriskError) as caught:
        A.from_opacus(history)
    assert caught.value.param == "history" and fragment in str(caught.value)
