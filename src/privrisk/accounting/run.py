"""The accounting's ways in, in one place: each a frozen settings object, a run function and a result.

=========================================  =========================  ======================  ====================
What it answers                            settings                   run function            result
=========================================  =========================  ======================  ====================
the risks of one guarantee (``privrisk     :class:`RiskSettings`      :func:`run_risk`        :class:`RiskRun`
risk``, the app's Risk page)               (a :class:`GuaranteeSpec`)
the largest ε for a target risk            :class:`EpsilonSettings`   :func:`run_epsilon`     :class:`EpsilonRun`
(``privrisk epsilon``)
risk and leak per ε and n, Table 1 of      :class:`TableSettings`     :func:`run_table`       :class:`TableRun`
Mehner et al. (``privrisk table``)
the least noise or the largest ε, ρ, μ,    :class:`CalibrationSet-    :func:`run_calibration` :class:`Calibration-
sample rate or steps (``privrisk           tings`                                             Run`
calibrate``)
a cell-key perturbation table's risks      :class:`CellKeySettings`   :func:`run_cell_key`    :class:`CellKeyRun`
(``privrisk risk --cell-key``)
=========================================  =========================  ======================  ====================

Every settings object checks its fields when it is made and raises :class:`~privrisk.errors.PrivriskError` whose
``param`` is the field (a front end names it as its option or label). Every run function is
``run_<x>(settings, *, progress=None)`` (:class:`privrisk.progress.Progress`). Every result is frozen and has
``to_dict()`` (the ``--json`` document, with ``schema_version``), ``sentence()`` (the verdict first, in plain
words) and ``write(folder)`` (``<kind>.json`` and ``manifest.json``, whole or not at all).

A guarantee is stated as a :class:`GuaranteeSpec`; the files it may name (a mixed composition's TOML, an Opacus
history's JSON, a perturbation table, PRAM's matrices, a registry entry) are read by the library when it is built
(:mod:`privrisk.accounting.guarantee_files` for the first two). The classes live in focused modules
(:mod:`~privrisk.accounting.risk_report`, :mod:`~privrisk.accounting.calibration_settings`,
:mod:`~privrisk.accounting.cellkey_run`), which stay importable.

Example:
    >>> run = run_risk(RiskSettings(GuaranteeSpec(epsilon="ln3"), n=10, max_risk=0.3))
    >>> run.to_dict()["schema_version"], round(run.risk_for_threshold[0], 4)     # Mehner et al., Table 1
    (1, 0.25)
    >>> run.sentence().split(":")[0]
    'Within the limit'
"""

from __future__ import annotations

from privrisk.accounting.calibration_settings import CalibrationRun, CalibrationSettings, run_calibration
from privrisk.accounting.cellkey_run import CellKeyRun, CellKeySettings, run_cell_key
from privrisk.accounting.guarantee_files import read_opacus_history, read_small_text
from privrisk.accounting.risk_report import (
    EpsilonRun,
    EpsilonSettings,
    RiskRun,
    RiskSettings,
    TableRun,
    TableSettings,
    run_epsilon,
    run_risk,
    run_table,
)
from privrisk.accounting.spec import GuaranteeSpec, read_releases

__all__ = [
    "CalibrationRun",
    "CalibrationSettings",
    "CellKeyRun",
    "CellKeySettings",
    "EpsilonRun",
    "EpsilonSettings",
    "GuaranteeSpec",
    "RiskRun",
    "RiskSettings",
    "TableRun",
    "TableSettings",
    "read_opacus_history",
    "read_releases",
    "read_small_text",
    "run_calibration",
    "run_cell_key",
    "run_epsilon",
    "run_risk",
    "run_table",
]
