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


def numbers_in(text: str) -> list[float]:
    """Every number written in a text (JSON, CSV, a repr), each parsed whole."""
    import re

    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)]


def never_written(value: float, text: str) -> bool:
    """True if no number in the text equals the value (a noisy number may contain its digits, e.g. 310.85)."""
    import math

    return not any(math.isclose(x, value, rel_tol=1e-12, abs_tol=1e-12) for x in numbers_in(text))
