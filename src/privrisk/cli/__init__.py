"""The ``privrisk`` command: thin, one module per capability; each only parses, calls the library and formats.

Exit codes (docs/architecture.md): 0 success; 1 a risk threshold the user set was exceeded; 2 bad input or usage,
with a one-line message and no traceback (an output that cannot be written too); 130 interrupted, 143 terminated
(SIGTERM); anything else is a bug: one line and exit 70, the traceback with ``privrisk --debug …``. A library error names its parameter and
:func:`main` names the option instead; a library warning is one line ``privrisk: warning: …`` on stderr.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_during_start_up(signum: int, frame: object) -> None:
    """Ctrl-C while ``privrisk`` imports its modules: nothing is written yet, so stop at once (exit 130)."""
    os.write(2, b"privrisk: error: interrupted\n")
    os._exit(130)


def _is_the_privrisk_command() -> bool:
    """Whether this process is ``privrisk …`` or ``python -m privrisk …`` (not a program importing the package)."""
    first = sys.argv[0] if sys.argv else ""
    return os.path.basename(first) == "privrisk" or first.endswith(os.path.join("privrisk", "__main__.py"))


# The first thing the command does: until main() takes over, Ctrl-C is exit 130 without a traceback. Only for
# the command itself, and only when Python's own handler is in place (a background job that ignores SIGINT
# keeps ignoring it).
_START_UP_HANDLER = (
    _is_the_privrisk_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler
)
if _START_UP_HANDLER:
    signal.signal(signal.SIGINT, _interrupted_during_start_up)

import contextlib  # noqa: E402
import importlib  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Iterator, Sequence  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any, TextIO  # noqa: E402

import typer  # noqa: E402

from privrisk.cli import _app  # noqa: E402
from privrisk.cli._names import option as named_option  # noqa: E402
from privrisk.errors import (  # noqa: E402  # noqa: E402
    DependenceWarning,
    PrivacyLeakWarning,
    PrivriskError,
    ThresholdExceeded,
    leading_param,
    named_message,
    warning_text,
)

if TYPE_CHECKING:
    app: typer.Typer

from privrisk.cli._commands import COMMANDS  # noqa: E402

# The modules that define commands, in the order of the table.
COMMAND_MODULES = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))

__all__ = ["COMMANDS", "COMMAND_MODULES", "Terminated", "app", "main"]


def __getattr__(name: str) -> Any:
    """``privrisk.cli.app``: the Typer application with every command registered (each command module imported).

    :func:`main` does not use it: it imports only the module of the command that runs.
    """
    if name == "app":
        for module in COMMAND_MODULES:
            importlib.import_module(f"{__name__}.{module}")
        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Terminated(BaseException):
    """Raised by :func:`main`'s SIGTERM handler so that ``finally`` blocks (temporary outputs) still run."""


# The signal that stopped this run, noted when it arrives: an extension built with pybind11 (matplotlib's
# ``affine_transform``, HiGHS) turns a KeyboardInterrupt raised while it converts its arguments into a TypeError
# ("incompatible function arguments") that carries no trace of the interrupt.
_stopped_by: list[type[BaseException]] = []


def _terminate(signum: int, frame: object) -> None:
    _stopped_by.append(Terminated)
    raise Terminated(signum)


def _ctrl_c(signum: int, frame: object) -> None:
    """Python's own SIGINT handler (a KeyboardInterrupt), which also notes that Ctrl-C came."""
    _stopped_by.append(KeyboardInterrupt)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of raising.

    Exit codes: 0 success, 1 a threshold the user set was exceeded, 2 bad input (one line on stderr), 130
    interrupted (Ctrl-C), 143 terminated (SIGTERM), 141 stdout closed early (a pipe), 70 a bug in privrisk (one
    line; ``privrisk --debug …`` shows the traceback).

    Example:
        >>> main(["risk", "--epsilon", "ln3", "--json"])  # doctest: +ELLIPSIS
        {"schema_version": 1, ...}
        0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args[: args.index("--") if "--" in args else len(args)]
    if debug:
        args.remove("--debug")
    previous = None
    _stopped_by.clear()
    with contextlib.suppress(ValueError):  # not in the main thread: leave SIGTERM alone
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        code = _run(args, debug)
    finally:
        if _START_UP_HANDLER:
            # The command is done and its outputs are in place (or not): a Ctrl-C while Python shuts down would
            # be a traceback in whatever code it hits; let the process end with its exit code instead.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if _START_UP_HANDLER:
        from privrisk.cli._process_exit import exit_process  # only the command itself ends this way

        exit_process(code)
    return code


