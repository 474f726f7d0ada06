"""One spelling in public names: British (``summarise_ledger``, ``RandomisedResponse``, ``search_generalisation``).

The walk covers the curated API: every name in ``privrisk.__all__`` and in the ``__all__`` of every module that
has one; for a function, its parameters; for a class, its own public attributes, methods and their parameters.
A name fails if one of its words (split at ``_`` and at CamelCase humps) is spelled the American way: -ize,
-ization, -yze, color, behavior, center. ``colormap`` is Matplotlib's word; the old spellings, kept one release
as deprecated aliases, are recognised by their docstring ("Deprecated: …").

The old names still work: each warns with a ``DeprecationWarning`` and gives what the new name gives.
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings
from collections.abc import Iterator

import pytest
from tests.test_api import EXPORTING

import privrisk

# Matplotlib's own word (privrisk.reports.plots.colormap wraps matplotlib.colormaps).
ALLOWED = {"colormap", "colormaps"}
# Words that end in -ize without the suffix: the same in British English.
NOT_A_SUFFIX = re.compile(r"(size[sd]?|sizing|prize[sd]?|seize[sd]?|maize)$")
AMERICAN = re.compile(
    r"(?:[a-z]{2,}(?:iz(?:e|ed|es|ing|ation|ations)|yz(?:e|ed|es|ing))"
    r"|colors?|colored|coloring|behaviors?|center(?:s|ed|ing)?)$"
)


def words(name: str) -> list[str]:
    """The words of a snake_case or CamelCase name, lower case: ``KaryRandomizedResponse`` → kary, randomized, …"""
    out = []
    for part in name.split("_"):
        out += [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part)]
    return out


def american(name: str) -> list[str]:
    """The words of ``name`` spelled the American way (``[]`` for a British or neutral name)."""
    if name.lower() in ALLOWED:
        return []
    return [
        w for w in words(name) if w not in ALLOWED and not NOT_A_SUFFIX.search(w) and AMERICAN.fullmatch(w)
    ]


def deprecated(obj: object) -> bool:
    """A name kept one release: :func:`privrisk.errors.deprecated_alias` and the old properties say so first."""
    doc = obj.fget.__doc__ if isinstance(obj, property) else getattr(obj, "__doc__", None)
    return isinstance(doc, str) and doc.startswith("Deprecated:")


def parameters(obj: object) -> list[str]:
    try:
        return list(inspect.signature(obj).parameters)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # builtins and objects without a signature
        return []


def public_names(module_name: str) -> Iterator[tuple[str, str]]:
    """(where, name) of every public name a module exports, with its parameters and its classes' members."""
    module = importlib.import_module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if deprecated(obj):
            continue
        where = f"{module_name}.{name}"
        yield module_name, name
        if inspect.isclass(obj):
            if obj.__module__.split(".")[0] != "privrisk":
                continue  # a third party's class re-exported: its names are not ours
            for member, value in vars(obj).items():
                if member.startswith("_") or deprecated(value):
                    continue
                yield where, member
                function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
                if inspect.isfunction(function):
                    yield from (
                        (f"{where}.{member}", p) for p in parameters(function) if p not in {"self", "cls"}
                    )
            yield from ((where, p) for p in parameters(obj) if not p.startswith("_"))
        elif inspect.isfunction(obj) and obj.__module__.startswith("privrisk"):
            yield from ((where, p) for p in parameters(obj) if not p.startswith("_"))


# ------------------------------------------------------------------------------------------- the check itself
@pytest.mark.parametrize(
    "name",
    [
        "summarize_ledger",
        "sanitize_svg",
        "KaryRandomizedResponse",
        "randomized_response_rdp",
        "DISCRETIZATION",
        "discretization",
        "normalize",
        "analyze_table",
        "bar_color",
        "BehaviorSettings",
        "center",
    ],
)
def test_the_check_finds_an_american_spelling(name):
    assert american(name), name


@pytest.mark.parametrize(
    "name",
    [
        "summarise_ledger",
        "KaryRandomisedResponse",
        "search_generalisation",
        "DISCRETISATION",
        "colormap",
        "sample_sizes",
        "population_size",
        "suda_max_size",
        "batch_size",
        "SizeLimit",
        "colour",
        "centre",
        "analyse",
        "prize",
    ],
)
def test_the_check_passes_a_british_or_neutral_name(name):
    assert not american(name), name


def test_the_check_reads_the_words_of_a_name():
    assert words("KaryRandomisedResponse") == ["kary", "randomised", "response"]
    assert words("DISCRETISATION") == ["discretisation"]
    assert words("read_JSONFile") == ["read", "json", "file"]


