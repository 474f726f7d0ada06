"""One way in for a perturbation table's risk: :class:`CellKeySettings` and :func:`run_cell_key`.

``privrisk risk --cell-key TABLE`` and the app's Risk page both call :func:`run_cell_key`: the table is read
(ONS CSV, ptable CSV or TOML), the guarantee of the cells that hold one person is built
(:func:`~privrisk.accounting.cellkey.cell_key_guarantee`, composed over ``cells`` cells with independent keys),
and its risks come out as :func:`~privrisk.accounting.risk_summary` has them, with the table's own numbers beside
them: its largest noise, the share of counts published unchanged, the zero-cell disclosure and the count at which
an attacker does best.

Example:
    >>> from privrisk.accounting.cellkey import perturbation_table
    >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}})
    >>> doc = run_cell_key(CellKeySettings(t)).to_dict()
    >>> doc["zero_cell_disclosure"], doc["max_noise"], doc["success"]
    (0.5, 1, 0.75)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from privrisk._validation import check_whole
from privrisk.accounting.cellkey import (
    PerturbationTable,
    cell_key_guarantee,
    cell_key_release,
)
from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.risks import DEFAULT_FPR
from privrisk.errors import PrivriskError
from privrisk.progress import Progress, report

__all__ = ["CellKeyRun", "CellKeySettings", "run_cell_key", "table_facts"]

#: The version of :meth:`CellKeyRun.to_dict`'s document.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class CellKeySettings:
    """A perturbation table and the cells that hold one person, checked when made.

    Attributes:
        table: a :class:`~privrisk.accounting.cellkey.PerturbationTable` or the path of a table file.
        cells: the number of published cells (each with its own key) that hold one person, ≥ 1.
        least_count: 0 (every count, the default) or the least count a cell has without the person.
        fpr: the false-positive rates for TPR at FPR.
        at_delta: also give ε at this δ.
    """

    table: PerturbationTable | str | os.PathLike[str]
    cells: int = 1
    least_count: int = 0
    fpr: Sequence[float] = DEFAULT_FPR
    at_delta: float | None = None
    loaded: PerturbationTable = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", check_whole(self.cells, name="cells", minimum=1))
        object.__setattr__(self, "least_count", check_whole(self.least_count, name="least_count", minimum=0))
        if self.least_count and self.cells > 1:
            raise PrivriskError("least_count: give it for one cell only (cells = 1)", param="least_count")
        if isinstance(self.table, PerturbationTable):
            loaded = self.table
        elif isinstance(self.table, str | os.PathLike):
            from privrisk.accounting.perturbation_files import read_perturbation_table

            loaded = read_perturbation_table(self.table)
        else:
            raise PrivriskError("table: give a perturbation table or the path of one", param="table")
        object.__setattr__(self, "loaded", loaded)

    def guarantee(self) -> Guarantee:
        """The guarantee of the cells that hold one person."""
        if self.cells == 1:
            return cell_key_guarantee(self.loaded, least_count=self.least_count)
        return cell_key_release([(self.loaded, self.cells)])


@dataclass(frozen=True, eq=False)
class CellKeyRun:
    """What :func:`run_cell_key` found.

    Attributes:
        settings: the settings run.
        guarantee: the guarantee built.
        summary: :func:`~privrisk.accounting.risk_summary` of it.
    """

    settings: CellKeySettings
    guarantee: Guarantee
    summary: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``schema_version``, the table's numbers (:func:`table_facts`) and the risk summary's keys."""
        s = self.settings
        facts = table_facts(s.loaded, cells=s.cells, least_count=s.least_count)
        return {"schema_version": SCHEMA_VERSION, **facts, **self.summary}

    def sentence(self) -> str:
        """What the best attacker achieves against the cells that hold one person, first; then the table's
        zero-cell disclosure.

        Example:
            >>> from privrisk.accounting.cellkey import perturbation_table
            >>> t = perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}}, name="half")
            >>> run_cell_key(CellKeySettings(t)).sentence()
            'The best attacker tells whether one person is in 1 cell of the table half with success 75.0% (advantage 50.0%); a count of 1 is published as more than 0 with probability 50.0%.'
        """
        from privrisk._format import below_certainty, percent

        s, doc = self.settings, self.to_dict()
        cells = f"{s.cells:,} cell" + ("" if s.cells == 1 else "s")
        success, advantage = (percent(below_certainty(float(doc[k]))) for k in ("success", "advantage"))
        zero = percent(float(doc["zero_cell_disclosure"]))
        return (
            f"The best attacker tells whether one person is in {cells} of the table {s.loaded.name} with success "
            f"{success} (advantage {advantage}); a count of 1 is published as more than 0 with probability {zero}."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``cell_key.json`` (:meth:`to_dict`) and ``manifest.json`` into ``folder``, whole or not at all."""
        from privrisk.accounting._folder import write_run_folder

        doc = self.to_dict()
        s = self.settings
        return write_run_folder(folder, kind="cell_key", title=f"The risks of the perturbation table {s.loaded.name}",
                                document=doc, parameters={"table": s.loaded.name, "cells": s.cells,
                                                          "least_count": s.least_count, "fpr": list(s.fpr),
                                                          "at_delta": s.at_delta},
                                summary={k: doc[k] for k in ("max_noise", "zero_cell_disclosure", "success",
                                                             "advantage")},
                                findings=[self.sentence()])  # fmt: skip


def table_facts(table: PerturbationTable, *, cells: int = 1, least_count: int = 0) -> dict[str, Any]:
    """A perturbation table's own numbers: ``table`` (its name), ``cells``, ``max_noise``, ``unchanged`` (the
    smallest share of counts ≥ 1 published as they are), ``zero_cell_disclosure`` (0 when ``least_count`` ≥ 1)
    and ``worst_count`` (the count without the person at which one cell's attacker does best).

    Example:
        >>> from privrisk.accounting.cellkey import perturbation_table
        >>> f = table_facts(perturbation_table({0: {0: 1.0}, 1: {-1: 0.5, 0: 0.5}}))
        >>> f["unchanged"], f["zero_cell_disclosure"], f["worst_count"]
        (0.5, 0.5, 0)
    """
    one = cell_key_guarantee(table, least_count=least_count)
    counts = range(max(1, least_count), max(table.top, 1) + 1)
    return {
        "table": table.name,
        "cells": cells,
        "max_noise": table.max_noise,
        "unchanged": min(table.unchanged_probability(c) for c in counts) if len(counts) else 1.0,
        "zero_cell_disclosure": one.zero_cell_disclosure,
        "worst_count": one.worst_count,
    }


def run_cell_key(settings: CellKeySettings, *, progress: Progress | None = None) -> CellKeyRun:
    """Build the guarantee of the settings' cells and compute its risks."""
    from privrisk.accounting.risks import risk_summary

    if not isinstance(settings, CellKeySettings):
        raise PrivriskError("settings: expected a CellKeySettings", param="settings")
    report(progress, 0.0, "Building the guarantee of the cells")
    g = settings.guarantee()
    report(progress, 0.5, "Computing the risks")
    run = CellKeyRun(settings, g, risk_summary(g, fpr=tuple(settings.fpr), at_delta=settings.at_delta))
    report(progress, 1.0, "Done")
    return run
