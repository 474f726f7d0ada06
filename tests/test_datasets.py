"""The synthetic files of examples/ are exactly what ``privrisk.datasets.examples`` writes, and what they claim.

A reader regenerates them with ``python -m privrisk.datasets.examples examples/``; the guide describes their
columns and codes (tests/test_examples.py runs the examples that read them).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from privrisk.datasets.examples import EXAMPLE_FILES, shops_like, survey_like, wages_like, write_example_files

EXAMPLES = Path(__file__).parents[1] / "examples"


def _read(path: Path) -> pd.DataFrame:
    return pd.read_stata(path) if path.suffix == ".dta" else pd.read_csv(path)


@pytest.mark.parametrize("name", list(EXAMPLE_FILES))
def test_the_shipped_file_is_what_the_generator_writes(name, tmp_path):
    written = {p.name: p for p in write_example_files(tmp_path)}
    shipped, fresh = _read(EXAMPLES / name), _read(written[name])
    pd.testing.assert_frame_equal(shipped, fresh, check_dtype=False)
    if name.endswith(
        ".csv"
    ):  # a Stata file's bytes depend on pandas' writer; its contents are compared above
        assert (EXAMPLES / name).read_bytes() == written[name].read_bytes()


def test_the_survey_is_what_the_guide_says():
    survey = survey_like()
    assert list(survey.columns) == ["pid", "region", "age", "sex", "hours", "income"]
    assert len(survey) == 1000 and survey["pid"].is_unique
    assert survey["hours"].between(0, 80).all() and (survey["income"] >= 0).all()
    coded = survey_like(missing_codes=True)
    assert set(coded["hours"][coded["hours"] < 0]) == {-1, -2} and set(
        coded["income"][coded["income"] < 0]
    ) == {-1}
    # The codes replace answers and nothing else: every other cell is the CSV's.
    kept = coded["hours"] >= 0
    assert (coded.loc[kept, "hours"] == survey.loc[kept, "hours"]).all()
    # −2 (does not apply): only the retired who do not work.
    not_applicable = coded["hours"] == -2
    assert (survey.loc[not_applicable, "age"] == "65+").all() and (
        survey.loc[not_applicable, "hours"] == 0
    ).all()


def test_the_panels_are_what_the_guide_says():
    shops, wages = shops_like(), wages_like()
    assert shops["shop"].nunique() == 60 and shops["month"].nunique() == 60
    assert (shops["failed"] <= shops["inspected"]).all() and (shops["inspected"] >= 1).all()
    assert not shops.duplicated(["month", "shop"]).any()
    assert wages.shape == (80 * 48, 3) and wages["pid"].nunique() == 80 and wages["quarter"].nunique() == 48
