"""``PresenceSettings``: every bad combination names its field; one run gives the command's and the page's δ."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import HierarchyChoice
from privrisk.presence import PresenceReport, PresenceSettings, delta_presence, parse_levels, run_presence
from privrisk.presence.report import report_verdict

T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"], "n": [5, 5, 10, 10, 20]})
BANDS = "breaks:10,20,30,40,50,inf/10,40,50,inf"
BASE = {"data": T, "population": P, "qi": ["zip", "age"], "population_count": "n"}


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"data": None}, "data"),
        ({"qi": []}, "qi"),
        ({"qi": " , "}, "qi"),
        ({"qi": ["zip", "zip"]}, "qi"),
        ({"population_count": "zip"}, "population_count"),
        ({"population": None, "population_count": "n", "population_size": 100, "kmap": 2}, "population_count"),
        ({"hierarchies": {"sex": "prefix"}}, "hierarchies"),
        ({"hierarchies": {"age": "table:/etc/passwd"}, "hierarchy_files": False}, "hierarchies"),
        ({"levels": {"sex": 1}}, "levels"),
        ({"levels": {"age": -1}}, "levels"),
        ({"engine": "oracle"}, "engine"),
        ({"spark_master": "local[2]"}, "spark_master"),
        ({"delta_max": 2.0}, "delta_max"),
        ({"delta_max": 0.2, "delta_min": 0.5}, "delta_min"),
        ({"k": 0}, "k"),
        ({"kmap": 0}, "kmap"),
        ({"suppression": 1.0, "search": True, "k": 2}, "suppression"),
        ({"suppression": 0.1}, "suppression"),
        ({"search": True}, "search"),
        ({"search": True, "k": 2, "loss": "magic"}, "loss"),
        ({"model": "snb"}, "model"),
        ({"alpha": 1.0}, "alpha"),
        ({"population_size": 100}, "population_size"),
        ({"sampling_fraction": 0.1}, "sampling_fraction"),
        ({"population": None, "population_count": None}, "population"),
        ({"population": None, "population_count": None, "population_size": 100}, "kmap"),
        ({"population": None, "population_count": None, "population_size": 100, "sampling_fraction": 0.1,
          "kmap": 2}, "sampling_fraction"),
        ({"population": None, "population_count": None, "population_size": float("nan"), "kmap": 2},
         "population_size"),
        ({"population": None, "population_count": None, "sampling_fraction": 0.0, "kmap": 2}, "sampling_fraction"),
        ({"population": None, "population_count": None, "population_size": 100, "kmap": 2, "delta_max": 0.5},
         "delta_max"),
        ({"population": None, "population_count": None, "population_size": 100, "kmap": 2, "k": 2}, "k"),
        ({"population": None, "population_count": None, "population_size": 100, "kmap": 2, "search": True},
         "search"),
        ({"demo": True}, "demo"),  # the demo brings its own tables
        ({"data": None, "population": None, "population_count": "n", "demo": True}, "population_count"),
        ({"population": None, "population_count": None, "population_size": 100, "kmap": 2,
          "allow_inconsistent": True}, "allow_inconsistent"),
        ({"model": "zero-truncated-poisson"}, "model"),
        ({"alpha": 0.01}, "alpha"),
        ({"loss": "height"}, "loss"),
        ({"spark_rollup_classes": 5}, "spark_rollup_classes"),
    ],
)
def test_each_bad_combination_names_its_field(fields, param):
    with pytest.raises(PrivriskError) as caught:
        PresenceSettings(**{**BASE, **fields})
    assert caught.value.param == param
    assert str(caught.value).startswith(param + ":")


def test_settings_are_frozen_and_normalised():
    s = PresenceSettings(**{**BASE, "qi": " zip, age "}, delta_max=1, k=2, search=True, loss="Height")
    assert s.qi == ("zip", "age") and s.delta_max == 1.0 and isinstance(s.delta_max, float)
    assert s.loss == "height" and s.targets.k == 2
    with pytest.raises(AttributeError):
        s.k = 3  # type: ignore[misc]


def test_values_as_a_form_holds_them_are_read_into_the_same_settings():
    """Text as typed (a thousands comma, spaces, empty for not given), levels and hierarchies as the command takes
    them: the settings read them once and hold numbers (issue 33: no front end parses a number)."""
    typed = PresenceSettings(**BASE, hierarchies=["age=" + BANDS], levels="age=1", delta_max=" 0.5 ", delta_min="",
                             k="2", kmap=None, search=True, suppression="", alpha="")  # fmt: skip
    given = PresenceSettings(**BASE, hierarchies={"age": BANDS}, levels={"age": 1}, delta_max=0.5, k=2, search=True)
    assert typed == given and isinstance(typed.delta_max, float) and typed.suppression == 0.0 and typed.alpha == 0.05
    estimate = {**BASE, "population": None, "population_count": None, "kmap": "5"}
    assert PresenceSettings(**estimate, population_size="80,000").population_size == 80000.0
    assert PresenceSettings(**estimate, sampling_fraction=".1").sampling_fraction == 0.1


@pytest.mark.parametrize(
    ("fields", "param", "fragment"),
    [
        ({"delta_max": "0,5"}, "delta_max", "write decimals with a point: 0.5"),  # not read as 5, nor as 0.5
        ({"delta_max": "half"}, "delta_max", "is not a number"),
        ({"k": "2.5"}, "k", "whole number"),
        ({"kmap": "nan"}, "kmap", "is not a number"),
        ({"levels": "age:1"}, "levels", "COLUMN=LEVEL"),
        ({"hierarchies": ["age"]}, "hierarchy", "COLUMN=SPEC"),
        ({"search": True, "k": 2, "suppression": "1,5"}, "suppression", "is not a number"),
        ({"alpha": "x"}, "alpha", "is not a number"),
    ],
)
def test_text_that_is_no_value_names_its_field(fields, param, fragment):
    with pytest.raises(PrivriskError) as caught:
        PresenceSettings(**{**BASE, **fields})
    assert caught.value.param == param and fragment in str(caught.value)


def test_the_editor_choice_reads_its_fields_as_typed():
    assert HierarchyChoice("interval", width="10", start="") == HierarchyChoice("interval", width=10.0)
    choice = HierarchyChoice("breaks", breaks=(("10", "", None, "1,000"), ("10", "")))
    assert choice.breaks == ((10.0, 1000.0), (10.0,)) and choice.spec() == "breaks:10,1000,inf/10,inf"
    with pytest.raises(PrivriskError) as caught:
        HierarchyChoice("interval", width="0,5")
    assert caught.value.param == "hierarchies"


def test_the_demo_takes_its_targets_where_none_are_given():
    s = PresenceSettings(demo=True, delta_max=0.4, hierarchies={"age": "interval:5"})
    assert s.delta_max == 0.4 and s.kmap == 10 and s.suppression == 0.02 and s.search
    assert s.hierarchies["age"] == "interval:5" and "state" in s.hierarchies


def test_delta_by_hand_on_a_tiny_table():
    """Desfontaines' trial: the 10-19 band holds all 5 young patients of its 5 people, δ = 5/5 = 1; merged to
    10-39, 5 of 5 + 5 + 10 = 20 people, δ = 0.25; the 40-49 band 1 of 10, δ = 0.1."""
    run = run_presence(PresenceSettings(**BASE, hierarchies={"age": BANDS}, delta_max=0.5, search=True))
    assert run.report is not None and run.report.search is not None and run.report.search.best is not None
    assert run.report.measured.summary["delta_max"] == 1.0
    best = run.report.search.best
    assert best.levels == {"zip": 0, "age": 2}
    assert best.classes["delta"].tolist() == [5 / 20, 1 / 10]
    # The same as the measures called directly, one node at a time.
    direct = delta_presence(T, P, ["zip", "age"], hierarchies={"age": BANDS}, population_count="n",
                            levels={"age": 2})  # fmt: skip
    assert direct.summary["delta_max"] == best.summary["delta_max"] == 0.25
    assert run.verdict().number == "25 %" and run.verdict().met is True
    assert run.failure() is None
    assert run.failure(applied=False).startswith("δ_max 1 exceeds delta_max 0.5 at the measured generalisation")
    assert run.violated_param() == "delta_max"


def test_the_command_line_and_the_page_give_the_same_delta(cli, trial_and_census):
    """The δ by hand (0.25) from the command, from the page's mapping of its inputs, and from the settings."""
    from privrisk.app.pages.presence import settings_from

    t, p = trial_and_census
    doc = cli("presence", t, "-p", p, "--population-count", "n", "--qi", "zip,age", "-H", f"age={BANDS}",
              "--delta-max", "0.5", "--search", "--json").json  # fmt: skip
    page = settings_from(
        {"qi": ["zip", "age"], "population_count": "n", "hierarchies": {"age": BANDS}, "delta_max": "0.5",
         "search": True, "suppression": 0, "loss": "precision", "estimator": "poisson", "alpha": 0.05},
        source="file", data=t, population=p,
    )  # fmt: skip
    shown = run_presence(page).to_dict()
    assert doc["search"]["best"]["summary"]["delta_max"] == shown["search"]["best"]["summary"]["delta_max"] == 0.25
    assert doc["summary"] == shown["summary"]


