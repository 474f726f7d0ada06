"""What to release: one query on a column with its ε and universe, and the ``release.toml`` that lists several.

A universe [lo, hi] is fixed *before* looking at the data; every value is clamped to it, which is what makes the
global sensitivity hold (Allmann et al., §2.1.1). A query's ε is a number or a logarithm (``ln3``), and its
missing codes follow the SOEP convention (``negative`` drops −1, −2, …).

Example:
    >>> q = ReleaseQuery("hours", "mean", "ln3", (0, 24), missing="negative")
    >>> q.label, q.universe.hi, q.missing.negative
    ('mean(hours)', 24.0, True)
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from privrisk._validation import Query, check_choice, check_query, parse_epsilon
from privrisk.errors import PrivriskError
from privrisk.io.data import MissingCodes, parse_missing
from privrisk.sensitivity import Universe

__all__ = [
    "MECHANISMS",
    "Mechanism",
    "ReleaseQuery",
    "ReleaseSpec",
    "check_public_n",
    "check_spec_columns",
    "read_release_spec",
]

_SPEC_TOP = {"public_n", "missing", "query"}
_SPEC_QUERY = {"column", "query", "epsilon", "universe", "missing", "label", "mechanism", "rho"}

#: The noise a release adds: Laplace (ε-DP) or Gaussian (ρ-zCDP, Bun and Steinke 2016), both from OpenDP.
Mechanism = Literal["laplace", "gaussian"]
MECHANISMS: tuple[Mechanism, ...] = ("laplace", "gaussian")


def _rho(value: Any) -> float:
    """ρ of zero-concentrated DP: a finite number > 0."""
    try:
        rho = float(value)
    except (TypeError, ValueError):
        rho = math.nan
    if isinstance(value, bool) or not (math.isfinite(rho) and rho > 0):
        raise PrivriskError(f"rho: must be a finite number greater than 0, got {value!r}", param="rho")
    return rho


def _interval(universe: Universe | Sequence[float]) -> Universe:
    """Bounds [lo, hi] with lo < hi, both finite, as an interval :class:`Universe` (not a set of values)."""
    if isinstance(universe, Universe):
        u = universe
        if not u.is_interval:
            raise PrivriskError(
                "universe: a release needs bounds [lo, hi], not a set of values from the data"
            )
    else:
        try:
            lo, hi = (float(x) for x in universe)
        except (TypeError, ValueError):
            raise PrivriskError(f"universe: give two numbers [lo, hi], got {universe!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise PrivriskError(f"universe: bounds must be finite numbers, got [{lo:g}, {hi:g}]")
        if not lo < hi:
            raise PrivriskError(f"universe: the lower bound {lo:g} must be below the upper bound {hi:g}")
        u = Universe.from_bounds(lo, hi)
    if not u.lo < u.hi:
        raise PrivriskError(f"universe: the lower bound {u.lo:g} must be below the upper bound {u.hi:g}")
    return u


def check_public_n(value: Any, name: str = "public_n") -> int | None:
    """The published number of people in the data: None, or a whole number ≥ 2.

    Example:
        >>> check_public_n(30000.0), check_public_n(None)
        (30000, None)
        >>> check_public_n(1)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: public_n: the published number of people must be at least 2, got 1
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise PrivriskError(
            f"{name}: the published number of people must be a whole number ≥ 2, got {value!r}"
        )
    if value < 2:
        raise PrivriskError(f"{name}: the published number of people must be at least 2, got {value!r}")
    return int(value)


