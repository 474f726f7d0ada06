"""One HTML skeleton, manifests, the explainer page for data subjects, and the figures."""

from __future__ import annotations

from privrisk.reports.explain import explainer_numbers, explainer_page
from privrisk.reports.html import report_page

__all__ = [
    "explainer_numbers",
    "explainer_page",
    "report_page",
]
