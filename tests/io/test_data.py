"""Reading files: every format, missing codes, and one clear error per bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrisk import PrivriskError, read_column, read_table
from privrisk.io.data import numeric_values, parse_missing, table_columns


@pytest.fixture
def frame():
    return pd.DataFrame({"hours": [8.0, -1, 4.5, np.nan, -2, 12], "name": list("abcdef")})


def test_csv_with_bom_and_semicolons(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffhours;name\n8;a\n-1;b\n4,5;c\n".replace("4,5", "4.5").encode("utf-8"))
    col = read_column(path, "hours", missing="negative")
    assert col.values.tolist() == [8.0, 4.5]
    assert col.dropped_codes == {-1.0: 1}


def test_csv_tab_delimited(tmp_path):
    path = tmp_path / "tab.tsv"
    path.write_text("a\tb\n1\t2\n3\t4\n")
    assert read_column(path, "b").values.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("suffix", [".parquet", ".dta", ".sav"])
def test_binary_formats(tmp_path, frame, suffix):
    path = tmp_path / f"data{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix == ".dta":
        frame.to_stata(path, write_index=False)
    else:
        import pyreadstat

        pyreadstat.write_sav(frame, str(path))
    col = read_column(path, "hours", missing="negative")
    assert col.values.tolist() == [8.0, 4.5, 12.0]
    assert col.n_nan == 1 and col.dropped_codes == {-2.0: 1, -1.0: 1}
    assert "3 of 6 values" in col.summary()


def test_listed_codes_only(tmp_path, frame):
    path = tmp_path / "d.parquet"
    frame.to_parquet(path)
    col = read_column(path, "hours", missing="-1")
    assert sorted(col.values.tolist()) == [-2.0, 4.5, 8.0, 12.0]


def test_inputs_are_never_modified(tmp_path, frame):
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    before = path.read_bytes()
    read_column(path, "hours", missing="negative")
    assert path.read_bytes() == before


def test_na_tokens_are_missing_not_text():
    col = numeric_values(pd.Series(["1", "NA", "", ".", "2.5"]), name="x")
    assert col.values.tolist() == [1.0, 2.5] and col.n_nan == 3


def test_read_table_subset(tmp_path, frame):
    path = tmp_path / "d.parquet"
    frame.to_parquet(path)
    assert list(read_table(path, ["name"]).columns) == ["name"]
    assert table_columns(path) == ["hours", "name"]


# ------------------------------------------------------------------------------------------------- errors
def test_missing_file(tmp_path):
    with pytest.raises(PrivriskError, match="no such file"):
        read_column(tmp_path / "nope.csv", "x")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(PrivriskError, match="empty"):
        read_column(path, "x")


def test_header_only_file(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("x,y\n")
    with pytest.raises(PrivriskError, match="no values left"):
        read_column(path, "x")


def test_missing_column_lists_the_columns(tmp_path, frame):
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(PrivriskError, match=r"no column 'hour'.*hours, name"):
        read_column(path, "hour")


def test_text_in_numeric_column(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x\n1\n2\nabc\n")
    with pytest.raises(PrivriskError, match=r"not numeric: 'abc' in row 3"):
        read_column(path, "x")


def test_all_missing(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("x\n-1\n-2\n\n")
    with pytest.raises(PrivriskError, match="all values are missing"):
        read_column(path, "x", missing="negative")


def test_unknown_file_type(tmp_path):
    path = tmp_path / "d.xlsx"
    path.write_text("x")
    with pytest.raises(PrivriskError, match="unknown file type"):
        read_column(path, "x")


def test_bad_missing_spec():
    with pytest.raises(PrivriskError, match=r"^missing: 'negatives' is neither") as raised:
        parse_missing("negatives,abc")
    assert raised.value.param == "missing"


def test_infinite_values():
    with pytest.raises(PrivriskError, match="infinite"):
        numeric_values(pd.Series([1.0, np.inf]), name="x")


def test_duplicate_header_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x;X\n1;50\n2;60\n")
    with pytest.raises(PrivriskError, match="column 'X' twice"):
        read_table(path)


@pytest.mark.parametrize("body", ["1,2\n3,4,5\n6,7\n", "1,2\n3\n6,7\n"])
@pytest.mark.parametrize("name", ["d.csv", "d.csv.gz"])
def test_ragged_csv_is_refused_with_its_line(tmp_path, body, name):
    import gzip

    path = tmp_path / name
    text = "x,y\n" + body
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    with pytest.raises(PrivriskError, match="line 3 has"):
        read_table(path, ["x"])


def test_a_one_column_csv_is_still_read(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x\n1\n2\n")
    assert read_table(path)["x"].tolist() == [1, 2]


def test_a_csv_without_header_is_not_taken_for_a_repeated_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,1\n2,3\n4,5\n")
    assert list(read_table(path).columns) == ["column0", "column1"]
