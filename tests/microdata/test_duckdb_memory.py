"""What keeps a census of 10⁸ records within 2 GB when DuckDB groups it (issue 36 item 2) leaves every output as the
file read into memory gives it: the households read back in batches of a few (each batch's sums into one array),
the combinations' columns read one at a time in chunks, the risks computed in slices, and the riskiest records'
candidates found without sorting every combination (checked against the full sort)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.cli._common import to_jsonable
from privrisk.microdata import MicrodataSettings
from privrisk.microdata._duckdb import measure_in_duckdb
from privrisk.microdata._grouped import _candidates
from privrisk.microdata.measure import measure_microdata
from privrisk.microdata.run import MicrodataRun


def _census(path, n: int = 2500, seed: int = 8) -> None:
    rng = np.random.default_rng(seed)
    hid = rng.integers(0, n // 4, n)
    frame = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.choice(["x", "y", "z", "w"], n),
                          "c": rng.integers(0, 5, n), "hid": hid, "w": rng.integers(2, 90, n) / 2})  # fmt: skip
    frame.loc[rng.random(n) < 0.01, "c"] = None  # a few missing key values: the codes are needed
    frame.to_parquet(path, index=False)


@pytest.mark.parametrize("by_hash", [True, False])
@pytest.mark.parametrize("missing", ["any", "category"])
def test_small_batches_and_slices_same_outputs(tmp_path, monkeypatch, by_hash, missing):
    """Households read three at a time, combinations in chunks of one vector, risks in slices of five,
    combinations.csv written seven rows at a time: the document, combinations.csv, records.csv and the report are
    those of the file read into memory."""
    import privrisk.microdata._duckdb as duckdb_module
    import privrisk.microdata._grouped as grouped_module
    import privrisk.microdata.risk as risk_module

    monkeypatch.setattr(duckdb_module, "HOUSEHOLD_BATCH", 3)
    monkeypatch.setattr(duckdb_module, "RECORDS_CHUNK", 1)
    monkeypatch.setattr(risk_module, "RISK_SLICE", 5)
    monkeypatch.setattr(grouped_module, "COMBINATIONS_CHUNK", 7)
    monkeypatch.setattr(duckdb_module._DuckDBPasses, "by_hash", by_hash)
    path = tmp_path / "census.parquet"
    _census(path)
    s = MicrodataSettings(data=str(path), keys="a,b,c", weights="w", household="hid", missing=missing, top=40,
                          max_risk=0.05)  # fmt: skip
    grouped, in_memory = MicrodataRun(s, measure_in_duckdb(s)), MicrodataRun(s, measure_microdata(None, s))
    assert grouped.measured.measures["household_risk"]["households"] > 3 * 100  # many batches
    docs = [json.dumps(to_jsonable(r.to_dict()), ensure_ascii=False) for r in (grouped, in_memory)]
    assert docs[0] == docs[1]
    grouped.write(tmp_path / "grouped")
    in_memory.write(tmp_path / "memory")
    for name in ("records.csv", "combinations.csv", "report.html"):
        assert (tmp_path / "grouped" / name).read_bytes() == (tmp_path / "memory" / name).read_bytes(), name


@pytest.mark.parametrize("rows", [0, 1, 5, 37, 10_000])
def test_top_combinations_as_the_head_of_every_combination(tmp_path, rows):
    """The riskiest rows found among those at or above the rows-th highest risk: the head of the whole table,
    ties (many combinations share a risk here) in the same order."""
    path = tmp_path / "census.parquet"
    _census(path, n=1500)
    s = MicrodataSettings(data=str(path), keys="a,b,c", weights="w")
    grouped = measure_in_duckdb(s)
    whole = grouped.combinations()
    assert len(whole) > 37 and whole["risk"].duplicated().any()
    pd.testing.assert_frame_equal(grouped.top_combinations(rows), whole.head(rows))
    in_memory = measure_microdata(None, s).combinations()
    pd.testing.assert_frame_equal(whole, in_memory, check_dtype=False)  # (integer keys narrowed when grouped)


def test_no_missing_key_no_codes_held(tmp_path):
    """Without a missing key value the combinations' codes are zeros that take no memory; the measures are those
    of the file read into memory."""
    path = tmp_path / "census.parquet"
    rng = np.random.default_rng(3)
    pd.DataFrame({"a": rng.integers(0, 30, 900), "b": rng.integers(0, 4, 900)}).to_parquet(path, index=False)
    s = MicrodataSettings(data=str(path), keys="a,b")
    grouped = measure_in_duckdb(s)
    assert grouped.cells.codes.strides == (0, 0) and grouped.cells.codes.shape == (len(grouped.frame), 2)
    assert grouped.measures == measure_microdata(None, s).measures


def _candidates_by_full_sort(risk, count, first, top):
    """The candidates as they were found before (every combination sorted by risk): the peer of the test."""
    order = np.argsort(-risk, kind="stable")
    reached = np.cumsum(count[order]) >= top
    last = order[int(np.argmax(reached))] if reached.any() else order[-1]
    cutoff = risk[last]
    above = np.flatnonzero(risk > cutoff)
    tied = np.flatnonzero(risk == cutoff)
    return np.concatenate([above, tied[np.argsort(first[tied], kind="stable")[:top]]])


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.integers(1, 6)), min_size=1, max_size=40
    ),
    top=st.integers(0, 60),
    seed=st.integers(0, 10),
)
def test_candidates_as_the_full_sort(cells, top, seed):
    risk = np.array([r for r, _ in cells])
    count = np.array([c for _, c in cells], dtype=np.int64)
    first = np.random.default_rng(seed).permutation(len(cells)) * 7 + 1
    got = _candidates(risk, count, first, top)
    want = _candidates_by_full_sort(risk, count, first, top) if top > 0 else np.zeros(0, dtype=np.int64)
    assert got.tolist() == want.tolist()


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30),
    counts=st.lists(st.integers(1, 255), min_size=30, max_size=30),
)
def test_repeated_sums_of_small_counts_as_numpy(values, counts):
    """Household sizes in uint8 are accumulated in int32 without an int64 copy: numpy's sum, median and mean of
    the repeated values all the same."""
    from privrisk.microdata._repeated import repeated_mean, repeated_median, repeated_sum

    v, c = np.array(values), np.array(counts[: len(values)], dtype=np.uint8)
    repeated = np.repeat(v, c)
    assert repeated_sum(v, c, leaf=64) == repeated.sum()
    assert repeated_mean(v, c) == repeated.mean()
    assert repeated_median(v, c) == np.median(repeated)


@pytest.mark.parametrize("int32_total", [2**31, 10])
def test_repeated_sums_in_int32_or_int64(monkeypatch, int32_total):
    """Cumulative counts in int32 (the total below 2³¹) or in int64 (forced here by a low bound): numpy's sums."""
    import privrisk.microdata._repeated as repeated_module

    monkeypatch.setattr(repeated_module, "INT32_TOTAL", int32_total)
    v, c = np.array([0.1, 0.7, 1e-3, 0.25]), np.array([3, 200, 5, 77], dtype=np.uint8)
    repeated = np.repeat(v, c)
    assert repeated_module.repeated_sum(v, c, leaf=16) == repeated.sum()
    assert repeated_module.repeated_median(v, c) == np.median(repeated)
