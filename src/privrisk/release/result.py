"""A finished release (:class:`Release`): its public answers and statement, and its internal assessment.

The **internal assessment** depends on the data and is *not for publication*: per query the exact local
sensitivity Δv on the clamped data and the two-worlds and many-worlds risk at Δv/Δf (Allmann et al., eq. 4 and 6),
with n the number of records, as Allmann et al. compute them. When the release contains a count, the record
counts are withheld from it as well, since one of them is that count's true value.

Example:
    >>> import pandas as pd
    >>> from privrisk.release import ReleaseQuery, noisy_release
    >>> r = noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "count", 1, (0, 24)))
    >>> r.withheld is not None, r.internal.loc[0, "n"] is None
    (True, True)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privrisk._format import below_certainty, percent
from privrisk.release.budget import Budget
from privrisk.release.composition import composition_sentence
from privrisk.release.spec import ReleaseQuery
from privrisk.release.statement import _number, _percent, ledger_spending, release_statement, useless_sentence
from privrisk.risk import many_worlds, two_worlds
from privrisk.sensitivity import sensitivity_ratio

__all__ = ["WITHHELD", "Release"]

WITHHELD = (
    "record counts are withheld because the release contains a count: one of them is its true value; "
    "the many-worlds risk uses the published n instead"
)


def _risk(p: float) -> str:
    """A risk of a finite ε as a percentage: below 1 even where double precision rounds it to 1."""
    return percent(below_certainty(p))


# --------------------------------------------------------------------------------------------------------------
# The internal assessment
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Measured:
    """What the internal assessment knows of one query on the clamped data (never its value)."""

    query: ReleaseQuery
    n: int
    n_clamped: int
    gs: float
    ls: float


def _internal_assessment(
    measured: Sequence[_Measured], public_n: int | None
) -> tuple[pd.DataFrame, str | None]:
    """One row per query: Δv, Δv/Δf, ρ_tw and ρ_mw (Allmann et al., eq. 6 and 4); why counts are withheld."""
    withheld = WITHHELD if any(m.query.query == "count" for m in measured) else None
    rows = []
    for m in measured:
        ratio = sensitivity_ratio(m.ls, m.gs)
        # Lee and Clifton's risks are those of a pure ε; a Gaussian answer has none.
        n_mw = None if m.query.rho is not None else public_n if withheld else m.n
        rows.append(
            {
                "label": m.query.label,
                "epsilon": m.query.epsilon,
                "n": None if withheld else m.n,
                "n_clamped": m.n_clamped,
                "global_sensitivity": m.gs,
                "local_sensitivity": m.ls,
                "ratio": ratio,
                "two_worlds": None if m.query.rho is not None else float(two_worlds(m.query.epsilon, ratio)),
                "many_worlds": None if n_mw is None else float(many_worlds(m.query.epsilon, n_mw, ratio)),
            }
        )
    return pd.DataFrame(rows), withheld


def _with_cumulative(
    statement: dict[str, Any],
    record: Mapping[str, Any],
    ledger: str | os.PathLike[str],
    public_n: int | None,
    *,
    delta: float | None = None,
) -> dict[str, Any]:
    """The statement with ``cumulative``: the public statement of every answer in the ledger after this release."""
    cumulative = release_statement(record["records"], public_n, delta=delta)
    return {
        **statement,
        "cumulative": {
            "ledger": str(ledger),
            "releases": record["entry"]["seq"],
            **{
                k: cumulative[k]
                for k in ("epsilon", "global_risk", "global_leak", "many_worlds", "sentences", "composition")
            },
        },
    }


# --------------------------------------------------------------------------------------------------------------
# The release
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
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
        ledger: what the ledger recorded (``path``, ``spent_before``, ``spent_after``, ``budget``,
            ``previous_budget``, ``entry``), or None.
        budget: the budget the release was checked against (with a ledger: the ledger's), as the ledger keeps it
            (a number for ε, ``{"epsilon", "delta"}`` or ``{"rho"}``), or None.
        withheld: why record counts are withheld, or None.
    """

    answers: pd.DataFrame
    statement: dict[str, Any]
    internal: pd.DataFrame
    data: dict[str, Any]
    ledger: dict[str, Any] | None
    budget: float | dict[str, float] | None
    withheld: str | None = None

    @property
    def total_epsilon(self) -> float:
        """The ε of this release: the sum of its answers' ε."""
        return float(self.statement["epsilon"])

    def public_dict(self) -> dict[str, Any]:
        """The part that may be published: answers, public statement, budget and ledger record."""
        return {
            "answers": self.answers.to_dict(orient="records"),
            "public_statement": self.statement,
            "budget": self.budget,
            "ledger": self.ledger,
        }

    def internal_dict(self) -> dict[str, Any]:
        """The internal assessment, marked ``not_for_publication``."""
        return {
            "not_for_publication": True,
            "why": "depends on the data (local sensitivity, record counts, clamping); publishing it leaks",
            "queries": self.internal.to_dict(orient="records"),
            "data": self.data,
            "withheld": self.withheld,
        }

    def to_dict(self) -> dict[str, Any]:
        """The publishable part as plain JSON (:meth:`public_dict`); the internal assessment is
        :meth:`internal_dict`, never part of this document: beside a noisy mean, min or max, n and the exact local
        sensitivity give back the true value."""
        return self.public_dict()

    def findings(self) -> list[str]:
        """The public statement in sentences: total ε (or ρ), P and Γ, ρ_mw for a published n, the tight
        composition and its risk, the ledger's total, and a sentence for each answer released useless.

        The risks of a finite ε are below certainty, and are said so even where double precision rounds them to 1.
        """
        s = self.statement
        k = len(self.answers)
        noun = f"{k} noisy answer{'s' if k != 1 else ''}"
        if s["global_risk"] is not None:
            lines = [
                f"The release has {noun} with total ε = {_number(s['epsilon'])} "
                f"(sequential composition: the ε of the answers add up).",
                f"At that ε the global risk is ρ_gl = {_risk(s['global_risk'])}, the most that ε allows any noise, "
                f"and the global leak Γ = {_risk(s['global_leak'])} (Mehner et al., eq. 3–4).",
            ]
            if s["n"] is not None:
                lines.append(
                    f"For the published n = {s['n']:,} the many-worlds risk is ρ_mw = "
                    f"{_risk(s['many_worlds'])} (guessing: {_percent(s['guess'])})."
                )
        else:
            laplace = (
                f"Laplace answers with ε = {_number(s['epsilon'])} in all and " if s["epsilon"] > 0 else ""
            )
            lines = [
                f"The release has {noun}: {laplace}Gaussian answers with ρ = {_number(s['rho'])} in all "
                "(zero-concentrated DP, Bun and Steinke 2016)."
            ]
        lines.append(s["sentences"])
        if "composition" in s:
            lines.append(composition_sentence(s["composition"], "this release"))
        if "cumulative" in s:
            c = s["cumulative"]
            what = "all " + f"{c['releases']} releases" if c["releases"] > 1 else "the one release"
            if c["global_risk"] is not None:
                lines.append(
                    f"Over {what} in the ledger the total is ε = {_number(c['epsilon'])}: "
                    f"ρ_gl = {_risk(c['global_risk'])}, Γ = {_risk(c['global_leak'])}."
                )
            if c["releases"] > 1:
                lines.append(composition_sentence(c["composition"], f"{what} in the ledger"))
        useless = useless_sentence(self.useless_labels)
        if useless is not None:
            lines.append(useless)
        return lines

    @property
    def useless_labels(self) -> list[str]:
        """The answers released although their 95 % interval is wider than the range they can take."""
        if "useless" not in self.answers:
            return []
        return [str(a["label"]) for a in self.answers.to_dict(orient="records") if bool(a["useless"])]

    def answer_rows(self) -> list[tuple[str, ...]]:
        """The published answers as table rows: label, noise, ε or ρ, universe, scale, noisy value, interval."""
        return [
            (
                str(row.label),
                str(row.mechanism),
                f"ε = {row.epsilon:.4g}" if row.mechanism == "laplace" else f"ρ = {row.rho:.4g}",
                f"[{row.universe_lo:g}, {row.universe_hi:g}]",
                f"{row.noise_scale:.4g}",
                f"{row.noisy_value:.5g}",
                f"[{row.interval_lo:.4g}, {row.interval_hi:.4g}]",
            )
            for row in self.answers.itertuples()
        ]

    def ledger_line(self) -> str | None:
        """What the ledger recorded, in one sentence, or None without a ledger."""
        led = self.ledger
        if led is None:
            return None
        b = Budget.from_json(led["budget"])
        left = "" if b is None else f"; budget {b.describe()}"
        c = self.statement.get("cumulative", {}).get("composition")
        if c is None or c["plain_rho"] is None:
            spent = f"plain sum ε = {_number(led['spent_after'])}"
        else:
            # Gaussian answers have no pure ε: a plain sum of ε alone would read as if they cost nothing.
            spent = ledger_spending(c)
        return f"Ledger {led['path']}: release {led['entry']['seq']} recorded; {spent}{left}."

    def budget_note(self) -> str | None:
        """A sentence when this release changed the ledger's budget, else None."""
        led = self.ledger
        if led is None or led["previous_budget"] is None or led["budget"] == led["previous_budget"]:
            return None
        before, after = Budget.from_json(led["previous_budget"]), Budget.from_json(led["budget"])
        if before is None or after is None:
            return None
        # A pure ε budget reads as the number alone, as it always has.
        say = [b.describe().removeprefix("ε = ") for b in (before, after)]
        return f"the ledger's budget changed from {say[0]} to {say[1]} with this release"
