"""The audit of a release as it would leave: the outputs with suggestions applied, checked as an intruder sees them.

A suggestion (suppress some cells, leave a grouping variable out, do not release an output, noise) changes what
leaves. :func:`audit_release` applies a set of such :class:`Change` s together to everything that would be
released (this request's outputs and the ledger's) and asks the intruder's model two things:

1. **the findings**: every group the released numbers pin down below the threshold, or within the p % rule
   (:func:`privrisk.outputs.differencing.difference` over the tables as they would leave);
2. **the protection** of the cells that must stay hidden (the failing cells of every changed output): the
   interval of each over everything released, with all the changed outputs' hidden cells hidden at once
   (:func:`privrisk.outputs.cell_bounds.hidden_cells`), and whether that interval protects it
   (:func:`privrisk.outputs.cell_bounds.protected`: a count is not a single value, a magnitude is wider than its
   p % protection).

The intruder also knows what a released sum and a released mean of the same group imply: the group's count
(sum ÷ mean, where nobody in the group misses the variable); such counts enter the audit as released counts.
Rounding is not modelled (the intruder would know each rounded cell to within half the base): a rounded table is
not audited here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec

__all__ = ["Audit", "Change", "Target", "audit_release", "coarser", "finding_key"]

Action = Literal["suppress", "coarsen", "withhold", "noise"]

#: Whether an audit's differencing also works out every atom's interval, which no audit reads (True: as before
#: 2026-12-02, the baseline of ``benchmarks/small_requests.py``).
ATOM_INTERVALS = False


@dataclass(frozen=True)
class Change:
    """What one suggestion does to one output: ``hidden`` cells (positions in its cells) are not released
    (``suppress``; ``withhold`` and ``noise`` hide every cell); ``coarsen`` releases the output without the
    grouping variable ``drop`` instead."""

    action: Action
    hidden: tuple[int, ...] = ()
    drop: str | None = None


@dataclass(frozen=True)
class Target:
    """A cell that must stay hidden, and what the intruder recomputes of it: ``lo`` … ``hi`` (``exact``: the
    programs proved both ends; else a wider interval that still holds), and whether that protects it."""

    output: str
    position: int
    lo: float
    hi: float
    exact: bool
    protected: bool


@dataclass(frozen=True)
class Audit:
    """The findings of a release and the protection of its hidden cells; ``complete`` is False when the time
    ran out before everything was audited (then nothing may be called confirmed)."""

    disclosures: list[dict[str, Any]]
    targets: list[Target]
    complete: bool
    intervals: dict[str, dict[int, tuple[float, float]]] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """No finding, every hidden cell protected by an interval the programs proved, and nothing left over."""
        return self.complete and not self.disclosures and all(t.protected and t.exact for t in self.targets)

    def exposed(self, output: str) -> list[Target]:
        """The hidden cells of one output that are not (or not provably) protected."""
        return [t for t in self.targets if t.output == output and not (t.protected and t.exact)]


def finding_key(d: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies a finding across two audits of the same outputs: its kind and its group.

    Example:
        >>> finding_key({"kind": "exact", "labels": {"region": "West", "age >= 19": False}})
        ('exact', (('age >= 19', 'False'), ('region', 'West')), None)
    """
    labels = d.get("labels") or {}
    return (d.get("kind"), tuple(sorted((str(k), str(v)) for k, v in labels.items())), d.get("measure"))


def coarser(spec: OutputSpec, drop: str) -> OutputSpec:
    """The output without one grouping variable (its margins kept where a variable is left to have them).

    Example:
        >>> coarser(OutputSpec(name="T", kind="count", rows=("region",), columns=("sex",)), "sex").variables
        ('region',)
    """
    rows = tuple(v for v in spec.rows if v != drop)
    columns = tuple(v for v in spec.columns if v != drop)
    return replace(spec, name=f"{spec.name} without {drop}", rows=rows, columns=columns,
                   margins=spec.margins and bool(rows and columns))  # fmt: skip


