"""Output checking of a file on DuckDB's view of it (issue 36, items 1 and 2): the same document and the same
written files as the file read into memory and checked as a DataFrame (the path before the view)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError
from privrisk.io.data import read_table
from privrisk.io.files import to_jsonable
from privrisk.outputs import OutputSpec, OutputsSettings, run_outputs
from privrisk.outputs import run as run_module
from privrisk.outputs._source import file_data
from privrisk.outputs.ledger import data_version

SPECS = (
    OutputSpec(name="T1", kind="count", rows=("region",), columns=("sex",), margins=True),
    OutputSpec(name="T2", kind="sum", rows=("region",), variable="income", where="age >= 30"),
    OutputSpec(name="T3", kind="mean", rows=("sex",), variable="income"),
    OutputSpec(name="T4", kind="count", rows=("band",), weights="w"),
    OutputSpec(name="T5", kind="median", rows=("region",), variable="age"),
    OutputSpec(name="T6", kind="max", rows=("born",), variable="income", where="region = 'N'"),
    OutputSpec(name="T7", kind="sum", rows=("sex",), variable="w", weights="w"),
)


def _frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(
        np.array(["N", "S", "E", "All", None], dtype=object), n, p=[0.4, 0.3, 0.2, 0.05, 0.05]
    )
    sex = pd.array(rng.choice([1, 2], n), dtype="Int64")
    sex[rng.random(n) < 0.05] = pd.NA
    income = np.round(rng.gamma(2.0, 900.0, n), 2)
    income[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "region": region,
            "sex": sex,
            "age": rng.integers(16, 90, n),
            "band": rng.choice([1.5, 2.5, 3.0], n),
            "income": income,
            "w": np.round(rng.uniform(0.5, 40.0, n), 3),
            "born": pd.to_datetime(rng.choice(["1960-01-01", "1975-06-30", "1990-12-31"], n)).date,
        }
    )


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)


def _both(path: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict, dict, dict]:
    """The run on the view and the run on the file read into memory: their documents and written files."""

    def attempt() -> Any:
        try:
            return run_outputs(OutputsSettings(data=path, spec=SPECS))
        except PrivriskError as exc:  # bad input (a header only reads as text): the same words either way
            return str(exc)

    viewed = attempt()
    with monkeypatch.context() as m:
        m.setattr(run_module, "viewable_file", lambda data: None)
        read = attempt()
    if isinstance(viewed, str) or isinstance(read, str):
        return {"error": viewed}, {"error": read}, {}, {}
    files = []
    for run, name in ((viewed, "viewed"), (read, "read")):
        run.write(tmp / name)
        files.append(
            {p.name: p.read_bytes() for p in sorted((tmp / name).iterdir()) if p.name != "manifest.json"}
        )
    return (
        json.loads(json.dumps(to_jsonable(viewed.to_dict()))),
        json.loads(json.dumps(to_jsonable(read.to_dict()))),
        {"versions": viewed.versions, **files[0]},
        {"versions": read.versions, **files[1]},
    )


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # fmt: skip
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 200), suffix=st.sampled_from([".csv", ".parquet"]))
def test_the_view_of_a_file_gives_what_the_file_read_into_memory_gives(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, seed: int, n: int, suffix: str
) -> None:
    tmp = tmp_path_factory.mktemp("engines")
    path = tmp / f"d{suffix}"
    _write(_frame(seed, n), path)
    doc_view, doc_read, files_view, files_read = _both(path, tmp, monkeypatch)
    assert doc_view == doc_read
    assert files_view == files_read


def test_the_file_is_viewed_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.parquet"
    _write(_frame(1, 300), path)
    monkeypatch.setattr("privrisk.io.data.read_table", lambda *a, **k: pytest.fail("the file was read"))
    run = run_outputs(OutputsSettings(data=path, spec=SPECS))
    assert run.summary["records"] == 300


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_digests_streamed_are_those_of_the_column_in_memory(tmp_path: Path, suffix: str) -> None:
    frame = _frame(7, 250).assign(flag=lambda f: f["age"] > 40, t=lambda f: f["region"].fillna("x") + "é")
    path = tmp_path / f"d{suffix}"
    _write(frame, path)
    memory = read_table(path)
    spec = OutputSpec(name="T", kind="sum", rows=("region", "sex", "born"), variable="income", weights="w",
                      where="age > 20 AND flag AND t <> 'N' AND band > 1")  # fmt: skip
    with file_data(path) as data:
        assert data is not None
        streamed = data.versions([spec], str(path))["T"]
    assert streamed == data_version(memory, spec, file=str(path))
    assert len(streamed["columns"]) == 9


def test_a_cell_of_text_far_down_a_csv_column_is_read_as_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB types a CSV's column by its first rows; a text cell further down retypes it (read_table does so).
    lines = ["region,age"] + [f"N,{20 + i % 50}" for i in range(30_000)] + ["S,unknown"]
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines) + "\n")
    spec = (OutputSpec(name="T", kind="count", rows=("age",)),)
    viewed = run_outputs(OutputsSettings(data=path, spec=spec))
    monkeypatch.setattr(run_module, "viewable_file", lambda data: None)
    read = run_outputs(OutputsSettings(data=path, spec=spec))
    assert viewed.to_dict() == read.to_dict()
    assert any(c["labels"] == {"age": "unknown"} for c in viewed.outputs[0]["cells"])
