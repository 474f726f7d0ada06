"""The old module paths of presence's names that moved, kept one release: each name read there warns once asked.

``privrisk.presence.hierarchy``, ``lattice`` and ``kmap`` moved below presence and microdata
(:mod:`privrisk.generalisation`, and :mod:`privrisk.presence.rollup`, :mod:`privrisk.presence.estimate`);
``privrisk.presence.settings`` is :mod:`privrisk.presence.run`. A shim module is its docstring and one line,
``__getattr__ = moved_names(__name__, "new.module", …)``: what it gives is what its new homes hold, listed once.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

from privrisk.errors import deprecation_message

__all__ = ["moved_names"]


def moved_names(old: str, *homes: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the old module ``old``: a name of the first of the modules ``homes`` that has
    it, with a :class:`DeprecationWarning` that names its new module (list a name's home before the modules that
    import it). The homes are imported when a name is first asked for, so importing the old module costs nothing.

    Example:
        >>> import math, warnings
        >>> getter = moved_names("privrisk.old", "math")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     getter("pi") == math.pi
        True
        >>> str(caught[0].message)
        'privrisk.old.pi is deprecated and will be removed in the next release; use math.pi'
    """

    def __getattr__(name: str) -> Any:
        for home in map(importlib.import_module, homes):
            if not name.startswith("__") and hasattr(home, name):
                new = f"{home.__name__}.{name}"
                warnings.warn(deprecation_message(f"{old}.{name}", new), DeprecationWarning, stacklevel=2)
                return getattr(home, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return __getattr__
