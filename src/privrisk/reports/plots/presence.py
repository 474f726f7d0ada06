"""The δ-presence figure: how many research records sit in classes of each δ, before and after the search."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from privrisk.reports.plots._base import pyplot, save_figure


def delta_figure(folder: Path, before, after=None) -> dict[str, str]:
    """Write ``delta.png`` and ``delta.svg`` into ``folder``; return the manifest entry."""
    plt = pyplot()
    bins = np.linspace(0, 1, 21)
    fig, ax = plt.subplots(figsize=(7, 4))
    for result, label, colour in ((before, "measured", "#c0392b"), (after, "after the search", "#2471a3")):
        if result is None:
            continue
        c = result.classes
        c = c[~c["suppressed"]]
        ax.hist(c["delta"], bins=bins, weights=c["dataset_count"], alpha=0.6, label=label, color=colour)
    ax.set_xlabel("δ of the record's class (share of the population class that is in the research subset)")
    ax.set_ylabel("research records")
    ax.set_title("How sure an attacker can be that a person is in the research subset")
    ax.legend()
    save_figure(fig, folder, "delta", dpi=120, tight=True)
    return {"title": "Research records by the δ of their class", "svg": "delta.svg", "png": "delta.png"}
