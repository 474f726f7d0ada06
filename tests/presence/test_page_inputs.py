"""The Presence page's Shiny-free logic, outside the browser: its inputs mapped onto ``PresenceSettings``, the
input an error belongs to, the hierarchy editor's controls, the columns chosen after an upload, the command shown."""

from __future__ import annotations

import shlex

import pandas as pd
import pytest

from privrisk.app.pages.presence import (
    FIELDS,
    _command,
    choice_from_inputs,
    field_of,
    settings_from,
    suggest_count,
    suggest_qi,
)
from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import typed_number as _number
from privrisk.presence import PresenceSettings, run_presence

BANDS = "breaks:10,20,30,40,50,inf/10,40,50,inf"
FORM = {
    "qi": ["zip", "age"],
    "population_count": "n",
    "hierarchies": {"age": BANDS},
    "levels": "",
    "delta_max": "0.5",
    "delta_min": "",
    "k": "",
    "kmap": "",
    "search": True,
    "suppression": 0.0,
    "loss": "precision",
    "allow_inconsistent": False,
    "population_size": "",
    "sampling_fraction": "",
    "estimator": "poisson",
    "alpha": 0.05,
}


def test_the_form_maps_onto_the_settings():
    s = settings_from(FORM, source="file", data="t.csv", population="p.csv", title="t.csv against p.csv")
    assert s == PresenceSettings(data="t.csv", population="p.csv", qi=["zip", "age"], population_count="n",
                                 hierarchies={"age": BANDS}, delta_max=0.5, search=True, hierarchy_files=False,
                                 title="t.csv against p.csv")  # fmt: skip


def test_the_demo_takes_no_tables_and_its_own_columns():
    s = settings_from({**FORM, "qi": ["zip"], "hierarchies": {}}, source="demo")
    assert s.demo and s.data is None and s.qi[0] == "state" and s.population_count is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"qi": []}, "qi"),
        ({"delta_max": "half"}, "delta_max"),
        ({"delta_max": "0,5"}, "delta_max"),  # a decimal comma is refused, not read as 5
        ({"k": "2.5"}, "k"),
        ({"levels": "age:1"}, "levels"),
        ({"search": False, "suppression": 0.1}, "suppression"),
        ({"delta_max": ""}, "search"),
        ({"population_size": "1000"}, "population_size"),
        ({"population_count": "zip"}, "population_count"),
        ({"hierarchies": {"age": "table:/etc/passwd"}}, "hierarchies"),
    ],
)
def test_each_bad_input_goes_to_its_field(change, field):
    with pytest.raises(PrivriskError) as caught:
        settings_from({**FORM, **change}, source="file", data="t.csv", population="p.csv")
    assert field_of(caught.value) == field and field in FIELDS.values()


def test_without_a_population_table_the_form_asks_for_its_size_at_the_population():
    with pytest.raises(PrivriskError) as caught:
        settings_from({**FORM, "population_count": ""}, source="file", data="t.csv")
    assert field_of(caught.value) == "population"
    s = settings_from({**FORM, "population_count": "", "delta_max": "", "search": False, "kmap": "5",
                       "population_size": "80,000"}, source="file", data="t.csv")  # fmt: skip
    assert s.estimates and s.population_size == 80000.0


def test_numbers_as_typed():
    assert (
        _number("80,000", "n") == 80000.0 and _number("1,234.5", "n") == 1234.5 and _number(" ", "n") is None
    )
    for bad in ("0,5", "1,2,3", "nan", "abc"):
        with pytest.raises(PrivriskError):
            _number(bad, "delta_max")


def test_errors_that_name_no_field_go_to_the_status_line_and_hierarchies_to_the_editor():
    assert field_of(PrivriskError("data.csv: no column 'sex'")) is None
    assert field_of(RuntimeError("boom")) is None
    assert field_of(PrivriskError("hierarchy 'age': not nested: …")) == "hierarchies"
    assert field_of(PrivriskError("model: unknown", param="model")) == "estimator"


def test_the_editor_controls_give_the_example_hierarchy():
    controls = {"kind": "breaks", "open": True, "b1_0": 10, "b1_1": 20, "b1_2": 30, "b1_3": 40, "b1_4": 50,
                "b1_5": None, "b2_0": 10, "b2_1": 40, "b2_2": 50}  # fmt: skip
    assert choice_from_inputs(controls).spec() == BANDS
    assert choice_from_inputs({"kind": "interval", "width": 10, "start": 5}).spec() == "interval:10:5"
    assert choice_from_inputs({"kind": "none"}).spec() is None


def test_after_an_upload_no_id_text_or_count_column_is_chosen():
    trial = pd.DataFrame({
        "person_id": range(40), "zip": ["01234", "01235"] * 20, "age": [20, 30, 40, 50] * 10,
        "comment": [f"comment number {i}" for i in range(40)], "n": [1] * 40,
    })  # fmt: skip
    census = pd.DataFrame(
        {"person_id": [1], "zip": ["01234"], "age": [20], "comment": ["x"], "n": [3], "count": [9]}
    )
    assert suggest_qi(trial, list(census.columns)) == ["zip", "age"]
    assert suggest_qi(trial) == []
    # "n" is in T too (a column of the data, not P's counts); "count" is P's alone.
    assert suggest_count(census, list(trial.columns)) == "count"
    assert suggest_count(census.drop(columns="count"), list(trial.columns)) == ""
    rows = pd.DataFrame({"zip": ["a"], "age": [2], "income": [3]})
    assert suggest_count(rows, ["zip", "age"]) == ""


def test_the_command_shown_gives_what_the_page_runs(cli, trial_and_census, tmp_path):
    t, p = trial_and_census
    text = _command(FORM, source="file", data_name=str(t), pop_name=str(p))
    assert f" -H age={BANDS} " in text
    args = shlex.split(text)[1:]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    doc = cli(*args, "--json").json
    shown = run_presence(settings_from(FORM, source="file", data=t, population=p)).to_dict()
    for key in ("summary", "classes", "targets", "hierarchies"):
        assert doc[key] == shown[key], key
    assert doc["search"]["best"] == shown["search"]["best"]
