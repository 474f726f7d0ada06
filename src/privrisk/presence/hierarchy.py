"""Deprecated: :mod:`privrisk.generalisation.hierarchy` (below presence and microdata, which both use it).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.generalisation import hierarchy as _home
from privrisk.presence._moved import moved_names

if TYPE_CHECKING:
    from privrisk.generalisation.hierarchy import (
        EDITOR_KINDS,
        MAX_TABLE_BYTES,
        TOP,
        Hierarchy,
        HierarchyChoice,
        build_hierarchy,
        parse_hierarchies,
        parse_hierarchy,
    )

__all__ = [
    "EDITOR_KINDS",
    "MAX_TABLE_BYTES",
    "TOP",
    "Hierarchy",
    "HierarchyChoice",
    "build_hierarchy",
    "parse_hierarchies",
    "parse_hierarchy",
]

__getattr__ = moved_names(__name__, _home)
