"""What ``privrisk risk`` says about a statistical office's method beside its risks (docs/guide/census.md).

A :class:`~privrisk.accounting.GuaranteeSpec` with ``cell_key``, ``pram``, ``rounding`` or ``registry`` is run by
:func:`~privrisk.accounting.risk_report.run_risk` like any other guarantee; :func:`census_facts` adds the method's
own numbers, the ``"census"`` key of ``privrisk risk --json``:

- ``cell_key``: the table's largest noise, the share of counts published unchanged, the zero-cell disclosure
  P(published > 0 | c = 1) of a table that never changes a zero, and the count at which an attacker does best
  (:func:`~privrisk.accounting.cellkey_run.table_facts`), with the cells composed;
- ``pram``: each variable's ε = max over k of ln(max_i P[i, k] / min_j P[j, k]) (:func:`~privrisk.accounting.pram.
  pram_epsilon`, null where it is infinite);
- ``rounding``: the kind and base, and the sentence of :mod:`~privrisk.accounting.rounding` (deterministic
  rounding is no guarantee: δ = 1, and the differencing example);
- ``registry``: the entry's name, variant, privacy unit, the parameters as written, and the zCDP → (ε, δ)
  conversions it quotes, named tight, classical or neither (:func:`~privrisk.accounting.registry.
  stated_conversions`).

Each has a ``sentence`` in English; the words for a census user, in English or German, are
:func:`privrisk.reports.census_words.cell_key_words`.

Example:
    >>> from privrisk.accounting.spec import GuaranteeSpec
    >>> spec = GuaranteeSpec(pram=[[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    >>> facts = census_facts(spec)
    >>> facts["method"], round(facts["variables"][0]["epsilon"], 4)      # ln 8, 3-ary randomised response
    ('pram', 2.0794)
"""

from __future__ import annotations

import math
from typing import Any

from privrisk.accounting.spec import GuaranteeSpec, cell_key_table, pram_matrices, registry_entry

__all__ = ["census_facts", "census_method", "loaded_spec"]


def census_method(spec: GuaranteeSpec) -> str | None:
    """The statistical office's method the spec states (``cell_key``, ``pram``, ``rounding``, ``registry``), or
    None for any other guarantee (or none).

    Example:
        >>> census_method(GuaranteeSpec(rounding="random:3")), census_method(GuaranteeSpec(epsilon=1.0))
        ('rounding', None)
    """
    given = [name for name in ("cell_key", "pram", "rounding", "registry") if getattr(spec, name) is not None]
    return given[0] if len(given) == 1 else None


def loaded_spec(spec: GuaranteeSpec) -> GuaranteeSpec:
    """The spec with the file of its ``cell_key``, ``registry`` or ``pram`` read, so that it is read once.

    Raises:
        PrivriskError: (param the field) for a file that cannot be read as what the field needs.
    """
    from dataclasses import replace

    method = census_method(spec)
    if method == "cell_key":
        return replace(spec, cell_key=cell_key_table(spec.cell_key))
    if method == "registry":
        return replace(spec, registry=registry_entry(spec.registry))
    if method == "pram":
        return replace(spec, pram=pram_matrices(spec.pram))
    return spec


def census_facts(spec: GuaranteeSpec) -> dict[str, Any] | None:
    """The method's own numbers and a sentence (module docstring); None for a guarantee that is no census method.

    The spec must hold a valid guarantee (:meth:`GuaranteeSpec.build` checks it; files are read here when the
    spec still names them).
    """
    method = census_method(spec)
    if method is None:
        return None
    spec = loaded_spec(spec)
    if method == "cell_key":
        return _cell_key(spec)
    if method == "pram":
        return _pram(spec)
    if method == "rounding":
        return _rounding(spec)
    return _registry(spec)


