"""What the ledger tests share: a ledger of two releases of pure ε."""

import pytest

from privrisk.release import ledger as L
from release_helpers import q


@pytest.fixture
def ledger(tmp_path):
    """Two releases of pure ε: 0.5, then 0.25 + 0.25 (plain sum 1; as ρ, ε²/2 each: 0.125 + 2 · 0.03125)."""
    path = tmp_path / "ledger.json"
    L.record_release(path, queries=q(0.5), budget=2.0, data="a.csv")
    L.record_release(path, queries=q(0.25, "g", "median") + q(0.25), budget=2.0, data="a.csv")
    return path
