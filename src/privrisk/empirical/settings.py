"""Deprecated: :mod:`privrisk.empirical.run` (the one shape of a capability: its settings and its run in
``run.py``).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release;
``privrisk.empirical.EmpiricalSettings`` and the other names of the package stay where they are, without one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.empirical import run as _home
from privrisk.errors import renamed_attributes

if TYPE_CHECKING:
    from privrisk.empirical.run import (
        CHICAGO,
        DEFAULT_EPSILONS,
        PRESETS,
        EmpiricalRun,
        EmpiricalSettings,
        Stages,
        Verdict,
        chance_words,
        run_empirical,
    )

__all__ = ["CHICAGO", "DEFAULT_EPSILONS", "PRESETS", "EmpiricalRun", "EmpiricalSettings", "Stages", "Verdict",
           "chance_words", "run_empirical"]  # fmt: skip

__getattr__ = renamed_attributes(
    {"__name__": __name__, **{f"{_home.__name__}.{name}": getattr(_home, name) for name in __all__}},
    {name: f"{_home.__name__}.{name}" for name in __all__},
)
