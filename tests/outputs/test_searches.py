"""The searches for points before the programmes (``extremes.SEARCHES_FROM``) change how long the differencing
takes, never what it finds. On small requests of counts, sums and means, with the searches and without: the same
groups found, each count's interval the same, and every sum finding's interval holds its exact one (scipy's linear
programmes, no privrisk solver) and meets it on one side. The far side of a sum found on one side is an outer
bound, not asked for exactly, so the findings listed for people (which leave out a group whose interval repeats a
part's) may differ. The brute-force tests (``test_intruder.py`` and others) check privrisk as shipped, which
leaves the searches out on systems this small."""

from __future__ import annotations

import pytest

import privrisk.outputs.extremes as extremes
from outputs_helpers import exact_sum_intervals, small_survey_differencing


@pytest.mark.slow  # four differencings of 20 outputs
@pytest.mark.parametrize("records, seed, first", [(150, 1, 2), (300, 2, 7)])
def test_the_searches_change_nothing_found(monkeypatch: pytest.MonkeyPatch, records: int, seed: int,
                                           first: int) -> None:  # fmt: skip
    monkeypatch.setattr(extremes, "SEARCHES_FROM", 0)
    searched = small_survey_differencing(records, first, seed)
    monkeypatch.setattr(extremes, "SEARCHES_FROM", 10**12)
    direct = small_survey_differencing(records, first, seed)
    assert any(f["type"] == "sum" for f in direct.findings), "the request must have sum findings"
    assert direct.undecided == searched.undecided == 0
    key = lambda f: (f["type"], f.get("magnitude"), f["group"])  # noqa: E731
    assert sorted(map(key, direct.findings)) == sorted(map(key, searched.findings))
    exact = exact_sum_intervals(direct)
    for diff in (direct, searched):
        for f in diff.findings:
            if f["type"] == "sum":
                # The disclosing end is exact; the other may be an outer bound (not asked for once far enough).
                lo, hi = exact[f["group"]]
                tol = 1e-6 * max(1.0, abs(f["total"]))
                assert f["lo"] <= lo + tol and hi - tol <= f["hi"], (f["group"], f["lo"], f["hi"], lo, hi)
                assert abs(f["lo"] - lo) <= tol or abs(f["hi"] - hi) <= tol, (f["group"], f["lo"], f["hi"], lo, hi)
    counts = {key(f): (f["lo"], f["hi"]) for f in direct.findings if f["type"] != "sum"}
    assert counts == {key(f): (f["lo"], f["hi"]) for f in searched.findings if f["type"] != "sum"}
