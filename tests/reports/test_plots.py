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
