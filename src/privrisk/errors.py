"""Errors and warnings that privrisk raises.

Every error a user can cause by bad input is a :class:`PrivriskError`. Its message starts with the name of the
parameter that was wrong (``"density: unknown density 'kde'"``) and its :attr:`PrivriskError.param` holds that
name, so the command line can name its own option for it without the library knowing the command
line. A violated risk threshold is :class:`ThresholdExceeded`, which carries ``param`` in the same way; the
command line turns the first into one line on stderr and exit code 2, the second into exit code 1
(docs/architecture.md).

Example:
    >>> e = PrivriskError("density: unknown density 'kde'", param="density")
    >>> e.param, str(e)
    ('density', "density: unknown density 'kde'")
"""

from __future__ import annotations

from privrisk._params import leading_param


class PrivriskError(ValueError):
    """Bad input: a file, a column, a parameter. The message names what was wrong in one line.

    Args:
        message: One line; it starts with ``param + ":"`` when a parameter was wrong.
        param: The library parameter that was wrong, if one was (``"epsilon"``, ``"density"``); None for files,
            columns and data.
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        if param is None:
            param = _leading_name(message)
        self.param: str | None = param


def _leading_name(message: str) -> str | None:
    """The parameter a message starts with (``"epsilon: must be …"`` → ``"epsilon"``), if it looks like one."""
    return leading_param(message)


class ThresholdExceeded(Exception):
    """A risk threshold the user set was exceeded. The command line exits with code 1.

    Args:
        message: One line; it starts with ``param + ":"`` when it names the threshold's parameter first.
        param: The library parameter that set the threshold (``"budget"``, ``"max_risk"``), if one did; read from
            a leading ``name:`` when not given, as for :class:`PrivriskError`.

    Example:
        >>> ThresholdExceeded("budget: this release needs ε = 2; ε = 1 is left").param
        'budget'
        >>> ThresholdExceeded("two-worlds risk 0.7311 exceeds 0.6", param="max_risk").param
        'max_risk'
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        if param is None:
            param = _leading_name(message)
        self.param: str | None = param


class PrivacyLeakWarning(UserWarning):
    """A computation leaks more than the user may think (as diffprivlib's warning of the same name)."""


class DependenceWarning(UserWarning):
    """The data break an assumption of the method (e.g. the periods of empirical DP are autocorrelated)."""