def _without(cells: pd.DataFrame, hidden: tuple[int, ...] | range) -> pd.DataFrame:
    """The cells with the hidden ones marked ``suppressed`` (no number). They stay as rows: a suppressed cell's
    row and column are still shown, and a row left out of a table would tell the intruder that it is empty."""
    out = cells.copy()
    hide = np.zeros(len(cells), dtype=bool)
    hide[list(hidden)] = True
    if "suppressed" in out:
        hide |= out["suppressed"].to_numpy(dtype=bool)
    out["suppressed"] = hide
    out["value"] = out["value"].astype(float).where(~hide)  # a hidden number is not read by anything after
    out.attrs = dict(cells.attrs)
    return out


def _derived_counts(tables: list[tuple[OutputSpec, pd.DataFrame]]) -> list[tuple[OutputSpec, pd.DataFrame]]:
    """Counts that a released sum and a released mean of the same group give (sum ÷ mean), as count tables.

    The same group: the same grouping variables, the same ``where`` and the same labels; and nobody in it misses
    the variable (the mean and the sum then run over everyone the count counts).
    """
    sums = {
        (s.variable, s.variables, s.where): (s, c) for s, c in tables if s.kind == "sum" and not s.weights
    }
    out: list[tuple[OutputSpec, pd.DataFrame]] = []
    for spec, cells in tables:
        if spec.kind != "mean" or (spec.variable, spec.variables, spec.where) not in sums:
            continue
        other, sum_cells = sums[(spec.variable, spec.variables, spec.where)]
        keys = [*spec.variables, "set"]
        merged = cells.merge(sum_cells[[*keys, "value", "missing"]], on=keys, suffixes=("", "_sum"))
        with np.errstate(divide="ignore", invalid="ignore"):
            count = merged["value_sum"].to_numpy(dtype=float) / merged["value"].to_numpy(dtype=float)
        whole = np.isfinite(count) & (
            np.abs(count - np.round(count)) <= 1e-6 * np.maximum(1.0, np.abs(count))
        )
        ok = whole & (merged["missing"].to_numpy() == 0) & (merged["missing_sum"].to_numpy() == 0)
        if not ok.any():
            continue
        # Every group of the mean stays a row (its count unknown where not ``ok``): no row is left out.
        derived = merged[keys].assign(value=np.where(ok, np.round(np.where(ok, count, 0.0)), np.nan), n=0,
                                      missing=0, suppressed=~ok).reset_index(drop=True)  # fmt: skip
        derived_spec = replace(spec, name=f"{other.name} ÷ {spec.name}", kind="count", variable=None)
        out.append((derived_spec, derived))
    return out


def _released(
    con: Any,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    changes: dict[str, Change],
    policy: Policy,
    full: str | None,
    cache: dict[OutputSpec, pd.DataFrame],
) -> list[tuple[OutputSpec, pd.DataFrame]]:
    """The tables as they would leave (``full``: one output kept whole, for the intervals of its hidden cells)."""
    from privrisk.outputs.compute import table_cells

    out: list[tuple[OutputSpec, pd.DataFrame]] = []
    whole: list[tuple[OutputSpec, pd.DataFrame]] = []
    for spec, cells in linear:
        change = changes.get(spec.name)
        if change is None:
            out.append((spec, cells))
        elif change.action == "suppress":
            out.append((spec, _without(cells, change.hidden)))
        else:
            # Kept without cells: its variables and condition still shape the groups the intruder reasons about.
            out.append((spec, _without(cells, range(len(cells)))))
        whole.append((spec, cells) if spec.name == full else out[-1])
        if change is not None and change.action == "coarsen" and change.drop is not None:
            coarse = coarser(spec, change.drop)
            if coarse not in cache:
                cache[coarse] = table_cells(con, coarse, policy)
            out.append((coarse, cache[coarse]))
            whole.append(out[-1])
    # What a sum and a mean imply is what the intruder sees: the hidden cells of ``full`` give nothing.
    return whole + _derived_counts(out)


