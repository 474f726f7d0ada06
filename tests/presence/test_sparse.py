"""Presence on a grid above the sparse threshold: only the research subset's classes counted, the same measures.

The references are direct pandas counts of the raw rows generalised by hand (``a // 10``, ``b // 5``, …), never
privrisk's own roll-up. The thresholds (``lattice._SPARSE_CELLS``, ``engine.DENSE_GROUP_CELLS``) are lowered so
that a small table takes the census path.
"""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk.io.engine as engine
from privrisk import delta_presence, prepare_presence
from privrisk.presence import rollup as _rollup

QI = ["a", "b", "c"]
HIER = {"a": "interval:10", "b": "interval:5"}
# Levels of a (and b): raw, tens (fives), wider bands, wider, *; the hand generalisations of three of them.
_A = {0: lambda x: x, 1: lambda x: x // 10, 4: lambda x: x * 0}
_B = {0: lambda x: x, 1: lambda x: x // 5, 4: lambda x: x * 0}
_C = {0: lambda x: x, 1: lambda x: x * 0}


def _tables(seed: int, n_pop: int = 4000, share: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    P = pd.DataFrame(
        {
            "a": rng.integers(0, 50, n_pop).astype(np.int16),
            "b": rng.integers(0, 30, n_pop).astype(np.int32),
            "c": rng.integers(0, 4, n_pop).astype(np.int8),
        }
    )
    T = P.sample(max(1, int(share * n_pop)), random_state=seed).reset_index(drop=True)
    return T, P


def _expected(T: pd.DataFrame, P: pd.DataFrame, la: int, lb: int, lc: int) -> dict:
    """δ, k and k-map of the node by pandas group-bys of the rows generalised by hand."""

    def gen(frame: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({"a": _A[la](frame["a"]), "b": _B[lb](frame["b"]), "c": _C[lc](frame["c"])})

    t = gen(T).value_counts().rename("d")
    p = gen(P).value_counts().rename("p")
    both = pd.concat([t, p], axis=1).fillna(0)
    held = both[both["d"] > 0]
    ratio = both["d"] / both["p"]
    return {
        "delta_max": float((held["d"] / held["p"]).max()),
        "delta_min": float(ratio.min()),
        "k_anonymity": int(held["d"].min()),
        "k_map": int(held["p"].min()),
        "classes": len(held),
        "population_classes": int((both["p"] > 0).sum()),
        "pairs": sorted(zip(held["d"].astype(int), held["p"].astype(int), strict=True)),
    }


def _check(prep, T, P, la, lb, lc) -> None:
    r = delta_presence(prep, levels={"a": la, "b": lb, "c": lc})
    want = _expected(T, P, la, lb, lc)
    for key in ("delta_max", "delta_min", "k_anonymity", "k_map", "classes", "population_classes"):
        assert r.summary[key] == pytest.approx(want[key], rel=0, abs=0), key
    got = sorted(zip(r.classes["dataset_count"].astype(int), r.classes["population_count"].astype(int),
                     strict=True))  # fmt: skip
    assert got == want["pairs"]


NODES = list(itertools.product(_A, _B, _C))


def test_sparse_roll_up_matches_pandas_on_files(tmp_path, monkeypatch):
    T, P = _tables(1)
    pq.write_table(pa.Table.from_pandas(P, preserve_index=False), tmp_path / "p.parquet")
    pq.write_table(pa.Table.from_pandas(T, preserve_index=False), tmp_path / "t.parquet")
    monkeypatch.setattr(_rollup, "_SPARSE_CELLS", 100)  # 50 × 30 × 4 cells: the census path
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 100)
    monkeypatch.setattr(_rollup, "_DENSE_LIMIT", 0)  # fine nodes look their classes up, coarse ones count densely
    monkeypatch.setattr(engine, "DENSE_GROUP_CELLS", 100)  # grouped by DuckDB's GROUP BY statement
    prep = prepare_presence(tmp_path / "t.parquet", tmp_path / "p.parquet", QI, hierarchies=HIER)
    assert prep.cube is None and _rollup.cube_cells(prep.enc) > _rollup._SPARSE_CELLS
    for la, lb, lc in NODES:
        _check(prep, T, P, la, lb, lc)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), share=st.sampled_from([0.002, 0.02, 0.3, 1.0]))
def test_sparse_roll_up_matches_the_full_roll_up(seed, share):
    """Every listed class equals the full roll-up's; the tally is the full roll-up's classes without records."""
    T, P = _tables(seed, n_pop=500, share=share)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    nodes = itertools.product(*(range(b, h) for b, h in zip(prep.enc.base, prep.enc.heights, strict=True)))
    for levels, dense_limit in itertools.product(nodes, (_rollup._DENSE_LIMIT, 0)):
        full = _rollup.roll_up(prep.enc, levels, every_class=True)
        # dense_limit 0: the finest nodes by looking classes up (the grid has more cells than twice the classes).
        with mock.patch.object(_rollup, "_DENSE_LIMIT", dense_limit):
            sparse = _rollup.roll_up_present(prep.enc, levels)
        held = full.data > 0
        np.testing.assert_array_equal(sparse.codes, full.codes[held])
        np.testing.assert_array_equal(sparse.data, full.data[held])
        np.testing.assert_array_equal(sparse.pop, full.pop[held])
        assert sparse.pop_only == int((~held & (full.pop > 0)).sum())
        # Each finest research class lands in its class.
        np.testing.assert_array_equal(sparse.codes[sparse.data_class], full.codes[full.data_class])


def test_sparse_summary_and_all_classes(monkeypatch):
    T, P = _tables(3)
    monkeypatch.setattr(_rollup, "_SPARSE_CELLS", 0)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 0)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    for la, lb, lc in NODES[::3]:
        _check(prep, T, P, la, lb, lc)
    # Every population class listed on request, with the same summary.
    every = delta_presence(prep, all_classes=True)
    assert len(every.classes) == every.summary["population_classes"] == P.value_counts().size
    assert every.summary == delta_presence(prep).summary