def test_an_unset_count_column_is_named_before_any_hierarchy(tmp_path):
    with pytest.raises(PrivriskError) as caught:
        run_presence(PresenceSettings(data=T, population=P, qi=["zip", "age"], hierarchies={"age": BANDS}))
    assert caught.value.param == "population_count"
    assert "counts per class" in str(caught.value)


def test_write_and_the_deprecated_write_outputs(tmp_path):
    run = run_presence(PresenceSettings(**BASE, hierarchies={"age": BANDS}, delta_max=0.5, search=True))
    written = run.write(tmp_path / "new")
    assert "release.csv" in written and (tmp_path / "new" / "manifest.json").exists()
    assert run.report is not None
    with pytest.warns(DeprecationWarning, match="write_outputs"):
        old = run.report.write_outputs(tmp_path / "old", T, title="t")
    assert old == written
    assert (tmp_path / "old" / "release.csv").read_text() == (tmp_path / "new" / "release.csv").read_text()
    est = run_presence(PresenceSettings(data=T, qi=["age"], kmap=2, population_size=1000)).estimate
    assert est is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert est.write(tmp_path / "e") == ["classes.csv"]
    with pytest.warns(DeprecationWarning):
        est.write_outputs(tmp_path / "e2")


def test_the_verdict_says_one_number_in_plain_words():
    r = delta_presence(pd.DataFrame({"a": [1] * 3}), pd.DataFrame({"a": [1] * 7 + [2] * 5}), ["a"], k=5)
    v = report_verdict(PresenceReport(r, None))
    # 3 of the 7 people of class a=1: 3/7 = 42.857… %, three significant digits.
    assert v.number == "42.9 %"
    assert v.sentence.startswith("Of the 12 people in the population")
    assert "every research class holding at least 5 people: not met" in v.sentence and v.met is False


