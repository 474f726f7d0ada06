"""The one figure base every plot module uses: figures on an Agg canvas, saved as PNG and SVG.

Figures are built with Matplotlib's object-oriented API (:class:`matplotlib.figure.Figure` on its own
``FigureCanvasAgg``), never through pyplot, so drawing one changes no global state: the caller's backend (a
notebook's inline or widget backend), pyplot's list of open figures and the rcParams stay as they were. They are
written twice, as PNG for slides and as SVG for the HTML report, which inlines it (see
:func:`privrisk.reports.html.sanitise_svg`). The files carry no timestamps and no random ids, so the same run
gives the same bytes, and SVG text stays text (searchable, and smaller than glyph outlines).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure, SubFigure

__all__ = ["axes_or_figure", "colormap", "figure", "log_scale", "save_figure", "subplots"]


def figure(**kwargs: Any) -> Figure:
    """A new figure on its own Agg canvas, outside pyplot (``kwargs`` as :class:`matplotlib.figure.Figure`'s).

    Example:
        >>> fig = figure(figsize=(4, 3))
        >>> type(fig.canvas).__name__, fig.get_size_inches().tolist()
        ('FigureCanvasAgg', [4.0, 3.0])
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)  # attaches itself as fig.canvas
    return fig


def subplots(nrows: int = 1, ncols: int = 1, *, squeeze: bool = True, **kwargs: Any) -> tuple[Figure, Any]:
    """A figure and its grid of axes, as ``pyplot.subplots`` returns them, without pyplot.

    ``kwargs`` go to :func:`figure` (``figsize``, ``dpi``, ``layout``, ``constrained_layout``).

    Example:
        >>> fig, axes = subplots(1, 2, figsize=(6, 3))
        >>> axes.shape, type(fig.canvas).__name__
        ((2,), 'FigureCanvasAgg')
    """
    fig = figure(**kwargs)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def axes_or_figure(ax: Axes | None, **kwargs: Any) -> tuple[Figure | SubFigure, Axes]:
    """``ax``'s figure and ``ax`` when the caller gives axes to draw into; else a new figure with one axes.

    Example:
        >>> fig, ax = axes_or_figure(None, figsize=(4, 3))
        >>> axes_or_figure(ax)[0] is fig
        True
    """
    if ax is not None:
        return ax.figure, ax
    fig, new = subplots(**kwargs)
    return fig, new


def colormap(name: str) -> Colormap:
    """Matplotlib's registered colormap ``name`` (what ``pyplot.get_cmap`` returns), without pyplot.

    Example:
        >>> len(colormap("tab10").colors)
        10
    """
    import matplotlib

    return matplotlib.colormaps[name]


def save_figure(
    fig: Any,
    folder: str | os.PathLike[str],
    stem: str,
    *,
    dpi: float = 150,
    tight: bool = False,
    rect: tuple[float, float, float, float] | None = None,
    bbox_inches: str | None = None,
    formats: tuple[str, ...] = ("png", "svg"),
) -> dict[str, Path]:
    """Lay ``fig`` out and write ``folder/stem.png`` and ``folder/stem.svg`` deterministically.

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
        formats: the files to write; ``("svg",)`` skips the PNG's raster draw (a page that shows the SVG only).

    Returns:
        ``{"png": path, "svg": path}``, the formats written.

    Example:
        >>> import tempfile
        >>> fig, ax = subplots()
        >>> _ = ax.plot([0, 1], [0, 1])
        >>> paths = save_figure(fig, tempfile.mkdtemp(), "line")
        >>> sorted(p.name for p in paths.values())
        ['line.png', 'line.svg']
    """
    import matplotlib

    target = Path(folder)
    # The figure is not pyplot's: there is nothing to close; it goes with its last reference.
    target.mkdir(parents=True, exist_ok=True)
    if tight or rect is not None:
        fig.tight_layout(**({"rect": rect} if rect is not None else {}))
    # No timestamps or random ids in the files (the same run gives the same bytes); SVG text stays text.
    with matplotlib.rc_context({"svg.hashsalt": stem, "svg.fonttype": "none"}):
        paths = {"png": target / f"{stem}.png", "svg": target / f"{stem}.svg"}
        if "png" not in formats:
            paths.pop("png")  # the SVG's own draw lays the figure out
        elif bbox_inches is None:
            # One Agg draw both lays the figure out (its layout engine runs in the draw) and paints the
            # PNG; the SVG then reuses the frozen positions instead of laying out again.
            _write_png(fig, paths["png"], dpi)
            if _has_layout_engine(fig):
                fig.set_layout_engine("none")
        else:
            if _has_layout_engine(fig):  # lay out once, then freeze: both crops see the same positions
                fig.canvas.draw()
                fig.set_layout_engine("none")
            fig.savefig(paths["png"], format="png", dpi=dpi, metadata={"Software": None},
                        bbox_inches=bbox_inches)  # fmt: skip
        fig.savefig(paths["svg"], format="svg", metadata={"Date": None}, bbox_inches=bbox_inches)
    return paths


def _write_png(fig: Any, path: Path, dpi: float) -> None:
    """Draw ``fig`` once on the Agg canvas at ``dpi`` and write its pixels as PNG, without a Software key.

    What ``fig.savefig(path, dpi=dpi)`` writes when nothing is cropped, with one draw instead of a layout draw
    followed by a second draw for the file.
    """
    import matplotlib.image
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    original = fig.dpi
    fig.dpi = dpi
    try:
        canvas.draw()
        no_software: dict[str, Any] = {"Software": None}
        matplotlib.image.imsave(
            path, canvas.buffer_rgba(), format="png", origin="upper", dpi=dpi, metadata=no_software
        )
    finally:
        fig.dpi = original


def _has_layout_engine(fig: Any) -> bool:
    """True if the figure lays itself out on every draw (constrained or tight layout engine)."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    return engine is not None and not isinstance(engine, PlaceHolderLayoutEngine)


def _decade_text(value: float, _position: Any = None) -> str:
    """A tick of a log axis as text: 10⁻⁵ for a power of ten, otherwise the number through the formatter."""
    from privrisk._format import number, superscript

    if value > 0:
        exponent = round(math.log10(value))
        if math.isclose(value, 10.0**exponent, rel_tol=1e-9):
            return "10" + superscript(exponent)
    return number(value)


def log_scale(ax: Any, axis: str = "y", *, minor: bool = False) -> None:
    """Put ``axis`` of ``ax`` on a log scale whose decades read 10⁻⁵ in plain text; minor ticks unlabelled.

    Matplotlib labels a log axis with mathtext (``$10^{-5}$``), whose parser costs a good part of a second to
    build and to run on every draw; plain superscripts show the same numbers and stay searchable text in the
    SVG. Minor ticks (2 to 9 times a power of ten) are drawn only with ``minor``, never labelled (Matplotlib
    labels them only on axes spanning less than a decade, which the study's log axes never do); over many
    decades they cost seconds to draw.

    Example:
        >>> fig, ax = subplots()
        >>> log_scale(ax, "y")
        >>> ax.get_yscale(), ax.yaxis.get_major_formatter()(1e-5), ax.yaxis.get_major_formatter()(0.5)
        ('log', '10⁻⁵', '0.5')
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_formatter(FuncFormatter(_decade_text))
    target.set_minor_formatter(NullFormatter())
    if not minor:
        target.set_minor_locator(NullLocator())
