"""``privrisk`` itself (``privrisk.cli.main``): every command's help, the console script, exit codes."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


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


# ------------------------------------------------------------------------------ library parameters and options
def test_a_library_parameter_is_named_as_the_option(cli):
    # epsilon_for_risk says "risk: must exceed 1/n …"; the epsilon command's option for it is --risk.
    r = cli("epsilon", "--risk", "0.5")
    assert r.code == 2 and r.err.startswith("privrisk: error: --risk: must exceed 1/n = 0.5")


def test_option_message_maps_only_what_the_command_has(monkeypatch):
    import typer

    from privrisk.cli import _names, app, option_message
    from privrisk.errors import PrivriskError

    command = typer.main.get_command(app)
    args = ["risk", "--epsilon", "1"]
    assert option_message(PrivriskError("delta: must be …"), command, args) == "--delta: must be …"
    assert option_message(PrivriskError("max_risk: too high"), command, args) == "--max-risk: too high"
    # the risk command has no --column, and a message naming a file is left alone
    assert option_message(PrivriskError("column: must be …"), command, args) == "column: must be …"
    assert option_message(PrivriskError("data.csv: no such file"), command, args) == "data.csv: no such file"
    assert option_message(PrivriskError("delta: x"), command, ["--help"]) == "delta: x"
    assert option_message("delta: a warning's text", command, args) == "--delta: a warning's text"
    monkeypatch.setattr(_names, "OPTIONS", {"risk": {"delta": "--failure-probability"}})
    assert option_message(PrivriskError("delta: x"), command, args) == "--failure-probability: x"


# ------------------------------------------------------------------------------------------------ warnings
def test_library_warnings_are_one_line_each_and_runtime_warnings_stay_quiet(cli, monkeypatch):
    import warnings

    import numpy as np

    import privrisk.risk
    from privrisk.errors import DependenceWarning, PrivacyLeakWarning

    describe = privrisk.risk.describe

    def noisy_describe(*args, **kwargs):
        for _ in range(2):
            warnings.warn("too few periods:\n δ may be understated", PrivacyLeakWarning, stacklevel=2)
        warnings.warn("delta: the periods are autocorrelated", DependenceWarning, stacklevel=2)
        warnings.warn_explicit("a plain UserWarning of privrisk", UserWarning, privrisk.risk.__file__, 1)
        warnings.warn_explicit("not privrisk's", UserWarning, "elsewhere.py", 1)  # shown as Python shows it
        np.log(np.zeros(1))  # numpy: RuntimeWarning "divide by zero encountered in log"
        return describe(*args, **kwargs)

    monkeypatch.setattr(privrisk.risk, "describe", noisy_describe)
    with pytest.warns(UserWarning) as others:
        r = cli("risk", "--epsilon", "ln3", "--json")
    assert [str(w.message) for w in others] == ["not privrisk's"]
    assert r.code == 0 and r.json["two_worlds"] == pytest.approx(0.75)
    assert r.err.splitlines() == [
        "privrisk: warning: too few periods: δ may be understated",
        "privrisk: warning: --delta: the periods are autocorrelated",  # the parameter named as the option
        "privrisk: warning: a plain UserWarning of privrisk",
    ]


def test_version_prints_the_package_version(cli):
    from privrisk._version import __version__

    r = cli("--version")
    assert r.code == 0 and r.out == f"privrisk {__version__}\n" and r.err == ""
    assert "--version" in cli("--help").out


def _study_on_a_pipe(tmp_path, **env):
    """``privrisk study`` as ``privrisk study … | less`` runs it: stdout a pipe (stdin too: Rich would take a
    terminal's width from any of the three), the environment's COLUMNS only."""
    import os
    from pathlib import Path

    root = Path(__file__).parents[2]
    environment = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    environment.update(PYTHONPATH=str(root / "src"), **env)
    args = ["study", str(root / "examples" / "survey.csv"), "-c", "hours", "-c", "income", "--label",
            "income=monthly net income of the respondent", "--repetitions", "2", "--proportions", "0.01,1",
            "--epsilons", "1", "--out", str(tmp_path / "study")]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "privrisk", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=environment, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith("│")]


def test_a_table_on_a_pipe_is_not_wrapped(tmp_path):
    """Rich would lay a table out for 80 columns on a pipe, folding cells over several lines ("0.00314" / "%")."""
    rows = _study_on_a_pipe(tmp_path)
    assert len(rows) == 2 * 5  # one line per variable and query
    assert any("monthly net income of the respondent" in row for row in rows)
    assert all(re.search(r"\d %", row) for row in rows)
    assert not [row for row in rows if re.search(r"│\s+%\s+│", row)]


def test_columns_still_sets_the_width(tmp_path):
    rows = _study_on_a_pipe(tmp_path, COLUMNS="80")
    assert rows and max(len(row) for row in rows) <= 80
    assert len(rows) > 2 * 5  # the long label wraps, as the user asked for 80 columns
