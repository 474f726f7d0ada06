"""Figures of a release's output folder: the noisy answers against their universes, and the risk as ε adds up."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privrisk._format import epsilon_text, number
from privrisk.reports.plots._base import axes_or_figure, save_figure, subplots
from privrisk.risk import global_leak, global_risk

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def answers_figure(answers: pd.DataFrame, stem: Path) -> dict[str, str]:
    """One panel per answer: the universe as a band, the noisy value with its 95 % noise interval."""
    k = len(answers)
    fig, axes = subplots(k, 1, figsize=(7, 0.9 + 0.9 * k), squeeze=False)
    for ax, row in zip(axes[:, 0], answers.itertuples(), strict=True):
        lo, hi = row.universe_lo, row.universe_hi
        ax.axvspan(lo, hi, color="0.88", label="universe [lo, hi]")
        ax.errorbar(
            [row.noisy_value],
            [0],
            xerr=[[row.noise_95], [row.noise_95]],
            fmt="o",
            color="C0",
            capsize=4,
            label="noisy value, 95 % interval",
        )
        ax.set_yticks([0])
        gaussian = getattr(row, "mechanism", "laplace") == "gaussian"
        value = f"ρ = {number(float(row.rho))}" if gaussian else f"ε = {epsilon_text(float(row.epsilon))}"  # type: ignore[arg-type]
        ax.set_yticklabels([f"{row.label}\n{value}"])
        ax.set_ylim(-1, 1)
    axes[-1, 0].set_xlabel("value of the answer (each panel on its own scale)")
    fig.suptitle("Noisy answers with the 95 % interval of their noise")
    fig.tight_layout()
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=2, frameon=False)
    # Cropped to what is drawn: the legend sits below the axes.
    paths = save_figure(fig, stem.parent, stem.name, dpi=150, bbox_inches="tight")
    return {"svg": paths["svg"].name, "png": paths["png"].name}


def risk_figure(
    cumulative: Sequence[float], budget: float | None, stem: Path, *, labels: Sequence[str] | None = None
) -> dict[str, str]:
    """Global risk ρ_gl and leak Γ against ε (:func:`plot_risk`), written as ``stem.png`` and ``stem.svg``."""
    ax = plot_risk(cumulative, budget, labels=labels)
    paths = save_figure(ax.figure, stem.parent, stem.name, dpi=150, tight=True, bbox_inches="tight")
    return {"svg": paths["svg"].name, "png": paths["png"].name}


def plot_risk(
    cumulative: Sequence[float],
    budget: float | None,
    *,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Global risk ρ_gl and leak Γ against ε, with the total ε after each release marked and the budget drawn."""
    top = max([*cumulative, budget or 0.0]) * 1.25
    eps = np.linspace(0.0, top, 400)
    _, ax = axes_or_figure(ax, figsize=(7, 4))
    ax.plot(eps, global_risk(eps), color="C3", label="global risk ρ_gl: attacker right")
    ax.plot(eps, global_leak(eps), color="C1", label="global leak Γ: way from guessing to certainty")
    ax.axhline(0.5, color="0.6", lw=0.8, ls=":", label="guessing (1/2)")
    marks = np.asarray(cumulative, dtype=float)
    ax.plot(marks, global_risk(marks), "o", color="C3")
    for i, x in enumerate(marks):
        text = labels[i] if labels else f"{i + 1}"
        ax.annotate(text, (x, float(global_risk(x))), textcoords="offset points", xytext=(4, -12), fontsize=8)
    if budget is not None:
        ax.axvline(budget, color="k", lw=1, ls="--", label=f"budget ε = {epsilon_text(budget)}")
    ax.set_xlim(0, top)
    ax.set_ylim(0, 1)
    ax.set_xlabel("total ε of all releases so far (sequential composition)")
    ax.set_ylabel("probability / share")
    ax.set_title("Risk after each release")
    ax.legend(fontsize="small", loc="lower right")
    return ax
