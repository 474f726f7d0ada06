"""Output checking in the one shape (issue 33): ``OutputsSettings`` → ``run_outputs`` → ``OutputsRun`` with
``to_dict``, ``sentence`` and ``write``; the names before it warn for one release and give the same result."""

from __future__ import annotations

import importlib
import json

import pandas as pd
import pytest
from tests.one_shape import assert_written_whole_or_not_at_all

import privrisk
from privrisk.io.files import to_jsonable
from privrisk.outputs import OutputSpec, OutputsRun, OutputsSettings, run_outputs
from privrisk.outputs import report as report_module
from privrisk.reports.manifest import read_manifest

FRAME = pd.DataFrame({"region": ["N"] * 12 + ["S"] * 3})
SPEC = (OutputSpec(name="T1", kind="count", rows=("region",)),)


def test_the_run_tells_its_progress_and_its_verdict_first():
    seen = []
    run = run_outputs(OutputsSettings(data=FRAME, spec=SPEC), progress=lambda done, message: seen.append(done))
    assert isinstance(run, OutputsRun) and run.status == "fail"
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    # S holds 3 people, under ACRO's threshold of 10: one cell fails the rules.
    assert run.sentence() == "May not be released as it is: 1 cell failing the rules."
    assert run.to_dict()["schema_version"] == 1


def test_write_gives_the_report_folder_with_its_manifest(tmp_path):
    run = run_outputs(OutputsSettings(data=FRAME, spec=SPEC))
    written = run.write(tmp_path / "check")
    assert {p.name for p in written} == {"report.html", "outputs.json", "atoms.csv", "table-T1.csv", "manifest.json"}
    manifest = read_manifest(tmp_path / "check")
    assert manifest["kind"] == "outputs" and manifest["summary"]["verdict"] == run.sentence()
    written_doc = json.loads((tmp_path / "check" / "outputs.json").read_text())
    assert written_doc == json.loads(json.dumps(to_jsonable(run.to_dict())))


def test_write_is_whole_or_nothing(tmp_path, monkeypatch):
    run = run_outputs(OutputsSettings(data=FRAME, spec=SPEC))
    assert_written_whole_or_not_at_all(run, tmp_path / "check", monkeypatch, report_module, "write_csv")


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("privrisk.outputs", "check_outputs", "run_outputs"),
        ("privrisk.outputs", "OutputsResult", "OutputsRun"),
        ("privrisk.outputs.check", "check_outputs", "run_outputs"),
        ("privrisk.outputs.check", "OutputsResult", "OutputsRun"),
        ("privrisk.outputs.check", "OutputsSettings", "OutputsSettings"),
        ("privrisk.outputs.check", "check_frame", "check_frame"),
        ("privrisk", "check_outputs", "run_outputs"),
        ("privrisk", "OutputsResult", "OutputsRun"),
    ],
)
def test_the_names_before_the_one_shape_warn_and_are_the_new_ones(module, old, new):
    home = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated"):
        found = getattr(home, old)
    assert found is getattr(privrisk.outputs.run, new)


def test_the_old_run_gives_the_same_document():
    with pytest.warns(DeprecationWarning):
        old = privrisk.outputs.check_outputs
    assert old(OutputsSettings(data=FRAME, spec=SPEC)).to_dict() == run_outputs(
        OutputsSettings(data=FRAME, spec=SPEC)
    ).to_dict()
