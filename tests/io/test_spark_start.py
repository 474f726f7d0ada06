"""``--engine spark`` checks its inputs before Spark starts, and Spark's JVM keeps its log off the terminal.

Each command runs as a user runs it (``python -m privrisk …``, stderr a pipe). A missing file, a Stata file or an
unknown column is one line before any JVM starts: the runs below point ``JAVA_HOME`` at nothing, so a JVM that
started would fail with another message. A JVM that cannot start is one line too; one that starts writes
nothing of its own on stderr (no log4j profile, no warnings).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.io.engine import check_spark_source

ROOT = Path(__file__).parents[2]


def _privrisk(args, cwd, **env):
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **env}
    return subprocess.run([sys.executable, "-m", "privrisk", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


@pytest.fixture
def trial(tmp_path):
    pd.DataFrame({"zip": ["1", "1", "2"], "age": [10, 20, 30]}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"zip": ["1", "2"], "age": [10, 30], "n": [5, 5]}).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"zip": ["1"]}).to_stata(tmp_path / "t.dta", write_index=False)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["presence", "missing.csv", "-p", "p.csv", "--qi", "zip"], "missing.csv: no such file"),
        (["presence", "t.csv", "-p", "missing.parquet", "--qi", "zip"], "missing.parquet: no such file"),
        (["presence", "t.dta", "-p", "p.csv", "--qi", "zip"], "t.dta: engine 'spark' reads CSV and Parquet"),
        (["empirical", "missing.csv", "--period", "zip", "--individual", "age", "--query", "count"],
         "missing.csv: no such file"),
    ],
)  # fmt: skip
def test_inputs_are_checked_before_spark_starts(trial, args, said):
    done = _privrisk([*args, "--engine", "spark"], trial, JAVA_HOME="/nonexistent")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"privrisk: error: {said}"), lines


def test_check_spark_source_names_the_file_and_the_column(trial):
    check_spark_source(trial / "t.csv", ["zip", "age"])
    check_spark_source("hdfs:///data/inspections/")  # a URI is Spark's to read
    with pytest.raises(PrivriskError, match=r"t\.csv: no column 'sex'; the columns are: zip, age"):
        check_spark_source(trial / "t.csv", ["zip", "sex"])
    frame = pd.DataFrame({"zip": ["1"], "age": [3]})
    frame.to_parquet(trial / "t.parquet", index=False)
    with pytest.raises(PrivriskError, match="no column 'sex'"):
        check_spark_source(trial / "t.parquet", ["sex"])
    (trial / "parts").mkdir()
    with pytest.raises(PrivriskError, match=r"a folder without \.parquet or \.csv part files"):
        check_spark_source(trial / "parts")


def test_a_jvm_that_cannot_start_is_one_line(trial):
    pytest.importorskip("pyspark")
    done = _privrisk(["presence", "t.csv", "-p", "p.csv", "--population-count", "n", "--qi", "zip",
                      "--engine", "spark"], trial, JAVA_HOME=str(trial / "no-java"))  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "privrisk: error: --spark-master: could not start Spark"
    ), lines


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_writes_nothing_of_its_own_on_stderr(trial):
    """The JVM's log (log4j's default profile, its warnings, the JVM's notes) goes to a file, not the terminal."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        if os.environ.get("CI"):
            pytest.fail("Spark tests must run in CI: no Java runtime")
        pytest.skip("no Java runtime")
    done = _privrisk(["presence", "t.csv", "-p", "p.csv", "--population-count", "n", "--qi", "zip",
                      "--engine", "spark", "--json"], trial)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr
    assert '"delta_max"' in done.stdout


GIB = 2**30


@pytest.mark.parametrize(
    ("master", "environ", "physical", "heap"),
    [
        ("local[2]", {}, 24 * GIB, "2048m"),  # a quarter of 24 GB is 6 GB: at most 2 GB
        ("local[*]", {}, 6 * GIB, "1536m"),  # a quarter
        ("local", {}, 2 * GIB, "1024m"),  # never below Spark's own 1 GB
        ("local[2]", {"PRIVRISK_SPARK_DRIVER_MEMORY": "6g"}, 8 * GIB, "6g"),  # the user's choice
        (
            "local[2]",
            {"SPARK_DRIVER_MEMORY": "3g"},
            24 * GIB,
            None,
        ),  # Spark's own settings, as the user set them
        ("local[2]", {"PYSPARK_SUBMIT_ARGS": "--driver-memory 2g pyspark-shell"}, 24 * GIB, None),
        ("local[2]", {"PYSPARK_SUBMIT_ARGS": "--conf spark.driver.memory=2g pyspark-shell"}, 24 * GIB, None),
        ("yarn", {}, 24 * GIB, None),  # a cluster keeps its settings
        ("spark://host:7077", {"PRIVRISK_SPARK_DRIVER_MEMORY": "6g"}, 24 * GIB, None),
    ],
)
def test_local_driver_memory(master, environ, physical, heap):
    from privrisk.io.driver_memory import local_driver_memory

    assert local_driver_memory(master, environ, physical) == heap


def test_local_driver_memory_keeps_spark_defaults(tmp_path):
    from privrisk.io.driver_memory import local_driver_memory

    (tmp_path / "spark-defaults.conf").write_text("spark.executor.memory 2g\n")
    assert local_driver_memory("local[2]", {"SPARK_CONF_DIR": str(tmp_path)}, 24 * GIB) == "2048m"
    (tmp_path / "spark-defaults.conf").write_text("# mine\nspark.driver.memory   5g\n")
    assert local_driver_memory("local[2]", {"SPARK_CONF_DIR": str(tmp_path)}, 24 * GIB) is None


def test_local_driver_memory_refuses_a_bad_size():
    from privrisk.io.driver_memory import local_driver_memory

    with pytest.raises(PrivriskError, match=r"^PRIVRISK_SPARK_DRIVER_MEMORY: expected a JVM size"):
        local_driver_memory("local[2]", {"PRIVRISK_SPARK_DRIVER_MEMORY": "lots"}, GIB)
