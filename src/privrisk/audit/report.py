"""The intruder's audit as one JSON document and as an output folder (CSV tables, figures, ``manifest.json``).

The command ``privrisk audit`` and the app's page reach them through
:meth:`privrisk.audit.run.AuditRun.to_dict` (its JSON output) and :meth:`~privrisk.audit.run.AuditRun.write`
(its output folder); ``privrisk report`` gathers such folders with those of the other commands. The earlier names
:func:`audit_document` and :func:`write_outputs` still work for one release, with a :class:`DeprecationWarning`.

Example:
    >>> from privrisk.audit.run import AuditSettings, run_audit
    >>> run = run_audit(AuditSettings(data=[9.91, 9.16, 10.59, 11.27, 10.50, 100.0], epsilon=2, u=0.75))
    >>> doc = run.to_dict()
    >>> doc["violations"], doc["sentence"][:47]
    (1, 'An intruder holding the other 5 records learns ')
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from privrisk.audit._laplace import exp_text
from privrisk.audit.intruder import TOP_RECORDS, AuditResult
from privrisk.io.files import write_csv

__all__ = [
    "audit_document",
    "exp_text",
    "ratio_text",
    "record_nouns",
    "write_outputs",
    "write_records",
]

_TITLES = {
    "records": "The intruder's ratio p1/p3 for every possible missing record (Table 2 of Sarathy and Muralidhar 2009)",
    "provider": "The provider's and the intruder's numbers for X*",
    "global": "The same answer with noise calibrated to the global sensitivity",
    "sweep": "The intruder's ratio as the missing record's value varies (Table 3 of Sarathy and Muralidhar 2009)",
}


def record_nouns(column: str | None) -> tuple[str, str]:
    """The words for one record and for many, from the column's name: 'claims' → ('claim', 'claims').

    Other names give ('record', 'records').

    Example:
        >>> record_nouns("claims"), record_nouns("income")
        (('claim', 'claims'), ('record', 'records'))
    """
    name = (column or "").strip()
    if name.isalpha() and len(name) > 3 and name.endswith("s") and not name.endswith("ss"):
        return name[:-1], name
    return "record", "records"


def _document(
    result: AuditResult,
    *,
    sweep: pd.DataFrame | None = None,
    sweep_record: int | None = None,
    file: str | os.PathLike[str] | None = None,
    column: str | None = None,
    data: dict[str, Any] | None = None,
    top: int = TOP_RECORDS,
) -> dict[str, Any]:
    """The audit as one JSON-able document, as the command ``privrisk audit`` prints it (:meth:`AuditRun.to_dict`).

    Its size does not grow with n: ``records`` holds the ``top`` riskiest records (in file order) beside the
    counts ``records_total`` and ``records_shown``; every record goes to a file (:func:`write_records`,
    ``records.csv`` of :func:`write_outputs`).

    Args:
        result: what :func:`~privrisk.audit.intruder.audit_data_dependent` found.
        sweep: the table of :func:`~privrisk.audit.intruder.audit_sweep`, if one was made.
        sweep_record: the record (numbered from 1) whose value the sweep varied.
        file: the data file, if the values came from one.
        column: the column; its name also names the records in the sentence ('claims' → 'claim').
        data: what reading the column kept and dropped (``NumericColumn.as_dict()``).
        top: how many of the riskiest records the document lists.

    Returns:
        ``file`` and ``column`` (when given), :meth:`AuditResult.to_dict`, ``data``, ``global`` and ``sweep``.
    """
    body = result.to_dict(*record_nouns(column), top=top)
    glob = body.pop("global", None)
    doc: dict[str, Any] = {}
    if file is not None:
        doc["file"] = str(file)
    if column is not None:
        doc["column"] = column
    doc.update(body)
    if data is not None:
        doc["data"] = data
    if glob is not None:
        doc["global"] = glob
    if sweep is not None:
        doc["sweep"] = {"record": sweep_record, "rows": sweep.to_dict(orient="records")}
    return doc


def write_records(result: AuditResult, path: str | os.PathLike[str]) -> Path:
    """Write every record of the audit (Table 2 of Sarathy and Muralidhar 2009) as one CSV file, atomically.

    Example:
        >>> import tempfile, pathlib
        >>> from privrisk.audit.intruder import audit_data_dependent
        >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
        >>> path = write_records(res, pathlib.Path(tempfile.mkdtemp()) / "records.csv")
        >>> len(path.read_text().splitlines())
        7
    """
    from privrisk.io.files import atomic_path

    target = Path(path)
    with atomic_path(target) as tmp:
        result.records.to_csv(tmp, index=False, chunksize=1 << 16)
    return target


def _write(
    result: AuditResult,
    folder: str | os.PathLike[str],
    *,
    sweep: pd.DataFrame | None = None,
    sweep_record: int | None = None,
    file: str | os.PathLike[str] | None = None,
    column: str | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Path:
    """Write the audit's tables (CSV), its figures (PNG and SVG) and ``manifest.json`` into ``folder``.

    The folder is written completely or not at all (a temporary folder beside it, moved into place). Tables:
    ``records.csv`` (Table 2 of Sarathy and Muralidhar 2009), ``provider.csv``, ``global.csv`` (with a universe),
    ``sweep.csv`` (with a sweep, their Table 3); figures: analogues of their Figures 1a/1b and 2a/2b.

    Args:
        result: what :func:`~privrisk.audit.intruder.audit_data_dependent` found.
        folder: where to write; created if needed, files of the same names replaced.
        sweep: the table of :func:`~privrisk.audit.intruder.audit_sweep`, if one was made.
        sweep_record: the record (numbered from 1) whose value the sweep varied.
        file: the data file, for the manifest's title and parameters.
        column: the column, likewise.
        progress: ``progress(fraction, text)`` before each figure (drawing them is most of the time).

    Returns:
        The path of ``manifest.json``.
    """
    from privrisk.audit.plots import audit_figures
    from privrisk.io.files import atomic_dir
    from privrisk.reports.manifest import write_manifest

    doc = _document(result, sweep=sweep, sweep_record=sweep_record, file=file, column=column)
    with atomic_dir(folder) as tmp:
        frames = result.tables()
        if sweep is not None:
            frames["sweep"] = sweep
        tables = []
        for name, frame in frames.items():
            write_csv(frame, tmp / f"{name}.csv")
            tables.append({"title": _TITLES[name], "path": f"{name}.csv"})
        figures = audit_figures(result, tmp, progress=progress)
        glob = result.global_sentence()
        findings = [doc["sentence"]] + ([glob] if glob else [])
        keys = ("file", "column", "query", "epsilon", "u", "event", "alpha")
        parameters = {k: doc[k] for k in keys if k in doc}
        parameters["universe"] = result.global_audit.universe if result.global_audit else None
        skip = ("records", "data", "sweep", "sentence", "file", "column")
        summary = {k: v for k, v in doc.items() if k not in skip}
        title = f"Intruder's audit of data-dependent noise: {result.query}"
        if column is not None:
            title += f" of {column!r}"
        if file is not None:
            title += f" in {Path(file).name}"
        write_manifest(
            tmp,
            kind="audit",
            title=title,
            parameters=parameters,
            summary=summary,
            findings=findings,
            tables=tables,
            figures=figures,
        )
    return Path(folder) / "manifest.json"


def audit_document(result: AuditResult, **options: Any) -> dict[str, Any]:
    """Deprecated: use :meth:`privrisk.audit.run.AuditRun.to_dict` (the same document)."""
    warnings.warn(
        "audit_document is deprecated; use run_audit(AuditSettings(...)).to_dict()",
        DeprecationWarning,
        stacklevel=2,
    )
    return _document(result, **options)


def write_outputs(result: AuditResult, folder: str | os.PathLike[str], **options: Any) -> Path:
    """Deprecated: use :meth:`privrisk.audit.run.AuditRun.write` (the same folder)."""
    warnings.warn(
        "audit.write_outputs is deprecated; use run_audit(AuditSettings(...)).write(folder)",
        DeprecationWarning,
        stacklevel=2,
    )
    return _write(result, folder, **options)


def ratio_text(log10_ratio: float) -> str:
    """A ratio given as log10, as Sarathy and Muralidhar print it: two decimals when small, powers of ten when huge.

    Example:
        >>> ratio_text(0.5), ratio_text(9.0), ratio_text(29.978), ratio_text(float("inf"))
        ('3.16', '1.000 × 10⁹', '9.506 × 10²⁹', '∞')
    """
    if not math.isfinite(log10_ratio):
        return "∞" if log10_ratio > 0 else "0"
    if abs(log10_ratio) >= 6:
        # Computed from the logarithm, so a ratio beyond the largest float (10³⁰⁸) is still written.
        exponent = math.floor(log10_ratio)
        power = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        return f"{10 ** (log10_ratio - exponent):.3f} × 10{power}"
    return f"{10**log10_ratio:,.2f}"
