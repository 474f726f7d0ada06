"""Plain option values without pydantic (privrisk.cli._coercion) give what Typer's pydantic adapter gives."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from privrisk.cli._coercion import install, plain_type, plain_value

ADAPTERS = {kind: TypeAdapter(kind) for kind in (int, float, str, bool, Path)}


def _pydantic(kind, value):
    try:
        return ADAPTERS[kind].validate_python(value)
    except ValidationError:
        return ValidationError


def _same(kind, value):
    mine = plain_value(kind, value)
    if mine is NotImplemented:  # Typer's adapter decides, as before
        return
    theirs = _pydantic(kind, value)
    assert theirs is not ValidationError, (kind, value)
    assert type(mine) is type(theirs)
    assert mine == theirs or (isinstance(mine, float) and math.isnan(mine) and math.isnan(theirs))


NUMBERISH = st.text(alphabet="0123456789+-.eE _infa ", max_size=12)


@given(NUMBERISH)
def test_ints_read_as_pydantic_reads_them(text):
    _same(int, text)


@given(NUMBERISH)
def test_floats_read_as_pydantic_reads_them(text):
    _same(float, text)


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.text(max_size=8)))
def test_values_that_are_not_text_read_as_pydantic_reads_them(value):
    for kind in (int, float, str, bool, Path):
        _same(kind, value)


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [(int, "10", 10), (int, "-3", -3), (float, "1e-6", 1e-6), (float, "0.5", 0.5), (float, ".5", 0.5),
     (float, "7", 7.0), (str, "ln3", "ln3"), (Path, "out.html", Path("out.html"))],
)  # fmt: skip
def test_plain_text_is_read_without_an_adapter(kind, text, value):
    assert plain_value(kind, text) == value and type(plain_value(kind, text)) is type(value)


@pytest.mark.parametrize(("kind", "text"), [(int, " 10"), (int, "1_000"), (int, "1.5"), (float, "inf"),
                                            (float, "1,5"), (Path, ""), (int, "x")])  # fmt: skip
def test_anything_unusual_goes_to_typers_adapter(kind, text):
    assert plain_value(kind, text) is NotImplemented


def test_constrained_options_keep_typers_adapter():
    class Info:
        parser = click_type = min = max = path_type = None
        exists = resolve_path = False
        file_okay = dir_okay = readable = True
        writable = allow_dash = False

    ranged = Info()
    ranged.min = 0
    checked = Info()
    checked.exists = True
    assert plain_type(int, Info()) is int and plain_type(int | None, Info()) is int
    assert plain_type(int, ranged) is None and plain_type(Path, checked) is None
    assert plain_type(list[int], Info()) is None and plain_type(int | str, Info()) is None


def test_install_is_idempotent_and_bad_values_keep_typers_message(cli):
    assert install() and install()
    r = cli("risk", "--epsilon", "1", "--n", "x")
    assert r.code == 2 and "--n" in r.err and "valid integer" in r.err
    r = cli("risk", "--epsilon", "1", "--n", " 10", "--json")  # unusual text: the adapter reads it, as before
    assert r.code == 0


def test_the_patch_is_pinned_to_the_typer_is_tested_versions():
    import typer

    from privrisk.cli._coercion import TESTED_TYPER, typer_is_tested

    assert typer_is_tested(typer.__version__)  # the Typer of this environment is one the tests ran on
    low, high = TESTED_TYPER
    assert typer_is_tested(f"{low[0]}.{low[1]}.0") and not typer_is_tested(f"{high[0]}.{high[1]}.0")
    assert not typer_is_tested(f"{low[0]}.{low[1] - 1}.9") and not typer_is_tested("") and not typer_is_tested("dev")


def test_another_typer_runs_on_its_own_path(cli, monkeypatch):
    # A Typer outside the tested range is left alone: Typer's own build_runtime_param (pydantic) reads the
    # options, with the same values and the same messages as the patch.
    import typer
    from typer import core

    patched = core.build_runtime_param
    patched_doc = cli("risk", "--epsilon", "1", "--n", "10", "--json").json
    built = []

    def typers_own(descriptor):
        built.append(descriptor)
        return patched._typer(descriptor)

    monkeypatch.setattr(core, "build_runtime_param", typers_own)
    monkeypatch.setattr(typer, "__version__", "0.99.0")
    assert install() is False
    assert core.build_runtime_param is typers_own  # nothing patched
    r = cli("risk", "--epsilon", "1", "--n", "10", "--json")
    assert r.code == 0 and r.json == patched_doc
    assert built  # the options went through Typer's own path
    r = cli("risk", "--epsilon", "1", "--n", "x")
    assert r.code == 2 and "--n" in r.err and "valid integer" in r.err
