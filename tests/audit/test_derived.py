"""Derived queries: the effective scale and ε of the sum through the mean (Sarathy and Muralidhar 2009, Table 4)."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk import PrivriskError, derived_scale


@pytest.mark.parametrize(
    ("data", "row"),
    [
        (range(1, 11), {"sum": (55, 45, 10, 5), "mean": (5.5, 5, 0.5, 0.25), "eff": (2.5, 4)}),
        (range(101, 111), {"sum": (1055, 945, 110, 55), "mean": (105.5, 105, 0.5, 0.25), "eff": (2.5, 44)}),
        (
            range(50001, 50011),
            {"sum": (500055, 450045, 50010, 25005), "mean": (50005.5, 50005, 0.5, 0.25), "eff": (2.5, 20004)},
        ),
    ],
)
def test_table_4(data, row):
    d = derived_scale(list(data), 2, target="sum", via="mean")
    for q in ("sum", "mean"):
        got = (d.f[q], d.f_star[q], d.delta[q], d.scale[q])
        assert got == pytest.approx(row[q], rel=1e-12)
    assert (d.effective_scale, d.effective_epsilon) == pytest.approx(row["eff"], rel=1e-12)
    table = d.table()
    assert table.loc["effective ε", "sum"] == pytest.approx(row["eff"][1])


def test_noise_ranges_of_sarathy_and_muralidhar():
    d = derived_scale(list(range(1, 11)), 2)
    assert round(d.half_width(d.scale["sum"]), 2) == 42.59
    assert round(d.half_width(d.scale["mean"]), 2) == 2.13
    assert round(d.half_width(d.effective_scale), 2) == 21.29
    shifted = derived_scale(list(range(101, 111)), 2)
    assert round(shifted.half_width(shifted.scale["sum"]), 2) == 468.45


def test_derived_mean_via_sum_and_identity():
    d = derived_scale(list(range(1, 11)), 2, target="mean", via="sum")
    assert d.effective_scale == pytest.approx(0.5)  # b_sum / n
    assert d.effective_epsilon == pytest.approx(1.0)
    same = derived_scale(list(range(1, 11)), 2, target="mean", via="mean")
    assert same.effective_epsilon == pytest.approx(2.0)


@pytest.mark.parametrize(("target", "via"), [("median", "mean"), ("sum", "variance"), ("count", "sum")])
def test_derived_relation_not_linear(target, via):
    with pytest.raises(PrivriskError, match="linear"):
        derived_scale(list(range(1, 11)), 2, target=target, via=via)


def test_document_and_sentences():
    d = derived_scale(list(range(101, 111)), 2)
    doc = d.to_dict()
    assert list(doc)[-2:] == ["epsilon_ratio", "sentence"] and doc["epsilon_ratio"] == pytest.approx(22)
    assert "ε = 44, 22 times the ε you set" in d.sentence()
    assert "±468.45" in d.range_sentence() and "±21.29" in d.range_sentence()


@pytest.mark.parametrize(("target", "via", "param"), [("median", "mean", "target"), ("count", "sum", "via"),
                                                       ("mode", "mean", "target")])  # fmt: skip
def test_errors_name_the_parameter_not_an_option(target, via, param):
    with pytest.raises(PrivriskError) as info:
        derived_scale(list(range(1, 11)), 2, target=target, via=via)
    assert (
        info.value.param == param and str(info.value).startswith(param + ":") and "--" not in str(info.value)
    )


def test_noise_variances_of_sarathy_and_muralidhar():
    """Their text beside Table 4: 2·b_Sum² = 50, 2·b_Mean² = 0.125 and 2·n²·b_Mean² = 12.5 for X = 1, …, 10."""
    d = derived_scale(list(range(1, 11)), 2)
    assert d.variance == pytest.approx({"sum": 50.0, "mean": 0.125}, rel=1e-12)
    assert d.effective_variance == pytest.approx(12.5, rel=1e-12)
    # Shifting by 100 leaves the mean's noise alone and blows up the sum's (b_Sum = 55: 2·55² = 6050).
    shifted = derived_scale(list(range(101, 111)), 2)
    assert shifted.variance == pytest.approx({"sum": 6050.0, "mean": 0.125}, rel=1e-12)
    assert shifted.effective_variance == pytest.approx(12.5, rel=1e-12)
    table = d.table()
    assert table.loc["noise variance 2b²", "sum"] == pytest.approx(50.0)
    assert table.loc["effective variance", "sum"] == pytest.approx(12.5)
    assert round(table.loc["effective half-width", "sum"], 2) == 21.29
    doc = d.to_dict()
    assert (
        doc["variance"] == pytest.approx({"sum": 50.0, "mean": 0.125}) and doc["effective_variance"] == 12.5
    )
    assert "50 for the sum asked directly, 0.125 for the mean; 12.5 for the sum" in d.variance_sentence()


def test_the_variance_is_that_of_the_laplace_density():
    """2b² checked by integrating x² against the Laplace density e^(−|x|/b)/(2b) numerically."""
    from scipy.integrate import quad

    d = derived_scale(list(range(1, 11)), 2)
    for q, b in d.scale.items():
        second, _ = quad(lambda x, b=b: x * x * np.exp(-abs(x) / b) / (2 * b), -np.inf, np.inf)
        assert d.variance[q] == pytest.approx(second, rel=1e-9)
