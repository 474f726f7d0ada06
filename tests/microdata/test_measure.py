"""measure_microdata end to end: the measures by hand, thresholds, bad input, the JSON document and the folder."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.io.files import to_jsonable
from privrisk.microdata import MicrodataSettings, individual_risk, measure_microdata


@pytest.fixture
def sample() -> pd.DataFrame:
    return pd.DataFrame({
        "region": ["n", "n", "n", "s", "s", "s", "s", "e"],
        "sex": ["f", "f", "f", "m", "m", "f", "f", None],
        "w": [10.0, 20.0, 30.0, 5.0, 5.0, 40.0, 60.0, 8.0],
        "hid": [1, 1, 2, 3, 3, 4, 4, 5],
        "income": [1.0, 2.0, 3.0, 1.0, 1.0, 2.0, 5.0, 4.0],
        "job": list("abcaabbc"),
    })  # fmt: skip


def test_measures_by_hand(sample):
    r = measure_microdata(sample, MicrodataSettings(keys="region,sex", weights="w", household="hid",
                                                    sensitive="income,job"))  # fmt: skip
    # the record (e, missing) matches only region e; f_k of the others as counted
    assert r.cells.record_fk.tolist() == [3, 3, 3, 2, 2, 2, 2, 1]
    assert r.cells.record_Fk.tolist() == [60.0, 60.0, 60.0, 10.0, 10.0, 100.0, 100.0, 8.0]
    want = individual_risk([3, 3, 3, 2, 2, 2, 2, 1], [60, 60, 60, 10, 10, 100, 100, 8])
    assert r.risk == pytest.approx(want, rel=1e-15)
    m = r.measures
    assert m["individual_risk"]["expected_reidentifications"] == pytest.approx(want.sum(), rel=1e-15)
    assert m["individual_risk"]["global_risk"] == pytest.approx(want.sum() / 8, rel=1e-15)
    assert m["k_anonymity"] == {"k": 1, "violations": {"2": 1, "3": 5, "5": 8}, "sample_uniques": 1}
    hh = [1 - (1 - want[0]) * (1 - want[1]), want[2], 1 - (1 - want[3]) * (1 - want[4])]
    assert r.household[:5] == pytest.approx([hh[0], hh[0], hh[1], hh[2], hh[2]], rel=1e-12)
    assert m["household_risk"]["households"] == 5
    assert m["population_uniqueness"]["N"] == 178
    div = {d["variable"]: d for d in m["diversity"]}
    assert div["job"]["l_distinct"] == 1 and div["income"]["l_distinct"] == 1


def test_thresholds_and_failures(sample):
    s = MicrodataSettings(keys="region,sex", sensitive="job", max_risk=0.2, k=2, l=2, t=0.9)
    fails = measure_microdata(sample, s).failures()
    assert [f.split(":")[0] for f in fails] == ["max_risk", "k", "l"]
    ok = MicrodataSettings(keys="region", sensitive="job", k=1, l=1, t=1.0, max_risk=1.0)
    assert measure_microdata(sample, ok).failures() == []


def test_missing_as_category_changes_the_frequencies(sample):
    r = measure_microdata(sample, MicrodataSettings(keys="region,sex", missing="category"))
    assert r.cells.record_fk.tolist() == [3, 3, 3, 2, 2, 2, 2, 1]
    both = sample.assign(sex=["f", None, "f", "m", "m", "f", "f", "m"])
    any_ = measure_microdata(both, MicrodataSettings(keys="region,sex")).cells.record_fk.tolist()
    cat = measure_microdata(both, MicrodataSettings(keys="region,sex", missing="category")).cells.record_fk.tolist()
    assert any_[:3] == [3, 3, 3] and cat[:3] == [2, 1, 2]


def test_document_and_folder(sample, tmp_path):
    r = measure_microdata(sample, MicrodataSettings(keys="region,sex", weights="w", suda_max_size=2, top=3))
    doc = to_jsonable(r.to_dict())
    json.dumps(doc, allow_nan=False)
    assert doc["schema_version"] == 1
    assert doc["combinations"]["total"] == 4 and len(doc["top_records"]) == 3
    assert doc["top_records"][0]["risk"] == max(r.risk)
    assert "suda2" in doc["measures"]
    written = r.write(tmp_path / "out")
    assert sorted(written) == ["combinations.csv", "records.csv", "report.html"]
    assert (tmp_path / "out" / "manifest.json").exists()
    records = pd.read_csv(tmp_path / "out" / "records.csv")
    assert records["risk"].to_numpy() == pytest.approx(r.risk)
    assert "<!DOCTYPE html>" in (tmp_path / "out" / "report.html").read_text()


def test_reads_files(sample, tmp_path):
    path = tmp_path / "s.csv"
    sample.to_csv(path, index=False)
    r = measure_microdata(path, MicrodataSettings(keys="region,sex", weights="w"))
    assert r.n == 8 and r.source == str(path)


@pytest.mark.parametrize(
    ("change", "settings", "message"),
    [
        ({}, {"keys": "region,age"}, "no column 'age'"),
        ({"w": [-1.0] + [1.0] * 7}, {"keys": "region", "weights": "w"}, "weights: 'w' is negative in 1 record"),
        ({"w": [np.nan] + [1.0] * 7}, {"keys": "region", "weights": "w"}, "weights: 'w' is missing"),
        ({"hid": [1, None, 2, 3, 3, 4, 4, 5]}, {"keys": "region", "household": "hid"}, "household: 'hid' is missing"),
        ({}, {"keys": "region", "weights": "w", "population_size": 5}, "population_size: 5 is smaller"),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(sample, change, settings, message):
    with pytest.raises(PrivriskError, match=message) as info:
        measure_microdata(sample.assign(**change), MicrodataSettings(**settings))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"keys": ""}, "keys"),
        ({"keys": "a,a"}, "keys"),
        ({"keys": "a", "sensitive": "a"}, "sensitive"),
        ({"keys": "a", "k": 0}, "k"),
        ({"keys": "a", "t": 1.5}, "t"),
        ({"keys": "a", "l": 2}, "sensitive"),
        ({"keys": "a", "missing": "skip"}, "missing"),
        ({"keys": "a", "method": "fast"}, "method"),
        ({"keys": "a,b", "suda_max_size": 3}, "suda_max_size"),
        ({"keys": "a", "c": -1}, "c"),
    ],
)
def test_settings_are_checked(kwargs, param):
    with pytest.raises(PrivriskError) as info:
        MicrodataSettings(**kwargs)
    assert info.value.param == param


def test_settings_are_frozen():
    s = MicrodataSettings(keys="a")
    with pytest.raises(AttributeError):
        s.k = 3  # type: ignore[misc]


def test_the_example_file_is_the_example_function():
    from pathlib import Path

    from privrisk.microdata.example import example_survey

    path = Path(__file__).parents[2] / "examples" / "microdata_survey.csv"
    pd.testing.assert_frame_equal(example_survey(), pd.read_csv(path), check_dtype=False)
