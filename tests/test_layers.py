"""The floors of docs/architecture.md, read from every module's imports: nothing on a lower floor imports a higher one.

Every ``import`` and ``from … import`` of every module under ``src/privrisk`` is read with :mod:`ast`, including
the imports inside functions (privrisk imports heavy modules late, and a late import still runs up the floors) and
under ``if TYPE_CHECKING:`` (a type a module names is a dependency of its design). The floors are named by
subpackage, so that a module added later is checked without a change here; an unknown new subpackage is taken for
a capability. Five more rules of the house are checked here as well:

- no capability imports another capability: what two of them share lives on the shared floor below them
  (``generalisation`` for presence and microdata, ``ledger`` for release and outputs, ``datasets`` for the demos);
- the app and the command line do not import each other, except that ``privrisk app`` (``cli/webapp.py``) starts
  the app through its one entry function, :func:`privrisk.app.serve`;
- no module imports another subpackage's private module or name (``privrisk.study._samples`` from outside study);
- no subpackage has an import circle among its modules (imports that run, i.e. not under ``TYPE_CHECKING``);
- no module calls ``matplotlib.use``: figures are drawn on an Agg canvas without touching the caller's backend.

``ALLOWED`` names each import that still breaks a rule, with the reason, so that it can be removed when it is fixed.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "privrisk"

# The floors, lowest first: (name, the modules on it). A module belongs to the floor of its longest listed prefix.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("errors", "_validation", "_format", "_version", "progress")),
    ("ground", ("risk", "sensitivity", "posterior", "accounting", "io", "solver", "_workers")),
    # The page and figure layer the capabilities write their report folders with (one skeleton, one plot base).
    ("pages and figures", ("reports.html", "reports.manifest", "reports.plots", "reports.assets")),
    # What several capabilities share: the one ledger of everything released, generalisation (hierarchies,
    # lattice search, population-uniqueness models), and the demo and example data the capabilities run on.
    ("shared", ("ledger", "generalisation", "datasets")),
    (
        "capabilities",
        # sensitivity.run: the one way in of `privrisk sensitivity` (it reads files and writes report folders),
        # a capability above the sensitivity maths of the ground floor.
        ("study", "presence", "audit", "empirical", "release", "outputs", "microdata", "sensitivity.run"),
    ),
    ("reports", ("reports",)),
    # The curated API (privrisk/__init__.py) imports every floor lazily; nothing below it imports it.
    ("top", ("app", "cli", "__main__", "")),
)
CAPABILITIES = 4  # the index of the capabilities' floor: where an unknown subpackage goes
TOP_APPS = ("app", "cli")  # the two front ends on the top floor, which must not import each other

# The one function through which the command line starts the app (cli/webapp.py: `privrisk app`).
APP_ENTRY = {("privrisk.app", "serve"), ("privrisk.app.server", "serve")}

# (importer, imported module, imported name or "") → why it is still allowed. Remove an entry once it is fixed.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("privrisk.sensitivity", "privrisk.sensitivity.run", ""): (
        "privrisk.sensitivity keeps SensitivitySettings and run_sensitivity importable from where they were "
        "(one release); its __getattr__ loads the run only when one of them is asked for"
    ),
}

# Import circles of other subpackages that still run (the modules of each) → why. Remove an entry once it is fixed.
ALLOWED_CIRCLES: dict[frozenset[str], str] = {
    frozenset({"privrisk.cli", "privrisk.cli._app"}): (
        "cli/__init__.py imports cli._app, which imports COMMANDS back from privrisk.cli (it lives in cli._commands)"
    ),
    frozenset(
        {
            "privrisk.accounting.basic_composition",
            "privrisk.accounting.bounds",
            "privrisk.accounting.composition",
            "privrisk.accounting.concentrated",
            "privrisk.accounting.grouping",
            "privrisk.accounting.guarantees",
            "privrisk.accounting.mechanisms",
            "privrisk.accounting.optimal_composition",
            "privrisk.accounting.pld_composition",
            "privrisk.accounting.renyi_composition",
            "privrisk.accounting.subsampling",
        }
    ): (
        "Guarantee's methods (compose, subsample, group) import composition, subsampling and grouping, and "
        "mechanisms imports concentrated, inside functions, while those (and composition's routes, which "
        "composition imports) import guarantees at their top; subsample() reaches composition's loss "
        "distributions, and composition still lends its moved names"
    ),
}


@dataclass(frozen=True)
class Import:
    """One imported module (and name, for ``from … import name``) of one module, at a line."""

    importer: str
    module: str
    name: str
    line: int
    typing_only: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    """True if ``privrisk.a.b`` is a module or package of the source tree."""
    relative = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file()


def _typing_test(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path) -> Iterator[Import]:
    """Every privrisk import of the module at ``path``, function-level and ``TYPE_CHECKING`` ones included."""
    importer = module_name(path)
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def visit(node: ast.AST, typing_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _typing_test(child):
                for stmt in child.body:
                    yield from visit_one(stmt, True)
                for stmt in child.orelse:
                    yield from visit_one(stmt, typing_only)
            else:
                yield from visit_one(child, typing_only)

    def visit_one(node: ast.AST, typing_only: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "privrisk" or alias.name.startswith("privrisk."):
                    yield Import(importer, alias.name, "", node.lineno, typing_only)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source == "privrisk" or source.startswith("privrisk."):
                for alias in node.names:
                    # `from privrisk import risk` imports the module privrisk.risk, not the package.
                    sub = f"{source}.{alias.name}"
                    if _is_module(sub):
                        yield Import(importer, sub, "", node.lineno, typing_only)
                    else:
                        yield Import(importer, source, alias.name, node.lineno, typing_only)
        yield from visit(node, typing_only)

    yield from visit(tree, False)


@functools.cache
def all_imports() -> tuple[Import, ...]:
    return tuple(found for path in sorted(PACKAGE.rglob("*.py")) for found in imports_of(path))


def floor(module: str) -> int:
    """The index of ``module``'s floor in :data:`FLOORS` (an unknown subpackage is a capability)."""
    name = module.removeprefix("privrisk").removeprefix(".")
    best, best_length = CAPABILITIES, -1
    for index, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            matches = name == prefix or name.startswith(prefix + ".") or (prefix == "" and name == "")
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def subpackage(module: str) -> str:
    """The first name under privrisk (``privrisk.empirical.measure`` → ``empirical``); "" for the package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _allowed(found: Import) -> bool:
    return (found.importer, found.module, found.name) in ALLOWED


def test_the_floors_are_read_from_the_source():
    # Guard the reader itself: known imports of each kind are seen, with their floors.
    found = {(i.importer, i.module, i.name) for i in all_imports()}
    assert ("privrisk.presence.prepare", "privrisk.presence._spark", "SparkRollUp") in found  # in a function
    assert ("privrisk.presence._spark", "privrisk.io.engine", "spark_session") in found
    assert ("privrisk.io.manifest", "privrisk._version", "__version__") in found
    assert ("privrisk.study.sampling", "privrisk.risk", "") in found  # from privrisk import risk
    assert ("privrisk.microdata.recoding", "privrisk.generalisation.lattice", "search_lattice") in found
    assert [FLOORS[floor(m)][0] for m in ("privrisk._format", "privrisk.accounting.risks", "privrisk.reports.plots.study",
            "privrisk.generalisation.lattice", "privrisk.microdata.risk", "privrisk.somethingnew",
            "privrisk.reports.explain", "privrisk.cli.risk", "privrisk")] == ["base", "ground", "pages and figures",
            "shared", "capabilities", "capabilities", "reports", "top", "top"]  # fmt: skip


def test_nothing_on_a_lower_floor_imports_a_higher_one():
    wrong = [
        f"{i.importer} (floor {FLOORS[floor(i.importer)][0]}) imports {i.module}{'.' + i.name if i.name else ''} "
        f"(floor {FLOORS[floor(i.module)][0]}), line {i.line}"
        for i in all_imports()
        if floor(i.module) > floor(i.importer) and not _allowed(i)
    ]
    assert not wrong, "imports up the floors (docs/architecture.md):\n" + "\n".join(wrong)


def _between_capabilities(i: Import) -> bool:
    return floor(i.importer) == floor(i.module) == CAPABILITIES and subpackage(i.importer) != subpackage(i.module)


def test_no_capability_imports_another_capability():
    # A contributor who learns one capability needs no other: what two share lives on the floor below them.
    assert _between_capabilities(Import("privrisk.microdata.recoding", "privrisk.presence.lattice", "minimal", 1, False))
    assert not _between_capabilities(Import("privrisk.presence.run", "privrisk.datasets.tv16", "QI", 1, False))
    wrong = [
        f"{i.importer} imports {i.module}{'.' + i.name if i.name else ''}, line {i.line}"
        for i in all_imports()
        if _between_capabilities(i) and not _allowed(i)
    ]
    assert not wrong, "a capability imports another (move what they share below them):\n" + "\n".join(wrong)


def test_the_app_and_the_command_line_do_not_import_each_other():
    wrong = []
    for i in all_imports():
        here, there = subpackage(i.importer), subpackage(i.module)
        if here in TOP_APPS and there in TOP_APPS and here != there and not _allowed(i):
            if here == "cli" and (i.module, i.name) in APP_ENTRY and i.importer == "privrisk.cli.webapp":
                continue  # `privrisk app` starts the app through its entry function
            wrong.append(f"{i.importer} imports {i.module}{'.' + i.name if i.name else ''}, line {i.line}")
    assert not wrong, "the app and the command line import each other:\n" + "\n".join(wrong)


def test_no_module_imports_another_subpackages_private_names():
    wrong = []
    for i in all_imports():
        here, there = subpackage(i.importer), subpackage(i.module)
        if here == there or not there or there.startswith("_"):
            continue  # privrisk._validation, _format, _version are the whole package's
        inside = i.module.split(".")[2:] + ([i.name] if i.name else [])
        if any(part.startswith("_") and not part.startswith("__") for part in inside) and not _allowed(i):
            wrong.append(f"{i.importer} imports {i.module}{'.' + i.name if i.name else ''}, line {i.line}")
    assert not wrong, "private names of another subpackage:\n" + "\n".join(wrong)


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = itertools.count()

    def connect(v: str) -> None:
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_circles_are_found():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def _subpackage_circles() -> list[list[str]]:
    edges: dict[str, set[str]] = {}
    for i in all_imports():
        if i.typing_only or i.importer == i.module:
            continue
        if subpackage(i.importer) and subpackage(i.importer) == subpackage(i.module):
            edges.setdefault(i.importer, set()).add(i.module)
    return _circles(edges)


def test_no_subpackage_has_an_import_circle():
    circles = [c for c in _subpackage_circles() if frozenset(c) not in ALLOWED_CIRCLES]
    assert not circles, "import circles: " + "; ".join(" ↔ ".join(c) for c in circles)
    assert not any(subpackage(m) == "empirical" for c in _subpackage_circles() for m in c)


@pytest.mark.parametrize("circle", sorted(ALLOWED_CIRCLES, key=sorted), ids=lambda c: min(c))
def test_every_allowed_circle_still_exists(circle):
    assert sorted(circle) in _subpackage_circles(), f"remove {sorted(circle)} from ALLOWED_CIRCLES"


def test_no_module_calls_matplotlib_use():
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("use", "switch_backend")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in ("matplotlib", "plt", "pyplot")
            ):
                calls.append(f"{module_name(path)}, line {node.lineno}")
    assert not calls, "matplotlib's global backend switched in: " + ", ".join(calls)


@pytest.mark.parametrize("entry", sorted(ALLOWED))
def test_every_allowed_import_still_exists(entry):
    # An allowance outlives its import only by mistake: remove it with the import.
    assert entry in {(i.importer, i.module, i.name) for i in all_imports()}, f"remove {entry} from ALLOWED"


def _library_param_names() -> set[str]:
    """Every ``param="…"`` and ``name="…"`` keyword a library module (not the app or the command line) passes."""
    names = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if module_name(path).split(".")[1:2] in (["app"], ["cli"]):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg in ("param", "name"):
                value = node.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.isidentifier():
                    names.add(value.value)
    return names


def test_every_parameter_the_library_names_has_a_label():
    # The app shows a parameter by its label (privrisk/app/_labels.py), so a parameter an error may name and the
    # table misses would be shown humanised instead of in the page's words.
    from privrisk.app._labels import LABELS

    missing = sorted(_library_param_names() - set(LABELS) - {"privrisk"})
    assert not missing, f"label these in privrisk/app/_labels.py LABELS: {missing}"
