"""The ``privrisk presence`` command line the app's page Presence shows: the same result from the shell, with the
hierarchy editor's choices as ``-H`` options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privrisk.app._shared import command_line
from privrisk.app.pages._hierarchy_editor import hierarchy_options

__all__ = ["presence_command"]


def presence_command(
    values: Mapping[str, Any], *, source: str, data_name: str | None, pop_name: str | None
) -> str:
    """The ``privrisk presence`` command that gives the page's result (``-H`` for the editor's hierarchies)."""
    hier = hierarchy_options(values.get("hierarchies") or {})
    if source == "demo":
        from privrisk.datasets.tv16 import TARGETS

        options: dict[str, Any] = {"demo": True}
        if str(values.get("delta_max") or "").strip() != f"{TARGETS['delta_max']:g}":
            options["delta_max"] = values.get("delta_max")
        if str(values.get("kmap") or "").strip() != str(TARGETS["kmap"]):
            options["kmap"] = values.get("kmap")
        options |= {
            "delta_min": values.get("delta_min"),
            "k": values.get("k"),
            "levels": values.get("levels"),
        }
        if float(values.get("suppression") or 0) not in (0.0, TARGETS["suppression"]):
            options["suppression"] = values.get("suppression")
        if values.get("loss", "precision") != "precision":
            options["loss"] = values.get("loss")
        options["out"] = "presence/"
        return command_line("presence", **options) + hier
    head = command_line(
        "presence",
        file=data_name or "DATA",
        population=pop_name,
        population_count=values.get("population_count") or None,
        qi=",".join(values.get("qi") or []) or None,
    )
    more: dict[str, Any] = {
        "levels": values.get("levels"),
        "delta_max": values.get("delta_max"),
        "delta_min": values.get("delta_min"),
        "k": values.get("k"),
        "kmap": values.get("kmap"),
        "search": bool(values.get("search")),
    }
    if values.get("search") and float(values.get("suppression") or 0):
        more["suppression"] = values.get("suppression")
    if values.get("search") and values.get("loss", "precision") != "precision":
        more["loss"] = values.get("loss")
    more["allow_inconsistent"] = bool(values.get("allow_inconsistent"))
    if pop_name is None:
        more |= {
            "population_size": values.get("population_size"),
            "sampling_fraction": values.get("sampling_fraction"),
        }
        if values.get("estimator", "poisson") != "poisson":
            more["estimator"] = values.get("estimator")
        alpha = values.get("alpha")
        if alpha is not None and alpha != "" and float(alpha) != 0.05:
            more["alpha"] = alpha
    more["out"] = "presence/"
    return head + hier + command_line("presence", **more)[len("privrisk presence") :]
