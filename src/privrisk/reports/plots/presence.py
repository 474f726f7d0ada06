"""The δ-presence figure: how many research records sit in classes of each δ, before and after the search."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk.reports.plots._base import axes_or_figure, save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def delta_figure(folder: Path, before: Any, after: Any = None) -> dict[str, str]:
    """Write ``delta.png`` and ``delta.svg`` (:func:`plot_delta`) into ``folder``; return the manifest entry."""
    save_figure(plot_delta(before, after).figure, folder, "delta", dpi=120, tight=True)
    return {"title": "Research records by the δ of their class", "svg": "delta.svg", "png": "delta.png"}


def plot_delta(before: Any, after: Any = None, *, ax: Axes | None = None) -> Axes:
    """Research records by the δ of their class, measured and (if given) after the search, drawn into ``ax``."""
    bins = np.linspace(0, 1, 21)
    _, ax = axes_or_figure(ax, figsize=(7, 4))
    for result, label, colour in ((before, "measured", "#c0392b"), (after, "after the search", "#2471a3")):
        if result is None:
            continue
        c = result.classes
        c = c[~c["suppressed"]]
        ax.hist(c["delta"], bins=bins, weights=c["dataset_count"], alpha=0.6, label=label, color=colour)  # type: ignore[arg-type]
    ax.set_xlabel("δ of the record's class (share of the population class that is in the research subset)")
    ax.set_ylabel("research records")
    ax.set_title("How sure an attacker can be that a person is in the research subset")
    ax.legend()
    return ax
