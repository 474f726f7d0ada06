"""The files a release writes: ``release.json`` and ``.csv``, the public statement as a page, the figures, the
manifest, and on request the internal assessment (mode 0600).

Example:
    >>> release_parameters([ReleaseQuery("h", "max", 1, (0, 24))], file="a.csv")["queries"][0]["universe"]
    [0.0, 24.0]
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privrisk.io.files import write_csv, write_json, write_text
from privrisk.release.budget import Budget
from privrisk.release.composition import tradeoff_figure
from privrisk.release.ledger import ledger_records, read_ledger
from privrisk.release.result import Release
from privrisk.release.spec import ReleaseQuery
from privrisk.release.statement import statement_html

__all__ = ["PUBLIC_FILES", "SCHEMA_VERSION", "release_parameters", "write_internal", "write_outputs"]

#: The version of the JSON files a release writes (``release.json``, ``internal_assessment.json``).
SCHEMA_VERSION = 1

#: The public files :func:`write_outputs` writes into its folder (the internal assessment's come on request).
PUBLIC_FILES = ("release.json", "release.csv", "statement.html", "manifest.json", "release_answers.png",
                "release_answers.svg", "release_risk.png", "release_risk.svg")  # fmt: skip
#: The internal assessment's files in the folder, with ``include_internal``.


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
        >>> import pandas as pd
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
    history: Sequence[Mapping[str, Any]] | None = None,
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
        history: the ledger's entries before this release (then the ledger is not read again).
    """
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots import release as plots

    out = Path(folder)
    r = release
    write_json(out / "release.json", {"schema_version": SCHEMA_VERSION, **r.public_dict()})
    write_csv(r.answers, out / "release.csv")
    write_text(out / "statement.html", statement_html(r))
    if include_internal:
        write_internal(r, out / "internal_assessment.json")
        write_csv(r.internal, out / "internal_assessment.csv")
        os.chmod(out / "internal_assessment.csv", 0o600)
    s = r.statement
    if r.ledger is not None:
        seq = r.ledger["entry"]["seq"]
        # Called before the ledger is charged (the entry is not written yet) or after: the entries before this
        # release, then this release's own entry.
        before = read_ledger(r.ledger["path"], key=key) if history is None else history
        entries = [*before[: seq - 1], r.ledger["entry"]]
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
    files = ["release.json", "release.csv", "statement.html"]
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