def audit_release(
    con: Any,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    changes: dict[str, Change],
    targets: dict[str, list[int]],
    policy: Policy,
    *,
    deadline: float = np.inf,
    max_atoms: int = 200_000,
    cache: dict[OutputSpec, pd.DataFrame] | None = None,
    knowledge: Any = None,
    atoms_memo: dict[Any, Any] | None = None,
    within: Any = None,
) -> Audit:
    """Audit a release: ``linear`` are every count, sum and mean table as requested (this run's and the
    ledger's, with their cells), ``changes`` the suggestions applied together, ``targets`` per output the
    positions of the cells that must stay hidden (each must be hidden by its change).

    The findings come from one differencing of the tables as they would leave; the hidden cells' intervals from
    one more per output with targets (that output whole, its hidden cells then taken out by
    :func:`privrisk.outputs.cell_bounds.hidden_cells`, every other change applied). An audit that reaches
    ``deadline`` (``time.perf_counter()``) is not complete. ``cache`` keeps the coarser tables computed (a dict
    the caller keeps across audits of one request), ``atoms_memo`` the atoms read from the data (likewise; see
    :func:`privrisk.outputs.differencing.difference`). ``knowledge`` is the spec's
    (:class:`~privrisk.outputs.knowledge.Knowledge`): the intruder of the audit is the request's.

    ``within`` is the differencing of ``linear`` as requested (the same intruder and policy), when the caller has
    it. Changes that only hide cells (suppress, withhold, noise) release less than that, so the findings examine
    only the groups it found, left open or released (``within`` of
    :func:`~privrisk.outputs.differencing.difference`); a coarser table is a new output, and with one among the
    changes every group is examined. The intervals of hidden cells need the system only, never the findings.
    """
    from privrisk.outputs.cell_bounds import hidden_cells, protected
    from privrisk.outputs.differencing import difference

    def late() -> bool:
        return time.perf_counter() > deadline

    cache = {} if cache is None else cache
    released = _released(con, linear, changes, policy, None, cache)
    hides = all(c.action in ("suppress", "withhold", "noise") for c in changes.values())
    diff = difference(con, released, policy, max_atoms=max_atoms, knowledge=knowledge, atoms_memo=atoms_memo,
                      within=within if hides else None, atom_intervals=ATOM_INTERVALS)  # fmt: skip
    disclosures = list(diff.disclosures)
    complete = not diff.undecided and not late()
    found: list[Target] = []
    intervals: dict[str, dict[int, tuple[float, float]]] = {}
    cells_of = dict(linear)
    for spec in (s for s, _ in linear if targets.get(s.name)):
        change = changes[spec.name]
        cells = cells_of[spec]
        hidden = list(change.hidden) if change.action == "suppress" else list(range(len(cells)))
        if not complete or late():
            complete = False
            break
        whole = difference(
            con,
            _released(con, linear, changes, policy, spec.name, cache),
            policy,
            max_atoms=max_atoms,
            knowledge=knowledge,
            atoms_memo=atoms_memo,
            findings=False,
        )
        left = deadline - time.perf_counter()
        res = hidden_cells(whole, spec, cells, hidden, deadline=time.perf_counter() + max(left, 0.0))
        mine = intervals.setdefault(spec.name, {})
        for t, i in enumerate(hidden):
            if not np.isnan(res.lo[t]):
                mine[i] = (float(res.lo[t]), float(res.hi[t]))
        kind = spec.kind if spec.kind != "sum" or not spec.weights else "count"
        for t, i in enumerate(hidden):
            if i not in targets[spec.name]:
                continue
            lo, hi, exact = float(res.lo[t]), float(res.hi[t]), bool(res.exact[t])
            if np.isnan(lo):
                # Not a released number (an empty mean): nothing to recompute.
                found.append(Target(spec.name, i, np.nan, np.nan, True, True))
                continue
            row = cells.iloc[i]
            guard = protected(
                kind,
                lo,
                hi,
                total=_num(row, "total"),
                top1=_num(row, "top1"),
                top2=_num(row, "top2"),
                count=_num(row, "n"),
                p=policy.safe_pratio_p,
            )
            found.append(Target(spec.name, i, lo, hi, exact, bool(guard)))
    return Audit(disclosures, found, complete and not late(), intervals)


def _num(row: pd.Series, col: str) -> float:
    value = row.get(col, np.nan)
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")
