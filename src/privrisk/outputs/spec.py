"""The outputs a researcher asks to release, read from ``outputs.toml``.

Each ``[[output]]`` names one table or model: ``name``, ``kind`` (count, sum, mean, median, quantile, min, max,
ols, logit), the grouping variables ``rows`` and ``columns``, an SQL condition ``where``, ``margins`` (row,
column and grand totals released too), ``variable`` (the magnitude of sum … max), ``weights`` (a weighted count
or sum), ``q`` (the quantile) and ``formula`` (``y ~ x1 + C(x2)`` for ols and logit).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from privrisk.errors import PrivriskError

__all__ = ["KINDS", "Kind", "OutputSpec", "parse_formula", "parse_spec", "read_spec"]

Kind = Literal["count", "sum", "mean", "median", "quantile", "min", "max", "ols", "logit"]
KINDS: tuple[str, ...] = get_args(Kind)
MAGNITUDES = ("sum", "mean", "median", "quantile", "min", "max")
MODELS = ("ols", "logit")
_FIELDS = {"name", "kind", "rows", "columns", "where", "margins", "variable", "weights", "q", "formula"}
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
        for key in ("where", "variable", "weights", "q", "formula"):
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
    return left, tuple(terms), intercept


def _strings(value: Any, key: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PrivriskError(
            f"spec: output {name!r}: field {key!r} must be a list of column names", param="spec"
        )
    return tuple(value)


def parse_spec(text: str, *, source: str = "spec") -> tuple[OutputSpec, ...]:
    """The outputs listed in the text of an ``outputs.toml``.

    Example:
        >>> [o.name for o in parse_spec('[[output]]\\nname = "T1"\\nkind = "count"\\nrows = ["region"]')]
        ['T1']
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrivriskError(f"spec: {source} is not TOML: {exc}", param="spec") from None
    unknown = sorted(set(doc) - {"output"})
    if unknown:
        raise PrivriskError(
            f"spec: {source}: unknown table {unknown[0]!r}; list outputs as [[output]]", param="spec"
        )
    items = doc.get("output", [])
    if not isinstance(items, list) or not items:
        raise PrivriskError(f"spec: {source} lists no [[output]]", param="spec")
    outputs: list[OutputSpec] = []
    for i, item in enumerate(items, 1):
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise PrivriskError(f"spec: output {i}: field 'name' is missing or empty", param="spec")
        bad = sorted(set(item) - _FIELDS)
        if bad:
            raise PrivriskError(f"spec: output {name!r}: unknown field {bad[0]!r}", param="spec")
        kind = item.get("kind", "count")
        for key in ("where", "variable", "weights", "formula", "kind"):
            if key in item and not isinstance(item[key], str):
                raise PrivriskError(f"spec: output {name!r}: field {key!r} must be a string", param="spec")
        if "margins" in item and not isinstance(item["margins"], bool):
            raise PrivriskError(f"spec: output {name!r}: field 'margins' must be true or false", param="spec")
        q = item.get("q")
        if q is not None and (isinstance(q, bool) or not isinstance(q, int | float)):
            raise PrivriskError(f"spec: output {name!r}: field 'q' must be a number in (0, 1)", param="spec")
        where = item.get("where")
        if where is not None and not where.strip():
            raise PrivriskError(f"spec: output {name!r}: field 'where' is empty", param="spec")
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
            )
        )
    names = [o.name for o in outputs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise PrivriskError(f"spec: output {dupes[0]!r} is named twice", param="spec")
    return tuple(outputs)


def read_spec(path: str | os.PathLike[str]) -> tuple[OutputSpec, ...]:
    """The outputs listed in an ``outputs.toml`` file."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise PrivriskError(f"spec: cannot read {file}: {exc.strerror or exc}", param="spec") from None
    return parse_spec(text, source=str(file))
