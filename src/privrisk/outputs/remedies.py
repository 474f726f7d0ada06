"""The remedies of one request, each audited against everything released: per failing output its options, then the plan.

Per failing output (:class:`Remedies`): suppression with the secondary cells it needs, coarsening, withholding,
rounding and noise, each an :class:`Option` with its cost; the audits of one request share one budget counted in
audits (:func:`remedy_audits`), each audit a differencing of the release with the suggestion applied
(:func:`privrisk.outputs.release_audit.audit_release`, narrowed to the groups the request's own differencing may
find). How they are ranked, confirmed together and worded is :mod:`privrisk.outputs.recommend`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privrisk.outputs.policy import Policy
from privrisk.outputs.release_audit import Audit, Change, audit_release, coarser, finding_key
from privrisk.outputs.secondary import cover, partner
from privrisk.outputs.spec import MODELS, OutputSpec
from privrisk.outputs.wording import DEFAULT_UNIT, cell_text, cells_phrase, quantity

__all__ = [
    "FAMILY",
    "LINEAR",
    "NOT_AUDITED",
    "REMEDY_ATOMS",
    "REMEDY_AUDITS",
    "Option",
    "Remedies",
    "audit",
    "remedy_audits",
]

#: The audit of a release with suggestions applied (:func:`privrisk.outputs.release_audit.audit_release`).
audit = audit_release

# Audits all the suggestions of one request may take together (each a whole differencing; counted, not timed, so
# the suggestions are the same on every run); a suggestion left unaudited is not confirmed. A large request gets
# fewer: the audits together examine at most REMEDY_ATOMS atoms (60 of 10,080 atoms, the typical request of
# ``benchmarks/outputs.py``; 6 of 10⁵ atoms, where one audit takes minutes).
REMEDY_AUDITS = 60
REMEDY_ATOMS = 650_000
MAX_SECONDARY = 50
# The order in which a centre reaches for a remedy: the usual ones before rounding and noise.
FAMILY = {"suppress": 0, "coarsen": 0, "withhold": 0, "round": 1, "noise": 2, "review": 3}
LINEAR = ("count", "sum", "mean")
NOT_AUDITED = "not audited: the audits of one request were spent"


def remedy_audits(atoms: int) -> int:
    """How many audits the suggestions of a request of ``atoms`` atoms may take: :data:`REMEDY_AUDITS`, fewer when
    they would examine more than :data:`REMEDY_ATOMS` atoms together (at least one).

    Example:
        >>> remedy_audits(10_080), remedy_audits(100_000), remedy_audits(10**7)
        (60, 6, 1)
    """
    return int(min(REMEDY_AUDITS, max(1, REMEDY_ATOMS // max(1, int(atoms)))))


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


def _unit(spec: OutputSpec) -> str:
    return str(getattr(spec, "unit", None) or DEFAULT_UNIT)


class _Auditor:
    """The audits of one request, at most ``audits`` of them; each (changes, targets) is audited once."""

    def __init__(
        self,
        con: Any,
        linear: list[tuple[OutputSpec, pd.DataFrame]],
        policy: Policy,
        audits: int,
        knowledge: Any = None,
        within: Any = None,
    ) -> None:
        self.con, self.linear, self.policy, self.left = con, linear, policy, audits
        self.knowledge = knowledge  # the spec's, so that a remedy is audited against the same intruder
        self.within = within  # the request's own differencing (a release hiding cells finds among its groups)
        self.memo: dict[Any, Audit | None] = {}
        self.cache: dict[OutputSpec, pd.DataFrame] = {}
        self.atoms: dict[Any, Any] = {}  # the atoms of each set of variables, read from the data once

    def cells(self, spec: OutputSpec) -> pd.DataFrame:
        """A table's cells, computed once for every audit of the request."""
        from privrisk.outputs.compute import table_cells

        if spec not in self.cache:
            self.cache[spec] = table_cells(self.con, spec, self.policy)
        return self.cache[spec]

    def __call__(self, changes: dict[str, Change], targets: dict[str, list[int]]) -> Audit | None:
        key = (
            tuple(sorted((k, v) for k, v in changes.items())),
            tuple(sorted((k, tuple(v)) for k, v in targets.items())),
        )
        if key not in self.memo:
            if self.left <= 0:
                return None
            self.left -= 1
            self.memo[key] = audit(
                self.con,
                self.linear,
                changes,
                targets,
                self.policy,
                knowledge=self.knowledge,
                cache=self.cache,
                atoms_memo=self.atoms,
                within=self.within,
            )
        return self.memo[key]


