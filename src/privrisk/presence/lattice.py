"""Deprecated: the lattice and its search are :mod:`privrisk.generalisation.lattice`; δ-presence's roll-ups of
both histograms to a node are :mod:`privrisk.presence.rollup`.

Every name of both is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from privrisk.presence._moved import moved_names

__getattr__ = moved_names(__name__, "privrisk.generalisation.lattice", "privrisk.presence.rollup")
