"""Each released cell's interval over everything released but itself, against closed forms, enumeration and
the p % rule worked by hand.

The oracles are built by the tests from the public atoms frame (which atoms a cell holds, from its labels) and
the released numbers, never from the module's own matrices.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outputs_helpers import whole_solutions
from privrisk.outputs.cell_bounds import protected, system_bounds
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import difference
from privrisk.outputs.policy import Policy
from privrisk.outputs.run import check_frame
from privrisk.outputs.spec import OutputSpec

ALL = "All"


def _members(atoms: pd.DataFrame, spec: OutputSpec, labels: dict[str, Any]) -> np.ndarray:
    keep = np.ones(len(atoms), dtype=bool)
    for v, value in labels.items():
        if value != ALL:
            keep &= atoms[v].astype(str).to_numpy() == str(value)
    if spec.where:
        keep &= atoms[spec.where].to_numpy(dtype=bool)
    return np.flatnonzero(keep)


def _cell(result: Any, name: str, **labels: Any) -> dict[str, Any]:
    out = next(o for o in result.outputs if o["name"] == name)
    return next(c for c in out["cells"] if c["labels"] == labels)


def test_a_cell_of_a_table_with_margins_is_determined_by_the_others() -> None:
    # Released: the interior cells and the margins of a 3 × 4 table. Hide one interior cell: its row margin
    # minus the other cells of its row gives it back, so its interval is its value.
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), 80), "b": rng.choice(list("pqrs"), 80)})
    spec = OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), margins=True)
    result = check_frame(frame, [spec])
    counts = frame.value_counts(["a", "b"])
    for cell in result.outputs[0]["cells"]:
        value = cell["value"]
        assert cell["interval"] == [value, value] and cell["interval_exact"] is True
        assert cell["protected"] is False  # suppressing one cell alone never hides it
    assert _cell(result, "T", a="x", b="p")["value"] == counts[("x", "p")]


def test_with_only_the_margins_released_each_interior_cell_has_frechet_bounds() -> None:
    # The two-way table's cells are all hidden; the margins (two one-way tables) stay. Each cell's interval is
    # max(0, r + c − N) … min(r, c) (Fréchet), by hand from the margins.
    rng = np.random.default_rng(11)
    frame = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 50, p=[0.6, 0.3, 0.1]), "b": rng.choice(list("pqrs"), 50)}
    )
    specs = [
        OutputSpec(name="rows", kind="count", rows=("a",)),
        OutputSpec(name="cols", kind="count", rows=("b",)),
        OutputSpec(name="cells", kind="count", rows=("a",), columns=("b",)),
    ]
    con = connect(frame)
    linear = [(s, table_cells(con, s, Policy())) for s in specs]
    diff = difference(con, linear, Policy())
    system = diff.systems[None]
    _, eqs = diff.cell_rows["cells"]
    cells = linear[2][1]
    targets = [system.a.indices[system.a.indptr[e] : system.a.indptr[e + 1]] for e in eqs]
    hidden = [int(e) for e in eqs]
    res = system_bounds(system, targets, drop=[hidden] * len(targets))
    r = frame["a"].value_counts()
    c = frame["b"].value_counts()
    total = len(frame)
    assert len(cells) == 12
    for i, row in enumerate(cells.itertuples(index=False)):
        assert res.lo[i] == max(0, r[row.a] + c[row.b] - total)
        assert res.hi[i] == min(r[row.a], c[row.b])
    assert res.exact.all()


CANDIDATES = [
    OutputSpec(name="by a", kind="count", rows=("a",)),
    OutputSpec(name="by b", kind="count", rows=("b",)),
    OutputSpec(name="a × b", kind="count", rows=("a",), columns=("b",)),
    OutputSpec(name="a × b with margins", kind="count", rows=("a",), columns=("b",), margins=True),
    OutputSpec(name="adults by a", kind="count", rows=("a",), where="age >= 18"),
    OutputSpec(name="adults", kind="count", where="age >= 18"),
    OutputSpec(name="adults by b", kind="count", rows=("b",), where="age >= 18"),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    people=st.lists(
        st.tuples(st.sampled_from("xy"), st.sampled_from("pq"), st.sampled_from([10, 30])),
        min_size=1,
        max_size=5,
    ),
    chosen=st.lists(st.integers(0, len(CANDIDATES) - 1), min_size=1, max_size=3, unique=True),
)
def test_every_count_cell_interval_equals_enumeration(
    people: list[tuple[str, str, int]], chosen: list[int]
) -> None:
    frame = pd.DataFrame(people, columns=["a", "b", "age"])
    specs = [CANDIDATES[i] for i in sorted(chosen)]
    result = check_frame(frame, specs, Policy(safe_threshold=2))
    atoms = result.atoms
    rows, b = [], []
    owner: list[tuple[str, int] | None] = []
    for spec in specs:
        out = next(o for o in result.outputs if o["name"] == spec.name)
        for k, cell in enumerate(out["cells"]):
            row = np.zeros(len(atoms), dtype=int)
            row[_members(atoms, spec, cell["labels"])] = 1
            rows.append(row)
            b.append(cell["value"])
            owner.append((spec.name, k))
        # A table shows every observed combination of its rows (and of its columns): an atom of its population
        # whose rows or columns it does not show holds nobody (known whether or not a cell is hidden).
        for part in (spec.rows, spec.columns):
            shown = {tuple(str(c["labels"][v]) for v in part) for c in out["cells"]
                     if all(c["labels"][v] != ALL for v in spec.variables)}  # fmt: skip
            for j in _members(atoms, spec, {}) if part else []:
                if tuple(str(atoms[v].iloc[j]) for v in part) not in shown:
                    row = np.zeros(len(atoms), dtype=int)
                    row[j] = 1
                    rows.append(row)
                    b.append(0)
                    owner.append(None)
    a = np.array(rows)
    b_all = np.array(b, dtype=int)
    for i, who in enumerate(owner):
        if who is None:
            continue
        name, k = who
        cell = next(o for o in result.outputs if o["name"] == name)["cells"][k]
        others = np.delete(np.arange(len(b_all)), i)
        a_o, b_o = a[others], b_all[others]
        held = a_o.sum(axis=0) > 0
        free_in_cell = bool(np.any(a[i].astype(bool) & ~held))
        sols = whole_solutions(a_o, b_o, [int(j) for j in np.flatnonzero(held)])
        values = [int(a[i] @ x) for x in sols]
        assert values, "the truth is always a solution"
        expected = [min(values), math.inf if free_in_cell else max(values)]
        assert cell["interval"] == expected, (name, cell["labels"])
        assert cell["interval_exact"] is True
        assert cell["protected"] is (expected[0] < expected[1])


def test_a_mean_and_a_count_of_the_same_group_give_its_sum_exactly() -> None:
    rng = np.random.default_rng(3)
    incomes = rng.uniform(1000, 2000, 40).round(2)
    frame = pd.DataFrame({"region": ["A"] * 25 + ["B"] * 15, "income": incomes})
    specs = [
        OutputSpec(name="Counts", kind="count", rows=("region",)),
        OutputSpec(name="Means", kind="mean", variable="income", rows=("region",)),
        OutputSpec(name="Sums", kind="sum", variable="income", rows=("region",)),
    ]
    result = check_frame(frame, specs)
    for region, group in frame.groupby("region"):
        total = float(group["income"].sum())
        cell = _cell(result, "Sums", region=region)
        # Hidden, the sum is the mean times the count.
        assert cell["interval"][0] == pytest.approx(total, rel=1e-9)
        assert cell["interval"][1] == pytest.approx(total, rel=1e-9)
        assert cell["protected"] is False
        mean = _cell(result, "Means", region=region)
        # Hidden, the mean is the sum over the count.
        assert mean["interval"][0] == pytest.approx(total / len(group), rel=1e-9)
        assert mean["interval"][1] == pytest.approx(total / len(group), rel=1e-9)
    # Without the means, nothing else holds a region's sum: hidden, it could be anything from 0 up.
    alone = check_frame(frame, [specs[0], specs[2]])
    assert _cell(alone, "Sums", region="A")["interval"] == [0, math.inf]
    assert _cell(alone, "Sums", region="A")["protected"] is True


def _p_percent_frame(young_b: list[float]) -> pd.DataFrame:
    # Region A: incomes 1000, 50, 30 (all counted by the condition); region B: one old person with 20, and
    # the young ones given.
    rows = [("A", 40, 1000.0), ("A", 40, 50.0), ("A", 40, 30.0), ("B", 70, 20.0)]
    rows += [("B", 40, v) for v in young_b]
    return pd.DataFrame(rows, columns=["region", "age", "income"])


P_SPECS = [
    OutputSpec(name="Counts", kind="count", rows=("region",)),
    OutputSpec(name="Counted", kind="count", rows=("region",), where="region = 'A' OR age >= 65"),
    OutputSpec(name="Sums", kind="sum", variable="income", rows=("region",)),
    OutputSpec(name="U", kind="sum", variable="income", where="region = 'A' OR age >= 65"),
]


def test_p_percent_protection_of_a_hidden_sum_by_hand() -> None:
    # Everyone in A meets the condition (the counts say so), so A's sum is U − (B's old), and B's old lie
    # between 0 and B's sum: hidden, A's sum lies in [U − min(U, B), U]. A's sum is 1080 (the largest 1000, the
    # two largest 1050, the rest 30); p = 10 %: the protection needed is 0.1 × 1000 − 30 = 70 on either side.
    policy = Policy(safe_threshold=3)
    # B = 20 + 20 + 20 = 60, U = 1080 + 20 = 1100: A in [1040, 1100]; half the width, 30, is below 70.
    result = check_frame(_p_percent_frame([20.0, 20.0]), P_SPECS, policy)
    cell = _cell(result, "Sums", region="A")
    assert cell["interval"][0] == pytest.approx(1040.0) and cell["interval"][1] == pytest.approx(1100.0)
    assert any(r["rule"] == "p-ratio" for r in cell["rules"])
    assert cell["protected"] is False  # suppressing it alone: an approximate disclosure
    # B = 20 + 100 + 100 = 220: A in [880, 1100]. Half the width, 110, would cover the 70 needed, but the
    # upper end is only 20 above the 1080: the two-sided rule (τ-ARGUS's) is not met.
    result = check_frame(_p_percent_frame([100.0, 100.0]), P_SPECS, policy)
    cell = _cell(result, "Sums", region="A")
    assert cell["interval"][0] == pytest.approx(880.0) and cell["interval"][1] == pytest.approx(1100.0)
    assert cell["protected"] is False
    # With U released for the old only (B's old 20 is U), A's sum has no upper bound but the sums: protected.
    assert protected("sum", 880.0, 1300.0, total=1080.0, top1=1000.0, top2=1050.0, count=3, p=0.1)


def test_protection_rule_by_hand() -> None:
    # The p % protection of a sum of 1000 whose largest is 600 and two largest 900: 0.1 × 600 − 100 < 0, so any
    # interval that is not a single value protects it; with the largest 900 and two largest 990 it needs
    # 0.1 × 900 − 10 = 80: an interval of width 150 (75 a side) does not, one of 170 does.
    assert protected("sum", 999.0, 1001.0, total=1000.0, top1=600.0, top2=900.0, count=3, p=0.1)
    assert not protected("sum", 1000.0, 1000.0, total=1000.0, top1=600.0, top2=900.0, count=3, p=0.1)
    assert not protected("sum", 925.0, 1075.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
    assert protected("sum", 915.0, 1085.0, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
    # A mean's interval is its sum's over the count: 3 people, means 305 … 361.67 are sums 915 … 1085.
    assert protected("mean", 305.0, 1085.0 / 3, total=1000.0, top1=900.0, top2=990.0, count=3, p=0.1)
    assert not protected("count", 4.0, 4.0, total=math.nan, top1=math.nan, top2=math.nan, count=4, p=0.1)
    assert protected("count", 3.0, 5.0, total=math.nan, top1=math.nan, top2=math.nan, count=4, p=0.1)


def test_suppressing_a_sum_cell_is_not_confirmed_while_one_side_stays_close() -> None:
    # A's sum fails the p % rule. Suppressed alone it is recomputed to [1040, 1100] (see above), closer than its
    # protection: the suggestion adds B's sum (the smallest other cell of its line). With both hidden, only U
    # holds A's people: A in [0, 1100], B in [0, ∞). Half of A's width (550) is far more than the 70 needed,
    # but U still puts A's upper end 20 above its 1080: two-sided, the suppression does not protect A.
    result = check_frame(_p_percent_frame([20.0, 20.0]), P_SPECS, Policy(safe_threshold=3))
    [rec] = [r for r in result.recommendations if r["action"] == "suppress" and r["output"] == "Sums"]
    assert rec["cells"] == [{"region": "A"}, {"region": "B"}]
    assert rec["confirmed"] is False
    assert rec["intervals"][0][0] == pytest.approx(0.0) and rec["intervals"][0][1] == pytest.approx(1100.0)
    assert rec["intervals"][1][0] == pytest.approx(0.0) and rec["intervals"][1][1] == math.inf


def test_the_intervals_of_a_count_suppression_equal_enumeration() -> None:
    # A 2 × 3 table with margins where one cell holds 1 person (threshold 3): its suppression needs partners;
    # each suppressed cell's reported interval is the min and max over every whole table that keeps the cells
    # still shown.
    rows = [("x", "p")] + [("x", "q")] * 3 + [("x", "r")] * 4 + [("y", "p")] * 3 + [("y", "q")] * 4
    rows += [("y", "r")] * 5
    frame = pd.DataFrame(rows, columns=["a", "b"])
    spec = OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), margins=True)
    result = check_frame(frame, [spec], Policy(safe_threshold=3))
    [rec] = [r for r in result.recommendations if r["action"] == "suppress"]
    assert rec["confirmed"] is True and len(rec["cells"]) >= 4
    atoms = result.atoms
    cells = result.outputs[0]["cells"]
    hidden = [next(i for i, c in enumerate(cells) if c["labels"] == lab) for lab in rec["cells"]]
    shown = [i for i in range(len(cells)) if i not in hidden]
    matrix = np.zeros((len(cells), len(atoms)), dtype=int)
    for i, c in enumerate(cells):
        matrix[i, _members(atoms, spec, c["labels"])] = 1
    b = np.array([c["value"] for c in cells], dtype=int)
    sols = whole_solutions(matrix[shown], b[shown], list(range(len(atoms))))
    for i, interval in zip(hidden, rec["intervals"], strict=True):
        values = [int(matrix[i] @ x) for x in sols]
        assert interval == [min(values), max(values)]
        assert interval[0] < interval[1]


def test_fingerprints_find_the_same_identities_as_counting_atoms(monkeypatch) -> None:
    # Above EXACT_CHECK atoms the identities between cells are checked by fingerprints: forced here on a small
    # grid, every cell's interval is as when the atoms are counted.
    import privrisk.outputs.cell_bounds as cb
    import privrisk.outputs.cell_identities as cell_identities

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 60), "b": rng.choice(list("pq"), 60), "age": rng.integers(0, 90, 60)}
    )
    specs = [
        OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), margins=True),
        OutputSpec(name="A", kind="count", rows=("a",), where="age >= 18"),
        OutputSpec(name="B", kind="count", rows=("b",), where="age >= 18"),
        OutputSpec(name="AB", kind="count", rows=("a",), columns=("b",), where="age >= 18"),
    ]
    counted = check_frame(frame, specs)
    # No iterations for programmes: what is exact now was found by the identities alone.
    monkeypatch.setattr(cb, "CELL_ITERATIONS", 0)
    monkeypatch.setattr(cell_identities, "EXACT_CHECK", 0)
    printed = check_frame(frame, specs)
    for o1, o2 in zip(counted.outputs, printed.outputs, strict=True):
        for c1, c2 in zip(o1["cells"], o2["cells"], strict=True):
            if c2["interval_exact"]:
                assert c1["interval"] == c2["interval"]
    # Every cell of AB is A's (its a) less the other cell of its line; every cell of T its margin less the rest.
    for name in ("AB", "T"):
        cells = next(o for o in printed.outputs if o["name"] == name)["cells"]
        assert all(c["interval"] == [c["value"], c["value"]] and c["interval_exact"] for c in cells)


def test_a_mean_whose_count_is_not_known_is_bounded_by_sum_over_count() -> None:
    # Means by region (A 30, B 5), the total income 175 and the number of people 10. Hidden, A's mean is
    # (175 − 5·n_B) / (10 − n_B) for the n_B people of B: 17.5 … 130 as n_B runs over 0 … 9. privrisk bounds it
    # by sum over count over the two intervals (A's sum 125 … 175, its count 1 … 10): 12.5 … 175, which holds
    # the exact range but is wider, so it is not marked exact.
    frame = pd.DataFrame({"region": list("AAAAABBBBB"), "income": [10.0, 20, 30, 40, 50, 5, 5, 5, 5, 5]})
    specs = [
        OutputSpec(name="Means", kind="mean", variable="income", rows=("region",)),
        OutputSpec(name="Total", kind="sum", variable="income"),
        OutputSpec(name="People", kind="count"),
    ]
    result = check_frame(frame, specs, Policy(safe_threshold=2))
    cell = _cell(result, "Means", region="A")
    assert cell["interval"][0] == pytest.approx(12.5) and cell["interval"][1] == pytest.approx(175.0)
    # The outer interval would protect it, but the exact one is not known: protection is not claimed.
    assert cell["interval_exact"] is False and cell["protected"] is None
    assert result.summary["cells_undecided"] == 2


def test_an_outer_interval_never_says_protected(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 2 × 2 table released alone: hidden, a cell is any whole number ≥ 0 (its programmes find the maximum
    # unbounded): protected. With no iterations for the programmes its interval is an outer one (the bounds the
    # rest implies), and an outer interval never shows a cell as protected: that yes would be unproven.
    import privrisk.outputs.cell_bounds as cb

    frame = pd.DataFrame({"r": ["r1"] * 4 + ["r2"] * 6, "c": ["c1"] * 1 + ["c2"] * 3 + ["c1"] * 2 + ["c2"] * 4})
    specs = [OutputSpec(name="Cells", kind="count", rows=("r",), columns=("c",), margins=False)]
    policy = Policy(safe_threshold=1)
    solved = _cell(check_frame(frame, specs, policy), "Cells", r="r1", c="c1")
    assert solved["interval_exact"] is True and solved["protected"] is True and solved["interval"][0] == 0
    monkeypatch.setattr(cb, "CELL_ITERATIONS", 0)
    outer = check_frame(frame, specs, policy)
    cells = next(o for o in outer.outputs if o["name"] == "Cells")["cells"]
    assert all(c["interval_exact"] is False and c["protected"] is None for c in cells)
