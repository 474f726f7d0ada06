"""Local suppression: every record meets the target by its own suppressions, and no smaller set does.

The brute force here shares no code with privrisk: a record meets k when at least k records of the file as given
agree with it on every key it still shows (a value missing in the file as given agreeing with any value), and
the fewest suppressions are found by trying every set of cells by increasing size.
"""

from __future__ import annotations

import os
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.microdata import MicrodataSettings, cell_frequencies, individual_risk, measure_microdata
from privrisk.microdata.suppression import suppress, suppress_microdata

EXAMPLES = Path(__file__).parents[2] / "examples"


def people_agreeing(codes: np.ndarray, shown: np.ndarray, i: int) -> list[int]:
    """The records whose values in the file as given agree with record i on every key it shows (−1 agrees)."""
    out = []
    for r in range(codes.shape[0]):
        if all(codes[r, j] < 0 or codes[r, j] == codes[i, j] for j in range(codes.shape[1]) if shown[i, j]):
            out.append(r)
    return out


def meets(codes: np.ndarray, shown: np.ndarray, k: int) -> bool:
    return all(len(people_agreeing(codes, shown, i)) >= k for i in range(codes.shape[0]))


def fewest_by_brute_force(codes: np.ndarray, k: int) -> int:
    cells = [(r, j) for r in range(codes.shape[0]) for j in range(codes.shape[1]) if codes[r, j] >= 0]
    for size in range(len(cells) + 1):
        for chosen in combinations(cells, size):
            shown = codes >= 0
            for r, j in chosen:
                shown[r, j] = False
            if meets(codes, shown, k):
                return size
    raise AssertionError("unreachable: with every value suppressed every record agrees with all n")


def wildcard_k(codes: np.ndarray) -> int:
    """sdcMicro's k of a file (a missing value matches any value), counted pair by pair."""
    n = codes.shape[0]
    return min(sum(all(a < 0 or b < 0 or a == b for a, b in zip(codes[i], codes[r], strict=True)) for r in range(n))
               for i in range(n))  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 3), st.integers(0, 10_000), st.integers(2, 3), st.booleans())
def test_the_fewest_suppressions_equal_brute_force(n, q, seed, k, with_missing):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(n, q))
    if with_missing:
        codes[rng.random((n, q)) < 0.15] = -1
    if k > n or n * q > 15:
        return
    s = suppress(codes, [f"k{j}" for j in range(q)], k=k)
    assert s.optimal and s.method == "exact" and s.bound == len(s.cells)
    assert len(s.cells) == fewest_by_brute_force(codes, k)
    assert meets(codes, s.codes >= 0, k)
    assert wildcard_k(s.codes) >= k  # the released file meets k in sdcMicro's reading too


def test_the_practice_guides_seven_respondents():
    # SDC practice guide, "Local suppression": suppressing 'higher' of respondent 1 gives 3-anonymity; the guide
    # finds gender more important than education
    rows = [
        ("female", "rural", "higher"),
        *[("male", "rural", "higher")] * 3,
        *[("female", "rural", "lower")] * 3,
    ]
    frame = pd.DataFrame(rows, columns=["gender", "region", "education"])
    run = measure_microdata(frame, MicrodataSettings(keys="gender,region,education", k=3))
    s, after = suppress_microdata(run, importance=["gender", "region", "education"])
    assert s.cells == [(0, 2)] and s.optimal and after.failures() == []
    s, _ = suppress_microdata(run, importance=["education", "region", "gender"])
    assert s.cells == [(0, 0)]


GUIDE_TEN = [  # the SDC practice guide's SUDA example: residence, gender, education, labour status
    ("urban", "female", "secondary incomplete", "employed"), ("urban", "female", "secondary incomplete", "employed"),
    ("urban", "female", "primary incomplete", "non-LF"), ("urban", "male", "secondary complete", "employed"),
    ("rural", "female", "secondary complete", "unemployed"), ("urban", "male", "secondary complete", "employed"),
    ("urban", "female", "primary complete", "non-LF"), ("urban", "male", "post-secondary", "unemployed"),
    ("urban", "female", "secondary incomplete", "non-LF"), ("urban", "female", "secondary incomplete", "non-LF"),
]  # fmt: skip


