"""The findings of differencing in words: each group described by its labels and conditions, and the public
disclosures (kind, outputs, labels, interval, sentence) of :func:`privrisk.outputs.differencing.difference`."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from privrisk._format import listing, number

__all__: list[str] = []


def _describe(
    fixed: dict[str, int], atoms: pd.DataFrame, variables: tuple[str, ...], conditions: tuple[str, ...]
) -> tuple[str, dict[str, Any]]:
    """A group in words ("region = West, sex = f and not (age >= 19)") and its labels."""
    parts: list[str] = []
    labels: dict[str, Any] = {}
    for v in variables:
        if v in fixed:
            level = str(cast(pd.Index, atoms.attrs["levels"][v])[fixed[v]])
            parts.append(f"{v} = {level}")
            labels[v] = level
    for c in conditions:
        if c in fixed:
            parts.append(c if fixed[c] else f"not ({c})")
            labels[c] = bool(fixed[c])
    return listing(parts), labels


def _together(names: list[str]) -> str:
    return f"{names[0]} shows" if len(names) == 1 else f"{listing(names)} together show"


def _count_sentence(names: list[str], lo: int, hi: int, who: str) -> str:
    subject = f"{_together(names)} that"
    if lo == hi:
        people = "person" if lo == 1 else "people"
        verb = "has" if lo == 1 else "have"
        return (
            f"{subject} exactly {lo} {people} {verb} {who}."
            if who
            else f"{subject} there are exactly {lo} {people}."
        )
    return (
        f"{subject} between {lo} and {hi} people have {who}."
        if who
        else f"{subject} there are {lo} to {hi} people."
    )


def _attribute_sentence(names: list[str], who: str, trait: str) -> str:
    return (
        f"{_together(names)} that everyone with {who} has {trait}."
        if who
        else f"{_together(names)} that everyone has {trait}."
    )


def _sum_sentence(
    names: list[str], var: str, n: int, lo: float, who: str, *, exact: bool, hi: float = 0.0
) -> str:
    people = "person" if n == 1 else "people"
    whom = f" with {who}" if who else ""
    if exact:
        return f"{_together(names)} that the {var} of the {n} {people}{whom} sums to exactly {number(lo, 6)}."
    return f"{_together(names)} that the {var} of the {n} {people}{whom} lies between {number(lo, 6)} and {number(hi, 6)}."


def _clean(x: float) -> float | int | None:
    if not np.isfinite(x):
        return None
    return int(x) if float(x).is_integer() else float(x)


def _said_alike(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two findings have the same interval, to the tolerance their ends were worked out to (``tol``).

    The ends of a sum come from linear programmes, each exact to the solver's tolerance: a larger group's end
    that equals a part's in the data was once 25,958.368 against the part's 25,958.31 in one audit and equal in
    another, and the larger group was reported in one audit and left out in the other.

    Example:
        >>> _said_alike({"lo": 0.0, "hi": 25958.31, "tol": 0.3}, {"lo": 0.0, "hi": 25958.3678, "tol": 0.3})
        True
        >>> _said_alike({"lo": 0.0, "hi": 25958.31, "tol": 0.3}, {"lo": 0.0, "hi": 25958.7, "tol": 0.3})
        False
        >>> _said_alike({"lo": 1, "hi": 2}, {"lo": 1, "hi": 3})  # counts: whole numbers, no tolerance
        False
        >>> _said_alike({"lo": 5.0, "hi": 5.2, "tol": 0.3, "exact": True}, {"lo": 5.0, "hi": 5.4, "tol": 0.3,
        ...              "exact": False})
        False
    """
    if a.get("exact") != b.get("exact"):  # "sums to exactly" says more than "lies between": never left out for it
        return False
    tol = max(float(a.get("tol", 0.0)), float(b.get("tol", 0.0)))
    return all(a[end] == b[end] or abs(a[end] - b[end]) <= tol for end in ("lo", "hi"))


