"""Front ends only map their inputs onto a capability's settings and format its run (issue 33, the one shape):
no ``raise PrivriskError`` in ``privrisk/cli`` or ``privrisk/app/pages`` but upload and path checks.

The modules not yet converted are named in :data:`NOT_YET_CONVERTED`, a list that only shrinks: a module that no
longer raises must leave it (the test says so), and a module not on it that starts raising fails."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import privrisk

SRC = Path(privrisk.__file__).parent
FRONT_ENDS = ("cli", "app/pages")

#: Raises that check an upload or a path, not a setting: (module, the function they are in, the message's start).
UPLOAD_AND_PATH_CHECKS = {
    ("cli/audit.py", "audit_command", "--records: "),  # the records' file is the input file
    ("app/pages/_runs.py", "checked_upload", None),  # nothing uploaded: the upload's input named
    (
        "app/pages/_runs.py",
        "call_in_process",
        None,
    ),  # the library's error, raised again from its worker process
    ("cli/microdata.py", "microdata_command", "FILE: "),  # the data file does not exist
}

#: Modules whose rules have not moved into their settings yet (issue 33, item 1); remove a module once it has.
NOT_YET_CONVERTED: set[str] = set()


def _front_end_modules() -> list[Path]:
    return sorted(p for folder in FRONT_ENDS for p in (SRC / folder).glob("*.py"))


def _message_start(node: ast.Raise) -> str | None:
    """The text a raise's message starts with, when it starts with text."""
    call = node.exc
    if not isinstance(call, ast.Call) or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
        return str(first.values[0].value)
    if isinstance(first, ast.Constant):
        return str(first.value)
    return None


def privrisk_raises(path: Path) -> list[tuple[str, str | None, int]]:
    """Each ``raise PrivriskError(…)`` of a module: the function it is in, its message's start, its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, str | None, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call):
                called = child.exc.func
                if getattr(called, "id", getattr(called, "attr", None)) == "PrivriskError":
                    found.append((function, _message_start(child), child.lineno))
            visit(child, name)

    visit(tree, "<module>")
    return found


def _allowed(module: str, function: str, start: str | None) -> bool:
    return any(
        module == m and function == f and (prefix is None or (start or "").startswith(prefix))
        for m, f, prefix in UPLOAD_AND_PATH_CHECKS
    )


@pytest.mark.parametrize("path", _front_end_modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_front_end_raises_only_upload_and_path_checks(path):
    module = str(path.relative_to(SRC))
    rules = [(f, s, line) for f, s, line in privrisk_raises(path) if not _allowed(module, f, s)]
    if module in NOT_YET_CONVERTED:
        assert rules, (
            f"{module} raises no PrivriskError of its own any more: remove it from NOT_YET_CONVERTED"
        )
    else:
        assert not rules, f"{module}: rules belong in the settings, not the front end: {rules}"


def test_the_lists_name_modules_that_exist():
    modules = {str(p.relative_to(SRC)) for p in _front_end_modules()}
    assert NOT_YET_CONVERTED <= modules
    assert {m for m, _, _ in UPLOAD_AND_PATH_CHECKS} <= modules


def test_the_check_finds_a_rule_in_a_front_end(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        "from privrisk.errors import PrivriskError\n"
        "def settings(x):\n"
        "    if not x:\n"
        "        raise PrivriskError(f'queries: choose at least one query', param='queries')\n"
        "def upload(info):\n"
        "    raise errors.PrivriskError('file: nothing uploaded')\n"
    )
    assert privrisk_raises(page) == [("settings", "queries: choose at least one query", 4),
                                     ("upload", "file: nothing uploaded", 6)]  # fmt: skip
    assert not _allowed("cli/study.py", "settings", "queries: choose")
    assert _allowed("cli/audit.py", "audit_command", "--records: x is the input file")
