"""Deprecated: the models of k-map and population uniqueness are :mod:`privrisk.generalisation.kmap` and
:mod:`privrisk.generalisation.uniqueness`; the estimate of a dataset is :mod:`privrisk.presence.estimate`.

Every name of them is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from privrisk.presence._moved import moved_names

__getattr__ = moved_names(
    __name__,
    "privrisk.generalisation.kmap",
    "privrisk.generalisation.uniqueness",
    "privrisk.presence.estimate",
)