def _public(
    findings: list[dict[str, Any]],
    atoms: pd.DataFrame,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    names: tuple[frozenset[str], ...],
) -> list[dict[str, Any]]:
    """The findings for people: a group that only repeats a finer finding (the same interval) is left out, and an
    attribute finding of a larger group holds for its parts; each with its outputs, labels and sentence."""
    every = sorted({x for ns in names for x in ns})
    dims = (*variables, *conditions)
    by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    for f in findings:
        key = (
            f["type"],
            f.get("magnitude"),
            f.get("axis"),
            f.get("value"),
            tuple(sorted(f["fixed"].items())),
        )
        by_key[key] = f
    redundant: set[int] = set()
    counted = {tuple(sorted(f["fixed"].items())) for f in findings if f["type"] == "count"}
    for f in findings:
        if f["type"] == "attribute" and tuple(sorted(f["fixed"].items())) in counted:
            redundant.add(id(f))  # the group is already shown to be small: its count finding says more
        fixed = f["fixed"]
        for d in list(fixed):
            if f["type"] == "attribute" and dims[f["axis"]] == d:
                continue
            coarser = {k: v for k, v in fixed.items() if k != d}
            key = (
                f["type"],
                f.get("magnitude"),
                f.get("axis"),
                f.get("value"),
                tuple(sorted(coarser.items())),
            )
            other = by_key.get(key)
            if other is None:
                continue
            if f["type"] == "attribute":
                redundant.add(id(f))  # the larger group's finding holds for this part
            elif _said_alike(other, f):
                redundant.add(id(other))  # the larger group only repeats this one
    out = []
    said: set[tuple[int, ...]] = set()
    # One sentence per zero: "everyone in West smokes" rather than also "every non-smoker lives elsewhere".
    rank = {"count": 0, "sum": 1, "attribute": 2}
    ordered = sorted(
        findings, key=lambda f: (rank[f["type"]], len(f["fixed"]), sum(d in conditions for d in f["fixed"]))
    )
    for f in ordered:
        if id(f) in redundant:
            continue
        if f["type"] == "attribute":
            if f["zeros"] in said:
                continue
            said.add(f["zeros"])
        outputs = sorted({x for e in f["rows"] for x in names[e]}) or every
        who, labels = _describe(f["fixed"], atoms, variables, conditions)
        lo, hi = f["lo"], f["hi"]
        single = len(f["fixed"]) == len(dims)
        item: dict[str, Any] = {"labels": labels, "interval": [_clean(lo), _clean(hi)], "outputs": outputs,
                                "type": f["type"], "atom": None}  # fmt: skip
        if single:
            mask = np.ones(len(atoms), dtype=bool)
            for d, c in f["fixed"].items():
                col = f"__c_{d}" if d in variables else f"__f{conditions.index(d)}"
                mask &= atoms[col].to_numpy(dtype=np.int64) == c
            hits = np.flatnonzero(mask)
            item["atom"] = int(hits[0]) if hits.size == 1 else None
        if f["type"] == "count":
            item["kind"] = "exact" if lo == hi else "approximate"
            item["sentence"] = _count_sentence(outputs, int(lo), int(hi), who)
        elif f["type"] == "attribute":
            d = dims[f["axis"]]
            value: Any
            if d in variables:
                value = str(cast(pd.Index, atoms.attrs["levels"][d])[f["value"]])
                trait = f"{d} = {value}"
            else:
                value = bool(f["value"])
                trait = d if value else f"not ({d})"
            item["kind"] = "exact"
            item["attribute"] = {"variable": d, "value": value}
            item["sentence"] = _attribute_sentence(outputs, who, trait)
        else:
            item["kind"] = "exact" if f["exact"] else "approximate"
            item["magnitude"] = f["magnitude"]
            item["sentence"] = _sum_sentence(
                outputs, f["magnitude"], int(f["count"]), lo, who, exact=f["exact"], hi=hi
            )
        out.append(item)
    return out
