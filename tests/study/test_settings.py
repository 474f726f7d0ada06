"""StudySettings, the study's one way in: every field and every combination of fields it refuses names the field
(``param``, and the message starts with it); run_study is what the command line and the app both call."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privrisk.errors import PrivriskError
from privrisk.study.inputs import StudySettings
from privrisk.study.run import STEPS, run_study


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


def test_run_study_reports_its_steps_and_writes_the_folder(tmp_path):
    settings = StudySettings(queries=["max"], epsilons=[1.0], proportions=[0.5, 1], repetitions=4, attack=True,
                             attack_trials=20)  # fmt: skip
    seen: dict[str, list[int]] = {}
    totals: dict[str, int | None] = {}

    def on_step(name, total=None):
        totals[name] = total
        seen[name] = []
        return lambda k=1: seen[name].append(k)

    values = {"x": np.arange(60) % 11}
    bundle = run_study(settings, values, tmp_path / "out", title="T", on_step=on_step)
    assert list(seen) == list(STEPS)
    # Each bar reaches its total: the study and the attack count repetitions, the report its parts.
    for name in STEPS:
        assert sum(seen[name]) == totals[name], name
    assert totals[STEPS[0]] == 4
    doc = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert doc["kind"] == "study" and bundle.rows == 2 * 4 * 1
    assert "max on x" in (tmp_path / "out" / "report.html").read_text()  # the default question


def test_svg_only_figures_leave_the_png_out(tmp_path):
    settings = StudySettings(queries=["max"], epsilons=[1.0], proportions=[0.5, 1], repetitions=2)
    bundle = run_study(
        settings, {"x": np.arange(40) % 7}, tmp_path / "out", title="T", figure_formats=("svg",)
    )
    names = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert names == ["figure1_risk_by_query.svg", "figure2_risk_by_proportion.svg"]
    assert all(f.endswith(".svg") for f in bundle.files["figures"])
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert all("png" not in f for f in manifest["figures"])
