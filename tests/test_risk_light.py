"""privrisk.risk without scipy: its logistic function and logit against scipy's and the closed forms.

privrisk.risk is on the path of the light commands (``privrisk risk``), so it computes expit and logit with numpy
as :mod:`scipy.special` does (xsf's ``log_exp.h``: 1/(1 + e^(−x)); ln(p/(1 − p)) outside [0.3, 0.65] and
ln(1 + s) − ln(1 − s), s = 2p − 1, inside). scipy is imported here, in the test, as the reference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privrisk import risk as R

special = pytest.importorskip("scipy.special")

finite = st.floats(min_value=-800.0, max_value=800.0, allow_nan=False)
probability = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(finite)
def test_expit_is_scipys_to_the_last_bits(x):
    ours, theirs = float(R.expit(x)), float(special.expit(x))
    assert ours == pytest.approx(theirs, rel=4e-16, abs=0.0)
    assert 0.0 <= ours <= 1.0


@given(probability)
def test_logit_is_scipys_to_the_last_bits(p):
    ours, theirs = float(R.logit(p)), float(special.logit(p))
    if math.isinf(theirs):
        assert ours == theirs
    else:
        assert ours == pytest.approx(theirs, rel=1e-15, abs=1e-300)


def test_expit_and_logit_at_their_boundaries():
    assert [float(R.expit(x)) for x in (-math.inf, 0.0, math.inf)] == [0.0, 0.5, 1.0]
    # far in the left tail e^(−x) is huge but finite: the quotient keeps its relative precision, expit(x) ≈ e^x
    assert float(R.expit(-700.0)) == pytest.approx(math.exp(-700.0), rel=1e-15)
    assert float(R.expit(-710.0)) == 0.0 == float(special.expit(-710.0))  # e^710 overflows: 0, as scipy's
    assert [float(R.logit(p)) for p in (0.0, 0.5, 1.0)] == [-math.inf, 0.0, math.inf]
    assert math.isnan(float(R.expit(math.nan))) and math.isnan(float(R.logit(math.nan)))
    # the two branches of logit meet at 0.3 and 0.65 without a jump: both sides agree with ln(p/(1 − p))
    for p in (0.3, np.nextafter(0.3, 0.0), 0.65, np.nextafter(0.65, 1.0)):
        assert float(R.logit(p)) == pytest.approx(math.log(p / (1 - p)), rel=1e-14)


def test_the_logistic_forms_are_the_quotients_of_lee_and_clifton():
    # ρ_mw = e^(ε·r) / (e^(ε·r) + n − 1) by hand, where the quotient does not overflow.
    for eps, n, r in [(math.log(3), 10, 1.0), (0.1, 2, 1.0), (5.0, 1000, 0.5), (30.0, 7, 2.0)]:
        e = math.exp(eps * r)
        assert R.many_worlds(eps, n, r) == pytest.approx(e / (e + n - 1), rel=1e-14)
    # ε = ln((n − 1)·ρ/(1 − ρ)) inverts it.
    assert R.epsilon_for_risk(0.25, 10) == pytest.approx(math.log(9 * 0.25 / 0.75), rel=1e-14)
    # posterior p·e^ε / (p·e^ε + 1 − p)
    assert R.posterior_bound(2.0, 0.1) == pytest.approx(0.1 * math.e**2 / (0.1 * math.e**2 + 0.9), rel=1e-14)
    assert R.many_worlds(1e4, 10) == 1.0 and R.global_risk(1e4) == 1.0  # no overflow at huge ε


def test_the_rows_are_the_tables_rows():
    eps, ns = [math.log(2), math.log(3), math.log(7)], [2, 10, 100]
    rows = R.risk_rows(eps, ns)
    assert rows == R.risk_table(eps, ns).to_dict(orient="records")
    assert [(row["epsilon"], row["n"]) for row in rows] == [(e, n) for e in eps for n in ns]
    assert all(type(row["n"]) is int and type(row["risk"]) is float for row in rows)
    # Mehner et al., Table 1: ln 3 with n = 10 is ρ = 25 %, γ = 1/6.
    (row,) = [r for r in rows if r["epsilon"] == math.log(3) and r["n"] == 10]
    assert row["risk"] == pytest.approx(0.25) and row["leak"] == pytest.approx(1 / 6)
