"""Deprecated: :mod:`privrisk.study.run` (the one shape of a capability: its settings and its run in ``run.py``)
and :mod:`privrisk.study.variables` (:func:`read_variables`).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release;
``privrisk.study.StudySettings`` and the other names of the package stay where they are, without one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.errors import renamed_attributes
from privrisk.study import run as _run
from privrisk.study import variables as _variables

if TYPE_CHECKING:
    from privrisk.study.run import StudySettings, figure_choices, pick_epsilon
    from privrisk.study.variables import read_variables

__all__ = ["StudySettings", "figure_choices", "pick_epsilon", "read_variables"]

_HOMES = {name: _variables if name == "read_variables" else _run for name in __all__}
__getattr__ = renamed_attributes(
    {
        "__name__": __name__,
        **{f"{home.__name__}.{name}": getattr(home, name) for name, home in _HOMES.items()},
    },
    {name: f"{home.__name__}.{name}" for name, home in _HOMES.items()},
)
