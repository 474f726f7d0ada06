"""The one figure base: the Agg backend, PNG and SVG written deterministically, the figure closed."""

from __future__ import annotations

import re

from privrisk.reports.plots._base import pyplot, save_figure


def _figure(layout: str | None = None):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4, 3), layout=layout)
    ax.plot([0, 1, 2], [0.5, 0.73, 0.88], marker="o", label="global risk P")
    ax.set_xlabel("privacy parameter ε")
    ax.legend()
    return fig


def test_save_figure_writes_the_same_bytes_twice_and_closes(tmp_path):
    plt = pyplot()
    assert plt.get_backend().lower() == "agg"
    before = len(plt.get_fignums())
    runs = []
    for folder in ("a", "b"):
        paths = save_figure(_figure("constrained"), tmp_path / folder / "figures", "risk")
        assert set(paths) == {"png", "svg"} and all(p.exists() for p in paths.values())
        assert paths["png"].name == "risk.png" and paths["svg"].name == "risk.svg"
        runs.append({ext: p.read_bytes() for ext, p in paths.items()})
    assert runs[0] == runs[1]  # no dates, no random ids
    assert len(plt.get_fignums()) == before
    svg = runs[0]["svg"].decode("utf-8")
    assert "<dc:date>" not in svg and "privacy parameter ε" in svg  # SVG text stays text
    assert b"Software" not in runs[0]["png"]


def test_save_figure_tight_layout_and_crop(tmp_path):
    paths = save_figure(_figure(), tmp_path, "tight", dpi=100, tight=True)
    cropped = save_figure(_figure(), tmp_path, "cropped", dpi=100, bbox_inches="tight")
    width = int(re.search(rb'width="([\d.]+)pt"', paths["svg"].read_bytes()).group(1).split(b".")[0])
    assert width == 288  # 4 inches at 72 points
    assert paths["png"].stat().st_size > 1000 and cropped["png"].stat().st_size > 1000


def test_save_figure_closes_on_failure(tmp_path):
    plt = pyplot()
    before = len(plt.get_fignums())
    (tmp_path / "file").write_text("not a folder")
    try:
        save_figure(_figure(), tmp_path / "file", "x")
    except OSError:
        pass
    else:  # pragma: no cover
        raise AssertionError("writing into a file should fail")
    assert len(plt.get_fignums()) == before


def test_the_png_drawn_once_is_what_savefig_draws(tmp_path):
    import numpy as np
    from PIL import Image

    # Without a layout engine, one Agg draw at the dpi gives the pixels savefig gives (Matplotlib's own path).
    paths = save_figure(_figure(), tmp_path, "once", dpi=120)
    fig = _figure()
    fig.savefig(tmp_path / "reference.png", format="png", dpi=120, metadata={"Software": None})
    pyplot().close(fig)
    ours, reference = Image.open(paths["png"]), Image.open(tmp_path / "reference.png")
    assert ours.size == reference.size == (480, 360)  # 4 × 3 inches at 120 dpi
    assert np.array_equal(np.asarray(ours), np.asarray(reference))


def test_log_axes_read_powers_of_ten_as_plain_text(tmp_path):
    from privrisk.reports.plots._base import _decade_text, log_scale

    fig, ax = pyplot().subplots(figsize=(4, 3), layout="constrained")
    ax.plot([0, 1, 2], [1e-6, 3e-5, 2e-3])
    log_scale(ax, "y", minor=True)
    svg = save_figure(fig, tmp_path, "log")["svg"].read_text(encoding="utf-8")
    for label in ("10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³"):
        assert f">{label}</text>" in svg  # one text element each, searchable
    assert "$" not in svg and "10^" not in svg  # no mathtext
    assert [_decade_text(x) for x in (1.0, 10.0, 1e-12, 1e12)] == ["10⁰", "10¹", "10⁻¹²", "10¹²"]
    assert _decade_text(2e-5) == "2 × 10⁻⁵" and _decade_text(0.5) == "0.5"  # not a power: the formatter
    assert ax.yaxis.get_minor_formatter()(2e-5) == ""  # minor ticks drawn, never labelled
