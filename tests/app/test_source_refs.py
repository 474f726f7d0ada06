"""Shiny's source references and values' names, kept once worked out (``privrisk.app._source_refs``): the same
answers as shiny's own, worked out once per function or per calling line, not once per session."""

from __future__ import annotations

import functools

import pytest
from shiny import reactive
from shiny.otel import _attributes
from shiny.reactive._reactives import Value

from privrisk.app import _source_refs
from privrisk.app._source_refs import _cached_source_ref, _cached_value_name, install


def plain():
    return 1


def _decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@_decorator
def decorated():
    return 2


class Holder:
    def method(self):
        return 3


def _closures():
    made = []
    for i in range(3):

        def inner(i=i):
            return i

        made.append(inner)
    return made


FUNCTIONS = [plain, decorated, Holder().method, lambda: 4, len, functools.partial(plain), *_closures()]


def _original_source_ref():
    current = _attributes.extract_source_ref
    return getattr(current, "__wrapped__", current)


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: getattr(f, "__name__", type(f).__name__))
def test_a_kept_source_reference_is_shiny_s_own(func):
    original = _original_source_ref()
    cached = _cached_source_ref(original)
    first, again = cached(func), cached(func)
    assert first == again == original(func)
    assert first is not again  # each caller may change its own dict


def test_the_source_of_one_function_is_read_once_however_many_sessions_ask():
    calls = []

    def counting(func):
        calls.append(func)
        return {"code.function.name": func.__name__}

    cached = _cached_source_ref(counting)
    for inner in _closures() * 4:  # one code object, twelve functions: as each session makes its own
        cached(inner)
    cached(plain)
    assert len(calls) == 2


def _values():
    """Values made in each way shiny's name guess knows, and in ways it gives up on."""
    counter = reactive.value(0)
    typed: reactive.Value[int] = reactive.value(1)
    spread: reactive.Value[tuple[int, ...]] = (
        reactive.value(())
    )
    listed = [reactive.value(2), reactive.value(3)]
    box = type("Box", (), {})()
    box.inside = reactive.value(4)
    named = reactive.value(5, name="given")
    return [counter, typed, spread, *listed, box.inside, named]


def test_kept_values_names_are_shiny_s_own_guesses():
    original = getattr(Value._try_infer_name, "__wrapped__", Value._try_infer_name)
    saved = Value._try_infer_name
    try:
        Value._try_infer_name = original  # type: ignore[method-assign]
        expected = [v._name for v in _values()]
        Value._try_infer_name = _cached_value_name(original)  # type: ignore[method-assign]
        first = [v._name for v in _values()]
        again = [v._name for v in _values()]  # from the cache: the same calls on the same lines
    finally:
        Value._try_infer_name = saved  # type: ignore[method-assign]
    # (shiny's guess for a list of values reads the lines above it: whatever it finds, the cache finds too)
    assert expected[:3] + expected[-2:] == ["counter", "typed", "spread", "inside", "given"]
    assert first == again == expected


def test_install_replaces_every_reference_once():
    assert install() and install()
    cached = _attributes.extract_source_ref
    assert getattr(cached, "__privrisk_cached__", False)
    for name in _source_refs._MODULES:
        module = __import__(name, fromlist=["extract_source_ref"])
        assert module.extract_source_ref is cached
    assert getattr(Value._try_infer_name, "__privrisk_cached__", False)
    assert not hasattr(_original_source_ref(), "__privrisk_cached__")
