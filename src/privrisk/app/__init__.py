"""``privrisk app``: the whole tool in the browser, for data stewards who do not use a terminal.

A local Shiny app with one page per capability; the numbers come from the same library functions as the command
line's. Start it with ``privrisk app`` or :func:`serve` (its keywords checked as one :class:`AppSettings`);
:func:`build_app` gives the ASGI application.
"""

from __future__ import annotations

from privrisk._validation import parse_size
from privrisk.app.server import build_app, serve
from privrisk.app.settings import AppSettings

__all__ = ["AppSettings", "build_app", "parse_size", "serve"]
