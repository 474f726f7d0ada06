"""The output folder of an empirical-privacy measurement: tables, figures and a manifest, written whole.

The command ``privrisk empirical`` and the app's page write it through
:meth:`privrisk.empirical.run.EmpiricalRun.write`; the earlier :func:`write_outputs` still works for one release,
with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from privrisk._format import number
from privrisk.empirical.result import EmpiricalPrivacy

__all__ = ["short_number", "write_outputs"]


def short_number(x: float) -> str:
    """δ as printed in tables and findings: four significant digits, exactly 0 as ``0``, never e-notation.

    Example:
        >>> short_number(0.0), short_number(0.0123456), short_number(1.0), short_number(1.234e-7)
        ('0', '0.01235', '1', '1.234 × 10⁻⁷')
    """
    return "0" if x == 0 else number(x, 4)


def _write(
    folder: str | os.PathLike[str],
    result: EmpiricalPrivacy,
    *,
    windows: pd.DataFrame | None = None,
    file: str | None = None,
    preset: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Path:
    """Write the tables, the figures and ``manifest.json`` (kind ``empirical``) of ``result`` to ``folder``.

    Files: ``individuals.parquet`` (δᵢ per ε of every individual), ``privacy.csv`` (δ and δ* per ε),
    ``riskiest.csv`` (the ten riskiest individuals), ``series.csv`` (the answer per period), ``independence.csv``
    (the Ljung–Box test), ``windows.csv`` with ``windows``, and the figures: the density of the answers with and
    without the riskiest individual (the analogue of Figure 1 of Burchard and Daoud 2022) and δ per window. The
    folder is written whole or not at all.

    Args:
        folder: the output folder (created; files of the same names replaced).
        result: the measurement.
        windows: :func:`~privrisk.empirical.windows.rolling_privacy` of the same table, if run.
        file: the file measured and ``preset`` its preset, for the title and the manifest.
        parameters: the options of the measurement, for the manifest (ε is taken from ``result``).

    Returns:
        The folder.
    """
    from privrisk.empirical.plots import density_figure, window_figure
    from privrisk.io.files import atomic_dir, write_csv
    from privrisk.reports.manifest import write_manifest

    rows = result.rows()
    with atomic_dir(folder) as tmp:
        result.individuals.to_parquet(tmp / "individuals.parquet", index=False)
        write_csv(result.summary, tmp / "privacy.csv")
        write_csv(result.top(10), tmp / "riskiest.csv")
        write_csv(result.series.rename("answer").to_frame(), tmp / "series.csv", index=True)
        tables = [
            {"title": "Empirical (ε, δ) and total risk δ*", "path": "privacy.csv"},
            {"title": "The ten riskiest individuals", "path": "riskiest.csv"},
            {"title": "The published statistic per period", "path": "series.csv"},
        ]
        if result.independence is not None:
            write_csv(result.independence, tmp / "independence.csv")
            tables.append({"title": "Autocorrelation and Ljung–Box test", "path": "independence.csv"})
        figures = [
            density_figure(
                result.series.to_numpy(),
                result.without_worst,
                density=result.density,
                k=min(result.k, result.periods - 1),
                who=f"{result.worst} (largest δᵢ at ε = {result.figure_epsilon:g})",
                label=result.query,
                folder=tmp,
            )
        ]
        if windows is not None:
            write_csv(windows, tmp / "windows.csv")
            tables.append({"title": "δ on rolling windows", "path": "windows.csv"})
            figures.append(window_figure(windows, folder=tmp))
        findings = [
            f"At ε = {r['epsilon']:.4g}: δ = {short_number(r['delta'])}, total risk δ* = "
            f"{short_number(r['total_risk'])} (riskiest individual: {r['worst_individual']})."
            for r in rows
        ]
        if result.dependent and result.independence is not None:
            p = float(result.independence["p_value"].iloc[-1])
            findings.append(f"The answers are autocorrelated (Ljung–Box p = {p:.3g}); δ may be understated.")
        given = dict(parameters or {})
        given.pop("epsilons", None)
        write_manifest(
            tmp,
            kind="empirical",
            title=f"Empirical differential privacy of the {result.query}"
            + ("" if file is None else f" in {Path(file).name}"),
            parameters={
                **given,
                "epsilons": result.epsilons,
                "file": None if file is None else str(file),
                "preset": preset,
            },
            summary={
                "periods": result.periods,
                "individuals": result.n_individuals,
                "k": result.k,
                "density": result.density,
                "rows": rows,
            },
            findings=findings,
            tables=tables,
            figures=figures,
        )
    return Path(folder)


def write_outputs(folder: str | os.PathLike[str], result: EmpiricalPrivacy, **options: Any) -> Path:
    """Deprecated: use :meth:`privrisk.empirical.run.EmpiricalRun.write` (the same folder)."""
    warnings.warn(
        "empirical.write_outputs is deprecated; use run_empirical(EmpiricalSettings(...)).write(folder)",
        DeprecationWarning,
        stacklevel=2,
    )
    return _write(folder, result, **options)
