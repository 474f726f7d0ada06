"""The study's attack figure: bound, exact risk and the attacker's success against sample size (PNG and SVG)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from privrisk._format import epsilon_text
from privrisk.reports.plots._base import save_figure, subplots

# (column, legend, line style, marker)
_LINES = (
    ("many_worlds", "bound ρ_mw (study, Δv = local sensitivity)", "-", None),
    ("lee_clifton_bound", "Lee–Clifton bound (Δv = range of the worlds)", ":", None),
    ("exact_risk", "exact risk (the attacker's best posterior)", "--", None),
    ("expected_success", "expected success (the attacker's average)", "-.", None),
    ("simulated_success", "simulated success (Monte Carlo)", "none", "o"),
)


def attack_by_size(
    results: pd.DataFrame,
    epsilon: float,
    query: str,
    folder: Path,
    stem: str = "figure3_attack_by_size",
    formats: tuple[str, ...] = ("png", "svg"),
) -> dict[str, Path]:
    """Medians over the repetitions against n, one panel per variable, at one ε for one query (log-log axes).

    Simulated rates of 0 cannot be drawn on a log scale and are left out.
    """
    from matplotlib.ticker import NullFormatter

    at = results[np.isclose(results["epsilon"], epsilon) & (results["query"] == query) & results["attacked"]]
    variables = list(dict.fromkeys(results["variable"]))
    fig, axes = subplots(1, len(variables), figsize=(4.2 * len(variables) + 1, 4.2), squeeze=False)
    for ax, var in zip(axes[0], variables, strict=True):
        part = at[at["variable"] == var]
        if part.empty:  # every sample of this variable was above attack_max_n
            ax.text(0.5, 0.5, "no sample attacked", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(var, fontsize=10)
            ax.set_axis_off()
            continue
        med = part.groupby("n")[[c for c, *_ in _LINES]].median()
        for col, label, style, marker in _LINES:
            y = med[col].to_numpy()
            keep = y > 0
            ax.plot(med.index[keep], y[keep], linestyle=style, marker=marker, markersize=3.5, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # decade labels only: the minor ones overlap
        ax.set_title(var, fontsize=10)
        ax.set_xlabel("sample size n (records)")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(f"probability, {query} query, ε = {epsilon_text(epsilon)}")
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes[0]), key=lambda hl: len(hl[0]))
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    return save_figure(fig, folder, stem, rect=(0, 0.12, 1, 1), formats=formats)
