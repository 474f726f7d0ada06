"""The Presence page's hierarchy editor without a browser: its controls become hierarchies, the hierarchies the
command line's ``-H`` options, and a preview of the classes each level makes (checked by hand)."""

from __future__ import annotations

import re
import shlex

import pytest

from privrisk.app.pages._hierarchy_editor import (
    BREAK_FIELDS,
    BREAK_LEVELS,
    CONTROLS,
    choice_from_inputs,
    column_block,
    editor_choices,
    editor_error,
    editor_specs,
    hierarchy_options,
    preset_choices,
    preview_items,
)
from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import HierarchyChoice, build_hierarchy, parse_hierarchy

AGES = [10, 12, 13, 16, 43]  # the example trial's ages


def _breaks(first: list[float | None], second: list[float | None] = (), open_top: bool = True) -> dict:
    """The controls of a "breaks" block as Shiny gives them: six number fields per level, empty ones None."""
    values: dict = {"kind": "breaks", "open": open_top}
    for level, given in ((1, list(first)), (2, list(second))):
        for i in range(BREAK_FIELDS):
            values[f"b{level}_{i}"] = given[i] if i < len(given) else None
    return values


def test_the_controls_are_every_field_of_a_block():
    assert len(CONTROLS) == 4 + BREAK_LEVELS * BREAK_FIELDS == 16
    assert {"kind", "width", "start", "open", "b1_0", "b2_5"} <= set(CONTROLS)


def test_drawn_controls_win_over_the_remembered_choice_and_an_undrawn_column_keeps_it():
    current = {"zip": HierarchyChoice("prefix"), "age": HierarchyChoice("date")}
    controls = {"age": _breaks([10, 30, 50]), "sex": {}}
    found = editor_choices(["zip", "age", "sex"], controls, current)
    assert list(found) == ["zip", "age", "sex"]  # the quasi-identifiers' order
    assert found["zip"] == HierarchyChoice("prefix")  # no controls drawn yet: the remembered choice
    assert found["age"] == HierarchyChoice("breaks", breaks=((10.0, 30.0, 50.0), ()), open_top=True)
    assert found["sex"] == HierarchyChoice()  # nothing known: as is
    # A column no longer chosen is not asked about.
    assert list(editor_choices(["age"], controls, current)) == ["age"]


def test_a_field_that_is_no_number_is_that_columns_error_not_the_pages():
    found = editor_choices(
        ["age", "zip"], {"age": {"kind": "interval", "width": "0,5"}, "zip": {"kind": "prefix"}}, {}
    )
    assert isinstance(found["age"], PrivriskError) and found["age"].param == "hierarchies"
    assert found["zip"] == HierarchyChoice("prefix")
    assert editor_specs(found) == {"zip": "prefix"}
    error = editor_error(found)
    assert error is not None and error.param == "hierarchies"
    assert str(error) == "hierarchies: age: '0,5' is not a number (write decimals with a point: 0.5)"


def test_specs_leave_out_what_the_command_line_need_not_say():
    choices = {
        "zip": HierarchyChoice(),  # as is: no -H
        "age": choice_from_inputs(_breaks([10, 20, 30, 40, 50], [10, 40, 50])),
        "w": choice_from_inputs({"kind": "interval", "width": 5, "start": 2}),
        "bad": choice_from_inputs({"kind": "interval", "width": None}),  # no width yet
    }
    assert editor_specs(choices) == {"age": "breaks:10,20,30,40,50,inf/10,40,50,inf", "w": "interval:5:2"}
    assert str(editor_error(choices)) == "hierarchies: bad: give the intervals' width, a number above 0"
    assert editor_error({k: v for k, v in choices.items() if k != "bad"}) is None


def test_the_options_read_back_as_the_command_line_reads_them():
    specs = {"age group": "breaks:18,65", "zip": "prefix", "visit": "date", "none": ""}
    text = hierarchy_options(specs)
    words = shlex.split(text)  # as a shell splits the command the page shows
    assert words == ["-H", "age group=breaks:18,65", "-H", "zip=prefix", "-H", "visit=date"]
    assert [parse_hierarchy(w) for w in words[1::2]] == [
        ("age group", "breaks:18,65"),
        ("zip", "prefix"),
        ("visit", "date"),
    ]
    assert hierarchy_options({}) == ""


