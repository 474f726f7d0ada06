"""The Typer application every command module registers with, and the group that imports those modules on demand.

A command's module is imported when that command runs or shows its ``--help``, not when ``privrisk`` starts:
``privrisk risk`` then never imports pandas, scipy or matplotlib, which the study, presence and release commands
need. The commands, their modules and their one-line help are the table ``privrisk.cli.COMMANDS``;
``privrisk --help`` lists them from that table without importing any module.

Every command is a :class:`PrivriskCommand`, whose ``--help`` shows every word of its help as written: Rich's
markup is escaped (``[[release]]`` stays, Rich would read it as a style), a flag shows no value type (``--json``,
not ``--json <bool>``), an argument is named in capitals (``FILE``), and the paragraphs of a command's help are
reflowed to the terminal's width (Typer keeps the docstring's line breaks after the first paragraph).
tests/cli/test_help.py renders every command's ``--help`` and checks each of these.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

import typer
from typer import _click
from typer.core import TyperArgument, TyperCommand, TyperGroup

from privrisk.cli import _coercion

_coercion.install()  # plain option values without pydantic (see the module)


def _table() -> Mapping[str, tuple[str, str]]:
    from privrisk.cli import COMMANDS  # the package is imported before any command is looked up

    return COMMANDS


def _built_command(name: str) -> _click.Command:
    """Import the module that defines ``name`` (which registers its commands with :data:`app`) and build it."""
    module = f"privrisk.cli.{_table()[name][0]}"
    importlib.import_module(module)
    for info in app.registered_commands:
        callback_name = getattr(info.callback, "__name__", "")
        if (info.name or typer.main.get_command_name(callback_name)) == name:
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise RuntimeError(f"{module} defines no command {name!r} (privrisk.cli.COMMANDS says it does)")


def command_table(modules: Sequence[str]) -> dict[str, tuple[str, str]]:
    """What ``privrisk.cli.COMMANDS`` must say: import each module and read the commands it registers.

    Each command maps to its module and the first paragraph of its docstring (the line ``privrisk --help`` shows),
    in the order the modules register them. Tests compare it with the table; after a command's docstring changes,
    print it to update the table.

    Example:
        >>> command_table(["risk"])["table"][0]
        'risk'
    """
    for module in modules:
        importlib.import_module(f"privrisk.cli.{module}")
    table: dict[str, tuple[str, str]] = {}
    for info in app.registered_commands:
        callback_name = getattr(info.callback, "__name__", "")
        name = info.name or typer.main.get_command_name(callback_name)
        module = getattr(info.callback, "__module__", "").rpartition(".")[2]
        if module in modules:
            help_text = info.help if info.help is not None else inspect.getdoc(info.callback) or ""
            table[name] = (module, inspect.cleandoc(help_text).split("\n\n")[0])
    return table


def readable_help(text: str) -> str:
    """A help text as Rich should print it: each paragraph on one line (Rich wraps it), Rich's markup escaped.

    A paragraph that starts with ``\\b`` keeps its lines (Click's convention); ``\\f`` ends the help.

    Example:
        >>> from rich.text import Text
        >>> Text.from_markup(readable_help("A TOML file of [[release]]\\ntables.\\n\\nExample: privrisk risk")).plain
        'A TOML file of [[release]] tables.\\n\\nExample: privrisk risk'
    """
    from rich.markup import escape

    text = inspect.cleandoc(text).partition("\f")[0]
    paragraphs = [p if p.startswith("\b") else " ".join(p.split()) for p in text.split("\n\n")]
    return escape("\n\n".join(paragraphs))


def _make_readable(command: _click.Command, ctx: _click.Context) -> None:
    """Escape the help of ``command`` and of its parameters (:func:`readable_help`); flags show no value type."""
    if command.help:
        command.help = readable_help(command.help)
    for param in command.get_params(ctx):
        text = getattr(param, "help", None)
        if text:
            param.help = readable_help(text)  # type: ignore[attr-defined]
        if getattr(param, "is_flag", False):
            param.metavar = ""  # Typer shows an option's metavar in place of its type: none for a flag


class PrivriskCommand(TyperCommand):
    """A command whose ``--help`` shows every word of its help, flags as flags and arguments in capitals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar is None and param.name:
                param.metavar = param.name.upper()  # the usage line, the help and "Missing argument 'FILE'"
        self._help_made_readable = False

    def collect_usage_pieces(self, ctx: _click.Context) -> list[str]:
        """``[OPTIONS] FILE``, an optional argument in brackets (Typer writes a required one as ``{file}``)."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = param.metavar or (param.name or "").upper()
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        if not self._help_made_readable:
            self._help_made_readable = True
            _make_readable(self, ctx)
        super().format_help(ctx, formatter)


class _Typer(typer.Typer):
    """A Typer application whose commands are :class:`PrivriskCommand` unless they name another class."""

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Any:
        return super().command(name, cls=cls or PrivriskCommand, **kwargs)


class LazyCommands(MutableMapping[str, _click.Command]):
    """The group's commands: every name of the table, each built (its module imported) when first looked up.

    Iterating gives the names in the table's order without importing anything (Typer's "did you mean" reads the
    names); ``commands[name]`` and ``commands.get(name)`` build the command.
    """

    def __init__(self, built: Mapping[str, _click.Command] | Sequence[_click.Command] | None = None) -> None:
        self._built: dict[str, _click.Command] = {}
        if isinstance(built, Mapping):
            self._built.update(built)
        elif built is not None:
            self._built.update((c.name, c) for c in built if c.name is not None)

    def __getitem__(self, name: str) -> _click.Command:
        command = self._built.get(name)
        if command is None:
            if name not in _table():
                raise KeyError(name)
            command = self._built[name] = _built_command(name)
        return command

    def __setitem__(self, name: str, command: _click.Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in _table()

    def __iter__(self) -> Iterator[str]:
        yield from _table()
        yield from (name for name in self._built if name not in _table())

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def summary(self, name: str) -> _click.Command | None:
        """A stand-in with the command's name and one-line help from the table (which tests/cli/test_startup.py
        keeps equal to the commands' own), built or not; a command outside the table as it is."""
        if name in _table():
            return TyperCommand(name=name, help=readable_help(_table()[name][1]))
        return self._built.get(name)


class LazyGroup(TyperGroup):
    """The ``privrisk`` group: commands from :class:`LazyCommands`; its help lists them without importing them."""

    def __init__(self, *, commands: Any = None, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands: LazyCommands = LazyCommands(commands)
        self._listing = False

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        if self._listing:
            return self.commands.summary(cmd_name)
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return list(self.commands)

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        self._listing = True
        _make_readable(self, ctx)
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = _Typer(
    name="privrisk",
    help="How much risk does a statistical release carry? Differential-privacy risk in numbers and words.",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from privrisk._version import __version__

        print(f"privrisk {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print privrisk's version and exit.",
        is_eager=True,
        callback=_print_version,
    ),
) -> None:
    """How much risk does a statistical release carry? Differential-privacy risk in numbers and words."""