def test_search_is_the_same_on_the_sparse_path(monkeypatch):
    """A search (with suppression, so that δ_max is not monotone) finds the same nodes with the same measures."""
    from privrisk import search_generalisation

    T, P = _tables(7, n_pop=3000, share=0.1)
    want = search_generalisation(T, P, QI, hierarchies=HIER, delta_max=0.2, k=3, suppression=0.02)
    monkeypatch.setattr(_rollup, "_SPARSE_CELLS", 0)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 0)
    monkeypatch.setattr(_rollup, "_DENSE_LIMIT", 0)
    got = search_generalisation(T, P, QI, hierarchies=HIER, delta_max=0.2, k=3, suppression=0.02)
    assert got.best is not None and want.best is not None
    pd.testing.assert_frame_equal(got.minimal, want.minimal)
    pd.testing.assert_frame_equal(got.nodes, want.nodes)
    assert got.best.summary == want.best.summary
    pd.testing.assert_frame_equal(got.best.classes, want.best.classes)


def test_inconsistent_subset_found_on_the_sparse_path(monkeypatch):
    """A research class missing from the population is reported, and lifted with allow_inconsistent."""
    from privrisk.errors import PrivacyLeakWarning
    from privrisk.presence.prepare import InconsistentSubsetError

    T, P = _tables(11, n_pop=2000)
    P = P[~((P["a"] == T.loc[0, "a"]) & (P["b"] == T.loc[0, "b"]) & (P["c"] == T.loc[0, "c"]))]
    monkeypatch.setattr(_rollup, "_SPARSE_CELLS", 0)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 0)
    monkeypatch.setattr(_rollup, "_DENSE_LIMIT", 0)
    with pytest.raises(InconsistentSubsetError) as info:
        prepare_presence(T, P, QI, hierarchies=HIER)
    assert len(info.value.classes) == 1 and info.value.classes["population_count"].tolist() == [0]
    with pytest.warns(PrivacyLeakWarning):
        prep = prepare_presence(T, P, QI, hierarchies=HIER, allow_inconsistent=True)
    assert delta_presence(prep).summary["delta_max"] == 1.0
