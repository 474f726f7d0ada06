"""accounting.dpsgd: the engineer's four numbers → steps, rate and the subsampled Gaussian composed, against
hand arithmetic and dp_accounting's privacy loss distribution."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import accounting as A
from privrisk.accounting.dpsgd import dpsgd_sample_rate, dpsgd_steps
from privrisk.errors import PrivriskError


def test_steps_are_exact():
    # TF-Privacy's MNIST tutorial: 60 epochs of 60,000 records in batches of 256 → ⌈14,062.5⌉ (riskcal: 14,063).
    assert dpsgd_steps(dataset_size=60_000, batch_size=256, epochs=60) == 14_063
    # 0.7 · 100/10 = 7.000000000000001 in floats: ⌈·⌉ would say 8.
    assert dpsgd_steps(dataset_size=100, batch_size=10, epochs=0.7) == 7
    assert dpsgd_steps(dataset_size=100, batch_size=10, epochs="0.7") == 7
    assert dpsgd_steps(dataset_size=100, batch_size=30, epochs=1) == 4
    assert dpsgd_steps(dataset_size=10, batch_size=10, epochs=1e-9) == 1  # at least one step
    assert dpsgd_sample_rate(dataset_size=60_000, batch_size=256) == 256 / 60_000


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**7), st.integers(1, 10**7), st.integers(1, 1000))
def test_whole_epochs_give_the_integer_ceiling(n, b, e):
    if b > n:
        n, b = b, n
    assert dpsgd_steps(dataset_size=n, batch_size=b, epochs=e) == -(-e * n // b)


def test_dpsgd_is_the_subsampled_gaussian_composed():
    g = A.dpsgd(dataset_size=1000, batch_size=100, epochs=5, noise_multiplier=2.0)
    h = A.subsample(A.gaussian_guarantee(sigma=2.0), 0.1).compose(50)
    assert g.label == h.label and g.epsilon_at(1e-5) == h.epsilon_at(1e-5)
    assert A.from_opacus([(2.0, 0.1, 50)]).epsilon_at(1e-5) == pytest.approx(g.epsilon_at(1e-5), rel=1e-12)
    # Full batches: no amplification, T Gaussian steps are μ = √T/σ exactly.
    assert A.dpsgd(dataset_size=50, batch_size=50, epochs=9, noise_multiplier=3.0).mu == pytest.approx(1.0)


def test_dpsgd_against_dp_accounting():
    """q = 0.1, σ = 2, 50 steps: bracketed by dp_accounting's optimistic and pessimistic loss distributions."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    g = A.dpsgd(dataset_size=1000, batch_size=100, epochs=5, noise_multiplier=2.0)
    bounds = [
        pld.from_gaussian_mechanism(
            2.0, sampling_prob=0.1, pessimistic_estimate=p, value_discretization_interval=1e-4
        ).self_compose(50)
        for p in (False, True)
    ]
    eps = g.epsilon_at(1e-5)
    low, high = (b.get_epsilon_for_delta(1e-5) for b in bounds)
    assert low * (1 - 1e-3) <= eps <= high * (1 + 1e-3)
    delta = g.delta_at(1.0)
    low, high = (b.get_delta_for_epsilon(1.0) for b in bounds)
    assert low * (1 - 1e-3) <= delta <= high * (1 + 1e-3)


def test_fixed_size_batches_and_spellings():
    poisson = A.dpsgd(dataset_size=1000, batch_size=500, epochs=1, noise_multiplier=1.5)
    fixed = A.dpsgd(
        dataset_size=1000, batch_size=500, epochs=1, noise_multiplier=1.5, sampling="without-replacement"
    )
    assert "without replacement" in fixed.label and "Poisson" in poisson.label
    assert (
        fixed.label
        == A.dpsgd(
            dataset_size=1000, batch_size=500, epochs=1, noise_multiplier=1.5, sampling="without_replacement"
        ).label
    )


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"dataset_size": 0}, "dataset_size"),
        ({"dataset_size": 10.5}, "dataset_size"),
        ({"batch_size": 2000}, "batch_size"),
        ({"batch_size": 0}, "batch_size"),
        ({"epochs": 0}, "epochs"),
        ({"epochs": math.inf}, "epochs"),
        ({"noise_multiplier": -1}, "noise_multiplier"),
        ({"noise_multiplier": "x"}, "noise_multiplier"),
        ({"sampling": "shuffle"}, "sampling"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, param):
    args = {"dataset_size": 1000, "batch_size": 100, "epochs": 1, "noise_multiplier": 1.0} | kwargs
    with pytest.raises(PrivriskError) as caught:
        A.dpsgd(**args)
    assert caught.value.param == param and str(caught.value).startswith(f"{param}:")
