"""What a release says about its risk: the public statement, the internal assessment, and the files it writes.

Each release states its risk twice:

- the **public statement** depends only on the ε values (and a published n), so it may be printed beside the
  numbers: the total ε by sequential composition (Mehner et al., §3.4), the global risk ρ_gl and leak Γ at that ε
  (Mehner et al., eq. 3–4), the many-worlds risk ρ_mw with Δv/Δf = 1 for a published n (Mehner et al., eq. 2),
  and :func:`privrisk.describe`'s sentences;
- the **internal assessment** depends on the data and is *not for publication*: per query the exact local
  sensitivity Δv on the clamped data and the two-worlds and many-worlds risk at Δv/Δf (Allmann et al., eq. 4
  and 6), with n the number of records, as Allmann et al. compute them.

When the release contains a count, the record counts are withheld from the internal assessment as well, since one
of them is that count's true value. A ledger's history is summarised by :func:`summarize_ledger` with the same
public statement at its total ε.

Example:
    >>> s = public_statement(composed_epsilon([0.5, 0.5]), n=100)
    >>> round(s["global_risk"], 4), round(s["many_worlds"], 4)
    (0.7311, 0.0267)
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privrisk._format import percent, percent_3g
from privrisk._validation import check_epsilons
from privrisk.errors import PrivriskError
from privrisk.io.files import write_csv, write_json
from privrisk.release.budget import Budget, as_budget
from privrisk.release.composition import (
    composition_sentence,
    composition_statement,
    plain_epsilon,
    plain_rho,
    tradeoff_figure,
)
from privrisk.release.ledger import ledger_records, read_ledger
from privrisk.release.spec import ReleaseQuery, check_public_n
from privrisk.risk import describe, global_leak, global_risk, leak, many_worlds, two_worlds
from privrisk.sensitivity import sensitivity_ratio

__all__ = [
    "LedgerSummary",
    "Release",
    "composed_epsilon",
    "public_statement",
    "release_parameters",
    "release_statement",
    "summarize_ledger",
    "write_outputs",
]

#: The version of the JSON files a release writes (``release.json``, ``internal_assessment.json``).
SCHEMA_VERSION = 1

WITHHELD = (
    "record counts are withheld because the release contains a count: one of them is its true value; "
    "the many-worlds risk uses the published n instead"
)



def _percent(x: float) -> str:
    """As the papers print a percentage (one decimal), but a risk that is not zero is never written "0.0%"."""
    text = percent(x)
    return percent_3g(x).replace(" %", "%") if x > 0 and text == "0.0%" else text

def composed_epsilon(epsilons: Iterable[float]) -> float:
    """The total ε of answers from the same data: their sum (sequential composition, Mehner et al., §3.4).

    Summed with ``math.fsum`` so that the order of the answers does not change the total.

    Example:
        >>> composed_epsilon([0.1, 0.2, 0.3])
        0.6
    """
    values = check_epsilons(list(epsilons), name="epsilons")
    return math.fsum(values.tolist())


def public_statement(epsilon: float, n: int | None = None) -> dict[str, Any]:
    """The data-independent risk statement for a total ε (and a published n): safe to print with the numbers.

    ρ_gl = 1/(1 + e^(−ε)) (Mehner et al., eq. 3), Γ = 2ρ_gl − 1 (Mehner et al., eq. 4), and for a published n the
    many-worlds risk with Δv/Δf = 1, ρ_mw = 1/(1 + (n − 1)e^(−ε)) (Mehner et al., eq. 2), its leak γ and
    guessing 1/n.

    Example:
        >>> s = public_statement(math.log(3), n=10)
        >>> round(s["global_risk"], 3), round(s["global_leak"], 3), round(s["many_worlds"], 3)
        (0.75, 0.5, 0.25)
    """
    eps = float(epsilon)
    n_ = check_public_n(n, "n")
    rho = None if n_ is None else float(many_worlds(eps, n_))
    return {
        "epsilon": eps,
        "global_risk": float(global_risk(eps)),
        "global_leak": float(global_leak(eps)),
        "n": n_,
        "many_worlds": rho,
        "local_leak": None if rho is None or n_ is None else float(leak(rho, n_)),
        "guess": None if n_ is None else 1.0 / n_,
        "sentences": describe(eps, n_),
    }


def release_statement(
    records: Sequence[Mapping[str, Any]], n: int | None = None, *, delta: float | None = None
) -> dict[str, Any]:
    """The public statement of recorded answers: :func:`public_statement` at the plain sum of ε when every answer
    is Laplace (pure ε-DP), with ``composition`` (:func:`composition_statement`) beside it.

    With a Gaussian answer there is no pure ε: ``epsilon`` is the plain sum of the Laplace answers' ε, ``rho``
    the sum of the Gaussian answers' ρ, the pure-ε risks (``global_risk``, ``global_leak``, ``many_worlds``,
    ``local_leak``) are None, and the sentences tell the composed guarantee's risk.

    Example:
        >>> s = release_statement([{"mechanism": "gaussian", "rho": 0.5}], n=100)
        >>> s["global_risk"] is None, round(s["composition"]["advantage"], 4)  # μ = 1: 2Φ(1/2) − 1
        (True, 0.3829)
    """
    n_ = check_public_n(n, "n")
    composition = composition_statement(records, n_, delta=delta)
    if not any(r.get("mechanism") == "gaussian" for r in records):
        return {**public_statement(plain_epsilon(records), n_), "composition": composition}
    c = composition
    sentences = (
        f"An attacker who wants to tell whether one person is in the data is right {percent(c['success'])} of the "
        f"time at best (guessing: 50 %); the release takes them {percent(c['advantage'])} of the way from "
        "guessing to certainty."
    )
    return {
        "epsilon": c["plain_epsilon"],
        "rho": plain_rho(records),
        "global_risk": None,
        "global_leak": None,
        "n": n_,
        "many_worlds": None,
        "local_leak": None,
        "guess": None if n_ is None else 1.0 / n_,
        "sentences": sentences,
        "composition": composition,
    }


#: What the noise of the answers is, in one sentence under their table.
NOISE_NOTE = (
    "Noise: Laplace with scale b = Δf/ε, or Gaussian with σ = Δf/√(2ρ) (global sensitivity Δf); the 95 % "
    "interval holds the value of the clamped data in 95 % of releases."
)


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


def _number(x: float) -> str:
    return f"{x:.6g}"


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
        composition and its risk, the ledger's total."""
        s = self.statement
        k = len(self.answers)
        noun = f"{k} noisy answer{'s' if k != 1 else ''}"
        if s["global_risk"] is not None:
            lines = [
                f"The release has {noun} with total ε = {_number(s['epsilon'])} "
                f"(sequential composition: the ε of the answers add up).",
                f"At that ε the global risk is ρ_gl = {percent(s['global_risk'])} and the global leak Γ = "
                f"{percent(s['global_leak'])} (Mehner et al., eq. 3–4).",
            ]
            if s["n"] is not None:
                lines.append(
                    f"For the published n = {s['n']:,} the many-worlds risk is ρ_mw = "
                    f"{_percent(s['many_worlds'])} (guessing: {_percent(s['guess'])})."
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
                    f"ρ_gl = {percent(c['global_risk'])}, Γ = {percent(c['global_leak'])}."
                )
            if c["releases"] > 1:
                lines.append(composition_sentence(c["composition"], f"{what} in the ledger"))
        return lines

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


