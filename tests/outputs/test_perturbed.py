"""Count tables released with cell-key perturbation: the published values, the true counts they allow, and the
differencing over them against a brute-force enumeration of every assignment of counts consistent with the
published cells (written here from the table's rows, sharing no code with privrisk's intervals)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.accounting.cellkey import perturbation_table
from privrisk.accounting.perturbation_files import read_perturbation_table
from privrisk.errors import PrivriskError
from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import difference
from privrisk.outputs.perturbed import KEY_COLUMN, allowed_counts, perturb, record_keys
from privrisk.outputs.policy import Policy
from privrisk.outputs.run import check_frame
from privrisk.outputs.spec import OutputSpec, read_spec

ROOT = Path(__file__).resolve().parents[2]
PTABLE = ROOT / "examples" / "census" / "ptable_D2_V1.csv"
LEVELS = {"a": ("x", "y", "z"), "b": ("f", "m")}


def test_the_counts_a_published_value_allows_by_hand() -> None:
    # create_cnt_ptable(D = 2, V = 1): row 1 has noise -1 … 2, rows 2 and up -2 … 2, a zero is kept.
    t = read_perturbation_table(PTABLE)
    assert allowed_counts(t, 0) == (0, 2)  # 1 - 1, 2 - 2: a published 0 may hide 1 or 2 people
    assert allowed_counts(t, 1) == (1, 3)  # a zero is never published as 1: someone is there
    assert allowed_counts(t, 2) == (1, 4)
    assert allowed_counts(t, 3) == (1, 5)  # 1 + 2 … 5 - 2
    assert allowed_counts(t, 10) == (8, 12)


def test_a_gap_in_the_counts_is_refused() -> None:
    t = perturbation_table({0: {0: 1.0}, 1: {0: 0.5, 2: 0.5}, 2: {0: 1.0}, 3: {0: 1.0}})
    with pytest.raises(PrivriskError, match="have a gap"):
        allowed_counts(t, 3)  # from 1 (+2) and 3 (+0), not from 2


def _cells(frame: pd.DataFrame, spec: OutputSpec, policy: Policy, keyed: object) -> pd.DataFrame:
    cells = table_cells(connect(frame), spec, policy)
    return perturb(keyed, spec, cells) if spec.ptable is not None else cells


def _random_table(d: int, keep_zero: bool, weights: list[float]) -> dict[int, dict[int, float]]:
    """Rows 0 … d + 1: row c has noise −min(c, d) … d with positive probabilities; row 0 only 0 when zeros are
    kept, else 0 … d. Every published value then comes from an interval of counts."""
    rows: dict[int, dict[int, float]] = {}
    w = iter(itertools.cycle(weights))
    for c in range(d + 2):
        support = [0] if (c == 0 and keep_zero) else list(range(-min(c, d), d + 1))
        raw = [next(w) for _ in support]
        rows[c] = {v: p / sum(raw) for v, p in zip(support, raw, strict=True)}
    return rows


def _allowed(rows: dict[int, dict[int, float]], v: int) -> set[int]:
    """The brute force's own reading of the table: every count whose row can publish v."""
    top = max(rows)
    return {c for c in range(0, v + top + 5) if rows[min(c, top)].get(v - c, 0.0) > 0}


@st.composite
def requests(draw: st.DrawFn):  # type: ignore[no-untyped-def]
    n = draw(st.integers(2, 9))
    rows = [(draw(st.sampled_from(LEVELS["a"])), draw(st.sampled_from(LEVELS["b"])),
             draw(st.floats(0, 1, exclude_max=True))) for _ in range(n)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["a", "b", "k"])
    d = draw(st.integers(1, 2))
    table = _random_table(d, draw(st.booleans()), draw(st.lists(st.floats(0.05, 1), min_size=3, max_size=7)))
    specs = [("T0", ("a",), ("b",), draw(st.booleans()), draw(st.sampled_from([True, True, True, False])))]
    for name, rows_ in (("Ta", ("a",)), ("Tb", ("b",)), ("Tall", ())):
        if draw(st.booleans()):
            specs.append((name, rows_, (), False, draw(st.booleans())))
    return frame, table, specs, draw(st.sampled_from([2, 3, 4]))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_intervals_and_findings_agree_with_a_brute_force(request) -> None:  # type: ignore[no-untyped-def]
    _agree_with_brute_force(*request)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_intervals_and_findings_agree_with_a_brute_force_on_many_requests(request) -> None:  # type: ignore[no-untyped-def]
    _agree_with_brute_force(*request)


Layout = list[tuple[str, tuple[str, ...], tuple[str, ...], bool, bool]]


