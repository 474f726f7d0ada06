"""The ways the old model missed a disclosure or raised a false alarm (issue 31), each as a small request whose
answer is worked out by hand: unions of atoms, an extra table, what the intruder knows by logic (a ``where`` on a
grouped variable, a hierarchy, a derived variable), a sum and a mean giving a count, a zero found by differencing,
a sampling zero, a variable with only missing values, and the two-sided p % rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrisk.outputs.compute import connect, table_cells
from privrisk.outputs.differencing import Differencing, difference
from privrisk.outputs.knowledge import Knowledge
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec, parse_spec


def audit(frame: pd.DataFrame, specs: list[OutputSpec], knowledge: Knowledge | None = None,
          policy: Policy | None = None) -> Differencing:  # fmt: skip
    policy = policy or Policy()
    con = connect(frame)
    return difference(con, [(s, table_cells(con, s, policy)) for s in specs], policy, knowledge=knowledge)


def finding(diff: Differencing, labels: dict[str, object], kind: str = "count") -> dict[str, object] | None:
    hits = [f for f in diff.findings if f["type"] == kind and f["labels"] == labels]
    return hits[0] if hits else None


def people(groups: list[tuple[int, tuple[object, ...]]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame([row for k, row in groups for _ in range(k)], columns=columns)


def test_a_union_of_two_atoms_is_found() -> None:
    # T1: region × sex of the adults, with margins; T2: region of those 19 and over. West's adults (margin)
    # less West's over-19s is the one 18-year-old, whose sex no table shows: each atom (West, f, 18) and
    # (West, m, 18) lies in [0, 1], their union is exactly 1.
    frame = people([(1, ("West", "f", 18)), (12, ("West", "f", 30)), (12, ("West", "m", 30)),
                    (12, ("East", "f", 30)), (12, ("East", "m", 30)), (5, ("East", "m", 10))],
                   ["region", "sex", "age"])  # fmt: skip
    specs = [
        OutputSpec(
            name="T1", kind="count", rows=("region",), columns=("sex",), where="age >= 18", margins=True
        ),
        OutputSpec(name="T2", kind="count", rows=("region",), where="age >= 19"),
    ]
    diff = audit(frame, specs)
    f = finding(diff, {"region": "West", "age >= 18": True, "age >= 19": False})
    assert f is not None and (f["lo"], f["hi"]) == (1, 1)
    shown = [d for d in diff.disclosures if d["type"] == "count"]
    assert [d["sentence"] for d in shown] == [
        "T1 and T2 together show that exactly 1 person has region = West, age >= 18 and not (age >= 19)."
    ]


def test_an_extra_passing_table_does_not_hide_the_finding() -> None:
    # The pair with sex in both tables is found; a third table, region × occupation, passes on its own and
    # splits the atoms by occupation: the 18-year-old woman of West is still exactly 1.
    frame = people([(1, ("West", "f", 18, "clerk")), (12, ("West", "f", 30, "clerk")), (12, ("West", "m", 30, "cook")),
                    (12, ("East", "f", 30, "clerk")), (12, ("East", "m", 30, "cook")), (5, ("East", "m", 10, "cook"))],
                   ["region", "sex", "age", "occupation"])  # fmt: skip
    pair = [
        OutputSpec(
            name="T1", kind="count", rows=("region",), columns=("sex",), where="age >= 18", margins=True
        ),
        OutputSpec(name="T2", kind="count", rows=("region",), columns=("sex",), where="age >= 19"),
    ]
    extra = OutputSpec(name="T3", kind="count", rows=("region",), columns=("occupation",))
    labels = {"region": "West", "sex": "f", "age >= 18": True, "age >= 19": False}
    for specs in (pair, [*pair, extra]):
        f = finding(audit(frame, specs), labels)
        assert f is not None and (f["lo"], f["hi"]) == (1, 1)


def test_a_where_on_a_grouped_variable_is_known_false_on_its_levels() -> None:
    # T1: region × occupation without the managers; T2: region totals. West's total less West's cells of T1 is
    # West's 3 managers: the intruder knows that occupation <> 'manager' is false for every manager.
    frame = people([(3, ("West", "manager")), (15, ("West", "clerk")), (14, ("West", "cook")),
                    (12, ("East", "manager")), (15, ("East", "clerk")), (14, ("East", "cook"))],
                   ["region", "occupation"])  # fmt: skip
    specs = [
        OutputSpec(name="T1", kind="count", rows=("region",), columns=("occupation",),
                   where="occupation <> 'manager'"),
        OutputSpec(name="T2", kind="count", rows=("region",)),
    ]  # fmt: skip
    f = finding(audit(frame, specs), {"region": "West", "occupation": "manager"})
    assert f is not None and (f["lo"], f["hi"]) == (3, 3)


def _districts() -> pd.DataFrame:
    # Two regions of two districts each; the women of R1 are 2.
    rows = [
        (14, ("D1", "R1", "m")),
        (2, ("D2", "R1", "f")),
        (15, ("D2", "R1", "m")),
        (12, ("D3", "R2", "f")),
        (13, ("D3", "R2", "m")),
        (11, ("D4", "R2", "f")),
        (16, ("D4", "R2", "m")),
    ]
    return people(rows, ["district", "region", "sex"])  # fmt: skip


DISTRICT_SPECS = [
    OutputSpec(name="Regions", kind="count", rows=("region",)),
    OutputSpec(name="Men", kind="count", rows=("district",), where="sex = 'm'"),
]


def test_a_district_nested_in_its_region_found_in_the_data() -> None:
    # R1's people less the men of D1 and D2 (which lie in R1) are R1's 2 women.
    diff = audit(_districts(), DISTRICT_SPECS)
    f = finding(diff, {"region": "R1", "sex = 'm'": False})
    assert f is not None and (f["lo"], f["hi"]) == (2, 2)
    assert any(a["kind"] == "dependency" and a["variables"] == ["district", "region"] for a in diff.assumed)


def test_a_declared_hierarchy_is_knowledge_and_must_hold() -> None:
    frame = _districts().iloc[::-1].reset_index(drop=True)
    diff = audit(frame, DISTRICT_SPECS, Knowledge(nested=(("district", "region"),)))
    f = finding(diff, {"region": "R1", "sex = 'm'": False})
    assert f is not None and (f["lo"], f["hi"]) == (2, 2)
    assert any(a["kind"] == "nested" for a in diff.assumed)
    broken = pd.concat([frame, pd.DataFrame([("D1", "R2", "m")], columns=frame.columns)], ignore_index=True)
    from privrisk.errors import PrivriskError

    with pytest.raises(PrivriskError, match=r"nested \['district', 'region'\]: district = D1 lies in more"):
        audit(broken, DISTRICT_SPECS, Knowledge(nested=(("district", "region"),)))


AGEGROUP = "CASE WHEN age < 18 THEN '0-17' WHEN age < 30 THEN '18-29' ELSE '30+' END"


def _ages() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    ages = [
        *list(rng.integers(0, 18, 30)),
        20,
        21,
        *list(rng.integers(24, 30, 20)),
        *list(rng.integers(30, 80, 40)),
    ]
    sexes = ["f" if i % 2 == 0 else "m" for i in range(len(ages))]
    sexes[30] = sexes[31] = "f"  # the two women aged 18–23
    frame = pd.DataFrame({"age": ages, "sex": sexes})
    frame.loc[frame["age"].between(18, 23) & (frame.index > 31), "age"] = 25
    return frame


def test_an_age_group_derived_from_age_beside_a_condition_on_age() -> None:
    # T1: age group × sex; T2: sex for age >= 24. The women aged 18–23 are the women less those 24 and over
    # less the women under 18 (all under 24 by definition); the 30+ are all 24 and over. Exactly 2.
    frame = _ages()
    specs = [
        OutputSpec(name="T1", kind="count", rows=("agegroup",), columns=("sex",)),
        OutputSpec(name="T2", kind="count", rows=("sex",), where="age >= 24"),
    ]
    labels = {"sex": "f", "agegroup": "18-29", "age >= 24": False}
    from privrisk.outputs.knowledge import derive

    # Declared in the spec:
    diff = audit(derive(frame, Knowledge(derived=(("agegroup", AGEGROUP),))), specs,
                 Knowledge(derived=(("agegroup", AGEGROUP),)))  # fmt: skip
    f = finding(diff, {"agegroup": "18-29", "sex": "f", "age >= 24": False})
    assert f is not None and (f["lo"], f["hi"]) == (2, 2), diff.findings
    # A column of the data that follows from age is found to, and reported as assumed:
    with_column = frame.assign(
        agegroup=derive(frame, Knowledge(derived=(("agegroup", AGEGROUP),)))["agegroup"]
    )
    diff = audit(with_column, specs)
    f = finding(diff, {"agegroup": "18-29", "sex": "f", "age >= 24": False})
    assert f is not None and (f["lo"], f["hi"]) == (2, 2)
    assert any(a["kind"] == "dependency" and a["variables"] == ["age", "agegroup"] for a in diff.assumed)
    del labels


def test_a_sum_and_a_mean_give_the_count() -> None:
    # Income sums and means by region give each region's count (sum / mean); the counts of those 19 and over by
    # region then leave B's one 18-year-old.
    rng = np.random.default_rng(3)
    rows = [("A", 30, float(x)) for x in rng.uniform(1000, 2000, 30)]
    rows += [("B", 18, 1500.0)] + [("B", 40, float(x)) for x in rng.uniform(1000, 2000, 11)]
    frame = pd.DataFrame(rows, columns=["region", "age", "income"])
    specs = [
        OutputSpec(name="Sums", kind="sum", variable="income", rows=("region",)),
        OutputSpec(name="Means", kind="mean", variable="income", rows=("region",)),
        OutputSpec(name="Adults", kind="count", rows=("region",), where="age >= 19"),
    ]
    f = finding(audit(frame, specs), {"region": "B", "age >= 19": False})
    assert f is not None and (f["lo"], f["hi"]) == (1, 1)
    assert {"Sums", "Means", "Adults"} <= {n for d in audit(frame, specs).disclosures for n in d["outputs"]}


def test_a_zero_found_by_differencing_is_an_attribute_disclosure() -> None:
    # Region totals and the smokers by region: West's total equals its smokers, so everyone in West smokes.
    frame = people([(14, ("West", "yes")), (15, ("East", "yes")), (12, ("East", "no"))], ["region", "smoker"])
    specs = [
        OutputSpec(name="All", kind="count", rows=("region",)),
        OutputSpec(name="Smokers", kind="count", rows=("region",), where="smoker = 'yes'"),
    ]
    diff = audit(frame, specs)
    [d] = [d for d in diff.disclosures if d["type"] == "attribute"]
    assert d["labels"] == {"region": "West"}
    assert d["attribute"] == {"variable": "smoker = 'yes'", "value": True}
    assert (
        d["sentence"] == "All and Smokers together show that everyone with region = West has smoker = 'yes'."
    )
    # The policy decides: without zeros_are_disclosive, no such finding.
    assert not [f for f in audit(frame, specs, policy=Policy(zeros_are_disclosive=False)).findings
                if f["type"] == "attribute"]  # fmt: skip


def test_a_sampling_zero_is_not_taken_for_a_structural_one() -> None:
    # Nobody under 30 earns above 5000 in the data, but the domain allows it: the over-30s who earn 5000 or
    # less lie between 2 and 15 (not exactly 2), and no finding is made of them.
    rows = [(30 + i, 6000.0) for i in range(13)] + [(40, 3000.0), (41, 3000.0)] + [(20, 1000.0)] * 20
    frame = pd.DataFrame(rows, columns=["age", "income"])
    specs = [
        OutputSpec(name="Old", kind="count", where="age >= 30"),
        OutputSpec(name="Rich", kind="count", where="income > 5000"),
        OutputSpec(name="All", kind="count"),
    ]
    diff = audit(frame, specs)
    assert not [f for f in diff.findings if f["type"] == "count"]
    atoms = diff.atoms
    row = atoms[atoms["__f0"] & ~atoms["__f1"]].iloc[0]
    assert (row["lo"], row["hi"]) == (2, 15)


def test_a_variable_with_only_missing_values_in_a_group() -> None:
    # Region A's incomes are all missing: its atoms have no largest value, and nothing crashes. (Cells built by
    # hand: the primary rules' cells of such a group are compute's.)
    frame = pd.DataFrame({"region": ["A"] * 12 + ["B"] * 12, "income": [np.nan] * 12 + list(range(1, 13))})
    spec = OutputSpec(name="S", kind="sum", variable="income", rows=("region",))
    cells = pd.DataFrame({"region": ["A", "B"], "set": [("region",)] * 2, "value": [np.nan, 78.0],
                          "n": [0, 12], "missing": [12, 0]})  # fmt: skip
    counts = OutputSpec(name="C", kind="count", rows=("region",))
    count_cells = pd.DataFrame({"region": ["A", "B"], "set": [("region",)] * 2, "value": [12.0, 12.0]})
    con = connect(frame)
    diff = difference(con, [(spec, cells), (counts, count_cells)], Policy())
    assert diff.undecided == 0
    assert diff.atoms.loc[diff.atoms["region"] == "A", "__t1_income"].tolist() == [0.0]


def test_the_p_percent_rule_is_two_sided() -> None:
    # A's incomes 40 M, 1 M and 0.5 M (41.5 M); B's 0.2 M twice. Released: the total income (41.9 M) and the
    # counts. A's sum lies in [0, 41.9 M]: half the width is far more than 10 % of 40 M less the rest (3.5 M),
    # but the upper end is 0.4 M above the truth: an approximate disclosure.
    frame = pd.DataFrame({"region": ["A"] * 3 + ["B"] * 2, "income": [40e6, 1e6, 0.5e6, 0.2e6, 0.2e6]})
    specs = [
        OutputSpec(name="Total", kind="sum", variable="income"),
        OutputSpec(name="Counts", kind="count", rows=("region",)),
    ]
    diff = audit(frame, specs, policy=Policy(safe_threshold=2))
    f = finding(diff, {"region": "A"}, kind="sum")
    assert f is not None and not f["exact"]
    assert f["lo"] == pytest.approx(0.0) and f["hi"] == pytest.approx(41.9e6)


def test_the_spec_declares_knowledge() -> None:
    specs = parse_spec(
        'nested = [["district", "region"]]\n'
        "[derived]\nagegroup = \"CASE WHEN age < 18 THEN 'young' ELSE 'adult' END\"\n"
        '[domains]\nage = { min = 0, max = 120, whole = true }\nregion = ["R1", "R2", "R3"]\n'
        '[[output]]\nname = "T"\nrows = ["agegroup"]\n'
    )
    k = specs.knowledge
    assert k.nested == (("district", "region"),)
    assert k.names == ("agegroup",)
    assert dict(k.domains)["age"].high == 120.0 and dict(k.domains)["region"].values == ("R1", "R2", "R3")


def test_the_same_request_gives_the_same_answer_on_every_run() -> None:
    # Budgets are counted in iterations and nodes, not seconds: two runs agree group by group and atom by atom.
    frame = _ages()
    specs = [
        OutputSpec(name="T1", kind="count", rows=("sex",), where="age >= 18", margins=True),
        OutputSpec(name="T2", kind="count", rows=("sex",), where="age >= 24"),
        OutputSpec(name="T3", kind="count", where="age >= 30"),
    ]
    runs = [audit(frame, specs) for _ in range(2)]
    assert [d["sentence"] for d in runs[0].disclosures] == [d["sentence"] for d in runs[1].disclosures]
    assert runs[0].undecided == runs[1].undecided
    assert runs[0].atoms[["lo", "hi"]].equals(runs[1].atoms[["lo", "hi"]])


def test_the_spec_knowledge_reaches_the_library_check() -> None:
    # check_frame with a parsed spec: the derived age group is computed and known, as in the differencing alone.
    from privrisk.outputs.run import check_frame

    specs = parse_spec(
        f'[derived]\nagegroup = "{AGEGROUP}"\n'
        '[[output]]\nname = "T1"\nrows = ["agegroup"]\ncolumns = ["sex"]\n'
        '[[output]]\nname = "T2"\nrows = ["sex"]\nwhere = "age >= 24"\n'
    )
    result = check_frame(_ages(), specs)
    assert any(d["interval"] == [2, 2] and d["labels"].get("agegroup") == "18-29" for d in result.disclosures)
    assert result.status == "fail"
    assert any(a["kind"] == "derived" for a in result.to_dict()["assumed"])


def test_groups_left_undecided_are_named_and_never_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # With no group allowed beyond the atoms, the rest is undecided: named, counted, and the verdict is review.
    import privrisk.outputs.group_findings as group_findings
    from privrisk.outputs.run import check_frame

    monkeypatch.setattr(group_findings, "GROUP_LIMIT", 0)
    frame = pd.DataFrame({"region": ["A"] * 12 + ["B"] * 12, "sex": ["f", "m"] * 12})
    result = check_frame(frame, [OutputSpec(name="T", kind="count", rows=("region",))])
    assert result.summary["atoms_undecided"] >= 1 and result.undecided_groups
    assert result.status == "review"
    assert "every group of more than one atom" in result.undecided_groups[0]


def test_a_dependency_at_census_size_is_stated_not_a_crash():
    """tenure = hid mod 4 is a function of region = hid mod 12. Over 240,000 records the chance that this happens
    by chance, Π_x Σ_y p_y^{n_x}, is below 10^-144,487 (by hand: four shares of 1/4 and 20,000 records in each
    of 12 regions, 12 · log10(4 · 4^−20,000) = −144,487.17); p_y^{n_x} underflows to 0, and its logarithm used to
    be −inf and crash the check with an OverflowError."""
    import json

    import numpy as np
    import pandas as pd

    from privrisk.outputs import OutputSpec, check_frame

    hid = np.arange(240_000)
    frame = pd.DataFrame({"region": (hid % 12).astype(str), "tenure": (hid % 4).astype(str)})
    run = check_frame(frame, [OutputSpec(name="T1", kind="count", rows=("region",)),
                              OutputSpec(name="T2", kind="count", rows=("tenure",))])  # fmt: skip
    assert "tenure is a function of region in the data (by chance with probability below 10^-144487)" in (
        json.dumps(run.to_dict())
    )