def test_the_practice_guides_ten_records_by_hand():
    # k = 2, by hand: records 3 and 7 hide their education (urban, female, non-LF: three others agree); record 8
    # hides education and labour status (urban, male: records 4 and 6); record 5 (rural, female, secondary
    # complete, unemployed) shares no pair of values besides 'female' with anyone, so it keeps one: 'female'
    # (six others) or 'secondary complete' (records 4 and 6), hiding three. 1 + 1 + 2 + 3 = 7.
    codes = np.column_stack([pd.factorize(pd.Series(c))[0] for c in zip(*GUIDE_TEN, strict=True)])
    s = suppress(codes, ["residence", "gender", "education", "labour"], k=2)
    assert len(s.cells) == 1 + 1 + 2 + 3 == fewest_per_record(codes, 2)
    assert s.optimal and sorted({r for r, _ in s.cells}) == [2, 4, 6, 7]


def test_blanking_one_record_is_not_a_protection():
    # Why the target is each record's own: with sdcMicro's reading alone (a suppressed value matches any value,
    # counted for every record), blanking one record of an all-unique file "meets" k = 2 with q suppressions.
    rng = np.random.default_rng(3)
    codes = np.unique(rng.integers(0, 6, size=(40, 4)), axis=0)
    blank = codes.copy()
    blank[0] = -1
    assert wildcard_k(codes) == 1 and wildcard_k(blank) == 2
    s = suppress(codes, list("abcd"), k=2)
    assert len(s.cells) > 4 and meets(codes, s.codes >= 0, 2)
    assert (s.codes >= 0).any(axis=1).all()  # no record blanked: each hides only what it must


def test_importance_decides_between_equally_small_solutions():
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [0, 1]])  # record 4 is unique; either key works
    assert suppress(codes, ["a", "b"], k=2).cells == [(4, 1)]  # b is the least important by default
    assert suppress(codes, ["a", "b"], k=2, importance=["b", "a"]).cells == [(4, 0)]


def test_past_the_search_budget_each_record_is_solved_on_its_own():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 4, size=(300, 4))
    full = suppress(codes, list("abcd"), k=3)
    cut = suppress(codes, list("abcd"), k=3, max_patterns=2)
    assert full.optimal and full.method == "exact"
    assert cut.optimal and cut.method == "per-record" and cut.cells == full.cells


def test_a_spent_time_budget_falls_back_and_states_a_bound():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 4, size=(300, 4))
    full = suppress(codes, list("abcd"), k=3)
    cut = suppress(codes, list("abcd"), k=3, max_patterns=2, time_limit=0.0)
    assert not cut.optimal and cut.method == "greedy"
    assert meets(codes, cut.codes >= 0, 3) and wildcard_k(cut.codes) >= 3
    assert cut.bound <= len(full.cells) <= len(cut.cells) and 0 < cut.gap < 1
    assert sum(cut.by_key.values()) == len(cut.cells)


def test_a_risk_target_with_weights_past_the_budget():
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, size=(60, 4))
    w = rng.uniform(5, 50, 60)
    full = suppress(codes, list("abcd"), weights=w, max_risk=0.05)
    cut = suppress(codes, list("abcd"), weights=w, max_risk=0.05, max_patterns=2)
    assert full.optimal and cut.optimal and cut.method == "per-record" and cut.cells == full.cells
    # the integer programme cannot state this target: those records drop keys greedily, with a stated bound
    greedy = suppress(codes, list("abcd"), weights=w, max_risk=0.05, max_patterns=2, _engine="milp")
    assert greedy.method == "greedy" and greedy.bound <= len(full.cells) <= len(greedy.cells)
    cells = cell_frequencies(greedy.codes, w)
    assert individual_risk(cells.fk, cells.Fk).max() <= 0.05


def test_risk_target_with_weights():
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, size=(40, 3))
    w = rng.uniform(5, 50, 40)
    s = suppress(codes, list("abc"), weights=w, max_risk=0.05)
    cells = cell_frequencies(s.codes, w)
    assert individual_risk(cells.fk, cells.Fk).max() <= 0.05
    # each record by its own suppressions: the people agreeing with what it shows carry the risk
    shown = s.codes >= 0
    for i in range(40):
        agree = people_agreeing(codes, shown, i)
        assert individual_risk([len(agree)], [w[agree].sum()])[0] <= 0.05


