"""The study's report in the library: settings checked once, the page through the one skeleton, write_bundle."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privrisk.study as study_pkg
from privrisk.errors import PrivriskError
from privrisk.study import (
    StudySettings,
    merge_attack,
    read_variables,
    sampling_study,
    study_attack,
    study_summary,
    write_bundle,
)
from privrisk.study.report import attack_section, attack_table, findings, key_table, study_page
from privrisk.study.run import figure_choices


def test_sampling_and_attack_do_not_import_each_other():
    folder = Path(study_pkg.__file__).parent
    for module, other in (("sampling", "attack"), ("attack", "sampling")):
        tree = ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert f"privrisk.study.{other}" not in imported
        assert "privrisk.study._samples" in imported


# ------------------------------------------------------------------------------------------------- settings
def test_settings_are_checked_and_normalised_once():
    s = StudySettings(queries=["VAR", "max", "max"], epsilons=[2, 0.5], proportions=[1, 0.5])
    assert s.queries == ("variance", "max") and s.epsilons == (2.0, 0.5)
    assert s.proportions == (1.0, 0.5)  # as given: the report repeats the user's order
    assert (s.figure_query, s.figure_epsilon) == ("max", 0.5)
    params = s.parameters()
    assert list(params)[-3:] == ["ls_method", "figure_query", "figure_epsilon"]
    assert "attack_trials" not in params
    with_attack = StudySettings(attack=True, attack_trials=10, universe=(0, 5)).parameters()
    assert with_attack["attack_trials"] == 10 and with_attack["universe"] == [0.0, 5.0]
    with pytest.raises(AttributeError):
        s.seed = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"queries": ["mode"]}, "queries: unknown query 'mode'"),
        ({"queries": []}, "queries: give at least one query"),
        ({"epsilons": [-1]}, "epsilons: must be at least 0"),
        ({"proportions": [0, 1]}, "proportions: each proportion must lie in (0, 1], got 0"),
        ({"proportions": "half"}, "proportions: a list of numbers in (0, 1] or 'auto'"),
        ({"repetitions": 0}, "repetitions: must be a whole number ≥ 1, got 0"),
        ({"seed": -1}, "seed: must be a whole number ≥ 0, got -1"),
        ({"attack_trials": 0}, "attack_trials: must be a whole number ≥ 1"),
        ({"attack_trials": True}, "attack_trials: must be a whole number ≥ 1"),
        ({"attack_max_n": 1}, "attack_max_n: must be a whole number ≥ 2 (the attacker needs 2 records)"),
        ({"universe": (5, 1)}, "universe: the lower bound must be below the upper bound"),
        ({"ls_method": "fast"}, "ls_method: must be 'exact' or 'paper', got 'fast'"),
        ({"figure_query": "mode"}, "figure_query: unknown query 'mode'"),
        ({"queries": ["max"], "figure_query": "min"}, "figure_query: 'min' is not among the queries max"),
        ({"figure_epsilon": "x"}, "figure_epsilon: 'x' is not a number"),
        ({"epsilons": [0.5, 1], "figure_epsilon": 3}, "figure_epsilon: 3 is not among the epsilons 0.5,1"),
    ],
)
def test_bad_settings_name_the_parameter_never_an_option(kwargs, message):
    with pytest.raises(PrivriskError) as info:
        StudySettings(**kwargs)
    assert str(info.value).startswith(message)
    assert info.value.param == message.split(":")[0]
    assert "--" not in str(info.value)


def test_figure_choices_reads_a_logarithm():
    assert figure_choices(["mean"], [0.5, 1.0986122886681098], "mean", "ln3") == ("mean", 1.0986122886681098)


def test_read_variables(tmp_path):
    path = tmp_path / "s.csv"
    pd.DataFrame({"h": [1, 2, -1, 4], "c": [3, 3, 3, 3]}).to_csv(path, index=False)
    values, variables = read_variables(path, ["h"], labels={"h": "hours"}, missing="negative", universe_min=0)
    assert values["hours"].tolist() == [1.0, 2.0, 4.0]
    v = variables[0]
    assert (v["label"], v["column"], v["n"], v["dropped"]) == ("hours", "h", 3, 1)
    assert v["universe"] == "its 3 distinct valid values, minimum set to 0"
    _, bounded = read_variables(path, ["h"], universe=(0, 10))
    assert bounded[0]["universe"] == "the interval [0, 10]"
    with pytest.raises(PrivriskError, match="column 'c' holds one value only"):
        read_variables(path, ["c"])


# ------------------------------------------------------------------------------------------------- the page
def test_the_page_goes_through_the_skeleton_and_sanitises_its_figures(tmp_path):
    svg = tmp_path / "f.svg"
    svg.write_text(
        '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" '
        'onload="alert(1)"><script>alert(2)</script><rect id="r" width="1" height="1"/>'
        '<image href="https://example.org/x.png"/></svg>',
        encoding="utf-8",
    )
    results = sampling_study({"x": np.arange(30) % 7}, queries=["max", "min"], epsilons=[1.0],
                             proportions=[0.5, 1], repetitions=3)  # fmt: skip
    table = key_table(study_summary(results), 1.0)
    page = study_page(
        title="T <&>",
        intro="I",
        variables=[{"label": "x", "source": "s", "n": 30, "dropped": 0, "universe": "u"}],
        parameters={"epsilons": [1.0]},
        findings=findings(results, 1.0, "max"),
        table=table,
        epsilon=1.0,
        figures=[("Figure 1: <b>", svg)],
    )
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert "<title>T &lt;&amp;&gt;</title>" in page
    assert "<script" not in page and "onload" not in page and "example.org" not in page
    assert 'id="f1-r"' in page and "Figure 1: &lt;b&gt;" in page
    assert page.count("<table") == 2


def test_the_attack_section_holds_its_figure(tmp_path):
    svg = tmp_path / "a.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><rect id="r"/></svg>', encoding="utf-8")
    args = {"queries": ["max"], "epsilons": [1.0], "proportions": [0.5, 1.0], "repetitions": 2}
    values = {"x": np.arange(40.0) % 9}
    results = merge_attack(sampling_study(values, **args), study_attack(values, **args, trials=50))
    section = attack_section(attack_table(results, 1.0), 1.0, 50, figure=("Figure 3", svg))
    assert "<th>bound ρ_mw</th>" in section and 'id="f3-r"' in section
    assert section.index("</table>") < section.index("<figure")


# ------------------------------------------------------------------------------------------------- the folder
@pytest.mark.slow
def test_write_bundle_writes_the_folder_and_the_json_document(tmp_path):
    settings = StudySettings(queries=["max", "mean"], epsilons=[0.5, 1.0], proportions=[0.25, 1],
                             repetitions=3, attack=True, attack_trials=100, attack_max_n=30)  # fmt: skip
    values = {"x": np.arange(60.0) % 11}
    args = settings.sample_arguments()
    results = merge_attack(sampling_study(values, **args), study_attack(values, **args, trials=100, max_n=30))
    variables = [{"label": "x", "source": "made up", "n": 60, "dropped": 0, "universe": "its 11 values"}]
    bundle = write_bundle(tmp_path / "out", results, settings=settings, title="T", intro="I",
                          variables=variables, extra_parameters={"file": "f.csv"}, seconds=1.23456)  # fmt: skip
    doc = bundle.to_dict()
    assert list(doc) == ["kind", "title", "variables", "parameters", "rows", "seconds", "findings",
                         "key_figures", "attack", "files"]  # fmt: skip
    assert doc["seconds"] == 1.235 and doc["rows"] == len(results)
    assert doc["variables"][0]["sample_sizes"] == [15, 60] and "sample_sizes" not in variables[0]
    assert next(iter(doc["parameters"])) == "file" and doc["parameters"]["attack_max_n"] == 30
    assert doc["attack"]["samples_skipped"] == 3 and doc["attack"]["skipped_sizes"] == [60]
    assert any("more records than the attack's limit of 30" in s for s in doc["findings"])
    assert all("--" not in s for s in doc["findings"])
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["figures", "manifest.json", "report.html",
                                                     "results.parquet", "summary.csv"]  # fmt: skip
    assert len(doc["files"]["figures"]) == 6 and all(Path(f).exists() for f in doc["files"]["figures"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["findings"] == doc["findings"] and len(manifest["figures"]) == 3
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 3 and "<script" not in page and "<!-- figure -->" not in page
    with pytest.raises(PrivriskError, match="no attack columns"):
        write_bundle(tmp_path / "no", sampling_study(values, **args), settings=settings, title="T")
    assert not (tmp_path / "no").exists()


@pytest.mark.slow
def test_the_folder_is_the_same_run_to_run_and_its_log_axes_are_text(tmp_path):
    settings = StudySettings(
        queries=["max", "mean"], epsilons=[0.5, 1.0], proportions=[0.05, 1], repetitions=5
    )
    values = {"income": np.random.default_rng(3).lognormal(5.0, 0.8, 400)}  # every value distinct
    results = sampling_study(values, **settings.sample_arguments())
    for run in ("a", "b"):
        write_bundle(tmp_path / run, results, settings=settings, title="T")
    names = ["results.parquet", "summary.csv", "report.html"]
    names += [f"figures/{p.name}" for p in sorted((tmp_path / "a" / "figures").iterdir())]
    assert len(names) == 7
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    manifests = [json.loads((tmp_path / run / "manifest.json").read_text()) for run in ("a", "b")]
    assert [{k: v for k, v in m.items() if k != "created"} for m in manifests] == [
        {k: v for k, v in manifests[0].items() if k != "created"}
    ] * 2  # only the time it was written differs
    # results.parquet is what pandas writes for the frame (the same table, the same pandas metadata).
    assert pd.read_parquet(tmp_path / "a" / "results.parquet").equals(results)
    # ρ_mw spans decades (n = 20 to 400): its axis reads 10⁻ⁿ as text, without mathtext.
    svg = (tmp_path / "a" / "figures" / "figure1_risk_by_query.svg").read_text(encoding="utf-8")
    assert ">10⁻" in svg and "$" not in svg
