"""The sampling study's figures: the analogues of Figures 1 and 2 of Allmann et al. (PNG and SVG)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from privrisk._format import VOCABULARY, epsilon_text
from privrisk.reports.plots._base import colormap, log_scale, save_figure, subplots

_RISK_LABELS = {risk: VOCABULARY[risk] for risk in ("many_worlds", "two_worlds")}


def _thin(values) -> np.ndarray:
    """Outliers that look alike drawn once: rounded to 3 significant digits, duplicates dropped (smaller SVG)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return v
    scale = 10.0 ** np.floor(np.log10(np.where(v > 0, np.abs(v), 1.0)))
    return np.unique(np.round(v / scale, 2) * scale)


def _spans_decades(values) -> bool:
    v = np.asarray(values, dtype=float)
    v = v[v > 0]
    return v.size > 0 and v.max() / v.min() >= 20


def risk_boxplots(
    results: pd.DataFrame,
    epsilon: float,
    folder: Path,
    stem: str = "figure1_risk_by_query",
    labels=None,
    formats: tuple[str, ...] = ("png", "svg"),
):
    """Figure 1 of Allmann et al.: box plots of ρ_mw and ρ_tw per query (groups) and variable (colours) at one ε."""
    from matplotlib import cbook

    labels = labels or {}
    at = results[np.isclose(results["epsilon"].to_numpy(), epsilon)]
    # Codes in order of first appearance, as dict.fromkeys gives them, without iterating strings in Python.
    query_codes, queries = pd.factorize(at["query"])
    variable_codes, variables = pd.factorize(at["variable"])
    queries, variables = list(queries), list(variables)
    colours = cast(Any, colormap("tab10")).colors  # a ListedColormap: its ten colours
    width = 0.8 / max(len(variables), 1)
    fig, axes = subplots(1, 2, figsize=(max(7.5, 1.5 * len(queries) * 2), 4.2), constrained_layout=True)
    for ax, risk in zip(axes, ("many_worlds", "two_worlds"), strict=True):
        for i, var in enumerate(variables):
            of_var = variable_codes == i
            values = at[risk].to_numpy()
            data = [values[of_var & (query_codes == j)] for j in range(len(queries))]
            pos = np.arange(len(queries)) + (i - (len(variables) - 1) / 2) * width
            stats = cbook.boxplot_stats([d if d.size else np.array([np.nan]) for d in data])
            for st in stats:
                st["fliers"] = _thin(st["fliers"])
            box = ax.bxp(
                stats,
                positions=pos,
                widths=width * 0.85,
                patch_artist=True,
                manage_ticks=False,
                flierprops={"markersize": 2, "alpha": 0.4, "markeredgecolor": colours[i % 10]},
            )
            for patch in box["boxes"]:
                patch.set(facecolor=colours[i % 10], alpha=0.55)
            for median in box["medians"]:
                median.set(color="black")
            ax.plot([], [], "s", color=colours[i % 10], alpha=0.55, label=labels.get(var, var))
        ax.minorticks_off()
        ax.set_xticks(np.arange(len(queries)), queries)
        ax.set_xlabel("query")
        ax.set_ylabel(_RISK_LABELS[risk])
        if risk == "many_worlds" and _spans_decades(at[risk]):
            log_scale(ax, "y", minor=True)  # the y axis only: set after minorticks_off, as it always was
        if risk == "two_worlds":
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        # y=1 where Matplotlib would put it anyway, given explicitly: it then skips searching, on every
        # draw, for tick labels above the axes that the title would have to clear (there are none).
        ax.set_title(
            f"({'ab'[risk == 'two_worlds']}) {_RISK_LABELS[risk].split(' ρ')[0]}, ε = {epsilon_text(epsilon)}",
            y=1.0,
        )
        ax.grid(axis="y", alpha=0.3)
    axes[1].legend(title="variable", fontsize="small", loc="best")
    return save_figure(fig, folder, stem, formats=formats)


def risk_by_proportion(
    summary: pd.DataFrame,
    query: str,
    folder: Path,
    stem: str = "figure2_risk_by_proportion",
    labels=None,
    formats: tuple[str, ...] = ("png", "svg"),
):
    """Figure 2 of Allmann et al.: risk against sample proportion for one query, a band (quartiles) and median per ε.

    One row per variable; many-worlds on the left, two-worlds on the right.
    """
    labels = labels or {}
    sub = summary[summary["query"] == query]
    variables = list(dict.fromkeys(sub["variable"]))
    epsilons = sorted(sub["epsilon"].unique())
    cmap = colormap("viridis")
    fig, axes = subplots(
        len(variables), 2, figsize=(10, 3.2 * len(variables)), squeeze=False, constrained_layout=True
    )
    for row, var in enumerate(variables):
        for col, risk in enumerate(("many_worlds", "two_worlds")):
            ax = axes[row, col]
            part = sub[(sub["variable"] == var) & (sub["risk"] == risk)]
            # Sorted by proportion once; each ε's line is then a mask over plain arrays, not a pandas query.
            part = part.sort_values("proportion", kind="stable")
            x, at_eps = part["proportion"].to_numpy(), part["epsilon"].to_numpy()
            q1, median, q3 = (part[c].to_numpy() for c in ("q1", "median", "q3"))
            for j, eps in enumerate(epsilons):
                line = np.isclose(at_eps, eps)
                colour = cmap(j / max(len(epsilons) - 1, 1))
                ax.fill_between(x[line], q1[line], q3[line], color=colour, alpha=0.25, lw=0)
                ax.plot(x[line], median[line], color=colour, lw=1.5, label=f"ε = {epsilon_text(eps)}")
            if _spans_decades(part["proportion"]):
                log_scale(ax, "x")
            if risk == "many_worlds" and _spans_decades(part[["q1", "q3", "median"]].to_numpy().ravel()):
                log_scale(ax, "y")
            ax.minorticks_off()  # minor ticks on log axes over many decades cost seconds to draw
            ax.set_xlabel("sample proportion (share of the variable's records)")
            ax.set_ylabel(_RISK_LABELS[risk])
            ax.set_title(
                f"{labels.get(var, var)}: {_RISK_LABELS[risk].split(' ρ')[0]}", fontsize="medium", y=1.0
            )
            ax.grid(alpha=0.3)
    fig.suptitle(f"Risk against sample proportion, {query} query: median (line) and quartiles (band) per ε")
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=len(epsilons), fontsize="small")
    return save_figure(fig, folder, stem, formats=formats)