def test_the_walk_reaches_members_and_parameters():
    found = set(public_names("privrisk.accounting.composition"))
    assert ("privrisk.accounting.composition.PldComposition", "discretisation") in found
    assert ("privrisk.accounting.composition", "PldComposition") in found
    found = set(public_names("privrisk.release"))
    assert ("privrisk.release.summarise_ledger", "budget") in found
    # The deprecated spellings are left out by their docstring, not by a list of names.
    assert ("privrisk.accounting.composition.PldComposition", "discretization") not in found
    assert deprecated(privrisk.accounting.composition.PldComposition.__dict__["discretization"])


# --------------------------------------------------------------------------------------- the public API as is
@pytest.mark.parametrize("module", ["privrisk", *(m for m in EXPORTING if m != "privrisk")])
def test_public_names_are_spelled_the_british_way(module):
    bad = [
        f"{where}: {name} ({', '.join(american(name))})"
        for where, name in public_names(module)
        if american(name)
    ]
    assert not bad, "American spellings in public names:\n" + "\n".join(bad)


# ------------------------------------------------------------------------------- the old spellings, one release
def _warns_as(old: str, new: str):
    return pytest.warns(DeprecationWarning, match=f"{old} is deprecated and will be removed .*; use {new}$")


def test_summarize_ledger_warns_and_summarises_the_same(tmp_path):
    from privrisk.release import summarise_ledger, summarize_ledger
    from privrisk.release.ledger import record_release

    ledger = tmp_path / "ledger.json"
    record_release(ledger, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}])
    record_release(ledger, queries=[{"column": "h", "query": "sum", "epsilon": 0.25}])
    with _warns_as("summarize_ledger", "summarise_ledger"):
        old = summarize_ledger(ledger, budget=1)
    new = summarise_ledger(ledger, budget=1)
    assert old.to_dict() == new.to_dict()
    assert new.total_epsilon == 0.75 and new.left == 0.25  # 0.5 + 0.25 spent of 1


def test_sanitize_svg_warns_and_sanitises_the_same():
    from privrisk.reports import sanitise_svg, sanitize_svg

    svg = '<svg xmlns="http://www.w3.org/2000/svg" onload="x()"><script>1</script><rect id="a"/></svg>'
    with _warns_as("sanitize_svg", "sanitise_svg"):
        old = sanitize_svg(svg, prefix="p-")
    assert old == sanitise_svg(svg, prefix="p-")
    assert "onload" not in old and "script" not in old and 'id="p-a"' in old


def test_randomized_response_rdp_warns_and_gives_the_same_curve():
    import numpy as np

    from privrisk.accounting.guarantees import randomised_response_rdp, randomized_response_rdp

    orders = np.array([1.5, 2.0, 10.0])
    with _warns_as("randomized_response_rdp", "randomised_response_rdp"):
        old = randomized_response_rdp(1.0, orders)
    np.testing.assert_array_equal(old, randomised_response_rdp(1.0, orders))
    # Mironov 2017, Prop. 5 at α = 2: ln(p²/q + q²/p) with p = e/(1 + e), q = 1/(1 + e).
    p = np.e / (1 + np.e)
    assert old[1] == pytest.approx(np.log(p**2 / (1 - p) + (1 - p) ** 2 / p), rel=1e-12)


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("privrisk.accounting.mechanisms", "RandomizedResponse", "RandomisedResponse"),
        ("privrisk.accounting.kary", "KaryRandomizedResponse", "KaryRandomisedResponse"),
        ("privrisk.accounting.composition", "DISCRETIZATION", "DISCRETISATION"),
    ],
)
def test_an_old_module_name_warns_and_is_the_new_object(module, old, new):
    home = importlib.import_module(module)
    with _warns_as(old, new):
        value = getattr(home, old)
    assert value is getattr(home, new)
    assert old not in home.__all__


def test_the_old_class_names_keep_isinstance():
    from privrisk.accounting import kary_randomised_response_guarantee, randomised_response_guarantee

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from privrisk.accounting.kary import KaryRandomizedResponse
        from privrisk.accounting.mechanisms import RandomizedResponse

    assert isinstance(randomised_response_guarantee(epsilon=1.0), RandomizedResponse)
    assert isinstance(kary_randomised_response_guarantee(epsilon=1.0, categories=3), KaryRandomizedResponse)


def test_the_old_discretization_property_warns_and_gives_the_grid():
    from privrisk.accounting import compose, gaussian_guarantee, laplace_guarantee
    from privrisk.accounting.composition import DISCRETISATION, PldComposition

    g = compose([laplace_guarantee(epsilon=1.0), gaussian_guarantee(sigma=2.0)])
    assert isinstance(g, PldComposition)
    with _warns_as("discretization", "discretisation"):
        old = g.discretization
    assert old == g.discretisation == DISCRETISATION  # a narrow loss: dp_accounting's default grid
