"""SUDA2 against a brute-force enumeration of all key subsets and the examples of sdcMicro's test_suda2.R."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.microdata import suda2


def codes_of(rows) -> np.ndarray:
    return np.column_stack([pd.factorize(np.array(col, dtype=object))[0] for col in zip(*rows, strict=True)])


def brute_msus(codes: np.ndarray, max_size: int) -> list[set[tuple[int, ...]]]:
    """Every MSU of every record: unique on S and on no proper subset of S (all of them, not just S minus one)."""
    n, q = codes.shape

    def unique(i, s):
        return sum(all(codes[j, c] == codes[i, c] for c in s) for j in range(n)) == 1

    out = []
    for i in range(n):
        found = set()
        for k in range(1, max_size + 1):
            for s in combinations(range(q), k):
                if unique(i, s) and not any(unique(i, t) for r in range(1, k) for t in combinations(s, r)):
                    found.add(s)
        out.append(found)
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 14), st.integers(0, 10_000), st.integers(2, 4))
def test_msus_equal_brute_force(q, n, seed, levels):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, size=(n, q))
    for max_size in range(1, q + 1):
        s = suda2(codes, [f"k{j}" for j in range(q)], max_size=max_size)
        want = brute_msus(codes, max_size)
        for k in range(1, max_size + 1):
            assert s.msu_counts[:, k - 1].tolist() == [sum(len(m) == k for m in ms) for ms in want]
        assert s.contribution.tolist() == [[sum(j in m for m in ms) for j in range(q)] for ms in want]
        weights = [math.prod(q - i for i in range(k, max_size)) for k in range(1, max_size + 1)]
        assert s.score.tolist() == [float(sum(weights[len(m) - 1] for m in ms)) for ms in want]


def test_sdc_guideline_example():
    """test_suda2.R 'suda2 sdc guideline': scores 0, 0, 6, 0, 12, 0, 6, 10, 0, 0."""
    residence = ["Urban", "Urban", "Urban", "Urban", "Rural", "Urban", "Urban", "Urban", "Urban", "Urban"]
    gender = ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"]
    education = ["Secondary incomplete", "Secondary incomplete", "Primary incomplete", "Secondary complete",
                 "Secondary complete", "Secondary complete", "Primary complete", "Post-secondary",
                 "Secondary incomplete", "Secondary incomplete"]  # fmt: skip
    labor = ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed", "Non-LF", "Unemployed",
             "Non-LF", "Non-LF"]  # fmt: skip
    s = suda2(codes_of(list(zip(residence, gender, education, labor, strict=True))), ["r", "g", "e", "l"])
    assert s.score.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]


def test_dis_suda_by_hand():
    """Book example: U = 4 records unique on all keys (rows 5–8), P = 2 pairs … DIS-SUDA from Suda2.h's formula."""
    rows = [("20s", "m", "50k+", "hs"), ("20s", "m", "50k+", "hs"), ("20s", "m", "50k-", "hs"),
            ("20s", "m", "50k-", "hs"), ("20s", "f", "50k-", "uni"), ("20s", "f", "50k-", "hs"),
            ("20s", "f", "50k-", "ms"), ("60s", "m", "50k-", "uni")]  # fmt: skip
    s = suda2(codes_of(rows), ["a", "g", "i", "e"], dis_fraction=0.1)
    scores = np.array([0, 0, 0, 0, 4, 2, 6, 8], dtype=float)
    assert s.score.tolist() == scores.tolist()
    u, pairs, f, q = 4, 4, 0.1, 1 + (8 - 4) / 20
    dis = u * f / (u * f + pairs * (1 - f))
    adj = sum(x**-q for x in scores[4:])
    want = [0.0] * 4 + [1 / (1 + (u / dis - u) / (x**q * adj)) for x in scores[4:]]
    assert s.dis_score == pytest.approx(want, rel=1e-12)
