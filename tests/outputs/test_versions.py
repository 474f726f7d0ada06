"""Earlier outputs of another version of the data (issue 31, item 4): the versions checked as one population whose
newcomers and leavers are groups like any other.

The expected findings are worked out by hand in each test, and the property test compares with an enumeration of
its own: every split of each cell's counts into those who stayed, left and joined that gives both tables and the
known number of newcomers and leavers.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.helpers import one_line_error

from privrisk.errors import PrivriskError
from privrisk.ledger import read_ledger_file
from privrisk.outputs import OutputSpec
from privrisk.outputs.run import OutputsSettings, run_outputs
from privrisk.outputs.versions import VERSION, one_population

PEOPLE = Path(__file__).parents[2] / "examples" / "outputs" / "people.csv"


def adults(name: str, where: str = "age >= 18") -> tuple[OutputSpec, ...]:
    return (OutputSpec(name=name, kind="count", rows=("region",), columns=("sex",), where=where),)


def check(data, specs, ledger, earlier=(), append=True):
    return run_outputs(
        OutputsSettings(data=data, spec=specs, ledger=ledger, earlier_data=earlier, append=append)
    )


def people() -> pd.DataFrame:
    return pd.read_csv(PEOPLE)


def newcomer_findings(result, **labels):
    """The exact count findings about today's newcomers (the records only today's version holds)."""
    return [
        d
        for d in result.disclosures
        if d["type"] == "count"
        and d["labels"].get(VERSION) == "today"
        and all(d["labels"].get(k) == v for k, v in labels.items())
    ]


def test_a_newcomer_is_found_by_differencing_januarys_table_and_februarys(tmp_path):
    # The case: January's table in the ledger, February's on data with one newcomer (an 18-year-old woman
    # in North). February's table minus January's is that woman: exactly 1 person.
    led = tmp_path / "ledger.json"
    january = people()
    assert check(january, adults("Adults"), led).status == "pass"
    february = pd.concat(
        [january, pd.DataFrame([{"region": "North", "sex": "female", "age": 18, "income": 2e4}])]
    )
    result = check(february, adults("Again"), led, earlier=(january,))
    assert result.status == "fail"
    [found] = newcomer_findings(result, region="North", sex="female")
    assert found["interval"] == [1, 1] and found["kind"] == "exact"
    assert set(found["outputs"]) >= {"Adults", "Again"}
    assert result.ledger is not None and not result.ledger["appended"]
    assert len(read_ledger_file(led)) == 1
    assert result.summary["records"] == 160 and result.summary["records_all_versions"] == 160
    assert any(a["kind"] == "versions" for a in result.assumed)


def test_a_leaver_is_a_group_too(tmp_path):
    # February lost one man in West aged 40: January's table minus February's is him.
    led = tmp_path / "ledger.json"
    january = pd.concat(
        [people(), pd.DataFrame([{"region": "West", "sex": "male", "age": 40, "income": 1e4}])]
    )
    assert check(january, adults("Adults"), led).status == "pass"
    result = check(people(), adults("Again"), led, earlier=(january,))
    leavers = [
        d for d in result.disclosures if d["type"] == "count" and d["labels"].get(VERSION) == "earlier 1"
    ]
    assert any(
        d["labels"].get("region") == "West" and d["labels"].get("sex") == "male" and d["interval"] == [1, 1]
        for d in leavers
    ), result.disclosures


def test_a_birthday_makes_a_leaver_of_the_child_and_a_newcomer_of_the_adult(tmp_path):
    # One person turned 18 between the versions: the adults' tables differ by exactly that person.
    led = tmp_path / "ledger.json"
    january = people()
    child = january.index[january["age"] < 18][0]
    february = january.copy()
    february.loc[child, "age"] = 18
    assert check(january, adults("Adults"), led).status == "pass"
    result = check(february, adults("Again"), led, earlier=(january,))
    row = january.loc[child]
    [found] = newcomer_findings(result, region=row["region"], sex=row["sex"])
    assert found["interval"] == [1, 1]
    # The inputs are never modified.
    assert january.loc[child, "age"] < 18


def test_without_the_earlier_data_the_request_is_refused_and_the_message_says_what_to_give(tmp_path, cli):
    led = tmp_path / "ledger.json"
    spec = tmp_path / "adults.toml"
    spec.write_text('[[output]]\nname = "Adults"\nkind = "count"\nrows = ["region"]\ncolumns = ["sex"]\n'
                    'where = "age >= 18"\n')  # fmt: skip
    assert cli("outputs", PEOPLE, "--spec", spec, "--ledger", led).code == 0
    february = tmp_path / "february.csv"
    february.write_text(PEOPLE.read_text().rstrip("\n") + "\nNorth,female,18,20000.0\n")
    again = tmp_path / "again.toml"
    again.write_text(spec.read_text().replace('"Adults"', '"Again"'))
    r = cli("outputs", february, "--spec", again, "--ledger", led)
    one_line_error(r, "--ledger", "'Adults'", "159 rows then, 160 now", "earlier data")
    # With the January file given, the same request is checked and fails on the newcomer; nothing is appended.
    r = cli("outputs", february, "--spec", again, "--ledger", led, "--earlier-data", PEOPLE, "--json")
    doc = json.loads(r.out)
    assert r.code == 1 and doc["status"] == "fail", r.err
    assert any(d["labels"].get(VERSION) == "today" and d["interval"] == [1, 1] for d in doc["disclosures"])
    assert len(read_ledger_file(led)) == 1


def test_earlier_data_of_another_version_than_the_ledgers_is_named_in_the_refusal(tmp_path):
    led = tmp_path / "ledger.json"
    january = people()
    check(january, adults("Adults"), led)
    february = pd.concat(
        [january, pd.DataFrame([{"region": "North", "sex": "female", "age": 18, "income": 2e4}])]
    )
    other = january.iloc[:-3]
    with pytest.raises(PrivriskError, match="none of the earlier data given is that version") as err:
        check(february, adults("Again"), led, earlier=(other,))
    assert err.value.param == "ledger"


def test_an_unchanged_population_with_its_earlier_data_passes_as_before(tmp_path):
    # A newcomer aged 10 and a request of other columns: nothing about the newcomer is released (no output reads
    # children), so the check with the earlier data finds what the request alone gives.
    led = tmp_path / "ledger.json"
    january = people()
    check(january, adults("Adults"), led)
    february = pd.concat(
        [january, pd.DataFrame([{"region": "North", "sex": "female", "age": 10, "income": 0.0}])]
    )
    result = check(february, adults("Over 17", "age >= 17"), led, earlier=(january,), append=False)
    assert not newcomer_findings(result)
    # The earlier numbers are the ones the ledger records; none moved.
    assert result.summary["earlier_numbers_changed"] == 0


def test_earlier_data_needs_a_ledger_and_must_not_be_it(tmp_path):
    with pytest.raises(PrivriskError, match="give a ledger") as err:
        OutputsSettings(data="d.csv", spec="s.toml", earlier_data="jan.csv")
    assert err.value.param == "earlier_data"
    led = tmp_path / "ledger.json"
    with pytest.raises(PrivriskError, match="also the earlier data file"):
        OutputsSettings(data="d.csv", spec="s.toml", ledger=led, earlier_data=(led,))
    with pytest.raises(PrivriskError) as err:
        OutputsSettings(data="d.csv", spec="s.toml", ledger=led, earlier_data=(3,))
    assert err.value.param == "earlier_data"


def test_an_unreadable_earlier_file_is_one_line(tmp_path, cli):
    led = tmp_path / "ledger.json"
    spec = tmp_path / "adults.toml"
    spec.write_text('[[output]]\nname = "Adults"\nkind = "count"\nrows = ["region"]\nwhere = "age >= 18"\n')
    assert cli("outputs", PEOPLE, "--spec", spec, "--ledger", led).code == 0
    february = tmp_path / "february.csv"
    february.write_text(PEOPLE.read_text().rstrip("\n") + "\nNorth,female,18,20000.0\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    again = tmp_path / "again.toml"
    again.write_text(spec.read_text().replace('"Adults"', '"Again"'))
    r = cli("outputs", february, "--spec", again, "--ledger", led, "--earlier-data", empty)
    one_line_error(r, "empty")


def test_records_are_matched_by_the_values_the_outputs_read():
    jan = pd.DataFrame({"region": ["N", "N", "S", "S"], "note": ["a", "b", "c", "d"]})
    feb = pd.DataFrame({"region": ["N", "S", "S", "S", "W"], "note": ["x", "y", "z", "w", "v"]})
    both = one_population(feb, [jan], ["region"])
    counts = both.frame.groupby(["region", VERSION]).size().to_dict()
    assert counts == {("N", "earlier 1 + today"): 1, ("N", "earlier 1"): 1, ("S", "earlier 1 + today"): 2,
                      ("S", "today"): 1, ("W", "today"): 1}  # fmt: skip
    assert dict(both.patterns) == {"today": {0}, "earlier 1": {1}, "earlier 1 + today": {0, 1}}


# -- the property: what an enumeration of the versions pins, privrisk reports -------------------------------------

CELLS = [("N", "f"), ("N", "m"), ("S", "f"), ("S", "m")]


def _pinned_newcomers(jan: dict, feb: dict, joined: int, left: int, threshold: int) -> dict:
    """Per cell, the newcomers' count when every split (stayed, left, joined) that gives both tables and the
    known totals of newcomers and leavers agrees on it and it is within [1, threshold − 1]."""
    options = []
    for c in CELLS:
        # left(c) from 0 to jan(c); joined(c) = feb(c) − jan(c) + left(c) ≥ 0 and stayed = jan − left ≤ feb.
        options.append([(lf, feb[c] - jan[c] + lf) for lf in range(jan[c] + 1) if feb[c] - jan[c] + lf >= 0])
    seen: dict = {c: set() for c in CELLS}
    for split in itertools.product(*options):
        if sum(lf for lf, _ in split) == left and sum(j for _, j in split) == joined:
            for c, (_, j) in zip(CELLS, split, strict=True):
                seen[c].add(j)
    return {c: next(iter(v)) for c, v in seen.items() if len(v) == 1 and 1 <= next(iter(v)) < threshold}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    jan=st.lists(st.integers(10, 14), min_size=4, max_size=4),
    change=st.lists(st.integers(-2, 2), min_size=4, max_size=4),
)
def test_every_newcomer_group_an_enumeration_pins_is_reported(tmp_path_factory, jan, change):
    # Each cell gains newcomers or loses leavers (records are matched by the values the outputs read, so one
    # cell's leaver and newcomer would be one person who stayed). Every cell holds 10 or more in January (so that
    # January passes and is in the ledger) and 8 or more in February: both tables show all four cells, as the
    # enumeration assumes. Ages tell the records apart: the leavers are the oldest of their cell.
    joined = [max(c, 0) for c in change]
    left = [max(-c, 0) for c in change]
    records = []
    for (region, sex), n, gone, new in zip(CELLS, jan, left, joined, strict=True):
        records += [(region, sex, 20 + k, k >= n - gone, False) for k in range(n)]
        records += [(region, sex, 1, False, True) for _ in range(new)]
    everyone = pd.DataFrame(records, columns=["region", "sex", "age", "leaves", "joins"])
    january = everyone[~everyone["joins"]][["region", "sex", "age"]].reset_index(drop=True)
    february = everyone[~everyone["leaves"]][["region", "sex", "age"]].reset_index(drop=True)

    def spec(name: str) -> tuple[OutputSpec, ...]:
        return (OutputSpec(name=name, kind="count", rows=("region", "sex")),)

    led = tmp_path_factory.mktemp("versions") / "ledger.json"
    assert check(january, spec("January"), led).status == "pass"
    result = check(february, spec("February"), led, earlier=(january,), append=False)
    feb = {c: n - lf + j for c, n, lf, j in zip(CELLS, jan, left, joined, strict=True)}
    expected = _pinned_newcomers(
        dict(zip(CELLS, jan, strict=True)), feb, sum(joined), sum(left), threshold=10
    )
    for (region, sex), value in expected.items():
        assert any(
            d["labels"].get(VERSION) == "today"
            and d["labels"].get("region") == region
            and d["labels"].get("sex") == sex
            and d["interval"] == [value, value]
            for d in result.disclosures
        ), ((region, sex), value, result.disclosures)
    # Nothing about the newcomers is called exact that the enumeration leaves open.
    for d in newcomer_findings(result):
        region, sex = d["labels"].get("region"), d["labels"].get("sex")
        if region is not None and sex is not None and d["kind"] == "exact":
            assert (region, sex) in expected, d


def test_changed_data_that_gives_the_earlier_numbers_again_is_said_in_assumed(tmp_path):
    led = tmp_path / "ledger.json"
    january = people()
    check(january, adults("Adults"), led)
    february = pd.concat([january, pd.DataFrame([{"region": "North", "sex": "female", "age": 10, "income": 0.0}])])
    result = check(february, adults("Over 19", "age >= 19"), led, append=False)
    [said] = [a for a in result.assumed if a["kind"] == "same population"]
    assert "'Adults' was computed on another version of the data" in said["sentence"]
    assert result.summary["earlier_data_changed"] == 1
