"""δ-presence on both grid paths equals a brute-force count of the generalised rows (issue 25).

The reference generalises every raw row with the hierarchy's own labels and counts the classes with pandas
(``value_counts``), then reads δ_c = |T_c|/|P_c| off the counts: no roll-up, no encoding, no lattice code. The
census path (a grid above ``lattice._SPARSE_CELLS`` cells) is forced on small tables by lowering its thresholds
— the sparse roll-up, the population taken in slices of a few classes, the dense count of coarse nodes slice by
slice, the GROUP BY streamed from DuckDB (``engine.DENSE_GROUP_CELLS``) and the encoding in slices — and the
test checks that those branches ran.
"""

from __future__ import annotations

import contextlib
import itertools
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privrisk.io.engine as engine
from privrisk import delta_presence, prepare_presence
from privrisk.presence import build_hierarchy
from privrisk.presence import prepare as _prepare
from privrisk.presence import rollup as _rollup

QI = ["a", "b", "c"]
SPECS = {"a": "interval:10:0", "b": "interval:5:0"}  # c raw → *


def _tables(seed: int, n_pop: int, share: float, a_max: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    P = pd.DataFrame(
        {
            "a": rng.integers(0, a_max + 1, n_pop).astype(np.int16),
            "b": rng.integers(0, 40, n_pop).astype(np.int32),
            "c": rng.integers(0, 4, n_pop).astype(np.int8),
        }
    )
    T = P.sample(max(1, round(share * n_pop)), random_state=seed).reset_index(drop=True)
    return T, P


def _brute_force(T: pd.DataFrame, P: pd.DataFrame, levels: tuple[int, ...]) -> dict:
    """The node's measures from the raw rows, each generalised by its hierarchy's labels, counted by pandas."""
    hs = {c: build_hierarchy(c, SPECS.get(c), P[c].unique().tolist()) for c in QI}

    def gen(frame: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for c, lvl in zip(QI, levels, strict=True):
            h = hs[c]
            label = dict(zip(h.domain.tolist(), h.labels[lvl][h.codes[lvl]].tolist(), strict=True))
            out[c] = frame[c].map(label)
        return pd.DataFrame(out)

    both = pd.concat([gen(T).value_counts().rename("d"), gen(P).value_counts().rename("p")], axis=1).fillna(0)
    held = both[both["d"] > 0]
    return {
        "delta_max": float((held["d"] / held["p"]).max()),
        "delta_min": float((both["d"] / both["p"]).min()),
        "k_anonymity": int(held["d"].min()),
        "k_map": int(held["p"].min()),
        "classes": len(held),
        "population_classes": int((both["p"] > 0).sum()),
        "pairs": sorted(zip(held["d"].astype(int), held["p"].astype(int), strict=True)),
    }


def _heights(P: pd.DataFrame) -> list[int]:
    return [build_hierarchy(c, SPECS.get(c), P[c].unique().tolist()).height for c in QI]


@contextlib.contextmanager
def _census_path(slice_: int, sliced_cells: int, seen_cells: int = 0):
    """The thresholds lowered so that a table of a few hundred rows takes every branch of the census path."""
    with contextlib.ExitStack() as stack:
        for obj, name, value in (
            (_rollup, "_SPARSE_CELLS", 0),
            (_rollup, "_CUBE_LIMIT", 0),
            (_rollup, "_DENSE_LIMIT", 0),
            (_rollup, "_SLICE", slice_),
            (_rollup, "_SLICED_CELLS", sliced_cells),
            (_rollup, "_SEEN_CELLS", seen_cells),
            (engine, "DENSE_GROUP_CELLS", 0),
            (_prepare, "_ENCODE_SLICE", slice_),
        ):
            stack.enter_context(mock.patch.object(obj, name, value))
        yield


def _check_every_node(prep, T: pd.DataFrame, P: pd.DataFrame) -> None:
    heights = _heights(P)
    assert list(prep.enc.heights) == heights
    for levels in itertools.product(*(range(h) for h in heights)):
        r = delta_presence(prep, levels=levels)
        want = _brute_force(T, P, levels)
        for key in ("delta_max", "delta_min", "k_anonymity", "k_map", "classes", "population_classes"):
            assert r.summary[key] == want[key], (levels, key)
        got = sorted(
            zip(
                r.classes["dataset_count"].astype(int), r.classes["population_count"].astype(int), strict=True
            )
        )
        assert got == want["pairs"], levels


def _write(folder, T: pd.DataFrame, P: pd.DataFrame):
    pq.write_table(pa.Table.from_pandas(P, preserve_index=False), folder / "p.parquet", row_group_size=97)
    pq.write_table(pa.Table.from_pandas(T, preserve_index=False), folder / "t.parquet")
    return folder / "t.parquet", folder / "p.parquet"


tables = st.builds(
    _tables,
    seed=st.integers(0, 2**32 - 1),
    n_pop=st.integers(1, 400),
    share=st.sampled_from([0.01, 0.1, 0.5, 1.0]),
    a_max=st.sampled_from([0, 9, 60]),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tp=tables, path=st.sampled_from(["grid", "census"]), slice_=st.integers(1, 50),
       sliced_cells=st.sampled_from([0, 40, 10**9]), seen_cells=st.sampled_from([0, 10**9]))  # fmt: skip
def test_delta_equals_a_brute_force_count_on_both_paths(
    tmp_path_factory, tp, path, slice_, sliced_cells, seen_cells
):
    T, P = tp
    t_file, p_file = _write(tmp_path_factory.mktemp("grid"), T, P)
    census = _census_path(slice_, sliced_cells, seen_cells)
    ctx = census if path == "census" else contextlib.nullcontext()
    with ctx:
        prep = prepare_presence(t_file, p_file, QI, hierarchies=SPECS)
        census = _rollup.cube_cells(prep.enc) > _rollup._SPARSE_CELLS
        assert census == (path == "census") and (prep.cube is None or not census)
        _check_every_node(prep, T, P)


def test_the_census_path_runs_every_branch(tmp_path):
    """Streamed GROUP BY, encoding in slices, lookups in slices and dense counts in slices: each ran, and δ is
    the brute-force count's at every node."""
    T, P = _tables(5, n_pop=600, share=0.05, a_max=60)
    t_file, p_file = _write(tmp_path, T, P)
    spies = {
        "streamed": mock.patch.object(engine, "_group_streamed", wraps=engine._group_streamed),
        "looked_up": mock.patch.object(_rollup, "_looked_up", wraps=_rollup._looked_up),
        "distinct": mock.patch.object(_rollup, "_distinct", wraps=_rollup._distinct),
        "densely": mock.patch.object(_rollup, "_counted_densely", wraps=_rollup._counted_densely),
    }
    # Nodes of at most 40 cells (c raw: 61 × 40 × 4 cells at the bottom) are counted densely slice by slice.
    with _census_path(16, 40), contextlib.ExitStack() as stack:
        called = {name: stack.enter_context(spy) for name, spy in spies.items()}
        prep = prepare_presence(t_file, p_file, QI, hierarchies=SPECS)
        assert called["streamed"].call_count == 2  # the research subset and the population
        assert prep.cube is None and prep.enc.pop_codes.dtype == np.int8  # 61 values of a at most
        assert prep.enc.pop_codes.shape[0] > 16  # more classes than a slice
        _check_every_node(prep, T, P)
        for name in ("looked_up", "distinct", "densely"):
            assert called[name].call_count > 0, name
    # The missed keys marked one flag per cell instead of sorted: the same measures, and no sort.
    with _census_path(16, 40, 10**9), mock.patch.object(_rollup, "_distinct") as distinct:
        _check_every_node(prepare_presence(t_file, p_file, QI, hierarchies=SPECS), T, P)
        assert distinct.call_count == 0


def test_the_census_path_finds_an_inconsistent_subset(tmp_path):
    """A research class missing from the population (lifted with allow_inconsistent) on the census path."""
    from privrisk.errors import PrivacyLeakWarning
    from privrisk.presence.prepare import InconsistentSubsetError

    T, P = _tables(11, n_pop=500, share=0.1, a_max=60)
    row = T.iloc[0]
    P = P[~((P["a"] == row["a"]) & (P["b"] == row["b"]) & (P["c"] == row["c"]))].reset_index(drop=True)
    t_file, p_file = _write(tmp_path, T, P)
    with _census_path(7, 0):
        with pytest.raises(InconsistentSubsetError) as info:
            prepare_presence(t_file, p_file, QI, hierarchies=SPECS)
        assert info.value.classes["population_count"].tolist() == [0]
        with pytest.warns(PrivacyLeakWarning):
            prep = prepare_presence(t_file, p_file, QI, hierarchies=SPECS, allow_inconsistent=True)
        assert delta_presence(prep).summary["delta_max"] == 1.0
