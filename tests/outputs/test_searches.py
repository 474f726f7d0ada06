"""The searches for points before the programmes (``extremes.SEARCHES_FROM``) change how long the differencing
takes, never what it finds: on small requests of counts, sums and means, the groups found are the same with the searches
as without, a count's interval the same, every sum finding's interval holds its exact one and meets it on a side
(the far side of a sum found on one side is an outer bound, not asked for exactly, so the findings listed for people,
which leave out a group whose interval repeats a part's, may differ) (the brute-force tests, e.g. ``test_intruder.py``, check
privrisk as shipped, which leaves them out on systems this small)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

import privrisk.outputs.extremes as extremes
from outputs_helpers import bench_outputs
from privrisk.outputs import parse_spec
from privrisk.outputs.atom_table import atom_cube
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import LINEAR, Differencing, difference
from privrisk.outputs.policy import Policy


def _difference(records: int, seed: int, first: int) -> Differencing:
    bench = bench_outputs()
    frame = bench.make_data(records, {"region": 2, "sex": 2, "ageband": 3, "edu": 2, "occ": 2}, seed=seed)
    specs = [s for s in parse_spec(bench.to_toml(bench.large_specs()[first::10])) if s.kind in LINEAR]
    policy = Policy()
    con = connect(frame)
    return difference(con, [(s, table_cells(con, s, policy)) for s in specs], policy)


def _exact_sum_intervals(diff: Differencing) -> dict[int, tuple[float, float]]:
    """Each sum finding's exact interval: scipy's linear programmes over the whole released system."""
    cube = atom_cube(diff.atoms, diff.variables, diff.conditions)
    system = diff.systems["income"]
    keep = np.isfinite(system.b)
    bounds = list(zip(system.lower, [hi if np.isfinite(hi) else None for hi in system.upper], strict=True))
    out = {}
    for f in diff.findings:
        if f["type"] != "sum":
            continue
        c = np.zeros(system.a.shape[1])
        c[cube.members(np.array([f["group"]])).indices + system.offsets["income"]] = 1.0
        least, most = (linprog(s * c, A_eq=system.a[keep], b_eq=system.b[keep], bounds=bounds, method="highs")
                       for s in (1, -1))  # fmt: skip
        assert least.status == 0 and most.status == 0
        out[f["group"]] = (least.fun * system.scales["income"], -most.fun * system.scales["income"])
    return out


@pytest.mark.slow  # four differencings of 20 outputs
@pytest.mark.parametrize("records, seed, first", [(150, 1, 2), (300, 2, 7)])
def test_the_searches_change_nothing_found(monkeypatch: pytest.MonkeyPatch, records: int, seed: int,
                                           first: int) -> None:  # fmt: skip
    monkeypatch.setattr(extremes, "SEARCHES_FROM", 0)
    searched = _difference(records, seed, first)
    monkeypatch.setattr(extremes, "SEARCHES_FROM", 10**12)
    direct = _difference(records, seed, first)
    assert any(f["type"] == "sum" for f in direct.findings), "the request must have sum findings"
    assert direct.undecided == searched.undecided == 0
    key = lambda f: (f["type"], f.get("magnitude"), f["group"])  # noqa: E731
    assert sorted(map(key, direct.findings)) == sorted(map(key, searched.findings))
    exact = _exact_sum_intervals(direct)
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
