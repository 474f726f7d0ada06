"""A remedy's audit examines only the groups the request's own differencing found, left open or released.

A release with cells hidden tells less than the release as requested: every solution of the request's system
solves the remedy's, so each group's interval can only widen, and a group the request's differencing examined and
found wide enough cannot be a finding of the remedy. The audit of a remedy that only hides cells therefore
examines the request's findings, its open groups and its released cells (which the primary rules judged there
and a suppression may hide). These tests compare such audits with audits that examine every group, on random
releases, and check that a coarser table (a new output) or other atoms turn the shortcut off.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privrisk.outputs.differencing as differencing_module
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import difference
from privrisk.outputs.policy import Policy
from privrisk.outputs.release_audit import Change, audit_release, finding_key
from privrisk.outputs.spec import OutputSpec

SPECS = [
    OutputSpec(name="RS", kind="count", rows=("region",), columns=("sex",), margins=True),
    OutputSpec(name="RA", kind="count", rows=("region",), columns=("band",)),
    OutputSpec(name="Old", kind="count", rows=("sex",), where="age >= 40"),
    OutputSpec(name="Sum", kind="sum", variable="income", rows=("region",), where="age >= 40"),
    OutputSpec(name="Mean", kind="mean", variable="income", rows=("sex",)),
]


def _frame(counts: list[int], seed: int) -> pd.DataFrame:
    """People in region × sex × band cells (``counts`` in that order), ages in their band, incomes at random."""
    rng = np.random.default_rng(seed)
    rows = []
    cells = [(r, s, b) for r in "ABC" for s in "fm" for b in ("young", "old")]
    for (r, s, b), k in zip(cells, counts, strict=True):
        for _ in range(k):
            age = int(rng.integers(18, 40)) if b == "young" else int(rng.integers(40, 90))
            rows.append((r, s, b, age, float(rng.uniform(100, 900))))
    return pd.DataFrame(rows, columns=["region", "sex", "band", "age", "income"])


def _release(frame: pd.DataFrame) -> tuple[Any, list[tuple[OutputSpec, pd.DataFrame]], Policy]:
    policy = Policy(safe_threshold=4)
    con = connect(frame)
    return con, [(s, table_cells(con, s, policy)) for s in SPECS], policy


def _keys(audit: Any) -> set[tuple[Any, ...]]:
    return {finding_key(d) for d in audit.disclosures}


@pytest.mark.slow  # two audits of every example
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(st.integers(0, 7), min_size=12, max_size=12),
    output=st.integers(0, len(SPECS) - 1),
    hide=st.lists(st.integers(0, 30), min_size=1, max_size=4),
    withhold=st.booleans(),
    seed=st.integers(0, 3),
)
def test_an_audit_within_the_request_finds_what_an_audit_of_every_group_finds(
    counts: list[int], output: int, hide: list[int], withhold: bool, seed: int
) -> None:
    frame = _frame(counts, seed)
    if frame.empty:
        return
    con, linear, policy = _release(frame)
    base = difference(con, linear, policy)
    spec, cells = linear[output]
    if not len(cells):
        return
    hidden = tuple(sorted({i % len(cells) for i in hide}))
    change = Change("withhold") if withhold else Change("suppress", hidden)
    changes = {spec.name: change}
    every = audit_release(con, linear, changes, {}, policy)
    within = audit_release(con, linear, changes, {}, policy, within=base)
    assert _keys(within) == _keys(every)
    assert within.complete >= every.complete


def test_a_cell_the_request_released_and_the_remedy_hides_is_still_examined() -> None:
    # Region × sex with its margins; the cell (A, f) holds 2 people. Suppressed alone, the margins give it back:
    # the remedy's finding is a group the request released (and left to the primary rules), not one it found.
    counts = [1, 1, 5, 5, 6, 6, 5, 5, 6, 6, 5, 5]
    frame = _frame(counts, 0)
    con, linear, policy = _release(frame)
    base = difference(con, linear, policy)
    cells = linear[0][1]
    position = int(np.flatnonzero((cells["region"] == "A").to_numpy() & (cells["sex"] == "f").to_numpy())[0])
    assert cells["value"].iloc[position] == 2
    changes = {"RS": Change("suppress", (position,))}
    every = audit_release(con, linear, changes, {}, policy)
    within = audit_release(con, linear, changes, {}, policy, within=base)
    pinned = {"region": "A", "sex": "f"}
    assert any(
        d["kind"] == "exact" and {k: str(v) for k, v in (d.get("labels") or {}).items()} == pinned
        for d in within.disclosures
    ), within.disclosures
    assert _keys(within) == _keys(every)


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    real = differencing_module.group_findings

    def spy(*args: Any) -> Any:
        seen.append(args[10])
        return real(*args)

    monkeypatch.setattr(differencing_module, "group_findings", spy)
    return seen


def test_only_changes_that_hide_cells_narrow_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame([3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 1, 2], 1)
    con, linear, policy = _release(frame)
    base = difference(con, linear, policy)
    assert base.may_find is not None and base.may_find
    seen = _calls(monkeypatch)
    audit_release(con, linear, {"RS": Change("suppress", (0,))}, {}, policy, within=base)
    audit_release(con, linear, {"Mean": Change("withhold")}, {}, policy, within=base)
    audit_release(con, linear, {"RS": Change("coarsen", drop="sex")}, {}, policy, within=base)
    assert [w is not None for w in seen] == [True, True, False]


def test_a_differencing_of_other_atoms_does_not_narrow_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    con, linear, policy = _release(_frame([3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 1, 2], 1))
    con2, linear2, _ = _release(_frame([3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 1, 3], 1))
    other = difference(con2, linear2, policy)
    seen = _calls(monkeypatch)
    audit_release(con, linear, {"RS": Change("suppress", (0,))}, {}, policy, within=other)
    assert seen == [None]


def test_a_narrowed_differencing_offers_no_narrowing_of_its_own() -> None:
    con, linear, policy = _release(_frame([3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 1, 2], 1))
    base = difference(con, linear, policy)
    assert difference(con, linear, policy, within=base).may_find is None


def test_the_system_alone_is_the_system_of_the_whole_differencing() -> None:
    con, linear, policy = _release(_frame([3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 1, 2], 2))
    whole = difference(con, linear, policy)
    alone = difference(con, linear, policy, findings=False)
    assert alone.findings == [] and alone.disclosures == [] and alone.undecided == 0
    for key, system in whole.systems.items():
        other = alone.systems[key]
        assert (system.a != other.a).nnz == 0
        np.testing.assert_array_equal(system.b, other.b)
        np.testing.assert_array_equal(system.lower, other.lower)
        np.testing.assert_array_equal(system.upper, other.upper)
    assert whole.cell_rows.keys() == alone.cell_rows.keys()
    for name, (kind, rows) in whole.cell_rows.items():
        assert alone.cell_rows[name][0] == kind
        np.testing.assert_array_equal(alone.cell_rows[name][1], rows)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=st.lists(st.integers(0, 7), min_size=12, max_size=12), seed=st.integers(0, 3))
def test_findings_without_the_atoms_intervals_are_the_findings_with_them(counts: list[int], seed: int) -> None:
    # What an audit of a remedy reads (its disclosures, findings and undecided groups) must not rest on the
    # atoms' intervals it no longer computes.
    frame = _frame(counts, seed)
    if frame.empty:
        return
    con, linear, policy = _release(frame)
    whole = difference(con, linear, policy)
    lean = difference(con, linear, policy, atom_intervals=False)
    assert "lo" in whole.atoms and "lo" not in lean.atoms
    assert {finding_key(d) for d in lean.disclosures} == {finding_key(d) for d in whole.disclosures}
    assert lean.disclosures == whole.disclosures
    assert lean.undecided == whole.undecided
