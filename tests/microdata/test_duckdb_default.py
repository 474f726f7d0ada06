"""run_microdata groups a large CSV or Parquet file in DuckDB by default (issue 36 item 2): the rule's threshold
checked by hand (records × columns × bytes a value against DuckDB's memory limit), a file above a lowered threshold
grouped with the document of the file read into memory, and what needs every record read into memory."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

import privrisk.microdata._duckdb as duckdb_module
from privrisk.cli._common import to_jsonable
from privrisk.microdata import MicrodataSettings, run_microdata
from privrisk.microdata._duckdb import _bytes, _records_estimate, grouped_by_default
from privrisk.microdata._grouped import GroupedMicrodataResult
from privrisk.microdata.measure import measure_microdata
from privrisk.microdata.run import MicrodataRun

IN_MEMORY = duckdb_module.IN_MEMORY_BYTES_PER_VALUE


def _frame(n: int = 100) -> pd.DataFrame:
    return pd.DataFrame({
        "a": [i % 4 for i in range(n)],
        "b": [None if i % 9 == 0 else "xyz"[i % 3] for i in range(n)],
        "w": [1.5 + i % 7 for i in range(n)],
        "h": [i // 3 for i in range(n)],
        "s": ["p" if i % 2 else "q" for i in range(n)],
    })  # fmt: skip


def _write(frame: pd.DataFrame, path) -> str:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_threshold_by_hand(tmp_path, monkeypatch, kind):
    """100 records (a CSV: a header and 100 lines, 101 lines in all) × 3 columns (a, b, w) × 32 bytes: 9,600 bytes
    for Parquet, 9,696 for the CSV; grouped only when that exceeds the limit."""
    path = _write(_frame(), tmp_path / f"f.{kind}")
    s = MicrodataSettings(data=path, keys="a,b", weights="w")
    need = 100 * 3 * 32 if kind == "parquet" else 101 * 3 * 32
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", f"{need}B")
    assert not grouped_by_default(s)
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", f"{need - 1}B")
    assert grouped_by_default(s)
    # the household id is a fourth column: 12,800 (12,928) bytes
    assert grouped_by_default(MicrodataSettings(data=path, keys="a,b", weights="w", household="h"))
    monkeypatch.setenv("PRIVRISK_DUCKDB_MEMORY_LIMIT", f"{need * 4 // 3}B")
    assert not grouped_by_default(MicrodataSettings(data=path, keys="a,b", weights="w", household="h"))


def test_records_estimated(tmp_path):
    """A Parquet file's row count; a CSV's lines (the header one of them), exactly when it fits the sample, else
    its size over the sample's line length; a gzipped CSV by its compressed size; what cannot be read: 0."""
    frame = _frame(1000)
    assert _records_estimate(tmp_path / "f.parquet") == 0  # no such file
    _write(frame, tmp_path / "f.parquet")
    assert _records_estimate(tmp_path / "f.parquet") == 1000
    csv = tmp_path / "f.csv"
    _write(frame, csv)
    assert _records_estimate(csv) == 1001
    csv.write_text("a,b\n1,2\n3,4")  # no line break at the end
    assert _records_estimate(csv) == 3
    lines = "a,b\n" + "10,20\n" * 400_000  # 2.4 MB, one line of 6 bytes but the header
    csv.write_text(lines)
    assert abs(_records_estimate(csv) - 400_001) < 400_001 * 0.001
    packed = tmp_path / "f.csv.gz"
    packed.write_bytes(gzip.compress(lines.encode()))
    assert 0 < _records_estimate(packed) < 400_001  # the compressed size over the lines' length
    (tmp_path / "f.csv.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    assert _records_estimate(tmp_path / "f.csv.zst") == 0


def test_sizes_in_bytes_as_duckdb():
    """KB, MB, GB in powers of 1000 and KiB… of 1024, as DuckDB reads them (its setting read back)."""
    from privrisk.io.engine import duckdb_connect

    assert _bytes("1GB") == 1e9 and _bytes("512MiB") == 512 * 2**20 and _bytes(" 2.5 kb ") == 2500
    for size in ("1GB", "512MiB", "300MB"):
        with duckdb_connect(size, 1) as con:
            told = con.sql("SELECT current_setting('memory_limit')").fetchall()[0][0]
        number, unit = told.split()
        assert (
            abs(float(number) * 1024 ** ("KiB MiB GiB".split().index(unit) + 1) - _bytes(size)) < 2**20 / 10
        )


def _json(run: MicrodataRun) -> str:
    return json.dumps(to_jsonable(run.to_dict()), ensure_ascii=False)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_small_file_in_memory_large_file_grouped_same_document(tmp_path, monkeypatch, kind):
    path = _write(_frame(), tmp_path / f"f.{kind}")
    s = MicrodataSettings(data=path, keys="a,b", weights="w", household="h", k=3, top=7)
    small = run_microdata(s)
    assert not isinstance(small.measured, GroupedMicrodataResult)
    monkeypatch.setattr(duckdb_module, "IN_MEMORY_BYTES_PER_VALUE", 10**7)  # 100 × 4 × 10⁷ > 1 GB
    large = run_microdata(s)
    assert isinstance(large.measured, GroupedMicrodataResult)
    in_memory = MicrodataRun(s, measure_microdata(None, s))
    assert _json(large) == _json(small) == _json(in_memory)
    large.write(tmp_path / "grouped")
    small.write(tmp_path / "memory")
    for name in ("records.csv", "combinations.csv"):
        assert (tmp_path / "grouped" / name).read_bytes() == (tmp_path / "memory" / name).read_bytes(), name


@pytest.mark.parametrize(
    "options",
    [
        {"k": 3, "reduction": "suppress"},
        {"suda_max_size": 2},
        {"sensitive": ("s",)},
    ],
)
def test_what_needs_every_record_stays_in_memory(tmp_path, monkeypatch, options):
    path = _write(_frame(), tmp_path / "f.csv")
    monkeypatch.setattr(duckdb_module, "IN_MEMORY_BYTES_PER_VALUE", 10**9)
    s = MicrodataSettings(data=path, keys="a,b", **options)
    assert not grouped_by_default(s)
    assert not isinstance(run_microdata(s).measured, GroupedMicrodataResult)
    frame = MicrodataSettings(data=_frame(), keys="a,b")
    assert not grouped_by_default(frame)
    assert not isinstance(run_microdata(frame).measured, GroupedMicrodataResult)


def test_command_line_same_output_grouped_by_default(cli, tmp_path, monkeypatch):
    """``privrisk microdata`` on a file grouped by default: the same exit code (a threshold exceeded), ``--json``,
    printed tables and files (``--out``, ``--records``) as on the file read into memory."""
    path = _write(_frame(), tmp_path / "f.parquet")
    args = [path, "--keys", "a,b", "--weights", "w", "--household", "h", "--k", "20", "--top", "4"]
    outputs = []
    for per_value in (IN_MEMORY, 10**7):
        monkeypatch.setattr(duckdb_module, "IN_MEMORY_BYTES_PER_VALUE", per_value)
        folder = tmp_path / str(per_value)
        assert grouped_by_default(MicrodataSettings(data=path, keys="a,b", weights="w")) == (
            per_value != IN_MEMORY
        )
        as_json = cli(
            "microdata", *args, "--json", "--out", folder / "out", "--records", folder / "records.csv"
        )
        text = cli("microdata", *args)
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.csv"))}
        outputs.append((as_json.code, as_json.out, text.code, text.out, text.err, files))
    assert outputs[0][0] == 1 and len(outputs[0][5]) == 3  # k = 20 not met; the files written
    assert outputs[0] == outputs[1]
