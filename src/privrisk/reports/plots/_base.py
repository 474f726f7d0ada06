"""The one figure base every plot module uses: the Agg backend, and saving a figure as PNG and SVG.

Figures are drawn off screen (Matplotlib's Agg backend, no display needed) and written twice, as PNG for slides
and as SVG for the HTML report, which inlines it (see :func:`privrisk.reports.html.sanitize_svg`). The files
carry no timestamps and no random ids, so the same run gives the same bytes, and SVG text stays text (searchable,
and smaller than glyph outlines).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["pyplot", "save_figure"]


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the Agg backend (no display, the same pixels everywhere).

    Example:
        >>> plt = pyplot()
        >>> plt.get_backend().lower()
        'agg'
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(
    fig: Any,
    folder: str | os.PathLike[str],
    stem: str,
    *,
    dpi: float = 150,
    tight: bool = False,
    rect: tuple[float, float, float, float] | None = None,
    bbox_inches: str | None = None,
) -> dict[str, Path]:
    """Lay ``fig`` out, write ``folder/stem.png`` and ``folder/stem.svg`` deterministically, and close it.

    The layout is computed once (``tight``: Matplotlib's tight layout, within ``rect`` if given; otherwise the
    figure's own layout engine, e.g. ``layout="constrained"``) and then frozen, so that both formats show the
    same positions. Neither file holds a date or a random id: the SVG ids are salted with ``stem``.

    Args:
        fig: a Matplotlib figure.
        folder: where to write (created if missing).
        stem: the file name without its extension.
        dpi: the resolution of the PNG (the SVG is vector).
        tight: apply the tight layout before saving.
        rect: the rectangle of the figure (0 to 1) the tight layout fills; implies ``tight``.
        bbox_inches: ``"tight"`` to crop both files to what is drawn (legends outside the axes included).

    Returns:
        ``{"png": path, "svg": path}``.

    Example:
        >>> import tempfile
        >>> fig, ax = pyplot().subplots()
        >>> _ = ax.plot([0, 1], [0, 1])
        >>> paths = save_figure(fig, tempfile.mkdtemp(), "line")
        >>> sorted(p.name for p in paths.values())
        ['line.png', 'line.svg']
    """
    import matplotlib

    plt = pyplot()
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
        if tight or rect is not None:
            fig.tight_layout(**({"rect": rect} if rect is not None else {}))
        elif _has_layout_engine(fig):
            # Lay the figure out once; the second format reuses the positions instead of laying out again.
            fig.canvas.draw()
            fig.set_layout_engine("none")
        paths: dict[str, Path] = {}
        # No timestamps or random ids in the files (the same run gives the same bytes); SVG text stays text.
        with matplotlib.rc_context({"svg.hashsalt": stem, "svg.fonttype": "none"}):
            for ext in ("png", "svg"):
                path = target / f"{stem}.{ext}"
                meta = {"Date": None} if ext == "svg" else {"Software": None}
                fig.savefig(
                    path,
                    format=ext,
                    dpi=dpi if ext == "png" else None,
                    metadata=meta,
                    bbox_inches=bbox_inches,
                )
                paths[ext] = path
    finally:
        plt.close(fig)
    return paths


def _has_layout_engine(fig: Any) -> bool:
    """True if the figure lays itself out on every draw (constrained or tight layout engine)."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    return engine is not None and not isinstance(engine, PlaceHolderLayoutEngine)
