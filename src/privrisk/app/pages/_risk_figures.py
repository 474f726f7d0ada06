"""The Risk page's figures: the explainer page's icon array for ε (100 attempts: right by guessing, right because
of the answer, wrong) and the risks against ε."""

from __future__ import annotations

from typing import Any

import numpy as np
from shiny import ui

from privrisk._format import number as number_text
from privrisk.accounting.risk_report import RiskRun
from privrisk.app._figures import icon_array, line_chart
from privrisk.reports.explain import explainer_numbers

__all__ = ["curve_ui", "icons_ui"]

_EXPLAIN_LIMIT = 1e4  # the explainer's icon array refuses larger ε


def icons_ui(v: dict[str, Any]) -> Any:
    """The icon array of the page's ε (``v``: the page's numbers), with its counts in words."""
    if v["epsilon"] > _EXPLAIN_LIMIT:
        return ui.p("The attacker is always right at this ε.")
    shown = explainer_numbers(v["epsilon"])
    guess, extra, wrong = (int(shown[k]) for k in ("icons_guess", "icons_extra", "icons_wrong"))
    label = f"{shown['risk']} of {shown['risk_base']} attempts right; {shown['guess']} by guessing alone"
    return ui.TagList(
        ui.HTML(icon_array(guess, extra, label=label, element_id="risk-icon-array")),
        ui.p(
            ui.span(f"{guess} right by guessing, "),
            ui.span(f"{extra} right because of the answer, ", style="color:#b35f00"),
            ui.span(f"{wrong} wrong."),
            class_="small",
        ),
        ui.p(
            f"The attacker is right {shown['risk']} times in {shown['risk_base']} (global risk ρ_gl).",
            class_="small",
        ),
    )


def curve_ui(v: dict[str, Any], run: RiskRun) -> Any:
    """ρ_mw and ρ_gl against ε (and the belief for a prior other than ½), ε marked."""
    top = max(5.0, min(2 * v["epsilon"], 50.0))
    grid = np.linspace(0.0, top, 201)
    lines = run.curves(grid)
    series = [
        (f"ρ_mw, n = {v['n']:,}", lines["many_worlds"], "#1f5f99"),
        ("global risk ρ_gl", lines["global_risk"], "#d9822b"),
    ]
    if v["prior"] not in (0.5,) and "posterior" in lines:
        series.append((f"belief, prior {number_text(v['prior'])}", lines["posterior"], "#5b8c3a"))
    return ui.HTML(line_chart(grid, series, marker=v["epsilon"], element_id="risk-curve-svg"))
