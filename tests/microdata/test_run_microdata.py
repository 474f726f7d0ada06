"""The one way in (run_microdata): the reduction's rules, and the thresholds judged on the file as released.

The released files are checked by counting them with pandas (groupby over the key columns, then every group a
record's key values are compatible with), not with the library's frequency code.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataRun, MicrodataSettings, run_microdata

EXAMPLES = Path(__file__).parents[2] / "examples"
KEYS = ["region", "age", "sex"]
AGE_TABLE = f"table:{EXAMPLES / 'microdata_age.csv'}"


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return pd.read_csv(EXAMPLES / "microdata_survey.csv")


def fk_by_counting(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Each record's f_k with a missing key value matching any value (sdcMicro's rule), counted with pandas.

    The frame is grouped on its keys with missing values kept as groups of their own; a record's f_k is the sum
    of the sizes of the groups whose every key is missing on one side or equal on both.
    """
    groups = frame.groupby(keys, dropna=False).size().reset_index(name="size")
    out = []
    for _, record in frame[keys].iterrows():
        match = pd.Series(True, index=groups.index)
        for key in keys:
            if pd.notna(record[key]):
                match &= groups[key].isna() | (groups[key] == record[key])
        out.append(int(groups.loc[match, "size"].sum()))
    return np.array(out)


# ------------------------------------------------------------------------------------------------- the rules
BASE = {"keys": "sex,age", "k": 2}


@pytest.mark.parametrize(
    ("change", "param", "fragment"),
    [
        ({"reduction": "suppress", "hierarchies": {"age": "interval:10"}}, "reduction", "not both"),
        ({"importance": "age,sex"}, "importance", "only with local suppression"),
        ({"reduction": "recode", "hierarchies": {"age": "interval:10"}, "importance": "age,sex"}, "importance",
         "only with local suppression"),
        ({"hierarchies": {"age": "interval:10"}}, "hierarchies", "only with global recoding"),
        ({"reduction": "recode"}, "hierarchies", "at least one key"),
        ({"reduction": "recode", "hierarchies": {"zip": "prefix"}}, "hierarchies", "'zip' is not a key"),
        ({"reduction": "recode", "hierarchies": {"age": "table:ages.csv"}, "hierarchy_files": False},
         "hierarchies", "no file"),
        ({"reduction": "recode", "hierarchies": "age"}, "hierarchy", "COLUMN=SPEC"),
        ({"reduction": "suppress", "importance": "age"}, "importance", "once each"),
        ({"reduction": "suppress", "importance": "age,sex,age"}, "importance", "twice"),
        ({"reduction": "suppress", "k": None}, "k", "target of the suppression"),
        ({"reduction": "recode", "hierarchies": {"age": "interval:10"}, "k": None}, "k", "at least one target"),
        ({"reduction": "suppress", "missing": "category"}, "missing", "'any'"),
        ({"reduction": "blur"}, "reduction", "unknown reduction"),
    ],
)  # fmt: skip
def test_each_rule_names_its_field(change, param, fragment):
    with pytest.raises(PrivriskError) as caught:
        MicrodataSettings(**{**BASE, **change})
    assert caught.value.param == param
    assert str(caught.value).startswith(param + ":") and fragment in str(caught.value)


def test_the_allowed_combinations_are_normalised():
    s = MicrodataSettings(**BASE)
    assert (s.reduction, s.importance, s.hierarchies) == ("none", None, {})
    s = MicrodataSettings(**BASE, reduction=" Suppress ", importance=" age , sex ")
    assert (s.reduction, s.importance) == ("suppress", ("age", "sex"))
    assert MicrodataSettings(keys="sex,age", max_risk=0.2, reduction="suppress").importance is None
    # a hierarchy as a mapping, as COLUMN=SPEC texts, or as one text on lines or separated by ';'
    wanted = {"age": "breaks:10,20,30/10,30", "sex": "none"}
    for given in (wanted, ["age=breaks:10,20,30/10,30", "sex=none"], "age=breaks:10,20,30/10,30\nsex=none",
                  "age=breaks:10,20,30/10,30; sex=none"):  # fmt: skip
        assert MicrodataSettings(**BASE, reduction="recode", hierarchies=given).hierarchies == wanted
    # ℓ or t alone is a target of the recoding (not of the suppression)
    s = MicrodataSettings(keys="sex,age", sensitive="d", l=2, reduction="recode", hierarchies={"age": "interval:10"})
    assert s.k is None and s.reduction == "recode"
    # the measurement's JSON settings are unchanged by the reduction (the run reports it under its own keys)
    assert MicrodataSettings(**BASE, reduction="suppress").to_dict() == MicrodataSettings(**BASE).to_dict()


