"""The README's commands stay true: CI runs exactly its test command, and its main command works."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def readme_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)


def test_ci_runs_exactly_the_readme_test_command():
    test_command = readme_blocks()[1].strip()
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_readme_starts_with_setup_and_main_command():
    first = readme_blocks()[0].strip().splitlines()
    assert first[0].startswith("python3 -m venv .venv")
    assert first[1].startswith("privrisk ")
