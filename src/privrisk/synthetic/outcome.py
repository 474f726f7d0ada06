"""What one attack on a synthetic file found: :class:`AttackOutcome`, shared by singling out, linkability and
inference.

Example:
    >>> from privrisk.synthetic.intervals import excess_risk
    >>> o = AttackOutcome("inference", "Inference of 'income'", excess_risk(40, 500, 20, 500), (5, 500),
    ...                   requested=500, found=500, aux=("age", "sex"), secret="income")
    >>> round(o.risk.value, 4), o.shortfall
    (0.0417, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privrisk.synthetic.intervals import ExcessRisk

__all__ = ["ATTACKS", "AttackOutcome"]

#: The attacks, in the order the report lists them.
ATTACKS = ("singling_out_univariate", "singling_out_multivariate", "linkability", "inference")


@dataclass(frozen=True)
class AttackOutcome:
    """One attack's counts and its excess risk.

    Attributes:
        attack: one of :data:`ATTACKS`.
        title: the attack in words, for tables and figures.
        risk: the excess risk over the control, with its exact interval.
        baseline: (successes, trials) of the random-guess attacker on the training records (Anonymeter's check
            that the attack is not weaker than guessing; shown, never used to reject a measurement).
        requested: the attacks (queries, targets) asked for.
        found: the attacks made: for singling out, the queries that single out one synthetic record (fewer than
            requested when the synthetic file does not have enough: the rates are over the queries found, and the
            shortfall is reported, not hidden).
        aux: the columns the attacker holds (linkability: both parts).
        secret: the column inferred (inference only).
        parts: linkability's two parts of ``aux``.
        note: what to know when reading the number, or None.
    """

    attack: str
    title: str
    risk: ExcessRisk
    baseline: tuple[int, int]
    requested: int
    found: int
    aux: tuple[str, ...] = ()
    secret: str | None = None
    parts: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    note: str | None = None

    @property
    def shortfall(self) -> int:
        """How many fewer attacks were made than asked for."""
        return max(0, self.requested - self.found)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the counts, the risk and its interval, the baseline, the shortfall."""
        doc: dict[str, Any] = {"attack": self.attack, "title": self.title, **self.risk.to_dict()}
        k, n = self.baseline
        doc |= {"baseline_successes": k, "baseline_trials": n, "baseline_rate": k / n if n else None}
        doc |= {"requested": self.requested, "found": self.found, "shortfall": self.shortfall}
        if self.aux:
            doc["aux"] = list(self.aux)
        if self.parts is not None:
            doc["parts"] = [list(p) for p in self.parts]
        if self.secret is not None:
            doc["secret"] = self.secret
        if self.note:
            doc["note"] = self.note
        return doc

    def row(self) -> dict[str, Any]:
        """One row of the attacks' table (``attacks.csv``)."""
        r = self.risk
        return {
            "attack": self.title,
            "risk": r.value,
            "risk_low": r.low,
            "risk_high": r.high,
            "attack_rate": r.attack_rate,
            "control_rate": r.control_rate,
            "baseline_rate": self.baseline[0] / self.baseline[1] if self.baseline[1] else None,
            "attacks": self.found,
            "shortfall": self.shortfall,
            "columns": ", ".join(self.aux),
            "secret": self.secret or "",
        }
