"""The check of every output on a connection whose ``data`` is the microdata (a DataFrame or a file's view).

:func:`checked` is the one check behind :func:`~privrisk.outputs.run.check_frame` (a DataFrame registered in
DuckDB) and :func:`~privrisk.outputs.run.run_outputs` on a CSV or Parquet file (DuckDB's view of the file,
:mod:`privrisk.outputs._source`): the cells, the rules, the differencing, the intervals and the remedies, all from
SQL over ``data``; what needs records in pandas is asked of its callers (``rows`` for a model's fit, ``versions``
for the data's fingerprint).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.outputs.policy import Policy
from privrisk.outputs.rules import model_rules, worst
from privrisk.outputs.spec import MODELS, OutputSpec

if TYPE_CHECKING:
    from privrisk.outputs.ledger import Released

__all__ = ["checked"]


def checked(
    con: Any,
    specs: Sequence[OutputSpec],
    policy: Policy,
    *,
    columns: list[str],
    records: int,
    rows: Callable[[str | None], pd.DataFrame],
    versions: Callable[[tuple[OutputSpec, ...]], dict[str, dict[str, Any]]],
    earlier: Sequence[OutputSpec | Released] = (),
    max_atoms: int = 200_000,
    knowledge: Any = None,
    keyed: Any = None,
    record_key: str | None = None,
) -> dict[str, Any]:
    """Check the outputs ``specs`` (and the ``earlier`` ones, in the differencing) on ``con``'s ``data``.

    ``columns`` and ``records`` are the data's; ``rows(cond)`` the records a model is fitted on (those meeting the
    SQL condition ``cond``, all of them for None); ``versions(specs)`` the data version of each output;
    ``keyed`` a connection that sees each record's key (perturbed outputs), ``knowledge`` the spec's. The
    fields of the :class:`~privrisk.outputs.run.OutputsRun`.
    """
    from privrisk.outputs.cell_bounds import cell_bounds
    from privrisk.outputs.compute import table_cells
    from privrisk.outputs.differencing import difference
    from privrisk.outputs.models import fit_model
    from privrisk.outputs.recommend import recommendations
    from privrisk.outputs.rules import cell_rules

    specs = tuple(specs)
    before: dict[str, dict[tuple[str, ...], Any] | None] = {}
    earlier_specs: list[OutputSpec] = []
    for item, name in zip(earlier, _earlier_names(earlier, specs), strict=True):
        spec_ = item if isinstance(item, OutputSpec) else item.spec
        if spec_.kind in MODELS:
            continue  # a model's coefficients are not sums of atoms: they take no part in the differencing
        if name != spec_.name:
            spec_ = dataclasses.replace(spec_, name=name)
        earlier_specs.append(spec_)
        before[name] = None if isinstance(item, OutputSpec) else item.values()
    for spec in (*specs, *earlier_specs):
        for col in spec.columns_used:
            if col not in columns:
                has = f"(it has {', '.join(map(str, columns[:12]))}{', …' if len(columns) > 12 else ''})"
                if spec not in specs:
                    raise PrivriskError(
                        f"ledger: the earlier output {spec.name!r} reads the column {col!r}, which the data does "
                        f"not have {has}: check this request against the data the earlier outputs came from",
                        param="ledger",
                    )
                raise PrivriskError(
                    f"spec: output {spec.name!r}: field {_field_of(spec, col)!r}: no column {col!r} in the data "
                    + has,
                    param="spec",
                )
    outputs: list[dict[str, Any]] = []
    tables: dict[str, pd.DataFrame] = {}
    linear: list[tuple[OutputSpec, pd.DataFrame]] = []
    changed = 0
    moved_outputs: list[str] = []
    for spec in (*specs, *earlier_specs):
        released = spec in specs
        if spec.kind in MODELS:
            from privrisk.outputs.compute import check_where

            cond = check_where(con, spec)
            fit = fit_model(rows(cond if spec.where else None), spec)
            broken = model_rules(fit.dof, policy)
            status = worst(r["status"] for r in broken)
            cells = [
                {"labels": {"term": t}, "value": _value(c), "status": status, "rules": broken}
                for t, c in zip(fit.terms, fit.coefficients, strict=True)
            ]
            if released:
                outputs.append(
                    {
                        "name": spec.name,
                        "kind": spec.kind,
                        "status": status,
                        "cells": cells,
                        "n": fit.n,
                        "dof": fit.dof,
                    }
                )
            continue
        cells_frame = table_cells(con, spec, policy)
        if spec.ptable is not None and keyed is not None:
            from privrisk.outputs.perturbed import perturb

            cells_frame = perturb(keyed, spec, cells_frame)
        if not released:
            values = before.get(spec.name)
            if values is not None:
                from privrisk.outputs.ledger import as_released

                cells_frame, moved = as_released(cells_frame, spec, values)
                changed += moved
                if moved:
                    moved_outputs.append(spec.name)
            linear.append((spec, cells_frame))
            continue
        linear.append((spec, cells_frame))
        rules = cell_rules(spec, cells_frame, policy)
        statuses = [worst(r["status"] for r in broken) for broken in rules]
        cells_frame = cells_frame.assign(status=statuses)
        tables[spec.name] = cells_frame
        labels: list[dict[str, Any]] = (
            cells_frame[list(spec.variables)].to_dict("records")  # type: ignore[assignment]
            if spec.variables
            else [{} for _ in range(len(cells_frame))]
        )
        cells = [
            {"labels": lab, "value": _value(value), "n": int(n), "status": st, "rules": broken}
            for lab, value, n, st, broken in zip(
                labels,
                cells_frame["value"].tolist(),
                cells_frame["n"].tolist(),
                statuses,
                rules,
                strict=True,
            )
        ]
        margins = dict(cells_frame.attrs.get("margins") or {})
        outputs.append({"name": spec.name, "kind": spec.kind, "status": worst(statuses), "cells": cells,
                        "margins": margins})  # fmt: skip
        if "allowed_lo" in cells_frame:
            _perturbed_cells(outputs[-1], spec, cells_frame, record_key)
    started = time.perf_counter()
    try:
        diff = difference(con, linear, policy, max_atoms=max_atoms, knowledge=knowledge)
    except PrivriskError as exc:
        if not changed or "contradict" not in str(exc):
            raise
        raise PrivriskError(
            f"ledger: {changed} number{'s' if changed != 1 else ''} released before differ from today's data, "
            "and with this request they contradict each other: check against the data those outputs came from",
            param="ledger",
        ) from None
    audit_seconds = time.perf_counter() - started
    # A perturbed cell's interval is that of its published value (its "consistent" counts), not a suppression's.
    exact = [(s, c) for s, c in linear if "allowed_lo" not in c]
    mine = [(s, c) for s, c in exact if s.name in tables]
    failing = {s.name: tables[s.name]["status"].to_numpy() == "fail" for s, _ in mine}
    bounds, cells_undecided = cell_bounds(diff, mine, policy, released=exact, first=failing)
    for o in outputs:
        found = bounds.get(o["name"])
        if found is None:
            if o["kind"] not in MODELS:
                for cell in o["cells"]:
                    cell.update(interval=None, interval_exact=None, protected=None)
            continue
        for cell, lo, hi, exact, guard in zip(
            o["cells"], found["lo"], found["hi"], found["exact"], found["protected"], strict=True
        ):
            known = not np.isnan(lo)
            cell["interval"] = [_bound(lo), _bound(hi)] if known else None
            cell["interval_exact"] = bool(exact) if known else None
            cell["protected"] = guard
    recs = recommendations(outputs, diff, specs, linear, policy, con, audit_seconds=audit_seconds)
    counts = {
        s: sum(c["status"] == s for o in outputs for c in o["cells"]) for s in ("pass", "review", "fail")
    }
    summary = {
        "outputs": len(outputs),
        "earlier_outputs": len(earlier_specs),
        "earlier_numbers_changed": changed,
        "cells": sum(len(o["cells"]) for o in outputs),
        **{f"cells_{k}": v for k, v in counts.items()},
        "atoms": len(diff.atoms),
        "atoms_complete": diff.complete,
        "atoms_undecided": diff.undecided,
        "equations": diff.equations,
        "rank": diff.rank,
        "cells_undecided": cells_undecided,
        "cells_unprotected": sum(
            c["status"] == "fail" and c.get("protected") is False for o in outputs for c in o["cells"]
        ),
        "disclosures_exact": sum(d["kind"] == "exact" for d in diff.disclosures),
        "disclosures_approximate": sum(d["kind"] == "approximate" for d in diff.disclosures),
        "records": records,
        "outputs_perturbed": [o["name"] for o in outputs if "perturbation" in o],
    }
    return dict(
        outputs=outputs,
        disclosures=diff.disclosures,
        recommendations=recs,
        atoms=_atoms_public(diff),
        summary=summary,
        policy=policy,
        specs=specs,
        tables=tables,
        versions=versions(specs),
        earlier_changed=tuple(moved_outputs),
        assumed=list(diff.assumed),
        undecided_groups=list(diff.undecided_groups),
    )


def _earlier_names(earlier: Sequence[Any], specs: Sequence[OutputSpec]) -> list[str]:
    """The name each earlier output takes in the differencing: its own, or with its position when that is taken
    (by the request or by an output before it), so that no earlier output is ever dropped or replaced.

    Example:
        >>> x = OutputSpec(name="X", kind="count")
        >>> _earlier_names([x, x], [OutputSpec(name="Y", kind="count")])
        ['X', 'X (earlier 2)']
    """
    from privrisk.outputs.ledger import name_key

    used = {name_key(s.name) for s in specs}
    names = []
    for k, item in enumerate(earlier, 1):
        name = item.name if isinstance(item, OutputSpec) else item.spec.name
        candidate, j = name, 1
        while name_key(candidate) in used:
            candidate = f"{name} (earlier {k})" if j == 1 else f"{name} (earlier {k}.{j})"
            j += 1
        used.add(name_key(candidate))
        names.append(candidate)
    return names


def _perturbed_cells(
    output: dict[str, Any], spec: OutputSpec, cells: pd.DataFrame, record_key: str | None
) -> None:
    """The published value of each cell of a perturbed table, its true count, its cell key and the counts the
    published value allows; and which table perturbed the output."""
    from privrisk.outputs.perturbed import description

    output["perturbation"] = description(spec, record_key)
    for cell, true, key, lo, hi in zip(output["cells"], cells["true_value"].tolist(), cells["cell_key"].tolist(),
                                       cells["allowed_lo"].tolist(), cells["allowed_hi"].tolist(), strict=True):  # fmt: skip
        cell.update(true_value=_value(true), cell_key=float(key), consistent=[_value(lo), _value(hi)])


def _atoms_public(diff: Any) -> pd.DataFrame:
    if diff.atoms.empty:
        return pd.DataFrame(columns=["lo", "hi"])
    frame = pd.DataFrame({v: diff.atoms[v] for v in diff.variables})
    for i, c in enumerate(diff.conditions):
        frame[c] = diff.atoms[f"__f{i}"].astype(bool)
    frame["lo"] = diff.atoms["lo"]
    frame["hi"] = diff.atoms["hi"]
    frame["tight"] = diff.atoms["tight"]
    frame["n"] = diff.atoms["n"]
    for m in diff.magnitudes:
        if f"lo_{m}" in diff.atoms:
            frame[f"lo_{m}"] = diff.atoms[f"lo_{m}"]
            frame[f"hi_{m}"] = diff.atoms[f"hi_{m}"]
    return frame


def _bound(x: float) -> float | int:
    """An end of a cell's interval: whole numbers as ints, ±inf kept (JSON writes them as null)."""
    v = float(x)
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def _value(x: Any) -> float | int | None:
    v = float(x)
    if v != v:
        return None
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def _field_of(spec: OutputSpec, col: str) -> str:
    for key in ("rows", "columns"):
        if col in getattr(spec, key):
            return key
    if col == spec.weights:
        return "weights"
    if spec.formula and spec.kind in MODELS:
        return "formula"
    return "variable"
