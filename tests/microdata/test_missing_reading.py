"""One reading of a missing key value in every measure (issue 32): for any file and either ``missing`` setting,
f_k, the attacker models, population uniqueness, ℓ, SUDA2 and the suppression agree on which records match.

The brute force shares no code with privrisk: two records match when, on every key, their values are equal or
(with ``missing="any"``) one of them is missing; with ``"category"`` a missing value equals only a missing value.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.microdata import MicrodataSettings, measure_microdata, run_microdata

KEYS = ["a", "b", "c"]


def match(x: list, y: list, rule: str) -> bool:
    for u, v in zip(x, y, strict=True):
        if rule == "any" and (u is None or v is None):
            continue
        if u != v:
            return False
    return True


def matches(rows: list[list], rule: str) -> list[list[int]]:
    return [[j for j, y in enumerate(rows) if match(x, y, rule)] for x in rows]


@st.composite
def files(draw):
    n = draw(st.integers(2, 9))
    cell = st.one_of(st.none(), st.sampled_from(["x", "y", "z"]))
    rows = [[draw(st.sampled_from(["p", "q"])), draw(cell), draw(cell)] for _ in range(n)]
    sensitive = [draw(st.one_of(st.none(), st.sampled_from(["s1", "s2", "s3"]))) for _ in range(n)]
    return rows, sensitive


def frame_of(rows, sensitive) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=KEYS, dtype=object)
    frame["s"] = pd.Series(sensitive, dtype=object)
    return frame


@settings(max_examples=60, deadline=None)
@given(files(), st.sampled_from(["any", "category"]))
def test_every_measure_reads_a_missing_value_the_same_way(data, rule):
    rows, sensitive = data
    frame = frame_of(rows, sensitive)
    result = measure_microdata(
        frame, MicrodataSettings(keys=KEYS, sensitive="s", missing=rule, suda_max_size=3)
    )
    m = matches(rows, rule)
    fk = np.array([len(x) for x in m])
    assert result.cells.record_fk.tolist() == fk.tolist()
    am = result.measures["attacker_models"]
    assert np.isclose(am["prosecutor"]["highest"], 1 / fk.min())
    assert np.isclose(am["prosecutor"]["average"], np.mean(1 / fk))
    # ℓ: the distinct sensitive values among the records each record matches (a missing value a value of its own)
    distinct = [len({sensitive[j] for j in x}) for x in m]
    assert result.measures["diversity"][0]["l_distinct"] == min(distinct)
    # SUDA2: a record is unique on a set of keys when no other record matches it there, by the same rule
    n = len(rows)
    for i in range(n):
        msus = 0
        for size in (1, 2, 3):
            for subset in combinations(range(3), size):

                def unique(cols, i=i):
                    return all(not match([rows[i][c] for c in cols], [rows[j][c] for c in cols], rule)
                               for j in range(n) if j != i)  # fmt: skip

                if unique(subset) and not any(unique(s) for s in combinations(subset, size - 1) if s):
                    msus += 1
        assert int(result.suda.msu_counts[i].sum()) == msus, (i, rows)


@settings(max_examples=30, deadline=None)
@given(files(), st.integers(2, 3))
def test_suppression_reaches_k_in_the_same_reading(data, k):
    rows, sensitive = data
    if k > len(rows):
        return
    frame = frame_of(rows, sensitive)
    run = run_microdata(MicrodataSettings(data=frame, keys=KEYS, k=k, reduction="suppress"))
    released = run.released
    assert released is not None
    shown = [[None if pd.isna(v) else v for v in r] for r in released[KEYS].itertuples(index=False)]
    assert min(len(x) for x in matches(shown, "any")) >= k
    assert run.reduced is not None and run.reduced.measures["k_anonymity"]["k"] >= k
    # the attacker models after the suppression read the suppressed values as the frequencies do
    assert run.reduced.measures["attacker_models"]["prosecutor"]["highest"] <= 1 / k


def test_overlapping_classes_never_make_a_population_as_large_as_the_file_too_small():
    # Three records whose f_k are 3, 2 and 2 ("x" with a missing b matches both others): the class sizes behind
    # them add up to 5 records, more than the file's 3; a population of 3 (the file is the population) used to be
    # refused as "smaller than the dataset".
    frame = pd.DataFrame({"a": ["x", "x", "x"], "b": [None, "y", "z"]})
    result = measure_microdata(frame, MicrodataSettings(keys=("a", "b"), missing="any", population_size=3))
    assert result.measures["k_anonymity"]["k"] == 2  # by hand: f_k = 3, 2, 2; measured, not refused
    assert "population_uniqueness" in result.measures
