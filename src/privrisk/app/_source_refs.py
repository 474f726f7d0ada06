"""Shiny's source references, worked out once per function instead of once per session.

Shiny 1.8 labels every reactive it creates for OpenTelemetry, whether or not anything traces: each output, effect
and extended task reads its function's source (``inspect.getsourcelines``, which tokenises the whole function),
and each ``reactive.value`` walks the call stack with ``inspect.stack()``, which reads a line of source for every
frame, to guess the variable's name. A session of this app creates some hundreds of them on its eleven pages: a
profile of twenty-two page loads (``py-spy``) found 29 of the server's 69 s there, about 1.3 s of every page
opened, which the app's first content (≤ 1 s) and every browser test waited for.

The answers depend on the function's code, or on the lines of the calls that created the value, and never on the
session: :func:`install` keeps them, keyed on what they depend on, and gives shiny the same answers it would have
worked out (a test compares them). Installed by :func:`privrisk.app.server.build_app`; a shiny without these
functions is left as it is.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["install"]

# Where shiny 1.8 imported extract_source_ref by name: each module's own reference is replaced.
_MODULES = (
    "shiny.otel._attributes",
    "shiny.reactive._reactives",
    "shiny.reactive._extended_task",
    "shiny.session._session",
)
_MOST_KEPT = 10_000
_lock = threading.Lock()
_installed = False


def _code_key(func: Callable[..., Any]) -> tuple[Any, ...] | None:
    """What shiny's source reference of ``func`` depends on, or None when it cannot be said (no code object)."""
    try:
        unwrapped = inspect.unwrap(func)
    except (ValueError, AttributeError):
        return None
    code = getattr(unwrapped, "__code__", None)
    if code is None:
        return None
    return code, getattr(func, "__name__", None)


def _cached_source_ref(original: Callable[[Callable[..., Any]], Any]) -> Callable[[Callable[..., Any]], Any]:
    cache: dict[tuple[Any, ...], Any] = {}

    @functools.wraps(original)
    def extract_source_ref(func: Callable[..., Any]) -> Any:
        key = _code_key(func)
        if key is None:
            return original(func)
        if key not in cache:
            cache[key] = original(func)
        return dict(cache[key])  # each caller gets a dict of its own, as from the original

    extract_source_ref.__privrisk_cached__ = True  # type: ignore[attr-defined]
    return extract_source_ref


def _cached_value_name(original: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    cache: dict[tuple[Any, ...], str | None] = {}

    @functools.wraps(original)
    def _try_infer_name(self: Any) -> str | None:
        # The original reads the calls above Value.__init__ (its caller's frame and up); their code and lines say
        # what it finds. frame(1) is Value.__init__, so the calls start at frame(2).
        frame = sys._getframe(2)
        key: list[Any] = []
        while frame is not None:
            key.append((frame.f_code, frame.f_lineno))
            frame = frame.f_back  # type: ignore[assignment]
        known = tuple(key)
        if len(cache) > _MOST_KEPT:  # values made on ever new paths (none in this app) must not grow it forever
            cache.clear()
        if known not in cache:
            cache[known] = original(self)
        return cache[known]

    _try_infer_name.__privrisk_cached__ = True  # type: ignore[attr-defined]
    return _try_infer_name


def install() -> bool:
    """Let shiny work out each source reference and each value's name once; True if shiny has them to cache.

    Idempotent, and thread-safe. Shiny's answers are unchanged: only the repeated work is saved.

    Example:
        >>> install() and install()
        True
    """
    global _installed
    with _lock:
        if _installed:
            return True
        try:
            modules = [importlib.import_module(name) for name in _MODULES]
            from shiny.reactive._reactives import Value
        except ImportError:
            return False
        if not all(hasattr(m, "extract_source_ref") for m in modules) or not hasattr(Value, "_try_infer_name"):
            return False
        cached = _cached_source_ref(modules[0].extract_source_ref)
        for module in modules:
            setattr(module, "extract_source_ref", cached)  # noqa: B010 (a module of shiny's, by name)
        Value._try_infer_name = _cached_value_name(Value._try_infer_name)  # type: ignore[method-assign,assignment]
        _installed = True
        return True