def test_run_microdata_takes_settings_only():
    with pytest.raises(PrivriskError) as caught:
        run_microdata({"keys": "a"})  # type: ignore[arg-type]
    assert caught.value.param == "settings"
    with pytest.raises(PrivriskError) as caught:
        run_microdata(MicrodataSettings(keys="a"))  # no file to measure
    assert caught.value.param == "data" and str(caught.value).startswith("data: ")
    with pytest.raises(PrivriskError) as caught:
        MicrodataSettings(data=3, keys="a")
    assert caught.value.param == "data"


def test_the_old_call_with_the_data_beside_the_settings_warns_and_gives_the_same_run(survey):
    settings = MicrodataSettings(keys=KEYS, weights="weight", k=3, reduction="suppress")
    stages: list[str] = []
    with pytest.warns(DeprecationWarning, match=r"run_microdata\(data, settings\) is deprecated"):
        old = run_microdata(survey, settings, progress=stages.append)  # type: ignore[arg-type]
    new = run_microdata(replace(settings, data=survey))
    assert json.dumps(old.to_dict(), default=str) == json.dumps(new.to_dict(), default=str)  # NaN ≠ NaN
    # the old protocol: each stage's name as it began, nothing else
    assert stages == ["reading the file", "frequencies and individual risk",
                      "reading every column for the released file", "local suppression"]  # fmt: skip
    with pytest.warns(DeprecationWarning), pytest.raises(PrivriskError) as caught:
        run_microdata(survey, {"keys": "a"})  # type: ignore[arg-type]
    assert caught.value.param == "settings"


def test_progress_rises_to_done_with_every_recoding_measured(survey):
    seen: list[tuple[float, str]] = []
    settings = MicrodataSettings(data=survey, keys=KEYS, k=2, reduction="recode",
                                 hierarchies={"age": AGE_TABLE, "sex": "none"})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new way in warns about nothing
        run_microdata(settings, progress=lambda done, message: seen.append((done, message)))
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[0] == 0.0 and seen[-1] == (1.0, "done")
    nodes = [m for _, m in seen if m.startswith("recodings measured:")]
    assert len(nodes) == 6 and nodes[-1] == "recodings measured: 6 of 6"  # age: 3 levels × sex: 2 levels


def test_a_front_end_names_the_parameters_without_reading_the_text(survey):
    run = run_microdata(MicrodataSettings(data=survey, keys=KEYS, k=500, reduction="recode",
                                          hierarchies={"region": "prefix", "sex": "none"}))  # fmt: skip
    exceeded = run.exceeded()
    assert [f.param for f in exceeded] == ["hierarchies", "k"] and run.violated_param() == "hierarchies"
    # a label with a colon of its own and a parameter that appears in the text are no trouble: nothing is parsed
    named = run.failures({"k": "k: the smallest class", "hierarchies": "Recode"}.get)
    assert named == [f"Recode: {exceeded[0].text}", f"k: the smallest class: {exceeded[1].text}"]
    doc = run.to_dict(name={"k": "--k", "hierarchies": "--hierarchy"}.get)
    assert doc["reduction"] == f"--hierarchy: {exceeded[0].text}" and doc["failures"] == [f"--k: {exceeded[1].text}"]
    assert run.violated_param() is not None and run_microdata(
        MicrodataSettings(data=survey, keys=KEYS)).violated_param() is None


def test_the_run_leads_with_its_verdict_in_one_sentence(survey):
    plain = run_microdata(MicrodataSettings(data=survey, keys=KEYS))
    assert plain.sentence() == plain.result.verdict()["text"] and plain.sentence().startswith("No threshold was set")
    reduced = run_microdata(MicrodataSettings(data=survey, keys=KEYS, k=2, reduction="suppress"))
    assert reduced.sentence() == "The released file. Judged against the thresholds set (k = 2): met."


