"""Deprecated: :mod:`privrisk.presence.run` (the one shape of a capability: its settings and its run in ``run.py``).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release;
``privrisk.presence.PresenceSettings`` and the other names of the package stay where they are, without one.
"""

from privrisk.presence._moved import moved_names

__getattr__ = moved_names(__name__, "privrisk.presence.run")
