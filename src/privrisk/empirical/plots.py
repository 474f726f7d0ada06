"""Figures of ``privrisk empirical``: the analogue of Figure 1 of Burchard and Daoud (2022), and δ per window.

:func:`plot_density` and :func:`plot_windows` draw into the axes they are given (``ax=``; a new figure on an
Agg canvas otherwise); :func:`density_figure` and :func:`window_figure` write them as PNG and SVG for the report
folder. The densities come from :func:`privrisk.empirical.density.density_curve`, the same curves δ is
computed from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from privrisk._format import epsilon_text
from privrisk.empirical.density import density_curve
from privrisk.reports.plots import axes_or_figure, save_figure

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes


def plot_density(
    series: np.ndarray,
    without: np.ndarray,
    *,
    density: str,
    k: int,
    who: str,
    label: str,
    ax: Axes | None = None,
) -> Axes:
    """Density of the answers with everyone and without the riskiest individual (Burchard and Daoud, Figure 1).

    Both densities are drawn truncated to their sample's range and renormalised, as they enter δ; the answers
    themselves are marked under the curves.

    Example:
        >>> import numpy as np
        >>> answers = np.array([9.0, 10.0, 10.5, 11.0, 12.0, 12.5])
        >>> ax = plot_density(answers, answers - 0.5, density="ecdf", k=1, who="person 7", label="mean wage")
        >>> [line.get_label() for line in ax.get_lines()][:2]
        ['with all individuals', 'without person 7']
    """
    _, ax = axes_or_figure(ax, figsize=(7.0, 4.2), dpi=120)
    x, p = density_curve(series, density=density, k=k)
    ax.plot(x, p, color="#1f4e79", lw=1.8, label="with all individuals")
    answered = without[np.isfinite(without)]
    if answered.size >= 2 and k < answered.size:
        xi, pi = density_curve(answered, density=density, k=k)
        ax.plot(xi, pi, color="#c0392b", lw=1.4, ls="--", label=f"without {who}")
    ax.plot(series, np.zeros_like(series), "|", color="#1f4e79", ms=10, alpha=0.6)
    ax.set_xlabel(f"{label} per period")
    ax.set_ylabel("estimated probability density")
    ax.set_title(f"Density of the {label} with and without the riskiest individual ({density}, k = {k})")
    ax.title.set_fontsize(10)
    ax.legend(frameon=False)
    return ax


def density_figure(
    series: np.ndarray, without: np.ndarray, *, folder: Path, stem: str = "density", **drawing: Any
) -> dict[str, str]:
    """:func:`plot_density` (``drawing``: its ``density``, ``k``, ``who`` and ``label``) written as
    ``folder/stem.png`` and ``.svg``; returns the manifest entry."""
    ax = plot_density(series, without, **drawing)
    paths = save_figure(ax.figure, folder, stem, dpi=120, tight=True)
    return {
        "title": "Density with and without the riskiest individual",
        "png": paths["png"].name,
        "svg": paths["svg"].name,
    }


def plot_windows(windows: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """δ per rolling window, one line per ε (Burchard and Daoud, §2: secular change).

    ``windows`` is :func:`privrisk.empirical.rolling_privacy`'s table (columns ``epsilon``, ``delta``, ``first``).
    """
    _, ax = axes_or_figure(ax, figsize=(7.0, 4.0), dpi=120)
    for eps, part in windows.groupby("epsilon"):
        ax.plot(
            np.arange(len(part)),
            part["delta"].to_numpy(),
            marker="o",
            label=f"ε = {epsilon_text(cast(float, eps))}",
        )
    starts = [
        str(v)[:10] if str(v).endswith("00:00:00") else str(v)
        for v in windows.drop_duplicates("first")["first"]
    ]
    ax.set_xticks(np.arange(len(starts)), starts, rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("first period of the window")
    ax.set_ylabel("δ (largest over individuals)")
    ax.set_title("Empirical δ on rolling windows")
    ax.legend(frameon=False)
    return ax


def window_figure(windows: Any, *, folder: Path, stem: str = "windows") -> dict[str, str]:
    """:func:`plot_windows` written as ``folder/stem.png`` and ``.svg``; returns the manifest entry."""
    paths = save_figure(plot_windows(windows).figure, folder, stem, dpi=120, tight=True)
    return {"title": "Empirical δ on rolling windows", "png": paths["png"].name, "svg": paths["svg"].name}