def _agree_with_brute_force(
    frame: pd.DataFrame, rows: dict[int, dict[int, float]], layout: Layout, t: int
) -> None:
    table = perturbation_table(rows, name="random")
    policy = Policy(safe_threshold=t, zeros_are_disclosive=False)
    keyed = connect(frame.assign(**{KEY_COLUMN: record_keys(frame, "k")}))
    specs = [OutputSpec(name=name, kind="count", rows=r, columns=c, margins=m, ptable=table if noisy else None)
             for name, r, c, m, noisy in layout]  # fmt: skip
    released = [(s, _cells(frame, s, policy, keyed)) for s in specs]
    diff = difference(connect(frame), released, policy)
    assert diff.undecided == 0
    # The brute force: every count of every combination of the observed levels, within what each cell allows.
    atoms = list(itertools.product(*(sorted(frame[v].unique()) for v in ("a", "b"))))
    truth = np.array([((frame["a"] == a) & (frame["b"] == b)).sum() for a, b in atoms])
    constraints: list[tuple[np.ndarray, set[int]]] = []
    cells_seen: set[frozenset[int]] = set()
    for spec, cells in released:
        for _, cell in cells.iterrows():
            members = np.array([all(cell[v] == at[i] for i, v in enumerate(("a", "b")) if v in cell["set"])
                                for at in atoms])  # fmt: skip
            v = int(cell["value"])
            allowed = _allowed(rows, v) if spec.ptable is not None else {v}
            assert int(truth[members].sum()) in allowed
            constraints.append((members, allowed))
            cells_seen.add(frozenset(np.flatnonzero(members).tolist()))
    ranges = []
    for j in range(len(atoms)):
        own = [allowed for members, allowed in constraints if members.sum() == 1 and members[j]]
        ranges.append(range(0, max(min(max(a) for a in own), 0) + 1))
    grid = np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(-1, len(atoms))
    for members, allowed in constraints:
        grid = grid[np.isin(grid[:, members].sum(axis=1), list(allowed))]
    assert any((grid == truth).all(axis=1))
    # Every atom's interval.
    got = {(r["a"], r["b"]): (r["lo"], r["hi"]) for _, r in diff.atoms.iterrows()}
    for j, at in enumerate(atoms):
        assert got[at] == (grid[:, j].min(), grid[:, j].max()), at
    # Every group that is not a released cell: pinned within 1 … t - 1 exactly when privrisk reports it.
    expected = {}
    for fa in [None, *sorted(frame["a"].unique())]:
        for fb in [None, *sorted(frame["b"].unique())]:
            members = [j for j, (a, b) in enumerate(atoms) if fa in (None, a) and fb in (None, b)]
            key = frozenset(members)
            if key in cells_seen or key in expected:
                continue
            total = grid[:, members].sum(axis=1)
            if total.min() >= 1 and total.max() <= t - 1:
                expected[key] = (int(total.min()), int(total.max()))
    levels = {v: list(diff.atoms.attrs["levels"][v]) for v in ("a", "b")}
    found = {}
    for f in diff.findings:
        assert f["type"] == "count"
        fixed = {d: levels[d][c] for d, c in f["fixed"].items()}
        members = [
            j for j, at in enumerate(atoms) if all(at[("a", "b").index(d)] == x for d, x in fixed.items())
        ]
        found[frozenset(members)] = (int(f["lo"]), int(f["hi"]))
    assert found == expected


def test_the_same_cell_is_published_the_same_in_every_table() -> None:
    frame = pd.DataFrame({"a": ["x"] * 7 + ["y"] * 3, "b": ["f"] * 10})
    table = read_perturbation_table(PTABLE)
    keyed = connect(frame.assign(**{KEY_COLUMN: record_keys(frame)}))
    policy = Policy()
    one = OutputSpec(name="by a", kind="count", rows=("a",), ptable=table)
    two = OutputSpec(name="by a and b", kind="count", rows=("a",), columns=("b",), margins=True, ptable=table)
    c1, c2 = _cells(frame, one, policy, keyed), _cells(frame, two, policy, keyed)
    full = c2[c2["set"] == ("a", "b")]
    assert c1["value"].tolist() == full["value"].tolist()  # b has one level: the same records, the same noise
    assert c1["cell_key"].tolist() == full["cell_key"].tolist()
    # The grand total's key is the sum of the cells' keys, mod 1.
    total = c2[c2["set"] == ()]["cell_key"].item()
    assert total == pytest.approx(sum(c1["cell_key"]) % 1.0)


