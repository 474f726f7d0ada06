"""Frequencies and individual risk against sdcMicro's own tests (test_freqCalc.R, test_indivRisk.R), the formulas by
hand and a brute-force sum of the negative binomial series."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.microdata import cell_frequencies, household_risk, individual_risk, key_codes

NA = None
W = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]


def frame(a, b, c):
    return pd.DataFrame({"A": a, "B": b, "C": c})


# R's array(c(...), dim = c(8, 3)) fills by column: A, B, C below are its three columns.
FULL = frame([2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, 1, 2, 1, 1, 1, 1])
WITH_NA = frame([2, 3, 2, 2, 3, 3, 1, NA], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, NA, 2, 1, 1, NA, 1])
FREQ_NA = frame([2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, NA, 2, 1, 1, NA, 1])
ROW_COL_NA = frame([2, 3, NA, 2, 3, 3, 1, 2], [3, 3, NA, 3, 3, 3, 4, 3], [NA] * 8)


def freqs(data, weights=None, missing="any"):
    cells = cell_frequencies(key_codes(data, list(data.columns)), None if weights is None else np.array(weights),
                             missing=missing)  # fmt: skip
    return cells.record_fk.tolist(), cells.record_Fk.tolist()


@pytest.mark.parametrize(
    ("data", "fk", "Fk"),
    [
        (FULL, [3, 1, 3, 1, 2, 2, 1, 3], [108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0]),
        (FREQ_NA, [3, 1, 4, 2, 2, 2, 1, 3], [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]),
        (ROW_COL_NA, [4, 4, 8, 4, 4, 4, 2, 4], [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0]),
    ],
)
def test_frequencies_match_sdcmicro_freqcalc(data, fk, Fk):
    assert freqs(data, W) == (fk, pytest.approx(Fk, abs=1e-12))
    assert freqs(data)[0] == fk


def test_one_column_with_missing_and_more_keys_than_records():
    one = pd.DataFrame({"A": [2, 3, NA, 2, 1, NA, 1, 2]})
    assert freqs(one, W) == ([5, 3, 8, 5, 4, 8, 4, 5], [133.0, 92.5, 394.0, 133.0, 262.5, 394.0, 262.5, 133.0])
    wide = pd.DataFrame(np.array([2, 3, NA, 2, 3, 3, 1, NA, 3, 3, NA, 3, 3, 2, 2, 3, NA, NA, 1, 2, NA, NA, 4, 4],
                                 dtype=object).reshape(8, 3).T, columns=list("ABCDEFGH"))  # fmt: skip
    assert freqs(wide, [18.0, 45.5, 122]) == ([1, 2, 2], [18.0, 167.5, 167.5])


def test_missing_as_category_is_a_partition():
    fk, Fk = freqs(FREQ_NA, W, missing="category")
    assert fk == [2, 1, 1, 1, 2, 2, 1, 2]
    assert Fk == [69.0, 45.5, 39.0, 17.0, 100.0, 100.0, 123.5, 69.0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*(st.sampled_from([0, 1, 2, None]) for _ in range(3))), min_size=1, max_size=25),
       st.data())  # fmt: skip
def test_matching_frequencies_equal_brute_force(rows, data):
    weights = data.draw(st.lists(st.floats(0.5, 50), min_size=len(rows), max_size=len(rows)))
    fk, Fk = freqs(pd.DataFrame(rows, columns=list("abc")), weights)
    for i, r in enumerate(rows):
        match = [j for j, s in enumerate(rows) if all(x is None or y is None or x == y for x, y in zip(r, s, strict=False))]
        assert fk[i] == len(match)
        assert Fk[i] == pytest.approx(sum(weights[j] for j in match), rel=1e-12)


# sdcMicro test_indivRisk.R: (method, data) → rk with weights, qual = 1
SDCMICRO = {
    ("approx", "full"): [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625,
                         0.01369863],
    ("exact", "full"): [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883, 0.03931625,
                        0.01355297],
    ("approx", "na"): [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066, 0.039316254,
                       0.005973716],
    ("exact", "na"): [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889, 0.009756889, 0.039316254,
                      0.005962551],
}  # fmt: skip


@pytest.mark.parametrize(("method", "which"), list(SDCMICRO))
def test_individual_risk_matches_sdcmicro_indivrisk(method, which):
    fk, Fk = freqs(FULL if which == "full" else WITH_NA, W)
    assert individual_risk(fk, Fk, method=method) == pytest.approx(SDCMICRO[method, which], abs=5e-9)


def test_without_weights_risk_is_one_over_fk():
    fk, Fk = freqs(WITH_NA)
    assert individual_risk(fk, Fk).round(5).tolist() == [0.33333, 1.0, 0.25, 0.5, 0.33333, 0.33333, 1.0, 0.2]


@pytest.mark.parametrize("p", [1e-6, 0.003, 0.2, 0.5, 0.9])
def test_hand_formulas_for_f_1_2_and_3(p):
    """(Near p = 1 the closed forms for f_k = 2 cancel; the series test below covers p = 0.999999.)"""
    q = 1 - p
    r = individual_risk([1, 2, 3, 7], [1 / p, 2 / p, 3 / p, 7 / p])
    assert r[0] == pytest.approx(p / q * math.log(1 / p), rel=1e-9)
    assert r[1] == pytest.approx(p / q - (p / q) ** 2 * math.log(1 / p), rel=1e-6)
    assert r[2] == pytest.approx(p / (3 - q), rel=1e-12)  # approx for f_k ≥ 3
    assert r[3] == pytest.approx(p / (7 - q), rel=1e-12)


def _series(f: int, p: float) -> float:
    """E[1/F] with F − f ~ NegBin(f, p): Σ_{h≥f} (1/h) C(h−1, f−1) p^f (1−p)^(h−f) = ∫₀¹ t^(f−1) (p/(1−(1−p)t))^f dt
    (1/h = ∫₀¹ t^(h−1) dt and the negative binomial's generating function), integrated by mpmath to 40 digits."""
    import mpmath

    mpmath.mp.dps = 40
    p_ = mpmath.mpf(p)
    return float(mpmath.quad(lambda t: t ** (f - 1) * (p_ / (1 - (1 - p_) * t)) ** f, [0, 0.5, 0.9, 0.99, 1]))


@pytest.mark.parametrize(("f", "p"), list(product([1, 2, 3, 10, 60], [0.01, 0.3, 0.8, 0.999999])))
def test_exact_risk_equals_the_negative_binomial_series(f, p):
    assert individual_risk([f], [f / p], method="exact")[0] == pytest.approx(_series(f, p), rel=1e-10)


def test_exact_risk_stays_in_range_for_large_frequencies():
    r = individual_risk([500, 5000, 50000], [5e5, 5e6, 5e5], method="exact")
    assert np.all((r > 0) & (r <= 1)) and np.all(np.isfinite(r))
    # for large f_k the approximation p/(f − q) and the exact value agree closely
    approx = individual_risk([500, 5000, 50000], [5e5, 5e6, 5e5])
    assert r == pytest.approx(approx, rel=1e-3)


def test_weights_not_above_frequencies_give_one_over_fk():
    assert individual_risk([1, 2, 4], [1.0, 1.5, 4.0]).tolist() == [1.0, 0.5, 0.25]


def test_household_risk_by_hand_and_in_log_space():
    r = household_risk(np.array([0.2, 0.5, 1e-17, 1e-17, 1.0, 0.3]), np.array([0, 0, 1, 1, 2, 2]))
    assert r[:2] == pytest.approx([0.6, 0.6])
    assert r[2] == pytest.approx(2e-17, rel=1e-12)  # 1 − (1 − 1e-17)² would round to 0
    assert r[4:].tolist() == [1.0, 1.0]


def test_exact_risk_to_13_digits_over_a_grid():
    """(p/f)·₂F₁(1, 1; f+1; 1−p) — which the series test above ties to the definition — by mpmath at 30 digits,
    over f_k from 1 to 3000 and p from 10⁻⁹ to 1 − 10⁻⁹ (scipy's hyp2f1 alone returns NaN for f_k ≥ 100, p ≤ 0.01)."""
    import mpmath

    mpmath.mp.dps = 30
    fs = [1, 2, 3, 5, 10, 29, 30, 31, 100, 1000, 3000]
    ps = [1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.999, 1 - 1e-9]
    f, p = (np.array(x, dtype=float) for x in zip(*product(fs, ps), strict=False))
    got = individual_risk(f, f / p, method="exact")
    want = [float(mpmath.mpf(b) / a * mpmath.hyp2f1(1, 1, a + 1, 1 - mpmath.mpf(b))) for a, b in zip(f, p, strict=False)]
    assert got == pytest.approx(want, rel=1e-13)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.floats(1.0, 1e9), st.sampled_from(["approx", "exact"]))
