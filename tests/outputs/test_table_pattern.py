"""``privrisk table-pattern`` and :mod:`privrisk.outputs.table_pattern`: the way in to a proven suppression pattern.

Checked against :func:`privrisk.outputs.hierarchical.suppression_pattern` on the same table built by hand, against
a hand calculation on a 2 × 2 table, and for what a published file must never hold: the count of a suppressed cell.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privrisk.cli import main
from privrisk.errors import PrivriskError
from privrisk.outputs.hierarchical import suppression_pattern, table_from_leaves
from privrisk.outputs.policy import Policy
from privrisk.outputs.table_pattern import (
    DEFAULT_THRESHOLD,
    EXACT_CELLS,
    TablePatternSettings,
    run_table_pattern,
)

REGIONS = "code,parent\nAll,\nN,All\nS,All\nN1,N\nN2,N\nS1,S\nS2,S\n"
# region leaf × sex leaf counts (N1, N2, S1, S2) × (m, f); N1/f is absent: a zero cell
LEAVES = {("N1", "m"): 3, ("N2", "m"): 12, ("N2", "f"): 1, ("S1", "m"): 20, ("S1", "f"): 14,
          ("S2", "m"): 4, ("S2", "f"): 9}  # fmt: skip


def _files(tmp_path):
    (tmp_path / "region.csv").write_text(REGIONS)
    (tmp_path / "sex.csv").write_text("code,parent\nTotal,\nm,Total\nf,Total\n")
    rows = [{"region": r, "sex": s, "n": n} for (r, s), n in LEAVES.items()]
    pd.DataFrame(rows).to_csv(tmp_path / "cells.csv", index=False)
    return tmp_path / "cells.csv", tmp_path / "region.csv", tmp_path / "sex.csv"


def _by_hand(threshold):
    """The same table as parent arrays in the files' code order, and suppression_pattern on it."""
    region = np.asarray([-1, 0, 0, 1, 1, 2, 2])
    sex = np.asarray([-1, 0, 0])
    leaves = np.zeros((4, 2), dtype=np.int64)
    for (r, s), n in LEAVES.items():
        leaves[["N1", "N2", "S1", "S2"].index(r), ["m", "f"].index(s)] = n
    values = table_from_leaves([region, sex], leaves)
    return values, suppression_pattern([region, sex], values, threshold)


