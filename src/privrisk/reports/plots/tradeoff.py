"""The trade-off curve of a guarantee: β(α) of f-DP beside the worst case and the diagonal of random guessing.

A membership test that flags a person as "in the data" with false-positive rate α misses them with probability at
least β(α) (Dong, Roth and Su, 2022, Definition 2.1). The lower the curve, the better the best attacker; the
diagonal β = 1 − α is an attacker who learns nothing from the release (random guessing, perfect privacy), and the
corner (0, 0) one who is never wrong (no privacy at all).
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privrisk.errors import PrivriskError
from privrisk.io.files import atomic_path
from privrisk.reports.plots._base import axes_or_figure, save_figure

__all__ = ["FORMATS", "alpha_grid", "tradeoff_figure", "tradeoff_figures"]

#: The file formats the figure is written in, chosen by the file name's extension.
FORMATS = ("svg", "png")


def tradeoff_figure(
    curves: Sequence[tuple[str, ArrayLike, ArrayLike]],
    path: str | os.PathLike[str],
    *,
    title: str = "Trade-off curve: the best membership test",
) -> Path:
    """Draw trade-off curves β(α) with the diagonal β = 1 − α and write ``path`` (SVG or PNG) atomically.

    Args:
        curves: ``(label, alpha, beta)`` per curve, drawn in order (the first solid, the others dashed).
        path: the file to write; its extension (``.svg`` or ``.png``) chooses the format.
        title: the figure's title.

    Returns:
        The path written. The bytes are the same for the same curves (no dates, no random ids).

    Example:
        >>> import tempfile, pathlib
        >>> a = np.linspace(0, 1, 101)
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "curve.svg"
        >>> tradeoff_figure([("ε = 1", a, np.maximum.reduce([0 * a, 1 - np.e * a, (1 - a) / np.e]))], target).name
        'curve.svg'
    """
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise PrivriskError(f"out: give a file ending in .svg or .png, got {target.name!r}", param="out")
    fig = _draw(curves, title)
    # Both formats are drawn into a private folder beside the target; the one asked for is renamed into place.
    with atomic_path(target) as tmp, tempfile.TemporaryDirectory(dir=target.parent) as folder:
        paths = save_figure(fig, folder, "tradeoff", dpi=150, tight=True)
        os.replace(paths[fmt], tmp)
    return target


def tradeoff_figures(
    curves: Sequence[tuple[str, ArrayLike, ArrayLike]],
    folder: str | os.PathLike[str],
    stem: str,
    *,
    title: str = "Trade-off curve: the best membership test",
) -> dict[str, str]:
    """The same figure as :func:`tradeoff_figure`, written as ``folder/stem.png`` and ``.svg`` (for a report
    folder written whole by :func:`privrisk.io.files.atomic_dir`); returns the file names by format."""
    paths = save_figure(_draw(curves, title), folder, stem, dpi=150, tight=True)
    return {"svg": paths["svg"].name, "png": paths["png"].name}


def _draw(curves: Sequence[tuple[str, ArrayLike, ArrayLike]], title: str) -> Any:
    return plot_tradeoff(curves, title=title).figure


def plot_tradeoff(
    curves: Sequence[tuple[str, ArrayLike, ArrayLike]],
    *,
    title: str = "Trade-off curve: the best membership test",
    ax: Any = None,
) -> Any:
    """The trade-off curves β(α) (label, α, β), the diagonal of guessing and the corner of no privacy, in ``ax``."""
    _, ax = axes_or_figure(ax, figsize=(5.2, 5.2))
    diagonal = np.linspace(0.0, 1.0, 2)
    ax.plot(
        diagonal,
        1 - diagonal,
        color="0.55",
        lw=1,
        ls=":",
        label="β = 1 − α: random guessing (no privacy loss)",
    )
    # The other extreme: a test that is never wrong, the corner of no privacy at all.
    ax.plot([0.0], [0.0], "o", color="0.3", ms=5, clip_on=False, label="α = β = 0: no privacy (never wrong)")
    for i, (label, alpha, beta) in enumerate(curves):
        a = np.asarray(alpha, dtype=float)
        b = np.clip(np.asarray(beta, dtype=float), 0.0, 1.0)
        ax.plot(a, b, color=f"C{i}", lw=1.8 if i == 0 else 1.4, ls="-" if i == 0 else "--", label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("false-positive rate α (people wrongly called members)")
    ax.set_ylabel("false-negative rate β (members missed)")
    # Titles and labels name the guarantee in full, so they wrap rather than run off the figure.
    ax.set_title(textwrap.fill(title, 48), fontsize="medium")
    ax.legend(
        fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False,
        handlelength=2.5, labels=[textwrap.fill(t, 60) for t in ax.get_legend_handles_labels()[1]],
    )  # fmt: skip
    return ax


def alpha_grid() -> np.ndarray:
    """The false-positive rates a curve is drawn at: dense near 0, where the curves of strong attackers bend.

    Example:
        >>> a = alpha_grid()
        >>> float(a[0]), float(a[-1]), bool(np.all(np.diff(a) > 0))
        (0.0, 1.0, True)
    """
    return np.concatenate([[0.0], np.geomspace(1e-6, 1e-2, 60, endpoint=False), np.linspace(1e-2, 1.0, 240)])