def _cell_key(spec: GuaranteeSpec) -> dict[str, Any]:
    from privrisk._format import percent
    from privrisk.accounting.cellkey_run import table_facts

    cells = 1 if spec.cells is None else int(spec.cells)
    facts = table_facts(spec.cell_key, cells=cells)
    sentence = (
        f"The table changes a count by at most {facts['max_noise']}; at least {percent(facts['unchanged'])} of "
        "counts are published as they are."
    )
    if facts["zero_cell_disclosure"] > 0:
        sentence += (
            " It never changes a zero, so a count above zero where the cell would be empty without the person "
            f"gives the person away with probability {facts['zero_cell_disclosure']:.4g}: a δ at every ε."
        )
    if cells > 1:
        sentence += (
            f" The {cells} cells that hold the person are composed as independent noises, which holds only when "
            "their keys are independent (no total published beside the cells it sums)."
        )
    return {"method": "cell_key", **facts, "sentence": sentence}


def _pram(spec: GuaranteeSpec) -> dict[str, Any]:
    import numpy as np

    from privrisk.accounting.pram import pram_epsilon

    variables = []
    for name, matrix in spec.pram.items():
        m = np.asarray(matrix, dtype=float)
        eps = pram_epsilon(m)
        variables.append(
            {"name": name, "categories": int(m.shape[0]), "epsilon": eps if math.isfinite(eps) else None}
        )
    finite = [v["epsilon"] for v in variables if v["epsilon"] is not None]
    total = sum(finite) if len(finite) == len(variables) else None
    what = "each variable's" if len(variables) > 1 else "its"
    sentence = (
        f"PRAM is randomised response with a transition matrix: {what} ε is exact, the largest log-ratio of two "
        "rows' probabilities of one published category, for neighbours that replace one person's record."
    )
    if total is None:
        sentence += (
            " Some category can come from one category and not another: no finite ε holds, and the δ shows how "
            "often a published category gives a person's true one away."
        )
    elif len(variables) > 1:
        sentence += f" The variables compose: at most ε = {total:.4g} in all."
    return {"method": "pram", "variables": variables, "epsilon": total, "sentence": sentence}


def _rounding(spec: GuaranteeSpec) -> dict[str, Any]:
    from privrisk.accounting.rounding import parse_rounding, rounding_guarantee

    kind, base = parse_rounding(spec.rounding)  # type: ignore[arg-type]
    g = rounding_guarantee((kind, base))
    facts: dict[str, Any] = {"method": "rounding", "kind": kind, "base": base, "guarantee": kind == "random"}
    if kind == "deterministic":
        total, part, (low, high), others = g.differencing()  # type: ignore[attr-defined]
        facts["differencing"] = {"total": total, "part": part, "low": low, "high": high, "known": others}
    facts["sentence"] = g.sentence()  # type: ignore[attr-defined]
    return facts


def _registry(spec: GuaranteeSpec) -> dict[str, Any]:
    from privrisk.accounting.registry import registry_risk, stated_conversions

    entry = spec.registry
    row = registry_risk(entry)
    conversions = stated_conversions(entry)
    name = row["name"] or row["slug"] or "the entry"
    sentence = f"{name} states {row['variant'] or 'no variant'} with {row['stated'] or 'no parameters'}"
    sentence += f" (privacy unit: {row['unit']})." if row["unit"] else "."
    if row["note"]:
        sentence += f" Read as {row['guarantee']}: {row['note']}."
    sentence += " " + " ".join(f"It quotes {c.sentence()}." for c in conversions) if conversions else ""
    return {
        "method": "registry",
        "name": row["name"],
        "slug": row["slug"],
        "variant": row["variant"],
        "privacy_unit": row["unit"],
        "stated": row["stated"],
        "note": row["note"],
        "conversions": [
            {
                "rho": c.rho,
                "epsilon": c.epsilon,
                "delta": c.delta,
                "tight": c.tight,
                "classical": c.classical,
                "matches": c.matches,
                "understated": c.understated,
                "where": c.where,
            }
            for c in conversions
        ],
        "sentence": sentence,
    }
