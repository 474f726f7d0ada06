"""The released file is the input file (issue 32): every column kept in its type and order, in the input's
format, listed in the manifest, different from the input only in the reported cells; the verdict has a stated
default; the information lost per key is reported; bad weights and interrupted writes leave nothing behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataSettings, measure_microdata, run_microdata

EXAMPLES = Path(__file__).parents[2] / "examples"
KEYS = ["region", "age", "sex"]
SETTINGS = dict(
    keys=KEYS, weights="weight", household="hid", k=3, reduction="suppress", importance="age,sex,region"
)


def read(path: Path) -> pd.DataFrame:
    """The file as a reader sees it; Stata and SPSS have no missing text, an empty text is their missing one."""
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    if path.suffix == ".dta":
        return pd.read_stata(path).replace("", np.nan)
    if path.suffix == ".sav":
        import pyreadstat

        return pyreadstat.read_sav(str(path))[0].replace("", np.nan)
    return pd.read_csv(path)


def same(a: object, b: object) -> bool:
    if pd.isna(a) and pd.isna(b):  # type: ignore[arg-type]
        return True
    try:
        return float(a) == float(b)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(a) == str(b)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".dta", ".sav"])
def test_the_released_file_is_the_input_but_the_reported_cells(tmp_path, suffix):
    survey = pd.read_csv(EXAMPLES / "microdata_survey.csv")
    source = tmp_path / f"survey{suffix}"
    if suffix == ".csv":
        source.write_bytes((EXAMPLES / "microdata_survey.csv").read_bytes())
    elif suffix == ".parquet":
        survey.to_parquet(source)
    elif suffix == ".dta":
        survey.to_stata(source, write_index=False)
    else:
        import pyreadstat

        pyreadstat.write_sav(survey, str(source))
    run = run_microdata(MicrodataSettings(data=str(source), **SETTINGS))
    written = run.write(tmp_path / "out")
    name = f"released{suffix}"
    assert name in written
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert name in [t["path"] for t in manifest["tables"]]
    assert manifest["summary"]["information_loss"] and "verdict_after" in manifest["summary"]
    back = read(tmp_path / "out" / name)
    given = read(source)
    assert list(back.columns) == list(given.columns) and len(back) == len(given)  # income kept, order kept
    assert run.suppression is not None
    reported = {(r, KEYS[j]) for r, j in run.suppression.cells}
    for column in given.columns:
        for r in range(len(given)):
            if (r, column) in reported:
                value = back[column].iloc[r]
                assert pd.isna(value), (column, r)
            else:
                assert same(back[column].iloc[r], given[column].iloc[r]), (column, r)
    # the file read back meets the target, counted again from the released values
    again = measure_microdata(back, MicrodataSettings(keys=KEYS, weights="weight", k=3))
    assert again.failures() == []


def test_whole_numbers_stay_whole_in_csv(tmp_path):
    frame = pd.DataFrame(
        {"age": [74, 74, 75, 30, 30, 30], "sex": list("mmfmmm"), "income": [1, 2, 3, 4, 5, 6]}
    )
    run = run_microdata(MicrodataSettings(data=frame, keys="age,sex", k=2, reduction="suppress"))
    run.write(tmp_path / "out")
    text = (tmp_path / "out" / "released.csv").read_text()
    assert "74.0" not in text and "74," in text and text.splitlines()[0] == "age,sex,income"


def test_a_key_recoded_entirely_is_reported_as_lost():
    # the case: recoding age by 10 years until k holds leaves every age '*'
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"region": np.repeat(["n", "s"], 20), "age": rng.integers(18, 90, 40)})
    run = run_microdata(MicrodataSettings(data=frame, keys="region,age", k=15, reduction="recode",
                                                 hierarchies={"age": "interval:10"}))  # fmt: skip
    assert run.released is not None and set(run.released["age"]) == {"*"}
    loss = {d["key"]: d for d in run.information_loss()}
    assert loss["age"]["lost"] and loss["age"]["entropy_after"] == 0 and loss["age"]["entropy_lost"] > 0
    assert run.lost_keys() == ["age"] and "age lost entirely" in str(run.reduction)
    assert loss["region"]["entropy_lost"] == 0 and not loss["region"]["lost"]


def test_the_json_has_the_file_before_and_after_in_named_blocks():
    survey = pd.read_csv(EXAMPLES / "microdata_survey.csv")
    doc = run_microdata(MicrodataSettings(data=survey, **SETTINGS)).to_dict()
    assert doc["before"]["measures"] == doc["measures"]  # the old keys stay as aliases
    assert (
        doc["after"]["failures"] == doc["failures"] == []
        and doc["failures_before"] == doc["before"]["failures"]
    )
    assert doc["after"]["verdict"]["met"] and not doc["before"]["verdict"]["met"]
    assert doc["information_loss"] == doc["after"]["information_loss"]


def test_without_a_threshold_the_verdict_uses_the_stated_default():
    survey = pd.read_csv(EXAMPLES / "microdata_survey.csv")
    result = measure_microdata(survey, MicrodataSettings(keys=KEYS, weights="weight"))
    v = result.verdict()
    assert v["default"] and v["targets"] == {"k": 3, "max_risk": 0.1} and not v["met"]
    assert "default" in v["text"] and "NOT met" in v["text"]
    assert result.failures() == []  # no threshold the user set: the command line does not exit 1
    from privrisk.microdata.report import report_html

    page = report_html(result)
    assert "default targets" in page and "verdict fail" in page and "Every threshold set is met" not in page


def test_l_of_one_says_a_value_is_disclosed():
    frame = pd.DataFrame({"a": list("xxyy"), "s": [1, 1, 2, 3]})
    findings = measure_microdata(frame, MicrodataSettings(keys="a", sensitive="s")).findings()
    assert any("some people's value is disclosed" in f for f in findings)
    assert not any("at least 1 distinct" in f for f in findings)


def test_a_missing_sensitive_value_is_a_category_as_in_sdcmicro():
    frame = pd.DataFrame({"a": list("xxx"), "s": ["p", "q", None]})
    cat = measure_microdata(frame, MicrodataSettings(keys="a", sensitive="s")).measures["diversity"][0]
    drop = measure_microdata(frame, MicrodataSettings(keys="a", sensitive="s", missing_sensitive="drop"))
    assert cat["l_distinct"] == 3 and drop.measures["diversity"][0]["l_distinct"] == 2
    assert cat["missing_values"] == 1


@pytest.mark.parametrize("weight", [1e308, float("inf")])
def test_an_enormous_weight_is_refused_in_one_line(weight):
    frame = pd.DataFrame({"a": [1, 1, 2], "w": [weight, 1.0, 5.0]})
    with pytest.raises(PrivriskError) as caught:
        measure_microdata(frame, MicrodataSettings(keys="a", weights="w"))
    assert caught.value.param == "weights"


def test_the_command_line_exits_2_on_an_enormous_weight(tmp_path):
    data = tmp_path / "w.csv"
    data.write_text("a,w\n1,1e308\n1,1e308\n2,5\n")
    done = subprocess.run([sys.executable, "-m", "privrisk", "microdata", str(data), "--keys", "a", "--weights", "w"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr and "weights" in done.stderr


def test_an_interrupted_records_file_is_whole_or_absent(tmp_path, monkeypatch):
    import privrisk.io.files as files
    from privrisk.cli import microdata as cli

    target = tmp_path / "records.csv"
    real = files.write_csv

    def interrupted(frame, path, **kwargs):
        real(frame.head(3), path, **kwargs)  # a part written, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "write_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.microdata_command(str(EXAMPLES / "microdata_survey.csv"), keys="region,age,sex", weights=None,
                              household=None, sensitive=None, missing="any", missing_sensitive="category",
                              method="approx", max_risk=None, k=None, l_div=None, t_close=None, c=2.0, suda=0,
                              dis_fraction=0.01, suda_scores="elliot", population_size=None, top=5, suppress=False,
                              importance=None, hierarchy=None, records=target, out_dir=None, as_json=True)  # fmt: skip
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one


def test_ihsn_suda_scores_of_the_practice_guide():
    ten = [("u", "f", "si", "e"), ("u", "f", "si", "e"), ("u", "f", "pi", "n"), ("u", "m", "sc", "e"),
           ("r", "f", "sc", "u"), ("u", "m", "sc", "e"), ("u", "f", "pc", "n"), ("u", "m", "ps", "u"),
           ("u", "f", "si", "n"), ("u", "f", "si", "n")]  # fmt: skip
    frame = pd.DataFrame(ten, columns=["residence", "gender", "education", "labour"])
    keys = "residence,gender,education,labour"
    ihsn = measure_microdata(frame, MicrodataSettings(keys=keys, suda_max_size=4, suda_scores="ihsn")).suda
    elliot = measure_microdata(frame, MicrodataSettings(keys=keys, suda_max_size=4)).suda
    assert ihsn is not None and elliot is not None
    # the guide's table (SUDA 6, 12, 6, 10) and its sdcMicro output (1.75, 3.25, 1.75, 2.75; DIS 0.005120313 …)
    assert elliot.score.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]
    assert ihsn.score.tolist() == [0, 0, 1.75, 0, 3.25, 0, 1.75, 2.75, 0, 0]
    assert np.round(ihsn.dis_score[[2, 4]], 9).tolist() == [0.005120313, 0.010702061]
