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
from typing import Any

from privrisk._validation import check_whole
from privrisk.accounting.cellkey import (
    CellKeyPerturbation,
    PerturbationTable,
    cell_key_guarantee,
    cell_key_release,
)
from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.risks import DEFAULT_FPR
from privrisk.errors import PrivriskError

__all__ = ["CellKeyRun", "CellKeySettings", "run_cell_key"]


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
        """The table's numbers (``table``, ``max_noise``, ``unchanged``, ``zero_cell_disclosure``, ``worst_count``,
        ``cells``) and the risk summary's keys."""
        t = self.settings.loaded
        one = self.guarantee if isinstance(self.guarantee, CellKeyPerturbation) else cell_key_guarantee(t)
        counts = range(max(1, self.settings.least_count), max(t.top, 1) + 1)
        return {
            "table": t.name,
            "cells": self.settings.cells,
            "max_noise": t.max_noise,
            "unchanged": min(t.unchanged_probability(c) for c in counts) if len(counts) else 1.0,
            "zero_cell_disclosure": 0.0 if self.settings.least_count else t.zero_cell_disclosure,
            "worst_count": one.worst_count,
            **self.summary,
        }


def run_cell_key(settings: CellKeySettings) -> CellKeyRun:
    """Build the guarantee of the settings' cells and compute its risks."""
    from privrisk.accounting.risks import risk_summary

    if not isinstance(settings, CellKeySettings):
        raise PrivriskError("settings: expected a CellKeySettings", param="settings")
    g = settings.guarantee()
    return CellKeyRun(settings, g, risk_summary(g, fpr=tuple(settings.fpr), at_delta=settings.at_delta))
