"""Light commands start without the heavy libraries; ``privrisk --help`` lists every command from one table.

Not timed (benchmarks/startup.py measures): each check runs the command in a fresh interpreter and reads
``sys.modules`` afterwards, so a module-level ``import pandas`` anywhere on a light command's path fails here.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap

import pytest

# What a light command and any --help must not import (issue 14: pandas, scipy.stats, matplotlib, duckdb, pyspark,
# dp_accounting, shiny; scipy as a whole, pyarrow and opendp as well, since nothing light needs them).
HEAVY = (
    "pandas",
    "pyarrow",
    "scipy",
    "matplotlib",
    "duckdb",
    "pyspark",
    "dp_accounting",
    "shiny",
    "opendp",
    "pydantic",
)

LIGHT_COMMANDS = {
    "version": ["--version"],
    "risk-plain": ["risk", "--epsilon", "1"],
    "risk": ["risk", "--epsilon", "1", "--n", "10", "--json"],
    "risk-text": ["risk", "--epsilon", "ln3"],
    "epsilon": ["epsilon", "--risk", "0.75", "--json"],
    "table": ["table"],
    "table-json": ["table", "--json"],
    "explain": ["explain", "--epsilon", "ln3", "--n", "100", "--compare", "ln2,ln7", "--json"],
}

# Runs privrisk.cli.main on each argument list in turn in one fresh interpreter and reports, after each, the
# heavy modules imported so far and the privrisk.cli modules loaded.
_PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from privrisk.cli import main
    heavy, steps = {heavy!r}, json.loads(sys.argv[1])
    report = []
    for args in steps:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
        modules = sorted(m for m in sys.modules if m.startswith("privrisk.cli."))
        report.append({{"args": args, "code": code, "heavy": loaded, "cli": modules, "out": out.getvalue()}})
    print(json.dumps(report))
    """
).format(heavy=HEAVY)


def probe(*steps: list[str]) -> list[dict]:
    """Run the argument lists in one fresh interpreter; what each imported (cumulatively) and printed."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(steps))],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_the_probe_sees_a_heavy_import(tmp_path):
    # The check can fail: a command that reads a file imports pandas, and its module is then loaded.
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n2\n3\n")
    (step,) = probe(
        ["sensitivity", str(data), "--column", "x", "--query", "mean", "--universe", "0,10", "--json"]
    )
    assert step["code"] == 0
    assert "pandas" in step["heavy"] and "privrisk.cli.sensitivity" in step["cli"]


def test_importing_the_cli_imports_no_command_and_nothing_heavy():
    code = "import sys, privrisk.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in %r or m.startswith('privrisk.cli.')))"
    proc = subprocess.run([sys.executable, "-c", code % (HEAVY,)], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == [
        "['privrisk.cli._app',",
        "'privrisk.cli._coercion',",
        "'privrisk.cli._commands',",
        "'privrisk.cli._names']",
    ]


@pytest.mark.parametrize("name", LIGHT_COMMANDS)
def test_a_light_command_imports_nothing_heavy(name):
    (step,) = probe(LIGHT_COMMANDS[name])
    assert step["code"] == 0
    assert step["heavy"] == []


def test_a_light_command_imports_its_module_not_every_module():
    steps = probe(LIGHT_COMMANDS["risk"], LIGHT_COMMANDS["explain"])
    heavy_commands = {
        f"privrisk.cli.{m}" for m in ("study", "presence", "audit", "empirical", "release", "attack")
    }
    assert "privrisk.cli.risk" in steps[0]["cli"] and not heavy_commands & set(steps[0]["cli"])
    assert "privrisk.cli.explain" in steps[1]["cli"] and not heavy_commands & set(steps[1]["cli"])
    assert json.loads(steps[0]["out"])["many_worlds"] == pytest.approx(1 / (1 + 9 / 2.718281828459045))


def test_help_of_every_command_imports_nothing_heavy():
    from privrisk.cli import COMMANDS

    steps = probe(["--help"], [], *([name, "--help"] for name in COMMANDS))
    assert steps[0]["cli"] == [
        "privrisk.cli._app",
        "privrisk.cli._coercion",
        "privrisk.cli._commands",
        "privrisk.cli._names",
    ]  # the list imports no command
    for step in steps:
        assert step["heavy"] == [], f"privrisk {' '.join(step['args'])} imported {step['heavy']}"
    assert [s["code"] for s in steps] == [0, 2] + [0] * len(COMMANDS)
    for name, step in zip(COMMANDS, steps[2:], strict=True):
        assert "Usage: privrisk " + name in step["out"], name


def test_the_list_of_commands_needs_not_even_numpy():
    code = (
        "import contextlib, io, sys\nfrom privrisk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): code = main(['--help'])\n"
        "print(code, 'numpy' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["0", "False"]


# ------------------------------------------------------------------------------------- the table cannot drift
def _all_command_modules() -> list[str]:
    import privrisk.cli

    return [m.name for m in pkgutil.iter_modules(privrisk.cli.__path__) if not m.name.startswith("_")]


def test_the_table_is_what_the_modules_define():
    # Every command of every module under cli/ (imported here, all of them), with its module and the first
    # paragraph of its docstring: exactly the table's entries. On a mismatch the message is the table to paste.
    from privrisk.cli import COMMANDS
    from privrisk.cli._app import command_table

    defined = command_table(_all_command_modules())
    order = [name for name in COMMANDS if name in defined] + [
        name for name in defined if name not in COMMANDS
    ]
    paste = "".join(f"    {name!r}: {defined[name]!r},\n" for name in order)
    assert COMMANDS == defined, (
        f"privrisk.cli.COMMANDS (src/privrisk/cli/_commands.py) should read:\n{{\n{paste}}}"
    )


def test_the_listed_help_is_what_the_built_commands_give():
    # In one interpreter: `privrisk --help` from the table, then again with every module imported and every
    # command built (the listing then reads the real commands): the two pages are the same.
    code = textwrap.dedent(
        """
        import contextlib, io
        from privrisk.cli import main
        def page():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main(["--help"]) == 0
            return out.getvalue()
        lazy = page()
        import typer
        from privrisk.cli import app
        group = typer.main.get_group(app)
        assert all(group.commands[name] for name in group.commands)
        print(lazy == page(), lazy.count(chr(10)))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    same, lines = proc.stdout.split()
    assert same == "True" and int(lines) > 20


