"""What ``privrisk release`` and ``privrisk ledger`` print and write: rich tables on stdout, the ledger's
sentences, and the receipts of ``privrisk ledger --export registry``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from privrisk.cli._common import emit_json, err, out
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.release.history import LedgerSummary


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


def ledger_option(message: str) -> str:
    """A ledger message with its leading parameter named as the option (``budget_rho:`` → ``--budget-rho:``)."""
    from privrisk._params import leading_param, option, renamed

    param = leading_param(message)
    if param is None:
        return message
    return renamed(message, param, option(param, "ledger") or "--" + param.replace("_", "-"))


def export_receipts(path: Path, kind: str, folder: Path | None, curator: str | None, region: str | None,
            key: bytes | None, as_json: bool) -> None:  # fmt: skip
    """``--export registry``: every release as a registry entry, to a folder, as JSON or as YAML on stdout."""
    from privrisk.release.registry import RegistryExportSettings, export_registry

    if kind.strip().lower() != "registry":
        raise PrivriskError(f"--export: {kind!r} is not a format; the one format is registry")
    receipts = export_registry(RegistryExportSettings(path, key=key, curator=curator, region=region))
    if folder is not None:
        written = receipts.write(folder)
        err.print(f"Wrote {len(written)} receipt{'s' if len(written) != 1 else ''} to {folder}.")
    elif as_json:
        emit_json(receipts.to_dict())
    else:
        out.print(receipts.yaml_text(), end="", markup=False, highlight=False)
