"""``privrisk`` itself (``privrisk.cli.main``): every command's help, the console script, exit codes."""

from __future__ import annotations

import subprocess
import sys


def test_every_command_has_help_with_an_example(cli):
    from privrisk.cli import app

    names = [c.name for c in app.registered_commands]
    assert {"risk", "epsilon", "table", "sensitivity"} <= set(names)
    for name in names:
        r = cli(name, "--help")
        assert r.code == 0 and "Example" in r.out, name


def test_console_script_runs_as_a_process():
    proc = subprocess.run(
        [sys.executable, "-m", "privrisk", "risk", "--epsilon", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