@dataclass
class Option:
    """One suggestion for one output, before it is written out."""

    action: str
    output: str
    change: Change | None
    confirmed: bool
    reason: str
    cells_withheld: int
    value_withheld: float
    fields: dict[str, Any]

    def rank_key(self) -> tuple[Any, ...]:
        return (not self.confirmed, FAMILY[self.action], self.cells_withheld, self.value_withheld)


def _new(result: Audit, base: Audit | None) -> list[dict[str, Any]]:
    """Findings of ``result`` that the release without the output (``base``) does not have."""
    seen = {finding_key(d) for d in base.disclosures} if base is not None else set()
    return [d for d in result.disclosures if finding_key(d) not in seen]


def _verdict(result: Audit | None, base: Audit | None, name: str) -> tuple[bool, str]:
    """Whether an audit confirms a suggestion for output ``name``, and if not, why (in words)."""
    if result is None or base is None:
        return False, NOT_AUDITED
    if not result.complete or not base.complete:
        return False, "the audit did not decide every group in its time"
    exposed = result.exposed(name)
    if exposed:
        t = exposed[0]
        return False, f"a failing cell is still recomputed as {_span(t.lo, t.hi)}"
    new = _new(result, base)
    if new:
        return False, f"it adds a finding: {new[0].get('sentence', '')}".rstrip(": .")
    return True, ""


def _span(lo: float, hi: float) -> str:
    from privrisk.outputs.wording import interval_phrase

    return interval_phrase(lo, hi)


def _labels(spec: OutputSpec, cells: pd.DataFrame, i: int) -> dict[str, Any]:
    return {v: _at(cells)[i, v] for v in spec.variables}


def _cells_text(spec: OutputSpec, cells: pd.DataFrame, positions: list[int], most: int = 3) -> str:
    margin = cells.attrs.get("margins") or {}
    texts = [cell_text(_labels(spec, cells, i), margin or "All") for i in positions[:most]]
    if len(positions) > most:
        texts.append(f"and {len(positions) - most} other{'s' if len(positions) - most != 1 else ''}")
    return "; ".join(texts)


def _held(spec: OutputSpec, cells: pd.DataFrame, positions: list[int]) -> tuple[float, str]:
    """What the cells withheld hold: their people (counts) or their total (magnitudes), and in words."""
    if spec.kind == "count" and not spec.weights:
        total = float(pd.to_numeric(cells["value"].iloc[positions], errors="coerce").fillna(0).sum())
        return total, f"holding {quantity(total, _unit(spec))}"
    col = "total" if "total" in cells else "value"
    total = float(pd.to_numeric(cells[col].iloc[positions], errors="coerce").fillna(0).abs().sum())
    from privrisk._format import number

    what = spec.weights if spec.kind == "count" else spec.variable
    return total, f"holding {number(total)} of {what}"


