"""Validation against a JSON Schema (draft 7) of the keywords that data-description schemas use, with no package.

Supported: ``type`` (one or a list; ``integer`` takes whole numbers, ``number`` any number but a boolean),
``enum``, ``const``, ``required``, ``properties``, ``additionalProperties`` (true, false or a schema),
``items`` (one schema), ``minItems``, ``maxItems``, ``minimum``, ``maximum``, ``minLength``, ``pattern`` and
``format: date`` (YYYY-MM-DD, a real date, as ``jsonschema``'s format checker has it). Annotations
(``description``, ``title``, ``default``, ``examples``, ``$schema``, ``$id``, ``$comment``) are ignored, and so
are keywords a schema's authors added for themselves (``description_long``, ``tier``). Any other keyword is an
error, never passed over: a validator that skips what it does not know would call invalid documents valid.

Example:
    >>> schema = {"type": "object", "required": ["a"], "additionalProperties": False,
    ...           "properties": {"a": {"type": "string", "format": "date"}}}
    >>> schema_errors({"a": "2021-02-30", "b": 1}, schema)
    ["a: '2021-02-30' is not a date (YYYY-MM-DD)", "(root): additional property 'b' is not allowed"]
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["IGNORED_KEYWORDS", "schema_errors"]

#: Keywords that do not constrain a document.
IGNORED_KEYWORDS = frozenset(
    {"description", "title", "default", "examples", "$schema", "$id", "$comment", "description_long", "tier"}
)
_CHECKED = frozenset(
    {"type", "enum", "const", "required", "properties", "additionalProperties", "items", "minItems", "maxItems",
     "minimum", "maximum", "minLength", "pattern", "format"}
)  # fmt: skip
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, Mapping)
    if name == "array":
        return isinstance(value, list | tuple)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "integer":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())
    raise ValueError(f"unsupported type {name!r} in the schema")


def _where(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path) or "(root)"


def _check(value: Any, schema: Mapping[str, Any], path: tuple[Any, ...]) -> Iterator[str]:
    unknown = sorted(set(schema) - _CHECKED - IGNORED_KEYWORDS)
    if unknown:
        raise ValueError(
            f"{_where(path)}: the schema uses {unknown[0]!r}, which this validator does not check"
        )
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            yield f"{_where(path)}: {value!r} is not of type {' or '.join(repr(t) for t in types)}"
            return
    if "enum" in schema and value not in schema["enum"]:
        yield f"{_where(path)}: {value!r} is not one of {schema['enum']!r}"
    if "const" in schema and value != schema["const"]:
        yield f"{_where(path)}: {value!r} is not {schema['const']!r}"
    if isinstance(value, Mapping):
        yield from _check_object(value, schema, path)
    if isinstance(value, list | tuple):
        if "minItems" in schema and len(value) < schema["minItems"]:
            yield f"{_where(path)}: {len(value)} items, fewer than {schema['minItems']}"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield f"{_where(path)}: {len(value)} items, more than {schema['maxItems']}"
        if "items" in schema:
            for i, item in enumerate(value):
                yield from _check(item, schema["items"], (*path, i))
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            yield f"{_where(path)}: {value!r} is less than the minimum {schema['minimum']!r}"
        if "maximum" in schema and value > schema["maximum"]:
            yield f"{_where(path)}: {value!r} is more than the maximum {schema['maximum']!r}"
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            yield f"{_where(path)}: {value!r} is shorter than {schema['minLength']}"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            yield f"{_where(path)}: {value!r} does not match {schema['pattern']!r}"
        if schema.get("format") == "date" and not _is_date(value):
            yield f"{_where(path)}: {value!r} is not a date (YYYY-MM-DD)"


def _check_object(
    value: Mapping[str, Any], schema: Mapping[str, Any], path: tuple[Any, ...]
) -> Iterator[str]:
    for name in schema.get("required", []):
        if name not in value:
            yield f"{_where(path)}: {name!r} is a required property"
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            yield from _check(item, properties[name], (*path, name))
        elif extra is False:
            yield f"{_where(path)}: additional property {name!r} is not allowed"
        elif isinstance(extra, Mapping):
            yield from _check(item, extra, (*path, name))


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def schema_errors(document: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every way ``document`` breaks ``schema`` (empty when it is valid), each ``path: what is wrong``.

    Raises:
        ValueError: when the schema uses a keyword this module does not check (a bug to fix, not a pass).

    Example:
        >>> schema_errors([1, "2"], {"type": "array", "items": {"type": "integer"}})
        ["1: '2' is not of type 'integer'"]
    """
    return list(_check(document, schema, ()))
