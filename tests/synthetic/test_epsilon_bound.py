"""The empirical ε lower bound on generators whose guarantee is known exactly: never above the true ε, and close
to it with enough trials (randomised response on each record; a Laplace-noised histogram sampler)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.synthetic.epsilon_bound import epsilon_lower_bound
from privrisk.synthetic.generators import generate

DOMAIN = {"c": ["x", "y", "z"]}


def _rr_trials(epsilon: float, trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Randomised response on one record: x in the data (member) or x′ in its place (bounded neighbours).

    Each row of a file of ``trials`` equal records is one independent run of the mechanism on that record; the
    attack scores 1 when the released value is x.
    """
    inside = generate(pd.DataFrame({"c": ["x"] * trials}), "rr", epsilon=epsilon, seed=seed, domains=DOMAIN)
    outside = generate(
        pd.DataFrame({"c": ["y"] * trials}), "rr", epsilon=epsilon, seed=seed + 1, domains=DOMAIN
    )
    return (inside["c"] == "x").to_numpy(float), (outside["c"] == "x").to_numpy(float)


def _histogram_trials(epsilon: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The Laplace histogram sampler on D = 50 records in cell a, with or without one record in cell b (added or
    removed: unbounded neighbours); the attack scores the number of b records among 2,000 drawn."""
    rng = np.random.default_rng(seed)
    base = pd.DataFrame({"c": ["a"] * 50})
    with_b = pd.DataFrame({"c": ["a"] * 50 + ["b"]})
    domains = {"c": ["a", "b"]}

    def score(frame: pd.DataFrame) -> float:
        out = generate(frame, "histogram", epsilon=epsilon, size=2000, seed=rng, domains=domains)
        return float((out["c"] == "b").sum())

    return np.array([score(with_b) for _ in range(runs)]), np.array([score(base) for _ in range(runs)])


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_randomised_response_never_above_its_epsilon(epsilon: float) -> None:
    for seed in range(5):
        inside, outside = _rr_trials(epsilon, 2000, 10 * seed)
        assert epsilon_lower_bound(inside, outside).epsilon <= epsilon


def test_randomised_response_reaches_its_epsilon_with_enough_trials() -> None:
    # Stated factor: with 50,000 trials a side the bound reaches at least 90 % of ε = 1 (0.965 measured).
    inside, outside = _rr_trials(1.0, 50_000, 7)
    bound = epsilon_lower_bound(inside, outside)
    assert 0.9 <= bound.epsilon <= 1.0


def test_histogram_never_above_its_epsilon_and_reaches_most_of_it() -> None:
    # Stated factor: with 2,000 runs a side the bound reaches at least 60 % of ε = 1 (0.78 to 0.88 measured on
    # three seeds) and never exceeds it.
    inside, outside = _histogram_trials(1.0, 2000, 3)
    bound = epsilon_lower_bound(inside, outside)
    assert 0.6 <= bound.epsilon <= 1.0
    for seed in range(3):
        small_in, small_out = _histogram_trials(1.0, 200, 100 + seed)
        assert epsilon_lower_bound(small_in, small_out).epsilon <= 1.0


def test_a_copy_proves_a_large_epsilon() -> None:
    # Copying the record releases it: the attack is always right, and 1,000 trials prove ε ≥ ln(1 − FPR_up)/FNR_up.
    bound = epsilon_lower_bound(np.ones(1000), np.zeros(1000))
    assert bound.epsilon > 4.5


def test_no_information_proves_nothing() -> None:
    rng = np.random.default_rng(0)
    assert epsilon_lower_bound(rng.random(1000), rng.random(1000)).epsilon < 0.3


def test_delta_lowers_the_bound() -> None:
    inside, outside = _rr_trials(2.0, 5000, 1)
    assert (
        epsilon_lower_bound(inside, outside, delta=0.1).epsilon < epsilon_lower_bound(inside, outside).epsilon
    )


def test_empty_side() -> None:
    with pytest.raises(PrivriskError):
        epsilon_lower_bound([], [1.0])


def test_ln_of_bound_by_hand() -> None:
    # One threshold: members all score 1, non-members all 0; FPR_up = FNR_up = 1 − (α/4)^(1/n) with α = 0.05 split
    # over the two thresholds (0 and 1) and the two rates.
    n = 200
    up = 1 - (0.05 / 4) ** (1 / n)
    assert epsilon_lower_bound(np.ones(n), np.zeros(n)).epsilon == pytest.approx(math.log((1 - up) / up))
