"""Assertions shared by the test modules (import with ``from helpers import …``)."""

from __future__ import annotations

import json


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def json(self):
        return json.loads(self.out)


def one_line_error(result: CliResult, *fragments: str) -> None:
    """Assert exit 2 with one line on stderr that mentions every fragment, and no traceback."""
    assert result.code == 2, (result.code, result.out, result.err)
    lines = [line for line in result.err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
