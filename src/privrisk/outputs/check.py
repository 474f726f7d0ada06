"""Deprecated: :mod:`privrisk.outputs.run` (the one shape of a capability: its settings, run and result in
``run.py``).

``OutputsSettings`` and ``check_frame`` are still read from here, ``check_outputs`` as ``run_outputs`` and
``OutputsResult`` as ``OutputsRun``, each with a :class:`DeprecationWarning`, for one release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.errors import renamed_attributes
from privrisk.outputs import run as _home

if TYPE_CHECKING:
    from privrisk.outputs.run import OutputsRun as OutputsResult
    from privrisk.outputs.run import OutputsSettings, check_frame
    from privrisk.outputs.run import run_outputs as check_outputs

__all__ = ["OutputsResult", "OutputsSettings", "check_frame", "check_outputs"]

_NEW = {"OutputsResult": "OutputsRun", "OutputsSettings": "OutputsSettings", "check_frame": "check_frame",
        "check_outputs": "run_outputs"}  # fmt: skip

__getattr__ = renamed_attributes(
    {"__name__": __name__, **{f"{_home.__name__}.{new}": getattr(_home, new) for new in _NEW.values()}},
    {old: f"{_home.__name__}.{new}" for old, new in _NEW.items()},
)
