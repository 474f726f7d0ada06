"""The documents in docs/: the architecture names every subpackage, and the errata hold against hand calculation.

Each corrected value of docs/errata.md is recomputed here from the source's own formula in plain Python (no
privrisk), then compared with what docs/errata.md prints and, where privrisk computes the quantity, with privrisk.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "src" / "privrisk"

# Allmann et al., Table 1: the complete data set and its neighbours without the maximum and without the minimum.
TABLE_1A = [1, 3, 10, 17, 675]
TABLE_1B = [1, 3, 10, 17]
TABLE_1C = [3, 10, 17, 675]

# Sarathy and Muralidhar, Table 1: 30 insurance claims; the 30th is the one Table 3 varies.
CLAIMS = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18, 9.45, 12.65,
          9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08, 10.38, 12.32, 9.92, 100.00]  # fmt: skip


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def variance(values) -> Fraction:
    """Population variance (ddof = 0), exactly."""
    xs = [Fraction(v) for v in values]
    mean = sum(xs, Fraction(0)) / len(xs)
    return sum(((x - mean) * (x - mean) for x in xs), Fraction(0)) / len(xs)


def mean(values) -> float:
    return math.fsum(values) / len(values)


def without(values, i):
    return values[:i] + values[i + 1 :]


def table_3_ratio(last: float, epsilon: float = 2.0, u: float = 0.75) -> float:
    """p1/p3 for the missing record 30 when it holds ``last`` (Sarathy and Muralidhar, Table 3), from scratch."""
    x = [*CLAIMS[:-1], last]
    f = mean(x)
    b_n = max(abs(f - mean(without(x, i))) for i in range(len(x))) / epsilon  # Δf_n(X)/ε
    response = f - b_n * math.log(2 * (1 - u))  # the Laplace(0, b_n) quantile at u ≥ 1/2: −b_n·ln(2(1 − u))
    others = x[:-1]
    f_star = mean(others)
    b_star = max(abs(f_star - mean(without(others, j))) for j in range(len(others))) / epsilon
    p1 = 1 - u  # P[f(X) + Lap(b_n) ≥ r]
    p3 = 0.5 * math.exp(-(response - f_star) / b_star)  # P[f(X*) + Lap(b_{n−1}) ≥ r], r above f(X*)
    return p1 / p3


# ---------------------------------------------------------------------------------------------- architecture
def subpackages() -> list[str]:
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def test_there_are_subpackages_to_name():
    named = {"study", "presence", "audit", "empirical", "release", "io", "reports", "cli"}
    assert named <= set(subpackages())


@pytest.mark.parametrize("name", subpackages())
def test_architecture_names_every_subpackage(name):
    architecture = text("architecture.md")
    assert re.search(rf"`{re.escape(name)}[`/.]", architecture), name


COMMANDS = (
    "risk epsilon table sensitivity study demo attack presence audit derived empirical release ledger "
    "explain report"
).split()


@pytest.mark.parametrize("command", COMMANDS)
def test_architecture_gives_the_data_flow_of_every_command(command):
    """The per-command flows live on their own page, docs/flows.md, which the architecture links."""
    assert f"### `privrisk {command}`" in text("flows.md")
    assert "(flows.md)" in text("architecture.md")


def test_every_command_of_the_cli_has_its_data_flow():
    import typer

    from privrisk.cli import app

    names = {c.name for c in typer.main.get_command(app).commands.values()}  # type: ignore[attr-defined]
    flows = set(re.findall(r"^### `privrisk ([\w-]+)`", text("flows.md"), flags=re.M))
    assert names == flows


def test_architecture_is_at_most_20_kb():
    """One picture of the floors, the one shape, the rules, the error model and the conventions; the rest is on
    docs/flows.md."""
    assert (DOCS / "architecture.md").stat().st_size <= 20_000


def test_architecture_draws_the_floors_and_the_one_shape():
    architecture = text("architecture.md")
    for floor in ("base", "ground", "shared", "capabilities", "top"):
        assert re.search(rf"^ {floor}\b", architecture, flags=re.M), floor
    for name in ("<Cap>Settings", "run_<cap>(settings, *, progress=None) -> <Cap>Run", "to_dict()", "sentence()",
                 "write(folder)", "Progress"):  # fmt: skip
        assert name in architecture, name


def test_architecture_lays_out_the_real_modules_of_each_subpackage():
    """The layout block names every module of every subpackage (private ones too) as it is in src/privrisk."""
    layout = text("architecture.md").split("## The layout", 1)[1].split("```", 2)[1]
    for package in PACKAGE.glob("*/__init__.py"):
        name = package.parent.name
        modules = {p.stem for p in package.parent.glob("*.py") if p.stem != "__init__"}
        assert f"\n  {name}/" in layout, name
        # its line and the lines under it, up to the next subpackage
        block = re.split(r"\n  \S", layout.split(f"\n  {name}/", 1)[1], maxsplit=1)[0]
        words = set(re.findall(r"[\w]+", block))
        assert modules <= words, (name, sorted(modules - words))


# ---------------------------------------------------------------------------------------------- errata
def test_allmann_variance_example_by_hand():
    # Table 1b and 1c: printed 1838.75 and 76737.
    assert variance(TABLE_1B) == Fraction("39.6875")
    assert variance(TABLE_1C) == Fraction("82941.6875")
    assert variance(TABLE_1A) == Fraction("71267.36")
    # The local sensitivity: the larger change from Table 1a to its neighbours 1b and 1c (printed 111730.25).
    changes = [abs(variance(TABLE_1A) - variance(TABLE_1B)), abs(variance(TABLE_1A) - variance(TABLE_1C))]
    assert changes == [Fraction("71227.6725"), Fraction("11674.3275")]
    # Brute force over every unbounded neighbour of 1a and of 1b in the universe of Table 1a.
    for sample in (TABLE_1A, TABLE_1B):
        neighbours = [[*sample, v] for v in TABLE_1A] + [without(sample, i) for i in range(len(sample))]
        assert max(abs(variance(y) - variance(sample)) for y in neighbours) == Fraction("71227.6725")


def test_allmann_variance_example_against_privrisk():
    import privrisk as pr
    from privrisk.sensitivity import evaluate

    assert evaluate("variance", TABLE_1B) == pytest.approx(39.6875, abs=1e-12)
    assert evaluate("variance", TABLE_1C) == pytest.approx(82941.6875, rel=1e-14)
    universe = pr.Universe.from_values(TABLE_1A)
    for sample in (TABLE_1A, TABLE_1B):
        for method in ("exact", "paper"):
            assert pr.local_sensitivity("variance", sample, universe, method=method) == pytest.approx(
                71227.6725, rel=1e-14
            )


def test_allmann_half_the_squared_distance():
    lo, hi = 1, 675
    assert variance([lo, hi]) == ((hi - lo) / 2) ** 2 == 337**2 == 113569  # the printed value is right
    assert (hi - lo) ** 2 / 2 == 227138  # what the words "half the squared distance" would give
    import privrisk as pr

    assert pr.global_sensitivity("variance", pr.Universe.from_values(TABLE_1A)) == 113569.0


def test_mehner_running_example_by_hand():
    # ρ ≤ 1/(1 + (n − 1)·e^(−ε)), n = 21, ε = ln 3: 1/(1 + 20/3) = 3/23; printed 11 %.
    rho = Fraction(1) / (1 + Fraction(20, 3))
    assert rho == Fraction(3, 23)
    assert f"{float(rho):.2%}" == "13.04%"
    # The 5 % case of §2: Δv/Δf = 0.2/25.
    assert round(1 / (1 + 20 * 3 ** (-0.2 / 25)), 3) == 0.048
    import privrisk as pr

    assert pr.many_worlds(math.log(3), 21) == pytest.approx(3 / 23, rel=1e-14)


def test_mehner_global_risk_at_ln2_by_hand():
    p = Fraction(2, 1 + 2)  # e^ε/(1 + e^ε) at ε = ln 2; printed 66.6 %
    assert f"{float(p):.2%}" == "66.67%"
    assert f"{float(2 * p - 1):.1%}" == "33.3%"
    import privrisk as pr

    assert pr.global_risk(math.log(2)) == pytest.approx(2 / 3, rel=1e-14)


def test_sarathy_muralidhar_table_3_by_hand():
    printed = {14: 9, 15: 19, 16: 41, 17: 90, 18: 195, 19: 425, 20: 925, 25: 45140, 30: 2201886}
    for value, ratio in printed.items():
        assert round(table_3_ratio(value)) == ratio, value
    at_40 = table_3_ratio(40)
    assert round(at_40, 1) == 5239075290.9  # printed 5239083064
    assert f"{at_40:.3e}" == f"{5239083064:.3e}"  # the first four digits agree
    from privrisk.audit import audit_sweep

    swept = audit_sweep(CLAIMS, "mean", 2, 30, [40.0], u=0.75)
    assert swept["ratio"].iloc[0] == pytest.approx(at_40, rel=1e-9)


def test_sarathy_muralidhar_effective_b_sum_by_hand():
    x = list(range(101, 111))
    n, epsilon = len(x), 2
    b_mean = (mean(x) - mean(x[:-1])) / epsilon  # Δf_n(mean) = 0.5
    b_sum = (sum(x) - sum(x[:-1])) / epsilon  # Δf_n(sum) = 110
    assert (b_mean, b_sum) == (0.25, 55.0)
    assert n * b_mean == 2.5  # printed 12.5
    assert 2 * n**2 * b_mean**2 == 12.5  # the variance of n × (mean + noise), not a scale
    assert 110 / (n * b_mean) == 44  # Table 4's effective ε
    from privrisk.audit import derived_scale

    d = derived_scale(x, 2, target="sum", via="mean")
    assert (d.effective_scale, d.effective_epsilon) == pytest.approx((2.5, 44.0), rel=1e-12)


def test_no_module_speaks_of_a_figure_3a_of_sarathy_and_muralidhar():
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"Figures? 3[ab]", source), path


def test_burchard_daoud_kernel_width():
    assert round(math.sqrt(117)) == 11  # §4: about √t points in all; §5's "±11 on either side" would be 22
    from privrisk.empirical import default_k

    assert default_k(117) == 11


@pytest.mark.parametrize(
    ("printed", "corrected"),
    [
        ("1838.75", "39.6875"),
        ("76737", "82941.6875"),
        ("111730.25", "71227.6725"),
        ("113569", "113569"),
        ("11 %", "13.04 %"),
        ("66.6 %", "66.67 %"),
        ("5239083064", "5239075290.9"),
        ("12.5", "2.5"),
        ("Figures 3a and 3b", "Figures 2a and 2b"),
        ("±11", "√117"),
    ],
)
def test_errata_print_each_correction(printed, corrected):
    errata = text("errata.md")
    assert printed in errata and corrected in errata


def test_errata_cite_by_author_not_by_file_number():
    errata = text("errata.md")
    for author in ("Allmann et al.", "Mehner et al.", "Sarathy and Muralidhar", "Burchard and Daoud"):
        assert author in errata
    prose = re.sub(r"`[^`]*`", "", errata)  # test names in code spans may keep their old numbers
    assert not re.search(r"(?<![\d.])00[0-4](?![\d.])", prose)


# ---------------------------------------------------------------------------------------------- site
def test_griffe_extension_reads_example_and_roles():
    import importlib.util

    pytest.importorskip("griffe")  # the docs extra

    spec = importlib.util.spec_from_file_location(
        "example_sections", DOCS / "_griffe" / "example_sections.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.rewrite("Args:\n    x: y.\n\nExample:\n    >>> f()\n") == (
        "Args:\n    x: y.\n\nExamples:\n    >>> f()\n"
    )
    assert module.rewrite(":mod:`privrisk.study` and :meth:`~privrisk.io.NumericColumn.summary`") == (
        "`privrisk.study` and `summary`"
    )


def test_every_api_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in sorted((DOCS / "api").glob("*.md")):
        assert f"api/{page.name}" in config, page.name
    for name in ("architecture.md", "errata.md", "glossary.md", "references.md", "index.md"):
        assert name in config


def test_every_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if "_griffe" not in p.parts]
    assert [p for p in pages if p not in config] == []


# ---------------------------------------------------------------------------------------------- design and figures
@pytest.mark.parametrize("page", ["architecture.md", "flows.md", "development.md"])
def test_architecture_keeps_the_design_only(page):
    """No issue numbers, no dates and no measured times: those belong to the CHANGELOG and docs/performance.md."""
    architecture = text(page)
    assert not re.search(r"\bissues? \d+|#\d+\b", architecture, flags=re.I)
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", architecture)
    assert not re.search(r"\d+(\.\d+)? ?(s|ms|seconds|minutes) (CPU|wall)\b", architecture)
    assert not re.search(r"load (average )?(of )?\d", architecture)


def test_performance_has_one_table_of_figures_with_their_commands():
    performance = text("performance.md")
    headers = [line for line in performance.splitlines() if line.startswith("| Capability |")]
    assert len(headers) == 1
    columns = [c.strip() for c in headers[0].strip("|").split("|")]
    assert columns[:6] == ["Capability", "Scale", "privrisk", "Baseline", "Ratio", "Command"]
    table = performance.split(headers[0])[1].split("\n\n")[0]
    rows = [r for r in table.splitlines()[2:] if r.startswith("|")]
    assert len(rows) > 20
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == len(columns), row
        assert cells[5].startswith("`python benchmarks/") or cells[5] == "the same", row
        assert (ROOT / cells[5].strip("`").split()[1]).is_file() or cells[5] == "the same", row


def test_changelog_has_one_set_of_headings_per_release():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.split(r"^## ", changelog, flags=re.M)[1:]
    assert releases and releases[0].startswith("[Unreleased]")
    allowed = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]
    for release in releases:
        title = release.splitlines()[0]
        assert re.fullmatch(r"\[Unreleased\]|\[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d", title), title
        headings = re.findall(r"^### (.+)$", release, flags=re.M)
        assert headings, title
        assert len(headings) == len(set(headings)), (title, headings)
        assert set(headings) <= set(allowed), (title, headings)
        assert headings == sorted(headings, key=allowed.index), (title, headings)


# ---------------------------------------------------------------------------------------------- the app's images
def linked_images() -> list[Path]:
    """Every PNG the README and the app's guide page link, as a path in the repository."""
    readme = re.findall(r"\]\((docs/images/[^)\s]+\.png)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    app = re.findall(r"\]\((\.\./images/[^)\s]+\.png)\)", text("guide/app.md"))
    return [ROOT / p for p in readme] + [(DOCS / "guide" / p).resolve() for p in app]


def test_every_linked_screenshot_exists():
    images = linked_images()
    assert [p for p in images if not p.is_file()] == []
    # The app's guide shows every screenshot the script makes.
    assert set(images) >= {p.resolve() for p in (DOCS / "images" / "app").glob("*.png")}


def test_every_app_page_has_a_test_that_makes_its_screenshot():
    """scripts/screenshots.py runs the browser tests that take the screenshot fixture: one per page of the app."""
    from privrisk.app.pages import PAGES

    tests = (ROOT / "tests" / "app").glob("test_*.py")
    takes = [
        m for t in tests for m in re.findall(r"screenshot\(page, \"(\w+)\"\)", t.read_text(encoding="utf-8"))
    ]
    assert sorted(takes) == sorted(p.ID for p in PAGES)
    assert {p.stem for p in (DOCS / "images" / "app").glob("*.png")} == set(takes)
