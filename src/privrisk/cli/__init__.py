"""The ``privrisk`` command: thin, one module per capability; each only parses, calls the library and formats.

Exit codes (DESIGN.md): 0 success; 1 a risk threshold the user set was exceeded; 2 bad input or usage, with a
one-line message and no traceback; anything else is a bug.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import click
import typer

from privrisk.cli._app import app
from privrisk.cli._common import PARAM_OPTIONS
from privrisk.errors import PrivriskError, ThresholdExceeded

# One module per capability; importing it registers its commands with ``app``.
COMMAND_MODULES = (
    "risk",
    "sensitivity",
    # (study)
    "study",
    # (attack)
    "attack",
    # (presence)
    "presence",
    # (audit)
    "audit",
    # (empirical)
    "empirical",
    # (release)
    "release",
    # (explain)
    "explain",
)
for _name in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}")

__all__ = ["app", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of raising.

    Example:
        >>> main(["risk", "--epsilon", "ln3", "--json"])  # doctest: +ELLIPSIS
        {"schema_version": 1, ...}
        0
    """
    command = typer.main.get_command(app)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        command.main(args=args, prog_name="privrisk", standalone_mode=False)
    except PrivriskError as exc:
        _error(option_message(exc, command, args))
        return 2
    except ThresholdExceeded as exc:
        print(f"privrisk: {exc}", file=sys.stderr)
        return 1
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        _error("aborted")
        return 130
    except typer.TyperException as exc:
        if (
            type(exc).__name__ == "NoArgsIsHelpError"
        ):  # a bare `privrisk` or group: show the help, as git does
            print(exc.format_message(), file=sys.stderr)
            return 2
        _error(exc.format_message())
        return int(exc.exit_code) if exc.exit_code else 2
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    return 0


def option_message(exc: PrivriskError, command: click.Command, args: Sequence[str]) -> str:
    """The library's message with its parameter named as the command's option (``density:`` → ``--density:``).

    The library names parameters, never options (docs/architecture.md); the option is looked up in the
    command that ran: ``PARAM_OPTIONS`` first, then ``--`` + the parameter with dashes if the command has it.
    """
    message = str(exc)
    param = exc.param
    if not param or not message.startswith(param + ":"):
        return message
    sub = next((a for a in args if not a.startswith("-")), None)
    cmd = command.commands.get(sub) if isinstance(command, click.Group) and sub else None  # type: ignore[union-attr]
    if cmd is None:
        return message
    option = PARAM_OPTIONS.get(cmd.name or "", {}).get(param)
    if option is None:
        wanted = "--" + param.replace("_", "-")
        if any(wanted in p.opts for p in cmd.params if isinstance(p, click.Option)):
            option = wanted
    return option + message[len(param) :] if option else message


def _error(message: str) -> None:
    line = " ".join(str(message).split())
    print(f"privrisk: error: {line}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
