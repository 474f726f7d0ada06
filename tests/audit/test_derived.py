"""Derived queries: the effective scale and ε of the sum through the mean (Sarathy and Muralidhar 2009, Table 4)."""

from __future__ import annotations

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
