"""Queries, data universes and neighbourhoods; exact global and local sensitivity (Allmann et al. 2024, §2.1, §3.2).

Conventions (docs/architecture.md): neighbours are unbounded by default (add or remove one record, never leaving
an empty database); ``neighbours="bounded"`` replaces one record and keeps the size n. The median of an even count is the
mean of the two middle values; the variance is the population variance (ddof = 0) and ``std`` its square root.

The modules, each named after what it computes:

- :mod:`~privrisk.sensitivity.queries`: the queries (:func:`evaluate`), the neighbours and the methods;
- :mod:`~privrisk.sensitivity.universe`: :class:`Universe`, :func:`as_universe`, :func:`choose_universe`;
- :mod:`~privrisk.sensitivity.global_`: Δf, :func:`global_sensitivity` (closed forms);
- :mod:`~privrisk.sensitivity.local`: Δv, :func:`local_sensitivity` (exact), and :func:`sensitivity_ratio`;
- :mod:`~privrisk.sensitivity.run`: the one way in of ``privrisk sensitivity`` and the app's page:
  :class:`SensitivitySettings` (the data inside), :func:`run_sensitivity`, :class:`SensitivityRun`. It stands a
  floor above the maths (it reads files and writes report folders); its names are read from here only when
  asked for, so the maths never loads it.

Example:
    >>> u = Universe.from_values([1, 3, 10, 17, 675])        # Allmann et al., Table 1
    >>> global_sensitivity("mean", u), round(local_sensitivity("mean", [1, 3, 10, 17], u), 2)
    (337.0, 133.45)
"""

from __future__ import annotations

from typing import Any

from privrisk.sensitivity.global_ import global_sensitivity
from privrisk.sensitivity.local import local_sensitivity, sensitivity_ratio
from privrisk.sensitivity.queries import (
    METHODS,
    NEIGHBOURS,
    QUERIES,
    Neighbours,
    Query,
    SensitivityMethod,
    evaluate,
)
from privrisk.sensitivity.universe import Universe, as_universe, choose_universe

__all__ = [
    "METHODS",
    "NEIGHBOURS",
    "QUERIES",
    "Neighbours",
    "Query",
    "SensitivityMethod",
    "SensitivityRun",
    "SensitivitySettings",
    "Universe",
    "as_universe",
    "choose_universe",
    "evaluate",
    "global_sensitivity",
    "local_sensitivity",
    "run_sensitivity",
    "sensitivity_ratio",
]

_RUN_NAMES = {"SensitivityRun": "SensitivityRun", "SensitivitySettings": "SensitivitySettings",
              "run_sensitivity": "run_sensitivity_either"}  # fmt: skip


def __getattr__(name: str) -> Any:
    # The run's names, loaded when first asked for. ``run_sensitivity`` here also takes its old call
    # ``run_sensitivity(values, settings, column=…)`` (one release, with a DeprecationWarning).
    if name not in _RUN_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from privrisk.sensitivity import run

    value = getattr(run, _RUN_NAMES[name])
    globals()[name] = value
    return value
