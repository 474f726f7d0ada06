"""Helpers for the release tests."""

from __future__ import annotations


def numbers_in(text: str) -> list[float]:
    """Every number written in a text (JSON, CSV, a repr), each parsed whole."""
    import re

    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)]


def never_written(value: float, text: str) -> bool:
    """True if no number in the text equals the value (a noisy number may contain its digits, e.g. 310.85)."""
    import math

    return not any(math.isclose(x, value, rel_tol=1e-12, abs_tol=1e-12) for x in numbers_in(text))


def q(eps, column="h", query="mean"):
    """One query's entry of a ledger: a column, a query and its ε."""
    return [{"column": column, "query": query, "epsilon": eps}]
