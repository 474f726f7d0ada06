"""The household pass of a file grouped by DuckDB (issue 36 item 2): each household's Σ m·log(1 − r) is added in the
order of the file read into memory (combinations in order of first appearance), so the risks are the same floats
to the last bit, on a file where that order matters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]

from privrisk.microdata import MicrodataSettings
from privrisk.microdata._duckdb import _ordered_sums, measure_in_duckdb
from privrisk.microdata.measure import measure_microdata


def _census(path, n: int = 3000, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    hid = rng.integers(0, n // 25, n)  # large households spread over the file: members in many combinations
    pd.DataFrame({"a": rng.integers(0, 12, n), "b": rng.integers(0, 9, n), "hid": hid,
                  "w": rng.uniform(1, 40, n)}).to_parquet(path, index=False)  # fmt: skip


def test_household_risks_bit_for_bit_where_the_order_matters(tmp_path):
    path = tmp_path / "census.parquet"
    _census(path)
    s = MicrodataSettings(data=str(path), keys="a,b", weights="w", household="hid", top=50)
    grouped, in_memory = measure_in_duckdb(s), measure_microdata(None, s)
    frame = pd.read_parquet(path)
    first = np.unique(pd.factorize(frame["hid"])[0], return_index=True)[1]  # each household's first record
    assert np.array_equal(grouped.household, in_memory.household[first])
    assert np.array_equal(grouped.household_sizes, np.bincount(pd.factorize(frame["hid"])[0]))
    # the order matters on this file: the members' logs added in file order give other floats for some households
    codes = pd.factorize(pd.MultiIndex.from_frame(frame[["a", "b"]]))[0]
    logs = np.log1p(-in_memory.risk)
    by_file_order = -np.expm1(np.bincount(pd.factorize(frame["hid"])[0], weights=logs))
    assert not np.array_equal(by_file_order, grouped.household)
    assert codes.max() + 1 == len(grouped.frame)
    top = grouped.top_records()
    expected = in_memory.top_records()
    assert top["row"].tolist() == expected["row"].tolist()
    assert np.array_equal(top["household_risk"].to_numpy(), expected["household_risk"].to_numpy())


def test_ordered_sums_by_hand():
    """Household 0: combinations 2 (twice) and 0 → log 0.5 + 2·log 0.75, combination 0 first."""

    risk = np.array([0.5, 0.75, 0.25])
    lg = np.log1p(-risk)  # each combination's log(1 − r), by hand: the sums below add them
    got = _ordered_sums(pa.array([[2, 0, 2], [1], [1, 1, 1]]), risk)
    assert got[0] == (0.0 + lg[0]) + lg[2] * 2
    assert got[1] == lg[1]
    assert got[2] == lg[1] * 3
    sliced = pa.array([[0], [2, 0, 2], [1]]).slice(1)  # an Arrow batch's list may be a slice of its values
    assert np.array_equal(_ordered_sums(sliced, risk), got[:2])


def test_key_codes_narrowed_to_int16_or_int32():
    from privrisk.microdata._grouped import _narrow_codes
    from privrisk.microdata.frequencies import key_codes

    small = pd.DataFrame({"a": [3, 1, 3, None], "b": ["x", "y", "y", "x"]})
    codes = _narrow_codes(small, ["a", "b"])
    assert codes.dtype == np.int16 and np.array_equal(codes, key_codes(small, ["a", "b"]))
    wide = pd.DataFrame({"a": np.arange(40_000) % 2, "b": np.arange(40_000)})
    codes = _narrow_codes(wide, ["a", "b"])
    assert codes.dtype == np.int32 and np.array_equal(codes, key_codes(wide, ["a", "b"]))
