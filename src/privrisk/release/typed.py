"""Queries as a form or a link holds them: text fields read as :class:`~privrisk.release.spec.ReleaseQuery` objects.

A form's bound is kept as typed or refused: ``0,5`` (a decimal comma, or a thousands separator) is refused with a
message naming what was typed, never read as 5 or as 0.5 (a browser's number field would do either, in silence).
The app's query builder and its older ``queries`` link lines (``column query ε LO,HI``) both come through here, so
that every rule about a typed query is the library's and its errors name the field (``epsilon``, ``rho``,
``universe``, ``queries``).

Example:
    >>> typed_query({"column": "h", "query": "mean", "mechanism": "laplace", "epsilon": "ln3", "lower": "0",
    ...              "upper": "24"}).label
    'mean(h)'
    >>> parse_bound("0,5")
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: universe: '0,5' for the lowest possible value: write a decimal point (0.5) and no thousands separator
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.release.spec import ReleaseQuery

__all__ = ["parse_bound", "parse_query_lines", "typed_query"]


def parse_bound(text: Any, which: str = "lowest") -> float:
    """A bound of a query's universe as typed: a number with a decimal point; anything else is refused, never read
    as another number (``0,5`` would be 5 to a browser's number field, or 0.5, or the pair 0 and 5).

    Raises:
        PrivriskError: (``universe``) naming what was typed.

    Example:
        >>> parse_bound("0.5"), parse_bound(" -3 "), parse_bound(700.0)
        (0.5, -3.0, 700.0)
    """
    raw = "" if text is None else str(text).strip()
    if not raw:
        raise PrivriskError(f"universe: give the {which} possible value", param="universe")
    if "," in raw:
        suggestion = raw.replace(",", ".") if raw.count(",") == 1 and "." not in raw else raw.replace(",", "")
        raise PrivriskError(
            f"universe: {raw!r} for the {which} possible value: write a decimal point ({suggestion}) and no "
            "thousands separator",
            param="universe",
        )
    try:
        value = float(raw)
    except ValueError:
        raise PrivriskError(
            f"universe: {raw!r} for the {which} possible value is not a number", param="universe"
        ) from None
    if not math.isfinite(value):
        raise PrivriskError(
            f"universe: the {which} possible value must be finite, got {raw!r}", param="universe"
        )
    return value


def typed_query(row: Mapping[str, Any], missing: str | None = None) -> ReleaseQuery:
    """A query as a form's row holds it (``column``, ``query``, ``mechanism``, ``epsilon`` — ρ for Gaussian noise —,
    ``lower``, ``upper``, all text) as a :class:`~privrisk.release.spec.ReleaseQuery`; errors name the field.

    Example:
        >>> typed_query({"column": "h", "query": "sum", "mechanism": "gaussian", "epsilon": "0.5", "lower": "0",
        ...              "upper": "8"}).rho
        0.5
        >>> typed_query({"column": "h", "query": "sum", "mechanism": "laplace", "epsilon": " ", "lower": "0",
        ...              "upper": "8"})
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: epsilon: required
    """
    text = str(row.get("epsilon") or "").strip()
    if not text:
        raise PrivriskError("epsilon: required", param="epsilon")
    bounds = [
        parse_bound(row.get(name), which) for name, which in (("lower", "lowest"), ("upper", "highest"))
    ]
    gaussian = row.get("mechanism") == "gaussian"
    rho: Any = None
    if gaussian:
        try:
            rho = float(text)
        except ValueError:
            raise PrivriskError(f"rho: must be a number > 0, got {text!r}", param="rho") from None
    return ReleaseQuery(
        str(row.get("column") or ""), str(row.get("query") or ""), None if gaussian else text, bounds, missing,
        mechanism=row.get("mechanism") or "laplace", rho=rho,
    )  # fmt: skip


def parse_query_lines(text: str, *, missing: str | None = None) -> list[ReleaseQuery]:
    """Queries from lines ``column query epsilon LO,HI`` (the ``queries`` link of the app's earlier versions);
    blank lines and ``#`` comments are skipped.

    Raises:
        PrivriskError: (``queries``) naming the line.

    Example:
        >>> [q.label for q in parse_query_lines("hours mean ln3 0,24\\nhours max 0.5 0,24")]
        ['mean(hours)', 'max(hours)']
    """
    queries = []
    for number_, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4:
            raise PrivriskError(
                f"queries: line {number_} has {len(parts)} parts; write 'column query epsilon LO,HI'",
                param="queries",
            )
        column, query, epsilon, universe = parts
        try:
            lo, hi = (float(b) for b in universe.split(","))
        except ValueError:
            raise PrivriskError(
                f"queries: line {number_}: the universe {universe!r} is not two numbers LO,HI",
                param="queries",
            ) from None
        try:
            queries.append(ReleaseQuery(column, query, epsilon, (lo, hi), missing))
        except PrivriskError as exc:
            raise PrivriskError(f"queries: line {number_}: {exc}", param="queries") from None
    return queries
