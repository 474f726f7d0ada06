"""Figures of the intruder's audit: analogues of Figures 1a/1b and 2a/2b of Sarathy and Muralidhar (2009)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from privrisk._format import number
from privrisk.audit.intruder import AuditResult
from privrisk.reports.plots._base import pyplot, save_figure


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


def _two_views(ax, res: AuditResult, b_other: float, label_other: str, title: str) -> None:
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


def _intruder_laplace(ax, res: AuditResult) -> None:
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


def _sampling_view(ax, res: AuditResult) -> None:
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


def audit_figures(res: AuditResult, folder: Path) -> list[dict[str, str]]:
    """Write the four figures as PNG and SVG into ``folder``; return their manifest entries."""
    plt = pyplot()
    missing = f"without record {res.star}"
    specs = [
        (
            "fig1a_provider",
            "Figure 1a: the provider's check, both answers with the scale b_n",
            lambda ax: _two_views(
                ax, res, res.b_n, f"answer {missing}, scale b_n", "Evaluation based on b_n (provider)"
            ),
        ),
        (
            "fig1b_intruder",
            "Figure 1b: the intruder's view, the answer without the record with its own scale b_(n−1)",
            lambda ax: _two_views(
                ax,
                res,
                res.b_star,
                f"answer {missing}, scale b_(n−1) = {number(res.b_star, 3)}",
                "Evaluation based on b_(n−1) (intruder)",
            ),
        ),
        (
            "fig2a_laplace",
            "Figure 2a: the answer against the Laplace distribution the intruder expects without the record",
            lambda ax: _intruder_laplace(ax, res),
        ),
    ]
    if res.hypothesis["applies"]:
        specs.append(
            (
                "fig2b_sampling",
                "Figure 2b: the answer against the sampling distribution of the statistic (the z-test)",
                lambda ax: _sampling_view(ax, res),
            )
        )
    entries = []
    for stem, title, draw in specs:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        try:
            draw(ax)
        except Exception:
            plt.close(fig)
            raise
        save_figure(fig, folder, stem, dpi=120, tight=True)
        entries.append({"title": title, "svg": f"{stem}.svg", "png": f"{stem}.png"})
    return entries
