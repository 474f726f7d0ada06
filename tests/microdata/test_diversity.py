"""ℓ-diversity and t-closeness against Li, Li and Venkatasubramanian (2007), hand counts, brute force and pycanon."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.microdata import diversity

SALARY = [3, 4, 5, 6, 11, 8, 7, 9, 10]  # Li et al. Table 3, in the order of its rows (thousands)
DISEASE = ["gastric ulcer", "gastritis", "stomach cancer", "gastritis", "flu", "bronchitis", "bronchitis",
           "pneumonia", "stomach cancer"]  # fmt: skip


def test_entropy_l_of_three_equally_likely_values_is_exactly_3():
    d = diversity(np.zeros(3, dtype=np.int64), pd.Series(["a", "b", "c"]))
    assert d.entropy.tolist() == [3.0]
    d = diversity(np.zeros(6, dtype=np.int64), pd.Series(["a", "b", "c"] * 2))
    assert d.entropy.tolist() == [3.0]


def test_li_li_venkatasubramanian_table_4_salary():
    """Table 4 (the 3-diverse table): classes {3k,4k,5k}, {6k,11k,8k}, {7k,9k,10k}; §4.2 gives
    D[P1, Q] = 0.375 for {3k,4k,5k} and 0.167 for {6k, 8k, 11k}."""
    classes = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    d = diversity(classes, pd.Series(SALARY))
    assert d.ordered
    assert d.t[0] == pytest.approx(0.375, abs=1e-15)
    assert d.t[1] == pytest.approx(1 / 6, abs=1e-15)
    assert d.distinct.tolist() == [3, 3, 3]


def test_equal_distance_for_categories_by_hand():
    classes = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    d = diversity(classes, pd.Series(DISEASE))
    # class 0 holds gastric ulcer, gastritis, stomach cancer (overall: 1, 2, 2 of 9): ½(|1/3−1/9| + |1/3−2/9| +
    # |1/3−2/9| + 2/9 + 2/9 + 1/9... the other values absent) = ½(2/9 + 1/9 + 1/9 + 1/9 + 2/9 + 1/9) = 4/9
    assert d.t[0] == pytest.approx(4 / 9, abs=1e-15)
    assert not d.ordered


def _brute(classes, values, c, ordered):
    """Per class: distinct, entropy ℓ, recursive (c, ℓ), EMD, straight from the definitions."""
    out = []
    domain = sorted(set(values))
    m = len(domain)
    q = np.array([values.count(v) for v in domain]) / len(values)
    for g in sorted(set(classes)):
        vals = [v for cl, v in zip(classes, values, strict=True) if cl == g]
        counts = sorted((vals.count(v) for v in set(vals)), reverse=True)
        n = len(vals)
        ent = math.exp(-sum(x / n * math.log(x / n) for x in counts))
        rec = max([ell for ell in range(1, len(counts) + 1) if counts[0] < c * sum(counts[ell - 1 :])], default=0)
        p = np.array([vals.count(v) for v in domain]) / n
        if m == 1:
            emd = 0.0
        elif ordered:
            emd = float(np.sum(np.abs(np.cumsum(p - q))) / (m - 1))
        else:
            emd = float(0.5 * np.sum(np.abs(p - q)))
        out.append((len(counts), ent, rec, emd))
    return out


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=1, max_size=40),
       st.sampled_from([0.5, 1.0, 2.0, 3.0]), st.booleans())  # fmt: skip
def test_all_measures_equal_their_definitions(rows, c, ordered):
    cls = pd.factorize(np.array([r[0] for r in rows]))[0].astype(np.int64)
    raw = [r[1] for r in rows]
    values = pd.Series(raw) if ordered else pd.Series([f"v{v}" for v in raw])
    d = diversity(cls, values, c=c)
    want = _brute(list(cls), list(values), c, ordered)
    assert d.distinct.tolist() == [w[0] for w in want]
    assert d.entropy == pytest.approx([w[1] for w in want], rel=1e-9)
    assert d.recursive.tolist() == [w[2] for w in want]
    assert d.t == pytest.approx([w[3] for w in want], abs=1e-12)


def test_missing_sensitive_values_are_a_category_or_left_out_and_counted():
    # sdcMicro's ldiversity counts a missing sensitive value as a value of its own (issue 32); "drop" leaves it out
    d = diversity(np.array([0, 0, 0]), pd.Series([1.0, None, 2.0]))
    assert d.missing == 1 and d.distinct.tolist() == [3]
    d = diversity(np.array([0, 0, 0]), pd.Series([1.0, None, 2.0]), missing_sensitive="drop")
    assert d.missing == 1 and d.distinct.tolist() == [2]


@pytest.fixture
def adult_like():
    rng = np.random.default_rng(7)
    n = 400
    return pd.DataFrame({
        "age": rng.integers(0, 4, n), "sex": rng.choice(["f", "m"], n), "zip": rng.integers(0, 3, n),
        "income": rng.integers(0, 7, n).astype(float), "disease": rng.choice(["a", "b", "c", "d"], n),
    })  # fmt: skip


def test_k_l_t_agree_with_pycanon(adult_like):
    anonymity = pytest.importorskip("pycanon.anonymity")
    from privrisk.microdata import MicrodataSettings, measure_microdata

    qi = ["age", "sex", "zip"]
    r = measure_microdata(adult_like, MicrodataSettings(keys=qi, sensitive=["income", "disease"]))
    assert r.measures["k_anonymity"]["k"] == anonymity.k_anonymity(adult_like, qi)
    by = {d["variable"]: d for d in r.measures["diversity"]}
    for s in ("income", "disease"):
        assert by[s]["l_distinct"] == anonymity.l_diversity(adult_like, qi, [s])
        assert by[s]["t"] == pytest.approx(anonymity.t_closeness(adult_like, qi, [s]), abs=1e-12)
        # pycanon truncates entropy ℓ to a whole number (the three-values case: 2, not 3)
        assert math.floor(by[s]["l_entropy"] + 1e-9) >= anonymity.entropy_l_diversity(adult_like, qi, [s])


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_pycanon_truncates_entropy_l_where_we_do_not():
    anonymity = pytest.importorskip("pycanon.anonymity")
    frame = pd.DataFrame({"k": [1, 1, 1], "s": ["a", "b", "c"]})
    assert diversity(np.zeros(3, dtype=np.int64), frame["s"]).entropy.tolist() == [3.0]
    assert anonymity.entropy_l_diversity(frame, ["k"], ["s"]) == 2  # int(exp(ln 3)) = int(2.9999999999999996)
