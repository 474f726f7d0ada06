"""The public API and the house rules (docs/architecture.md), checked over every module of the package.

- every name in every ``__all__`` resolves, and ``from privrisk import *`` works;
- the library never names a command-line option in an error or a warning (only ``privrisk.cli`` speaks options);
- no module imports another subpackage's ``_private`` name.

Modules are found with :mod:`pkgutil` on the source folder, without importing them, so collecting this file is
quick; each module is imported by its own test.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import privrisk

SRC = Path(privrisk.__file__).parent
# Private top-level modules every subpackage is meant to use: one validation layer, one number formatter, the
# processes of their own that the solver sends work to.
SHARED = {"_validation", "_format", "_version", "_workers"}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def module_files(path: Path = SRC, prefix: str = "privrisk") -> Iterator[tuple[str, Path]]:
    """(name, file) of every module of the package, found with pkgutil (``__main__`` left out: it runs)."""
    yield prefix, path / "__init__.py"
    for info in pkgutil.iter_modules([str(path)]):
        name = f"{prefix}.{info.name}"
        if info.name == "__main__":
            continue
        if info.ispkg:
            yield from module_files(path / info.name, name)
        else:
            yield name, path / f"{info.name}.py"


def _defines_all(file: Path) -> bool:
    """Whether the module assigns ``__all__`` (read from its source, not imported)."""
    for node in ast.parse(file.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return False


MODULES = dict(module_files())
FILES = sorted(SRC.rglob("*.py"))
EXPORTING = sorted(name for name, file in MODULES.items() if _defines_all(file))


def _relative(file: Path) -> str:
    return file.relative_to(SRC).as_posix()


def test_the_walk_finds_the_subpackages():
    for name in ("privrisk.risk", "privrisk.cli", "privrisk.io.data", "privrisk.study", "privrisk.presence"):
        assert name in MODULES and name in EXPORTING
    assert set(MODULES.values()) == set(FILES) - {SRC / "__main__.py"}


@pytest.mark.parametrize("name", EXPORTING)
def test_every_name_in_all_resolves(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"


def test_star_import_gives_every_name():
    namespace: dict[str, object] = {}
    exec("from privrisk import *", namespace)
    assert set(privrisk.__all__) <= set(namespace)
    assert namespace["two_worlds"] is privrisk.two_worlds


# ------------------------------------------------------------------------------------------ the house rules
def option_mentions(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, option) for each string in a ``raise`` or a ``warn(...)`` call that names a ``--option``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            parts: list[ast.AST] = [node.exc]
        elif isinstance(node, ast.Call) and _called(node) == "warn":
            parts = [*node.args, *(k.value for k in node.keywords)]
        else:
            continue
        for part in parts:
            for c in ast.walk(part):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and (m := OPTION.search(c.value)):
                    found.append((c.lineno, m.group()))
    return found


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def test_the_option_check_finds_an_option():
    tree = ast.parse('raise PrivriskError(f"--density: unknown {x}")\nwarnings.warn("use --aggregate 2")')
    assert option_mentions(tree) == [(1, "--density"), (2, "--aggregate")]
    assert option_mentions(ast.parse('raise PrivriskError("density: a-b --- -1,-3")')) == []


@pytest.mark.parametrize("file", [f for f in FILES if not _relative(f).startswith("cli/")], ids=_relative)
def test_the_library_never_names_an_option(file):
    found = option_mentions(ast.parse(file.read_text(encoding="utf-8")))
    assert not found, f"{_relative(file)} names options; name the parameter: {found}"


def home(module: str) -> str:
    """The part of the package a module belongs to: its subpackage, or itself for a top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def private_imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, dotted name) for each import of another home's private name or private module."""
    found = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                source = ".".join(
                    [*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])]
                )
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            if parts[0] != "privrisk" or home(target) == home(module):
                continue
            private = [
                p for p in parts[1:] if p.startswith("_") and not p.startswith("__") and p not in SHARED
            ]
            if private:
                found.append((node.lineno, target))
    return found


def test_the_private_import_check_finds_one():
    tree = ast.parse(
        "from privrisk.posterior import _values\n"
        "from privrisk.empirical._spark import run\n"
        "from privrisk._validation import check_k\n"
        "from privrisk.study.sampling import _draw\n"
        "from ._common import out\n"
    )
    assert private_imports(tree, "privrisk.study.attack", False) == [
        (1, "privrisk.posterior._values"),
        (2, "privrisk.empirical._spark.run"),
    ]
    assert private_imports(tree, "privrisk.cli.risk", False)[-1] == (4, "privrisk.study.sampling._draw")


@pytest.mark.parametrize("file", FILES, ids=_relative)
def test_no_module_imports_another_subpackages_private_name(file):
    rel = file.relative_to(SRC.parent).with_suffix("")
    is_package = rel.name == "__init__"
    module = ".".join(rel.parent.parts if is_package else rel.parts)
    found = private_imports(ast.parse(file.read_text(encoding="utf-8")), module, is_package)
    assert not found, f"{_relative(file)} imports private names of another subpackage: {found}"


