"""Checks every run of the one shape (issue 33) must pass: ``write(folder)`` is whole or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def assert_written_whole_or_not_at_all(run: Any, out: Path, monkeypatch: Any, module: Any, name: str) -> None:
    """``run.write(out)`` with ``module.name`` failing (a full disk) leaves ``out`` empty and no temporary folder."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(module, name, broken)
    with pytest.raises(OSError, match="disk full"):
        run.write(out)
    assert not out.exists() or not any(out.iterdir())
    assert not [p for p in out.parent.iterdir() if p.name != out.name]  # no temporary folder left behind
