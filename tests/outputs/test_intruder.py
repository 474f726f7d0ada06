"""privrisk's differencing against an independent brute-force intruder (tests/outputs/intruder_bruteforce.py) on
random small requests: every group the intruder pins below the threshold is reported, with the same interval,
nothing it leaves open is reported, and the zeros found by differencing agree; adding a passing output never
removes a finding."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import Differencing, difference
from privrisk.outputs.policy import Policy
from privrisk.outputs.rules import cell_rules
from privrisk.outputs.spec import OutputSpec

# The intruder lives beside this file (tests/ is on the path, this folder is not).
sys.path.insert(0, str(Path(__file__).parent))
from intruder_bruteforce import Condition, Intruder, Table, intruder, members_of

CONDITIONS = [
    Condition("age >= 1", lambda p: p["age"] >= 1),
    Condition("age >= 2", lambda p: p["age"] >= 2),
    Condition("age = 1", lambda p: p["age"] == 1),
    Condition("region = 'A'", lambda p: p["region"] == "A"),
    Condition("sex <> 'f'", lambda p: p["sex"] != "f"),
    Condition("age >= 1 AND region = 'B'", lambda p: p["age"] >= 1 and p["region"] == "B"),
    Condition("age = 0 OR sex = 'f'", lambda p: p["age"] == 0 or p["sex"] == "f"),
]
VARIABLES = ("region", "sex", "age")


@st.composite
def tables(draw: st.DrawFn, name: str) -> Table:
    grouping = draw(st.lists(st.sampled_from(VARIABLES), max_size=2, unique=True))
    split = draw(st.integers(0, len(grouping)))
    where = draw(st.none() | st.sampled_from(CONDITIONS))
    margins = bool(grouping) and draw(st.booleans())
    return Table(name, tuple(grouping[:split]) or tuple(grouping), tuple(grouping[split:]) if split else (), where,
                 margins)  # fmt: skip


@st.composite
def requests(draw: st.DrawFn) -> tuple[pd.DataFrame, list[Table], int]:
    n = draw(st.integers(2, 6))
    rows = [
        (draw(st.sampled_from("AB")), draw(st.sampled_from("fm")), draw(st.integers(0, 2))) for _ in range(n)
    ]
    frame = pd.DataFrame(rows, columns=list(VARIABLES))
    k = draw(st.integers(1, 3))
    return frame, [draw(tables(f"T{i + 1}")) for i in range(k)], draw(st.sampled_from([2, 3, 4]))


def spec_of(t: Table) -> OutputSpec:
    return OutputSpec(name=t.name, kind="count", rows=t.rows, columns=t.columns,
                      where=t.where.sql if t.where else None, margins=t.margins)  # fmt: skip


def audit(frame: pd.DataFrame, tabs: list[Table], threshold: int) -> Differencing:
    policy = Policy(safe_threshold=threshold)
    con = connect(frame)
    return difference(con, [(spec_of(t), table_cells(con, spec_of(t), policy)) for t in tabs], policy)


def found(diff: Differencing, brute: Intruder) -> tuple[dict[Any, tuple[float, float]], set[Any]]:
    """privrisk's count findings (by the brute force's class sets) and its attribute findings."""
    counts: dict[Any, tuple[float, float]] = {}
    attributes: set[Any] = set()
    levels = {v: list(diff.atoms.attrs["levels"][v]) for v in diff.variables}
    dims = (*diff.variables, *diff.conditions)
    for f in diff.findings:
        members = members_of(brute, f["labels"])
        if f["type"] == "count":
            counts[members] = (f["lo"], f["hi"])
        elif f["type"] == "attribute":
            dim = dims[f["axis"]]
            value = levels[dim][f["value"]] if dim in levels else bool(f["value"])
            attributes.add((members, dim, value))
    return counts, attributes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_every_group_the_brute_force_pins_is_reported_and_nothing_else(
    request: tuple[pd.DataFrame, list[Table], int],
) -> None:
    frame, tabs, threshold = request
    brute = intruder(frame, tabs, threshold)
    diff = audit(frame, tabs, threshold)
    assert diff.undecided == 0
    assert not [a for a in diff.assumed if a["kind"] in ("dependency", "observed")]
    counts, attributes = found(diff, brute)
    assert counts == brute.counts
    assert attributes == brute.attributes


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(), tables("Extra"))
def test_adding_a_passing_output_never_removes_a_finding(
    request: tuple[pd.DataFrame, list[Table], int], extra: Table
) -> None:
    frame, tabs, threshold = request
    policy = Policy(safe_threshold=threshold)
    con = connect(frame)
    cells = table_cells(con, spec_of(extra), policy)
    rules = cell_rules(spec_of(extra), cells, policy)
    if any(r["status"] != "pass" for broken in rules for r in broken):
        return
    before = audit(frame, tabs, threshold)
    after = audit(frame, [*tabs, extra], threshold)
    # Groups compared by the points of the domain they hold (the finer request's brute force names them).
    brute = intruder(frame, [*tabs, extra], threshold)
    assert set(found(before, brute)[0]) <= set(found(after, brute)[0])