def test_the_run_function_re_measures():
    frame = pd.DataFrame({"region": [*"nnnsss", "e"], "sex": [*"ffmmmf", "m"]})
    before = measure_microdata(frame, MicrodataSettings(keys="region,sex", k=2))
    s, after = suppress_microdata(before)
    assert after.measures["k_anonymity"]["k"] >= 2 and after.failures() == []
    assert len(s.cells) == int(after.frame[["region", "sex"]].isna().sum().sum())


def test_needs_a_target():
    with pytest.raises(PrivriskError, match="k: give k or max_risk"):
        suppress(np.zeros((3, 1), dtype=np.int64), ["a"])
    with pytest.raises(PrivriskError, match="importance:"):
        suppress(np.zeros((3, 1), dtype=np.int64), ["a"], k=2, importance=["b"])


# -------------------------------------------------------------------------------------------- households
def readable_off_household(released: pd.DataFrame, original: pd.DataFrame, key: str, household: str) -> int:
    """Suppressed values of ``key`` that another member of the same household still shows, where the household
    shows one value of the key in the file as given (region, household size: a member's value is everyone's)."""
    count = 0
    for i in np.flatnonzero(released[key].isna().to_numpy() & original[key].notna().to_numpy()):
        home = original[household] == original[household].iloc[i]
        if original.loc[home, key].nunique() > 1:
            continue  # the members differ: another member's value is not this one's
        mates = released[home & (released.index != i)]
        count += int((mates[key].dropna().astype(str) == str(original[key].iloc[i])).any())
    return count


@pytest.mark.parametrize(("k", "max_risk"), [(3, None), (2, None), (None, 0.02)])
def test_no_suppressed_value_can_be_read_off_the_household(k, max_risk):
    survey = pd.read_csv(EXAMPLES / "microdata_survey.csv")
    settings = MicrodataSettings(keys="region,age,sex", weights="weight", household="hid", k=k, max_risk=max_risk,
                                 reduction="suppress", importance="age,sex,region")  # fmt: skip
    s, after = suppress_microdata(measure_microdata(survey, settings), importance=["age", "sex", "region"])
    released = after.frame
    for key in ("region", "age", "sex"):
        assert readable_off_household(released, survey, key, "hid") == 0, key
    assert s.by_key["region"] > 0 or k != 3  # at k = 3 (the case) regions go, by household
    assert after.failures() == []
    if max_risk is not None:
        assert after.measures["household_risk"]["max"] <= max_risk


# ----------------------------------------------------------------------------- sdcMicro's testdata2 (GPL-2)
TESTDATA2 = os.environ.get("PRIVRISK_TESTDATA2")
KEYS2 = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
IMPORTANCE2 = ["urbrur", "electcon", "sex", "walls", "roof", "relat", "water"]


def fewest_per_record(codes: np.ndarray, k: int) -> int:
    """Σ over the records of the fewest keys each must hide so that k records agree with the rest (brute force)."""
    n, q = codes.shape
    total = 0
    for i in range(n):
        for size in range(q + 1):
            if any(sum(all(codes[r, j] == codes[i, j] for j in range(q) if j not in hide) for r in range(n)) >= k
                   for hide in combinations(range(q), size)):  # fmt: skip
                total += size
                break
    return total


@pytest.mark.skipif(
    not TESTDATA2, reason="set PRIVRISK_TESTDATA2 to a CSV of sdcMicro's testdata2 (see README)"
)
@pytest.mark.parametrize("k", [2, 3])
def test_sdcmicro_testdata2(k):
    data = pd.read_csv(str(TESTDATA2))
    settings = MicrodataSettings(keys=KEYS2, weights="sampling_weight", k=k, reduction="suppress",
                                 importance=IMPORTANCE2)  # fmt: skip
    s, after = suppress_microdata(measure_microdata(data, settings), importance=IMPORTANCE2)
    codes = data[KEYS2].to_numpy()
    assert s.optimal and len(s.cells) == fewest_per_record(codes, k)
    assert after.measures["k_anonymity"]["k"] >= k and meets(codes, s.codes >= 0, k)