def test_progress_rises_from_reading_through_the_search_to_done():
    seen: list[tuple[float, str]] = []
    run_presence(PresenceSettings(**BASE, hierarchies={"age": BANDS}, k=1, search=True),
                 progress=lambda done, message: seen.append((done, message)))  # fmt: skip
    done = [d for d, _ in seen]
    assert done == sorted(done) and 0 <= done[0] and done[-1] == 1.0 and seen[-1][1] == "done"
    said = [m for _, m in seen]
    assert said[:2] == ["Reading and grouping both tables", "Measuring δ, k and k-map"]
    nodes = [m for m in said if m.startswith("lattice nodes evaluated:")]
    assert nodes[0] == "lattice nodes evaluated: 1 of 6"  # zip: raw, * × age: the bands of P and up (3 levels)


def test_the_deprecated_steps_report_the_stages_and_the_lattice():
    seen: list[tuple[str, int | None]] = []
    counted = []

    def steps(text, total=None):
        seen.append((text, total))
        return (lambda: counted.append(1)) if total else None

    settings = PresenceSettings(**BASE, hierarchies={"age": BANDS}, k=1, search=True)
    with pytest.warns(DeprecationWarning, match=r"run_presence\(…, steps=…\) is deprecated"):
        old = run_presence(settings, steps=steps)
    assert [t for t, _ in seen][:2] == ["Reading and grouping both tables", "Measuring δ, k and k-map"]
    total = next(n for t, n in seen if n is not None)
    assert 1 <= len(counted) <= total
    assert old.to_dict() == run_presence(settings).to_dict()


