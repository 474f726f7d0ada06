"""The words of output checking: a plain condition selects exactly the rows its original (or its negation) does.

The oracle is DuckDB itself: the plain text, read back as SQL ("is missing" as IS NULL), must keep the same rows
as ``COALESCE(condition, FALSE) = truth`` on data with missing values (SQL's three-valued logic).
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privrisk.outputs.wording import (
    cell_text,
    condition_text,
    count_phrase,
    group_text,
    interval_phrase,
    negated,
    quantity,
    singular,
)

FRAME = pd.DataFrame(
    {
        "a": pd.array([None, 0, 1, 2, 3, 4, None, 2, 5, 1], dtype="Int64"),
        "b": [None, "x", "y", "xy", "z", None, "x", "yz", "zz", "x"],
        "flag": pd.array([True, False, None, True, False, True, None, False, True, False], dtype="boolean"),
    }
)

LEAVES = st.sampled_from(
    [
        "a = 1",
        "a <> 2",
        "a != 2",
        "a >= 2",
        "a < 3",
        "a > 0",
        "a <= 4",
        "a == 1",
        "b = 'x'",
        "b <> 'y'",
        "a IN (1, 2)",
        "a NOT IN (0, 5)",
        "b in ('x', 'zz')",
        "a BETWEEN 1 AND 3",
        "a NOT BETWEEN 2 AND 4",
        "a IS NULL",
        "b IS NOT NULL",
        "b LIKE 'x%'",
        "b NOT LIKE '%z'",
        "flag",
        "a + 1 > 2",
        "lower(b) = 'x'",
        "(a + 1) * 2 >= 6",
    ]
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        children.map(lambda x: f"NOT ({x})"),
        children.map(lambda x: f"NOT {x}" if " " not in x else f"NOT ({x})"),
        st.tuples(children, children, st.sampled_from(["AND", "OR", "and", "or"])).map(
            lambda t: f"({t[0]}) {t[2]} ({t[1]})"
        ),
        # Without brackets: precedence decides (and before or).
        st.tuples(children, children, children).map(lambda t: f"{t[0]} AND {t[1]} OR {t[2]}"),
        st.tuples(children, children, children).map(lambda t: f"{t[0]} OR {t[1]} AND {t[2]}"),
    )


CONDITIONS = st.recursive(LEAVES, _combine, max_leaves=5)


_CON = duckdb.connect()
_CON.register("data", FRAME.assign(i=range(len(FRAME))))


def _rows(sql: str) -> list[int]:
    return [r[0] for r in _CON.sql(f"SELECT i FROM data WHERE {sql} ORDER BY i").fetchall()]


def _as_sql(plain: str) -> str:
    return plain.replace(" is not missing", " IS NOT NULL").replace(" is missing", " IS NULL")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(condition=CONDITIONS, truth=st.booleans())
def test_a_plain_condition_keeps_the_rows_of_the_original(condition: str, truth: bool) -> None:
    plain = condition_text([condition], [truth], missing=["a", "b", "flag"])
    expected = _rows(f"COALESCE(({condition}), FALSE) = {str(truth).upper()}")
    assert _rows(_as_sql(plain)) == expected, plain
    # No double negative is left where the parser read the condition.
    assert "not (" not in plain.lower() or "?" in condition


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conditions=st.lists(CONDITIONS, min_size=1, max_size=3), data=st.data())
def test_several_conditions_joined_by_and_keep_the_rows_of_their_pattern(
    conditions: list[str], data: st.DataObject
) -> None:
    truths = data.draw(st.lists(st.booleans(), min_size=len(conditions), max_size=len(conditions)))
    plain = condition_text(conditions, truths, missing=["a", "b", "flag"])
    pattern = " AND ".join(
        f"COALESCE(({c}), FALSE) = {str(t).upper()}" for c, t in zip(conditions, truths, strict=True)
    )
    assert _rows(_as_sql(plain)) == _rows(pattern), plain


def test_the_issue_examples_read_plainly() -> None:
    # Issue 37: "not (agegroup <> '65+')" and "region = A and region = 'A' OR age >= 65".
    assert condition_text(["agegroup <> '65+'"], [False]) == "agegroup = '65+'"
    assert group_text({"region": "A"}, ["region = 'A' OR age >= 65"], [True]) == (
        "region = A and (region = 'A' or age >= 65)"
    )
    assert group_text({"region": "West", "sex": "female"}, ["age >= 18", "age >= 19"], [True, False]) == (
        "region = West, sex = female, age >= 18 and age < 19"
    )
    # A column with missing values: "not age >= 19" holds for them too, and the sentence says so.
    assert negated("age >= 19", missing=["age"]) == "age < 19 or age is missing"


def test_an_unreadable_condition_is_kept_whole() -> None:
    assert negated("age >= 18 ~ 3") == "not (age >= 18 ~ 3)"
    assert condition_text(["age >= 18 ~ 3"], [True]) == "age >= 18 ~ 3"


@pytest.mark.parametrize(
    ("lo", "hi", "unit", "text"),
    [
        (20, 20, "people", "exactly 20 people"),
        (1, 1, "firms", "exactly 1 firm"),
        (2, 13, "people", "between 2 and 13 people"),
        (1, 1, "households", "exactly 1 household"),
    ],
)
def test_counts_in_words(lo: int, hi: int, unit: str, text: str) -> None:
    assert count_phrase(lo, hi, unit) == text


def test_two_ends_that_differ_never_read_the_same() -> None:
    # Issue 37: an approximate finding "between 1,080 and 1,080".
    for lo, hi in [(1079.9, 1080.1), (1080.0, 1080.0000001), (5e6, 5e6 + 0.5), (-3.0001, -3.0)]:
        text = interval_phrase(lo, hi)
        a, b = text.removeprefix("between ").split(" and ")
        assert a != b, text
    assert interval_phrase(20, 20) == "exactly 20"


def test_units_and_cells() -> None:
    assert [singular(u) for u in ("people", "firms", "records", "enterprises", "persons")] == [
        "person",
        "firm",
        "record",
        "enterprise",
        "person",
    ]
    assert quantity(1, "firms") == "1 firm" and quantity(3, "records") == "3 records"
    assert cell_text({"region": "West", "sex": "All"}) == "region = West, total over sex"
    assert cell_text({}) == "the total"
    assert cell_text(
        {"g": "All", "sex": "All (total)"}, margin={"g": "All (total)", "sex": "All (total)"}
    ) == ("g = All, total over sex")


def test_a_spec_unit_names_what_the_rules_count(tmp_path):
    """``unit = "firms"`` on an output: the threshold rule counts firms (hand-made: one firm in a cell)."""
    import pandas as pd

    from privrisk.outputs import OutputsSettings, run_outputs
    from privrisk.outputs.report import rule_text
    from privrisk.outputs.spec import parse_spec

    spec = parse_spec('[[output]]\nname = "T"\nrows = ["region"]\nunit = "firms"\n')
    assert spec[0].unit == "firms" and spec[0].to_dict()["unit"] == "firms"
    frame = pd.DataFrame({"region": ["N"] * 12 + ["S"]})
    result = run_outputs(OutputsSettings(data=frame, spec=tuple(spec)))
    rules = [r for o in result.outputs for c in o["cells"] for r in c.get("rules", []) if r["status"] == "fail"]
    assert rules and all(r["unit"] == "firms" for r in rules)
    assert "1 firm," in rule_text(rules[0])


@pytest.mark.parametrize("unit", ["", "12", "a" * 41, "x;y"])
def test_a_unit_that_is_not_a_word_is_one_line(unit):
    from privrisk.errors import PrivriskError
    from privrisk.outputs.spec import parse_spec

    with pytest.raises(PrivriskError, match="field 'unit' must be a word"):
        parse_spec(f'[[output]]\nname = "T"\nrows = ["region"]\nunit = "{unit}"\n')