@dataclass(frozen=True, init=False)
class ReleaseQuery:
    """One answer to release: a query on a column, its privacy parameter and the universe [lo, hi] it is clamped to.

    A Laplace answer (the default) spends ε (pure ε-DP); a Gaussian answer spends ρ of zero-concentrated DP
    (OpenDP's Gaussian mechanism: ρ = Δ²/(2σ²), Bun and Steinke 2016, Prop. 1.6).

    Args:
        column: the column's name.
        query: one of ``count, sum, mean, median, min, max, variance, std`` (``var`` is read as ``variance``).
        epsilon: ε > 0, a number or ``ln3``, ``ln(3)``, ``log(3)``, for a Laplace answer; None for a Gaussian one.
        universe: bounds ``(lo, hi)`` with lo < hi fixed before looking at the data, or an interval
            :class:`~privrisk.sensitivity.Universe`.
        missing: missing codes to drop: ``"negative"``, a list of codes, or
            :class:`~privrisk.io.data.MissingCodes`.
        name: how the answer is labelled in the published table (default ``query(column)``).
        mechanism: ``laplace`` or ``gaussian``.
        rho: ρ > 0 of a Gaussian answer.

    Example:
        >>> q = ReleaseQuery("hours", "mean", "ln3", (0, 24))
        >>> q.label, round(q.epsilon, 4), q.universe
        ('mean(hours)', 1.0986, Universe.from_bounds(0, 24))
        >>> ReleaseQuery("hours", "mean", None, (0, 24), mechanism="gaussian", rho=0.125).ledger_record()
        {'column': 'hours', 'query': 'mean', 'mechanism': 'gaussian', 'rho': 0.125}
    """

    column: str
    query: Query
    epsilon: float
    universe: Universe
    missing: MissingCodes
    name: str | None
    mechanism: Mechanism
    rho: float | None

    def __init__(
        self,
        column: str,
        query: str,
        epsilon: float | str | None,
        universe: Universe | Sequence[float],
        missing: MissingCodes | str | Sequence[float] | None = None,
        name: str | None = None,
        *,
        mechanism: str = "laplace",
        rho: float | None = None,
    ) -> None:
        if not isinstance(column, str) or not column:
            raise PrivriskError("column: give the name of a column")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise PrivriskError("label: give a non-empty text")
        m = check_choice(mechanism, MECHANISMS, name="mechanism")
        if m == "laplace":
            if rho is not None:
                raise PrivriskError(
                    "rho: a Laplace answer spends ε, not ρ (give mechanism gaussian)", param="rho"
                )
            if epsilon is None:
                raise PrivriskError("epsilon: a Laplace answer needs ε", param="epsilon")
            eps = parse_epsilon(epsilon, name="epsilon")
        else:
            if epsilon is not None:
                raise PrivriskError(
                    "epsilon: a Gaussian answer spends ρ of zero-concentrated DP, not ε; give rho",
                    param="epsilon",
                )
            if rho is None:
                raise PrivriskError("rho: a Gaussian answer needs ρ of zero-concentrated DP", param="rho")
            eps = 0.0
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "query", cast(Query, check_query(query)))
        # A Gaussian answer spends no pure ε: 0.0 keeps sums of ε right; ``rho`` is its parameter.
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "universe", _interval(universe))
        object.__setattr__(self, "missing", parse_missing(missing))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "mechanism", m)
        object.__setattr__(self, "rho", None if rho is None else _rho(rho))

    def ledger_record(self) -> dict[str, Any]:
        """What the ledger keeps of this answer: ``{column, query, epsilon}`` for Laplace (the format of every
        ledger so far), ``{column, query, mechanism, rho}`` for Gaussian."""
        if self.mechanism == "laplace":
            return {"column": self.column, "query": self.query, "epsilon": self.epsilon}
        return {"column": self.column, "query": self.query, "mechanism": "gaussian", "rho": self.rho}

    @property
    def label(self) -> str:
        """The answer's name in the published table."""
        return self.name or f"{self.query}({self.column})"

    def to_dict(self) -> dict[str, Any]:
        """The query as plain JSON (without its label), as a manifest records what was asked.

        Example:
            >>> ReleaseQuery("hours", "mean", 0.5, (0, 24), missing=[-1]).to_dict()["missing"]
            {'negative': False, 'codes': [-1.0]}
        """
        doc: dict[str, Any] = {
            "column": self.column,
            "query": self.query,
            "epsilon": self.epsilon,
            "universe": [self.universe.lo, self.universe.hi],
            "missing": {"negative": self.missing.negative, "codes": list(self.missing.codes)},
        }
        if self.mechanism != "laplace":
            doc.update({"epsilon": None, "mechanism": self.mechanism, "rho": self.rho})
        return doc


@dataclass(frozen=True)
class ReleaseSpec:
    """The queries of a ``release.toml`` and its release-wide settings."""

    queries: tuple[ReleaseQuery, ...]
    public_n: int | None = None


