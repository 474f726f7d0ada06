"""Make the app's screenshots for the docs: docs/images/app/<page>.png (shown by the README and docs/guide/app.md).

The browser tests in tests/app/ bring each page into a state whose numbers they check against the command line,
and call the ``screenshot`` fixture there. This script runs exactly those tests (every test that takes the
fixture) with the fixture pointed at the docs' folder instead of the test's temporary folder, so the pictures
show pages whose numbers were just checked. Nothing else writes into docs/images/app/; the test suite never does.

Usage (from the repository, with the test extra and Debian's Chromium installed)::

    python scripts/screenshots.py                 # rewrites docs/images/app/*.png
    python scripts/screenshots.py --out /tmp/shots -x   # elsewhere; further options go to pytest

Exit code: pytest's (0 when every screenshot test passed).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "images" / "app"


class OnlyScreenshotTests:
    """A pytest plugin that keeps the tests that take the ``screenshot`` fixture and deselects the rest."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.passed: set[str] = set()

    def pytest_collection_modifyitems(self, config, items) -> None:
        keep = [item for item in items if "screenshot" in getattr(item, "fixturenames", ())]
        drop = [item for item in items if item not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep
        self.kept = [item.nodeid for item in keep]

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" and report.passed:
            self.passed.add(report.nodeid)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the folder (default {DEFAULT_OUT})")
    options, pytest_args = parser.parse_known_args(argv)
    os.environ["PRIVRISK_SCREENSHOTS"] = str(options.out.resolve())
    plugin = OnlyScreenshotTests()
    code = pytest.main(
        [str(ROOT / "tests" / "app"), "-p", "no:cacheprovider", "-n", "0", "-q", *pytest_args],
        plugins=[plugin],
    )
    if code != 0 or "--collect-only" in pytest_args or "--co" in pytest_args:
        return int(code)
    missed = [nodeid for nodeid in plugin.kept if nodeid not in plugin.passed]
    if not plugin.kept or missed:  # e.g. skipped because Chromium is missing
        print(f"screenshots: not taken by {missed or 'any test'}", file=sys.stderr)
        return 1
    print(f"screenshots: {len(plugin.kept)} tests saved their pages in {options.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
