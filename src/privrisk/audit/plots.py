"""Figures of the intruder's audit: analogues of Figures 1a/1b and 2a/2b of Sarathy and Muralidhar (2009).

Each figure is drawn by a ``plot_*`` function into the axes it is given (``ax=``; a new figure on an Agg canvas
otherwise), and :func:`audit_figures` writes the four as PNG and SVG through the one figure base
(:func:`privrisk.reports.plots.save_figure`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk._format import number
from privrisk.audit.intruder import AuditResult
from privrisk.reports.plots import axes_or_figure, save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_SIZE: dict[str, Any] = {"figsize": (7, 4.2)}


def _laplace_pdf(x: np.ndarray, mu: float, b: float) -> np.ndarray:
    if b <= 0:
        return np.zeros_like(x)
    return np.exp(-np.abs(x - mu) / b) / (2 * b)


def _normal_pdf(x: np.ndarray, mu: float, sd: float) -> np.ndarray:
    return np.exp(-0.5 * ((x - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))


def _grid(res: AuditResult, scales: list[float]) -> np.ndarray:
    centres = [res.f_n, res.f_star, res.response]
    width = 6 * max([b for b in scales if b > 0] or [abs(res.f_n - res.f_star) or 1.0])
    lo, hi = min(centres) - width, max(centres) + width
    # Dense points around each peak as well: a narrow Laplace density would fall between coarse grid points.
    parts = [np.linspace(lo, hi, 1201)]
    for centre, b in ((res.f_n, res.b_n), (res.f_star, res.b_star), (res.f_star, res.b_n)):
        if b > 0:
            parts.append(np.linspace(centre - 8 * b, centre + 8 * b, 401))
    x = np.concatenate(parts)
    return np.unique(x[(x >= lo) & (x <= hi)])


def plot_provider(res: AuditResult, *, ax: Axes | None = None) -> Axes:
    """Figure 1a: the provider's check, the answers with and without the record, both with the scale b_n.

    Example:
        >>> from privrisk.audit import audit_data_dependent
        >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
        >>> plot_provider(res).get_title()
        'Evaluation based on b_n (provider)'
    """
    label = f"answer without record {res.star}, scale b_n"
    return _two_views(ax, res, res.b_n, label, "Evaluation based on b_n (provider)")


def plot_intruder(res: AuditResult, *, ax: Axes | None = None) -> Axes:
    """Figure 1b: the intruder's view, the answer without the record with its own scale b_(n−1)."""
    label = f"answer without record {res.star}, scale b_(n−1) = {number(res.b_star, 3)}"
    return _two_views(ax, res, res.b_star, label, "Evaluation based on b_(n−1) (intruder)")


def _two_views(ax: Axes | None, res: AuditResult, b_other: float, label_other: str, title: str) -> Axes:
    _, ax = axes_or_figure(ax, **_SIZE)
    x = _grid(res, [res.b_n, b_other])
    ax.plot(
        x,
        _laplace_pdf(x, res.f_n, res.b_n),
        label=f"answer from all {res.n} records (scale {number(res.b_n, 3)})",
    )
    ax.plot(x, _laplace_pdf(x, res.f_star, b_other), label=label_other)
    ax.axvline(res.response, color="black", linestyle="--", label=f"answer seen: {res.response:.4g}")
    ax.set_xlabel(f"answer to the {res.query} query")
    ax.set_ylabel("probability density of the answer")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax


def plot_laplace(res: AuditResult, *, ax: Axes | None = None) -> Axes:
    """Figure 2a: the answer against the Laplace distribution the intruder expects without the record."""
    _, ax = axes_or_figure(ax, **_SIZE)
    x = _grid(res, [res.b_star])
    ax.plot(x, _laplace_pdf(x, res.f_star, res.b_star), label=f"answer without record {res.star}")
    ax.axvline(
        res.quantile,
        color="grey",
        linestyle=":",
        label=f"{100 * (1 - res.alpha):.10g} % quantile: {res.quantile:.6g}",
    )
    ax.axvline(res.response, color="black", linestyle="--", label=f"answer seen: {res.response:.4g}")
    ax.set_xlabel(f"answer to the {res.query} query")
    ax.set_ylabel("probability density of the answer")
    ax.set_title("Evaluation based on the Laplace distribution (intruder)")
    ax.legend(fontsize="small")
    return ax


def plot_sampling(res: AuditResult, *, ax: Axes | None = None) -> Axes:
    """Figure 2b: the answer against the sampling distribution of the statistic (the intruder's z-test)."""
    _, ax = axes_or_figure(ax, **_SIZE)
    h = res.hypothesis
    centre, se = h["centre"], h["se"]
    lo = min(centre - 5 * se, res.response - se)
    hi = max(centre + 5 * se, res.response + se)
    x = np.linspace(lo, hi, 1201)
    ax.plot(x, _normal_pdf(x, centre, se), label=f"sampling distribution from the other {res.n - 1} records")
    ax.axvline(res.response, color="black", linestyle="--", label=f"answer seen: {res.response:.4g}")
    ax.set_xlabel(f"{res.query} of the records")
    ax.set_ylabel("probability density")
    ax.set_title(f"Intruder's z-test: z = {number(h['z'], 3)}, p = {number(h['p_value'], 3)}")
    ax.legend(fontsize="small")
    return ax


def audit_figures(
    res: AuditResult, folder: Path, *, progress: Callable[[float, str], None] | None = None
) -> list[dict[str, str]]:
    """Write the four figures as PNG and SVG into ``folder``; return their manifest entries.

    ``progress(fraction, text)`` is called before each figure, from 0.3 to 1 (what the app's bar shows).
    """
    specs: list[tuple[str, str, Any]] = [
        ("fig1a_provider", "Figure 1a: the provider's check, both answers with the scale b_n", plot_provider),
        (
            "fig1b_intruder",
            "Figure 1b: the intruder's view, the answer without the record with its own scale b_(n−1)",
            plot_intruder,
        ),
        (
            "fig2a_laplace",
            "Figure 2a: the answer against the Laplace distribution the intruder expects without the record",
            plot_laplace,
        ),
    ]
    if res.hypothesis["applies"]:
        specs.append(
            (
                "fig2b_sampling",
                "Figure 2b: the answer against the sampling distribution of the statistic (the z-test)",
                plot_sampling,
            )
        )
    entries = []
    for i, (stem, title, plot) in enumerate(specs):
        if progress is not None:
            progress(0.3 + 0.7 * i / len(specs), f"Drawing figure {i + 1} of {len(specs)}")
        ax = plot(res)
        save_figure(ax.figure, folder, stem, dpi=120, tight=True)
        entries.append({"title": title, "svg": f"{stem}.svg", "png": f"{stem}.png"})
    return entries
