"""Deprecated: :mod:`privrisk.audit.run` (the one shape of a capability: its settings and its run in ``run.py``).

Every name of it is still read from here, with a :class:`DeprecationWarning`, for one release;
``privrisk.audit.AuditSettings`` and the other names of the package stay where they are, without one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.audit import run as _home
from privrisk.errors import renamed_attributes

if TYPE_CHECKING:
    from privrisk.audit.run import DEFAULT_ALPHA, AuditRun, AuditSettings, Progress, Verdict, run_audit

__all__ = ["DEFAULT_ALPHA", "AuditRun", "AuditSettings", "Progress", "Verdict", "run_audit"]

__getattr__ = renamed_attributes(
    {"__name__": __name__, **{f"{_home.__name__}.{name}": getattr(_home, name) for name in __all__}},
    {name: f"{_home.__name__}.{name}" for name in __all__},
)
