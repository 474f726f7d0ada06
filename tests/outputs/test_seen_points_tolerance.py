"""A sum the released numbers determine is found even where points seen on the way stray by the solver's tolerance.

Points with real unknowns (sums) come from small linear programmes and hold the released equations only to a
tolerance. On the large request's shape with 300 records, such points moved the income sum of a group of 8 people
(region 0, age band 2, aged 65 or more) by about 2 units either way, twice the tolerance that calls a sum
determined, and the group was not examined further: a sum every solution fixes went unreported (found on
2026-11-30 by comparing an audit narrowed to the request's groups with one of every group). Here scipy's own
linear programme over the released system (no privrisk code) proves the sum determined, and the differencing must
report it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from outputs_helpers import bench_outputs
from privrisk.outputs import parse_spec
from privrisk.outputs.atom_table import atom_cube
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import LINEAR, difference
from privrisk.outputs.policy import Policy
from privrisk.outputs.release_audit import Change, _released


@pytest.mark.slow  # one differencing of 20 outputs
def test_a_determined_sum_is_found_though_points_seen_stray_by_the_tolerance() -> None:
    bench = bench_outputs()
    frame = bench.make_data(300, {"region": 2, "sex": 2, "ageband": 3, "edu": 2, "occ": 2})
    specs = [s for s in parse_spec(bench.to_toml(bench.large_specs()[::10])) if s.kind in LINEAR]
    policy = Policy()
    con = connect(frame)
    linear = [(s, table_cells(con, s, policy)) for s in specs]
    released = _released(con, linear, {"Count 91": Change("withhold")}, policy, None, {})
    diff = difference(con, released, policy)
    cube = atom_cube(diff.atoms, diff.variables, diff.conditions)
    system = diff.systems["income"]
    labels = {"region": 0, "ageband": 2}
    atoms = diff.atoms
    mask = np.ones(len(atoms), dtype=bool)
    for v, code in labels.items():
        mask &= atoms[v].to_numpy() == atoms.attrs["levels"][v][code]
    flag = f"__f{diff.conditions.index('age >= 65')}"
    mask &= atoms[flag].to_numpy().astype(bool)
    members = np.flatnonzero(mask)
    assert atoms["n"].to_numpy()[members].sum() == 8
    # The brute force: scipy's linear programme over the released system, both ends of the group's sum.
    c = np.zeros(system.a.shape[1])
    c[members + system.offsets["income"]] = 1.0
    keep = np.isfinite(system.b)
    bounds = [
        (lo, None if not np.isfinite(hi) else hi) for lo, hi in zip(system.lower, system.upper, strict=True)
    ]
    ends = [
        linprog(s * c, A_eq=system.a[keep], b_eq=system.b[keep], bounds=bounds, method="highs")
        for s in (1, -1)
    ]
    scale = system.scales["income"]
    lo, hi = ends[0].fun * scale, -ends[1].fun * scale
    assert hi - lo < 1e-6 * max(1.0, abs(hi))  # determined
    found = [
        f
        for f in diff.findings
        if f["type"] == "sum" and set(cube.members(np.array([f["group"]])).indices) == set(members)
    ]
    assert found and found[0]["exact"], "a sum of 8 people every solution fixes must be a finding"


def _ends(base: np.ndarray):
    from privrisk.outputs.extremes import Ends

    k = base.size
    return Ends(np.full(k, -np.inf), np.full(k, np.inf), np.zeros(k, bool), np.zeros(k, bool), base.copy(),
                base.copy(), np.zeros(k, bool), np.zeros(k, bool), np.zeros(k, bool))  # fmt: skip


def _region(integer: bool):
    from types import SimpleNamespace

    import scipy.sparse as sp

    # x0 + x1 = 1 and x2 alone; the truth (0.5, 0.5, 2)
    released = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    return SimpleNamespace(released=released, released_csc=released.tocsc(), known=np.array([0.5, 0.5, 2.0]),
                           lo=np.zeros(3), hi=np.full(3, np.inf), integer=np.full(3, integer))  # fmt: skip


def test_a_real_point_counts_only_beyond_its_own_error() -> None:
    """A point that meets every equation exactly moves a real total as far as it reaches; one that misses an
    equation by δ moves it only beyond POINT_SLACK × δ (hand-worked: x0 + x1 = 1, the total is x0)."""
    import scipy.sparse as sp

    from privrisk.outputs.extremes import POINT_SLACK, _moved

    region = _region(integer=False)
    g = sp.csr_matrix(np.array([[1.0, 0.0, 0.0]]))
    base = g @ region.known
    exact = sp.csr_matrix(np.array([[0.3, -0.3, 0.0]]))  # (0.8, 0.2, 2): a solution
    ends = _ends(base)
    _moved(region, exact, g, base, ends)
    assert ends.seen_hi[0] == pytest.approx(0.8, abs=1e-9) and ends.seen_lo[0] == 0.5
    stray = sp.csr_matrix(np.array([[3e-8, 0.0, 0.0]]))  # misses x0 + x1 = 1 by 3·10⁻⁸ and moves x0 by as much
    ends = _ends(base)
    _moved(region, stray, g, base, ends)
    assert ends.seen_hi[0] == 0.5 and ends.seen_lo[0] == 0.5
    # a move larger than its slack counts, less the slack
    far = sp.csr_matrix(np.array([[0.4 + 1e-8, -0.4, 0.0]]))
    ends = _ends(base)
    _moved(region, far, g, base, ends)
    assert ends.seen_hi[0] == pytest.approx(0.9 + 1e-8 - POINT_SLACK * 1e-8, abs=1e-12)


def test_whole_points_count_as_they_are() -> None:
    """Where every unknown is whole the points meet the equations exactly: no slack (x0 from 0.5 to 1, exactly)."""
    import scipy.sparse as sp

    from privrisk.outputs.extremes import _moved

    region = _region(integer=True)
    g = sp.csr_matrix(np.array([[1.0, 0.0, 0.0]]))
    base = g @ region.known
    ends = _ends(base)
    _moved(region, sp.csr_matrix(np.array([[0.5, -0.5, 0.0]])), g, base, ends)
    assert ends.seen_hi[0] == 1.0


def test_points_together_count_as_each_alone() -> None:
    """Several points at once (the equations read by a product, not column by column): the exact one reaches 0.8,
    the stray one nothing, as when each is read alone."""
    import scipy.sparse as sp

    from privrisk.outputs.extremes import _moved

    region = _region(integer=False)
    g = sp.csr_matrix(np.array([[1.0, 0.0, 0.0]]))
    base = g @ region.known
    ends = _ends(base)
    _moved(region, sp.csr_matrix(np.array([[0.3, -0.3, 0.0], [3e-8, 0.0, 0.0]])), g, base, ends)
    assert ends.seen_hi[0] == pytest.approx(0.8, abs=1e-9) and ends.seen_lo[0] == 0.5
