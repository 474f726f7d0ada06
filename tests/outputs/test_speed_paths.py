"""The shortcuts of the output checker's fast paths give what the plain computations give.

Each shortcut is checked against an independent computation in pandas or numpy (labels as text, per pair of
columns, atom by atom), on columns of every kind a grouping variable takes: whole numbers, text, true/false,
dates, categories, and floats with -0.0 beside 0.0 (one value, two labels) and missing values.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.outputs import compute
from privrisk.outputs.compute import MAX_CELLS, connect, margin_labels, table_cells
from privrisk.outputs.knowledge import CHANCE, _dependencies
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _label(value: object) -> str:
    """A value's label as the checker writes it (DuckDB's text), computed apart from DuckDB where that is plain."""
    if value is None or pd.isna(value):
        return "(missing)"
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _frame(seed: int, n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    floats = rng.choice([0.0, -0.0, 1.5, np.nan], n)
    text = rng.choice(["a", "b", "All", None], n).astype(object)
    return pd.DataFrame(
        {
            "i": pd.array(rng.choice([1, 2, 3, None], n), dtype="Int16"),
            "s": text,
            "b": rng.integers(0, 2, n).astype(bool),
            "d": pd.to_datetime(rng.choice(["2020-01-01", "2021-06-30"], n)).date,
            "c": pd.Categorical(rng.choice(["u", "v"], n)),
            "f": floats,
            "x": rng.normal(10, 3, n),
        }
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    ("rows", "columns"), [(("i",), ("s",)), (("b",), ("d",)), (("c",), ("f",)), (("f",), ())]
)
def test_a_tables_counts_are_the_counts_of_its_labels(seed: int, rows: tuple, columns: tuple) -> None:
    # Grouped by the values where each value has one label; by the labels where not (a float's -0.0 and 0.0).
    frame = _frame(seed)
    spec = OutputSpec(name="T", kind="count", rows=rows, columns=columns, margins=bool(columns))
    con = connect(frame)
    cells = table_cells(con, spec, Policy())
    con.close()
    labels = pd.DataFrame({v: [_label(x) for x in frame[v].astype(object)] for v in spec.variables})
    expected = labels.value_counts().to_dict()
    full = cells[cells["set"].map(len) == len(spec.variables)]
    got = {tuple(r[v] for v in spec.variables): int(r["n"]) for _, r in full.iterrows() if r["n"] > 0}
    assert got == {tuple(k) if isinstance(k, tuple) else (k,): int(v) for k, v in expected.items()}
    if "f" in spec.variables:
        assert {"0.0", "-0.0"} <= set(full["f"])  # two labels of one value, never merged


@pytest.mark.parametrize("seed", [4, 5])
def test_a_means_cells_match_pandas(seed: int) -> None:
    frame = _frame(seed)
    spec = OutputSpec(name="M", kind="mean", variable="x", rows=("i", "b"))
    con = connect(frame)
    cells = table_cells(con, spec, Policy())
    con.close()
    labels = pd.DataFrame({v: [_label(x) for x in frame[v].astype(object)] for v in ("i", "b")})
    expected = (
        frame.assign(**{f"__{v}": labels[v] for v in labels})
        .groupby(["__i", "__b"])["x"]
        .agg(["mean", "size"])
    )
    for (i, b), row in expected.iterrows():
        cell = cells[(cells["i"] == i) & (cells["b"] == b)]
        assert len(cell) == 1
        assert int(cell["n"].iloc[0]) == row["size"]
        assert float(cell["value"].iloc[0]) == pytest.approx(row["mean"], rel=1e-12)


def test_the_level_bound_is_never_below_the_labels() -> None:
    frame = _frame(6, 400)
    con = connect(frame)
    bounds = compute._level_bounds(con, tuple(frame.columns))
    for v in frame.columns:
        assert bounds[v] >= len({_label(x) for x in frame[v].astype(object)}), v
    con.close()


def test_a_table_too_large_is_still_refused_with_its_variable() -> None:
    # The bound only lets small tables skip the exact count: an identifier is refused, named, as before.
    n = MAX_CELLS + 50
    frame = pd.DataFrame({"id": np.arange(n), "sex": np.tile(["f", "m"], n // 2 + 1)[:n]})
    con = connect(frame)
    with pytest.raises(PrivriskError, match=r"'id' has 10,050 levels"):
        table_cells(con, OutputSpec(name="T", kind="count", rows=("id",), columns=("sex",)), Policy())
    # Under a condition that leaves few levels, the exact count decides (the bound over all the data is large).
    few = OutputSpec(name="U", kind="count", rows=("id",), columns=("sex",), where="id < 30")
    assert len(table_cells(con, few, Policy())) == 30 * 2
    con.close()


def test_margin_labels_look_at_text_only() -> None:
    frame = pd.DataFrame({"s": ["All", "b"], "i": [1, 2], "b": [True, False], "f": [1.0, 2.0]})
    spec = OutputSpec(name="T", kind="count", rows=("s", "i"), columns=("b", "f"), margins=True)
    con = connect(frame)
    assert margin_labels(con, spec) == {"s": "Total", "i": "All", "b": "All", "f": "All"}
    con.close()


def _dependencies_by_pandas(frame: pd.DataFrame, columns: list[str]) -> list[tuple[str, str, float]]:
    """y a function of x, and unlikely by chance (Π_x Σ_y p_y^{n_x} below CHANCE), pair by pair in pandas."""
    text = {c: frame[c].astype(object).map(_label) for c in columns}
    found = []
    for i, x in enumerate(columns):
        for y in columns[i + 1 :]:
            for a, b in ((x, y), (y, x)):
                pairs = pd.DataFrame({"a": text[a], "b": text[b]})
                per = pairs.groupby("a")["b"].nunique()
                share = pairs["b"].value_counts()
                if per.size < 2 or (per > 1).any() or share.size < 2:
                    continue
                p = (share / share.sum()).to_numpy(dtype=float)
                n_a = pairs["a"].value_counts().sort_index().to_numpy(dtype=float)
                log_chance = float(np.sum([np.log(np.sum(p**k)) for k in n_a]))
                if log_chance < math.log(CHANCE):
                    found.append((a, b, log_chance))
    return found


@pytest.mark.parametrize("seed", [7, 8])
def test_the_dependencies_found_in_one_scan_are_those_of_each_pair(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 600
    district = rng.integers(0, 30, n)
    frame = pd.DataFrame(
        {
            "district": district,
            "region": np.array(["N", "S", "E"])[district % 3],
            "half": (district % 2 == 0),
            "f": np.where(district < 15, -0.0, 0.0) * 1.0,
            "noise": rng.integers(0, 4, n),
        }
    )
    columns = list(frame.columns)
    con = connect(frame)
    got = _dependencies(con, columns, set())
    con.close()
    want = _dependencies_by_pandas(frame, columns)
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want]
    assert [c for *_, c in got] == pytest.approx([c for *_, c in want], rel=1e-9)
    assert ("district", "region") in {(a, b) for a, b, _ in got}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_two_sets_of_equations_have_the_same_atoms_exactly_when_counted_atom_by_atom(
    data: st.DataObject,
) -> None:
    from privrisk.outputs.cell_identities import Certificates

    m, n = 8, 6
    rows = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    dense = np.array(data.draw(st.lists(rows, min_size=m, max_size=m)), dtype=float)
    plus = data.draw(st.lists(st.integers(0, m - 1), max_size=4))
    minus = data.draw(st.lists(st.integers(0, m - 1), max_size=4))

    system = SimpleNamespace(a=sp.csr_matrix(dense))
    index = Certificates.__new__(Certificates)
    index.diff = SimpleNamespace(systems={None: system})  # type: ignore[assignment]
    counted = dense[plus].sum(axis=0) - dense[minus].sum(axis=0)  # each atom, how often more in plus
    assert index._zero(None, plus, minus) == (not np.any(counted))


def test_one_blas_thread_inside_and_the_number_put_back() -> None:
    from privrisk.outputs._blas import _libraries, one_thread

    before = [get() for get, _ in _libraries()]
    with one_thread():
        assert all(get() == 1 for get, _ in _libraries())
    assert [get() for get, _ in _libraries()] == before


def test_a_condition_that_fails_on_the_data_fails_every_time() -> None:
    # Only a condition that ran on every row is remembered: one that fails is refused again on the next table.
    frame = pd.DataFrame({"s": ["1", "x", "2"], "i": [1, 2, 3]})
    con = connect(frame)
    bad = OutputSpec(name="T", kind="count", rows=("i",), where="CAST(s AS INTEGER) > 0")
    for _ in range(2):
        with pytest.raises(PrivriskError, match="is not a condition"):
            table_cells(con, bad, Policy())
    good = OutputSpec(name="U", kind="count", rows=("i",), where="i > 1")
    assert [table_cells(con, good, Policy())["n"].tolist() for _ in range(2)] == [[1, 1], [1, 1]]
    con.close()
