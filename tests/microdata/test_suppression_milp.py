"""Each record's fewest own suppressions past the set search: the table and the integer programme on HiGHS.

The brute force here shares no code with privrisk and takes another road: record i must agree with ``need − 1``
other records; agreeing with the records T costs the keys where any of them differs from i (both showing a value),
so the fewest suppressions are the least such union over every choice of T, by size and then by Σ 2^rank of the
keys (rank 0 the least important), the order privrisk promises.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.microdata import individual_risk
from privrisk.microdata.suppression import suppress


def differing(codes: np.ndarray, i: int, j: int) -> frozenset[int]:
    return frozenset(c for c in range(codes.shape[1]) if codes[i, c] >= 0 and codes[j, c] >= 0
                     and codes[i, c] != codes[j, c])  # fmt: skip


def best_set_by_brute_force(codes: np.ndarray, i: int, need: int) -> frozenset[int]:
    """The least set of keys record i must hide so that ``need`` records (itself included) agree with it."""
    others = [j for j in range(codes.shape[0]) if j != i]
    q = codes.shape[1]

    def order(keys: frozenset[int]) -> tuple[int, int]:
        return len(keys), sum(2 ** (q - 1 - c) for c in keys)  # the first key is the most important

    best = None
    for chosen in combinations(others, need - 1):
        union = frozenset().union(*(differing(codes, i, j) for j in chosen))
        if best is None or order(union) < order(best):
            best = union
    assert best is not None
    return best


def needed(k: int | None, max_risk: float | None) -> int:
    """k, and the least g with 1/g ≤ max_risk (without weights a record's risk is 1/g), in exact arithmetic."""
    need = k or 1
    if max_risk is not None:
        g = 1
        while Fraction(1, g) > Fraction(max_risk):
            g += 1
        need = max(need, g)
    return need


def hidden_by_record(codes: np.ndarray, released: np.ndarray) -> list[frozenset[int]]:
    return [
        frozenset(np.flatnonzero((released[i] < 0) & (codes[i] >= 0)).tolist()) for i in range(codes.shape[0])
    ]


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 8), st.integers(2, 14), st.integers(0, 10_000), st.sampled_from([2, 3]),
       st.sampled_from([None, 0.5, 0.34, 0.25]), st.booleans(), st.sampled_from(["table", "milp"]))  # fmt: skip
def test_each_record_equals_brute_force(n, q, seed, k, max_risk, with_missing, engine):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(n, q))
    if with_missing:
        codes[rng.random((n, q)) < 0.1] = -1
    need = needed(k, max_risk)
    if need > n:
        return
    # max_patterns=0: every record at risk goes to the per-record solver (the search is tested elsewhere)
    s = suppress(codes, [f"k{j}" for j in range(q)], k=k, max_risk=max_risk, max_patterns=0, _engine=engine)
    hidden = hidden_by_record(codes, s.codes)
    for i in range(n):
        agree = sum(all(codes[j, c] < 0 or codes[j, c] == codes[i, c] for c in range(q)
                        if codes[i, c] >= 0) for j in range(n))  # fmt: skip
        want = frozenset() if agree >= need else best_set_by_brute_force(codes, i, need)
        assert hidden[i] == want, i
    assert s.optimal and s.bound == len(s.cells)
    assert s.method == ("per-record" if s.cells else "exact")


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 8), st.integers(1, 6), st.integers(0, 10_000), st.sampled_from([None, 2]),
       st.sampled_from([0.02, 0.05, 0.2]), st.booleans())  # fmt: skip
