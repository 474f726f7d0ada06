"""A ledger's history: its releases, the total ε, what is left of a budget, the public statement, and the
outputs released beside the releases (the one ledger records both, :mod:`privrisk.ledger`).

:func:`run_ledger` with :class:`LedgerSettings` is the one way in of ``privrisk ledger``: the ledger checked and
summarised, and whether it has spent more than the budget asked about (the threshold, exit 1 on the command line),
or its releases exported as receipts of the OpenDP deployments registry (:mod:`privrisk.release.registry`); the
:class:`LedgerRun` it returns gives the JSON document, the verdict and the report folder. ``check_ledger`` and
``LedgerCheck`` are their earlier names, kept one release (they warn).

Example:
    >>> import tempfile, pathlib
    >>> from privrisk.release.ledger import record_release
    >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> _ = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
    >>> summarise_ledger(led).total_epsilon
    0.5
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk._format import percent
from privrisk.errors import PrivriskError, ThresholdExceeded, deprecated_alias, deprecation_message
from privrisk.ledger import entry_kind, read_ledger_file
from privrisk.release.budget import Budget, as_budget
from privrisk.release.composition import composition_sentence, plain_rho
from privrisk.release.ledger import ledger_records, release_entries
from privrisk.release.statement import _number, ledger_spending, release_statement

if TYPE_CHECKING:
    from privrisk.progress import Progress
    from privrisk.release.registry import RegistryExport

__all__ = ["LedgerRun", "LedgerSettings", "LedgerSummary", "run_ledger", "summarise_ledger"]

#: The formats a ledger's releases are exported to: receipts of the OpenDP deployments registry.
EXPORTS = ("registry",)


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
        outputs: per outputs entry ``seq``, ``time`` and its ``outputs`` (each ``name``, ``kind``, number of
            ``cells`` and the ``data`` file it was computed on, when recorded).
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
    outputs: tuple[dict[str, Any], ...] = ()

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

    def tables(self, name: str | None = None) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
        """The ledger as tables to show, each ``(title, columns, rows)``: its releases (unless it records outputs
        only) and its outputs (if any); the first title names the ledger (``name``, else its path)."""
        n, m = len(self.entries), len(self.outputs)
        kinds = [f"{n} release{'s' if n != 1 else ''}"] + (
            [f"{m} outputs entr{'ies' if m != 1 else 'y'}"] if m else []
        )
        title = f"Ledger {name or self.ledger}: {', '.join(kinds)}, checksums verified"
        found: list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]] = []
        if n or not m:
            found.append((title, ("#", "time (UTC)", "ε or ρ", "answers", "data"), self.rows()))
            title = "Outputs released (each later request is checked against them)"
        if m:
            found.append((title, ("#", "time (UTC)", "outputs (cells)", "data"), self.output_rows()))
        return found

    def output_rows(self) -> list[tuple[str, ...]]:
        """One table row per outputs entry: seq, time, the outputs (each with its number of cells), data."""
        return [
            (
                str(e["seq"]),
                e["time"][:19],
                ", ".join(
                    f"{o['name']} ({o['cells']} cell{'s' if o['cells'] != 1 else ''})" for o in e["outputs"]
                ),
                ", ".join(dict.fromkeys(str(o["data"]) for o in e["outputs"] if o["data"])),
            )
            for e in self.outputs
        ]

    def findings(self) -> list[str]:
        """The ledger in sentences: the plain sum of ε, the budget, the risk, the tight composition, and how many
        outputs it records."""
        lines = self._release_findings()
        if self.outputs:
            n = sum(len(e["outputs"]) for e in self.outputs)
            m = len(self.outputs)
            lines.append(
                f"{n} output{'s' if n != 1 else ''} released in {m} outputs entr{'ies' if m != 1 else 'y'}; a later "
                "request is checked against every one of them, and their names are taken."
            )
        return lines

    def _release_findings(self) -> list[str]:
        if not self.entries and self.outputs:
            return ["No release: ε spent = 0."]
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
        ``spent`` (in the budget's unit), ``outputs`` (every outputs entry: ``seq``, ``time``, ``outputs``)."""
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
            "outputs": [dict(e) for e in self.outputs],
        }