# ------------------------------------------------------------------------------------------ one list, old names
def test_the_lazy_table_is_the_type_checking_imports():
    # One list: __all__ and the lazy map are read from the `if TYPE_CHECKING:` imports, so every name there
    # resolves to the object of its home module, and the curated names come first in their written order.
    curated, homes = privrisk._table()
    assert curated[:3] == ("many_worlds", "two_worlds", "global_risk") and curated[-1] == "__version__"
    assert set(curated) - {"__version__"} <= set(homes)
    for name, module in homes.items():
        assert getattr(privrisk, name) is getattr(importlib.import_module(module), name), name
    assert {"sample_laplace", "sample_gaussian", "gaussian_guarantee", "laplace_guarantee"} <= set(curated)


def _renamed() -> list[tuple[str, str, str]]:
    """(module, old name, new name) of every name renamed in this release."""
    # The one shape's renamings (run_outputs, OutputsRun) are tested with their capability (tests/outputs).
    top = [("privrisk", old, new) for old, new in privrisk._RENAMED.items() if new in _CALLS or new.startswith("sample_")]
    accounting = [
        ("privrisk.accounting", "laplace_mechanism", "laplace_guarantee"),
        ("privrisk.accounting", "gaussian_mechanism", "gaussian_guarantee"),
        ("privrisk.accounting", "randomized_response", "randomised_response_guarantee"),
        ("privrisk.accounting", "discrete_laplace_mechanism", "discrete_laplace_guarantee"),
        ("privrisk.accounting", "discrete_gaussian_mechanism", "discrete_gaussian_guarantee"),
        ("privrisk.accounting", "kary_randomized_response", "kary_randomised_response_guarantee"),
        # American spellings (the other respelt names: tests/test_spelling.py)
        ("privrisk.accounting", "randomized_response_guarantee", "randomised_response_guarantee"),
        ("privrisk.accounting", "kary_randomized_response_guarantee", "kary_randomised_response_guarantee"),
    ]
    others = [
        ("privrisk.risk", "randomized_response", "truthful_answer_probability"),
        ("privrisk.release.mechanisms", "laplace_mechanism", "sample_laplace"),
        ("privrisk.release.mechanisms", "gaussian_mechanism", "sample_gaussian"),
    ]
    return top + accounting + others


# Arguments each old name is called with (the same for the new one).
_CALLS = {
    "laplace_guarantee": {"epsilon": 1.0},
    "gaussian_guarantee": {"sigma": 2.0},
    "randomised_response_guarantee": {"epsilon": 1.0},
    "discrete_laplace_guarantee": {"scale": 1.0},
    "discrete_gaussian_guarantee": {"sigma": 2.0},
    "kary_randomised_response_guarantee": {"epsilon": 1.0, "categories": 3},
    "truthful_answer_probability": {"epsilon": 1.0986122886681098},
}


@pytest.mark.parametrize(("module", "old", "new"), _renamed(), ids=lambda v: v if "." not in v else None)
def test_an_old_name_warns_and_does_what_the_new_one_does(module, old, new):
    home = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated .* use (privrisk.)?{new}"):
        function = getattr(home, old)
        if new.startswith("sample_"):
            # A sampler draws afresh each time: compare what is drawn, not the draws (no seed in OpenDP).
            noisy = function([0.0] * 200, 1e-9)
            assert noisy.shape == (200,) and abs(noisy).max() < 1e-6
            return
        result = function(**_CALLS[new])
    expected = getattr(home, new)(**_CALLS[new])
    if new == "truthful_answer_probability":
        assert result == pytest.approx(0.75) and expected == pytest.approx(0.75)
    else:
        # The same guarantee: the same privacy profile at a few ε.
        for epsilon in (0.0, 0.5, 1.0):
            assert result.delta_at(epsilon) == pytest.approx(expected.delta_at(epsilon), rel=1e-12, abs=1e-15)
        assert type(result) is type(expected)


def test_the_one_way_in_of_presence_audit_and_empirical_is_curated():
    # Each command's settings, its run and its result are public at the top level, from their home modules.
    import privrisk.audit
    import privrisk.empirical
    import privrisk.presence

    wanted = {
        privrisk.presence: ("PresenceSettings", "PresenceRun", "run_presence"),
        privrisk.audit: ("AuditSettings", "AuditRun", "run_audit", "DerivedSettings", "run_derived"),
        privrisk.empirical: ("EmpiricalSettings", "EmpiricalRun", "run_empirical"),
    }
    curated, homes = privrisk._table()
    for module, names in wanted.items():
        for name in names:
            assert name in privrisk.__all__ and name in curated, name
            assert getattr(privrisk, name) is getattr(module, name), name
            assert homes[name] == module.__name__, name
