"""Sum findings decided by the outer bounds of the equations around a group (issue 36): the same groups are found
as when every end is left to the programmes over whole blocks, and each interval reported holds the group's exact
interval, scipy's linear programme over the whole released system (no privrisk code)."""

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

# The searches for points are tested on small systems (privrisk leaves them out below extremes.SEARCHES_FROM).
pytestmark = pytest.mark.usefixtures("searches_at_any_size")


def _difference(records: int, seed_tables: int) -> Differencing:
    bench = bench_outputs()
    frame = bench.make_data(records, {"region": 2, "sex": 2, "ageband": 3, "edu": 2, "occ": 2})
    specs = [s for s in parse_spec(bench.to_toml(bench.large_specs()[seed_tables::10])) if s.kind in LINEAR]
    policy = Policy()
    con = connect(frame)
    return difference(con, [(s, table_cells(con, s, policy)) for s in specs], policy)


@pytest.mark.slow  # four differencings of 20 outputs
@pytest.mark.parametrize("records, tables", [(300, 0), (600, 3)])
def test_sum_findings_with_local_bounds_are_those_without_and_hold_the_exact_interval(
    monkeypatch: pytest.MonkeyPatch, records: int, tables: int
) -> None:
    monkeypatch.setattr(extremes, "LOCAL_BOUNDS", False)
    before = _difference(records, tables)
    monkeypatch.setattr(extremes, "LOCAL_BOUNDS", True)
    diff = _difference(records, tables)
    sums = [f for f in diff.findings if f["type"] == "sum"]
    assert sums, "the request must have sum findings for this test to mean anything"
    assert diff.undecided == before.undecided == 0
    groups = {(f["type"], f["group"]) for f in diff.findings}
    assert groups == {(f["type"], f["group"]) for f in before.findings}
    cube = atom_cube(diff.atoms, diff.variables, diff.conditions)
    system = diff.systems["income"]
    keep = np.isfinite(system.b)
    uppers = [hi if np.isfinite(hi) else None for hi in system.upper]
    bounds = list(zip(system.lower, uppers, strict=True))
    scale = system.scales["income"]
    for f in sums:
        members = cube.members(np.array([f["group"]])).indices
        c = np.zeros(system.a.shape[1])
        c[members + system.offsets["income"]] = 1.0
        least, most = (linprog(s * c, A_eq=system.a[keep], b_eq=system.b[keep], bounds=bounds, method="highs")
                       for s in (1, -1))  # fmt: skip
        assert least.status == 0 and most.status == 0
        lo, hi = least.fun * scale, -most.fun * scale
        tol = 1e-6 * max(1.0, abs(f["total"]))
        assert f["lo"] <= lo + tol and hi - tol <= f["hi"], (f["group"], f["lo"], f["hi"], lo, hi)
