"""PRAM as randomised response: k-ary randomised response's closed form, and brute force over the matrix's rows."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting.kary import kary_randomised_response_guarantee
from privrisk.accounting.pram import pram_epsilon, pram_guarantee, transition_matrix
from privrisk.errors import PrivriskError

EPSILONS = np.array([0.0, 0.05, 0.3, 0.7, 1.0, 1.5, 2.0, 3.0, 10.0])
ALPHAS = np.array([0.0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.99, 1.0])


def _kary_matrix(epsilon: float, k: int) -> np.ndarray:
    keep = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    other = 1.0 / (math.exp(epsilon) + k - 1)
    return np.where(np.eye(k, dtype=bool), keep, other)


@pytest.mark.parametrize(("epsilon", "k"), [(math.log(3), 2), (1.0, 3), (0.5, 4), (2.0, 6), (4.0, 10)])
def test_pram_is_kary_randomised_response(epsilon, k):
    g = pram_guarantee(_kary_matrix(epsilon, k))
    kary = kary_randomised_response_guarantee(epsilon=epsilon, categories=k)
    assert g.pure_epsilon == pytest.approx(epsilon, rel=1e-12)
    assert pram_epsilon(_kary_matrix(epsilon, k)) == pytest.approx(epsilon, rel=1e-12)
    for e in EPSILONS:
        assert g.delta_at(e) == pytest.approx(kary.delta_at(e), abs=1e-12)
    assert g.tradeoff(ALPHAS) == pytest.approx(kary.tradeoff(ALPHAS), abs=1e-12)
    for d in (1e-6, 1e-2, 0.2):
        assert g.epsilon_at(d) == pytest.approx(kary.epsilon_at(d), abs=1e-9)


def _brute(matrix: np.ndarray, eps: float) -> float:
    """max over rows i ≠ j of Σ_k max(0, P[i, k] − e^ε P[j, k])."""
    k = matrix.shape[0]
    return max(
        sum(max(0.0, matrix[i, c] - math.exp(eps) * matrix[j, c]) for c in range(k))
        for i, j in itertools.permutations(range(k), 2)
    )


def _brute_epsilon(matrix: np.ndarray) -> float:
    worst = 0.0
    for i, j in itertools.permutations(range(matrix.shape[0]), 2):
        for c in range(matrix.shape[0]):
            if matrix[i, c] > 0:
                worst = max(worst, math.inf if matrix[j, c] == 0 else math.log(matrix[i, c] / matrix[j, c]))
    return worst


@settings(max_examples=50, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(st.lists(st.integers(0, 9), min_size=k, max_size=k), min_size=k, max_size=k)
    )
)
def test_random_matrices_match_brute_force(weights):
    w = np.array(weights, dtype=float)
    w[w.sum(axis=1) == 0, 0] = 1.0
    matrix = w / w.sum(axis=1, keepdims=True)
    g = pram_guarantee(matrix)
    for e in EPSILONS:
        assert g.delta_at(e) == pytest.approx(_brute(matrix, e), abs=1e-12)
    assert pram_epsilon(matrix) == pytest.approx(_brute_epsilon(matrix), rel=1e-12)
    if math.isinf(_brute_epsilon(matrix)):
        assert g.pure_epsilon is None and g.delta_at(1e6) > 0
    else:
        assert g.pure_epsilon == pytest.approx(_brute_epsilon(matrix), rel=1e-12)


def test_variables_compose_on_the_safe_side_of_their_product():
    a = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    b = np.array([[0.7, 0.3], [0.2, 0.8]])
    g = pram_guarantee([a, b], variables=["region", "smoker"])
    for e in (0.0, 0.5, 1.0, 2.0):
        brute = 0.0
        for (i, j), (u, v) in itertools.product(
            itertools.permutations(range(3), 2), itertools.permutations(range(2), 2)
        ):
            p = np.outer(a[i], b[u]).ravel()
            q = np.outer(a[j], b[v]).ravel()
            brute = max(brute, float(np.maximum(p - math.exp(e) * q, 0.0).sum()))
        assert brute - 1e-9 <= g.delta_at(e) <= brute + 0.02


def test_bad_matrices():
    with pytest.raises(PrivriskError, match=r"row 2 sums to 0\.9"):
        transition_matrix([[0.5, 0.5], [0.2, 0.7]])
    with pytest.raises(PrivriskError, match="square"):
        pram_guarantee([[0.5, 0.5]])
    with pytest.raises(PrivriskError) as info:
        pram_guarantee([[[0.5, 0.5], [0.5, 0.5]], [[1.0, 0.1], [0.0, 1.0]]], variables=["a", "b"])
    assert "matrix of b" in str(info.value) and info.value.param == "matrix"
    with pytest.raises(PrivriskError, match="2 names for 1"):
        pram_guarantee([[0.5, 0.5], [0.5, 0.5]], variables=["a", "b"])
