"""The windowed box-kernel hockey stick (issue 14 part 5) against the merged computation and brute force.

Rows are the reference with a few answers changed, as the answers without one individual are; the answers sit on
a coarse grid so that ties (within the reference, within a row, between a changed answer and another period's)
are common, and changes at the ends move the range.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import privrisk.empirical.density as density
from privrisk.empirical._windowed import row_bandwidths, windowed_box
from privrisk.empirical.density import hockey_stick_delta, knn_bandwidths


def merged(y, rows, eps, k, monkeypatch):
    """The straightforward computation: both densities' breakpoints merged, every piece integrated."""
    with monkeypatch.context() as m:
        m.setattr(density, "_WINDOWED", False)
        return hockey_stick_delta(y, rows, eps, k=k)


def box_density(sample, k):
    """The truncated, renormalised box-kernel density as a function, from the definition point by point."""
    y = np.sort(np.asarray(sample, float))
    t = y.size
    h = np.array([np.sort(np.abs(np.delete(y, j) - y[j]))[k - 1] for j in range(t)])
    h = np.maximum(h, 1e-9 * max(np.ptp(y), np.max(np.abs(y))))

    def raw(x):
        return float(np.sum((np.abs(x - y) < h) / (2 * h)) / t)

    cuts = sorted({*(y - h), *(y + h), y[0], y[-1]})
    mass = sum(
        raw(0.5 * (a + b)) * (b - a) for a, b in itertools.pairwise(cuts) if y[0] <= 0.5 * (a + b) <= y[-1]
    )
    return (lambda x: raw(x) / mass if y[0] <= x <= y[-1] else 0.0), cuts


def quadrature_delta(y, z, eps, k):
    """δ by scipy's adaptive quadrature of max(p − e^ε q, 0) and the reverse, between the breakpoints."""
    p, cp = box_density(y, k)
    q, cq = box_density(z, k)
    f = math.exp(eps)
    points = np.unique(np.concatenate([cp, cq]))
    out = []
    for a_, b_ in ((p, q), (q, p)):
        total = 0.0
        for lo, hi in itertools.pairwise(points):
            if hi > lo:
                total += integrate.quad(lambda x, a_=a_, b_=b_: max(a_(x) - f * b_(x), 0.0), lo, hi)[0]
        out.append(total)
    return max(out)


cases = st.integers(6, 16).flatmap(
    lambda t: st.tuples(
        st.lists(st.integers(0, 30), min_size=t, max_size=t),
        st.lists(st.tuples(st.integers(0, t - 1), st.integers(-6, 36)), min_size=0, max_size=4),
        st.integers(1, 3),
    )
)


@pytest.mark.filterwarnings(
    "ignore:overflow encountered in accumulate:RuntimeWarning"
)  # merged, all-zero rows
@settings(max_examples=150, deadline=None)
@given(cases)
def test_windowed_equals_merged_and_bandwidths_are_the_same_bits(case):
    values, changes, k = case
    y = np.array(values, float) / 4.0
    k = min(k, y.size - 1)
    row = y.copy()
    for period, value in changes:
        row[period] = value / 4.0
    rows = np.stack([row, y, np.roll(row, 1)])
    eps = [0.0, 0.03, 0.3, 1.0]
    fast = hockey_stick_delta(y, rows, eps, k=k)
    slow = merged(y, rows, eps, k, pytest.MonkeyPatch())
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-9)
    ref = np.sort(y)
    box = density._box_reference(ref, k, "kde-box", density._floor(ref))
    if box is not None:
        z = np.sort(rows, axis=1)
        h, _, _ = row_bandwidths(box, z, k)
        assert np.array_equal(h, knn_bandwidths(z, k))


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")  # the jumps at the breakpoints
def test_windowed_against_quadrature_with_ties_and_range_changes():
    rng = np.random.default_rng(14)
    y = np.round(rng.normal(5.0, 1.0, 30), 1)  # ties within the reference
    rows = np.broadcast_to(y, (6, y.size)).copy()
    rows[0, 3] += 0.05  # one answer moved a little
    rows[1, np.argmax(y)] += 2.0  # the range grows at the top
    rows[2, np.argmin(y)] = np.median(y)  # the range shrinks at the bottom, and a new tie
    rows[3, [1, 7, 11]] = y[[2, 8, 12]]  # answers become other periods' answers (ties)
    rows[4] = y + 0.3  # every kernel moves
    rows[5, 0] = y[0]  # unchanged
    eps = [0.0, 0.1, 0.5]
    fast = hockey_stick_delta(y, rows, eps, k=4)
    for i in range(rows.shape[0]):
        for e, x in enumerate(eps):
            assert fast[i, e] == pytest.approx(quadrature_delta(y, rows[i], x, 4), abs=1e-7)
    assert np.all(fast[5] == 0.0)


def test_windowed_path_is_taken_and_spikes_fall_back(monkeypatch):
    calls = []

    def counted(*args):
        calls.append(args[1].shape[0])
        return windowed_box(*args)

    monkeypatch.setattr("privrisk.empirical._windowed.windowed_box", counted)
    y = np.arange(20.0)
    rows = np.broadcast_to(y, (3, 20)).copy()
    rows[0, 4] = 4.5
    rows[1, 2:6] = 10.0  # five equal answers with k = 3: a spike at the floor, the merged computation's
    rows[2, 0] = 30.0
    fast = hockey_stick_delta(y, rows, [0.1, 1.0], k=3)
    assert calls == [2]
    np.testing.assert_allclose(fast, merged(y, rows, [0.1, 1.0], 3, monkeypatch), rtol=0, atol=1e-12)
