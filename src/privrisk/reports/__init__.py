"""Pages and figures: one HTML skeleton, manifests, the explainer page for data subjects, and the figure base.

- :mod:`privrisk.reports.html`: :func:`html_page` (the one skeleton every page goes through: shared style, a
  content policy that forbids every fetch), :func:`sanitise_svg` (figures made safe to inline) and
  :func:`report_page` (one page from many result folders);
- :mod:`privrisk.reports.manifest`: the ``manifest.json`` beside every folder of results;
- :mod:`privrisk.reports.explain`: the page that explains ε to the people in the data (Mehner et al.), in English
  and German, with its words, style and script as package data in ``privrisk/reports/assets``;
- :mod:`privrisk.reports.plots`: the figures of each capability, all saved through one base (PNG and SVG).
"""

from __future__ import annotations

from privrisk.reports.explain import (
    LANGUAGES,
    explainer_document,
    explainer_numbers,
    explainer_page,
    explainer_paragraph,
)
from privrisk.reports.html import (
    html_page,
    inline_svg,
    report_page,
    sanitise_svg,
    sanitize_svg,  # noqa: F401 - the old spelling, kept one release (not in __all__)
)
from privrisk.reports.manifest import read_manifest, write_manifest

__all__ = [
    "LANGUAGES",
    "explainer_document",
    "explainer_numbers",
    "explainer_page",
    "explainer_paragraph",
    "html_page",
    "inline_svg",
    "read_manifest",
    "report_page",
    "sanitise_svg",
    "write_manifest",
]
