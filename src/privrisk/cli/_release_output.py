"""What ``privrisk release`` and ``privrisk ledger`` print and write: rich tables on stdout, the ledger's
sentences, the receipts of ``privrisk ledger --export registry``, and a budget's option in a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from privrisk.cli._common import emit_json, err, out

if TYPE_CHECKING:
    from privrisk.release.history import LedgerRun, LedgerSummary


def table(title: str, names: tuple[str, ...], rows: list[tuple[str, ...]], right: tuple[str, ...]) -> None:
    """One rich table on stdout; the columns named in ``right`` are right-aligned."""
    shown = Table(title=title)
    for name in names:
        shown.add_column(name, justify="right" if name in right else "left")
    for row in rows:
        shown.add_row(*row)
    out.print(shown)


def print_ledger(path: str, summary: LedgerSummary) -> None:
    """A ledger's tables (releases, outputs) and its findings in sentences."""
    for title, columns, rows in summary.tables(path):
        table(title, columns, rows, ("#", "ε or ρ"))
    for line in summary.findings():
        out.print(line)


def ledger_option(message: str, command: str = "ledger") -> str:
    """A budget's message with its leading parameter named as the command's option (``budget_rho:`` →
    ``--budget-rho:``): a threshold exceeded is printed as it is, not renamed as an error is."""
    from privrisk.cli._names import option_or_default
    from privrisk.errors import leading_param, named_message

    param = leading_param(message)
    if param is None:
        return message
    return named_message(message, param, option_or_default(param, command))


def print_receipts(run: LedgerRun, folder: Path | None, as_json: bool) -> None:
    """``--export registry``: every release as a registry entry, to a folder, as JSON or as YAML on stdout."""
    assert run.receipts is not None
    if folder is not None:
        written = run.write(folder)
        err.print(f"Wrote {len(written)} receipt{'s' if len(written) != 1 else ''} to {folder}.")
    elif as_json:
        emit_json(run.to_dict())
    else:
        out.print(run.receipts.yaml_text(), end="", markup=False, highlight=False)
