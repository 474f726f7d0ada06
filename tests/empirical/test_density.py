"""Densities and the hockey-stick δ (004 §4, Theorem 1): brute force, KDEpy, and the Gaussian truth."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

from privrisk.empirical.density import (
    default_k,
    density_curve,
    gaussian_shift_delta,
    hockey_stick_delta,
    knn_bandwidths,
)
from privrisk.errors import PrivriskError

# --- brute force: an independent, loop-by-loop implementation of the definitions ------------------------------


def naive_bandwidths(y, k):
    """Distance from each point to its k-th nearest other point, by sorting all distances."""
    return np.array([np.sort(np.abs(np.delete(y, j) - y[j]))[k - 1] for j in range(len(y))])


def naive_density(y, k, kind):
    """Untruncated density function of a sample (box, triangle, ECDF), and its breakpoints."""
    y = np.sort(np.asarray(y, float))
    t = len(y)
    if kind == "ecdf":

        def f(x):
            out = 0.0
            for j in range(t - 1):
                if y[j] <= x < y[j + 1]:
                    s = min(max(j - (k - 1) // 2, 0), t - 1 - k)
                    out = (k / (t - 1)) / (y[s + k] - y[s])
            return out

        return f, list(y)
    h = naive_bandwidths(y, k)

    def f(x):
        total = 0.0
        for yj, hj in zip(y, h, strict=True):
            u = abs(x - yj)
            if kind == "kde-box" and u < hj:
                total += 1 / (2 * hj)
            elif kind == "kde-triangle" and u < hj:
                total += (1 - u / hj) / hj
        return total / t

    return f, list(y - h) + list(y + h) + list(y)


def naive_delta(y, z, eps, k, kind, pieces=1):
    """max of both hockey sticks, integrating the truncated, renormalised densities piece by piece."""
    f, bf = naive_density(y, k, kind)
    g, bg = naive_density(z, k, kind)
    lo_f, hi_f, lo_g, hi_g = min(y), max(y), min(z), max(z)
    xs = np.unique(np.concatenate([bf, bg, [lo_f, hi_f, lo_g, hi_g]]))
    fine = np.unique(np.concatenate([np.linspace(a, b, pieces + 1) for a, b in itertools.pairwise(xs)]))
    mids = 0.5 * (fine[:-1] + fine[1:])
    widths = np.diff(fine)
    fv = np.array([f(m) if lo_f <= m <= hi_f else 0.0 for m in mids])
    gv = np.array([g(m) if lo_g <= m <= hi_g else 0.0 for m in mids])
    fv /= (fv * widths).sum()
    gv /= (gv * widths).sum()
    e = math.exp(eps)
    return max((np.maximum(fv - e * gv, 0) * widths).sum(), (np.maximum(gv - e * fv, 0) * widths).sum())


samples = st.lists(st.integers(0, 60), min_size=6, max_size=12, unique=True).map(lambda v: np.array(v) / 7.0)
pairs = (
    st.integers(6, 12)
    .flatmap(lambda t: st.tuples(*[st.lists(st.integers(0, 60), min_size=t, max_size=t, unique=True)] * 2))
    .map(lambda p: (np.array(p[0]) / 7.0, np.array(p[1]) / 7.0))
)


@settings(max_examples=60)
@given(samples, st.integers(1, 3), st.integers(0, 4))
def test_bandwidths_match_brute_force(y, k, seed):
    y = np.sort(np.random.default_rng(seed).permutation(y))
    np.testing.assert_allclose(knn_bandwidths(y, k), naive_bandwidths(y, k))


@pytest.mark.parametrize("kind", ["kde-box", "ecdf"])
@settings(max_examples=40)
@given(yz=pairs, k=st.integers(1, 3), eps=st.sampled_from([0.0, 0.05, 0.3, 1.0]))
def test_piecewise_constant_delta_is_exact(kind, yz, k, eps):
    y, z = yz
    # piecewise-constant densities: the midpoint rule on the merged breakpoints is exact
    got = float(hockey_stick_delta(y, z, eps, density=kind, k=k)[0])
    assert got == pytest.approx(naive_delta(y, z, eps, k, kind), abs=1e-9)


@settings(max_examples=25)
@given(yz=pairs, eps=st.sampled_from([0.0, 0.1, 0.5]))
def test_triangle_delta_matches_fine_integration(yz, eps):
    y, z = yz
    # linear pieces: 200 midpoints per piece integrate (g)₊ to within ~1/200² of each piece's mass
    got = float(hockey_stick_delta(y, z, eps, density="kde-triangle", k=2)[0])
    assert got == pytest.approx(naive_delta(y, z, eps, 2, "kde-triangle", pieces=200), abs=2e-4)


def test_box_density_agrees_with_kdepy():
    from KDEpy import NaiveKDE

    rng = np.random.default_rng(3)
    y = np.sort(rng.normal(size=50))
    k = default_k(50)
    h = knn_bandwidths(y, k)
    x, p = density_curve(y, density="kde-box", k=k)
    # KDEpy's box kernel has standard deviation bw, i.e. half-width bw·√3
    ref = NaiveKDE(kernel="box", bw=h / math.sqrt(3)).fit(y)
    mids = 0.5 * (x[1::2] + x[::2])  # each step is drawn as (left, right): its value at the middle
    raw = ref.evaluate(mids)
    inside = np.diff(x)[::2] > 0
    scale = np.trapezoid(p, x)
    assert scale == pytest.approx(1.0)
    ratio = p[::2][inside] / raw[inside]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # same shape, renormalised after truncation
    assert 1.0 < ratio[0] < 1.3  # truncation removed some mass


def test_identical_samples_give_zero_and_disjoint_give_one():
    y = np.array([0.0, 0.4, 1.0, 1.5, 3.0])
    for kind in ("kde-box", "kde-triangle", "ecdf", "kde-gauss"):
        assert hockey_stick_delta(y, y, [0.0, 0.2], density=kind, k=2).tolist() == pytest.approx(
            [0, 0], abs=1e-12
        )
        assert hockey_stick_delta(y, y + 100, 0.2, density=kind, k=2)[0] == pytest.approx(1.0, abs=1e-9)


def test_delta_is_monotone_in_epsilon_and_in_unit_interval():
    rng = np.random.default_rng(0)
    y = rng.normal(size=40)
    rows = y + rng.normal(scale=0.3, size=(7, 40))
    d = hockey_stick_delta(y, rows, np.linspace(0, 3, 13))
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d, axis=1) <= 1e-12)


def test_large_epsilon_does_not_overflow():
    y = np.arange(10.0)
    d = hockey_stick_delta(y, y * 1.1, [50.0, 800.0, 1e6])
    assert np.all(np.isfinite(d)) and np.all(d >= 0)


def test_no_answer_counts_as_its_own_outcome():
    y = np.linspace(0.0, 1.0, 21)
    z = y.copy()
    z[5] = np.nan  # one database with no answer without i
    d = float(hockey_stick_delta(y, z, 5.0, density="ecdf", k=3)[0])
    # at large ε only the atom at "no answer" remains: mass 1/21 under pᵢ and none under p
    assert d == pytest.approx(1 / 21, abs=1e-3) and d >= 1 / 21
    z[:20] = np.nan
    assert hockey_stick_delta(y, z, 0.1)[0] == 1.0


def test_hockey_stick_on_hand_made_densities():
    # uniform on [0, 2] (t points evenly spread) against uniform on [0, 1]: ECDF densities 1/2 and 1 exactly
    y = np.linspace(0.0, 2.0, 9)
    z = np.linspace(0.0, 1.0, 9)
    for eps in (0.0, 0.3, math.log(2)):
        # ∫(p − e^ε q)₊ = 1/2 on (1, 2], plus (1/2 − e^ε)₊ = 0 on [0, 1]; ∫(q − e^ε p)₊ = (1 − e^ε/2)₊
        expected = max(0.5, max(1 - math.exp(eps) / 2, 0.0))
        assert hockey_stick_delta(y, z, eps, density="ecdf", k=2)[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("eps", "mu", "truth"), [(0.0, 1.0, 2 * norm.cdf(0.5) - 1), (1.0, 2.0, None)])
def test_gaussian_formula(eps, mu, truth):
    value = gaussian_shift_delta(eps, mu)
    if truth is None:  # direct evaluation of Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)
        truth = norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    assert value == pytest.approx(truth, rel=1e-12)
    assert gaussian_shift_delta(800.0, 3.0) == 0.0 and gaussian_shift_delta(0.5, 0.0) == 0.0


@pytest.mark.parametrize(("eps", "mu"), [(0.0, 1.0), (1.0, 2.0), (0.5, 0.25), (2.0, 3.0), (0.1, 0.5)])
def test_gaussian_formula_against_the_integral(eps, mu):
    # Independent of the closed form: ∫(φ(x − μ) − e^ε φ(x))₊ dx by quadrature on both sides of the crossing.
    def excess(x):
        return max(norm.pdf(x, mu) - math.exp(eps) * norm.pdf(x), 0.0)

    cross = eps / mu + mu / 2
    below, above = integrate.quad(excess, -np.inf, cross)[0], integrate.quad(excess, cross, np.inf)[0]
    assert below == pytest.approx(0.0, abs=1e-12)
    assert gaussian_shift_delta(eps, mu) == pytest.approx(above, rel=1e-8, abs=1e-12)


# --- the Gaussian truth (issue 6 §3) ----------------------------------------------------------------------------
#
# With i present in every period the answers are S + c with i and S without, S ~ N(0, σ²). The estimated δᵢ errs
# mostly upwards: each density estimate spans k = √t points, so log p̂ − log p̂ᵢ carries noise of variance about 2/k,
# which blurs the threshold e^ε; the hockey stick is convex in ε, so the blur adds about (2/k)·|∂²δ/∂ε²|/2, and
# |∂²δ/∂ε²| = e^ε|φ(·)/μ − Φ(·)| ≤ e(1 + φ(0)/μ) ≈ 7 for ε ≤ 1 and μ ≥ 0.25. The observed error is about half
# that (≈ 3/k); we allow 4/k, which at t = 4000 (k = 63) is 0.063, and check that the error shrinks with t.

TRUTH_EPS = np.array([0.1, 0.5, 1.0])


@pytest.mark.parametrize("kind", ["kde-box", "kde-triangle", "ecdf"])
@pytest.mark.parametrize("mu", [0.25, 0.5, 1.0])
def test_gaussian_truth_is_approached(kind, mu):
    t = 4000
    s = np.random.default_rng(11).normal(size=t)
    got = hockey_stick_delta(s + mu, s, TRUTH_EPS, density=kind)
    truth = gaussian_shift_delta(TRUTH_EPS, mu)
    assert np.all(np.abs(got - truth) <= 4 / default_k(t)), (got, truth)


def test_gaussian_kernel_truth_and_error_bound():
    t = 1000
    s = np.random.default_rng(5).normal(size=t)
    got, bound = hockey_stick_delta(s + 0.5, s, TRUTH_EPS, density="kde-gauss", grid=8192, return_bound=True)
    assert np.all(np.abs(got - gaussian_shift_delta(TRUTH_EPS, 0.5)) <= 4 / default_k(t))
    assert np.all(bound < 0.02)
    finer = hockey_stick_delta(s + 0.5, s, TRUTH_EPS, density="kde-gauss", grid=32768)
    assert np.all(np.abs(finer - got) <= bound + 1e-12)  # the stated bound covers the interpolation error


def test_error_shrinks_as_t_grows():
    def error(t):
        s = np.random.default_rng(2).normal(size=t)
        return np.mean([np.abs(hockey_stick_delta(s + mu, s, TRUTH_EPS) - gaussian_shift_delta(TRUTH_EPS, mu))
                        for mu in (0.25, 0.5, 1.0)])  # fmt: skip

    assert error(8000) < 0.5 * error(500)


def test_post_processing_monotone_transform():
    # Lemma 2: a monotone g leaves δ unchanged in the limit; the k-NN estimators are not scale-free, so equal up to
    # estimation error (the same 4/k as above).
    t = 4000
    s = np.random.default_rng(8).normal(size=t)
    direct = hockey_stick_delta(s + 0.5, s, TRUTH_EPS)
    for g in (np.exp, lambda v: v**3 + 2 * v, lambda v: 10 * v - 3):
        assert np.all(np.abs(hockey_stick_delta(g(s + 0.5), g(s), TRUTH_EPS) - direct) <= 4 / default_k(t))


def test_bad_inputs():
    y = np.arange(5.0)
    with pytest.raises(PrivriskError, match=r"^k:"):
        hockey_stick_delta(y, y, 0.1, k=5)
    with pytest.raises(PrivriskError, match="epsilon"):
        hockey_stick_delta(y, y, -0.1)
    with pytest.raises(PrivriskError, match=r"^density:"):
        hockey_stick_delta(y, y, 0.1, density="histogram")
    with pytest.raises(PrivriskError, match="sample"):
        hockey_stick_delta(y[:1], y[:1], 0.1)


# --- the blocked fast path (issue 14 part 5) ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["kde-box", "kde-triangle", "ecdf"])
def test_rows_in_blocks_equal_rows_one_by_one(kind, monkeypatch):
    """Many rows (with and without missing answers) are taken in cache-sized blocks; each row's δ is what the
    straightforward computation of that row alone gives, to the last bit, and the brute force agrees."""
    import privrisk.empirical.density as density

    monkeypatch.setattr(density, "_CACHE_ELEMENTS", 4 * 40 * 7)  # blocks of 7 rows at t = 40
    rng = np.random.default_rng(8)
    full = np.round(rng.normal(10.0, 1.0, 40), 3)
    rows = np.broadcast_to(full, (60, 40)).copy()
    for i in range(60):  # like the answers without one individual: a few periods differ
        changed = rng.choice(40, 1 + i % 3, replace=False)
        rows[i, changed] += rng.normal(0.0, 0.2, changed.size)
    rows[::9, 5] = np.nan  # some periods have no answer without i
    eps = [0.03, 0.3, 1.0]
    blocked = hockey_stick_delta(full, rows, eps, density=kind)
    one_by_one = np.array([hockey_stick_delta(full, row, eps, density=kind) for row in rows])
    assert np.array_equal(blocked, one_by_one)
    k = default_k(40)
    # Rows without missing answers against the loop-by-loop definition (linear pieces: 200 midpoints per piece).
    pieces, tol = (200, 2e-4) if kind == "kde-triangle" else (1, 1e-9)
    for i in (1, 2, 4):
        for e, x in enumerate(eps):
            expected = naive_delta(full, rows[i], x, k, kind, pieces=pieces)
            assert blocked[i, e] == pytest.approx(expected, abs=tol)
