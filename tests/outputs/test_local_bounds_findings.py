"""Sum findings decided by the outer bounds of the equations around a group (issue 36): the same groups are found
as when every end is left to the programmes over whole blocks, and each interval reported holds the group's exact
interval, scipy's linear programme over the whole released system (no privrisk code)."""

from __future__ import annotations

import pytest

import privrisk.outputs.extremes as extremes
from outputs_helpers import exact_sum_intervals, small_survey_differencing

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")


@pytest.mark.slow  # four differencings of 20 outputs
@pytest.mark.parametrize("records, tables", [(300, 0), (600, 3)])
def test_sum_findings_with_local_bounds_are_those_without_and_hold_the_exact_interval(
    monkeypatch: pytest.MonkeyPatch, records: int, tables: int
) -> None:
    monkeypatch.setattr(extremes, "LOCAL_BOUNDS", False)
    before = small_survey_differencing(records, tables)
    monkeypatch.setattr(extremes, "LOCAL_BOUNDS", True)
    diff = small_survey_differencing(records, tables)
    sums = [f for f in diff.findings if f["type"] == "sum"]
    assert sums, "the request must have sum findings for this test to mean anything"
    assert diff.undecided == before.undecided == 0
    groups = {(f["type"], f["group"]) for f in diff.findings}
    assert groups == {(f["type"], f["group"]) for f in before.findings}
    exact = exact_sum_intervals(diff)
    for f in sums:
        lo, hi = exact[f["group"]]
        tol = 1e-6 * max(1.0, abs(f["total"]))
        assert f["lo"] <= lo + tol and hi - tol <= f["hi"], (f["group"], f["lo"], f["hi"], lo, hi)
