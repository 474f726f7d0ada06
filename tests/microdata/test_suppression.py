"""Local suppression: the result meets the target, and on small data no smaller set of suppressions does."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataSettings, cell_frequencies, individual_risk, measure_microdata
from privrisk.microdata.suppression import suppress, suppress_microdata


def k_of(codes: np.ndarray) -> int:
    return int(cell_frequencies(codes, missing="any").record_fk.min())


def fewest_by_brute_force(codes: np.ndarray, k: int) -> int:
    cells = [(r, j) for r in range(codes.shape[0]) for j in range(codes.shape[1]) if codes[r, j] >= 0]
    for size in range(len(cells) + 1):
        for chosen in combinations(cells, size):
            trial = codes.copy()
            for r, j in chosen:
                trial[r, j] = -1
            if k_of(trial) >= k:
                return size
    raise AssertionError("unreachable: suppressing everything gives f_k = n")


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 2), st.integers(0, 10_000), st.integers(2, 3))
def test_exact_suppression_is_k_anonymous_and_minimal(n, q, seed, k):
    codes = np.random.default_rng(seed).integers(0, 3, size=(n, q))
    if k > n:
        return
    s = suppress(codes, [f"k{j}" for j in range(q)], k=k)
    assert k_of(s.codes) >= k
    assert s.optimal and s.method == "exact"
    assert len(s.cells) == fewest_by_brute_force(codes, k)


def test_importance_decides_between_equally_small_solutions():
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [0, 1]])  # record 4 is unique; either key works
    assert suppress(codes, ["a", "b"], k=2).cells == [(4, 1)]  # b is the least important by default
    assert suppress(codes, ["a", "b"], k=2, importance=["b", "a"]).cells == [(4, 0)]


def test_greedy_on_larger_data_meets_the_target():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 4, size=(300, 4))
    s = suppress(codes, list("abcd"), k=3, max_sets=10)
    assert s.method == "greedy" and not s.optimal
    assert k_of(s.codes) >= 3
    assert sum(s.by_key.values()) == len(s.cells)


def test_risk_target():
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, size=(40, 3))
    w = rng.uniform(5, 50, 40)
    s = suppress(codes, list("abc"), weights=w, max_risk=0.05)
    cells = cell_frequencies(s.codes, w)
    assert individual_risk(cells.fk, cells.Fk).max() <= 0.05


def test_run_function_re_measures():
    frame = pd.DataFrame({"region": [*"nnnsss", "e"], "sex": [*"ffmmmf", "m"]})
    before = measure_microdata(frame, MicrodataSettings(keys="region,sex", k=2))
    s, after = suppress_microdata(before)
    assert after.measures["k_anonymity"]["k"] >= 2 and after.failures() == []
    assert len(s.cells) == int(after.frame[["region", "sex"]].isna().sum().sum())


def test_needs_a_target():
    with pytest.raises(PrivriskError, match="k: give k or max_risk"):
        suppress(np.zeros((3, 1), dtype=np.int64), ["a"])
    with pytest.raises(PrivriskError, match="importance:"):
        suppress(np.zeros((3, 1), dtype=np.int64), ["a"], k=2, importance=["b"])
