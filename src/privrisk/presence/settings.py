"""Deprecated: :mod:`privrisk.presence.run` (the one shape of a capability: its settings and its run in ``run.py``).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release;
``privrisk.presence.PresenceSettings`` and the other names of the package stay where they are, without one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.presence import run as _home
from privrisk.presence._moved import moved_names

if TYPE_CHECKING:
    from privrisk.presence.run import (
        DEMO_TITLE,
        PresenceRun,
        PresenceSettings,
        Steps,
        parse_levels,
        run_presence,
    )

__all__ = ["DEMO_TITLE", "PresenceRun", "PresenceSettings", "Steps", "parse_levels", "run_presence"]

__getattr__ = moved_names(__name__, _home)
