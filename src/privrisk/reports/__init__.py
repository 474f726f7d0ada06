"""Pages and figures: one HTML skeleton, manifests, the explainer page for data subjects, and the figure base.

- :mod:`privrisk.reports.html`: :func:`html_page` (the one skeleton every page goes through: shared style, a
  content policy that forbids every fetch), :func:`sanitise_svg` (figures made safe to inline) and
  :func:`report_page` (one page from many result folders);
- :mod:`privrisk.reports.manifest`: the ``manifest.json`` beside every folder of results;
- :mod:`privrisk.reports.explain`: the page that explains ε to the people in the data (Mehner et al.), in English
  and German, with its words, style and script as package data in ``privrisk/reports/assets``;
- :mod:`privrisk.reports.plots`: the figures of each capability, all saved through one base (PNG and SVG);
- :mod:`privrisk.reports.run`: the one way in of ``privrisk explain``, ``report`` and ``tradeoff`` (settings, run
  functions, results); the settings and run functions also read from here (loaded when first asked for).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privrisk.errors import lazy_attribute
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

if TYPE_CHECKING:
    from privrisk.reports.run import (
        ExplainSettings,
        ReportSettings,
        TradeoffSettings,
        run_explain,
        run_report,
        run_tradeoff,
    )

#: The one way in of the pages and the trade-off figure (:mod:`privrisk.reports.run`, with their results) read
#: from here; loaded when first asked for (the run reads the accountant, which the skeleton and figures do not need).
_RUN = ("ExplainSettings", "ReportSettings", "TradeoffSettings", "run_explain", "run_report", "run_tradeoff")

__all__ = [
    "LANGUAGES",
    "ExplainSettings",
    "ReportSettings",
    "TradeoffSettings",
    "explainer_document",
    "explainer_numbers",
    "explainer_page",
    "explainer_paragraph",
    "html_page",
    "inline_svg",
    "read_manifest",
    "report_page",
    "run_explain",
    "run_report",
    "run_tradeoff",
    "sanitise_svg",
    "write_manifest",
]


def __getattr__(name: str) -> Any:
    return lazy_attribute(globals(), dict.fromkeys(_RUN, "privrisk.reports.run"), name)