def test_the_help_lists_every_command_in_the_tables_order(cli):
    from privrisk.cli import COMMANDS

    r = cli("--help")
    assert r.code == 0
    positions = [r.out.index(f"│ {name} ") for name in COMMANDS]
    assert positions == sorted(positions)


def test_a_mistyped_command_is_named_with_a_suggestion_from_the_table(cli):
    r = cli("presense", "--help")
    assert r.code == 2
    assert r.err.startswith("privrisk: error: No such command 'presense'. Did you mean 'presence'?")
    assert r.err.count("\n") == 1


def test_the_command_mapping_does_not_import_to_answer_membership_or_order():
    from privrisk.cli import COMMANDS
    from privrisk.cli._app import LazyCommands

    commands = LazyCommands()
    before = set(sys.modules)
    assert list(commands) == list(COMMANDS) and len(commands) == len(COMMANDS)
    assert "risk" in commands and "nonsense" not in commands
    assert commands.summary("nonsense") is None and commands.get("nonsense") is None
    assert commands.summary("study").help == COMMANDS["study"][1]  # type: ignore[union-attr]
    assert set(sys.modules) == before


def test_a_table_entry_whose_module_lacks_the_command_is_a_bug_not_a_missing_command(monkeypatch):
    from privrisk.cli import COMMANDS
    from privrisk.cli._app import LazyCommands

    monkeypatch.setitem(COMMANDS, "ghost", ("risk", "A command nobody defined."))
    with pytest.raises(RuntimeError, match=r"privrisk\.cli\.risk defines no command 'ghost'"):
        LazyCommands()["ghost"]


# ------------------------------------------------------------------- defaults shown in --help equal the library's
def test_the_defaults_in_cli_common_are_the_librarys():
    from privrisk.audit.intruder import TOP_RECORDS
    from privrisk.cli import _common
    from privrisk.io.engine import SPARK_ROLLUP_CLASSES
    from privrisk.presence.search import LOSS_MEASURES
    from privrisk.release.ledger import KEY_ENV
    from privrisk.reports.html import MAX_ROWS
    from privrisk.study.attack import DEFAULT_ATTACK_MAX_N, DEFAULT_ATTACK_TRIALS
    from privrisk.study.sampling import DEFAULT_EPSILONS, DEFAULT_QUERIES

    assert _common.DEFAULT_EPSILONS == DEFAULT_EPSILONS
    assert _common.DEFAULT_QUERIES == DEFAULT_QUERIES
    assert _common.DEFAULT_ATTACK_TRIALS == DEFAULT_ATTACK_TRIALS
    assert _common.DEFAULT_ATTACK_MAX_N == DEFAULT_ATTACK_MAX_N
    assert _common.TOP_RECORDS == TOP_RECORDS
    assert _common.LOSS_MEASURES == LOSS_MEASURES
    assert _common.SPARK_ROLLUP_CLASSES == SPARK_ROLLUP_CLASSES
    assert _common.KEY_ENV == KEY_ENV
    assert _common.MAX_ROWS == MAX_ROWS
