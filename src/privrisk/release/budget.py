"""Privacy budgets of a ledger, and the tight composition of what a ledger records.

A ledger records each answer as ``{column, query, epsilon}`` (Laplace noise, pure ε-DP) or ``{column, query,
mechanism: "gaussian", rho}`` (OpenDP's Gaussian noise, ρ-zCDP). What the answers spend together is said three
ways:

- the **plain sum** of ε of the Laplace answers (sequential composition, Mehner et al., §3.4) and of ρ of the
  Gaussian ones (Bun and Steinke 2016, Lemma 2.3);
- the **composed guarantee**, tight: every answer as its exact mechanism (a Laplace mechanism of scale Δ/ε, a
  Gaussian mechanism with σ/Δ = 1/√(2ρ)), composed by :func:`privrisk.accounting.compose` (the privacy loss
  distribution of Laplace and Gaussian answers; ρ summed when every answer is Gaussian);
- a **budget** in one of three kinds: ε (pure ε-DP: the plain sum of ε must stay within it, and a Gaussian answer
  cannot fit it), (ε, δ) (the composed guarantee's ε at δ must stay within ε), or ρ (zCDP: the sum of ρ, where a
  pure ε answer counts ε²/2, Bun and Steinke 2016, Prop. 1.4).

A budget is kept in the ledger as a number (ε, the format of every ledger so far) or as ``{"epsilon", "delta"}``
or ``{"rho"}``.

Example:
    >>> b = Budget.parse(epsilon=1.0)
    >>> b.spent([{"column": "h", "query": "mean", "epsilon": 0.5}] * 2), b.to_json()
    (1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privrisk._validation import parse_epsilon
from privrisk.errors import PrivriskError
from privrisk.release.composition import _is_gaussian, composed_guarantee, plain_epsilon, plain_rho

__all__ = ["Budget", "as_budget"]
# Relative slack for float sums (as the ledger's own): 0.1 + 0.2 must fit a budget of 0.3.
TOLERANCE = 1e-12


def _positive(value: Any, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if isinstance(value, bool) or not (math.isfinite(x) and x > 0):
        raise PrivriskError(f"{name}: must be a finite number greater than 0, got {value!r}", param=name)
    return x


@dataclass(frozen=True)
class Budget:
    """A privacy budget: ε (pure), (ε, δ), or ρ (zCDP). Exactly one kind is set.

    Attributes:
        epsilon: ε of a pure or an (ε, δ) budget, else None.
        delta: δ of an (ε, δ) budget, else None.
        rho: ρ of a zCDP budget, else None.
    """

    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None

    @classmethod
    def parse(
        cls, epsilon: float | str | None = None, delta: float | None = None, rho: float | None = None
    ) -> Budget | None:
        """A budget from its parts (None when none is given); errors name ``budget_epsilon``,
        ``budget_delta`` or ``budget_rho``.

        Example:
            >>> Budget.parse(epsilon="ln3", delta=1e-6).describe()
            '(ε, δ) = (1.09861, 1e-06)'
        """
        if epsilon is None and delta is None and rho is None:
            return None
        if rho is not None:
            if epsilon is not None or delta is not None:
                raise PrivriskError(
                    "budget_rho: give the budget either as ε (with δ) or as ρ, not both", param="budget_rho"
                )
            return cls(rho=_positive(rho, "budget_rho"))
        if epsilon is None:
            raise PrivriskError("budget_delta: a δ budget needs its ε too", param="budget_delta")
        eps = parse_epsilon(epsilon, name="budget_epsilon")
        if delta is None or delta == 0:
            return cls(epsilon=eps)
        if not (math.isfinite(delta) and 0 < delta < 1):
            raise PrivriskError(f"budget_delta: must be in [0, 1), got {delta!r}", param="budget_delta")
        return cls(epsilon=eps, delta=float(delta))

    @classmethod
    def from_options(
        cls,
        budget: float | str | None = None,
        budget_epsilon: float | str | None = None,
        budget_delta: float | None = None,
        budget_rho: float | None = None,
    ) -> Budget | None:
        """A budget from ``budget`` (ε, as every release so far took it) or from its parts ``budget_epsilon``
        with ``budget_delta``, or ``budget_rho``; None when none is given.

        Example:
            >>> Budget.from_options(budget="1", budget_delta=1e-6).describe()
            '(ε, δ) = (1, 1e-06)'
        """
        if budget is not None:
            if budget_epsilon is not None or budget_rho is not None:
                raise PrivriskError(
                    "budget: give budget (ε) or budget_epsilon (with budget_delta) or budget_rho, not two",
                    param="budget",
                )
            if budget_delta is None:
                return as_budget(budget)
            budget_epsilon = budget
        return cls.parse(budget_epsilon, budget_delta, budget_rho)

    @classmethod
    def from_json(cls, value: Any) -> Budget | None:
        """Read a budget as the ledger keeps it: None, a number (ε), ``{"epsilon", "delta"}`` or ``{"rho"}``.

        Example:
            >>> Budget.from_json(1.0), Budget.from_json({"rho": 0.5}).rho
            (Budget(epsilon=1.0, delta=None, rho=None), 0.5)
        """
        if value is None:
            return None
        if isinstance(value, dict):
            if set(value) == {"rho"}:
                return cls(rho=_positive(value["rho"], "budget"))
            if set(value) == {"epsilon", "delta"}:
                return cls(
                    epsilon=_positive(value["epsilon"], "budget"), delta=_positive(value["delta"], "budget")
                )
            raise PrivriskError(f"budget: {value!r} is not a budget", param="budget")
        return cls(epsilon=_positive(value, "budget"))

    def to_json(self) -> float | dict[str, float]:
        """The budget as the ledger keeps it (a pure ε budget is a plain number, as in every ledger so far)."""
        if self.rho is not None:
            return {"rho": self.rho}
        assert self.epsilon is not None
        return self.epsilon if self.delta is None else {"epsilon": self.epsilon, "delta": self.delta}

    @property
    def limit(self) -> float:
        """The number the spent amount is compared with: ε or ρ."""
        value = self.rho if self.rho is not None else self.epsilon
        assert value is not None
        return value

    @property
    def unit(self) -> str:
        """``ρ`` or ``ε``."""
        return "ρ" if self.rho is not None else "ε"

    def describe(self) -> str:
        """The budget in words: ``ε = 1``, ``(ε, δ) = (1, 1e-06)`` or ``ρ = 0.5``."""
        if self.rho is not None:
            return f"ρ = {self.rho:.6g}"
        if self.delta is None:
            return f"ε = {self.epsilon:.6g}"
        return f"(ε, δ) = ({self.epsilon:.6g}, {self.delta:.6g})"

    def spent(self, records: Sequence[Mapping[str, Any]]) -> float:
        """What the answers spend in this budget's unit: the plain ε, the composed guarantee's ε at δ, or ρ.

        Raises:
            PrivriskError: (``budget``) for a Gaussian answer against a pure ε budget: no finite ε covers it.
        """
        if not records:
            return 0.0
        if self.rho is not None:
            return plain_rho(records, with_pure=True)
        if self.delta is None:
            if any(_is_gaussian(r) for r in records):
                raise PrivriskError(
                    "budget: a Gaussian answer is not ε-DP for any finite ε; give the budget as ε with δ, or as ρ",
                    param="budget",
                )
            return plain_epsilon(records)
        g = composed_guarantee(records)
        # Never above the plain sum when every answer is pure (basic composition holds for any δ).
        tight = float(g.epsilon_at(self.delta))
        if not any(_is_gaussian(r) for r in records):
            tight = min(tight, plain_epsilon(records))
        return tight

    def fits(self, records: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the answers stay within the budget (with the float slack of a sum)."""
        return self.spent(records) <= self.limit * (1 + TOLERANCE)

    def message(self, records: Sequence[Mapping[str, Any]], new: int, ledger: Any = None) -> str:
        """One line saying why a release of the last ``new`` records was refused; starts with ``budget:``.

        ``ledger`` (a path, or None) names the ledger whose total is meant.

        Example:
            >>> b = Budget.parse(epsilon=2.0, delta=1e-6)
            >>> gauss = [{"mechanism": "gaussian", "rho": r} for r in (0.05, 0.125)]
            >>> b.message(gauss, 1, "ledger2.json")
            'budget: this release would take the total of the ledger ledger2.json to ε = 2.71334 at δ = 1e-06 (tight composition), above the budget (ε, δ) = (2, 1e-06), of which ε = 0.632429 is left; nothing was released and no noise was drawn'
        """
        before, after = self.spent(records[: len(records) - new]), self.spent(records)
        left = max(self.limit - before, 0.0)
        status = (
            "which is already spent"
            if left <= self.limit * TOLERANCE
            else f"of which {self.unit} = {left:.6g} is left"
        )
        how = (
            ""
            if self.rho is not None or self.delta is None
            else f" at δ = {self.delta:.6g} (tight composition)"
        )
        total = "the total" if ledger is None else f"the total of the ledger {ledger}"
        return (
            f"budget: this release would take {total} to {self.unit} = {after:.6g}{how}, above the budget "
            f"{self.describe()}, {status}; nothing was released and no noise was drawn"
        )


def as_budget(value: Budget | float | str | None, name: str = "budget") -> Budget | None:
    """A :class:`Budget` as given, or a pure ε budget from a number or ``ln3`` (errors name ``name``).

    Example:
        >>> as_budget("ln3").describe(), as_budget(None)
        ('ε = 1.09861', None)
    """
    if value is None or isinstance(value, Budget):
        return value
    return Budget(epsilon=parse_epsilon(value, name=name))
