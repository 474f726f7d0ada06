"""The accounting's ways in have the one shape (issue 33): run.py names them, every run function takes progress,
every result has to_dict() with schema_version, sentence() with the verdict first and write(folder) whole or not
at all; the rules of the command line's options live in the settings."""

from __future__ import annotations

import json
import math
import warnings

import pytest

import privrisk.io.files as files
from one_shape import assert_written_whole_or_not_at_all
from privrisk.accounting import run as R
from privrisk.accounting.cellkey import perturbation_table
from privrisk.errors import PrivriskError
from privrisk.reports.manifest import read_manifest

HALF = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}}, name="half")


def _runs():
    return {
        "risk": lambda p=None: R.run_risk(R.RiskSettings(R.GuaranteeSpec(epsilon="ln3"), n=10, max_risk=0.2), progress=p),
        "epsilon": lambda p=None: R.run_epsilon(R.EpsilonSettings(risk=0.25, n=10), progress=p),
        "table": lambda p=None: R.run_table(R.TableSettings("ln3", "2,10"), progress=p),
        "calibrate": lambda p=None: R.run_calibration(R.CalibrationSettings(target="advantage", value=0.5), progress=p),
        "cell_key": lambda p=None: R.run_cell_key(R.CellKeySettings(HALF), progress=p),
    }  # fmt: skip


def test_run_names_the_same_objects_as_the_old_modules():
    from privrisk.accounting import calibration_settings, cellkey_run, risk_report

    assert R.run_risk is risk_report.run_risk and R.RiskRun is risk_report.RiskRun
    assert R.run_calibration is calibration_settings.run_calibration
    assert R.run_cell_key is cellkey_run.run_cell_key


@pytest.mark.parametrize("kind", list(_runs()))
def test_every_run_reports_progress_up_to_one(kind):
    seen: list[float] = []
    _runs()[kind](lambda done, message: seen.append(done))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


@pytest.mark.parametrize("kind", list(_runs()))
def test_every_result_writes_its_document_and_a_manifest(kind, tmp_path):
    run = _runs()[kind]()
    doc = run.to_dict()
    assert next(iter(doc)) == "schema_version" and doc["schema_version"] == 1
    paths = run.write(tmp_path / "out")
    assert [p.name for p in paths] == [f"{kind}.json", "manifest.json"]
    assert json.loads(paths[0].read_text(encoding="utf-8")) == json.loads(json.dumps(files.to_jsonable(doc)))
    manifest = read_manifest(tmp_path / "out")  # the reports' reader takes it
    assert manifest["kind"] == kind and manifest["findings"] == [run.sentence()]


@pytest.mark.parametrize("kind", list(_runs()))
def test_every_result_is_written_whole_or_not_at_all(kind, tmp_path, monkeypatch):
    assert_written_whole_or_not_at_all(_runs()[kind](), tmp_path / "out", monkeypatch, files, "write_json")


def test_the_risk_sentence_gives_the_verdict_first():
    # ρ_mw of ln 3 among 10 is 1/4 (Mehner et al., Table 1): above 0.2, within 0.3.
    assert _runs()["risk"]().sentence().startswith("Too risky: with ε = 1.099")
    within = R.run_risk(R.RiskSettings(R.GuaranteeSpec(epsilon="ln3"), n=10, max_risk=0.3))
    assert within.sentence().startswith("Within the limit:") and "25.0%" in within.sentence()


def test_names_of_run_risk_warn_and_give_the_same_result():
    settings = R.RiskSettings(R.GuaranteeSpec(mu=1.0), n=10)
    with pytest.warns(DeprecationWarning, match="names"):
        old = R.run_risk(settings, names={"mu": "--mu"})
    assert old.to_dict() == R.run_risk(settings).to_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R.run_risk(settings)


def test_an_error_of_run_risk_names_the_field():
    with pytest.raises(
        PrivriskError, match=r"^mu: give exactly one guarantee: epsilon \(with delta\)"
    ) as exc:
        R.run_risk(R.RiskSettings(R.GuaranteeSpec(rho=1.0, mu=1.0)))
    assert exc.value.param == "mu"


# ------------------------------------------------------------------------------- calibrate's rules, in the settings
def test_a_mapping_of_targets_takes_exactly_one():
    s = R.CalibrationSettings(target={"advantage": None, "success": 0.75, "tpr": None})
    assert (s.target, s.value) == ("success", 0.75)
    for given in ({"advantage": 0.2, "success": 0.6}, {"advantage": None}):
        with pytest.raises(PrivriskError, match="give exactly one of") as exc:
            R.CalibrationSettings(target=given)
        assert exc.value.param == "target"


def test_tpr_at_fpr_is_read_by_the_settings():
    s = R.CalibrationSettings(target="tpr", value="0.1@0.01")
    assert (s.value, s.fpr) == (0.1, 0.01)
    assert R.CalibrationSettings(target={"tpr": "0.2@0.05"}).fpr == 0.05
    with pytest.raises(PrivriskError, match="TPR@FPR") as exc:
        R.CalibrationSettings(target="tpr", value="abc@0.1")
    assert exc.value.param == "value"
    with pytest.raises(PrivriskError) as exc:  # no false-positive rate: it is not a number
        R.CalibrationSettings(target="tpr", value="0.1")
    assert exc.value.param == "fpr" and "nan" in str(exc.value)


def test_the_command_lines_names_name_the_target_given():
    from privrisk.cli.calibrate import option_names

    with pytest.raises(PrivriskError, match=r"^--target-tpr: give TPR@FPR such as 0\.1@0\.01"):
        R.CalibrationSettings(target={"tpr": "x@1"}, names=option_names())


# ----------------------------------------------------------------------------------- the guarantee's files
def test_an_opacus_history_file_is_read_by_the_library(tmp_path):
    path = tmp_path / "history.json"
    path.write_text('{"history": [[1.1, 0.01, 100]]}', encoding="utf-8")
    from privrisk.accounting.interop import from_opacus

    built = R.GuaranteeSpec(opacus_history=path).build()
    assert built.epsilon_at(1e-5) == from_opacus([(1.1, 0.01, 100)]).epsilon_at(1e-5)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [('{"x": 1}', "must hold a JSON list"), ("nope", "is not JSON"), (None, "cannot read")],
)
def test_a_bad_opacus_history_file_names_the_field(tmp_path, text, fragment):
    path = tmp_path / "history.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(PrivriskError, match=fragment) as exc:
        R.GuaranteeSpec(opacus_history=path).build()
    assert exc.value.param == "opacus_history" and str(exc.value).startswith("opacus_history: ")


def test_a_releases_file_is_read_by_the_library(tmp_path):
    path = tmp_path / "releases.toml"
    path.write_text("[[release]]\nepsilon = 0.5\ncount = 2\n", encoding="utf-8")
    assert math.isclose(R.GuaranteeSpec(releases=path).build().epsilon_at(0.0), 1.0)
    path.write_text("[[release]\n", encoding="utf-8")
    with pytest.raises(PrivriskError, match=r"^releases: .*not valid TOML") as exc:
        R.GuaranteeSpec(releases=path).build()
    assert exc.value.param == "releases"
