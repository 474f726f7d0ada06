"""What to do about failing cells and disclosures: suggestions proven against the whole release, ranked by cost.

For every failing table the suggestions are, in the order a centre uses them:

- **suppress** the failing cells, with the secondary suppressions they need: cells are added greedily (the
  smallest cell on a line through a cell the audit still recomputes, :func:`_partner`) until the audit finds
  every failing cell protected and no new finding;
- **coarsen**: release the table without one grouping variable (when no cell of the coarser table fails);
- **withhold**: do not release the table;
- **round** every cell to the policy's ``safe_round_base`` (not audited: see below);
- **noise**: Laplace noise of scale Δf/ε, Δf the global sensitivity of the query over the variable's observed
  range (:func:`privrisk.sensitivity.global_sensitivity`) and ε = ln(t − 1), which keeps the many-worlds risk among
  t possible worlds (t the threshold) at 1/2 (:func:`privrisk.risk.many_worlds`); its cost is stated as the
  half-width of the 95 % interval of the noise, b·ln 20, beside the failing cells' values.

**Confirmed** means proven by :func:`audit` (:func:`privrisk.outputs.release_audit.audit_release`): the release
with the suggestion applied, everything else as requested (this request's other outputs in full and the
ledger's), gives no finding that the release without the table would not give, and each failing cell of the table
is protected (its interval over everything released is not a single value, or for a magnitude wider than its p %
protection). The first confirmed suggestion of each output (else its first suppression) and, for findings that
combine outputs that pass, the fewest of this request's outputs to withhold, make up the **plan**; the plan is
audited once more with all its suggestions applied together. A suggestion of the plan that is not confirmed
alone is confirmed by that audit. Rounding is never confirmed: the audit models released numbers as exact, and a
rounded cell is known to lie within half the base of its value.

Suggestions are ranked by what they cost, as τ-ARGUS reports suppressions: confirmed first, then suppression,
coarsening and withholding before rounding and noise, then the number of cells withheld and the total they hold.
The audits of one request share one budget counted in audits, not seconds (:data:`REMEDY_AUDITS`; each audit's
programmes have their own budgets in simplex iterations), so the same request gives the same suggestions on
every run and every machine; a suggestion not audited within it is not confirmed and says so.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privrisk._format import listing
from privrisk.outputs.policy import Policy
from privrisk.outputs.remedies import (
    FAMILY,
    LINEAR,
    NOT_AUDITED,
    REMEDY_ATOMS,
    REMEDY_AUDITS,
    Option,
    Remedies,
    audit,
    remedy_audits,
)
from privrisk.outputs.spec import MODELS, OutputSpec
from privrisk.outputs.wording import cells_phrase

__all__ = ["REMEDY_ATOMS", "REMEDY_AUDITS", "audit", "recommendations", "remedy_audits"]


def _sentence(o: Option, plan: bool, together: bool) -> str:
    text = o.fields["text"]
    if o.confirmed and together:
        verdict = "with the other suggestions applied, the audit of everything released confirms it"
    elif o.confirmed:
        verdict = "the audit of everything released confirms it"
    elif o.action == "round":
        verdict = f"not confirmed: {o.reason}"
    else:
        verdict = f"not confirmed: {o.reason}"
    if not plan:
        text = "Instead: " + text[:1].lower() + text[1:]
    return f"{text}; {verdict}."


def recommendations(
    outputs: list[dict[str, Any]],
    diff: Any,
    specs: tuple[OutputSpec, ...],
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    con: Any,
    *,
    audit_seconds: float = 0.0,
) -> list[dict[str, Any]]:
    """The suggestions for every failing output and every finding, the plan first, each with its cost.

    ``diff`` is the differencing of the request as it is (its findings start the plan); ``audit_seconds`` how
    long it took (kept for callers; every audit here shares :func:`remedy_audits`' budget).
    """
    del audit_seconds
    atoms = getattr(diff, "atoms", None)
    request = Remedies(outputs, specs, linear, policy, con, getattr(diff, "knowledge", None),
                       0 if atoms is None else len(atoms), diff)  # fmt: skip
    per_output: dict[str, list[Option]] = {}
    for o in outputs:
        if o["status"] != "fail":
            continue
        if o["kind"] in MODELS:
            continue
        per_output[o["name"]] = request.options(o["name"])
    choice: dict[str, Option] = {}
    for name, options in per_output.items():
        usual = [o for o in options if FAMILY[o.action] == 0]
        choice[name] = next((o for o in usual if o.confirmed), usual[0] if usual else options[0])
    if not per_output and not diff.disclosures:
        return [_model(o) for o in outputs if o["status"] == "fail" and o["kind"] in MODELS]
    changes, withheld, result, tried = request.plan(choice, diff.disclosures)
    plan_safe = result is not None and result.safe
    recs: list[dict[str, Any]] = []
    alternatives: list[dict[str, Any]] = []
    for o in outputs:
        if o["status"] == "fail" and o["kind"] in MODELS:
            recs.append(_model(o))
            continue
        if o["name"] not in per_output:
            continue
        options = per_output[o["name"]]
        picked = choice[o["name"]]
        if o["name"] in withheld:
            picked = next(x for x in options if x.action == "withhold")
        for rank, opt in enumerate(options, 1):
            in_plan = opt is picked
            alone = opt.confirmed
            audited = request.by_name[opt.output].kind in LINEAR
            if in_plan and result is not None and audited:
                own_ok = not result.exposed(opt.output) and result.complete
                opt.confirmed = plan_safe or (alone and own_ok)
                if not opt.confirmed and alone:
                    opt.reason = "with the other suggestions applied, a failing cell is recomputed"
                elif not opt.confirmed and not plan_safe and result.disclosures:
                    opt.reason = opt.reason or "findings remain with the other suggestions applied"
            elif in_plan and audited:
                opt.confirmed, opt.reason = False, NOT_AUDITED
            rec = _record(opt, rank, in_plan, together=in_plan and not alone and opt.confirmed)
            (recs if in_plan else alternatives).append(rec)
    extra = [n for n in withheld if n not in per_output]
    if extra:
        spec_cells = [(request.by_name[n], request.tables[n]) for n in extra]
        count = sum(len(c) for _, c in spec_cells)
        others = len(changes) > len(extra)
        recs.append(
            {
                "action": "withhold",
                "output": extra[0] if len(extra) == 1 else listing(extra),
                "outputs": extra,
                "plan": True,
                "rank": 1,
                "confirmed": plan_safe,
                "cells_withheld": count,
                "value_withheld": None,
                "cost": f"{cells_phrase(count)} of {listing(extra)} withheld",
                "sentence": f"Do not release {listing(extra)}: "
                + (
                    (
                        "with the other suggestions applied, "
                        if others
                        else f"without {'it' if len(extra) == 1 else 'them'}, "
                    )
                    + "the audit finds no disclosure."
                    if plan_safe
                    else "this removes some findings, not all (see below)."
                ),
            }
        )
        for n, ok in tried:
            if ok and n not in withheld and len(withheld) == 1:
                alternatives.append(
                    {
                        "action": "withhold",
                        "output": n,
                        "outputs": [n],
                        "plan": False,
                        "rank": 2,
                        "confirmed": True,
                        "cells_withheld": len(request.tables.get(n, ())),
                        "value_withheld": None,
                        "cost": f"{cells_phrase(len(request.tables.get(n, ())))} of {n} withheld",
                        "sentence": f"Instead: do not release {n}: the audit then finds no disclosure either.",
                    }
                )
    if result is None:
        recs.append(
            {
                "action": "review",
                "plan": True,
                "confirmed": False,
                "cost": "a person decides",
                "sentence": "The suggestions could not be audited together in the time given: decide by review.",
            }
        )
    elif result.disclosures:
        left = result.disclosures
        recs.append(
            {
                "action": "review",
                "plan": True,
                "confirmed": False,
                "disclosures": [d.get("sentence") for d in left],
                "cost": "a person decides",
                "sentence": f"With the suggestions above applied, {len(left)} finding{'s' if len(left) != 1 else ''} "
                f"remain{'s' if len(left) == 1 else ''} ({left[0].get('sentence', '')}{' …' if len(left) > 1 else ''}); "
                "no output of this request that was tried removes "
                f"{'it' if len(left) == 1 else 'them'}: suppress or coarsen the cells that combine to "
                f"{'it' if len(left) == 1 else 'them'}, or decide by review.",
            }
        )
    return recs + alternatives


def _record(o: Option, rank: int, plan: bool, *, together: bool) -> dict[str, Any]:
    fields = {k: v for k, v in o.fields.items() if k != "text"}
    return {
        "action": o.action,
        "output": o.output,
        "plan": plan,
        "rank": rank,
        "confirmed": o.confirmed,
        **({"reason": o.reason} if not o.confirmed else {}),
        "cells_withheld": o.cells_withheld,
        "value_withheld": o.value_withheld,
        **fields,
        "sentence": _sentence(o, plan, together),
    }


def _model(o: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": "withhold",
        "output": o["name"],
        "plan": True,
        "rank": 1,
        "confirmed": True,
        "cells_withheld": len(o["cells"]),
        "value_withheld": None,
        "cost": "the model is not released",
        "sentence": f"Fit {o['name']} on more records or with fewer terms, or do not release it.",
    }
