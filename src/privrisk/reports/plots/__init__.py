"""The figures of each capability (study, study_attack, attack, audit, empirical, presence, release).

Every module draws with :func:`pyplot` (the Agg backend) and saves with :func:`save_figure` (layout once, PNG and
SVG without dates or random ids, the figure closed), both from :mod:`privrisk.reports.plots._base`.
"""

from __future__ import annotations

from privrisk.reports.plots._base import pyplot, save_figure

__all__ = ["pyplot", "save_figure"]
