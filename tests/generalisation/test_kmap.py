"""k′ of k-map from the population's size (El Emam and Dankar 2008), against ARX's loops written out by hand."""

from __future__ import annotations

import math

import pytest

from privrisk import PrivriskError
from privrisk.generalisation.kmap import kmap_derived_k, sampling_fraction_from


def _arx_loop(k, f, alpha, model):
    """ARX's loops written out with factorials (KMap.calculateKPoisson / calculateKZeroPoisson)."""
    lam, threshold = f * k, 1 - alpha

    def pmf(c):
        return lam**c * math.exp(-lam) / math.factorial(c)

    if model == "poisson":
        counter, value = 0, 0.0
        while value < threshold:
            value = sum(pmf(i) for i in range(counter + 1))
            counter += 1
        derived = counter + 1
    else:
        counter, value = 1, 0.0
        while value < threshold:
            value += pmf(counter) / (1 - pmf(0))
            counter += 1
        derived = counter
    return min(derived, k)


@pytest.mark.parametrize("model", ["poisson", "zero-truncated-poisson"])
@pytest.mark.parametrize(("k", "f", "alpha"), [(5, 0.1, 0.05), (10, 0.3, 0.01), (20, 0.05, 0.1), (3, 0.9, 0.05),
                                               (50, 0.5, 0.05)])  # fmt: skip
def test_kmap_derived_k_matches_the_arx_rule(k, f, alpha, model):
    assert kmap_derived_k(k, f, alpha=alpha, model=model)[0] == _arx_loop(k, f, alpha, model)


def test_kmap_derived_k_errors():
    with pytest.raises(PrivriskError, match=r"^model:"):
        kmap_derived_k(5, 0.1, model="pitman")
    with pytest.raises(PrivriskError, match=r"^alpha:"):
        kmap_derived_k(5, 0.1, alpha=1.5)


def test_the_sampling_fraction_from_the_population_size_or_given():
    assert sampling_fraction_from(10, 200, None) == 0.05 and sampling_fraction_from(10, None, 0.5) == 0.5
    for size, fragment in ((5, "smaller than the dataset"), (2e12, "larger than any population"),
                           (float("nan"), "finite number")):  # fmt: skip
        with pytest.raises(PrivriskError, match=fragment) as caught:
            sampling_fraction_from(10, size, None)
        assert caught.value.param == "population_size"
    with pytest.raises(PrivriskError) as caught:
        sampling_fraction_from(10, 200, 0.5)
    assert caught.value.param == "population_size"
