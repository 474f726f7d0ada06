"""The figure of the attack's output folder: bound, exact risk and the attacker's real success against ε."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privrisk.reports.plots._base import axes_or_figure, save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def plot_risk_vs_epsilon(curve: pd.DataFrame, point: dict, stem: Path, *, title: str) -> dict[str, str]:
    """Draw ``curve`` (columns epsilon, guess, expected_success, exact_risk, bound) with the simulated point.

    Writes ``stem.png`` and ``stem.svg`` (:func:`draw_risk_vs_epsilon`) and returns their names for the manifest.
    """
    ax = draw_risk_vs_epsilon(curve, point, title=title)
    paths = save_figure(ax.figure, stem.parent, stem.name, dpi=150)
    return {"png": paths["png"].name, "svg": paths["svg"].name}


def draw_risk_vs_epsilon(curve: pd.DataFrame, point: dict, *, title: str, ax: Axes | None = None) -> Axes:
    """The attack's curve against ε and its simulated point, drawn into ``ax`` (a new figure without one)."""
    _, ax = axes_or_figure(ax, figsize=(7.5, 4.6), layout="constrained")
    eps = curve["epsilon"].to_numpy()
    ax.plot(eps, curve["bound"], color="#b2182b", lw=2, label="Lee–Clifton bound ρ_mw")
    ax.plot(
        eps, curve["exact_risk"], color="#ef8a62", lw=2, ls="--", label="exact risk (most telling answer)"
    )
    ax.plot(eps, curve["expected_success"], color="#2166ac", lw=2, label="attacker's average success")
    ax.plot(eps, curve["guess"], color="0.4", lw=1, ls=":", label="guessing alone")
    sim = point["simulated_success"]
    ax.errorbar(
        [point["epsilon"]],
        [sim],
        yerr=[[sim - point["ci_low"]], [point["ci_high"] - sim]],
        fmt="o",
        color="black",
        capsize=4,
        label=f"simulated success, {point['trials']:,} attacks (95 % interval)",
    )
    ax.set_xscale("log")
    values = curve[["bound", "exact_risk", "expected_success", "guess"]].to_numpy()
    positive = values[values > 0]
    if positive.size and positive.max() / positive.min() > 50:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1.02)
    ax.set_xlabel("privacy parameter ε (log scale)")
    ax.set_ylabel("probability of naming the left-out record")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def epsilon_grid(epsilon: float, points: int = 61) -> np.ndarray:
    """Log-spaced ε from well below to well above the chosen one, including it."""
    lo, hi = min(0.01, epsilon / 10), max(20.0, epsilon * 10)
    return np.unique(np.concatenate([np.geomspace(lo, hi, points), [epsilon]]))