def test_risk_is_at_most_one_over_fk_and_falls_as_the_population_grows(f, ratio, method):
    """E[1/F] with F ≥ f_k is at most 1/f_k, and a larger F_k (more people behind the records) lowers it."""
    r1, r2 = individual_risk([f, f], [f * ratio, f * ratio * 2], method=method)
    assert 0 < r1 <= 1 / f * (1 + 1e-12)
    assert r2 <= r1 * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 80), st.floats(0.5, 5e4, allow_nan=False)), min_size=1, max_size=60),
    st.integers(1, 9),
    st.sampled_from(["approx", "exact"]),
)
def test_risk_in_slices_is_the_same_to_the_last_bit(cells, size, method) -> None:
    # The series of f_k ≥ 30 stops when every term of its slice is below 10⁻¹⁸ of its total: each further term is
    # below half a unit in the last place, so stopping per slice adds nothing the whole array would have added.
    import privrisk.microdata.risk as risk_module

    fk = np.array([c[0] for c in cells], dtype=float)
    Fk = np.array([c[1] for c in cells])
    whole = risk_module.individual_risk(fk, Fk, method=method)
    saved = risk_module.RISK_SLICE
    risk_module.RISK_SLICE = size
    try:
        sliced = risk_module.individual_risk(fk, Fk, method=method)
    finally:
        risk_module.RISK_SLICE = saved
    assert np.array_equal(whole, sliced)