def read_release_spec(path: str | os.PathLike[str]) -> ReleaseSpec:
    """Read a ``release.toml``: release-wide ``public_n`` and ``missing``, then one ``[[query]]`` table each.

    ::

        public_n = 30000            # optional: the published number of participants
        missing = "negative"        # optional: missing codes for every query (SOEP: −1, −2, …)

        [[query]]
        column = "hours"
        query = "mean"
        epsilon = "ln3"             # or a number
        universe = [0, 24]          # bounds fixed before looking at the data
        missing = [-1, -3]          # optional, overrides the release-wide codes
        label = "Weekly hours, mean"  # optional: the answer's name in the published table

        [[query]]
        column = "income"
        query = "mean"
        mechanism = "gaussian"      # Gaussian noise from OpenDP: spends ρ of zCDP instead of ε
        rho = 0.125
        universe = [0, 5000]

    Raises:
        PrivriskError: naming the file and the query for a missing file, bad TOML, an unknown key, an unknown
            query, ε ≤ 0 or a universe with lo ≥ hi.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "release.toml"
        >>> _ = p.write_text('[[query]]\\ncolumn = "h"\\nquery = "max"\\nepsilon = 1\\nuniverse = [0, 24]\\n')
        >>> read_release_spec(p).queries[0].label
        'max(h)'
    """
    p = Path(path)
    if not p.is_file():
        raise PrivriskError(f"{p}: no such spec file")
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PrivriskError(f"{p}: not valid TOML: {exc}") from None
    unknown = set(doc) - _SPEC_TOP
    if unknown:
        raise PrivriskError(
            f"{p}: unknown key {sorted(unknown)[0]!r}; a spec has {', '.join(sorted(_SPEC_TOP))}"
        )
    default_missing = doc.get("missing")
    tables = doc.get("query")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise PrivriskError(f"{p}: no queries; add one or more [[query]] tables")
    queries = []
    for i, table in enumerate(tables, start=1):
        where = f"{p}: query {i}"
        unknown = set(table) - _SPEC_QUERY
        if unknown:
            raise PrivriskError(
                f"{where}: unknown key {sorted(unknown)[0]!r}; a query has {', '.join(sorted(_SPEC_QUERY))}"
            )
        gaussian = str(table.get("mechanism", "laplace")).strip().lower() == "gaussian"
        needed = ("column", "query", "rho" if gaussian else "epsilon", "universe")
        absent = [k for k in needed if k not in table]
        if absent:
            raise PrivriskError(f"{where}: no {absent[0]!r} given")
        if not gaussian and (
            isinstance(table["epsilon"], bool) or not isinstance(table["epsilon"], str | int | float)
        ):
            raise PrivriskError(f'{where}: epsilon: {table["epsilon"]!r} is not a number (e.g. 0.5 or "ln3")')
        if not isinstance(table["universe"], list):
            raise PrivriskError(f"{where}: universe: give the bounds as [lo, hi], got {table['universe']!r}")
        try:
            queries.append(
                ReleaseQuery(
                    str(table["column"]),
                    str(table["query"]),
                    table.get("epsilon"),
                    table["universe"],
                    table.get("missing", default_missing),
                    table.get("label"),
                    mechanism=str(table.get("mechanism", "laplace")),
                    rho=table.get("rho"),
                )
            )
        except PrivriskError as exc:
            raise PrivriskError(f"{where}: {exc}") from None
    return ReleaseSpec(tuple(queries), check_public_n(doc.get("public_n"), f"{p}: public_n"))


def check_spec_columns(
    queries: Sequence[ReleaseQuery],
    columns: Sequence[str],
    *,
    spec: str | os.PathLike[str],
    source: str | os.PathLike[str],
) -> None:
    """Fail naming the spec file and the query when a query's column is not among a data file's ``columns``.

    Example:
        >>> qs = [ReleaseQuery("hours", "mean", 1, (0, 24)), ReleaseQuery("pay", "sum", 1, (0, 9))]
        >>> check_spec_columns(qs, ["hours", "age"], spec="r.toml", source="a.csv")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: r.toml: query 2 names column 'pay', which a.csv does not have; the columns are: hours, age
    """
    for i, q in enumerate(queries, start=1):
        if q.column not in columns:
            shown = ", ".join(columns[:20]) + (" …" if len(columns) > 20 else "")
            raise PrivriskError(
                f"{spec}: query {i} names column {q.column!r}, which {source} does not have; "
                f"the columns are: {shown}"
            )
