"""Every command's ``--help`` is whole: every word its help says, flags as flags, defaults as they are.

Each command of ``privrisk.cli.COMMANDS`` is rendered as a user sees it (``privrisk COMMAND --help``, on a
console wide enough that Rich wraps nothing) and compared with what its docstring and each parameter's help
string say: Rich reads ``[[release]]`` or ``[noise_multiplier, …]`` as a style and drops it unless it is
escaped. A flag takes no value, so it shows no type (``--json``, not ``--json <bool>``); a default shown
(``[default: 0.0]``) is the parameter's own, and a help text that states another (``(0.02)``, ``(default 2)``) for
an option with a default of its own contradicts it.
"""

from __future__ import annotations

import inspect
import re

import pytest
import typer

from privrisk.cli import COMMANDS, main
from privrisk.cli._app import PrivriskCommand, readable_help

WIDE = "4000"  # columns: every row of the help on one line


def built(name: str):
    """The Click command ``privrisk NAME`` runs (its module imported), with its parameters."""
    group = typer.main.get_group(__import__("privrisk.cli", fromlist=["app"]).app)
    command = group.commands[name]  # type: ignore[attr-defined]
    return command


def rendered(name: str, monkeypatch, capsys) -> str:
    monkeypatch.setenv("COLUMNS", WIDE)
    monkeypatch.delenv("TERMINAL_WIDTH", raising=False)
    assert main([name, "--help"]) == 0
    return capsys.readouterr().out


def flat(text: str) -> str:
    """The text with box-drawing characters dropped and white space collapsed."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def rows(help_text: str) -> dict[str, str]:
    """Each parameter's row of the rendered help, by its first option (``--json``) or its argument's name."""
    found: dict[str, str] = {}
    for line in help_text.splitlines():
        if not line.lstrip().startswith("│"):  # a row of a panel, not the command's own help
            continue
        cells = line.strip().strip("│").strip()
        match = re.match(r"(?:\*\s+)?(--[\w-]+|[A-Z_]+)\b", cells)
        if match and match.group(1) not in found:
            found[match.group(1)] = " ".join(cells.split())
    return found


def words(text: str) -> str:
    """A help text as the reader should see it: Click's ``\\b`` and ``\\f`` markers out, white space collapsed."""
    return " ".join(inspect.cleandoc(text).partition("\f")[0].replace("\b", "").split())


def parameters(command) -> list:
    ctx = command.make_context(command.name, ["--help"], resilient_parsing=True)
    return [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_word_of_the_help_is_lost(name, monkeypatch, capsys):
    command = built(name)
    assert isinstance(command, PrivriskCommand), name
    docstring = command.help or ""
    text = rendered(name, monkeypatch, capsys)
    shown = flat(text)
    for paragraph in inspect.cleandoc(docstring).partition("\f")[0].split("\n\n"):
        assert words(paragraph) in shown, (name, paragraph)
    lines = rows(text)
    for param in parameters(built(name)):
        label = next((o for o in param.opts if o.startswith("--")), (param.name or "").upper())
        assert label in lines, (name, label, sorted(lines))
        if getattr(param, "help", None):
            assert words(param.help) in lines[label], (name, label, param.help, lines[label])


@pytest.mark.parametrize("name", list(COMMANDS))
def test_flags_show_no_value_and_arguments_are_named(name, monkeypatch, capsys):
    text = rendered(name, monkeypatch, capsys)
    lines = rows(text)
    assert "<bool>" not in text, name
    for param in parameters(built(name)):
        label = next((o for o in param.opts if o.startswith("--")), (param.name or "").upper())
        head = lines[label].split(words(param.help))[0] if getattr(param, "help", None) else lines[label]
        if getattr(param, "is_flag", False):
            assert "<" not in head, (name, label, head)
        elif param.param_type_name == "option":
            assert re.search(r"<[^>]+>", head), (name, label, head)  # a value: its type
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage  # FILE, not Typer's {file}
    for param in parameters(built(name)):
        if param.param_type_name == "argument":
            assert (param.name or "").upper() in usage, (name, usage)


def _shown_default(row: str) -> str | None:
    found = re.search(r"\[default: ([^\]]*)\]", row)
    return found.group(1) if found else None


def _as_number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@pytest.mark.parametrize("name", list(COMMANDS))
def test_defaults_shown_are_the_real_ones(name, monkeypatch, capsys):
    lines = rows(rendered(name, monkeypatch, capsys))
    for param in parameters(built(name)):
        if param.param_type_name != "option" or param.name == "help":
            continue
        label = next(o for o in param.opts if o.startswith("--"))
        row, default = lines[label], param.default
        shown = _shown_default(row)
        if getattr(param, "is_flag", False) or default is None or isinstance(default, bool):
            assert shown is None or getattr(param, "secondary_opts", None), (name, label, row)
            stated = None
        else:
            value = ",".join(map(str, default)) if isinstance(default, list | tuple) else str(default)
            assert shown == value, (name, label, row)
            stated = value
        text = words(getattr(param, "help", None) or "")
        # A help that names a default of its own: "(default 2)", "(default: max)", "default 1,000", or a bare
        # "(0.02)" at the end, which reads as one.
        said = re.findall(r"\bdefault:? ([\w.,+-]+?)[);,]?(?:\s|$)", text) + re.findall(
            r"\((\d[\d.,]*)\)\.?$", text
        )
        for value_said in said:
            if stated is None:
                continue
            a, b = _as_number(value_said), _as_number(stated)
            assert (a == b) if a is not None and b is not None else value_said == stated, (
                name, label, value_said, stated,
            )  # fmt: skip


def test_readable_help_keeps_brackets_and_joins_lines():
    from rich.text import Text

    text = readable_help(
        "A TOML file of [[release]]\ntables; a JSON list of [noise_multiplier, sample_rate]."
    )
    assert Text.from_markup(text).plain == (
        "A TOML file of [[release]] tables; a JSON list of [noise_multiplier, sample_rate]."
    )
    assert readable_help("\bkept\nas is\n\nfirst\nsecond") == "\bkept\nas is\n\nfirst second"
