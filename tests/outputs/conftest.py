"""Fixtures of the output-checking tests."""

from __future__ import annotations

import pytest

import privrisk.outputs.extremes as extremes


@pytest.fixture
def searches_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The searches for points run however small the system (``extremes.SEARCHES_FROM``): tests of the searches
    run on small requests, where privrisk as shipped leaves them out."""
    monkeypatch.setattr(extremes, "SEARCHES_FROM", 0)
