"""Plain option values without pydantic, so that a light command starts without importing it.

Typer 0.29 turns every option's text into its value through a pydantic ``TypeAdapter``: importing pydantic and
building one adapter per option is about a third of ``privrisk risk``'s start. A well-formed ``str``, ``int``,
``float``, ``bool`` or plain ``Path`` needs none of that, so :func:`install` gives such options a coercion of their own. The
result is the value pydantic gives for the same text (``tests/cli/test_coercion.py`` checks both on the same
inputs); any other text — malformed, unusual (``" 1"``, ``"1_000"``, ``"inf"``) — and every other type, range or
parser still goes to Typer's own adapter, so its error messages are Typer's.

The patch replaces a private function of Typer, so it is pinned: :func:`install` patches only the Typer versions
it was tested with (:data:`TESTED_TYPER`), and only when Typer's internals are what it expects. Any other Typer
runs on its own path, pydantic included: slower to start, the same values and messages (the tests run both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin

# The text python's int() and float() read exactly as pydantic's lax mode does (ASCII digits, no spaces).
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Options whose ParameterInfo carries any of these go to Typer's adapter (ranges, parsers, path checks).
_CONSTRAINTS = ("parser", "click_type", "min", "max", "exists", "resolve_path", "path_type")
# The Typer versions whose private ``core.build_runtime_param`` this module was tested with: at least the first,
# below the second (tests/cli/test_coercion.py). Raise the bound after running those tests on a newer Typer.
TESTED_TYPER = ((0, 29), (0, 30))
_PATH_DEFAULTS = {
    "file_okay": True,
    "dir_okay": True,
    "writable": False,
    "readable": True,
    "allow_dash": False,
}


def plain_type(annotation: Any, info: Any) -> type | None:
    """``str``, ``int``, ``float``, ``bool`` or ``Path`` when an option of this annotation needs no adapter, else None.

    Example:
        >>> class Info:
        ...     parser = click_type = min = max = exists = resolve_path = path_type = None
        ...     clamp = False
        >>> plain_type(float | None, Info()), plain_type(list[str], Info())
        (<class 'float'>, None)
    """
    if get_origin(annotation) in (Union, type(int | None)):
        args = [a for a in get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else None
    if annotation not in (str, int, float, bool, Path):
        return None
    # Identity, not equality: a range from 0 (min=0 == False) is still a range.
    if any(
        getattr(info, name, None) is not None and getattr(info, name) is not False for name in _CONSTRAINTS
    ):
        return None
    if annotation is Path and any(getattr(info, k, v) != v for k, v in _PATH_DEFAULTS.items()):
        return None
    return annotation


def plain_value(kind: type, value: Any) -> Any:
    """The value of ``value`` for an option of type ``kind``, or :data:`NotImplemented` for Typer's adapter.

    Example:
        >>> plain_value(int, "10"), plain_value(float, "1e-6"), plain_value(float, 2), plain_value(int, " 1")
        (10, 1e-06, 2.0, NotImplemented)
    """
    if kind is str:
        return value if isinstance(value, str) else NotImplemented
    if kind is bool:
        return value if type(value) is bool else NotImplemented
    if kind is int:
        if type(value) is int:
            return value
        return int(value) if isinstance(value, str) and _INT.fullmatch(value) else NotImplemented
    if kind is float:
        if type(value) in (int, float):
            return float(value)
        return float(value) if isinstance(value, str) and _FLOAT.fullmatch(value) else NotImplemented
    if isinstance(value, Path):
        return value
    return Path(value) if isinstance(value, str) and value else NotImplemented


def typer_is_tested(version: str) -> bool:
    """True if Typer ``version`` is one of :data:`TESTED_TYPER`'s (the patch is installed only on those).

    Example:
        >>> typer_is_tested("0.29.2"), typer_is_tested("0.30.0"), typer_is_tested("0.28.0"), typer_is_tested("1.0")
        (True, False, False, False)
    """
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None:
        return False
    release = (int(found[1]), int(found[2]))
    return TESTED_TYPER[0] <= release < TESTED_TYPER[1]


def install() -> bool:
    """Give Typer's plain options the coercion above; return whether it is installed.

    Nothing is patched on a Typer outside :data:`TESTED_TYPER` or whose internals differ from those tested; the
    command line then runs on Typer's own path.
    """
    import typer

    if not typer_is_tested(getattr(typer, "__version__", "")):
        return False
    try:
        from typer import _coercion, core
    except ImportError:  # pragma: no cover - another Typer
        return False
    found = getattr(core, "build_runtime_param", None)
    base = getattr(_coercion, "RuntimeParam", None)
    if found is None or base is None or getattr(found, "_privrisk", False):
        return found is not None
    build: Any = found

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):  # type: ignore[misc, valid-type]
        """A str, int, float or Path option: plain text in, the value out; anything else to Typer's adapter."""

        kind: type = str
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            result = plain_value(self.kind, value)
            if result is NotImplemented:
                return build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return result

    def build_runtime_param(descriptor: Any) -> Any:
        kind = None
        if getattr(descriptor, "file_annotation", None) is None:
            kind = plain_type(descriptor.annotation, descriptor.parameter_info)
        if kind is None:
            return build(descriptor)
        return PlainRuntimeParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            kind=kind,
            descriptor=descriptor,
        )

    build_runtime_param._privrisk = True  # type: ignore[attr-defined]
    build_runtime_param._typer = build  # type: ignore[attr-defined]  # Typer's own, for the tests of the fallback
    core.build_runtime_param = build_runtime_param
    return True
