"""Noisy releases with a risk statement, a budget and a ledger: the scenario of 000 §2 and 002 §4.

Descriptive statistics of a survey are published with Laplace noise, and the risk is published alongside them.
For every query the value is computed on the data clamped to a universe [lo, hi] that is fixed *before* looking
at the data (clamping is what makes the global sensitivity hold), and released as

    M(X) = f(X) + Y,   Y ~ Lap(b),   b = Δf/ε           (Definition 3 of 002; 000 §2.1.1)

with Δf the global sensitivity of :func:`privrisk.global_sensitivity` (unbounded neighbours). The noise comes from
OpenDP's floating-point-safe Laplace sampler, which adds noise on a grid of floats and draws from the operating
system's secure randomness; it cannot be seeded, so two releases of the same data differ by design. The scale is
nudged up by a few ulps when needed so that OpenDP's own privacy map certifies at most the requested ε.

Noise is never scaled to a local or data-dependent sensitivity: that noise would itself depend on the data and
leak it (003; ``privrisk audit`` shows how).

Each release states its risk twice:

- the **public statement** depends only on the ε values (and a published n), so it may be printed beside the
  numbers: the total ε by sequential composition, the global risk P and leak Γ at that ε (eq. 3–4 of 002), the
  many-worlds risk ρ_mw with Δv/Δf = 1 for a published n (eq. 2 of 002), and :func:`privrisk.describe`'s sentences;
- the **internal assessment** depends on the data and is *not for publication*: per query the exact local
  sensitivity Δv on the clamped data and the two-worlds and many-worlds risk at Δv/Δf (eq. 4 and 6 of 000), with
  n the number of records, as 000 computes them.

The true (noise-free) values are never returned. When the release contains a count, the record counts are
withheld from the internal assessment as well, since one of them is that count's true value.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import parse_epsilon
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.data import MissingCodes, numeric_values, parse_missing
from privrisk.release import ledger as _ledger
from privrisk.risk import describe, global_leak, global_risk, leak, many_worlds, two_worlds
from privrisk.sensitivity import (
    Universe,
    check_query,
    evaluate,
    global_sensitivity,
    local_sensitivity,
    sensitivity_ratio,
)

__all__ = [
    "Release",
    "ReleaseQuery",
    "ReleaseSpec",
    "composed_epsilon",
    "laplace_mechanism",
    "noise_interval",
    "noise_scale",
    "noisy_release",
    "public_statement",
    "read_release_spec",
]

#: The share of releases whose noise lies inside the reported interval.
LEVEL = 0.95


# --------------------------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------------------------


def _opendp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _atom_laplace(scale: float):
    dp = _opendp()
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def _certified_scale(sensitivity: float, epsilon: float) -> float:
    """b = Δf/ε, raised by as few ulps as needed for OpenDP's privacy map to certify ε' ≤ ε."""
    scale = float(sensitivity) / float(epsilon)
    for _ in range(64):
        if _atom_laplace(scale).map(float(sensitivity)) <= epsilon:
            return scale
        scale = math.nextafter(scale, math.inf)
    raise PrivriskError(f"epsilon: OpenDP cannot certify ε = {epsilon:g} for sensitivity {sensitivity:g}")


def noise_scale(query: str, universe, epsilon: float) -> float:
    """b = Δf/ε, the Laplace scale that makes one answer ε-DP: Definition 3 of 002, 000 §2.1.1.

    Args:
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        universe: bounds ``(lo, hi)`` with lo < hi, or an interval :class:`Universe`.
        epsilon: ε > 0.

    Returns:
        b, at most a few ulps above Δf/ε so that OpenDP's privacy map certifies ε.

    Example:
        >>> noise_scale("mean", (0, 24), 0.5)        # Δf = 24/2 = 12
        24.0
        >>> noise_scale("count", (0, 24), 0.1)
        10.0
    """
    eps = parse_epsilon(epsilon, name="epsilon")
    u = _interval(universe)
    return _certified_scale(global_sensitivity(query, u), eps)


def noise_interval(scale, level: float = LEVEL):
    """Half-width t of the interval [−t, t] that holds Laplace(b) noise with probability ``level``.

    P(|Y| > t) = e^(−t/b), so t = b·ln(1/(1 − level)); at 95 % t = b·ln 20 ≈ 3.00·b.

    Example:
        >>> round(noise_interval(1.0), 4)
        2.9957
        >>> noise_interval(2.0, level=1 - math.exp(-1))
        2.0
    """
    if not 0 < level < 1:
        raise PrivriskError(f"level: must be strictly between 0 and 1, got {level}")
    b = np.asarray(scale, dtype=float)
    if np.any(~np.isfinite(b)) or np.any(b <= 0):
        raise PrivriskError("scale: the Laplace scale must be a finite number > 0")
    out = b * -math.log1p(-level)
    return float(out) if out.ndim == 0 else out


def composed_epsilon(epsilons: Iterable[float]) -> float:
    """The total ε of several answers from the same data: their sum (sequential composition, 002 §3.4).

    Summed with ``math.fsum`` so that the order of the answers does not change the total.

    Example:
        >>> composed_epsilon([0.1, 0.2, 0.3])
        0.6
    """
    values = [float(e) for e in epsilons]
    if not values:
        raise PrivriskError("epsilon: a release needs at least one answer")
    if any(not math.isfinite(e) or e <= 0 for e in values):
        raise PrivriskError("epsilon: every answer's ε must be a finite number > 0")
    return math.fsum(values)


def _draw(values: np.ndarray, scale: float) -> np.ndarray:
    """values + Laplace(scale) noise, in one vector call to OpenDP. Every noisy number passes through here."""
    dp = _opendp()
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=float(scale)
    )
    return np.asarray(meas([float(v) for v in values]), dtype=float)


def laplace_mechanism(values, scale: float):
    """values + Y with Y ~ Lap(scale), drawn by OpenDP's floating-point-safe sampler (not seedable).

    Many values are sent to OpenDP in one vector call; each gets independent noise of the same scale.

    Example:
        >>> noisy = laplace_mechanism([0.0] * 1000, 2.0)
        >>> noisy.shape, bool(abs(noisy.mean()) < 1)
        ((1000,), True)
    """
    arr = np.asarray(values, dtype=float)
    if np.any(~np.isfinite(arr)):
        raise PrivriskError("values: must be finite numbers")
    b = float(scale)
    if not math.isfinite(b) or b <= 0:
        raise PrivriskError(f"scale: the Laplace scale must be a finite number > 0, got {scale}")
    if arr.ndim == 0:
        return float(_draw(arr.reshape(1), b)[0])
    return _draw(arr.ravel(), b).reshape(arr.shape)


# --------------------------------------------------------------------------------------------------------------
# Queries and specs
# --------------------------------------------------------------------------------------------------------------


def _interval(universe) -> Universe:
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


@dataclass(frozen=True)
class ReleaseQuery:
    """One answer to release: a query on a column, its ε and the universe [lo, hi] its values are clamped to.

    Example:
        >>> q = ReleaseQuery("hours", "mean", "ln3", (0, 24))
        >>> q.label, round(q.epsilon, 4), q.universe
        ('mean(hours)', 1.0986, Universe.from_bounds(0, 24))
    """

    column: str
    query: str
    epsilon: float
    universe: Universe
    missing: MissingCodes = field(default_factory=MissingCodes)
    name: str | None = None  # how the answer is labelled in the published table

    def __post_init__(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise PrivriskError("column: give the name of a column")
        if self.name is not None and (not isinstance(self.name, str) or not self.name.strip()):
            raise PrivriskError("label: give a non-empty text")
        object.__setattr__(self, "query", check_query(self.query))
        object.__setattr__(self, "epsilon", parse_epsilon(self.epsilon, name="epsilon"))
        object.__setattr__(self, "universe", _interval(self.universe))
        object.__setattr__(self, "missing", parse_missing(self.missing))

    @property
    def label(self) -> str:
        return self.name or f"{self.query}({self.column})"


@dataclass(frozen=True)
class ReleaseSpec:
    """The queries of a ``release.toml`` and its release-wide settings."""

    queries: tuple[ReleaseQuery, ...]
    public_n: int | None = None


_SPEC_TOP = {"public_n", "missing", "query"}
_SPEC_QUERY = {"column", "query", "epsilon", "universe", "missing", "label"}


def _public_n(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value) or value < 2:
        raise PrivriskError(
            f"{name}: the published number of people must be a whole number ≥ 2, got {value!r}"
        )
    return int(value)


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

    Raises:
        PrivriskError: naming the file and the query for a missing file, bad TOML, an unknown key, an unknown
            query, ε ≤ 0 or a universe with lo ≥ hi.
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
        absent = [k for k in ("column", "query", "epsilon", "universe") if k not in table]
        if absent:
            raise PrivriskError(f"{where}: no {absent[0]!r} given")
        if isinstance(table["epsilon"], bool) or not isinstance(table["epsilon"], str | int | float):
            raise PrivriskError(f'{where}: epsilon: {table["epsilon"]!r} is not a number (e.g. 0.5 or "ln3")')
        if not isinstance(table["universe"], list):
            raise PrivriskError(f"{where}: universe: give the bounds as [lo, hi], got {table['universe']!r}")
        try:
            queries.append(
                ReleaseQuery(
                    str(table["column"]),
                    str(table["query"]),
                    table["epsilon"],
                    table["universe"],
                    table.get("missing", default_missing),
                    table.get("label"),
                )
            )
        except PrivriskError as exc:
            raise PrivriskError(f"{where}: {exc}") from None
    return ReleaseSpec(tuple(queries), _public_n(doc.get("public_n"), f"{p}: public_n"))


# --------------------------------------------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------------------------------------------


def public_statement(epsilon: float, n: int | None = None) -> dict[str, Any]:
    """The data-independent risk statement for a total ε (and a published n): safe to print with the numbers.

    P = 1/(1 + e^(−ε)) (eq. 3 of 002), Γ = 2P − 1 (eq. 4 of 002), and for a published n the many-worlds risk
    with Δv/Δf = 1, ρ_mw = 1/(1 + (n − 1)e^(−ε)) (eq. 2 of 002), its leak γ and guessing 1/n.

    Example:
        >>> s = public_statement(math.log(3), n=10)
        >>> round(s["global_risk"], 3), round(s["global_leak"], 3), round(s["many_worlds"], 3)
        (0.75, 0.5, 0.25)
    """
    eps = float(epsilon)
    n_ = _public_n(n, "n")
    rho = None if n_ is None else float(many_worlds(eps, n_))
    return {
        "epsilon": eps,
        "global_risk": float(global_risk(eps)),
        "global_leak": float(global_leak(eps)),
        "n": n_,
        "many_worlds": rho,
        "local_leak": None if n_ is None else float(leak(rho, n_)),
        "guess": None if n_ is None else 1.0 / n_,
        "sentences": describe(eps, n_),
    }


# --------------------------------------------------------------------------------------------------------------
# The release
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Release:
    """A finished release: the public answers and statement, and the internal assessment (not for publication).

    Attributes:
        answers: one row per query: label, column, query, epsilon, universe, global sensitivity, noise scale b,
            the noisy value and the 95 % noise interval around it. Safe to publish.
        statement: :func:`public_statement` at the total ε (and, with a ledger, ``cumulative`` at the ledger's
            total after this release). Safe to publish.
        internal: one row per query with the clamped count, local sensitivity, Δv/Δf and the two-worlds and
            many-worlds risk (``None`` where withheld). Depends on the data: NOT FOR PUBLICATION.
        data: per column, what was read and dropped (empty when withheld). Not for publication.
        ledger: what the ledger recorded, or None.
    """

    answers: pd.DataFrame
    statement: dict[str, Any]
    internal: pd.DataFrame
    data: dict[str, Any]
    ledger: dict[str, Any] | None
    budget: float | None
    withheld: str | None = None

    @property
    def total_epsilon(self) -> float:
        return float(self.statement["epsilon"])

    def public_dict(self) -> dict[str, Any]:
        return {
            "answers": self.answers.to_dict(orient="records"),
            "public_statement": self.statement,
            "budget": self.budget,
            "ledger": self.ledger,
        }

    def internal_dict(self) -> dict[str, Any]:
        return {
            "not_for_publication": True,
            "why": "depends on the data (local sensitivity, record counts, clamping); publishing it leaks",
            "queries": self.internal.to_dict(orient="records"),
            "data": self.data,
            "withheld": self.withheld,
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.public_dict(), "internal_assessment": self.internal_dict()}


@dataclass
class _Prepared:
    query: ReleaseQuery
    true_value: float = field(repr=False)  # never leaves this module, not even in a repr
    n: int = 0
    n_clamped: int = 0
    gs: float = 0.0
    ls: float = 0.0
    scale: float = 0.0


def _prepare(
    data: pd.DataFrame | Mapping[str, Any], queries: Sequence[ReleaseQuery], source: str | None
) -> tuple[list[_Prepared], dict[str, Any]]:
    cols = data
    available = list(cols.keys())
    where = f"{source}: " if source else ""
    prepared, summaries = [], {}
    for q in queries:
        if q.column not in available:
            shown = ", ".join(map(str, available[:20])) + (" …" if len(available) > 20 else "")
            raise PrivriskError(f"{where}no column {q.column!r} for {q.label}; the columns are: {shown}")
        col = numeric_values(cols[q.column], name=q.column, missing=q.missing, source=source)
        summaries[q.column] = col.as_dict()
        u = q.universe
        outside = int(np.count_nonzero((col.values < u.lo) | (col.values > u.hi)))
        clamped = np.clip(col.values, u.lo, u.hi)
        gs = global_sensitivity(q.query, u)
        ls = local_sensitivity(q.query, clamped, u)
        prepared.append(
            _Prepared(
                q,
                float(evaluate(q.query, clamped)),
                int(clamped.size),
                outside,
                gs,
                float(ls),
                _certified_scale(gs, q.epsilon),
            )
        )
    return prepared, summaries


def noisy_release(
    data: pd.DataFrame | Mapping[str, Any],
    queries: Sequence[ReleaseQuery] | ReleaseQuery,
    *,
    public_n: int | None = None,
    budget: float | None = None,
    ledger: str | os.PathLike[str] | None = None,
    source: str | None = None,
    level: float = LEVEL,
) -> Release:
    """Release noisy answers to queries on a data set, with the public statement and the internal assessment.

    Everything that can fail on bad input (columns, missing codes, universes, ε, the budget, a corrupt ledger)
    fails before any noise is drawn. With a ledger the release is recorded (under a lock, atomically) before
    the noise is drawn, so the ledger never shows less than was spent.

    Args:
        data: a DataFrame (or a mapping of column name to values).
        queries: the :class:`ReleaseQuery` objects (or one).
        public_n: the published number of people in the data, for the many-worlds risk in the public statement.
            Give only a number that is public anyway; the records actually read are never used for it.
        budget: the largest total ε; with a ledger it bounds the ledger's total after this release, and None
            keeps the budget of the ledger's last release.
        ledger: a JSON ledger file that records every release (created when missing).
        source: the data file's name, for messages and the ledger.
        level: the coverage of the reported noise interval.

    Raises:
        PrivriskError: for bad input or a corrupt ledger.
        ThresholdExceeded: when the release would exceed the budget; nothing is drawn or recorded.

    Example:
        >>> frame = pd.DataFrame({"hours": [8, 6, 30, 7, 9]})
        >>> r = noisy_release(frame, ReleaseQuery("hours", "mean", 1.0, (0, 24)), public_n=100)
        >>> float(r.answers.loc[0, "noise_scale"]), int(r.internal.loc[0, "n_clamped"])
        (12.0, 1)
        >>> round(r.statement["global_risk"], 4), round(r.statement["many_worlds"], 4)
        (0.7311, 0.0267)
    """
    qs = [queries] if isinstance(queries, ReleaseQuery) else list(queries)
    if not qs:
        raise PrivriskError("queries: a release needs at least one query")
    n_pub = _public_n(public_n, "public_n")
    if budget is not None:
        budget = parse_epsilon(budget, name="--budget")
    total = composed_epsilon(q.epsilon for q in qs)
    prepared, summaries = _prepare(data, qs, source)

    record = None
    if ledger is not None:
        record = _ledger.record_release(
            ledger,
            queries=[{"column": q.column, "query": q.query, "epsilon": q.epsilon} for q in qs],
            budget=budget,
            data=source,
        )
        record = {"path": str(ledger), **record}
        budget = record["budget"]
    elif not _ledger.fits_budget(0.0, total, budget):
        raise ThresholdExceeded(_ledger.budget_message(total, 0.0, float(budget), None))  # type: ignore[arg-type]

    noisy = [laplace_mechanism(p.true_value, p.scale) for p in prepared]

    half = [float(noise_interval(p.scale, level)) for p in prepared]
    answers = pd.DataFrame(
        [
            {
                "label": p.query.label,
                "column": p.query.column,
                "query": p.query.query,
                "epsilon": p.query.epsilon,
                "universe_lo": p.query.universe.lo,
                "universe_hi": p.query.universe.hi,
                "global_sensitivity": p.gs,
                "noise_scale": p.scale,
                "noisy_value": y,
                "noise_95": h,
                "interval_lo": y - h,
                "interval_hi": y + h,
            }
            for p, y, h in zip(prepared, noisy, half, strict=True)
        ]
    )
    withheld = None
    if any(q.query == "count" for q in qs):
        withheld = (
            "record counts are withheld because the release contains a count: one of them is its true value; "
            "the many-worlds risk uses the published n instead"
        )
        summaries = {}
    rows = []
    for p in prepared:
        ratio = sensitivity_ratio(p.ls, p.gs)
        n_mw = n_pub if withheld else p.n
        rows.append(
            {
                "label": p.query.label,
                "epsilon": p.query.epsilon,
                "n": None if withheld else p.n,
                "n_clamped": p.n_clamped,
                "global_sensitivity": p.gs,
                "local_sensitivity": p.ls,
                "ratio": ratio,
                "two_worlds": float(two_worlds(p.query.epsilon, ratio)),
                "many_worlds": None if n_mw is None else float(many_worlds(p.query.epsilon, n_mw, ratio)),
            }
        )
    statement = public_statement(total, n_pub)
    if record is not None:
        cumulative = public_statement(record["spent_after"], n_pub)
        statement["cumulative"] = {
            "ledger": str(ledger),
            "releases": record["entry"]["seq"],
            **{
                k: cumulative[k]
                for k in ("epsilon", "global_risk", "global_leak", "many_worlds", "sentences")
            },
        }
    return Release(
        answers=answers,
        statement=statement,
        internal=pd.DataFrame(rows),
        data=summaries,
        ledger=record,
        budget=budget,
        withheld=withheld,
    )
