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

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


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


def leading_param(message: str) -> str | None:
    """The parameter a message starts with (``"epsilon: must be …"`` → ``"epsilon"``), if it looks like one.

    A warning names its parameter so (warnings carry no ``param``); an error carries it as :attr:`PrivriskError.param`.

    Example:
        >>> leading_param("epsilon: must be > 0"), leading_param("data.csv: no such file")
        ('epsilon', None)
    """
    head, sep, _ = str(message).partition(":")
    if sep and head.isidentifier():
        return head
    return None


def named_message(message: str, param: str | None, name: str | None) -> str:
    """``message`` with its leading ``param:`` replaced by a front end's ``name:`` (unchanged when it does not
    start so): the command line passes the option, the app the input's label.

    Example:
        >>> named_message("delta: must be < 1", "delta", "--delta"), named_message("data.csv: empty", "delta", "--delta")
        ('--delta: must be < 1', 'data.csv: empty')
    """
    if not param or not name or not message.startswith(param + ":"):
        return message
    return name + message[len(param) :]


def warning_text(message: Warning | str, name: Callable[[str], str | None] | None = None) -> str:
    """The one line a front end shows for a library warning: whitespace folded, its parameter named.

    The command line prints it after ``privrisk: warning:`` with ``name`` giving the option, the app shows it
    with ``name`` giving the input's label; a warning names its parameter as an error does, by a leading
    ``name:``.

    Example:
        >>> warning_text("window:  fewer than\\n 10 periods", lambda p: p.title())
        'Window: fewer than 10 periods'
    """
    text = " ".join(str(message).split())
    param = leading_param(text)
    if param is None or name is None:
        return text
    return named_message(text, param, name(param))


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


def deprecated_alias(new: _F, old: str) -> _F:
    """``new`` under its old name ``old``, kept one release: each call warns with a :class:`DeprecationWarning`.

    Example:
        >>> import warnings
        >>> def sample_laplace(x):
        ...     return x
        >>> laplace_mechanism = deprecated_alias(sample_laplace, "laplace_mechanism")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     laplace_mechanism(3)
        3
        >>> str(caught[0].message)
        'laplace_mechanism is deprecated and will be removed in the next release; use sample_laplace'
    """

    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(deprecation_message(old, new.__name__), DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: use :func:`{new.__name__}` (same arguments).\n\n{new.__doc__ or ''}"
    return alias  # type: ignore[return-value]


def renamed_attributes(namespace: dict[str, Any], renamed: dict[str, str]) -> Callable[[str], Any]:
    """A module's ``__getattr__`` that gives each old name in ``renamed`` its new object, with a warning.

    For names that must stay the very same object (a class, so that ``isinstance`` still holds), where
    :func:`deprecated_alias` would wrap a function.

    Example:
        >>> import warnings
        >>> class RandomisedResponse: ...
        >>> getter = renamed_attributes({"RandomisedResponse": RandomisedResponse},
        ...                             {"RandomizedResponse": "RandomisedResponse"})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     getter("RandomizedResponse") is RandomisedResponse
        True
        >>> str(caught[0].message)
        'RandomizedResponse is deprecated and will be removed in the next release; use RandomisedResponse'
    """
    module = namespace.get("__name__", "module")

    def __getattr__(name: str) -> Any:
        new = renamed.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(deprecation_message(name, new), DeprecationWarning, stacklevel=2)
        return namespace[new]

    return __getattr__


def lazy_attribute(namespace: dict[str, Any], homes: Mapping[str, str], name: str) -> Any:
    """A package's public ``name`` imported on first use from its home module in ``homes`` (PEP 562), then kept.

    The body of a package's ``__getattr__``, so that importing the package pulls in none of its heavy modules.

    Example:
        >>> namespace = {"__name__": "pkg"}
        >>> lazy_attribute(namespace, {"sqrt": "math"}, "sqrt")(4.0), "sqrt" in namespace
        (2.0, True)
        >>> lazy_attribute(namespace, {}, "cbrt")
        Traceback (most recent call last):
        AttributeError: module 'pkg' has no attribute 'cbrt'
    """
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    namespace[name] = value
    return value


def deprecation_message(old: str, new: str) -> str:
    """The one wording of a deprecated name's warning."""
    return f"{old} is deprecated and will be removed in the next release; use {new}"
