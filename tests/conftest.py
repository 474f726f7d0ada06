"""Shared test helpers."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

# Hypothesis: a fixed, moderate budget so the suite takes the same time everywhere.
from hypothesis import settings

from browser_helpers import launch_browser
from helpers import CliResult

settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def cli(capsys):
    """Run ``privrisk ARGS`` in-process; returns exit code, stdout and stderr."""
    from privrisk.cli import main

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module's page tests (skipped outside CI only if Chromium is missing)."""
    yield from launch_browser()


@pytest.fixture
def trial_and_census(tmp_path):
    """Desfontaines' clinical trial T (ZIP code and age) and the census P it is drawn from, as counts per band."""
    t = tmp_path / "trial.csv"
    t.write_text("zip,age\n85535,10\n85535,12\n85535,13\n85535,13\n85535,16\n85535,43\n")
    p = tmp_path / "census.csv"
    p.write_text("zip,age,n\n85535,10-19,5\n85535,20-29,5\n85535,30-39,10\n85535,40-49,10\n85535,50+,20\n")
    return t, p


def _spark_missing() -> str | None:
    """Why Spark cannot run here (pyspark or a working Java runtime missing), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'privrisk[spark]')"
    if shutil.which("java") is None:
        return "no Java runtime"
    try:
        subprocess.run(["java", "-version"], capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "no Java runtime (java -version failed)"
    return None


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession per test process (its start costs seconds). The Spark tests skip only when CI is
    unset and pyspark or Java is missing; in CI they must run."""
    why = _spark_missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"Spark tests must run in CI: {why}")
        pytest.skip(why)
    from privrisk.io.engine import spark_session

    session = spark_session("local[2]")
    session.conf.set("spark.sql.shuffle.partitions", "2")
    yield session
