"""Result folders with manifests, as other privrisk commands write them, for the report tests."""

from __future__ import annotations

import base64
from pathlib import Path

from privrisk.reports.manifest import write_manifest

# A 1×1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

# A hostile SVG: a prologue with an encoding, a doctype, a script, an event handler, outside references.
HOSTILE_SVG = """<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200pt" height="100pt"
     viewBox="0 0 200 100" onload="fetch('http://example.com/onload')">
  <style>@import url("http://example.com/style.css"); .b { fill: url(#grad); }</style>
  <defs><linearGradient id="grad"><stop offset="0" stop-color="#1f5fa8"/></linearGradient>
    <path id="bar" d="M0 0 h10 v10 h-10 z"/></defs>
  <script>fetch("http://example.com/script")</script>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
  <image xlink:href="http://example.com/tracker.png" width="1" height="1"/>
  <rect class="b" x="10" y="10" width="80" height="60" onclick="alert(1)" style="fill: url(http://example.com/x)"/>
  <use xlink:href="#bar" x="120" y="40"/>
  <text x="100" y="95">Risiko für alle</text>
</svg>
"""


def matplotlib_svg(path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.plot([0.1, 1, 2, 3], [0.52, 0.73, 0.88, 0.95], marker="o")
    ax.set_xlabel("privacy parameter ε")
    ax.set_ylabel("global risk P")
    ax.set_title(title)
    fig.savefig(path, format="svg")
    plt.close(fig)


def make_results(root: Path, *, rows: int = 500) -> list[Path]:
    """Three folders: a study with a matplotlib figure and a long table, a release with a hostile SVG and a
    short table, and a presence result with a PNG-only figure and a figure whose file is missing."""
    study, release, presence = root / "study", root / "release", root / "presence"
    for folder in (study, release, presence):
        folder.mkdir(parents=True)
    matplotlib_svg(study / "risk.svg", "Risk by ε (study)")
    matplotlib_svg(study / "risk2.svg", "Second figure")
    lines = ["epsilon,n,risk"] + [
        f"{0.01 * (i + 1):.2f},{100},{0.5 + i / (4 * rows):.6f}" for i in range(rows)
    ]
    (study / "risk.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_manifest(
        study,
        kind="study",
        title="Sampling study of SOEP hours",
        parameters={"epsilons": [0.5, 1.0], "repetitions": 100},
        summary={"max_many_worlds": 0.0312, "columns": ["hours", "income"]},
        findings=[
            "The many-worlds risk stays below 3.2 % for every query.",
            "Medians are the riskiest <b>query</b>.",
        ],
        tables=[{"title": "Risk per ε", "path": "risk.csv"}],
        figures=[
            {"title": "Risk by ε", "svg": "risk.svg", "png": "risk.png"},
            {"title": "Second figure", "svg": "risk2.svg"},
        ],
    )
    (release / "hostile.svg").write_text(HOSTILE_SVG, encoding="latin-1")
    (release / "answers.csv").write_text("query;answer;scale\nmean;7,9;0,2\ncount;1021;2\n", encoding="utf-8")
    write_manifest(
        release,
        kind="release",
        title="Release of mean hours",
        summary={"total_epsilon": 1.0, "global_risk": 0.731},
        findings=["About 73 of 100 guesses would be right."],
        tables=[{"title": "Answers", "path": "answers.csv"}],
        figures=[{"title": "A hostile figure", "svg": "hostile.svg"}],
    )
    (presence / "k.png").write_bytes(PNG)
    write_manifest(
        presence,
        kind="presence",
        title="δ-presence",
        summary={"delta_max": 0.2},
        figures=[{"title": "PNG only", "png": "k.png"}, {"title": "Lost figure", "svg": "gone.svg"}],
    )
    return [study, release, presence]
