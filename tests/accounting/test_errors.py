"""Bad input raises PrivriskError with a one-line message that starts with the parameter, and ``param`` set."""

from __future__ import annotations

import math

import pytest

from privrisk.accounting import (
    approximate_dp,
    compose,
    discrete_gaussian_guarantee,
    discrete_laplace_guarantee,
    gaussian_dp,
    gaussian_guarantee,
    group,
    laplace_guarantee,
    membership_risk,
    pure_dp,
    randomised_response_guarantee,
    reconstruction_risk,
    renyi_dp,
    risk_summary,
    subsample,
    tpr_at_fpr,
    worst_case,
    zcdp,
)
from privrisk.errors import PrivriskError

NAN = float("nan")

CASES = [
    (lambda: pure_dp(0), "epsilon"),
    (lambda: pure_dp(-1), "epsilon"),
    (lambda: pure_dp(NAN), "epsilon"),
    (lambda: pure_dp(math.inf), "epsilon"),
    (lambda: pure_dp("abc"), "epsilon"),
    (lambda: approximate_dp(0, 1e-6), "epsilon"),
    (lambda: approximate_dp(1, 1.0), "delta"),
    (lambda: approximate_dp(1, -1e-9), "delta"),
    (lambda: approximate_dp(1, NAN), "delta"),
    (lambda: zcdp(0), "rho"),
    (lambda: zcdp(-0.5), "rho"),
    (lambda: zcdp(NAN), "rho"),
    (lambda: gaussian_dp(0), "mu"),
    (lambda: renyi_dp([1.0], [0.5]), "alphas"),
    (lambda: renyi_dp([2.0, 3.0], [0.5]), "epsilons"),
    (lambda: renyi_dp([2.0], [-0.5]), "epsilons"),
    (lambda: renyi_dp([], []), "alphas"),
    (lambda: laplace_guarantee(), "scale"),
    (lambda: laplace_guarantee(scale=1.0, epsilon=1.0), "scale"),
    (lambda: laplace_guarantee(scale=0.0), "scale"),
    (lambda: laplace_guarantee(epsilon=0.0), "epsilon"),
    (lambda: laplace_guarantee(scale=1.0, sensitivity=-1), "sensitivity"),
    (lambda: gaussian_guarantee(sigma=0.0), "sigma"),
    (lambda: gaussian_guarantee(sigma=1.0, sensitivity=NAN), "sensitivity"),
    (lambda: randomised_response_guarantee(), "epsilon"),
    (lambda: randomised_response_guarantee(truth_probability=0.5), "truth_probability"),
    (lambda: randomised_response_guarantee(truth_probability=1.0), "truth_probability"),
    (lambda: discrete_laplace_guarantee(scale=1.0, sensitivity=1.5), "sensitivity"),
    (lambda: discrete_gaussian_guarantee(sigma=-1.0), "sigma"),
    (lambda: compose([]), "guarantees"),
    (lambda: compose([pure_dp(1), 3]), "guarantees"),
    (lambda: subsample(pure_dp(1), 0.0), "rate"),
    (lambda: subsample(pure_dp(1), 1.5), "rate"),
    (lambda: subsample(pure_dp(1), NAN), "rate"),
    (lambda: subsample(pure_dp(1), 0.5, method="bernoulli"), "method"),
    (lambda: group(pure_dp(1), 0), "k"),
    (lambda: group(pure_dp(1), 2.5), "k"),
    (lambda: pure_dp(1).compose(0), "k"),
    (lambda: pure_dp(1).delta_at(-1), "epsilon"),
    (lambda: pure_dp(1).delta_at(NAN), "epsilon"),
    (lambda: pure_dp(1).epsilon_at(1.5), "delta"),
    (lambda: pure_dp(1).tradeoff([0.5, 1.2]), "alpha"),
    (lambda: membership_risk(pure_dp(1), 1.2), "prior"),
    (lambda: membership_risk("eps", 0.5), "g"),
    (lambda: tpr_at_fpr(pure_dp(1), -0.1), "fpr"),
    (lambda: reconstruction_risk(pure_dp(1), 0), "n"),
    (lambda: worst_case(approximate_dp(1, 1e-3), delta=1e-6), "delta"),
    (lambda: risk_summary(pure_dp(1), fpr=[]), "fpr"),
    (lambda: risk_summary(pure_dp(1), at_delta=2), "at_delta"),
    (lambda: risk_summary(pure_dp(1), at_epsilon=-1), "at_epsilon"),
]


@pytest.mark.parametrize(("call", "param"), CASES, ids=[f"{i}-{p}" for i, (_, p) in enumerate(CASES)])
def test_bad_input_names_its_parameter(call, param):
    with pytest.raises(PrivriskError) as info:
        call()
    assert info.value.param == param
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{param}:")
    assert "--" not in message
