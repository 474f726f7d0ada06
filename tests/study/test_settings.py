"""StudySettings, the study's one way in: every field and every combination of fields it refuses names the field
(``param``, and the message starts with it); run_study is what the command line and the app both call."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privrisk.errors import PrivriskError
from privrisk.study.run import StudyRun, StudySettings, run_study


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"queries": []}, "queries"),
        ({"queries": ["mode"]}, "queries"),
        ({"epsilons": []}, "epsilons"),
        ({"epsilons": [-1]}, "epsilons"),
        ({"proportions": [0.5, 1.5]}, "proportions"),
        ({"proportions": "some"}, "proportions"),
        ({"repetitions": 0}, "repetitions"),
        ({"repetitions": True}, "repetitions"),
        ({"seed": -1}, "seed"),
        ({"universe": (5, 1)}, "universe"),
        ({"universe": (0, float("inf"))}, "universe"),
        ({"universe": "everything"}, "universe"),
        ({"universe_min": "low"}, "universe_min"),
        ({"universe_min": float("nan")}, "universe_min"),
        ({"ls_method": "fast"}, "ls_method"),
        ({"attack": "yes"}, "attack"),
        ({"attack": True, "attack_trials": 0}, "attack_trials"),
        ({"attack": True, "attack_max_n": 1}, "attack_max_n"),
        ({"figure_query": "mode"}, "figure_query"),
        ({"figure_epsilon": "big"}, "figure_epsilon"),
        # combinations of fields
        ({"queries": ["mean"], "figure_query": "max"}, "figure_query"),
        ({"epsilons": [0.5, 2], "figure_epsilon": 1}, "figure_epsilon"),
        ({"universe": (0, 100), "universe_min": 5}, "universe_min"),
        ({"attack": False, "attack_trials": 500}, "attack_trials"),
        ({"attack": False, "attack_max_n": None}, "attack_max_n"),
    ],
)
def test_a_bad_setting_or_combination_names_its_field(kwargs, param):
    with pytest.raises(PrivriskError) as caught:
        StudySettings(**kwargs)
    assert caught.value.param == param
    assert str(caught.value).startswith(f"{param}: ")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"universe": (0, 100), "universe_min": 0},  # lowering to the bound itself changes nothing: allowed
        {"universe": (0, 100), "universe_min": -5},
        {"universe_min": 1e9},  # the data's own values: only the data can tell (read_variables checks it)
        {"attack": True, "attack_trials": 500, "attack_max_n": None},
        {"queries": ["mean"], "figure_query": "MEAN"},
        {"epsilons": [0.5, 2], "figure_epsilon": "ln(7.38905609893065)"},
    ],
)
def test_good_combinations_are_kept(kwargs):
    settings = StudySettings(**kwargs)
    with pytest.raises(AttributeError):  # frozen
        settings.seed = 3  # type: ignore[misc]


def test_the_settings_are_normalised_once():
    s = StudySettings(
        queries=["MAX", "mean", "max"], epsilons=[1, "ln3"], proportions=[1, 0.25], universe=[0, 9]
    )
    assert s.queries == ("max", "mean")
    assert s.epsilons == (1.0, pytest.approx(np.log(3)))
    assert s.proportions == (1.0, 0.25)  # the order given, which the report repeats
    assert s.universe == (0.0, 9.0)
    assert (s.figure_query, s.figure_epsilon) == ("max", 1.0)


def test_run_study_reports_its_progress_and_the_run_writes_the_folder(tmp_path):
    settings = StudySettings(data={"x": np.arange(60) % 11}, queries=["max"], epsilons=[1.0], proportions=[0.5, 1],
                             repetitions=4, attack=True, attack_trials=20)  # fmt: skip
    seen: list[tuple[float, str]] = []
    run = run_study(settings, progress=lambda done, message: seen.append((done, message)))
    assert isinstance(run, StudyRun) and run.rows == 2 * 4 * 1
    shares = [d for d, _ in seen]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0
    assert {"Sampling study", "Attacking the samples"} <= {m for _, m in seen}
    written: list[tuple[float, str]] = []
    files = run.write(tmp_path / "out", progress=lambda done, message: written.append((done, message)))
    assert written[-1][0] == 1.0 and all(p.exists() for p in files)
    doc = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert doc["kind"] == "study"
    assert "max on x" in (tmp_path / "out" / "report.html").read_text()  # the default question
    document = run.to_dict(tmp_path / "out")
    assert document["files"]["figures"] == [str(p) for p in files[4:]]
    assert "files" not in run.to_dict() and document["rows"] == 8
    assert run.sentence().startswith("At a privacy loss of 1, an attacker who knows every other record")


def test_svg_only_figures_leave_the_png_out(tmp_path):
    settings = StudySettings(data={"x": np.arange(40) % 7}, queries=["max"], epsilons=[1.0], proportions=[0.5, 1],
                             repetitions=2)  # fmt: skip
    files = run_study(settings).write(tmp_path / "out", figure_formats=("svg",))
    names = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert names == ["figure1_risk_by_query.svg", "figure2_risk_by_proportion.svg"]
    assert all(f.suffix != ".png" for f in files)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert all("png" not in f for f in manifest["figures"])


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"data": "x.csv"}, "column"),
        ({"data": "x.csv", "column": "a", "variables": ["a:b"]}, "variables"),
        ({"data": "x.csv", "column": "a", "variables": ["b=c"]}, "variables"),
        ({"data": "x.csv", "column": "a,b", "variables": ["a=b"]}, "variables"),
        ({"data": {"x": [1, 2]}, "column": "x"}, "column"),
        ({"demo": True, "data": "x.csv"}, "demo"),
        ({"demo": True, "missing": "negative"}, "missing"),
        ({"demo": True, "universe": "0,10"}, "universe"),
        ({"attack_trials": "1,000"}, "attack_trials"),
        ({"attack_trials": 1000}, "attack_trials"),
        ({"attack": True, "attack_trials": "many"}, "attack_trials"),
        ({"epsilons": "1,big"}, "epsilons"),
    ],
)
def test_the_data_and_the_attack_rules_live_in_the_settings(kwargs, param):
    with pytest.raises(PrivriskError) as caught:
        StudySettings(**kwargs)
    assert caught.value.param == param and str(caught.value).startswith(f"{param}: ")


def test_text_as_a_form_holds_it_is_read_as_the_values():
    text = StudySettings(data="x.csv", column="a, b,a", variables=["b=B"], epsilons="1,ln3", proportions="0.5,1",
                         universe="0,100", universe_min="-1", attack=True, attack_trials="2,000",
                         attack_max_n="")  # fmt: skip
    values = StudySettings(data="x.csv", column=["a", "b"], variables={"b": "B"}, epsilons=[1, np.log(3)],
                           proportions=[0.5, 1], universe=(0, 100), universe_min=-1, attack=True,
                           attack_trials=2000, attack_max_n=None)  # fmt: skip
    assert text == values and text.column == ("a", "b") and text.variables == {"b": "B"}
    assert StudySettings(demo=True).universe_min == 0.0


def test_run_study_reads_a_file_and_a_table_alike(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"h": [float(i % 13) for i in range(50)] + [-1.0]})
    frame.to_csv(tmp_path / "s.csv", index=False)
    common = {"column": ["h"], "variables": {"h": "hours"}, "missing": "negative", "queries": ["max"],
              "epsilons": [1.0], "proportions": [0.5, 1], "repetitions": 2}  # fmt: skip
    on_file = run_study(StudySettings(data=tmp_path / "s.csv", **common))
    on_table = run_study(StudySettings(data=frame, name="s.csv", **common))
    assert on_file.title == "Sampling study of s.csv" == on_table.title
    assert on_file.variables[0]["n"] == on_table.variables[0]["n"] == 50
    assert on_file.key_figures.equals(on_table.key_figures)
    with pytest.raises(PrivriskError) as caught:
        run_study(StudySettings(queries=["max"]))
    assert caught.value.param == "data"


def test_the_old_call_and_the_old_names_warn_and_give_the_same(tmp_path):
    import importlib

    settings = StudySettings(queries=["max"], epsilons=[1.0], proportions=[0.5, 1], repetitions=3)
    values = {"x": np.arange(40) % 9}
    seen: dict[str, int | None] = {}
    with pytest.warns(DeprecationWarning, match=r"run_study\(settings, values, folder, …\) is deprecated"):
        bundle = run_study(settings, values, tmp_path / "old", title="T",
                           on_step=lambda name, total=None: seen.setdefault(name, total) and None)  # fmt: skip
    new = run_study(StudySettings(data=values, queries=["max"], epsilons=[1.0], proportions=[0.5, 1],
                                  repetitions=3, title="T"))  # fmt: skip
    new.write(tmp_path / "new")
    assert bundle.key_figures.equals(new.key_figures) and bundle.findings == new.findings
    with pytest.warns(DeprecationWarning, match="STEPS is deprecated"):
        from privrisk.study.run import STEPS
    assert list(seen) == [STEPS[0], STEPS[2]]  # no attack asked
    inputs = importlib.import_module("privrisk.study.inputs")
    for name, home in (("StudySettings", "run"), ("figure_choices", "run"), ("pick_epsilon", "run"),
                       ("read_variables", "variables")):  # fmt: skip
        with pytest.warns(DeprecationWarning, match=f"use privrisk.study.{home}.{name}"):
            old = getattr(inputs, name)
        assert old is getattr(importlib.import_module(f"privrisk.study.{home}"), name)
