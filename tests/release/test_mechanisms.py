"""Releases (library): noise scale, intervals, composition, statements, clamping, and the noise itself.

Oracles: Table 1 of 002 for the public statement, 000 §3.2 (Table 1b: X = {1, 3, 10, 17} in the universe of the
commuting distances, 1 to 675) for the internal assessment, the Laplace distribution's moments for the noise.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import privrisk
from privrisk.cli._common import percent
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.release import mechanisms as R
from privrisk.release.mechanisms import noisy_release
from privrisk.release.spec import ReleaseQuery, read_release_spec
from privrisk.release.statement import composed_epsilon, public_statement
from release_helpers import never_written


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


def test_composition_adds_epsilons_exactly():
    assert composed_epsilon([0.1] * 10) == 1.0  # fsum: a naive sum gives 0.9999999999999999
    assert composed_epsilon([math.log(3), math.log(3)]) == pytest.approx(math.log(9))
    with pytest.raises(PrivriskError):
        composed_epsilon([0.5, 0.0])
    with pytest.raises(PrivriskError):
        composed_epsilon([])


# ------------------------------------------------------------------------------------------ statements
@pytest.mark.parametrize(
    ("eps", "p", "gamma", "rho10", "rho100"),
    [
        (math.log(2), "66.7%", "33.3%", "18.2%", "2.0%"),
        (math.log(3), "75.0%", "50.0%", "25.0%", "2.9%"),
        (math.log(7), "87.5%", "75.0%", "43.8%", "6.6%"),
    ],
)
def test_public_statement_reproduces_table_1_of_002(eps, p, gamma, rho10, rho100):
    s10, s100 = public_statement(eps, 10), public_statement(eps, 100)
    assert percent(s10["global_risk"]) == p and percent(s10["global_leak"]) == gamma
    assert percent(s10["many_worlds"]) == rho10 and percent(s100["many_worlds"]) == rho100
    assert s10["guess"] == 0.1


def test_public_statement_without_n_has_no_many_worlds_risk():
    s = public_statement(1.0)
    assert s["n"] is None and s["many_worlds"] is None
    assert s["sentences"] == privrisk.describe(1.0)


def test_public_statement_composes_the_answers():
    frame = pd.DataFrame({"h": [1.0, 2.0, 3.0]})
    qs = [ReleaseQuery("h", "mean", "ln3", (0, 24)), ReleaseQuery("h", "max", "ln3", (0, 24))]
    r = noisy_release(frame, qs)
    assert r.total_epsilon == pytest.approx(math.log(9))
    assert r.statement["global_risk"] == pytest.approx(0.9)  # 9/(1 + 9)
    assert r.statement["global_leak"] == pytest.approx(0.8)


def test_internal_assessment_follows_000_table_1b():
    # X = {1, 3, 10, 17} in the universe [1, 675]: Δv(mean) = 133.45, Δf = 337 (000 §3.2).
    frame = pd.DataFrame({"distance": [1.0, 3.0, 10.0, 17.0]})
    r = noisy_release(frame, ReleaseQuery("distance", "mean", 1.0, (1, 675)))
    row = r.internal.iloc[0]
    assert row["local_sensitivity"] == pytest.approx(133.45)
    assert row["global_sensitivity"] == 337.0
    ratio = 133.45 / 337
    assert row["ratio"] == pytest.approx(ratio)
    assert row["two_worlds"] == pytest.approx(1 / (1 + math.exp(-ratio)))
    assert row["many_worlds"] == pytest.approx(1 / (1 + 3 * math.exp(-ratio)))  # n = 4 records
    assert row["n"] == 4 and row["n_clamped"] == 0


def test_median_local_sensitivity_of_000():
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0, 675.0]})
    r = noisy_release(frame, ReleaseQuery("d", "median", 1.0, (1, 675)))
    assert r.internal.loc[0, "local_sensitivity"] == 3.5


def test_values_outside_the_universe_are_clamped_and_counted():
    # Hours per day: 30 and 25 are clamped to 24, −2 to 0 (no missing codes given).
    frame = pd.DataFrame({"h": [8.0, 30.0, 25.0, -2.0, 6.0]})
    r = noisy_release(frame, ReleaseQuery("h", "max", 1.0, (0, 24)))
    assert r.internal.loc[0, "n_clamped"] == 3
    # After clamping the sample {0, 6, 8, 24, 24} lies in [0, 24]: Δv(max) = max(24 − 24, 24 − 24) = 0.
    assert r.internal.loc[0, "local_sensitivity"] == 0.0


def test_missing_codes_are_dropped_before_clamping():
    frame = pd.DataFrame({"h": [8.0, -1.0, 4.0, -3.0]})
    r = noisy_release(frame, ReleaseQuery("h", "mean", 1.0, (0, 24), missing="negative"))
    assert r.internal.loc[0, "n"] == 2 and r.internal.loc[0, "n_clamped"] == 0
    assert r.data["h"]["dropped_codes"] == {"-3": 1, "-1": 1}


def test_a_count_withholds_every_record_count():
    frame = pd.DataFrame({"h": [8.0, 7.0, 4.0], "g": [1.0, 2.0, None]})
    qs = [ReleaseQuery("h", "count", 1.0, (0, 24)), ReleaseQuery("g", "mean", 1.0, (0, 5))]
    r = noisy_release(frame, qs, public_n=50)
    assert r.withheld and r.data == {}
    assert all(v is None for v in r.internal["n"])
    # ρ_mw then uses the published n; the count's ratio is 1: ρ_mw = 1/(1 + (n − 1)·e^(−ε)) = 1/(1 + 49/e).
    assert r.internal.loc[0, "many_worlds"] == pytest.approx(1 / (1 + 49 / math.e), rel=1e-12)
    assert r.internal.loc[0, "ratio"] == 1.0


def test_the_true_value_is_never_in_the_result():
    # The true mean of {1, 3, 10, 17} is 7.75; nothing the release returns holds it.
    frame = pd.DataFrame({"d": [1.0, 3.0, 10.0, 17.0]})
    r = noisy_release(frame, ReleaseQuery("d", "mean", 1.0, (0, 700)))
    assert never_written(7.75, repr(r.to_dict())) and never_written(7.75, repr(r))
    assert r.answers.loc[0, "noisy_value"] != 7.75


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
    noise = R.laplace_mechanism(np.full(m, true), b) - true
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


def test_laplace_mechanism_shapes_and_bad_input():
    assert isinstance(R.laplace_mechanism(1.0, 1.0), float)
    assert R.laplace_mechanism(np.zeros((3, 2)), 1.0).shape == (3, 2)
    with pytest.raises(PrivriskError, match="scale"):
        R.laplace_mechanism(1.0, 0.0)
    with pytest.raises(PrivriskError, match="finite"):
        R.laplace_mechanism([1.0, math.nan], 1.0)


# ------------------------------------------------------------------------------------------ bad input, no noise
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"universe": (5, 1)}, "universe"),
        ({"universe": (3, 3)}, "universe"),
        ({"universe": (0, math.inf)}, "universe"),
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -1}, "epsilon"),
        ({"query": "mode"}, "unknown query"),
    ],
)
def test_bad_queries_are_refused(kwargs, fragment):
    args = {"column": "h", "query": "mean", "epsilon": 1.0, "universe": (0, 24), **kwargs}
    with pytest.raises(PrivriskError, match=fragment):
        ReleaseQuery(**args)


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


# ------------------------------------------------------------------------------------------ spec files
def test_spec_is_read(tmp_path):
    spec = tmp_path / "release.toml"
    spec.write_text(
        'public_n = 30000\nmissing = "negative"\n\n'
        '[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = "ln3"\nuniverse = [0, 24]\n\n'
        '[[query]]\ncolumn = "income"\nquery = "var"\nepsilon = 0.5\nuniverse = [0, 1e5]\nmissing = [-1, 99]\n'
        'label = "Income, variance"\n'
    )
    s = read_release_spec(spec)
    assert s.public_n == 30000 and len(s.queries) == 2
    q1, q2 = s.queries
    assert q1.epsilon == pytest.approx(math.log(3)) and q1.missing.negative
    assert q2.query == "variance" and q2.missing.codes == (-1.0, 99.0) and not q2.missing.negative
    assert q2.universe == privrisk.Universe.from_bounds(0, 1e5)
    assert q1.label == "mean(hours)" and q2.label == "Income, variance"


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ("", ["no queries"]),
        ("[[query]\n", ["not valid TOML"]),
        ('budgt = 1\n[[query]]\ncolumn="h"\n', ["unknown key 'budgt'"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\n', ["query 1", "'universe'"]),
        ('[[query]]\ncolumn="h"\nquery="mode"\nepsilon=1\nuniverse=[0,1]\n', ["query 1", "unknown query"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=0\nuniverse=[0,1]\n', ["query 1", "epsilon"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=true\nuniverse=[0,1]\n', ["query 1", "epsilon"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[2,1]\n', ["query 1", "universe"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=3\n', ["query 1", "universe"]),
        (
            '[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[0,1]\nsigma=2\n',
            ["unknown key 'sigma'"],
        ),
        ('public_n = 1\n[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[0,1]\n', ["public_n"]),
    ],
)
def test_bad_specs_name_the_file_and_query(tmp_path, body, fragments):
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    with pytest.raises(PrivriskError) as info:
        read_release_spec(spec)
    for fragment in ["bad.toml", *fragments]:
        assert fragment in str(info.value)
