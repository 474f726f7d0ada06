"""The atoms of a request: every possible combination of the grouping variables' labels and the conditions' truth
values (:func:`privrisk.outputs.knowledge.universe`), with what the data holds in each: its count, its exact sum
of every magnitude (:mod:`privrisk.outputs.exact_sum`, the same in any order of the records), its least and its
two largest values. One DuckDB query over the data; the differencing (:mod:`privrisk.outputs.differencing`)
solves for these unknowns.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from privrisk._validation import quote_identifier as qi
from privrisk.errors import PrivriskError
from privrisk.outputs.compute import _label, _order, _types
from privrisk.outputs.groups import Cube
from privrisk.outputs.knowledge import Knowledge, _exact_text, universe

__all__ = ["atom_cube", "atom_table"]


def atom_table(
    con: Any,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    sql_of: dict[str, str],
    max_atoms: int,
    knowledge: Knowledge | None,
) -> tuple[pd.DataFrame, Any]:
    """The possible atoms (:func:`privrisk.outputs.knowledge.universe`) with the data's count, sums and largest
    values in each, and every grouping variable's levels as integer codes; and the universe they come from."""
    from privrisk.outputs.exact_sum import exact_sum_sql, from_limbs, limb_grid

    uni = universe(con, variables, conditions, knowledge, max_atoms=max_atoms)
    flags = [f"COALESCE(({c}), FALSE) AS __f{i}" for i, c in enumerate(conditions)]
    # Grouped by the values where each value has one label (its text is made once per atom, not per record).
    types = _types(con)
    native = [v for v in variables if _exact_text(types.get(v, ""))]
    labels = [qi(v) if v in native else f"{_label(v)} AS {qi(v)}" for v in variables]
    aggs = ["COUNT(*) AS n"]
    grids = {m: limb_grid(con, x) for m, x in sql_of.items()}  # exact sums, in any order of the records
    for m, x in sql_of.items():
        aggs += [
            f"{exact_sum_sql(x, grids[m])} AS {qi('__s_' + m)}",
            f"MIN({x}) AS {qi('__min_' + m)}",
            f"MAX({x}) AS {qi('__max_' + m)}",
            f"MAX({x}, 2) AS {qi('__top_' + m)}",
        ]
    keys = labels + flags
    sql = f"SELECT {', '.join(keys + aggs)} FROM data" + (" GROUP BY ALL" if keys else "")
    if native:
        sql = f"SELECT * REPLACE ({', '.join(f'{_label(v)} AS {qi(v)}' for v in native)}) FROM ({sql})"
    observed = con.sql(sql).df()
    for m in sql_of:
        texts = observed[f"__s_{m}"]
        sums = from_limbs(texts, grids[m])
        sums[texts.isna().to_numpy()] = 0.0  # an atom without a value adds nothing (a NaN value stays NaN)
        observed[f"__s_{m}"] = sums
        tops = observed.pop(f"__top_{m}")
        firsts, seconds = [], []
        for t in tops:
            # A group whose values are all missing has no largest values (NULL, NaN or pandas' NA).
            listed = t if isinstance(t, list | tuple | np.ndarray) else []
            vals = sorted((float(v) for v in listed if v is not None and not pd.isna(v)), reverse=True)
            firsts.append(vals[0] if vals else 0.0)
            seconds.append(vals[1] if len(vals) > 1 else 0.0)
        observed[f"__t1_{m}"] = firsts
        observed[f"__t2_{m}"] = seconds
    fcols = [f"__f{i}" for i in range(len(conditions))]
    for f in fcols:
        observed[f] = observed[f].astype(bool)
    for v in variables:
        observed[v] = observed[v].astype(str)
    on = [*variables, *fcols]
    if on:
        atoms = uni.atoms.merge(observed, on=on, how="left", indicator=True)
        outside = observed.merge(uni.atoms, on=on, how="left", indicator=True)
        if (outside["_merge"] == "left_only").any():
            raise PrivriskError(
                "spec: [domains]: the data has values outside the declared domains (e.g. "
                + ", ".join(
                    f"{k} = {v}" for k, v in outside.loc[outside["_merge"] == "left_only", on].iloc[0].items()
                )
                + ")",
                param="spec",
            )
        atoms = atoms.drop(columns="_merge")
    else:
        atoms = observed if len(observed) else pd.DataFrame({"n": [0]})
    atoms = atoms.reset_index(drop=True)
    atoms["n"] = atoms["n"].fillna(0).astype("int64")
    for m in sql_of:
        for col in (f"__s_{m}", f"__t1_{m}", f"__t2_{m}"):
            atoms[col] = atoms[col].fillna(0.0).astype(float)
        for col in (f"__min_{m}", f"__max_{m}"):
            atoms[col] = pd.to_numeric(atoms[col], errors="coerce").astype(float)
    atoms.attrs["levels"] = {}
    for v in variables:
        index = pd.Index(sorted(atoms[v].astype(str).unique(), key=_order))
        atoms.attrs["levels"][v] = index
        atoms[f"__c_{v}"] = index.get_indexer(pd.Index(atoms[v].astype(str))).astype(np.int32)
    return atoms, uni


def atom_cube(atoms: pd.DataFrame, variables: tuple[str, ...], conditions: tuple[str, ...]) -> Cube:
    """The atoms as a cube: one dimension per grouping variable (its levels) and per condition (false, true)."""
    sizes = [len(cast(pd.Index, atoms.attrs["levels"][v])) for v in variables] + [2] * len(conditions)
    coords = np.column_stack(
        [atoms[f"__c_{v}"].to_numpy(dtype=np.int64) for v in variables]
        + [atoms[f"__f{i}"].to_numpy(dtype=np.int64) for i in range(len(conditions))]
    ) if sizes else np.zeros((len(atoms), 0), dtype=np.int64)  # fmt: skip
    return Cube((*variables, *conditions), tuple(sizes), coords)
