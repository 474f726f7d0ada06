"""The outputs a researcher asks to release, read from ``outputs.toml``.

Each ``[[output]]`` names one table or model: ``name``, ``kind`` (count, sum, mean, median, quantile, min, max,
ols, logit), the grouping variables ``rows`` and ``columns``, an SQL condition ``where``, ``margins`` (row,
column and grand totals released too), ``variable`` (the magnitude of sum … max), ``weights`` (a weighted count
or sum), ``q`` (the quantile) and ``formula`` (``y ~ x1 + C(x2)`` for ols and logit).

Beside the outputs, the spec may state what the intruder knows by definition
(:class:`~privrisk.outputs.knowledge.Knowledge`):

- ``[derived]``: variables defined from others, ``agegroup = "CASE WHEN age < 18 THEN '0-17' ELSE '18+' END"``;
- ``nested = [["district", "region"]]``: each level of the first lies in one level of the second;
- ``[domains]``: a variable's possible values, a list (``region = ["North", "South"]``) or a range
  (``age = { min = 0, max = 120, whole = true }``).

A count table released with cell-key perturbation names its perturbation table, ``perturbation = "ptable.csv"``
(ONS CSV, sdcTools' ptable or TOML, read by :func:`privrisk.accounting.read_perturbation_table`; a relative path is
read from the spec's folder), and ``[cell_key] record_key = "column"`` names the column of record keys (numbers in
[0, 1)); without it each record's key is a hash of its row (:mod:`privrisk.outputs.perturbed`).
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from privrisk.errors import PrivriskError
from privrisk.outputs.knowledge import Domain, Knowledge

if TYPE_CHECKING:
    from privrisk.accounting.cellkey import PerturbationTable

__all__ = ["KINDS", "Kind", "OutputSpec", "Outputs", "parse_formula", "parse_spec", "read_spec"]

#: The largest spec file read, and the most outputs one may list (a clear limit rather than a long wait).
SPEC_BYTES = 4_000_000
MAX_OUTPUTS = 1_000

Kind = Literal["count", "sum", "mean", "median", "quantile", "min", "max", "ols", "logit"]
KINDS: tuple[str, ...] = get_args(Kind)
MAGNITUDES = ("sum", "mean", "median", "quantile", "min", "max")
MODELS = ("ols", "logit")
_FIELDS = {
    "name", "kind", "rows", "columns", "where", "margins", "variable", "weights", "q", "formula", "perturbation",
    "unit",
}  # fmt: skip
_TERM = re.compile(r"^(?:C\(\s*(?P<cat>[^()]+?)\s*\)|(?P<num>[^()~+*:]+?))$")


@dataclass(frozen=True)
class OutputSpec:
    """One output: a table of counts or magnitudes, or a model.

    Example:
        >>> OutputSpec(name="T1", kind="count", rows=("region",)).variables
        ('region',)
    """

    name: str
    kind: Kind
    rows: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    where: str | None = None
    margins: bool = False
    variable: str | None = None
    weights: str | None = None
    q: float | None = None
    formula: str | None = None
    terms: tuple[tuple[str, bool], ...] = field(default=(), compare=False)
    #: The perturbation table's file as the spec names it (a count table released with cell-key perturbation).
    perturbation: str | None = None
    #: The table itself (read from ``perturbation``, or given); None: the table is released exactly.
    ptable: PerturbationTable | None = field(default=None, compare=False, repr=False)
    #: What a record is, in the plural, for the sentences (``"firms"`` → "exactly 1 firm"); None: people.
    unit: str | None = None

    def __post_init__(self) -> None:
        where = f"output {self.name!r}"
        if not self.name.strip():
            raise PrivriskError("spec: an output has an empty name", param="spec")
        if self.kind not in KINDS:
            raise PrivriskError(
                f"spec: {where}: kind {self.kind!r} is not one of {', '.join(KINDS)}", param="spec"
            )
        if self.kind in MAGNITUDES and not self.variable:
            raise PrivriskError(
                f"spec: {where}: field 'variable' is needed for kind {self.kind}", param="spec"
            )
        if self.kind == "count" and self.variable:
            raise PrivriskError(f"spec: {where}: field 'variable' is not used by kind count", param="spec")
        if self.kind == "quantile":
            if self.q is None or isinstance(self.q, bool) or not (0 < float(self.q) < 1):
                raise PrivriskError(f"spec: {where}: field 'q' must be a number in (0, 1)", param="spec")
        elif self.q is not None:
            raise PrivriskError(f"spec: {where}: field 'q' is only for kind quantile", param="spec")
        if self.kind in MODELS:
            if not self.formula:
                raise PrivriskError(
                    f"spec: {where}: field 'formula' is needed for kind {self.kind}", param="spec"
                )
            if self.rows or self.columns or self.margins or self.weights:
                raise PrivriskError(
                    f"spec: {where}: a model takes 'formula' and 'where' only, not rows, columns, margins or weights",
                    param="spec",
                )
            y, terms, _ = parse_formula(self.formula, output=self.name)
            object.__setattr__(self, "variable", y)
            object.__setattr__(self, "terms", terms)
        elif self.formula:
            raise PrivriskError(f"spec: {where}: field 'formula' is only for ols and logit", param="spec")
        if self.weights and self.kind not in ("count", "sum"):
            raise PrivriskError(f"spec: {where}: field 'weights' is for count and sum tables", param="spec")
        if self.margins and not (self.rows or self.columns):
            raise PrivriskError(f"spec: {where}: field 'margins' needs rows or columns", param="spec")
        if (self.perturbation is not None or self.ptable is not None) and (
            self.kind != "count" or self.weights
        ):
            what = "a weighted count" if self.kind == "count" else f"kind {self.kind}"
            raise PrivriskError(
                f"spec: {where}: field 'perturbation' is for count tables (cell-key perturbation of counts of "
                f"records), not {what}",
                param="spec",
            )
        both = set(self.rows) & set(self.columns)
        if both or len(set(self.rows)) < len(self.rows) or len(set(self.columns)) < len(self.columns):
            raise PrivriskError(f"spec: {where}: a variable appears twice in rows and columns", param="spec")

    @property
    def variables(self) -> tuple[str, ...]:
        """The grouping variables: rows, then columns."""
        return self.rows + self.columns

    @property
    def columns_used(self) -> tuple[str, ...]:
        """Every column of the data the output reads (the ``where`` condition's are checked by DuckDB)."""
        used = list(self.variables)
        for extra in (self.variable, self.weights):
            if extra:
                used.append(extra)
        used.extend(name for name, _ in self.terms)
        return tuple(dict.fromkeys(used))

    def to_dict(self) -> dict[str, Any]:
        """The output as written in ``outputs.toml`` (fields left at their defaults are left out)."""
        doc: dict[str, Any] = {"name": self.name, "kind": self.kind}
        for key in ("rows", "columns"):
            if getattr(self, key):
                doc[key] = list(getattr(self, key))
        for key in ("where", "variable", "weights", "q", "formula", "perturbation", "unit"):
            value = getattr(self, key)
            if value is not None and not (key == "variable" and self.kind in MODELS):
                doc[key] = value
        if self.margins:
            doc["margins"] = True
        return doc


def parse_formula(formula: str, *, output: str = "") -> tuple[str, tuple[tuple[str, bool], ...], bool]:
    """``y ~ x1 + C(x2)`` → (y, ((x1, False), (x2, True)), intercept); ``- 1`` or ``+ 0`` drops the intercept.

    Example:
        >>> parse_formula("income ~ age + C(sex)")
        ('income', (('age', False), ('sex', True)), True)
    """
    where = f"output {output!r}: field 'formula'"
    if formula.count("~") != 1:
        raise PrivriskError(f"spec: {where}: {formula!r} must read 'y ~ x1 + C(x2)'", param="spec")
    left, right = (part.strip() for part in formula.split("~"))
    if not left or not re.fullmatch(r"[^()~+*:\s-][^()~+*:]*", left):
        raise PrivriskError(f"spec: {where}: {left!r} is not a column name", param="spec")
    intercept = True
    terms: list[tuple[str, bool]] = []
    for raw in re.split(r"\s*\+\s*", right.replace("- 1", "+ -1").replace("-1", "+ -1")):
        part = raw.strip()
        if part in ("0", "-1"):
            intercept = False
            continue
        if part in ("", "1"):
            continue
        m = _TERM.match(part)
        if not m:
            raise PrivriskError(
                f"spec: {where}: term {part!r} is not supported (columns and C(column) only)", param="spec"
            )
        name = (m.group("cat") or m.group("num") or "").strip()
        terms.append((name, m.group("cat") is not None))
    if not terms and not intercept:
        raise PrivriskError(f"spec: {where}: the model has no terms", param="spec")
    if any(name == left for name, _ in terms):
        raise PrivriskError(
            f"spec: {where}: {left!r} is both the outcome and a term of {formula!r}", param="spec"
        )
    return left, tuple(terms), intercept


def _strings(value: Any, key: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PrivriskError(
            f"spec: output {name!r}: field {key!r} must be a list of column names", param="spec"
        )
    return tuple(value)


class Outputs(tuple):
    """The outputs of a spec (a tuple of :class:`OutputSpec`) with what the spec tells the intruder
    (``knowledge``)."""

    knowledge: Knowledge
    #: The column of record keys of cell-key perturbation (``[cell_key] record_key``); None: a hash of each row.
    record_key: str | None

    def __new__(
        cls,
        outputs: tuple[OutputSpec, ...],
        knowledge: Knowledge | None = None,
        record_key: str | None = None,
    ) -> Outputs:
        self = super().__new__(cls, outputs)
        self.knowledge = knowledge or Knowledge()
        self.record_key = record_key
        return self


def _record_key(doc: dict[str, Any], source: str) -> str | None:
    """``[cell_key] record_key = "column"``, checked."""
    raw = doc.get("cell_key")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PrivriskError(
            f'spec: {source}: [cell_key] must be a table: record_key = "column"', param="spec"
        )
    bad = sorted(set(raw) - {"record_key"})
    if bad:
        raise PrivriskError(f"spec: [cell_key]: unknown field {bad[0]!r} (record_key)", param="spec")
    column = raw.get("record_key")
    if not isinstance(column, str) or not column.strip():
        raise PrivriskError("spec: [cell_key]: field 'record_key' must name a column", param="spec")
    return column.strip()


def _read_ptable(name: str, value: Any, base: Path | None) -> tuple[str, PerturbationTable]:
    """The perturbation table an output names (a path relative to the spec's folder), read and checked."""
    from privrisk.accounting.perturbation_files import read_perturbation_table

    if not isinstance(value, str) or not value.strip():
        raise PrivriskError(
            f"spec: output {name!r}: field 'perturbation' must be the path of a perturbation table",
            param="spec",
        )
    path = Path(value)
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        return value, read_perturbation_table(path, param="spec")
    except PrivriskError as exc:
        detail = str(exc).removeprefix("spec: ")
        raise PrivriskError(f"spec: output {name!r}: field 'perturbation': {detail}", param="spec") from None


def _knowledge(doc: dict[str, Any], source: str) -> Knowledge:
    """The ``[derived]``, ``nested`` and ``[domains]`` of a spec, checked."""
    derived: list[tuple[str, str]] = []
    raw = doc.get("derived", {})
    if not isinstance(raw, dict):
        raise PrivriskError(f"spec: {source}: field 'derived' must be a table of name = SQL", param="spec")
    for name, sql in raw.items():
        if not isinstance(sql, str) or not sql.strip() or ";" in sql:
            raise PrivriskError(f"spec: derived {name!r} must be one SQL expression (a string)", param="spec")
        derived.append((str(name), sql.strip()))
    nested: list[tuple[str, str]] = []
    raw = doc.get("nested", [])
    if not isinstance(raw, list):
        raise PrivriskError(
            f"spec: {source}: field 'nested' must be a list of [finer, coarser] pairs", param="spec"
        )
    for pair in raw:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) and v for v in pair)):
            raise PrivriskError(
                f"spec: nested {pair!r} must be [finer, coarser] (two column names)", param="spec"
            )
        if pair[0] == pair[1]:
            raise PrivriskError(f"spec: nested {pair!r} names one variable twice", param="spec")
        nested.append((pair[0], pair[1]))
    domains: list[tuple[str, Domain]] = []
    raw = doc.get("domains", {})
    if not isinstance(raw, dict):
        raise PrivriskError(
            f"spec: {source}: field 'domains' must be a table of variable = values", param="spec"
        )
    for name, value in raw.items():
        where = f"spec: domains {name!r}"
        if isinstance(value, list):
            if not value or not all(isinstance(v, str | int | float | bool) for v in value):
                raise PrivriskError(f"{where} must list values (text, numbers or true/false)", param="spec")
            if any(isinstance(v, float) and not math.isfinite(v) for v in value):
                raise PrivriskError(f"{where}: values must be finite", param="spec")
            domains.append((str(name), Domain(values=tuple(value))))
        elif isinstance(value, dict):
            bad = sorted(set(value) - {"min", "max", "whole"})
            if bad:
                raise PrivriskError(f"{where}: unknown field {bad[0]!r} (min, max, whole)", param="spec")
            lo, hi, whole = value.get("min"), value.get("max"), value.get("whole", False)
            for key, x in (("min", lo), ("max", hi)):
                if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(float(x)):
                    raise PrivriskError(f"{where}: field {key!r} must be a finite number", param="spec")
            if not isinstance(whole, bool):
                raise PrivriskError(f"{where}: field 'whole' must be true or false", param="spec")
            if float(lo) > float(hi):  # type: ignore[arg-type]
                raise PrivriskError(f"{where}: min {lo} is above max {hi}", param="spec")
            if whole and float(hi) - float(lo) > 10_000:  # type: ignore[arg-type]
                raise PrivriskError(f"{where}: at most 10,000 whole numbers (min … max)", param="spec")
            domains.append((str(name), Domain(low=float(lo), high=float(hi), whole=whole)))  # type: ignore[arg-type]
        else:
            raise PrivriskError(f"{where} must be a list of values or {{ min, max, whole }}", param="spec")
    return Knowledge(tuple(derived), tuple(nested), tuple(domains))