def test_the_old_name_dataset_warns_and_gives_the_same_settings():
    with pytest.warns(DeprecationWarning, match=r"PresenceSettings\(dataset=…\) is deprecated.*use data=…"):
        old = PresenceSettings(**{**BASE, "data": None, "dataset": T})
    assert old == PresenceSettings(**BASE) and old.data is T
    with pytest.raises(PrivriskError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        PresenceSettings(**BASE, dataset=T)
    assert caught.value.param == "dataset"
    with pytest.raises(PrivriskError) as caught:
        PresenceSettings(population=P, qi=["zip"])
    assert caught.value.param == "data" and str(caught.value).startswith("data: ")


def test_the_run_in_one_sentence_first():
    run = run_presence(PresenceSettings(**BASE, hierarchies={"age": BANDS}, delta_max=0.5, search=True))
    assert run.sentence() == run.verdict().sentence
    assert run.sentence().startswith("Of the 50 people in the population") and run.sentence().endswith(": met.")
    estimate = run_presence(PresenceSettings(data=T, qi=["age"], kmap=2, population_size=1000))
    assert estimate.sentence().startswith("Of the 6 people in the sample")


def test_parse_levels():
    assert parse_levels("age=1,zip=2") == {"age": 1, "zip": 2} and parse_levels(None) is None
    with pytest.raises(PrivriskError) as caught:
        parse_levels("age=x")
    assert caught.value.param == "levels"


@pytest.mark.parametrize(
    "spec", ["interval:10", "interval:10:5", "breaks:10,20,30,40,50,inf/10,40,50,inf", "breaks:0,18,65", "prefix",
             "date"],
)  # fmt: skip
def test_the_editor_gives_back_the_typed_syntax(spec):
    assert HierarchyChoice.from_spec(spec).spec() == spec


@pytest.mark.parametrize(
    ("choice", "fragment"),
    [
        (HierarchyChoice("interval", width=0), "width"),
        (HierarchyChoice("breaks"), "breaks"),
        (HierarchyChoice("breaks", breaks=((18,),), open_top=False), "two breaks"),
        (HierarchyChoice("breaks", breaks=((10, 20), (15,))), "only leave breaks out"),
    ],
)
def test_the_editor_refuses_what_makes_no_hierarchy(choice, fragment):
    with pytest.raises(PrivriskError, match=fragment) as caught:
        choice.spec()
    assert caught.value.param == "hierarchies"


def test_the_editor_preview_lists_the_classes_of_each_level():
    choice = HierarchyChoice.from_spec(BANDS)
    assert choice.preview("age") == ["level 1: 10-19, 20-29, 30-39, 40-49, 50+", "level 2: 10-39, 40-49, 50+"]
    # Intervals of 20 from 0 over ages 3..77: 0-19, 20-39, 40-59, 60-79; then 0-39, 40-79.
    assert HierarchyChoice("interval", width=20).preview("age", [3, 25, 41, 77]) == [
        "level 1: 0-19, 20-39, 40-59, 60-79",
        "level 2: 0-39, 40-79",
    ]
    with pytest.raises(PrivriskError):
        HierarchyChoice.from_spec("table:/etc/passwd")