def test_default_threshold_is_the_outputs_policys():
    from privrisk.cli.table_pattern import THRESHOLD

    assert THRESHOLD == DEFAULT_THRESHOLD
    assert EXACT_CELLS == 150_000  # said in --intervals' help
    assert (
        DEFAULT_THRESHOLD
        == Policy().safe_threshold
        == TablePatternSettings(table="x.csv", dimensions={"a": "prefix"}).threshold
    )


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"threshold": 0}, "threshold"),
        ({"threshold": 2.5}, "threshold"),
        ({"protection": 0}, "protection"),
        ({"dimensions": {}}, "dimensions"),
        ({"dimensions": {"region": 3}}, "dimensions"),
        ({"count": "region"}, "count"),
        ({"table": 42}, "table"),
        ({"intervals": "fast"}, "intervals"),
    ],
)
def test_settings_refuse_bad_rules_naming_the_field(kwargs, param):
    base = {"table": "cells.csv", "dimensions": {"region": "region.csv"}, "count": "n"}
    with pytest.raises(PrivriskError) as info:
        TablePatternSettings(**{**base, **kwargs})
    assert info.value.param == param and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--threshold", "0"], "--threshold"),
        (["--protection", "0"], "--protection"),
        (["--dimension", "region"], "COLUMN=HIERARCHY"),
        (["--dimension", "region=nofile.csv"], "does not exist"),
        (["--dimension", "sex=SEX"], "parent"),  # a leaf code the sex file lacks
        (["--count", "nope"], "nope"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, args, needle):
    cells, region, sex = _files(tmp_path)
    if needle == "parent":
        (tmp_path / "SEX").write_text("code,parent\nTotal,\nm,Total\nx,Total\n")
        args = ["--dimension", f"sex={tmp_path / 'SEX'}"]
        base = ["--dimension", f"region={region}", "--count", "n"]
        needle = "'f'"
    elif args[1].startswith("region"):
        base = ["--dimension", f"sex={sex}", "--count", "n"]
        args = ["--dimension", args[1].replace("nofile.csv", str(tmp_path / "nofile.csv"))]
    else:
        base = ["--dimension", f"region={region}", "--dimension", f"sex={sex}"] + (
            ["--count", "n"] if "--count" not in args else []
        )
    code = main(["table-pattern", str(cells), *base, *args, "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], captured.err
    assert not (tmp_path / "out").exists()


def test_cli_and_library_agree_with_suppression_pattern(tmp_path, capsys):
    cells, region, sex = _files(tmp_path)
    out = tmp_path / "out"
    code = main(["table-pattern", str(cells), "--dimension", f"region={region}", "--dimension", f"sex={sex}",
                 "--count", "n", "--threshold", "5", "--out", str(out), "--json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    values, expected = _by_hand(5)
    assert doc["summary"] == expected.summary and doc["all_protected"] and doc["threshold"] == 5
    frame = pd.read_csv(out / "pattern.csv", keep_default_na=False, dtype=str)
    assert len(frame) == values.size == 21
    regions, sexes = ["All", "N", "S", "N1", "N2", "S1", "S2"], ["Total", "m", "f"]
    for row in frame.itertuples():
        i, j = regions.index(row.region), sexes.index(row.sex)
        want = (
            "primary" if expected.primary[i, j] else "secondary" if expected.suppressed[i, j] else "published"
        )
        assert row.status == want
        if want == "published":
            assert int(row.count) == values[i, j]
        else:
            assert row.count == ""
        if want == "primary":
            assert (float(row.lower), float(row.upper)) == (expected.lo[i, j], expected.hi[i, j])
    # the library from a DataFrame and a mapping gives the same pattern
    table = pd.read_csv(cells)
    mapping = {"Total": None, "m": "Total", "f": "Total"}
    run = run_table_pattern(TablePatternSettings(table=table, dimensions={"region": str(region), "sex": mapping},
                                                 count="n", threshold=5))  # fmt: skip
    assert (run.pattern.suppressed == expected.suppressed).all()
    assert json.loads((out / "result.json").read_text())["summary"] == run.to_dict()["summary"]
    assert "Every primary is protected" in run.sentence() and "threshold of 5" in run.sentence()


def test_hand_example_two_by_two_from_records():
    # one person in (m, young): x11 = 1 with row total 6, column total 6 and 13 in the other row and column:
    # every inner cell is suppressed and x11 is only known within [max(0, 6 − 13), min(6, 6)] = [0, 6]
    rows = [("m", "young")] * 1 + [("m", "old")] * 5 + [("f", "young")] * 5 + [("f", "old")] * 8
    table = pd.DataFrame(rows, columns=["sex", "age"])
    dims = {"sex": {"all": None, "m": "all", "f": "all"}, "age": {"all": None, "young": "all", "old": "all"}}
    run = run_table_pattern(TablePatternSettings(table=table, dimensions=dims, threshold=3))
    cells = run.cells().set_index(["sex", "age"])
    assert cells.loc[("m", "young"), "status"] == "primary"
    assert (cells.loc[("m", "young"), "lower"], cells.loc[("m", "young"), "upper"]) == (0, 6)
    assert list(cells.query("status != 'published'").index) == [("m", "young"), ("m", "old"), ("f", "young"),
                                                                ("f", "old")]  # fmt: skip


def test_no_true_value_of_a_suppressed_cell_in_pattern_csv(tmp_path):
    rng = np.random.default_rng(7)
    leaf = [f"{a}{b}" for a in "ABC" for b in "123"]
    table = pd.DataFrame({"area": rng.choice(leaf, 120), "kind": rng.choice(["x", "y", "z", "w"], 120)})
    settings = TablePatternSettings(table=table, dimensions={"area": "prefix", "kind": {"T": None, "x": "T",
                                    "y": "T", "z": "T", "w": "T"}}, threshold=6)  # fmt: skip
    run = run_table_pattern(settings)
    assert run.summary()["primary"] > 0 and run.summary()["unprotected"] == 0
    run.write(tmp_path / "out")
    text = pd.read_csv(tmp_path / "out" / "pattern.csv", dtype=str, keep_default_na=False)
    values = run.pattern.values.reshape(-1)
    for row, true in zip(text.itertuples(), values, strict=True):
        if row.status != "published":
            assert row.count == ""
            # a protected primary's interval never pins its value
            assert not (row.lower != "" and row.lower == row.upper == str(true))
    # prefix: A1 → A* → * ; the labels of every level are cells of their own
    assert {"A*", "B*", "C*", "*"} <= set(text["area"])


def test_specification_with_unsplit_groups_lists_a_cell_once():
    # breaks: 10-19 is not split at the second level: one cell, not two
    table = pd.DataFrame({"age": [12, 15, 25, 35], "sex": ["m", "f", "m", "f"]})
    run = run_table_pattern(TablePatternSettings(table=table, dimensions={"age": "breaks:10,20,30,40/10,20,40",
                                                 "sex": {"t": None, "m": "t", "f": "t"}}, threshold=2))  # fmt: skip
    labels = list(run.labels[0])
    assert len(labels) == len(set(labels))
    assert {"10-19", "20-29", "30-39", "20-39", "*"} <= set(labels)


def test_bounds_prove_the_same_protection_with_outer_intervals(tmp_path):
    cells, region, sex = _files(tmp_path)
    dims = {"region": str(region), "sex": str(sex)}
    exact = run_table_pattern(TablePatternSettings(table=cells, dimensions=dims, count="n", threshold=5))
    fast = run_table_pattern(
        TablePatternSettings(table=cells, dimensions=dims, count="n", threshold=5, intervals="bounds")
    )
    assert exact.to_dict()["intervals"] == "exact" and fast.to_dict()["intervals"] == "bounds"
    assert (fast.pattern.suppressed == exact.pattern.suppressed).all() and fast.to_dict()["all_protected"]
    a, b = exact.cells(), fast.cells()
    prim = a["status"] == "primary"
    assert (b.loc[prim, "lower"] == 0).all() and not b.loc[prim, "exact"].any()
    # the outer bound holds the exact interval
    upper = b.loc[prim, "upper"].map(lambda v: float("inf") if v == "inf" else float(v))
    assert (upper >= a.loc[prim, "upper"].astype(float)).all()
    assert "outer bounds, not exact" in fast.sentence()
