"""``privrisk derived`` in the one shape (issue 33): DerivedRun with to_dict, sentence, write(folder);
``DerivedScale`` is its deprecated alias."""

from __future__ import annotations

import json
import warnings

import pytest

from privrisk.audit import derived as D
from privrisk.reports.manifest import read_manifest


def test_derived_scale_is_a_deprecated_alias_of_derived_run():
    with pytest.warns(DeprecationWarning, match="DerivedScale is deprecated .* use DerivedRun"):
        old = D.DerivedScale
    assert old is D.DerivedRun
    assert isinstance(D.derived_scale(list(range(1, 11)), 2), old)


def test_derived_run_writes_its_folder(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        run = D.run_derived(D.DerivedSettings(values="101..110", epsilon=2), progress=lambda d, m: None)
    written = run.write(tmp_path / "d")
    assert [p.name for p in written] == ["derived.csv", "derived.json", "manifest.json"]
    doc = json.loads((tmp_path / "d" / "derived.json").read_text(encoding="utf-8"))
    # Table 4 of Sarathy and Muralidhar (2009): X = 101…110, ε = 2 → effective ε of the sum 44
    assert doc["effective_epsilon"] == 44.0 and doc["source"] == "101..110"
    manifest = read_manifest(tmp_path / "d")
    assert manifest["kind"] == "derived" and manifest["findings"][-1] == run.sentence()
    header = (tmp_path / "d" / "derived.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",")[1:] == ["sum", "mean"]


def test_sentences_are_the_ranges_the_variances_and_the_verdict():
    run = D.derived_scale(list(range(101, 111)), 2)
    assert run.sentences() == [run.range_sentence(), run.variance_sentence(), run.sentence()]
    # half-width b·ln(1/(2α)) with b = 55, α = 10⁻⁴: 55·ln 5000 = 468.45
    assert "±468.45 asking for the sum directly" in run.range_sentence()