def test_the_preview_names_the_classes_each_level_makes():
    choices = {
        "age": choice_from_inputs(_breaks([10, 30, 50])),
        "w": choice_from_inputs({"kind": "interval"}),
        "zip": PrivriskError("hierarchies: '1,5' is not a number"),
    }
    asked: list[str] = []

    def values(name: str) -> list[int]:
        asked.append(name)
        return AGES

    items = dict(preview_items(choices, values))
    # By hand: 10, 12, 13, 16 fall in [10, 30); 43 in [30, 50); the top class 50+ is open.
    assert items["age"] == "level 1: 10-29, 30-49, 50+"
    assert items["w"] == "give the intervals' width, a number above 0"
    assert items["zip"] == "'1,5' is not a number"
    assert asked == ["age", "w"]  # a column in error is not read


def test_the_preview_agrees_with_the_hierarchy_the_run_builds():
    choice = choice_from_inputs({"kind": "interval", "width": 10, "start": None})
    (text,) = [t for _, t in preview_items({"age": choice}, lambda name: AGES)]
    built = build_hierarchy("age", choice.spec(), AGES)
    level1 = sorted({built.label(v, 1) for v in AGES}, key=lambda s: int(s.split("-")[0]))
    assert text.startswith("level 1: " + ", ".join(level1))  # 10-19, 40-49 (no empty bins)
    assert level1 == ["10-19", "40-49"]


def test_a_urls_hierarchies_set_the_editor_and_one_it_cannot_build_is_said_and_left_out():
    found, error = preset_choices("age=breaks:10,20,inf/10,inf;\n zip=prefix ;;")
    assert found == {
        "age": HierarchyChoice("breaks", breaks=((10.0, 20.0), (10.0,)), open_top=True),
        "zip": HierarchyChoice("prefix"),
    }
    assert error is None
    found, error = preset_choices("age=interval:10;zip=table:zip.csv")
    assert list(found) == ["age"]
    assert error is not None and error.param == "hierarchies" and "'zip=table:zip.csv'" in str(error)


def test_a_columns_block_holds_its_controls_under_the_pages_ids():
    choice = HierarchyChoice("breaks", breaks=((10.0, 20.0, 30.5), (10.0,)), open_top=False)
    html = str(column_block("age", choice, lambda control: f"h3v1_{control}", lambda i: f"presence_{i}"))
    html = html.replace("&apos;", "'")
    ids = re.findall(r'id="(presence_h3v1_[a-z0-9_]+)"', html)
    assert sorted(set(ids)) == sorted(f"presence_h3v1_{c}" for c in CONTROLS)
    # The conditional panels read the kind inside the module's namespace (Shiny adds it in the browser).
    assert "input['h3v1_kind'] === 'breaks'" in html and "input['h3v1_kind'] === 'interval'" in html
    # Whole numbers show as 10, not 10.0; the rest as given; the open top unticked.
    assert re.search(r'id="presence_h3v1_b1_0"[^>]*value="10"', html)
    assert re.search(r'id="presence_h3v1_b1_2"[^>]*value="30.5"', html)
    assert not re.search(r'id="presence_h3v1_open"[^>]*checked', html)
    assert re.search(r'<option value="breaks" selected', html)


@pytest.mark.parametrize(
    ("controls", "spec"),
    [
        ({"kind": "none"}, None),
        ({"kind": "prefix"}, "prefix"),
        ({"kind": "date"}, "date"),
        ({"kind": "interval", "width": "1,000"}, "interval:1000"),
        (_breaks([18, 65], open_top=False), "breaks:18,65"),
    ],
)
def test_each_kind_of_control_gives_the_command_lines_spec(controls, spec):
    assert choice_from_inputs(controls).spec() == spec