def test_a_risk_target_with_weights_equals_brute_force(n, q, seed, k, max_risk, with_missing):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(n, q))
    if with_missing:
        codes[rng.random((n, q)) < 0.1] = -1
    w = rng.uniform(1, 40, n)
    risk = individual_risk  # the risk function is tested on its own against sdcMicro; here it is the target

    def least_set(i: int) -> frozenset[int] | None:
        shown = [c for c in range(q) if codes[i, c] >= 0]
        for size in range(len(shown) + 1):
            sets = sorted(combinations(shown, size), key=lambda hide: sum(2 ** (q - 1 - c) for c in hide))
            for hide in sets:
                agree = [j for j in range(n) if all(codes[j, c] < 0 or codes[j, c] == codes[i, c]
                                                    for c in shown if c not in hide)]  # fmt: skip
                if len(agree) >= (k or 1) and risk([len(agree)], [w[agree].sum()])[0] <= max_risk:
                    return frozenset(hide)
        return None

    want = [least_set(i) for i in range(n)]
    if any(x is None for x in want):
        return  # the target cannot be met (privrisk says so: tested in test_suppression.py)
    s = suppress(codes, [f"k{j}" for j in range(q)], weights=w, k=k, max_risk=max_risk, max_patterns=0)
    assert hidden_by_record(codes, s.codes) == want
    assert s.optimal


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 8), st.integers(13, 15), st.integers(0, 10_000))
def test_past_twelve_keys_the_default_is_exact(n, q, seed):
    # beyond 12 keys the default search budget cannot try every set: the result is still the fewest
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, size=(n, q))
    s = suppress(codes, [f"k{j}" for j in range(q)], k=2)
    hidden = hidden_by_record(codes, s.codes)
    total = 0
    for i in range(n):
        alone = all(differing(codes, i, j) for j in range(n) if j != i)
        total += len(best_set_by_brute_force(codes, i, 2)) if alone else 0
        assert len(hidden[i]) == (len(best_set_by_brute_force(codes, i, 2)) if alone else 0)
    assert s.optimal and len(s.cells) == total


@pytest.mark.parametrize("engine", ["table", "milp"])
def test_k_minus_one_matches_are_not_enough(engine):
    # record 0 agrees with records 1, 2 once key a is hidden and with record 3 as well once b is too
    codes = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0], [1, 1, 0], [2, 2, 2], [2, 2, 2], [2, 2, 2], [2, 2, 2]])
    three = suppress(codes, list("abc"), k=3, max_patterns=0, _engine=engine)
    four = suppress(codes, list("abc"), k=4, max_patterns=0, _engine=engine)
    assert [c for c in three.cells if c[0] == 0] == [(0, 0)]
    assert sorted(c for c in four.cells if c[0] == 0) == [(0, 0), (0, 1)]


@pytest.mark.parametrize("engine", ["table", "milp"])
def test_households_agree_with_the_search(engine):
    # the shared key (region) is chosen for the household together; the exhaustive search (4 keys) is the reference
    rng = np.random.default_rng(4)
    hh = np.repeat(np.arange(12), 3)
    region = rng.integers(0, 3, 12)[hh]
    codes = np.column_stack([region, rng.integers(0, 3, size=(36, 3))])
    keys = ["region", "a", "b", "c"]
    for k in (2, 3):
        search = suppress(codes, keys, k=k, households=hh)
        solved = suppress(codes, keys, k=k, households=hh, max_patterns=0, _engine=engine)
        assert search.method == "exact" and solved.method == "per-record"
        assert len(solved.cells) == len(search.cells) and solved.optimal == search.optimal
        shown = solved.codes[:, 0] >= 0
        for h in range(12):  # region goes for the whole household or for none
            assert len(set(shown[hh == h].tolist())) == 1


def test_a_budget_that_runs_out_states_a_bound_and_never_optimal():
    rng = np.random.default_rng(3)
    twice = rng.integers(0, 3, size=(150, 14))
    codes = np.vstack([rng.integers(0, 3, size=(1, 14)), twice, twice])  # only record 0 is unique
    keys = [f"k{j}" for j in range(14)]
    exact = suppress(codes, keys, k=2, max_patterns=0, _engine="table")
    want = len(best_set_by_brute_force(codes, 0, 2))
    assert exact.optimal and len(exact.cells) == want
    cut = suppress(codes, keys, k=2, max_patterns=0, _engine="milp", nodes=0)
    assert not cut.optimal and cut.bound <= want <= len(cut.cells)
    assert cut.bound < len(cut.cells) and 0 < cut.gap < 1
    # what is released still meets k: record 0 agrees with another once its hidden keys are hidden
    assert any(not differing(cut.codes, 0, j) for j in range(1, codes.shape[0]))
