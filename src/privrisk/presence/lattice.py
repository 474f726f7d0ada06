"""Deprecated: the lattice and its search are :mod:`privrisk.generalisation.lattice`; δ-presence's roll-ups of
both histograms to a node are :mod:`privrisk.presence.rollup`.

Every name of both is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.generalisation import lattice as _lattice
from privrisk.presence import rollup as _rollup
from privrisk.presence._moved import moved_names

if TYPE_CHECKING:
    from privrisk.generalisation.lattice import bisection_order, minimal
    from privrisk.presence.rollup import (
        CubeRollUp,
        Encoded,
        Rolled,
        cube_cells,
        cube_fits,
        roll_up,
        roll_up_present,
    )

__all__ = [
    "CubeRollUp",
    "Encoded",
    "Rolled",
    "bisection_order",
    "cube_cells",
    "cube_fits",
    "minimal",
    "roll_up",
    "roll_up_present",
]

__getattr__ = moved_names(__name__, _lattice, _rollup)
