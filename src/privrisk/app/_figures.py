"""Small inline SVG figures of the app, drawn from numbers the library computed (fast: no matplotlib per move).

The icon array is the explainer page's (Mehner et al., §3.2: 100 guesses, those right by guessing, those right
because of the answer, those wrong), drawn from the counts of :func:`privrisk.reports.explain.explainer_numbers`.
The curve is the risk against ε of :func:`privrisk.risk.many_worlds` and :func:`privrisk.risk.global_risk`.

Example:
    >>> svg = icon_array(50, 25, label="75 of 100")
    >>> svg.count('class="person'), 'aria-label="75 of 100"' in svg
    (100, True)
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

__all__ = ["COLOURS", "icon_array", "line_chart"]

COLOURS = {"guess": "#1f5f99", "extra": "#d9822b", "wrong": "#ffffff"}


def icon_array(guess: int, extra: int, *, label: str, element_id: str = "icons", total: int = 100) -> str:
    """The 10 × 10 people of the explainer page: ``guess`` right by guessing, ``extra`` right from the answer."""
    cells = []
    for i in range(total):
        x, y = (i % 10) * 24 + 12, (i // 10) * 30
        kind = "guess" if i < guess else "extra" if i < guess + extra else "wrong"
        stroke = ' stroke="#5f5f5f" stroke-width="1.5"' if kind == "wrong" else ""
        cells.append(
            f'<g class="person {kind}" fill="{COLOURS[kind]}"{stroke} transform="translate({x} {y})">'
            '<circle cx="0" cy="7" r="5"/><path d="M-8 27 v-6 a8 8 0 0 1 16 0 v6 z"/></g>'
        )
    return (
        f'<svg id="{element_id}" viewBox="0 0 240 300" role="img" aria-label="{html.escape(label)}" '
        f'style="max-width:14rem;width:100%" xmlns="http://www.w3.org/2000/svg">{"".join(cells)}</svg>'
    )


def line_chart(
    x: np.ndarray,
    series: Sequence[tuple[str, np.ndarray, str]],
    *,
    marker: float | None = None,
    x_label: str = "ε",
    y_label: str = "risk",
    element_id: str = "curve",
    y_range: tuple[float, float] = (0.0, 1.0),
) -> str:
    """Lines ``(name, y, colour)`` over ``x`` with axes, a legend and a vertical marker at ``marker``.

    Example:
        >>> svg = line_chart(np.linspace(0, 5, 11), [("P", np.linspace(0.5, 1, 11), "#000")], marker=1.0)
        >>> svg.startswith("<svg") and "<polyline" in svg and 'class="marker"' in svg
        True
    """
    width, height, left, right, top, bottom = 560, 300, 48, 16, 14, 40
    x0, x1 = float(np.min(x)), float(np.max(x))
    y0, y1 = y_range
    span_x = (x1 - x0) or 1.0

    def px(value: float) -> float:
        return left + (value - x0) / span_x * (width - left - right)

    def py(value: float) -> float:
        return top + (1 - (value - y0) / ((y1 - y0) or 1.0)) * (height - top - bottom)

    parts = [
        f'<svg id="{element_id}" viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(y_label)} '
        f'against {html.escape(x_label)}" style="width:100%;max-width:40rem" xmlns="http://www.w3.org/2000/svg" '
        'font-family="sans-serif" font-size="12">'
    ]
    for k in range(6):
        value = y0 + (y1 - y0) * k / 5
        y = py(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e2e2"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:.1f}</text>')
    for tick in np.linspace(x0, x1, 6):
        xp = px(float(tick))
        parts.append(
            f'<text x="{xp:.1f}" y="{height - bottom + 16}" text-anchor="middle">{float(tick):.3g}</text>'
        )
    parts.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle">{html.escape(x_label)}</text>'
    )
    parts.append(
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#444"/>'
        f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="#444"/>'
    )
    for i, (name, values, colour) in enumerate(series):
        points = " ".join(f"{px(float(a)):.1f},{py(float(b)):.1f}" for a, b in zip(x, values, strict=True))
        parts.append(
            f'<polyline class="series" data-name="{html.escape(name)}" fill="none" stroke="{colour}" '
            f'stroke-width="2" points="{points}"/>'
        )
        ly = top + 14 + 16 * i
        parts.append(
            f'<line x1="{width - right - 150}" x2="{width - right - 130}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"/><text x="{width - right - 125}" y="{ly}">{html.escape(name)}</text>'
        )
    if marker is not None and x0 <= marker <= x1:
        xm = px(marker)
        parts.append(
            f'<line class="marker" x1="{xm:.1f}" x2="{xm:.1f}" y1="{top}" y2="{height - bottom}" '
            'stroke="#b00020" stroke-dasharray="4 3"/>'
        )
    parts.append("</svg>")
    return "".join(parts)
