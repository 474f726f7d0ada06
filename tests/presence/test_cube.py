"""The dense-cube roll-up (census-sized populations) against the roll-up from the classes and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import delta_presence, prepare_presence, search_generalisation
from privrisk.generalisation.hierarchy import value_key
from privrisk.presence import rollup as _rollup
from privrisk.presence.prepare import _as_text


def _tables(seed: int, n_pop: int = 600, n_data: int = 120):
    rng = np.random.default_rng(seed)
    P = pd.DataFrame(
        {
            "zip": rng.choice([10234, 10299, 10311, 20450, 20451, 31000], n_pop),
            "age": rng.integers(0, 40, n_pop),
            # Text codes in an order that is not the hierarchy's: the cube must sort its axis.
            "state": rng.choice(["z", "b", "m", "a"], n_pop),
        }
    )
    return P.sample(n_data, random_state=seed).reset_index(drop=True), P


HIER = {
    "zip": "prefix",
    "age": "interval:5",
    "state": {"z": ["north"], "b": ["south"], "m": ["north"], "a": ["south"]},
}
QI = ["zip", "age", "state"]


def _equal(a: _rollup.Rolled, b: _rollup.Rolled) -> None:
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.pop, b.pop)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cube_rolls_every_node_up_as_the_classes_do(seed):
    T, P = _tables(seed)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    assert isinstance(prep.cube, _rollup.CubeRollUp)
    for node in prep.enc.nodes():
        _equal(prep.roll_up(node), _rollup.roll_up(prep.enc, node))


def test_the_cube_counts_as_brute_force_over_the_rows():
    T, P = _tables(5)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    levels = {"zip": 3, "age": 2, "state": 1}
    got = delta_presence(prep, levels=levels, all_classes=True).classes
    h = prep.hierarchies

    def generalise(frame):
        return frame.assign(
            **{c: [h[c].label(value_key(str(v)) if c == "zip" else v, levels[c]) for v in frame[c]] for c in QI}
        )

    pop = generalise(P).groupby(QI).size()
    dat = generalise(T).groupby(QI).size()
    for row in got.itertuples(index=False):
        key = (row.zip, row.age, row.state)
        assert row.population_count == pop[key]
        assert row.dataset_count == dat.get(key, 0)
    assert len(got) == len(pop) and got["dataset_count"].sum() == len(T)


def test_a_search_gives_the_same_nodes_with_and_without_the_cube(monkeypatch):
    T, P = _tables(3)
    kw = dict(delta_max=0.3, k=2)
    with_cube = search_generalisation(T, P, QI, hierarchies=HIER, **kw)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 0)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    assert prep.cube is None
    without = search_generalisation(prep, **kw)
    pd.testing.assert_frame_equal(with_cube.nodes, without.nodes)
    pd.testing.assert_frame_equal(with_cube.minimal, without.minimal)
    pd.testing.assert_frame_equal(with_cube.best.classes, without.best.classes)


def test_a_sparse_grid_rolls_up_from_the_classes():
    # 300 classes in a grid of 300 × 300 cells: more than 16 cells per class (and above 2¹⁶ cells).
    P = pd.DataFrame({"a": np.arange(300), "b": np.arange(300)})
    prep = prepare_presence(P.head(2), P, ["a", "b"])
    assert _rollup.cube_cells(prep.enc) == 90_000 > _rollup._CUBE_SPARSITY * 302
    assert not _rollup.cube_fits(prep.enc) and prep.cube is None
    # A filled grid of the same size fits.
    Q = pd.DataFrame({"a": np.repeat(np.arange(300), 300), "b": np.tile(np.arange(300), 300)})
    assert isinstance(prepare_presence(Q.head(2), Q, ["a", "b"]).cube, _rollup.CubeRollUp)


def test_the_cube_limit_is_exact(monkeypatch):
    T, P = _tables(4)
    prep = prepare_presence(T, P, QI, hierarchies=HIER)
    cells = _rollup.cube_cells(prep.enc)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", cells)
    assert _rollup.cube_fits(prep.enc)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", cells - 1)
    assert not _rollup.cube_fits(prep.enc)


def test_lifted_classes_are_in_the_cube():
    # T holds a class that P lacks: with allow_inconsistent its population count is raised to T's.
    T = pd.DataFrame({"a": [1, 1, 9]})
    P = pd.DataFrame({"a": [1, 1, 1, 2]})
    with pytest.warns(Warning):
        prep = prepare_presence(T, P, ["a"], allow_inconsistent=True)
    assert isinstance(prep.cube, _rollup.CubeRollUp)
    r = prep.roll_up(prep.enc.base)
    assert r.pop.tolist() == [3, 1, 1] and r.data.tolist() == [2, 0, 1]
    _equal(r, _rollup.roll_up(prep.enc, prep.enc.base))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3), st.integers(1, 5)), min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_cube_and_classes_agree_on_random_histograms(rows, seed):
    # Hierarchies with maps in any order of the base codes (a random 2-level mapping per column).
    rng = np.random.default_rng(seed)
    P = pd.DataFrame([(a, b) for a, b, n in rows for _ in range(n)], columns=["a", "b"])
    T = P.sample(frac=0.5, random_state=seed % 1000)
    if T.empty:
        T = P.head(1)
    hier = {
        "a": {v: [f"g{rng.integers(0, 3)}"] for v in range(12)},
        "b": {v: [f"h{rng.integers(0, 2)}"] for v in range(4)},
    }
    prep = prepare_presence(T, P, ["a", "b"], hierarchies=hier)
    cube = _rollup.CubeRollUp(prep.enc)
    for node in itertools.product(
        *(range(b, h) for b, h in zip(prep.enc.base, prep.enc.heights, strict=True))
    ):
        _equal(cube(node), _rollup.roll_up(prep.enc, node))


@given(st.lists(st.one_of(st.integers(-50, 10**6), st.sampled_from([1.0, 12.0, 2.5]), st.text(max_size=3))))
def test_text_keys_are_converted_as_value_by_value(values):
    column = pd.Series(values, dtype=object)
    expected = [v if isinstance(v, str) else str(value_key(v)) for v in values]
    assert _as_text(column).tolist() == expected
