"""The figures of each capability (study, study_attack, attack, presence, release, tradeoff).

Every module draws with Matplotlib's object-oriented API on an Agg canvas (:func:`subplots`, no pyplot state) and
saves with :func:`save_figure` (layout once, PNG and SVG without dates or random ids), both from
:mod:`privrisk.reports.plots._base`. The audit's and empirical privacy's figures live with their capability
(:mod:`privrisk.audit.plots`, :mod:`privrisk.empirical.plots`).
"""

from __future__ import annotations

from privrisk.reports.plots._base import axes_or_figure, colormap, figure, log_scale, save_figure, subplots

__all__ = ["axes_or_figure", "colormap", "figure", "log_scale", "save_figure", "subplots"]