# ------------------------------------------------------------------------------------------- suppression
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3])
def test_suppression_makes_every_record_reach_k_when_counted_by_hand(seed, k):
    rng = np.random.default_rng(seed)
    n = 10
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.integers(0, 3, n),
                          "c": rng.choice(["p", "q"], n), "other": np.arange(n)})  # fmt: skip
    run = run_microdata(MicrodataSettings(data=frame, keys="a,b,c", k=k, reduction="suppress", importance="c,a,b"))
    released = run.released
    assert isinstance(run, MicrodataRun) and released is not None and run.suppression is not None
    assert fk_by_counting(released, ["a", "b", "c"]).min() >= k
    assert run.failures() == [] and run.reduced is not None and run.reduced.measures["k_anonymity"]["k"] >= k
    # only key values were set to missing, as many as the suppression says, and nothing else changed
    was = frame[["a", "b", "c"]]
    now = released[["a", "b", "c"]]
    changed = now.isna() & was.notna()
    assert int(changed.to_numpy().sum()) == len(run.suppression.cells)
    assert (now.where(~changed, was).astype(str) == was.astype(str)).all().all()
    # before the suppression the counting agrees with the file as given
    assert (fk_by_counting(frame, ["a", "b", "c"]) == run.measured.cells.record_fk).all()


def test_suppression_of_the_survey_in_its_importance_order(survey):
    settings = MicrodataSettings(keys=KEYS, weights="weight", k=3, reduction="suppress", importance="sex,region,age")
    run = run_microdata(replace(settings, data=survey))
    released = run.released
    assert released is not None and run.suppression is not None
    assert fk_by_counting(released, KEYS).min() >= 3
    assert fk_by_counting(survey, KEYS).min() == 1  # the file as given is not 3-anonymous
    assert run.measured.failures()[0].startswith("k:") and run.failures() == []
    # sex is the most important key: it is the last one suppressed, so the fewest of its values go
    by_key = run.suppression.by_key
    assert by_key["sex"] <= min(by_key["region"], by_key["age"])
    s = run.suppression
    how = "fewest possible" if s.optimal else f"the fewest possible is at least {s.bound:,}"
    assert run.reduction == f"{len(s.cells):,} key value(s) suppressed ({s.method} search, {how})"


def test_the_thresholds_are_judged_on_the_released_file(survey):
    # k is met by the suppression; ℓ is not its target, so it is judged on the released file as it is
    settings = MicrodataSettings(keys=KEYS, weights="weight", sensitive="income", k=2, l=2, reduction="suppress")
    run = run_microdata(replace(settings, data=survey))
    released = run.released
    assert released is not None and run.reduced is not None
    before = [f.split(":")[0] for f in run.measured.failures()]
    assert before == ["k", "l"]
    # ℓ counted by hand: the fewest distinct incomes of a class (a missing key value a class of its own)
    l_by_hand = int(released.groupby(KEYS, dropna=False)["income"].nunique().min())
    after = run.failures()
    assert after == run.reduced.failures()
    assert not any(f.startswith("k:") for f in after)
    assert any(f.startswith("l:") for f in after) == (l_by_hand < 2)
    doc = run.to_dict()
    assert doc["failures"] == after and doc["failures_before"] == run.measured.failures()
    assert doc["suppression"]["measures_after"] == run.reduced.measures
    assert doc["reduction"] == run.reduction


def test_a_front_end_names_the_parameters(survey):
    run = run_microdata(MicrodataSettings(data=survey, keys=KEYS, k=2, max_risk=0.01))
    failures = run.failures(lambda p: f"--{p.replace('_', '-')}")
    assert [f.split(":")[0] for f in failures] == ["--max-risk", "--k"]
    assert [f.split(":", 1)[1] for f in failures] == [f.split(":", 1)[1] for f in run.failures()]
    assert run.to_dict(name=lambda p: p.upper())["failures"][0].startswith("MAX_RISK:")
    assert run.released is None and run.reduction is None and "failures_before" not in run.to_dict()


