"""The one figure base: figures on an Agg canvas outside pyplot, PNG and SVG written deterministically."""

from __future__ import annotations

import re
import subprocess
import sys

from privrisk.reports.plots._base import save_figure, subplots


def _figure(layout: str | None = None):
    fig, ax = subplots(figsize=(4, 3), layout=layout)
    ax.plot([0, 1, 2], [0.5, 0.73, 0.88], marker="o", label="global risk P")
    ax.set_xlabel("privacy parameter ε")
    ax.legend()
    return fig


def test_save_figure_writes_the_same_bytes_twice(tmp_path):
    runs = []
    for folder in ("a", "b"):
        paths = save_figure(_figure("constrained"), tmp_path / folder / "figures", "risk")
        assert set(paths) == {"png", "svg"} and all(p.exists() for p in paths.values())
        assert paths["png"].name == "risk.png" and paths["svg"].name == "risk.svg"
        runs.append({ext: p.read_bytes() for ext, p in paths.items()})
    assert runs[0] == runs[1]  # no dates, no random ids
    svg = runs[0]["svg"].decode("utf-8")
    assert "<dc:date>" not in svg and "privacy parameter ε" in svg  # SVG text stays text
    assert b"Software" not in runs[0]["png"]


def test_save_figure_tight_layout_and_crop(tmp_path):
    paths = save_figure(_figure(), tmp_path, "tight", dpi=100, tight=True)
    cropped = save_figure(_figure(), tmp_path, "cropped", dpi=100, bbox_inches="tight")
    width = int(re.search(rb'width="([\d.]+)pt"', paths["svg"].read_bytes()).group(1).split(b".")[0])
    assert width == 288  # 4 inches at 72 points
    assert paths["png"].stat().st_size > 1000 and cropped["png"].stat().st_size > 1000


def test_figures_leave_the_callers_matplotlib_alone():
    # A notebook's backend and pyplot's open figures stay as they were: no matplotlib.use, no pyplot figure.
    code = (
        "import matplotlib, sys, tempfile\n"
        "matplotlib.use('svg')\n"
        "import matplotlib.pyplot as plt\n"
        "from privrisk.audit import audit_data_dependent\n"
        "from privrisk.audit.plots import audit_figures\n"
        "from privrisk.reports.plots.presence import plot_delta\n"
        "res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], 'mean', 2, u=0.75)\n"
        "audit_figures(res, tempfile.mkdtemp())\n"
        "print(matplotlib.get_backend(), len(plt.get_fignums()), 'matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["svg", "0", "True"]
    code = (
        "import sys, tempfile\n"
        "from privrisk.reports.plots import save_figure, subplots\n"
        "fig, ax = subplots()\n"
        "save_figure(fig, tempfile.mkdtemp(), 'x')\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]  # pyplot is never imported


def test_plot_functions_draw_into_the_axes_they_are_given():
    import numpy as np

    from privrisk.audit import audit_data_dependent
    from privrisk.audit.plots import plot_intruder, plot_laplace, plot_provider, plot_sampling
    from privrisk.empirical.plots import plot_density

    res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
    fig, axes = subplots(2, 3, figsize=(12, 6))
    drawn = [
        plot_provider(res, ax=axes[0, 0]),
        plot_intruder(res, ax=axes[0, 1]),
        plot_laplace(res, ax=axes[0, 2]),
        plot_sampling(res, ax=axes[1, 0]),
        plot_density(
            np.arange(8.0), np.arange(8.0) + 0.5, density="ecdf", k=1, who="x", label="y", ax=axes[1, 1]
        ),
    ]
    assert [a is b for a, b in zip(drawn, axes.ravel(), strict=False)] == [True] * 5
    assert all(a.figure is fig and a.get_lines() for a in drawn)
    assert not axes[1, 2].get_lines()  # untouched


def test_the_png_drawn_once_is_what_savefig_draws(tmp_path):
    import numpy as np
    from PIL import Image

    # Without a layout engine, one Agg draw at the dpi gives the pixels savefig gives (Matplotlib's own path).
    paths = save_figure(_figure(), tmp_path, "once", dpi=120)
    fig = _figure()
    fig.savefig(tmp_path / "reference.png", format="png", dpi=120, metadata={"Software": None})
    ours, reference = Image.open(paths["png"]), Image.open(tmp_path / "reference.png")
    assert ours.size == reference.size == (480, 360)  # 4 × 3 inches at 120 dpi
    assert np.array_equal(np.asarray(ours), np.asarray(reference))


def test_log_axes_read_powers_of_ten_as_plain_text(tmp_path):
    from privrisk.reports.plots._base import _decade_text, log_scale

    fig, ax = subplots(figsize=(4, 3), layout="constrained")
    ax.plot([0, 1, 2], [1e-6, 3e-5, 2e-3])
    log_scale(ax, "y", minor=True)
    svg = save_figure(fig, tmp_path, "log")["svg"].read_text(encoding="utf-8")
    for label in ("10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³"):
        assert f">{label}</text>" in svg  # one text element each, searchable
    assert "$" not in svg and "10^" not in svg  # no mathtext
    assert [_decade_text(x) for x in (1.0, 10.0, 1e-12, 1e12)] == ["10⁰", "10¹", "10⁻¹²", "10¹²"]
    assert _decade_text(2e-5) == "2 × 10⁻⁵" and _decade_text(0.5) == "0.5"  # not a power: the formatter
    assert ax.yaxis.get_minor_formatter()(2e-5) == ""  # minor ticks drawn, never labelled
