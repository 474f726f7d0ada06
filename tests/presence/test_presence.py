"""δ-presence, k-anonymity, k-map and the lattice search, against Desfontaines' worked example, brute-force
counting and exhaustive search."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import (
    PrivacyLeakWarning,
    PrivriskError,
    build_hierarchy,
    delta_presence,
    prepare_presence,
    release_table,
    search_generalisation,
)
from privrisk.presence import rollup as _rollup

SEED_T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
SEED_P = pd.DataFrame(
    {"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"], "n": [5, 5, 10, 10, 20]}
)
SEED_H = {"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"}


# ----------------------------------------------------------------------------------------------- Desfontaines


def test_desfontaines_ten_year_bands_give_delta_one():
    r = delta_presence(
        SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies={"age": "interval:10"}
    )
    assert r.summary["delta_max"] == 1.0
    rows = {row.age: (row.dataset_count, row.population_count, row.delta) for row in r.classes.itertuples()}
    assert rows == {"10-19": (5, 5, 1.0), "40-49": (1, 10, 0.1)}
    assert r.summary["k_map"] == 5 and r.summary["k_anonymity"] == 1


def test_population_bins_with_an_interval_hierarchy_keep_the_open_band_whole():
    prep = prepare_presence(
        SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies={"age": "interval:10"}
    )
    labels = prep.hierarchies["age"].labels
    assert labels[1].tolist() == ["10-19", "20-29", "30-39", "40-49", "50+"]
    assert labels[2].tolist() == ["0-19", "20-39", "40+"]  # 50+ cannot sit inside 40-59
    r = delta_presence(prep, levels={"age": 2})
    assert dict(zip(r.classes["age"], r.classes["delta"], strict=True)) == {"0-19": 1.0, "40+": 1 / 30}


def test_desfontaines_widening_to_10_39_gives_a_quarter():
    prep = prepare_presence(SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies=SEED_H)
    assert delta_presence(prep, levels={"age": 1}).summary["delta_max"] == 1.0
    r = delta_presence(prep, levels={"age": 2})
    assert r.summary["delta_max"] == 0.25
    assert dict(zip(r.classes["age"], r.classes["delta"], strict=True)) == {"10-39": 0.25, "40-49": 0.1}
    assert r.summary["delta_min_present"] == 0.1
    assert r.summary["delta_min"] == 0.0  # the 50+ class holds no research record (ARX counts it as 0)


def test_desfontaines_population_as_rows_gives_the_same():
    ages = [10, 12, 13, 13, 16] + [25] * 5 + [35] * 10 + [43] + [45] * 9 + [60] * 20
    rows = pd.DataFrame({"zip": [85535] * 50, "age": ages})
    r = delta_presence(SEED_T, rows, ["zip", "age"], hierarchies=SEED_H, levels={"age": 2})
    assert r.summary["delta_max"] == 0.25 and r.summary["k_map"] == 10


def test_desfontaines_search_picks_the_10_39_band():
    s = search_generalisation(SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies=SEED_H,
                              delta_max=0.5)  # fmt: skip
    assert s.best.levels == {"zip": 0, "age": 2} and s.best.summary["delta_max"] == 0.25
    assert s.minimal[["level_zip", "level_age"]].values.tolist() == [[0, 2]]
    release = release_table(SEED_T, s.best)
    assert release["age"].tolist() == ["10-39"] * 5 + ["40-49"]


# ----------------------------------------------------------------------------------------------- brute force

SPECS = {"a": "interval:4", "b": None, "c": "interval:2"}


_ALL = {"a": list(range(16)), "b": ["x", "y", "z"], "c": list(range(8))}
# Built once over the whole value range: the labels a hierarchy gives do not depend on which values occur.
_BUILT = {c: build_hierarchy(c, SPECS[c], _ALL[c]) for c in _ALL}


def _generalised(frame, qi, levels):
    out = frame.copy()
    for c in qi:
        out[c] = _BUILT[c].generalise(frame[c].tolist(), levels[c])
    return out


def _brute(T, P, qi, levels, *, delta_max=None, delta_min=None, k=None, kmap=None, suppression=0.0):
    """Count classes of the generalised rows with pandas and apply the definitions literally."""
    tg, pg = _generalised(T, qi, levels), _generalised(P, qi, levels)
    t = tg.groupby(qi).size().rename("t")
    p = pg.groupby(qi).size().rename("p")
    j = pd.concat([t, p], axis=1).fillna(0)
    tt, pp = j["t"].to_numpy(), j["p"].to_numpy()
    held = tt > 0
    fail = held & (
        (tt < (k or 0)) | (pp < (kmap or 0)) | ((tt > delta_max * pp) if delta_max is not None else False)
    )
    budget = math.floor(suppression * len(T) + 1e-9)
    n_fail = tt[fail].sum()
    ok = n_fail <= budget
    released = np.where(fail, 0, tt) if ok else tt
    ratio_all = released / pp
    if delta_min is not None and ratio_all.min() < delta_min:
        ok = False
    return ok, {
        "delta_max": (tt / pp)[held].max(),
        "delta_min": (tt / pp).min(),
        "delta_min_present": (tt / pp)[held].min(),
        "k_anonymity": tt[held].min(),
        "k_map": pp[held].min(),
        "classes": held.sum(),
        "unique_records": (tt == 1).sum(),
        "records_at_risk": tt[held & (tt > delta_max * pp)].sum() if delta_max is not None else None,
    }


@st.composite
def tables(draw, n_qi=3):
    n = draw(st.integers(5, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qi = ["a", "b", "c"][:n_qi]
    P = pd.DataFrame(
        {"a": rng.integers(0, 16, n), "b": rng.choice(["x", "y", "z"], n), "c": rng.integers(0, 8, n)}
    )
    mask = rng.random(n) < draw(st.floats(0.1, 0.9))
    mask[rng.integers(0, n)] = True
    return P[mask][qi].reset_index(drop=True), P[qi], qi


@settings(max_examples=25)
@given(tables(), st.data())
def test_measures_match_brute_force_counting(tp, data):
    T, P, qi = tp
    prep = prepare_presence(T, P, qi, hierarchies={c: SPECS[c] for c in qi})
    levels = {c: data.draw(st.integers(0, prep.enc.heights[j] - 1)) for j, c in enumerate(qi)}
    dmax = data.draw(st.sampled_from([None, 0.3, 0.5]))
    r = delta_presence(prep, levels=levels, delta_max=dmax)
    _, want = _brute(T, P, qi, levels, delta_max=dmax)
    for key, value in want.items():
        assert r.summary[key] == pytest.approx(value), key
    assert r.classes["dataset_count"].sum() == len(T)


def _exhaustive_minimal(T, P, qi, prep, targets):
    nodes = prep.enc.nodes()
    passing = [bool(_brute(T, P, qi, dict(zip(qi, map(int, v), strict=True)), **targets)[0]) for v in nodes]
    return _pairwise_minimal(nodes, passing)


def _pairwise_minimal(nodes, passing):
    good = [tuple(map(int, v)) for v, ok in zip(nodes, passing, strict=True) if ok]
    return sorted(
        v for v in good if not any(u != v and all(a <= b for a, b in zip(u, v, strict=True)) for u in good)
    )


TARGETS = st.fixed_dictionaries(
    {
        "delta_max": st.sampled_from([None, 0.4, 0.6, 0.9]),
        "delta_min": st.sampled_from([None, None, 0.02, 0.1]),
        "k": st.sampled_from([None, 2, 3]),
        "kmap": st.sampled_from([None, 3, 5]),
    }
)


@settings(max_examples=25)
@given(tables(n_qi=2), TARGETS, st.sampled_from([0.0, 0.1, 0.3]))
def test_search_finds_exactly_the_minimal_nodes_of_an_exhaustive_search(tp, targets, suppression):
    T, P, qi = tp
    if all(v is None for v in targets.values()):
        targets["k"] = 2
    targets["suppression"] = suppression
    prep = prepare_presence(T, P, qi, hierarchies={c: SPECS[c] for c in qi})
    found = search_generalisation(prep, **targets)
    got = sorted(tuple(int(row[f"level_{c}"]) for c in qi) for _, row in found.minimal.iterrows())
    assert got == _exhaustive_minimal(T, P, qi, prep, targets)
    if found.best is not None:
        assert not found.best.violations or suppression > 0


def test_suppression_breaks_monotonicity_and_the_search_stays_exact():
    # Node (1) merges a passing class (δ = 0.1) with a failing one: with suppression the finer node passes by
    # dropping one record, the coarser fails (δ = 2/10 > 0.15 with nothing small enough to suppress).
    P = pd.DataFrame({"a": [0] * 9 + [1]})
    T = pd.DataFrame({"a": [0, 1]})
    prep = prepare_presence(T, P, ["a"], hierarchies={"a": "breaks:0,2"})
    s = search_generalisation(prep, delta_max=0.15, suppression=0.5)
    assert s.best.levels == {"a": 0} and s.best.summary["suppressed"] == 1
    statuses = dict(zip(s.nodes["level_a"], s.nodes["status"], strict=True))
    assert statuses == {0: "pass", 1: "fail"}  # a generalisation of a passing node fails


def test_sparse_and_dense_roll_up_agree(monkeypatch):
    rng = np.random.default_rng(3)
    P = pd.DataFrame(
        {"a": rng.integers(0, 16, 300), "b": rng.choice(list("xyz"), 300), "c": rng.integers(0, 8, 300)}
    )
    T = P.sample(80, random_state=2)
    monkeypatch.setattr(_rollup, "_CUBE_LIMIT", 0)  # roll up from the classes, not from a dense cube
    prep = prepare_presence(T, P, ["a", "b", "c"], hierarchies={"a": "interval:4", "c": "interval:2"})
    assert prep.cube is None
    dense = delta_presence(prep, levels={"a": 1, "c": 1}).classes
    monkeypatch.setattr(_rollup, "_DENSE_LIMIT", 0)
    monkeypatch.setattr(_rollup, "_keys", _compacting_keys(_rollup._keys))
    sparse = delta_presence(prep, levels={"a": 1, "c": 1}).classes
    pd.testing.assert_frame_equal(dense, sparse)


def _compacting_keys(keys):
    """Combine key columns as ``_keys`` does after a radix overflow: compact with ``np.unique`` at every step."""

    def forced(columns, sizes):
        key = np.zeros(columns[0].shape[0], dtype=np.int64)
        for col in columns:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64) * (int(col.max()) + 1) + col
        return key

    return forced


# ----------------------------------------------------------------------------------------------- errors


def test_inconsistent_subset_lists_at_most_five_classes():
    P = pd.DataFrame({"a": list(range(10))})
    T = pd.DataFrame({"a": [*range(10, 17), 0, 0]})
    with pytest.raises(PrivriskError) as info:
        prepare_presence(T, P, ["a"])
    message = str(info.value)
    assert "8 class(es)" in message and message.count("in the dataset") == 5
    assert "allow_inconsistent" in message and "\n" not in message


def test_allow_inconsistent_warns_and_lifts_the_population():
    P = pd.DataFrame({"a": [0, 1, 1]})
    T = pd.DataFrame({"a": [0, 0, 2]})
    with pytest.warns(PrivacyLeakWarning, match="2 class"):
        r = delta_presence(T, P, ["a"], allow_inconsistent=True)
    got = dict(zip(r.classes["a"], zip(r.classes["dataset_count"], r.classes["population_count"], strict=True),
                   strict=True))  # fmt: skip
    assert got == {"0": (2, 2), "2": (1, 1)}


def test_population_bins_no_bin_and_two_bins():
    P = pd.DataFrame({"age": ["10-19", "20-29"], "n": [5, 5]})
    with pytest.raises(PrivriskError, match="maps to no bin"):
        prepare_presence(pd.DataFrame({"age": [35]}), P, ["age"], population_count="n")
    P2 = pd.DataFrame({"age": ["10-19", "15-24"], "n": [5, 5]})
    with pytest.raises(PrivriskError, match="maps to two bins"):
        prepare_presence(pd.DataFrame({"age": [16]}), P2, ["age"], population_count="n")


def test_population_bins_with_a_non_nested_hierarchy():
    with pytest.raises(PrivriskError, match="not nested"):
        prepare_presence(SEED_T, SEED_P, ["zip", "age"], population_count="n",
                         hierarchies={"age": "breaks:10,25,50,inf"})  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"delta_max": 1.5}, "^delta_max:"),
        ({"delta_min": 0.6, "delta_max": 0.5}, "^delta_min:"),
        ({"k": 0}, "^k:"),
        ({"levels": {"age": 9}}, "^levels:"),
        ({"levels": {"sex": 1}}, "^levels:"),
    ],
)
def test_bad_parameters(kwargs, fragment):
    prep = prepare_presence(SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies=SEED_H)
    with pytest.raises(PrivriskError, match=fragment):
        delta_presence(prep, **kwargs)


def test_missing_values_in_a_quasi_identifier_are_an_error():
    with pytest.raises(PrivriskError, match="empty values"):
        prepare_presence(pd.DataFrame({"a": [1.0, None]}), pd.DataFrame({"a": [1.0, 2.0]}), ["a"])


def test_no_warnings_on_a_clean_run():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        delta_presence(SEED_T, SEED_P, ["zip", "age"], population_count="n", hierarchies=SEED_H)


def test_population_given_by_region_while_the_subset_has_states(tmp_path):
    regions = {"Maine": ["Northeast"], "Vermont": ["Northeast"], "Texas": ["South"], "Georgia": ["South"]}
    T = pd.DataFrame({"state": ["Maine", "Maine", "Texas"], "sex": ["f", "m", "f"]})
    P = pd.DataFrame({"state": ["Northeast", "Northeast", "South", "South"], "sex": ["f", "m", "f", "m"],
                      "n": [10, 10, 20, 20]})  # fmt: skip
    r = delta_presence(T, P, ["state", "sex"], hierarchies={"state": regions}, population_count="n")
    assert r.levels == {"state": 1, "sex": 0}
    got = {(row.state, row.sex): row.delta for row in r.classes.itertuples()}
    assert got == {("Northeast", "f"): 0.1, ("Northeast", "m"): 0.1, ("South", "f"): 0.05}
    table = tmp_path / "regions.csv"
    table.write_text("".join(f"{k};{v[0]}\n" for k, v in regions.items()))
    r2 = delta_presence(T, P, ["state", "sex"], hierarchies={"state": f"table:{table}"}, population_count="n",
                        levels={"state": 2})  # fmt: skip
    assert r2.summary["delta_max"] == pytest.approx(2 / 30)
    with pytest.raises(PrivriskError, match=r"^levels:"):
        delta_presence(r.prepared, levels={"state": 0})


def test_keys_compact_instead_of_overflowing():
    rng = np.random.default_rng(5)
    cols = [rng.integers(0, 3, 200) * (2**39) + rng.integers(0, 2, 200) for _ in range(3)]
    key = _rollup._keys(cols, [2**41] * 3)  # the radix 2^123 would overflow int64
    rows = list(zip(*[c.tolist() for c in cols], strict=True))
    same_key = key[:, None] == key[None, :]
    same_row = np.asarray([[a == b for b in rows] for a in rows])
    assert np.array_equal(same_key, same_row)


def test_population_count_that_is_a_quasi_identifier_is_refused():
    import pandas as pd

    from privrisk import PrivriskError
    from privrisk.presence.prepare import prepare_presence

    t = pd.DataFrame({"zip": [1, 1]})
    p = pd.DataFrame({"zip": [1, 2]})
    with pytest.raises(PrivriskError, match="'zip' is a quasi-identifier") as info:
        prepare_presence(t, p, ["zip"], population_count="zip")
    assert info.value.param == "population_count"
