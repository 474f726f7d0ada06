"""Figures of ``privrisk empirical``: the analogue of Figure 1 of Burchard and Daoud (2022), and δ per window."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from privrisk._format import epsilon_text
from privrisk.reports.plots._base import pyplot, save_figure


def density_figure(
    series: np.ndarray,
    without: np.ndarray,
    *,
    density: str,
    k: int,
    who: str,
    label: str,
    folder: Path,
    stem: str = "density",
) -> dict[str, str]:
    """Density of the answers with everyone and without the riskiest individual (Burchard and Daoud, Figure 1); PNG and SVG.

    Both densities are drawn truncated to their sample's range and renormalised, as they enter δ; the answers
    themselves are marked under the curves.
    """
    plt = pyplot()
    from privrisk.empirical.density import density_curve

    fig, ax = plt.subplots(figsize=(7.0, 4.2), dpi=120)
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
    paths = save_figure(fig, folder, stem, dpi=120, tight=True)
    return {
        "title": "Density with and without the riskiest individual",
        "png": paths["png"].name,
        "svg": paths["svg"].name,
    }


def window_figure(windows, *, folder: Path, stem: str = "windows") -> dict[str, str]:
    """δ per rolling window, one line per ε (Burchard and Daoud, §2: secular change)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.0), dpi=120)
    for eps, part in windows.groupby("epsilon"):
        ax.plot(np.arange(len(part)), part["delta"].to_numpy(), marker="o", label=f"ε = {epsilon_text(eps)}")
    starts = [
        str(v)[:10] if str(v).endswith("00:00:00") else str(v)
        for v in windows.drop_duplicates("first")["first"]
    ]
    ax.set_xticks(np.arange(len(starts)), starts, rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("first period of the window")
    ax.set_ylabel("δ (largest over individuals)")
    ax.set_title("Empirical δ on rolling windows")
    ax.legend(frameon=False)
    paths = save_figure(fig, folder, stem, dpi=120, tight=True)
    return {"title": "Empirical δ on rolling windows", "png": paths["png"].name, "svg": paths["svg"].name}
