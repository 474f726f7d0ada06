"""A ledger's history: its releases, the total ε, what is left of a budget, and the public statement.

Example:
    >>> import tempfile, pathlib
    >>> from privrisk.release.ledger import record_release
    >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> _ = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
    >>> summarize_ledger(led).total_epsilon
    0.5
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privrisk._format import percent
from privrisk.errors import PrivriskError
from privrisk.release.budget import Budget, as_budget
from privrisk.release.composition import composition_sentence, plain_rho
from privrisk.release.ledger import ledger_records, read_ledger
from privrisk.release.statement import _number, ledger_spending, release_statement

__all__ = ["LedgerSummary", "summarize_ledger"]


@dataclass(frozen=True)
class LedgerSummary:
    """A checked ledger: its releases, the total ε, what is left of a budget, and the public statement.

    Attributes:
        ledger: the ledger's path.
        entries: per release ``seq``, ``time``, ``epsilon``, ``queries``, ``data`` and ``budget``.
        total_epsilon: the plain sum of every Laplace answer's ε (sequential composition).
        budget: the budget asked about (ε, (ε, δ) or ρ), or None.
        statement: :func:`release_statement` of every answer (with the tight ``composition``), or None for an
            empty ledger.
        spent: what the ledger spent in the budget's unit (the plain ε, the composed ε at δ, or ρ), or None.
        recorded_budget: the budget the ledger's last release recorded (None for an empty ledger or one kept
            without a budget); ``budget`` is this one when none was asked about.
        budget_from_ledger: whether ``budget`` is the recorded one because none was asked about.
        total_rho: the plain sum of every Gaussian answer's ρ (zCDP), or None when there is none.
    """

    ledger: str
    entries: tuple[dict[str, Any], ...]
    total_epsilon: float
    budget: Budget | None
    statement: dict[str, Any] | None
    spent: float | None = None
    recorded_budget: Budget | None = None
    total_rho: float | None = None
    budget_from_ledger: bool = False

    @property
    def left(self) -> float | None:
        """What is left of the budget (never below 0), or None without a budget."""
        if self.budget is None:
            return None
        return max(self.budget.limit - (self.spent or 0.0), 0.0)

    @property
    def over_budget(self) -> bool:
        """Whether the ledger has spent more than the budget (with the float slack of a sum)."""
        return self.budget is not None and (self.spent or 0.0) > self.budget.limit * (1 + 1e-12)

    def rows(self) -> list[tuple[str, ...]]:
        """One table row per release: seq, time, ε or ρ (``ε = 0.4``, ``ρ = 0.1``, or both), the answers (with ρ
        of a Gaussian one), data."""
        return [
            (
                str(e["seq"]),
                e["time"][:19],
                _spend(e),
                ", ".join(
                    f"{q['query']}({q['column']})" + (f" ρ = {q['rho']:.4g}" if "rho" in q else "")
                    for q in e["queries"]
                ),
                str(e["data"] or ""),
            )
            for e in self.entries
        ]

    def findings(self) -> list[str]:
        """The ledger in sentences: the plain sum of ε, the budget, the risk, the tight composition."""
        s = self.statement
        c = None if s is None else s["composition"]
        if c is not None and c["plain_rho"] is not None:
            # Gaussian answers are not ε-DP: their ρ and the ε of everything at δ, never "Total ε" alone.
            line = "Total: " + ledger_spending(c)
        else:
            line = f"Total ε = {_number(self.total_epsilon)} (plain sum: sequential composition)"
        if self.budget is not None:
            whose = " (recorded in the ledger)" if self.budget_from_ledger else ""
            line += (
                f"; spent {self.budget.unit} = {_number(self.spent or 0.0)} of the budget "
                f"{self.budget.describe()}{whose}, left {_number(self.left or 0.0)}"
            )
        lines = [line + "."]
        if s is not None:
            if s["global_risk"] is not None:
                lines.append(
                    f"Global risk ρ_gl = {percent(s['global_risk'])}, global leak Γ = {percent(s['global_leak'])}."
                )
            lines += [s["sentences"], composition_sentence(s["composition"], "all releases in the ledger")]
        return lines

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``ledger``, ``releases``, ``total_epsilon`` (the plain sum of the Laplace answers' ε),
        ``total_rho`` (of the Gaussian answers' ρ, or None), ``budget`` (as the ledger keeps it: the one asked
        about, else the one recorded), ``recorded_budget``, ``left``, ``public_statement``, ``entries``,
        ``spent`` (in the budget's unit)."""
        return {
            "ledger": self.ledger,
            "releases": len(self.entries),
            "total_epsilon": self.total_epsilon,
            "budget": None if self.budget is None else self.budget.to_json(),
            "left": self.left,
            "public_statement": self.statement,
            "entries": [dict(e) for e in self.entries],
            "spent": self.spent,
            "total_rho": self.total_rho,
            "recorded_budget": None if self.recorded_budget is None else self.recorded_budget.to_json(),
        }


def summarize_ledger(
    path: str | os.PathLike[str],
    budget: Budget | float | str | None = None,
    *,
    key: bytes | str | None = None,
) -> LedgerSummary:
    """Check a ledger's hash chain and summarise what it records; the ledger must exist.

    Args:
        path: a ledger written by :func:`~privrisk.release.noisy_release` with ``ledger=``.
        budget: a budget to say how much is left of: a number or ``ln3`` (pure ε), a
            :class:`~privrisk.release.budget.Budget` (ε, (ε, δ) or ρ), or None for the budget the ledger's last
            release recorded.
        key: the secret of a keyed ledger, or None.

    Raises:
        PrivriskError: for a missing or corrupt ledger or a bad budget.

    Example:
        >>> import tempfile, pathlib
        >>> from privrisk.release.ledger import record_release
        >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> _ = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
        >>> s = summarize_ledger(led, budget=2)
        >>> s.total_epsilon, s.left, round(s.statement["global_risk"], 4)
        (0.5, 1.5, 0.6225)
    """
    p = Path(path)
    if not p.exists():
        raise PrivriskError(f"{p}: no such ledger")
    entries = read_ledger(p, key)
    recorded = Budget.from_json(entries[-1]["budget"]) if entries else None
    limit = as_budget(budget)
    from_ledger = limit is None and recorded is not None
    if limit is None:
        limit = recorded
    records = ledger_records(entries)
    total = math.fsum(e["epsilon"] for e in entries)
    keys = ("seq", "time", "epsilon", "queries", "data", "budget")
    delta = limit.delta if limit is not None else None
    gaussian = any(r.get("mechanism") == "gaussian" for r in records)
    return LedgerSummary(
        ledger=str(path),
        entries=tuple({k: e[k] for k in keys} for e in entries),
        total_epsilon=total,
        budget=limit,
        statement=release_statement(records, delta=delta) if entries else None,
        spent=None if limit is None else limit.spent(records),
        recorded_budget=recorded,
        total_rho=plain_rho(records) if gaussian else None,
        budget_from_ledger=from_ledger,
    )


def _spend(entry: Mapping[str, Any]) -> str:
    """What one release spent: ``ε = 0.4``, ``ρ = 0.1`` or both (a Gaussian answer has no ε)."""
    rho = [float(q["rho"]) for q in entry["queries"] if q.get("mechanism") == "gaussian"]
    parts = [] if rho and not entry["epsilon"] else [f"ε = {_number(entry['epsilon'])}"]
    if rho:
        parts.append(f"ρ = {_number(math.fsum(rho))}")
    return ", ".join(parts)
