"""The front ends' names of the library's parameters: the command line's options (privrisk/cli/_names.py) and
the app's labels (privrisk/app/_labels.py).

Every option the command line's table names exists on its command, the app never shows an option, and both front
ends print a warning with the same formatter (privrisk.errors.warning_text).
"""

from __future__ import annotations

import warnings

import pytest

from privrisk.app._labels import LABELS, PAGE_LABELS, humanise, label
from privrisk.cli._names import OPTIONS, option
from privrisk.errors import DependenceWarning, PrivriskError, ThresholdExceeded, warning_text


def _command_options() -> dict[str, set[str]]:
    import typer

    from privrisk.cli import app

    group = typer.main.get_command(app)
    return {
        name: {o for p in command.params for o in getattr(p, "opts", ())}  # type: ignore[attr-defined]
        for name, command in group.commands.items()  # type: ignore[attr-defined]
    }


def test_every_option_the_table_names_is_an_option_of_its_command():
    options = _command_options()
    wrong = []
    for command, renames in OPTIONS.items():
        for param, name in renames.items():
            flag = name.split()[0]
            if not flag.startswith("--"):
                continue  # a positional argument (FILE, DIR)
            if command in options and flag not in options[command]:
                wrong.append((command, param, name))
    assert not wrong, f"options the commands do not have: {wrong}"


def test_the_commands_the_table_names_exist():
    assert set(OPTIONS) <= set(_command_options())


def test_a_label_is_words_never_an_option():
    for param, text in [
        *LABELS.items(),
        *((p, t) for p, pages in PAGE_LABELS.items() for t in pages.values()),
    ]:
        assert text and not text.startswith("-") and ":" not in text, (param, text)


@pytest.mark.parametrize(
    ("exc", "page", "shown"),
    [
        (
            PrivriskError("max_risk: must be a probability, got 2"),
            "risk",
            "Largest acceptable risk: must be a",
        ),
        (
            PrivriskError("epsilon: must be greater than 0, got -1"),
            "explain",
            "Privacy loss ε: must be greater",
        ),
        (PrivriskError("method: unknown method 'x'"), "microdata", "Risk method: unknown method 'x'"),
        (PrivriskError("no_such_param: bad"), "risk", "No such param: bad"),
        (PrivriskError("data.csv: no such file"), "risk", "data.csv: no such file"),
        (
            ThresholdExceeded("max_risk: 3 records above 10 %"),
            "microdata",
            "Largest acceptable risk: 3 records",
        ),
    ],
)
def test_the_app_names_the_input_by_its_label(exc, page, shown):
    from privrisk.app._shared import error_message

    text = error_message(exc, page)
    assert text.startswith(shown)
    assert "--" not in text


def test_the_command_line_names_the_option():
    assert option("hierarchies", "presence") == "--hierarchy"
    assert option("method", "microdata") == "--risk-method" and option("method", "risk") == "--sampling"
    assert option("epsilon", "risk") is None  # --epsilon: the name with dashes
    assert label("method", "microdata") == "Risk method" and humanise("max_nodes") == "Max nodes"


def test_the_command_line_and_the_app_print_a_warning_alike(capsys):
    from privrisk.app._shared import warning_message
    from privrisk.cli import library_warnings_on_stderr

    text = "window:  fewer than\n 10 periods"
    with library_warnings_on_stderr():
        warnings.warn(text, DependenceWarning, stacklevel=1)
    assert capsys.readouterr().err == f"privrisk: warning: {warning_text(text)}\n"
    assert warning_text(text) == "window: fewer than 10 periods"
    assert warning_message(text, "empirical") == warning_text(text, label) == "Window: fewer than 10 periods"
