"""The plan, all its suggestions applied together, against a brute-force intruder of the test's own (issue 31 item 5).

Random small requests of count tables over region, sex and conditions on age. When privrisk confirms its plan,
the test applies every suggestion of the plan at once (it computes coarser tables from the data itself), and
enumerates every whole number of people of each kind (region × sex × age) that fits every number that would
leave: no failing cell may then take a single value, and no kind of person holding 1 … threshold − 1 people may
be pinned down.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from outputs_helpers import whole_solutions
from privrisk.outputs.policy import Policy
from privrisk.outputs.run import check_frame
from privrisk.outputs.spec import OutputSpec

AGES = (17, 18, 19)
KINDS = [(r, s, a) for r in "AB" for s in "fm" for a in AGES]
CONDITIONS = {"age >= 18": lambda a: a >= 18, "age >= 19": lambda a: a >= 19}
POOL = [
    OutputSpec(name="T1", kind="count", rows=("region",), columns=("sex",), where="age >= 18", margins=True),
    OutputSpec(name="T2", kind="count", rows=("region",), columns=("sex",), where="age >= 19"),
    OutputSpec(name="T3", kind="count", rows=("region",), margins=True),
    OutputSpec(name="T4", kind="count", rows=("sex",), where="age >= 18"),
    OutputSpec(name="T5", kind="count", where="age >= 19"),
]
THRESHOLD = 3


def _members(spec: OutputSpec, labels: dict[str, Any], variables: tuple[str, ...]) -> list[int]:
    """The kinds of person a cell counts (a margin's label matches any level)."""
    index = {"region": 0, "sex": 1}
    out = []
    for k, (r, s, a) in enumerate(KINDS):
        person = (r, s)
        if spec.where and not CONDITIONS[spec.where](a):
            continue
        if all(str(labels[v]) in (person[index[v]], "All", "All (total)") for v in variables):
            out.append(k)
    return out


def _released(result: Any, frame: pd.DataFrame, specs: list[OutputSpec]) -> list[tuple[list[int], int]]:
    """The numbers that leave with the plan applied: (the kinds a number counts, the number)."""
    plan = {r["output"]: r for r in result.recommendations if r.get("plan") and r.get("output")}
    withheld = {n for r in result.recommendations if r.get("plan") for n in r.get("outputs", ())}
    numbers: list[tuple[list[int], int]] = []
    for spec, out in zip(specs, result.outputs, strict=True):
        rec = plan.get(spec.name)
        action = rec["action"] if rec else None
        if spec.name in withheld or action in ("withhold", "noise"):
            continue
        if action == "coarsen":
            keep = tuple(v for v in spec.variables if v != rec["variable"])
            rows = frame if not spec.where else frame[frame["age"].map(CONDITIONS[spec.where])]
            if not keep:
                numbers.append((_members(spec, {}, ()), len(rows)))
                continue
            for key, value in rows.groupby(list(keep)).size().items():
                labels = dict(zip(keep, key if isinstance(key, tuple) else (key,), strict=True))
                numbers.append((_members(spec, labels, keep), int(value)))
            continue
        hidden = rec["cells"] if action == "suppress" else []
        for cell in out["cells"]:
            if cell["labels"] not in hidden:
                numbers.append((_members(spec, cell["labels"], spec.variables), int(cell["value"])))
    return numbers


@pytest.mark.slow  # each request is checked with every audit of its suggestions
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(people=[("A", "f", 17), ("A", "f", 18), ("A", "f", 18), ("A", "m", 19)], chosen=[3])
@example(
    people=[("A", "f", 18)] + [("A", "m", 19)] * 4 + [("B", "f", 19)] * 3 + [("B", "m", 19)] * 3,
    chosen=[0, 1],
)
@given(
    people=st.lists(st.sampled_from(KINDS), min_size=4, max_size=12),
    chosen=st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=3, unique=True),
)
def test_a_confirmed_plan_leaves_no_failing_cell_and_no_small_kind_pinned(
    people: list[tuple[str, str, int]], chosen: list[int]
) -> None:
    frame = pd.DataFrame(people, columns=["region", "sex", "age"])
    specs = [POOL[i] for i in sorted(chosen)]
    result = check_frame(frame, specs, Policy(safe_threshold=THRESHOLD, zeros_are_disclosive=False))
    plan = [r for r in result.recommendations if r.get("plan")]
    if not plan or not all(r["confirmed"] for r in plan):
        return
    numbers = _released(result, frame, specs)
    truth = np.array([sum(1 for p in people if p == k) for k in KINDS])
    a = np.zeros((len(numbers), len(KINDS)), dtype=int)
    for e, (members, _) in enumerate(numbers):
        a[e, members] = 1
    b = np.array([v for _, v in numbers], dtype=int)
    assert np.array_equal(a @ truth, b)  # the test's own reading of the tables
    covered = [k for k in range(len(KINDS)) if a[:, k].any()]
    solutions = np.array(whole_solutions(a, b, covered)) if len(b) else truth[None, :]
    pinned = {k for k in covered if len(set(solutions[:, k])) == 1}
    small = [KINDS[k] for k in pinned if 1 <= truth[k] < THRESHOLD]
    assert not small, (plan, small)
    for spec, out in zip(specs, result.outputs, strict=True):
        for cell in out["cells"]:
            if cell["status"] != "fail":
                continue
            members = _members(spec, cell["labels"], spec.variables)
            if members and set(members) <= set(covered):  # else a kind no number holds leaves it open
                values = {int(x[members].sum()) for x in solutions}
                assert len(values) >= 2, (spec.name, cell, plan)
