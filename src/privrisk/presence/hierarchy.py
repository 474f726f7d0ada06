"""Deprecated: :mod:`privrisk.generalisation.hierarchy` (below presence and microdata, which both use it).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from privrisk.presence._moved import moved_names

__getattr__ = moved_names(__name__, "privrisk.generalisation.hierarchy")