def test_a_published_zero_that_only_a_zero_shows_is_a_true_zero() -> None:
    # Zeros kept, and a positive count never published as 0: a published 0 is an empty cell.
    table = perturbation_table({0: {0: 1.0}, 1: {0: 0.5, 1: 0.5}, 2: {-1: 0.25, 0: 0.5, 1: 0.25}})
    assert allowed_counts(table, 0) == (0, 0)
    frame = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 4, "b": ["f"] * 5 + ["m"] * 4})
    keyed = connect(frame.assign(**{KEY_COLUMN: record_keys(frame)}))
    policy = Policy(safe_threshold=3, zeros_are_disclosive=False)
    spec = OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), ptable=table)
    cells = _cells(frame, spec, policy, keyed)
    diff = difference(connect(frame), [(spec, cells)], policy)
    atoms = diff.atoms.set_index(["a", "b"])
    assert atoms.loc[("x", "m"), "hi"] == 0 and atoms.loc[("y", "f"), "hi"] == 0  # published 0: known empty
    assert atoms.loc[("x", "f"), "lo"] >= 3  # 5 published as 4, 5 or 6: 3 … 7 people, never 0
    # Under ptable D = 2 a published 0 may hide up to 2 people: the empty cells are not known empty.
    d2 = read_perturbation_table(PTABLE)
    spec2 = OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), ptable=d2)
    diff2 = difference(connect(frame), [(spec2, _cells(frame, spec2, policy, keyed))], policy)
    assert (diff2.atoms.set_index(["a", "b"]).loc[("x", "m"), "hi"]) == 2


def test_the_exact_example_discloses_and_its_perturbed_release_does_not() -> None:
    data = pd.read_csv(ROOT / "examples" / "outputs" / "people.csv")
    exact = check_frame(data, read_spec(ROOT / "examples" / "outputs" / "outputs.toml"))
    assert any(d["interval"] == [1, 1] for d in exact.disclosures)
    noisy = check_frame(data, read_spec(ROOT / "examples" / "outputs" / "perturbed.toml"))
    assert noisy.disclosures == [] and noisy.status == "pass"
    assert noisy.summary["outputs_perturbed"] == ["Table 1", "Table 3"]
    west = next(c for o in noisy.outputs if o["name"] == "Table 1" for c in o["cells"]
                if c["labels"] == {"region": "West", "sex": "female"})  # fmt: skip
    lo, hi = west["consistent"]
    assert lo <= west["true_value"] <= hi and hi - lo >= 2


def test_a_group_the_perturbed_cells_still_pin_below_the_threshold_is_a_finding() -> None:
    # A table that keeps zeros and only ever adds 0 or 1: (x, m) published 0 is empty, (x, f) published 1 or 2
    # holds 1 or 2 people, so the group a = x (no released cell) holds 1 or 2: below a threshold of 3.
    frame = pd.DataFrame({"a": ["x"] + ["y"] * 20, "b": ["f"] + ["m"] * 20})
    table = perturbation_table({0: {0: 1.0}, 1: {0: 0.5, 1: 0.5}})
    spec = OutputSpec(name="T", kind="count", rows=("a",), columns=("b",), ptable=table)
    result = check_frame(frame, [spec], Policy(safe_threshold=3))
    [d] = [d for d in result.disclosures if d["labels"] == {"a": "x"}]
    assert d["interval"][0] == 1 and d["interval"][1] <= 2
    assert result.status == "fail"


@pytest.mark.parametrize(
    ("up", "down", "pinned"), [(2, -2, True), (-2, 2, False), (1, -2, False), (2, -1, False)]
)
def test_when_the_perturbed_example_still_discloses(up: int, down: int, pinned: bool) -> None:
    # West's women aged 18 and over (18) and aged 19 and over (17), published with noise up and down and every
    # other cell as it is: their difference v1 - v3 = 1 + up - down allows 1 + up - down ± 4 people, at least 1
    # only when up - down = 4, the two noises at opposite ends of ptable D = 2 (probability 0.0638² ≈ 0.4 %).
    specs = read_spec(ROOT / "examples" / "outputs" / "perturbed.toml")
    data = pd.read_csv(ROOT / "examples" / "outputs" / "people.csv")
    con, policy = connect(data), Policy()
    tables = []
    for spec in specs:
        if spec.kind == "ols":
            continue
        cells = table_cells(con, spec, policy)
        if spec.ptable is not None:
            shown = cells["value"].to_numpy(dtype=int).copy()
            shown[((cells["region"] == "West") & (cells["sex"] == "female")).to_numpy()] += (
                up if spec.name == "Table 1" else down
            )
            ends = [allowed_counts(spec.ptable, int(v)) for v in shown]
            cells = cells.assign(value=shown.astype(float), allowed_lo=[float(lo) for lo, _ in ends],
                                 allowed_hi=[float(hi) for _, hi in ends])  # fmt: skip
        tables.append((spec, cells))
    diff = difference(con, tables, policy, knowledge=specs.knowledge)
    west = {"region": "West", "sex": "female", "age >= 18": True, "age >= 19": False}
    found = [d["interval"] for d in diff.disclosures if d["labels"] == west]
    assert found == ([[1, 9]] if pinned else [])
    assert len(diff.disclosures) == int(pinned)
