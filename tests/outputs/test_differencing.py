"""Differencing: atoms' intervals against closed forms, brute-force enumeration and the classic cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outputs_helpers import enumerated_bounds
from privrisk.outputs.run import check_frame
from privrisk.outputs.spec import OutputSpec
from privrisk.outputs.unknown_intervals import intervals


def _people(rows: list[tuple[object, ...]], names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=names)


def test_frechet_bounds_of_a_two_way_table_from_its_margins() -> None:
    # A 3 × 4 table of counts of which only the margins are released: each cell's interval is
    # max(0, r + c − N) … min(r, c) (Fréchet), as the intruder's linear programs must find.
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 60, p=[0.5, 0.3, 0.2]), "b": rng.choice(list("pqrs"), 60)}
    )
    specs = [
        OutputSpec(name="rows", kind="count", rows=("a",)),
        OutputSpec(name="cols", kind="count", rows=("b",)),
    ]
    result = check_frame(frame, specs)
    atoms = result.atoms
    r = frame["a"].value_counts()
    c = frame["b"].value_counts()
    total = len(frame)
    assert len(atoms) == 12
    for row in atoms.itertuples(index=False):
        assert row.lo == max(0, r[row.a] + c[row.b] - total)
        assert row.hi == min(r[row.a], c[row.b])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.lists(st.integers(0, 3), min_size=4, max_size=6),
    masks=st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=1, max_size=4),
)
def test_every_atom_interval_equals_brute_force(cells: list[int], masks: list[list[bool]]) -> None:
    # Released totals over random subsets of atoms: the integer intervals must equal the enumeration's.
    n = len(cells)
    a = np.array([[int(m[j]) for j in range(n)] for m in masks])
    a = a[a.sum(axis=1) > 0]
    if a.size == 0:
        return
    truth = np.array(cells)
    b = a @ truth
    res = intervals(sp.csr_matrix(a), b.astype(float), integer=True, lower=np.zeros(n))
    lo, hi = enumerated_bounds(a, b)
    covered = a.sum(axis=0) > 0
    assert np.array_equal(res.lo[covered], lo[covered])
    assert np.array_equal(res.hi[covered], hi[covered])
    assert np.all(np.isinf(res.hi[~covered]))
    # The shortcut of large systems keeps every lower end and every exact upper end, and never narrows one.
    quick = intervals(sp.csr_matrix(a), b.astype(float), integer=True, lower=np.zeros(n), full_limit=0)
    assert np.array_equal(quick.lo, res.lo)
    assert np.all(quick.hi >= res.hi)
    assert np.array_equal(quick.hi[quick.tight], res.hi[quick.tight])
    assert np.all(quick.tight[quick.lo > 0])


def test_integer_bounds_where_the_linear_relaxation_is_fractional() -> None:
    # x0 + x1 = 1, x1 + x2 = 1, x0 + x2 = 1 has only the fractional solution (½, ½, ½): the linear bounds are
    # [0.5, 0.5] but no whole solution exists; with x0+x1+x2 = 3 in a 2 × (…) system the integer rounding matters.
    a = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 1, 1]])
    truth = np.array([2, 0, 1, 1])
    b = a @ truth
    res = intervals(sp.csr_matrix(a), b.astype(float), integer=True, lower=np.zeros(4))
    lo, hi = enumerated_bounds(a, b)
    assert res.lo.tolist() == lo.tolist() and res.hi.tolist() == hi.tolist()


def test_adults_minus_the_over_nineteens_are_the_eighteen_year_olds() -> None:
    ages = [18] + [19 + k % 30 for k in range(40)] + [10 + k % 8 for k in range(15)]
    frame = pd.DataFrame({"age": ages})
    specs = [
        OutputSpec(name="Adults", kind="count", where="age >= 18"),
        OutputSpec(name="Over 19", kind="count", where="age >= 19"),
    ]
    result = check_frame(frame, specs)
    assert all(o["status"] == "pass" for o in result.outputs)
    [finding] = result.disclosures
    assert finding["kind"] == "exact" and finding["interval"] == [1, 1]
    assert finding["labels"] == {"age >= 18": True, "age >= 19": False}
    assert finding["outputs"] == ["Adults", "Over 19"]
    assert finding["sentence"] == (
        "Adults and Over 19 together show that exactly 1 person has age >= 18 and not (age >= 19)."
    )
    assert result.status == "fail"


def test_a_table_with_margins_beside_the_same_table_filtered() -> None:
    # Table 1: region × sex with margins over everyone; Table 3: the same for age >= 19. The 18-year-olds
    # of each cell are the difference: one woman aged 18 in region West.
    rows = [("West", "f", 18)] + [(r, s, 30) for r in ("West", "East") for s in "fm" for _ in range(12)]
    frame = _people(rows, ["region", "sex", "age"])
    specs = [
        OutputSpec(name="Table 1", kind="count", rows=("region",), columns=("sex",), margins=True),
        OutputSpec(name="Table 3", kind="count", rows=("region",), columns=("sex",), where="age >= 19"),
    ]
    result = check_frame(frame, specs)
    assert result.summary["cells_fail"] == 0
    [finding] = [d for d in result.disclosures if d["type"] == "count"]
    assert finding["labels"] == {"region": "West", "sex": "f", "age >= 19": False}
    assert finding["sentence"] == (
        "Table 1 and Table 3 together show that exactly 1 person has region = West, sex = f and not (age >= 19)."
    )
    # The other cells' differences are zeros found by differencing: nobody in East, and no man, is 18.
    zeros = {d["sentence"] for d in result.disclosures if d["type"] == "attribute"}
    assert zeros == {
        "Table 1 and Table 3 together show that everyone with region = East has age >= 19.",
        "Table 1 and Table 3 together show that everyone with sex = m has age >= 19.",
    }


def test_a_mean_and_a_count_of_the_same_group_give_its_sum() -> None:
    # Counts and mean incomes by region (each cell passes) make each region's sum known (mean × count); the
    # sums of income of those aged 19 and over by region then leave the income of the one 18-year-old in B.
    rng = np.random.default_rng(3)
    big = [("A", 30, float(x)) for x in rng.uniform(1000, 2000, 30)]
    small = [("B", 18, 5000.0)] + [("B", 40, float(x)) for x in rng.uniform(1000, 2000, 11)]
    frame = _people(big + small, ["region", "age", "income"])
    specs = [
        OutputSpec(name="Counts", kind="count", rows=("region",)),
        OutputSpec(name="Means", kind="mean", variable="income", rows=("region",)),
        OutputSpec(name="Sums", kind="sum", variable="income", rows=("region",), where="age >= 19"),
    ]
    result = check_frame(frame, specs)
    [finding] = result.disclosures
    assert finding["kind"] == "exact"
    assert finding["labels"] == {"region": "B", "age >= 19": False}
    assert finding["interval"][0] == pytest.approx(5000.0) and finding["interval"][1] == pytest.approx(5000.0)
    assert finding["outputs"] == ["Counts", "Means", "Sums"]
    assert finding["sentence"].startswith(
        "Counts, Means and Sums together show that the income of the 1 person"
    )
    # Without the counts the means are not sums, and nothing is disclosed.
    assert check_frame(frame, specs[1:]).disclosures == []