def _run(args: list[str], debug: bool) -> int:
    command = typer.main.get_group(_app.app)
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted_during_start_up:
            # From here Ctrl-C is a KeyboardInterrupt: the temporary outputs are removed on the way out (exit 130).
            signal.signal(signal.SIGINT, _ctrl_c)
        with library_warnings_on_stderr(lambda text: option_message(text, command, args)):
            result = command.main(args=args, prog_name="privrisk", standalone_mode=False)
        if isinstance(result, int) and not isinstance(result, bool) and result != 0:
            if result == 130:
                _error("interrupted")
            return result
    except PrivriskError as exc:
        if debug:
            traceback.print_exc()
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
    except Terminated:
        _error("terminated")
        return 143
    except BrokenPipeError:
        _quiet_stdout()
        return 141
    except SystemExit as exc:
        if isinstance(exc.__context__, BrokenPipeError):  # Rich's console: stdout is already /dev/null
            return 141
        # Typer turns a closed stdout pipe (EPIPE) into sys.exit(1) after wrapping the streams: undo both.
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if type(stream).__name__ == "PacifyFlushWrapper":
                setattr(sys, name, stream.wrapped)
                if name == "stdout":
                    _quiet_stdout()
                    return 141
        raise exc
    except OSError as exc:
        if debug:
            traceback.print_exc()
        if exc.filename is None:
            _quiet_stdout()
            _error(f"cannot write the output: {exc.strerror or exc}")
        else:
            where = exc.filename if exc.filename2 is None else f"{exc.filename} → {exc.filename2}"
            _error(f"{where}: {exc.strerror or exc}")
        return 2
    except Exception as exc:
        stop = _signal_within(exc)
        # Python (before 3.12) wraps what __set_name__ raises in a RuntimeError: a Ctrl-C while matplotlib builds
        # its classes is such a wrapped interrupt, not an internal error. A signal that an extension swallowed
        # left only its note (_stopped_by).
        kind = type(stop) if stop is not None else (_stopped_by[0] if _stopped_by else None)
        if kind is not None:
            interrupted = issubclass(kind, KeyboardInterrupt)
            _error("interrupted" if interrupted else "terminated")
            return 130 if interrupted else 143
        if debug:
            traceback.print_exc()
            _error(f"internal error: {type(exc).__name__}: {exc}")
        else:
            _error(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        return 70
    return 0


def _signal_within(exc: BaseException) -> BaseException | None:
    """The KeyboardInterrupt or :class:`Terminated` that ``exc`` wraps (its causes and contexts), if any."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, (KeyboardInterrupt, Terminated)):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's flush at exit cannot fail again (a closed pipe, a full disk)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def option_message(exc: PrivriskError | str, command: object, args: Sequence[str]) -> str:
    """The library's message with its parameter named as the command's option (``density:`` → ``--density:``).

    The library names parameters, never options (docs/architecture.md); the option is looked up in the
    command that ran: the command line's table (:mod:`privrisk.cli._names`) first, then ``--`` +
    the parameter with dashes if the command has it.
    A warning's text is read as an error's: a leading ``name:`` is its parameter.
    ``command`` is the Click command Typer builds (Typer ships its own copy of Click, so it is read by its
    attributes, ``commands``, ``params`` and ``opts``, not checked against ``click``'s classes).
    """
    message = str(exc)
    param = exc.param if isinstance(exc, PrivriskError) else leading_param(message)
    if not param or not message.startswith(param + ":"):
        return message
    ran = command
    for arg in (a for a in args if not a.startswith("-")):
        sub = getattr(ran, "commands", {}).get(arg)
        if sub is None:
            break
        ran = sub
    if ran is command:
        return message
    option = named_option(param, getattr(ran, "name", None) or "")
    if option is None:
        wanted = "--" + param.replace("_", "-")
        if any(wanted in getattr(p, "opts", ()) for p in getattr(ran, "params", ())):
            option = wanted
    return named_message(message, param, option)


@contextmanager
def library_warnings_on_stderr(name_options: Callable[[str], str] | None = None) -> Iterator[None]:
    """Show privrisk's warnings on stderr, one line each (``privrisk: warning: …``); drop numpy's RuntimeWarnings.

    privrisk's warnings are :class:`~privrisk.errors.PrivacyLeakWarning`,
    :class:`~privrisk.errors.DependenceWarning` and any ``UserWarning`` raised in privrisk's code; each text is
    shown once, with ``name_options`` applied (:func:`main` names the option for a leading parameter, as it does
    for errors). Numerical RuntimeWarnings (``divide by zero``, ``invalid value``) are numpy's way of saying what
    the library handles, not news for the user. Other warnings are shown as Python shows them. Filters set
    outside (``python -W error``, pytest's) still apply, except that the two privrisk warnings are always shown.

    Example:
        >>> import warnings
        >>> with library_warnings_on_stderr():
        ...     warnings.warn("too few periods", PrivacyLeakWarning)  # privrisk: warning: too few periods
    """
    shown: set[str] = set()
    with warnings.catch_warnings():
        for category in (PrivacyLeakWarning, DependenceWarning):
            warnings.simplefilter("always", category)
        python_shows = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, RuntimeWarning):
                return
            if issubclass(category, PrivacyLeakWarning | DependenceWarning) or (
                issubclass(category, UserWarning) and _PACKAGE in Path(filename).resolve().parents
            ):
                text = warning_text(message)
                if name_options is not None:
                    text = name_options(text)
                if text not in shown:
                    shown.add(text)
                    print(f"privrisk: warning: {text}", file=sys.stderr)
                return
            python_shows(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


_PACKAGE = Path(__file__).resolve().parents[1]


def _error(message: str) -> None:
    line = " ".join(str(message).split())
    print(f"privrisk: error: {line}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
