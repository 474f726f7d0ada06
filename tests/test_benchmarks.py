"""Every benchmark runs in its quick mode and prints the baseline beside privrisk (a smoke test, not a timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).parents[1] / "benchmarks").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_quick_mode_runs(script, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(script), "--quick"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip(), "a benchmark must print its figures"


@pytest.mark.slow
def test_presence_benchmark_large_grid_quick(tmp_path):
    """The census grid above 2²⁴ cells (issue 25): printed beside its baseline, with the same measures."""
    script = Path(__file__).parents[1] / "benchmarks" / "presence.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--quick", "--grid", "large"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "25,600,000 cells" in proc.stdout
    assert "the same as the previous way's: True" in proc.stdout
    assert "ours equal to DuckDB alone: True" in proc.stdout