def parse_spec(text: str, *, source: str = "spec", base: str | os.PathLike[str] | None = None) -> Outputs:
    """The outputs listed in the text of an ``outputs.toml`` (with the spec's knowledge in ``.knowledge``).

    ``base`` is the folder a relative ``perturbation`` path is read from (default: the working folder).

    Example:
        >>> [o.name for o in parse_spec('[[output]]\\nname = "T1"\\nkind = "count"\\nrows = ["region"]')]
        ['T1']
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrivriskError(f"spec: {source} is not TOML: {exc}", param="spec") from None
    except RecursionError:
        raise PrivriskError(f"spec: {source} is not TOML: its values nest too deeply", param="spec") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise PrivriskError(f"spec: {source} is not TOML: {str(exc).split(';')[0]}", param="spec") from None
    unknown = sorted(set(doc) - {"output", "derived", "nested", "domains", "cell_key"})
    if unknown:
        raise PrivriskError(
            f"spec: {source}: unknown table {unknown[0]!r}; list outputs as [[output]]", param="spec"
        )
    items = doc.get("output", [])
    if not isinstance(items, list) or not items:
        raise PrivriskError(f"spec: {source} lists no [[output]]", param="spec")
    if len(items) > MAX_OUTPUTS:
        raise PrivriskError(
            f"spec: {source} lists {len(items):,} outputs, more than the {MAX_OUTPUTS:,} one request may have",
            param="spec",
        )
    outputs: list[OutputSpec] = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise PrivriskError(
                f"spec: output {i} is not a table: write [[output]] and its fields", param="spec"
            )
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise PrivriskError(f"spec: output {i}: field 'name' is missing or empty", param="spec")
        bad = sorted(set(item) - _FIELDS)
        if bad:
            raise PrivriskError(f"spec: output {name!r}: unknown field {bad[0]!r}", param="spec")
        kind = item.get("kind", "count")
        for key in ("where", "variable", "weights", "formula", "kind", "unit"):
            if key in item and not isinstance(item[key], str):
                raise PrivriskError(f"spec: output {name!r}: field {key!r} must be a string", param="spec")
        if "margins" in item and not isinstance(item["margins"], bool):
            raise PrivriskError(f"spec: output {name!r}: field 'margins' must be true or false", param="spec")
        q = item.get("q")
        if q is not None and (isinstance(q, bool) or not isinstance(q, int | float) or not math.isfinite(q)):
            raise PrivriskError(f"spec: output {name!r}: field 'q' must be a number in (0, 1)", param="spec")
        where = item.get("where")
        if where is not None and not where.strip():
            raise PrivriskError(f"spec: output {name!r}: field 'where' is empty", param="spec")
        unit = item.get("unit")
        if unit is not None and not (unit.strip() and len(unit) <= 40 and unit.replace(" ", "").isalpha()):
            raise PrivriskError(
                f"spec: output {name!r}: field 'unit' must be a word for what a record is, e.g. \"firms\"",
                param="spec",
            )
        if "perturbation" in item and (kind != "count" or item.get("weights")):
            OutputSpec(name=name.strip(), kind=kind, perturbation="x", weights=item.get("weights"),
                       variable=item.get("variable"), formula=item.get("formula"), q=item.get("q"))  # fmt: skip
        perturbation, ptable = (
            _read_ptable(name, item["perturbation"], Path(base) if base is not None else None)
            if "perturbation" in item
            else (None, None)
        )
        outputs.append(
            OutputSpec(
                name=name.strip(),
                kind=kind,
                rows=_strings(item.get("rows", []), "rows", name),
                columns=_strings(item.get("columns", []), "columns", name),
                where=where.strip() if where else None,
                margins=item.get("margins", False),
                variable=item.get("variable"),
                weights=item.get("weights"),
                q=float(q) if q is not None else None,
                formula=item.get("formula"),
                perturbation=perturbation,
                ptable=ptable,
                unit=unit.strip() if unit else None,
            )
        )
    names = [o.name for o in outputs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise PrivriskError(f"spec: output {dupes[0]!r} is named twice", param="spec")
    return Outputs(tuple(outputs), _knowledge(doc, source), _record_key(doc, source))


def read_spec(path: str | os.PathLike[str]) -> Outputs:
    """The outputs listed in an ``outputs.toml`` file (a regular file of at most :data:`SPEC_BYTES`, UTF-8)."""
    from privrisk.io.files import read_text_file

    file = Path(path)
    text = read_text_file(file, SPEC_BYTES, what="the spec", param="spec")
    return parse_spec(text, source=str(file), base=file.parent)
