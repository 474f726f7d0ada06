"""Hierarchies: labels at every level, nesting, and every error the issue names."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privrisk import PrivriskError
from privrisk.generalisation.hierarchy import Hierarchy, build_hierarchy, parse_hierarchy


def test_interval_levels_double_until_the_top():
    h = build_hierarchy("age", "interval:10", [10, 12, 13, 16, 43])
    assert h.labels[1].tolist() == ["10-19", "40-49"]
    assert [h.label(43, lvl) for lvl in range(h.height)] == ["43", "40-49", "40-59", "40-79", "*"]
    assert h.sizes()[-1] == 1


def test_interval_with_start_and_float_values():
    h = build_hierarchy("x", "interval:2.5:1", [1.0, 3.4, 3.6])
    assert h.label(3.4, 1) == "[1,3.5)" and h.label(3.6, 1) == "[3.5,6)"


def test_breaks_nested_levels_reproduce_desfontaines_bands():
    h = build_hierarchy("age", "breaks:10,20,30,40,50,inf/10,40,50,inf", [10, 12, 13, 16, 43, 55])
    assert [h.label(v, 1) for v in (12, 43, 55)] == ["10-19", "40-49", "50+"]
    assert [h.label(v, 2) for v in (12, 43, 55)] == ["10-39", "40-49", "50+"]
    assert h.height == 4


def test_prefix_masks_one_character_per_level():
    h = build_hierarchy("zip", "prefix", ["85535", "85536", "10001"])
    assert [h.label("85535", lvl) for lvl in range(h.height)] == [
        "85535",
        "8553*",
        "855**",
        "85***",
        "8****",
        "*",
    ]
    assert h.label("85536", 1) == h.label("85535", 1)


def test_date_day_month_year():
    h = build_hierarchy("d", "date", ["2020-03-15", "2020-03-02", "2021-01-01"])
    assert [h.label("2020-03-15", lvl) for lvl in range(h.height)] == [
        "2020-03-15", "2020-03-15", "2020-03", "2020", "*"]  # fmt: skip


def test_arx_table_with_semicolons(tmp_path):
    f = tmp_path / "countries.csv"
    f.write_text(
        "France;Western Europe;Europe\nGermany;Western Europe;Europe\nPoland;Eastern Europe;Europe\n"
    )
    h = build_hierarchy("country", f"table:{f}", ["France", "Poland"])
    assert h.generalise(["France", "Poland"], 1).tolist() == ["Western Europe", "Eastern Europe"]
    # A last column with one label is the top (ARX's convention); no extra "*".
    assert h.height == 3 and h.label("Poland", 2) == "Europe"


def test_arx_table_with_commas_and_a_top_column(tmp_path):
    f = tmp_path / "h.csv"
    f.write_text("a,ab,*\nb,ab,*\nc,c,*\n")
    h = build_hierarchy("x", f"table:{f}", ["a", "b", "c"])
    assert h.height == 3 and h.sizes() == [3, 2, 1]


def test_mapping_and_functions():
    h = Hierarchy.from_mapping("sex", {"m": ["person"], "f": ["person"]})
    assert h.sizes() == [2, 1]
    h2 = build_hierarchy("n", [lambda v: v // 10, lambda v: v // 100], [5, 15, 150])
    assert h2.generalise([5, 15, 150], 1).tolist() == ["0", "1", "15"]
    assert h2.generalise([5, 15, 150], 2).tolist() == ["0", "0", "1"]


def test_parse_hierarchy():
    assert parse_hierarchy("zip=prefix") == ("zip", "prefix")
    with pytest.raises(PrivriskError, match="COLUMN=SPEC"):
        parse_hierarchy("prefix")


@pytest.mark.parametrize(
    ("spec", "values", "fragment"),
    [
        ("breaks:20,30,inf", [10, 25], "cannot place the value 10"),
        ("interval:10:20", [10, 25], "cannot place the value 10"),
        ("interval:0", [1], "positive"),
        ("breaks:0,10,20,30/0,15,30", [5, 25], "not nested"),
        ("breaks:0,10,5", [1], "increasing"),
        ("magic:3", [1], "unknown kind 'magic'"),
        ("interval:10", ["x"], "not a number"),
        ("date", ["not a date"], "not a date"),
    ],
)
def test_errors(spec, values, fragment):
    with pytest.raises(PrivriskError, match=fragment):
        build_hierarchy("v", spec, values)


def test_table_errors(tmp_path):
    f = tmp_path / "h.csv"
    f.write_text("a;x\nb;y\n")
    with pytest.raises(PrivriskError, match="cannot place the value 'c'"):
        build_hierarchy("v", f"table:{f}", ["a", "c"])
    g = tmp_path / "bad.csv"
    g.write_text("a;x;P\nb;x;Q\n")
    with pytest.raises(PrivriskError, match="not nested"):
        build_hierarchy("v", f"table:{g}", ["a", "b"])
    with pytest.raises(PrivriskError, match="no such file"):
        build_hierarchy("v", f"table:{tmp_path / 'none.csv'}", ["a"])


def test_mapping_error_for_an_unplaced_value():
    with pytest.raises(PrivriskError, match="cannot place the value 'z'"):
        build_hierarchy("v", {"a": ["x"]}, ["a", "z"])


@given(st.lists(st.integers(0, 200), min_size=1, max_size=40), st.integers(1, 30))
def test_interval_levels_are_nested_and_contain_their_values(values, width):
    h = build_hierarchy("v", f"interval:{width}", values)
    table = h.as_table()
    for lvl in range(1, h.height - 1):
        # Each label of a level lies inside exactly one label of the next.
        assert table.groupby(f"level{lvl}")[f"level{lvl + 1}"].nunique().max() == 1
    for v in set(values) if h.height > 2 else ():
        lo, _, hi = h.label(v, 1).partition("-")
        assert int(lo) <= v <= int(hi)
    assert h.labels[-1].tolist() == ["*"]
    assert isinstance(table, pd.DataFrame)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [("interval:1e-300", "bins"), ("breaks:10,nan,30", "NaN"), ("interval:10:inf", "start must be finite")],
)
def test_hostile_specs_are_refused_naming_the_hierarchy(spec, fragment):
    from privrisk.generalisation.hierarchy import build_hierarchy

    with pytest.raises(PrivriskError, match=fragment) as info:
        build_hierarchy("age", spec, [10, 12, 43])
    assert info.value.param == "hierarchy"


def test_binary_table_is_refused(tmp_path):
    from privrisk.generalisation.hierarchy import build_hierarchy

    table = tmp_path / "h.bin"
    table.write_bytes(bytes(range(256)))
    with pytest.raises(PrivriskError, match="not a text hierarchy table"):
        build_hierarchy("age", f"table:{table}", [10])
