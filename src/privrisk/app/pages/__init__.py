"""The pages of ``privrisk app``, in the order of the navigation bar: one module per capability.

Each page module defines ``ID`` (the ``?page=`` value), ``TITLE``, ``page_ui(id)`` (a ``@module.ui`` function)
and ``page_server(id, *, max_upload)`` (a ``@module.server`` function that reads its presets from the URL with
:func:`privrisk.app._shared.query_params`). Adding a page is one line below.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["PAGES", "PAGE_MODULES"]

PAGE_MODULES = (
    "risk",
    "sensitivity",
    "study",
    "presence",
    "microdata",
    "audit",
    "empirical",
    "synthetic",
    "release",
    "outputs",
    "explain",
)

PAGES: list[ModuleType] = [importlib.import_module(f"{__name__}.{name}") for name in PAGE_MODULES]