def summarise_ledger(
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
        >>> s = summarise_ledger(led, budget=2)
        >>> s.total_epsilon, s.left, round(s.statement["global_risk"], 4)
        (0.5, 1.5, 0.6225)
    """
    p = Path(path)
    if not os.path.lexists(p):
        raise PrivriskError(f"{p}: no such ledger")
    every = read_ledger_file(p, key)
    entries = release_entries(p, every)
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
        outputs=tuple(_outputs_row(e) for e in every if entry_kind(e) == "outputs"),
    )


def _outputs_row(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An outputs entry as the history shows it (its shape is checked by the ledger's chain)."""
    return {
        "seq": entry["seq"],
        "time": entry["time"],
        "outputs": [
            {
                "name": o["spec"]["name"],
                "kind": o["spec"]["kind"],
                "cells": len(o["cells"]),
                "data": (o.get("data") or {}).get("file"),
            }
            for o in entry["outputs"]
        ],
    }


@dataclass(frozen=True)
class LedgerSettings:
    """What a ledger check is asked: the ledger, its key, and the budget it must not have spent more than.

    The budget is given in one of three ways, as a release takes it: ``budget`` (ε, or a
    :class:`~privrisk.release.budget.Budget`; with ``budget_delta`` an (ε, δ) budget), ``budget_epsilon`` with
    ``budget_delta``, or ``budget_rho`` (zCDP). Without one, the ledger is summarised against the budget its last
    release recorded, which is reported but is no threshold. With ``export="registry"`` the run exports every
    release as a receipt instead (no budget then: a receipt states what was spent).

    Attributes:
        ledger: the ledger's path (the data this capability reads: a release's settings name it ``ledger`` too).
        budget, budget_epsilon, budget_delta, budget_rho: the budget (see above), or None for none.
        key: the secret of a keyed ledger, or None.
        export: ``registry`` to export the releases as receipts, or None.
        curator, region: with the export, who published the releases and the region the data describe.
        limit: the budget as one :class:`~privrisk.release.budget.Budget` (None when none is asked), set when made.

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = LedgerSettings("ledger.json", budget_epsilon=1, budget_delta=1e-6)
        >>> s.limit.describe(), s.budget_param
        ('(ε, δ) = (1, 1e-06)', 'budget_epsilon')
        >>> LedgerSettings("ledger.json", budget=1, budget_rho=0.5)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: budget: give budget (ε) or budget_epsilon (with budget_delta) or budget_rho, not two
    """

    ledger: str | os.PathLike[str]
    budget: Budget | float | str | None = None
    budget_epsilon: float | str | None = None
    budget_delta: float | None = None
    budget_rho: float | None = None
    key: bytes | str | None = None
    export: str | None = None
    curator: str | None = None
    region: str | None = None
    limit: Budget | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.ledger is None or not str(self.ledger).strip():
            raise PrivriskError("ledger: give the path of the ledger to check", param="ledger")
        if self.export is not None:
            kind = str(self.export).strip().lower()
            if kind not in EXPORTS:
                raise PrivriskError(f"export: {self.export!r} is not a format; the one format is registry",
                                    param="export")  # fmt: skip
            object.__setattr__(self, "export", kind)
            budgets = ("budget", "budget_epsilon", "budget_delta", "budget_rho")
            named = next((name for name in budgets if getattr(self, name) is not None), None)
            if named is not None:
                raise PrivriskError(f"{named}: a receipt states what was spent; give no budget with an export",
                                    param=named)  # fmt: skip
        else:
            named = next((name for name in ("curator", "region") if getattr(self, name)), None)
            if named is not None:
                raise PrivriskError(f"{named}: only with an export of receipts", param=named)
        if isinstance(self.budget, Budget):
            if (
                self.budget_epsilon is not None
                or self.budget_delta is not None
                or self.budget_rho is not None
            ):
                raise PrivriskError("budget: a Budget is whole; give no budget_epsilon, budget_delta or budget_rho "
                                    "with it", param="budget")  # fmt: skip
            limit: Budget | None = self.budget
        else:
            limit = Budget.from_options(self.budget, self.budget_epsilon, self.budget_delta, self.budget_rho)
        object.__setattr__(self, "limit", limit)

    @property
    def budget_param(self) -> str | None:
        """The field that gave the budget (``budget``, ``budget_epsilon`` or ``budget_rho``), None without one."""
        if self.limit is None:
            return None
        if self.budget_rho is not None:
            return "budget_rho"
        return "budget_epsilon" if self.budget is None and self.budget_epsilon is not None else "budget"


@dataclass(frozen=True)
class LedgerRun:
    """A ledger checked (:func:`run_ledger`): its summary and whether it spent more than the budget asked about, or
    its releases exported as receipts.

    Attributes:
        settings: what was asked.
        summary: the ledger's releases, totals, budget and public statement (:class:`LedgerSummary`); None for an
            export.
        receipts: the receipts of an export (:class:`~privrisk.release.registry.RegistryExport`), or None.
    """

    settings: LedgerSettings
    summary: LedgerSummary | None = None
    receipts: RegistryExport | None = None

    @property
    def exceeded(self) -> bool:
        """Whether the ledger has spent more than the budget asked about (a budget only recorded is no threshold)."""
        return self.settings.limit is not None and self.summary is not None and self.summary.over_budget

    def failures(self) -> list[str]:
        """The exceeded budget in one line naming its field (``budget_rho: the ledger … has spent …``), or none."""
        limit = self.settings.limit
        if not self.exceeded or limit is None or self.summary is None:
            return []
        return [f"{self.settings.budget_param}: the ledger {self.summary.ledger} has spent {limit.unit} = "
                f"{self.summary.spent:.6g}, more than the budget {limit.describe()}"]  # fmt: skip

    def threshold(self) -> ThresholdExceeded | None:
        """The exceeded budget as the threshold a front end reports (exit 1 on the command line), or None."""
        failures = self.failures()
        return ThresholdExceeded(failures[0], param=self.settings.budget_param) if failures else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the summary's (:meth:`LedgerSummary.to_dict`), or the receipts' (``ledger``, ``receipts``)."""
        if self.receipts is not None:
            return self.receipts.to_dict()
        assert self.summary is not None
        return self.summary.to_dict()

    def sentence(self) -> str:
        """The verdict first, in plain words: over or within the budget, then what the ledger spent."""
        if self.receipts is not None:
            n = len(self.receipts.receipts)
            return (
                f"{n} release{'s' if n != 1 else ''} exported as receipts of the OpenDP deployments registry."
            )
        assert self.summary is not None
        failures = self.failures()
        spent = self.summary.findings()[0]
        if failures:
            return f"Over budget: {failures[0].split(': ', 1)[1]}. {spent}"
        return spent

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write the report folder, whole or not at all: the receipts (``release_<seq>.yaml``) of an export, or
        ``ledger.json``, ``releases.csv`` and ``manifest.json`` of a check."""
        if self.receipts is not None:
            return self.receipts.write(folder)
        import pandas as pd

        from privrisk.io.files import atomic_dir, write_csv, write_json
        from privrisk.release.outputs import SCHEMA_VERSION
        from privrisk.reports.manifest import write_manifest

        assert self.summary is not None
        target = Path(folder)
        columns = ("seq", "time", "spent", "answers", "data")
        with atomic_dir(target) as tmp:
            write_json(tmp / "ledger.json", {"schema_version": SCHEMA_VERSION, **self.to_dict()})
            write_csv(pd.DataFrame(self.summary.rows(), columns=list(columns)), tmp / "releases.csv")
            manifest = write_manifest(
                tmp, kind="ledger", title=f"Ledger {self.summary.ledger}",
                parameters={"ledger": str(self.settings.ledger), "budget": None if self.settings.limit is None
                            else self.settings.limit.to_json()},
                summary={"releases": len(self.summary.entries), "total_epsilon": self.summary.total_epsilon,
                         "spent": self.summary.spent, "exceeded": self.exceeded},
                findings=self.summary.findings(),
                tables=[{"title": "Releases in the ledger", "path": "releases.csv"}],
            )  # fmt: skip
        return [target / name for name in ("ledger.json", "releases.csv", manifest.name)]


def run_ledger(settings: LedgerSettings, *, progress: Progress | None = None) -> LedgerRun:
    """Check a ledger's hash chain, summarise it, and judge it against the budget asked about; or export its
    releases as receipts.

    Args:
        settings: a :class:`LedgerSettings`.
        progress: told the share done (:class:`privrisk.progress.Progress`), or None.

    Raises:
        PrivriskError: for a missing or corrupt ledger or a wrong key.

    Example:
        >>> import tempfile, pathlib
        >>> from privrisk.release.ledger import record_release
        >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> _ = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
        >>> run = run_ledger(LedgerSettings(led, budget=0.4))
        >>> run.exceeded, run.failures()[0].startswith("budget: the ledger"), run.to_dict()["spent"]
        (True, True, 0.5)
        >>> run.sentence().startswith("Over budget: the ledger")
        True
    """
    from privrisk.progress import report

    if not isinstance(settings, LedgerSettings):
        raise PrivriskError("settings: expected a LedgerSettings", param="settings")
    report(progress, 0.0, "Checking the ledger's hash chain")
    if settings.export is not None:
        from privrisk.release.registry import RegistryExportSettings, export_registry

        receipts = export_registry(RegistryExportSettings(settings.ledger, key=settings.key, curator=settings.curator,
                                                          region=settings.region))  # fmt: skip
        run = LedgerRun(settings, receipts=receipts)
    else:
        run = LedgerRun(settings, summarise_ledger(settings.ledger, settings.limit, key=settings.key))
    report(progress, 1.0, "done")
    return run


def check_ledger(settings: LedgerSettings) -> LedgerRun:
    """Deprecated: use :func:`run_ledger` (the same check, the same result)."""
    warnings.warn(deprecation_message("check_ledger", "run_ledger"), DeprecationWarning, stacklevel=2)
    return run_ledger(settings)


def __getattr__(name: str) -> Any:
    """``LedgerCheck``, the earlier name of :class:`LedgerRun`, kept one release (it warns): the same class."""
    if name == "LedgerCheck":
        warnings.warn(deprecation_message("LedgerCheck", "LedgerRun"), DeprecationWarning, stacklevel=2)
        return LedgerRun
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _spend(entry: Mapping[str, Any]) -> str:
    """What one release spent: ``ε = 0.4``, ``ρ = 0.1`` or both (a Gaussian answer has no ε)."""
    rho = [float(q["rho"]) for q in entry["queries"] if q.get("mechanism") == "gaussian"]
    parts = [] if rho and not entry["epsilon"] else [f"ε = {_number(entry['epsilon'])}"]
    if rho:
        parts.append(f"ρ = {_number(math.fsum(rho))}")
    return ", ".join(parts)


#: The American spelling before 0.2, kept one release (public names are spelled the British way).
summarize_ledger = deprecated_alias(summarise_ledger, "summarize_ledger")