# --------------------------------------------------------------------------------------------- recoding
def test_recoding_meets_k_when_counted_by_hand(survey):
    settings = MicrodataSettings(keys=KEYS, weights="weight", k=2, reduction="recode",
                                 hierarchies={"age": AGE_TABLE, "sex": "none"})  # fmt: skip
    run = run_microdata(replace(settings, data=survey))
    released = run.released
    assert released is not None and run.recoding is not None and run.recoding.levels is not None
    assert int(released.groupby(KEYS, dropna=False).size().min()) >= 2
    assert run.failures() == [] and run.measured.failures()[0].startswith("k:")
    # the ages are the table's labels of the level chosen (the table's columns: 18-29 → 18-44 → *)
    table = pd.read_csv(EXAMPLES / "microdata_age.csv", sep=";", header=None, dtype=str)
    level = run.recoding.levels["age"]
    assert set(released["age"]) <= set(table[level])
    levels = ", ".join(f"{k}={v}" for k, v in run.recoding.levels.items())
    # both keys end at '*': the released file shows nothing of them, and the reduction says so (issue 32)
    assert run.lost_keys() == ["age", "sex"] == [d["key"] for d in run.information_loss() if d["lost"]]
    assert run.reduction == f"levels {levels}; age, sex lost entirely (the released file shows nothing of it)"


def test_no_recoding_meets_the_targets(survey):
    settings = MicrodataSettings(keys=KEYS, weights="weight", k=1000, reduction="recode",
                                 hierarchies={"age": AGE_TABLE, "sex": "none"})  # fmt: skip
    run = run_microdata(replace(settings, data=survey))
    assert run.reduced is None and run.released is None and run.result is run.measured
    nodes = len(run.recoding.nodes) if run.recoding is not None else 0
    assert nodes == 6  # age: 3 levels × sex: 2 levels
    failures = run.failures()
    assert failures[0] == "hierarchies: none of the 6 recodings meets the targets"
    assert failures[1:] == run.measured.failures()
    doc = run.to_dict()
    assert "failures_before" not in doc and doc["failures"] == run.measured.failures()
    assert doc["reduction"] == failures[0] and doc["recoding"]["levels"] is None


# ------------------------------------------------------------------------------------------------ files
SMALL = pd.DataFrame({"sex": list("mmmffm"), "age": [30, 30, 40, 50, 50, 60], "income": [1, 2, 3, 4, 5, 6]})


def test_write_adds_the_released_file(tmp_path):
    run = run_microdata(MicrodataSettings(data=SMALL, keys="sex,age", sensitive="income", k=2, reduction="suppress"))
    written = run.write(tmp_path / "out")
    assert written == ["combinations.csv", "records.csv", "report.html", "released.csv"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([*written, "manifest.json"])
    released = pd.read_csv(tmp_path / "out" / "released.csv")
    assert list(released.columns) == ["sex", "age", "income"] and len(released) == len(SMALL)
    assert int(released[["sex", "age"]].isna().sum().sum()) == len(run.suppression.cells if run.suppression else [])
    assert fk_by_counting(released, ["sex", "age"]).min() >= 2
    plain = run_microdata(MicrodataSettings(data=SMALL, keys="sex,age"))
    assert "released.csv" not in plain.write(tmp_path / "plain")
    assert not (tmp_path / "plain" / "released.csv").exists()


def test_write_is_whole_or_nothing(tmp_path, monkeypatch):
    import privrisk.io.files as files

    run = run_microdata(MicrodataSettings(data=SMALL, keys="sex,age", k=2, reduction="suppress"))
    write_csv = files.write_csv

    def failing(frame, path, **kwargs):
        if Path(path).name == "released.csv":
            raise OSError(28, "No space left on device", str(path))
        write_csv(frame, path, **kwargs)

    monkeypatch.setattr(files, "write_csv", failing)
    with pytest.raises(OSError):
        run.write(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []  # no folder, no file, no temporary folder left behind


def test_the_settings_stay_hashable_and_equal_by_value():
    a = MicrodataSettings(**BASE, reduction="recode", hierarchies="age=interval:10")
    b = MicrodataSettings(**BASE, reduction="recode", hierarchies={"age": "interval:10"})
    assert a == b and hash(a) == hash(b)
    # the data are left out (a DataFrame has no hash and no single truth value)
    c = replace(a, data=SMALL)
    assert c == a and hash(c) == hash(a) and c.to_dict() == a.to_dict()
    assert a != MicrodataSettings(**BASE, reduction="recode", hierarchies={"age": "interval:5"})