# --------------------------------------------------------------------------------------------------------------
# Output folder
# --------------------------------------------------------------------------------------------------------------


def release_parameters(
    queries: Sequence[ReleaseQuery],
    *,
    file: str | os.PathLike[str] | None = None,
    spec: str | os.PathLike[str] | None = None,
    public_n: int | None = None,
    budget: float | Budget | None = None,
    ledger: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """What was asked of a release, as plain JSON for its manifest (the budget as given, not the ledger's).

    Example:
        >>> release_parameters([ReleaseQuery("h", "max", 1, (0, 24))], file="a.csv")["queries"][0]["universe"]
        [0.0, 24.0]
    """
    return {
        "file": None if file is None else str(file),
        "spec": None if spec is None else str(spec),
        "queries": [q.to_dict() for q in queries],
        "public_n": public_n,
        "budget": budget.to_json() if isinstance(budget, Budget) else budget,
        "ledger": None if ledger is None else str(ledger),
    }


def write_internal(release: Release, path: str | os.PathLike[str]) -> None:
    """Write the internal assessment (NOT FOR PUBLICATION) as JSON, readable by its owner only (mode 0600).

    Example:
        >>> import tempfile, pathlib
        >>> from privrisk.release import ReleaseQuery, noisy_release
        >>> r = noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", 1, (0, 24)))
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "internal.json"
        >>> write_internal(r, target)
        >>> oct(target.stat().st_mode & 0o777)
        '0o600'
    """
    import json

    from privrisk.io.files import atomic_path, to_jsonable

    text = json.dumps(
        to_jsonable({"schema_version": SCHEMA_VERSION, **release.internal_dict()}),
        indent=2,
        ensure_ascii=False,
    )
    with atomic_path(path) as tmp:
        os.chmod(tmp, 0o600)
        tmp.write_text(text + "\n", encoding="utf-8")
        os.chmod(tmp, 0o600)


def write_outputs(
    release: Release,
    folder: str | os.PathLike[str],
    parameters: Mapping[str, Any] | None = None,
    *,
    include_internal: bool = False,
    key: bytes | str | None = None,
) -> list[str]:
    """Write a release's files into ``folder`` and return their names.

    ``release.json`` and ``release.csv`` (public), with ``include_internal`` also ``internal_assessment.json``
    and ``.csv`` (NOT FOR PUBLICATION, mode 0600, marked ``internal`` in the manifest so that ``privrisk report``
    leaves them out unless asked), two figures as PNG and SVG (the noisy answers with their intervals; the global risk and leak
    after each release in the ledger, with the budget) and ``manifest.json`` (kind ``release``) for
    ``privrisk report``. Write into a temporary folder (:func:`privrisk.io.files.atomic_dir`) to get all or
    nothing.

    Args:
        release: the result of :func:`~privrisk.release.noisy_release`.
        folder: an existing folder.
        parameters: what was asked (see :func:`release_parameters`), recorded in the manifest.
        include_internal: also write the internal assessment (NOT FOR PUBLICATION).
        key: the key of a keyed ledger, to read its history for the risk figure.
    """
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots import release as plots

    out = Path(folder)
    r = release
    write_json(out / "release.json", {"schema_version": SCHEMA_VERSION, **r.public_dict()})
    write_csv(r.answers, out / "release.csv")
    if include_internal:
        write_internal(r, out / "internal_assessment.json")
        write_csv(r.internal, out / "internal_assessment.csv")
        os.chmod(out / "internal_assessment.csv", 0o600)
    s = r.statement
    if r.ledger is not None:
        seq = r.ledger["entry"]["seq"]
        # Called before the ledger is charged (the entry is not written yet) or after: the entries before this
        # release, then this release's own entry.
        entries = [*read_ledger(r.ledger["path"], key=key)[: seq - 1], r.ledger["entry"]]
        steps = list(itertools.accumulate(e["epsilon"] for e in entries))
        labels = [f"#{e['seq']}" for e in entries]
        risk_title = "Global risk and leak after each release in the ledger"
    else:
        entries = [{"queries": _records_of(r)}]
        steps, labels = [s["epsilon"]], ["this release"]
        risk_title = "Global risk and leak at this release's total ε"
    records = ledger_records(entries)
    if any(q.get("mechanism") == "gaussian" for q in records):
        # No pure ε to draw the global risk at: the trade-off curve of everything released, composed tightly.
        risk = tradeoff_figure(records, out / "release_risk")
        risk_title = "Trade-off curve of every answer released, composed tightly, beside the worst case"
    else:
        budget = Budget.from_json(r.budget) if r.budget is not None else None
        limit = budget.epsilon if budget is not None and budget.rho is None else None
        risk = plots.risk_figure(steps, limit, out / "release_risk", labels=labels)
    figures = [
        {
            "title": "Noisy answers with the 95 % interval of their noise",
            **plots.answers_figure(r.answers, out / "release_answers"),
        },
        {"title": risk_title, **risk},
    ]
    manifest = write_manifest(
        out,
        kind="release",
        title="Noisy release with its risk statement",
        parameters=dict(parameters or {}),
        summary={
            "answers": len(r.answers),
            # Gaussian answers have no ε: their ρ, never a total ε of 0 (which reads as perfect privacy).
            "total_epsilon": s["epsilon"] if s.get("rho") is None or s["epsilon"] > 0 else None,
            "total_rho": s.get("rho"),
            "global_risk": s["global_risk"],
            "global_leak": s["global_leak"],
            "public_n": s["n"],
            "many_worlds": s["many_worlds"],
            "ledger_epsilon": _ledger_epsilon(s),
            "budget": r.budget if not isinstance(r.budget, dict) else Budget.from_json(r.budget).describe(),  # type: ignore[union-attr]
            "composed_epsilon": s["composition"]["epsilon_at_delta"],
            "composed_delta": s["composition"]["delta"],
            "composed_success": s["composition"]["success"],
        },
        findings=r.findings(),
        tables=[{"title": "Noisy answers with 95 % noise intervals (public)", "path": "release.csv"}]
        + (
            [
                {
                    "title": "Internal assessment: local sensitivity and risks (NOT FOR PUBLICATION)",
                    "path": "internal_assessment.csv",
                    "internal": "NOT FOR PUBLICATION",
                }
            ]
            if include_internal
            else []
        ),
        figures=figures,
    )
    files = ["release.json", "release.csv"]
    if include_internal:
        files += ["internal_assessment.json", "internal_assessment.csv"]
    return files + [f[kind] for f in figures for kind in ("png", "svg")] + [manifest.name]


def _ledger_epsilon(s: Mapping[str, Any]) -> float | None:
    """The plain sum of ε over the ledger, or None without a ledger or when it holds only Gaussian answers."""
    c = s.get("cumulative")
    if c is None or (c["composition"]["plain_rho"] is not None and not c["epsilon"]):
        return None
    return float(c["epsilon"])


def _records_of(r: Release) -> list[dict[str, Any]]:
    """The answers of a release as the ledger would record them (for a release without a ledger)."""
    return [
        {
            "column": str(row["column"]),
            "query": str(row["query"]),
            "mechanism": "gaussian",
            "rho": float(row["rho"]),
        }
        if row["mechanism"] == "gaussian"
        else {"column": str(row["column"]), "query": str(row["query"]), "epsilon": float(row["epsilon"])}
        for row in r.answers.to_dict(orient="records")
    ]


# --------------------------------------------------------------------------------------------------------------
# The ledger's history
# --------------------------------------------------------------------------------------------------------------


def ledger_spending(c: Mapping[str, Any]) -> str:
    """What recorded answers spent, from their :func:`composition_statement`: the plain sums of ε (Laplace) and ρ
    (Gaussian, zCDP) and, when there is a Gaussian answer, the ε of everything at δ (tight composition).

    Example:
        >>> ledger_spending(composition_statement([{"epsilon": 0.4}, {"mechanism": "gaussian", "rho": 0.1}]))
        'plain sums ε = 0.4 (Laplace answers) and ρ = 0.1 (Gaussian answers, zCDP); in all ε = 2.33104 at δ = 1e-06 (tight composition)'
    """
    if c["plain_rho"] is None:
        return f"plain sum ε = {_number(c['plain_epsilon'])}"
    eps = c["epsilon_at_delta"]
    at = "no finite ε" if eps is None or not math.isfinite(eps) else f"ε = {_number(eps)}"
    gauss = f"ρ = {_number(c['plain_rho'])} (Gaussian answers, zCDP)"
    sums = (
        f"plain sums ε = {_number(c['plain_epsilon'])} (Laplace answers) and {gauss}"
        if c["plain_epsilon"] > 0
        else f"plain sum {gauss}"
    )
    return f"{sums}; in all {at} at δ = {_number(c['delta'])} (tight composition)"



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