class Remedies:
    """The suggestions of one request: per failing output its options, audited; then the plan."""

    def __init__(
        self,
        outputs: list[dict[str, Any]],
        specs: tuple[OutputSpec, ...],
        linear: list[tuple[OutputSpec, pd.DataFrame]],
        policy: Policy,
        con: Any,
        knowledge: Any = None,
        atoms: int = 0,
        within: Any = None,
    ) -> None:
        self.outputs, self.policy, self.con = outputs, policy, con
        self.by_name = {s.name: s for s in specs}
        self.tables = {s.name: c for s, c in linear}
        table_specs = [(s, c) for s, c in linear if s.kind not in MODELS]
        self.run = _Auditor(con, table_specs, policy, remedy_audits(atoms), knowledge, within)
        self.failing = {
            o["name"]: [i for i, c in enumerate(o["cells"]) if c["status"] == "fail"]
            for o in outputs
            if o["status"] == "fail" and o["kind"] not in MODELS
        }

    # ---------------------------------------------------------------------------------------- per output
    def options(self, name: str) -> list[Option]:
        spec, cells, failing = self.by_name[name], self.tables[name], self.failing[name]
        if spec.kind not in LINEAR:
            # Medians, quantiles, minima and maxima are not sums of the groups' values: not audited.
            return [
                self._suppression(spec, cells, failing, None, None),
                self._withhold(spec, cells, None, None),
                *([] if (noise := self._noise(spec, cells, failing, False)) is None else [noise]),
            ]
        base = self.run({name: Change("withhold")}, {name: failing})
        options = [self._suppression(spec, cells, failing, base, self.run)]
        options += self._coarsenings(spec, cells, failing, base)
        options.append(self._withhold(spec, cells, base, self.run))
        if spec.kind == "count" and not spec.weights:
            options.append(self._rounding(spec, cells))
        confirmed, _ = _verdict(base, base, name)
        noise = self._noise(spec, cells, failing, confirmed)
        if noise is not None:
            options.append(noise)
        return sorted(options, key=Option.rank_key)

    def _suppression(
        self, spec: OutputSpec, cells: pd.DataFrame, failing: list[int], base: Audit | None, run: Any
    ) -> Option:
        chosen = list(failing)
        confirmed, reason = False, "this kind of table is not audited for secondary suppression"
        result: Audit | None = None
        if run is not None:
            for _ in range(MAX_SECONDARY + 1):
                result = run({spec.name: Change("suppress", tuple(chosen))}, {spec.name: failing})
                confirmed, reason = _verdict(result, base, spec.name)
                if confirmed or result is None or not result.complete:
                    break
                exposed = result.exposed(spec.name)
                extra = (
                    partner(spec, cells, exposed[0].position, chosen)
                    if exposed
                    else cover(spec, cells, _new(result, base)[0], chosen)
                )
                if extra is None or extra in chosen:
                    break
                chosen.append(extra)
        if confirmed and result is not None:
            # A secondary cell that is recomputed anyway protects nothing: released, it adds no number the
            # intruder lacks. Without such cells the audit must still confirm (it is run again to be sure).
            found = result.intervals.get(spec.name, {})
            fixed = [i for i in chosen[len(failing) :] if i in found and found[i][0] == found[i][1]]
            if fixed:
                fewer = [i for i in chosen if i not in fixed]
                again = run({spec.name: Change("suppress", tuple(fewer))}, {spec.name: failing})
                if _verdict(again, base, spec.name)[0]:
                    chosen, result = fewer, again
        secondary = chosen[len(failing) :]
        value, held = _held(spec, cells, chosen)
        intervals: list[Any] = [None] * len(chosen)
        if result is not None:
            found = result.intervals.get(spec.name, {})
            intervals = [None if i not in found else [_end(found[i][0]), _end(found[i][1])] for i in chosen]
        return Option(
            "suppress",
            spec.name,
            Change("suppress", tuple(chosen)),
            confirmed,
            reason,
            len(chosen),
            value,
            {
                "cells": [_labels(spec, cells, i) for i in chosen],
                "secondary_cells": [_labels(spec, cells, i) for i in secondary],
                "primary": len(failing),
                "secondary": len(secondary),
                "intervals": intervals,
                "cost": f"{len(chosen)} of {cells_phrase(len(cells))} withheld"
                + (f" ({len(secondary)} secondary)" if secondary else "")
                + f", {held}",
                "text": _suppress_text(spec, cells, failing, secondary),
            },
        )

    def _coarsenings(
        self, spec: OutputSpec, cells: pd.DataFrame, failing: list[int], base: Audit | None
    ) -> list[Option]:
        from privrisk.outputs.rules import cell_rules, worst

        out: list[Option] = []
        full = [i for i in range(len(cells)) if _at(cells)[i, "set"] == spec.variables]
        for v in spec.variables:
            coarse = coarser(spec, v)
            coarse_cells = self.run.cells(coarse)
            statuses = [
                worst(r["status"] for r in rules) for rules in cell_rules(coarse, coarse_cells, self.policy)
            ]
            still = sum(s == "fail" for s in statuses)
            shown = len(coarse_cells)
            if still:
                confirmed, reason = False, f"{cells_phrase(still)} of the coarser table would still fail"
            else:
                result = self.run({spec.name: Change("coarsen", drop=v)}, {spec.name: failing})
                confirmed, reason = _verdict(result, base, spec.name)
            lost = max(len(cells) - shown, 0)
            value, _ = _held(spec, cells, full)
            out.append(
                Option(
                    "coarsen",
                    spec.name,
                    Change("coarsen", drop=v),
                    confirmed,
                    reason,
                    lost,
                    value,
                    {
                        "variable": v,
                        "cells_failing": still,
                        "cost": f"{cells_phrase(shown)} instead of {len(cells)}; {v} no longer shown",
                        "text": f"Leave {v} out of {spec.name} ({cells_phrase(shown)} instead of {len(cells)})",
                    },
                )
            )
        return out

    def _withhold(self, spec: OutputSpec, cells: pd.DataFrame, base: Audit | None, run: Any) -> Option:
        if run is None:
            confirmed, reason = False, "this kind of table is not audited"
        else:
            confirmed, reason = _verdict(base, base, spec.name)
            if not confirmed and reason.startswith("a failing cell"):
                reason = "the other outputs give a failing cell back: " + reason.removeprefix(
                    "a failing cell is "
                )
        value, held = _held(spec, cells, list(range(len(cells))))
        return Option(
            "withhold",
            spec.name,
            Change("withhold"),
            confirmed,
            reason,
            len(cells),
            value,
            {
                "cost": f"all {cells_phrase(len(cells))} of {spec.name} withheld, {held}",
                "text": f"Do not release {spec.name}",
            },
        )

    def _rounding(self, spec: OutputSpec, cells: pd.DataFrame) -> Option:
        base = self.policy.safe_round_base
        half = base // 2
        unit = _unit(spec)
        return Option(
            "round",
            spec.name,
            None,
            False,
            "rounded numbers are not audited for differencing (an intruder knows each rounded cell to within "
            f"{quantity(half, unit)}, and differences of rounded cells narrow that further)",
            0,
            0.0,
            {
                "base": base,
                "cost": f"every cell moves by up to {quantity(half, unit)}",
                "text": f"Round every cell of {spec.name} to a multiple of {base}",
            },
        )

    def _noise(
        self, spec: OutputSpec, cells: pd.DataFrame, failing: list[int], hidden_ok: bool
    ) -> Option | None:
        from privrisk._format import number, percent_3g
        from privrisk._validation import quote_identifier as qi
        from privrisk.risk import many_worlds
        from privrisk.sensitivity import global_sensitivity

        t = self.policy.safe_threshold
        if t < 3 or spec.kind not in ("count", "sum", "mean", "median", "min", "max"):
            return None
        epsilon = math.log(t - 1)
        if spec.kind == "count" and not spec.weights:
            delta = 1.0
        else:
            col = spec.weights if spec.kind == "count" else spec.variable
            lo, hi = self.con.sql(
                f"SELECT MIN(CAST({qi(str(col))} AS DOUBLE)), MAX(CAST({qi(str(col))} AS DOUBLE)) FROM data"
            ).fetchall()[0]
            if lo is None or hi is None or hi <= lo:
                return None
            query = "sum" if spec.kind == "count" else spec.kind
            delta = float(global_sensitivity(query, (float(lo), float(hi))))
        scale = delta / epsilon
        # 95 % of Laplace noise of scale b lies within ±b·ln 20.
        within = scale * math.log(20)
        values = pd.to_numeric(cells["value"].iloc[failing], errors="coerce").dropna()
        unit = _unit(spec) if spec.kind == "count" and not spec.weights else ""
        if not len(values):
            span = ""
        elif values.min() == values.max():
            span = quantity(values.iloc[0], unit) if unit else number(values.iloc[0])
        else:
            span = (
                f"{number(values.min())} to {quantity(values.max(), unit) if unit else number(values.max())}"
            )
        against = f" (its failing cells hold {span})" if span else ""
        risk = float(many_worlds(epsilon, t))
        reason = (
            ""
            if hidden_ok
            else "the other outputs give a noisy cell back exactly, so the noise would not hide it"
            if spec.kind in LINEAR
            else "this kind of table is not audited"
        )
        return Option(
            "noise",
            spec.name,
            Change("noise"),
            hidden_ok,
            reason,
            0,
            0.0,
            {
                "epsilon": epsilon,
                "sensitivity": delta,
                "scale": scale,
                "within_95": within,
                "risk": risk,
                "cost": f"every cell off by up to ±{number(within, 3)}{' ' + unit if unit else ''} in 95 % of "
                f"releases{against}",
                "text": f"Release {spec.name} with Laplace noise of scale {number(scale, 3)} (Δf = {number(delta, 6)}, "
                f"ε = ln {t - 1} ≈ {epsilon:.3f}): 95 % of its cells come out within ±{number(within, 3)} of the "
                f"truth{against}, and an intruder choosing among {t} possible worlds is right with probability "
                f"{percent_3g(risk)}",
            },
        )

    # -------------------------------------------------------------------------------------------- plan
    def plan(
        self, choice: dict[str, Option], disclosures: list[dict[str, Any]]
    ) -> tuple[dict[str, Change], list[str], Audit | None, list[tuple[str, bool]]]:
        """The plan's changes, the outputs withheld for findings, its audit, and the withholdings tried."""
        # Only what the audit models is changed: medians, quantiles, minima and maxima are left to review.
        changes = {
            n: o.change for n, o in choice.items() if o.change is not None and self.by_name[n].kind in LINEAR
        }
        targets = {n: list(self.failing[n]) for n in changes if n in self.failing}
        result = self.run(changes, targets)
        withheld: list[str] = []
        tried: list[tuple[str, bool]] = []
        while result is not None and result.disclosures:
            names = {n for d in result.disclosures for n in d.get("outputs", ()) if n in self.by_name}
            names -= set(withheld)
            names = {n for n in names if self.by_name[n].kind in LINEAR}
            if not names:
                break
            best: tuple[int, int, str, Audit] | None = None
            for n in sorted(names, key=lambda n: (len(self.tables.get(n, ())), n))[:4]:
                trial = dict(changes, **{n: Change("withhold")})
                trial_targets = dict(targets)
                if n in self.failing:
                    trial_targets[n] = list(self.failing[n])
                got = self.run(trial, trial_targets)
                if got is None:
                    continue
                left = len(got.disclosures)
                tried.append((n, left == 0 and got.complete))
                if best is None or (left, len(self.tables.get(n, ()))) < best[:2]:
                    best = (left, len(self.tables.get(n, ())), n, got)
            if best is None or best[0] >= len(result.disclosures):
                break
            withheld.append(best[2])
            changes[best[2]] = Change("withhold")
            if best[2] in self.failing:
                targets[best[2]] = list(self.failing[best[2]])
            result = best[3]
        return changes, withheld, result, tried


def _suppress_text(spec: OutputSpec, cells: pd.DataFrame, failing: list[int], secondary: list[int]) -> str:
    k = len(failing)
    head = (
        f"Suppress the failing cell of {spec.name} ({_cells_text(spec, cells, failing)})"
        if k == 1
        else f"Suppress the {k} failing cells of {spec.name} ({_cells_text(spec, cells, failing)})"
    )
    if not secondary:
        return head
    more = f"{len(secondary)} more cell{'s' if len(secondary) != 1 else ''}"
    return f"{head} and {more} ({_cells_text(spec, cells, secondary)})"


def _end(x: float) -> float | int:
    v = float(x)
    return int(v) if v.is_integer() and abs(v) < 2**53 else v
