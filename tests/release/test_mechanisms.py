"""Releases (library): noise scale, intervals, the noise itself, and a release that fails before drawing any.

Oracles: the Laplace distribution's quantiles and moments; the statements are in test_statement.py, the queries
and spec files in test_spec.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.release import mechanisms as R
from privrisk.release.spec import ReleaseQuery
from privrisk.release.transaction import noisy_release


@pytest.fixture
def no_noise(monkeypatch):
    """Fail the test if any noise is drawn."""

    def boom(*args, **kwargs):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(R, "_draw", boom)


# ------------------------------------------------------------------------------------------ scale, interval
@pytest.mark.parametrize(
    ("query", "universe", "eps", "scale"),
    [
        ("count", (0, 24), 0.5, 2.0),
        ("sum", (-30, 24), 1.0, 30.0),
        ("mean", (0, 24), 0.5, 24.0),
        ("median", (1, 675), 1.0, 337.0),
        ("max", (1, 675), 2.0, 337.0),
        ("variance", (1, 675), 1.0, 113569.0),
        ("std", (0, 10), 0.25, 20.0),
    ],
)
def test_noise_scale_is_global_sensitivity_over_epsilon(query, universe, eps, scale):
    assert R.noise_scale(query, universe, eps) == pytest.approx(scale, rel=1e-15)


@given(
    gs=st.floats(1e-6, 1e9, allow_nan=False, allow_infinity=False),
    eps=st.floats(1e-4, 50, allow_nan=False, allow_infinity=False),
)
def test_certified_scale_is_within_ulps_and_opendp_certifies_epsilon(gs, eps):
    b = R._certified_scale(gs, eps)
    assert b >= gs / eps and b <= (gs / eps) * (1 + 1e-14)
    assert R._atom_laplace(b).map(gs) <= eps


def test_noise_interval_is_the_laplace_quantile():
    # P(|Y| > t) = exp(−t/b); at 95 % t = b·ln 20.
    assert R.noise_interval(1.0) == pytest.approx(math.log(20))
    assert R.noise_interval(3.0, 0.5) == pytest.approx(3 * math.log(2))
    t = R.noise_interval(2.0)
    assert stats.laplace(scale=2.0).cdf(t) - stats.laplace(scale=2.0).cdf(-t) == pytest.approx(0.95)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1])
def test_noise_interval_rejects_levels_outside_0_1(level):
    with pytest.raises(PrivriskError, match="level"):
        R.noise_interval(1.0, level)


def test_the_noise_goes_through_opendp(monkeypatch):
    seen = []
    real = R._draw

    def spy(values, scale):
        seen.append((list(values), scale))
        return real(values, scale)

    monkeypatch.setattr(R, "_draw", spy)
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0]})
    noisy_release(
        frame, [ReleaseQuery("d", "mean", 1.0, (0, 700)), ReleaseQuery("d", "count", 0.5, (0, 700))]
    )
    assert seen == [([7.75], 350.0), ([4.0], 2.0)]


# ------------------------------------------------------------------------------------------ the noise
def test_noise_matches_laplace_b_in_many_releases():
    """Mean, variance and shape of 20,000 noise draws from one vector call to OpenDP.

    Tolerances: the noise mean has standard error b·√(2/m), the mean of Y² (E[Y²] = 2b², Var(Y²) = 20b⁴) has
    standard error b²·√(20/m). Bounds of 6 standard errors fail with probability about 2·10⁻⁹ each under the
    normal approximation (m = 20,000 makes it accurate; even the crude Chebyshev bound gives 1/36). The
    Kolmogorov–Smirnov p-value is uniform under Laplace(b), so p < 10⁻⁶ happens with probability 10⁻⁶. In all the
    test fails by chance about once in a million runs.
    """
    m, b, true = 20_000, 2.5, 7.0
    noise = R.sample_laplace(np.full(m, true), b) - true
    assert abs(noise.mean()) < 6 * b * math.sqrt(2 / m)
    assert abs(np.mean(noise**2) - 2 * b * b) < 6 * b * b * math.sqrt(20 / m)
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 1e-6
    # The 95 % interval holds about 95 % of the noise (binomial s.e. √(0.95·0.05/m) = 0.0015; 6 s.e.).
    inside = np.mean(np.abs(noise) <= R.noise_interval(b))
    assert abs(inside - 0.95) < 6 * math.sqrt(0.95 * 0.05 / m)


def test_noise_of_full_releases_is_centred_with_the_stated_scale():
    # 200 releases of the mean of {1, 3, 10, 17} in [0, 40] at ε = 4: b = 20/4 = 5, true value 7.75.
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0]})
    q = ReleaseQuery("d", "mean", 4.0, (0, 40))
    values = np.array([noisy_release(frame, q).answers.loc[0, "noisy_value"] for _ in range(200)])
    noise, b, m = values - 7.75, 5.0, values.size
    assert abs(noise.mean()) < 6 * b * math.sqrt(2 / m)  # fails by chance with probability ~2·10⁻⁹
    assert abs(np.mean(noise**2) - 2 * b * b) < 6 * b * b * math.sqrt(20 / m)
    assert len(set(values)) == m  # not seeded: every release differs


def test_sample_laplace_shapes_and_bad_input():
    assert isinstance(R.sample_laplace(1.0, 1.0), float)
    assert R.sample_laplace(np.zeros((3, 2)), 1.0).shape == (3, 2)
    with pytest.raises(PrivriskError, match="scale"):
        R.sample_laplace(1.0, 0.0)
    with pytest.raises(PrivriskError, match="finite"):
        R.sample_laplace([1.0, math.nan], 1.0)


# ------------------------------------------------------------------------------------------ bad input, no noise
def test_missing_column_draws_no_noise(no_noise):
    with pytest.raises(PrivriskError, match="no column 'x'"):
        noisy_release(pd.DataFrame({"h": [1.0]}), ReleaseQuery("x", "mean", 1.0, (0, 24)))


def test_budget_without_ledger_is_checked_before_noise(no_noise):
    frame = pd.DataFrame({"h": [1.0, 2.0]})
    qs = [ReleaseQuery("h", "mean", 0.6, (0, 24)), ReleaseQuery("h", "max", 0.6, (0, 24))]
    with pytest.raises(ThresholdExceeded, match="budget"):
        noisy_release(frame, qs, budget=1.0)


def test_budget_that_fits_exactly_is_allowed():
    frame = pd.DataFrame({"h": [1.0, 2.0]})
    qs = [ReleaseQuery("h", "mean", 0.1, (0, 24)), ReleaseQuery("h", "max", 0.2, (0, 24))]
    assert noisy_release(frame, qs, budget=0.3).total_epsilon == pytest.approx(0.3)
