"""The tables of the app's page Presence: the library's rows (:mod:`privrisk.presence.report`) as DataFrames, the
numbers as the command line prints them."""

from __future__ import annotations

from typing import Any

__all__ = ["classes_frame", "estimate_frame", "minimal_frame", "summary_frame"]


def _frame(rows: Any, columns: list[str]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


def summary_frame(s: dict[str, Any]) -> Any:
    """A summary's measures (two columns: measure, value)."""
    from privrisk.presence.report import summary_rows

    return _frame(summary_rows(s, target="δ_max allowed"), ["measure", "value"])


def classes_frame(result: Any) -> Any:
    """The released classes of highest δ: the quasi-identifiers, in T, in P, δ."""
    from privrisk.presence.report import class_rows

    header, rows, _ = class_rows(result)
    return _frame(rows, header)


def minimal_frame(found: Any) -> Any:
    """The minimal generalisations of a search: levels, then what each node reaches."""
    from privrisk.presence.report import minimal_rows

    header, rows = minimal_rows(found)
    return _frame(rows, header)


def estimate_frame(e: Any) -> Any:
    """The estimated k-map's measures (two columns: measure, value)."""
    from privrisk.presence.report import estimate_rows

    return _frame(estimate_rows(e), ["measure", "value"])
