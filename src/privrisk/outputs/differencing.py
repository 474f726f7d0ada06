"""Differencing: what all released outputs reveal together, atom by atom.

The atoms are the finest combinations of every grouping variable and every ``where`` condition of the released
count, sum and mean tables: each variable's observed levels crossed with the observed patterns of the conditions'
truth values (the intruder knows which levels exist, not which combinations are empty). Every released count is
the sum of the counts of its atoms, every released sum the sum of its atoms' sums; a mean whose group's count is
determined gives that group's sum (mean × count). The intruder knows all of it and that counts are whole and
non-negative; :func:`privrisk.outputs.intervals.intervals` gives each atom's interval.

Findings: an **exact** disclosure is an atom whose count is determined to lie in 1 … threshold − 1, or whose sum
is determined while it holds fewer than threshold people; an **approximate** disclosure is an atom whose sum is
known so closely that the p % rule fails for it: half the interval's width plus the contributions other than the
two largest is below p × the largest. Atoms that a single released cell shows on its own are left to the primary
rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privrisk._format import listing
from privrisk._validation import quote_identifier as qi
from privrisk.outputs.compute import MISSING, _order, check_where
from privrisk.outputs.intervals import intervals
from privrisk.outputs.policy import Policy
from privrisk.outputs.spec import OutputSpec


def _at(frame: pd.DataFrame) -> Any:
    """``frame.at`` as the untyped accessor it is (cells hold text, numbers and tuples)."""
    return frame.at


__all__ = ["Differencing", "difference"]

LINEAR = ("count", "sum", "mean")


@dataclass(frozen=True)
class Differencing:
    """The atoms (one row each: labels, true count, count interval; per magnitude its true sum and interval),
    the findings and the size of the released system."""

    atoms: pd.DataFrame
    variables: tuple[str, ...]
    conditions: tuple[str, ...]
    disclosures: list[dict[str, Any]]
    equations: int
    rank: int
    complete: bool
    magnitudes: tuple[str, ...] = field(default=())


def _cells_atoms(
    atoms: pd.DataFrame, spec: OutputSpec, cells: pd.DataFrame, flag: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """(cell index, atom index) pairs: which atoms make up each cell."""
    pairs_c: list[np.ndarray] = []
    pairs_a: list[np.ndarray] = []
    base = atoms if flag is None else atoms[atoms[flag]]
    for s, group in cells.groupby("set", sort=False):
        keys = [str(v) for v in cast(Any, s)]
        left = (
            group[keys].assign(__cell=group.index.to_numpy())
            if keys
            else group[[]].assign(__cell=group.index.to_numpy())
        )
        right = (
            base[keys].assign(__atom=base.index.to_numpy())
            if keys
            else base[[]].assign(__atom=base.index.to_numpy())
        )
        merged = left.merge(right, on=keys, how="inner") if keys else left.merge(right, how="cross")
        pairs_c.append(merged["__cell"].to_numpy())
        pairs_a.append(merged["__atom"].to_numpy())
    if not pairs_c:
        return np.empty(0, int), np.empty(0, int)
    return np.concatenate(pairs_c), np.concatenate(pairs_a)


def difference(
    con: Any,
    tables: list[tuple[OutputSpec, pd.DataFrame]],
    policy: Policy,
    *,
    max_atoms: int = 200_000,
) -> Differencing:
    """Atoms, their intervals and the disclosures of the count, sum and mean tables given (spec, cells)."""
    linear = [(s, c) for s, c in tables if s.kind in LINEAR and not (s.kind == "sum" and s.weights)]
    variables = tuple(dict.fromkeys(v for s, _ in linear for v in s.variables))
    conditions = tuple(dict.fromkeys(s.where for s, _ in linear if s.where))
    magnitudes = tuple(
        dict.fromkeys(
            [s.variable for s, _ in linear if s.kind in ("sum", "mean") and s.variable]
            + [s.weights for s, _ in linear if s.kind == "count" and s.weights]
        )
    )
    if not linear:
        return Differencing(pd.DataFrame(), (), (), [], 0, 0, True)
    atoms, complete = _atoms(con, linear, variables, conditions, magnitudes, max_atoms)
    flag_of = {c: f"__f{i}" for i, c in enumerate(conditions)}
    t = policy.safe_threshold
    p = policy.safe_pratio_p
    # Count equations, and the atom sets of every cell (for means and the findings).
    rows_c: list[np.ndarray] = []
    rows_a: list[np.ndarray] = []
    b: list[float] = []
    eq_output: list[str] = []
    mag_eqs: dict[str, list[tuple[np.ndarray, float, tuple[str, ...]]]] = {m: [] for m in magnitudes}
    means: list[tuple[str, np.ndarray, float, str]] = []
    singles: set[int] = set()
    for spec, cells in linear:
        cidx, aidx = _cells_atoms(atoms, spec, cells, flag_of.get(spec.where) if spec.where else None)
        order = np.argsort(cidx, kind="stable")
        cidx, aidx = cidx[order], aidx[order]
        bounds = (
            np.searchsorted(cidx, cells.index.to_numpy(), side="left"),
            np.searchsorted(cidx, cells.index.to_numpy(), side="right"),
        )
        for k, cell in enumerate(cells.index):
            members = aidx[bounds[0][k] : bounds[1][k]]
            value = float(_at(cells)[cell, "value"])
            if spec.kind == "count" and not spec.weights:
                rows_c.append(np.full(members.size, len(b)))
                rows_a.append(members)
                b.append(value)
                eq_output.append(spec.name)
                if members.size == 1:
                    singles.add(int(members[0]))
            elif spec.kind == "count" and spec.weights:
                mag_eqs[spec.weights].append((members, value, (spec.name,)))
            elif spec.kind == "sum" and spec.variable:
                if np.isfinite(value):
                    mag_eqs[spec.variable].append((members, value, (spec.name,)))
            elif (
                spec.kind == "mean"
                and spec.variable
                and np.isfinite(value)
                and int(_at(cells)[cell, "missing"]) == 0
            ):
                means.append((spec.variable, members, value, spec.name))
    n_atoms = len(atoms)
    a = sp.csr_matrix(
        (
            np.ones(sum(r.size for r in rows_a)),
            (np.concatenate(rows_c) if rows_c else [], np.concatenate(rows_a) if rows_a else []),
        ),
        shape=(len(b), n_atoms),
    )
    a.sum_duplicates()
    truth = atoms["n"].to_numpy(dtype=float)
    candidates = np.flatnonzero((truth >= 1) & (truth < t))

    def exposed(lo: np.ndarray, hi: np.ndarray, cols: np.ndarray) -> np.ndarray:
        k = truth[cols]
        return cols[(lo == hi) & (k >= 1) & (k < t)]

    res = intervals(a, np.asarray(b), integer=True, lower=np.zeros(n_atoms), explain=exposed)
    atoms["lo"], atoms["hi"], atoms["tight"] = res.lo, res.hi, res.tight
    disclosures: list[dict[str, Any]] = []
    for j in candidates:
        if res.lo[j] == res.hi[j] and int(j) not in singles:
            names = sorted({eq_output[e] for e in res.witnesses.get(int(j), ())}) or sorted(set(eq_output))
            disclosures.append(
                _finding(
                    "exact",
                    atoms,
                    int(j),
                    variables,
                    conditions,
                    names,
                    res.lo[j],
                    res.hi[j],
                    _count_sentence(names, int(res.lo[j]), _describe(atoms, int(j), variables, conditions)),
                )
            )
    # Means of groups whose count the intruder knows give sums (mean × count); a count cell over the same atoms
    # gives it at once, else two linear programs tell whether the released counts determine it.
    same: dict[bytes, tuple[float, np.ndarray]] = {}
    for e, members in enumerate(rows_a):
        same.setdefault(np.sort(members).tobytes(), (b[e], np.array([e])))
    for var, members, _mean, name in means:
        known = same.get(np.sort(members).tobytes()) or _group_count(a, np.asarray(b), members, n_atoms)
        if known is not None:
            _count, rows = known
            # mean × count is the group's sum; taken as the sum of its atoms' sums, so that totals reached along
            # different groupings agree to the last bit (a rounded product would make the system infeasible).
            total = float(atoms[f"__s_{var}"].to_numpy(dtype=float)[members].sum())
            mag_eqs[var].append((members, total, (name, *sorted({eq_output[e] for e in rows}))))
    rank = res.rank
    equations = len(b)
    for var in magnitudes:
        eqs = mag_eqs[var]
        if not eqs:
            continue
        sums = atoms[f"__s_{var}"].to_numpy(dtype=float)
        nonneg = bool(atoms[f"__min_{var}"].min() >= 0) if len(atoms) else True
        lower = np.zeros(n_atoms) if nonneg else np.full(n_atoms, -np.inf)
        upper = np.where(atoms["hi"].to_numpy() == 0, 0.0, np.inf)
        lower = np.where(upper == 0, 0.0, lower)
        m = sp.csr_matrix(
            (
                np.ones(sum(e[0].size for e in eqs)),
                (
                    np.concatenate([np.full(e[0].size, i) for i, e in enumerate(eqs)]),
                    np.concatenate([e[0] for e in eqs]),
                ),
            ),
            shape=(len(eqs), n_atoms),
        )
        m.sum_duplicates()
        m.data[:] = 1.0
        cand = np.flatnonzero(truth >= 1)
        # Determined means: equal up to the solver's precision on the scale of the whole variable.
        tol = 1e-7 * max(1.0, float(np.abs(sums).sum()))
        top1 = atoms[f"__t1_{var}"].to_numpy(dtype=float)
        top2 = atoms[f"__t2_{var}"].to_numpy(dtype=float)

        def close(
            lo: np.ndarray,
            hi: np.ndarray,
            cols: np.ndarray,
            sums: np.ndarray = sums,
            top1: np.ndarray = top1,
            top2: np.ndarray = top2,
            tol: float = tol,
        ) -> np.ndarray:
            width = hi - lo
            k = truth[cols]
            exact = (width <= tol) & (k >= 1) & (k < t)
            with np.errstate(invalid="ignore"):
                approx = (
                    (k >= 1) & (top1[cols] > 0) & (width / 2 + (sums[cols] - top2[cols]) < p * top1[cols])
                )
            return cols[np.isfinite(width) & (exact | approx)]

        # Scaled to totals of order 1: HiGHS's tolerances are absolute, and sums of incomes are large.
        rhs = np.array([e[1] for e in eqs])
        scale = float(np.max(np.abs(rhs))) or 1.0

        def close_scaled(
            lo: np.ndarray, hi: np.ndarray, cols: np.ndarray, scale: float = scale
        ) -> np.ndarray:
            return close(lo * scale, hi * scale, cols)

        rm = intervals(m, rhs / scale, integer=False, lower=lower, upper=upper, explain=close_scaled)
        rm = replace(rm, lo=rm.lo * scale, hi=rm.hi * scale)
        atoms[f"lo_{var}"], atoms[f"hi_{var}"] = rm.lo, rm.hi
        rank += rm.rank
        equations += len(eqs)
        single_m = {int(e[0][0]) for e in eqs if e[0].size == 1}
        for j in cand:
            lo, hi = rm.lo[j], rm.hi[j]
            if not (np.isfinite(lo) and np.isfinite(hi)) or int(j) in single_m:
                continue
            width = hi - lo
            exact = width <= tol
            names = sorted({n for e in rm.witnesses.get(int(j), ()) for n in eqs[e][2]}) or sorted(
                {n for e in eqs for n in e[2]}
            )
            who = _describe(atoms, int(j), variables, conditions)
            if exact and truth[j] < t:
                disclosures.append(
                    _finding(
                        "exact",
                        atoms,
                        int(j),
                        variables,
                        conditions,
                        names,
                        lo,
                        hi,
                        _sum_sentence(names, var, int(truth[j]), lo, who, exact=True),
                    )
                )
            elif top1[j] > 0 and width / 2 + (sums[j] - top2[j]) < p * top1[j]:
                disclosures.append(
                    _finding(
                        "approximate",
                        atoms,
                        int(j),
                        variables,
                        conditions,
                        names,
                        lo,
                        hi,
                        _sum_sentence(names, var, int(truth[j]), lo, who, exact=False, hi=hi),
                    )
                )
    return Differencing(atoms, variables, conditions, disclosures, equations, rank, complete, magnitudes)


def _group_count(
    a: sp.csr_matrix, b: np.ndarray, members: np.ndarray, n: int
) -> tuple[float, np.ndarray] | None:
    """The count of a group of atoms and the equations that give it, if the released counts determine it."""
    if a.shape[0] == 0 or members.size == 0:
        return None
    from scipy.optimize import linprog

    c = np.zeros(n)
    c[members] = 1.0
    lo = linprog(c, A_eq=a, b_eq=b, bounds=(0, None), method="highs")
    hi = linprog(-c, A_eq=a, b_eq=b, bounds=(0, None), method="highs")
    if lo.status != 0 or hi.status != 0:
        return None
    if abs(lo.fun + hi.fun) <= 1e-7 * max(1.0, abs(lo.fun)):
        duals = np.abs(lo.eqlin.marginals) + np.abs(hi.eqlin.marginals)
        return float(np.round(lo.fun)), np.flatnonzero(duals > 1e-9)
    return None


def _atoms(
    con: Any,
    linear: list[tuple[OutputSpec, pd.DataFrame]],
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    magnitudes: tuple[str, ...],
    max_atoms: int,
) -> tuple[pd.DataFrame, bool]:
    specs = {s.where: s for s, _ in linear if s.where}
    flags = [f"{check_where(con, specs[c])} AS __f{i}" for i, c in enumerate(conditions)]
    labels = [f"COALESCE(CAST({qi(v)} AS VARCHAR), '{MISSING}') AS {qi(v)}" for v in variables]
    aggs = ["COUNT(*) AS n"]
    for m in magnitudes:
        x = f"CAST({qi(m)} AS DOUBLE)"
        aggs += [
            f"COALESCE(SUM({x}), 0) AS {qi('__s_' + m)}",
            f"MIN({x}) AS {qi('__min_' + m)}",
            f"MAX({x}, 2) AS {qi('__top_' + m)}",
        ]
    keys = labels + flags
    sql = f"SELECT {', '.join(keys + aggs)} FROM data"
    if keys:
        sql += " GROUP BY ALL"
    observed = con.sql(sql).df()
    for m in magnitudes:
        tops = observed.pop(f"__top_{m}")
        observed[f"__t1_{m}"] = [float(t[0]) if t is not None and len(t) else 0.0 for t in tops]
        observed[f"__t2_{m}"] = [float(sum(t[:2])) if t is not None and len(t) else 0.0 for t in tops]
    fcols = [f"__f{i}" for i in range(len(conditions))]
    levels = [sorted(observed[v].unique(), key=_order) for v in variables]
    patterns = observed[fcols].drop_duplicates() if fcols else pd.DataFrame(index=[0])
    size = int(np.prod([len(lv) for lv in levels], dtype=float)) * len(patterns)
    complete = size <= max_atoms
    if complete and variables:
        grid = pd.MultiIndex.from_product(levels, names=list(variables)).to_frame(index=False)
        grid = grid.merge(patterns, how="cross") if fcols else grid
        atoms = grid.merge(observed, on=list(variables) + fcols, how="left")
    elif complete:
        atoms = patterns.reset_index(drop=True).merge(observed, on=fcols, how="left") if fcols else observed
    else:
        atoms = observed
    atoms = atoms.reset_index(drop=True)
    atoms["n"] = atoms["n"].fillna(0).astype("int64")
    for m in magnitudes:
        for col in (f"__s_{m}", f"__t1_{m}", f"__t2_{m}"):
            atoms[col] = atoms[col].fillna(0.0)
    for f in fcols:
        atoms[f] = atoms[f].astype(bool)
    return atoms, complete


def _describe(atoms: pd.DataFrame, j: int, variables: tuple[str, ...], conditions: tuple[str, ...]) -> str:
    parts = [f"{v} = {_at(atoms)[j, v]}" for v in variables]
    for i, c in enumerate(conditions):
        parts.append(c if bool(_at(atoms)[j, f"__f{i}"]) else f"not ({c})")
    return listing(parts) if parts else "everyone"


def _finding(
    kind: str,
    atoms: pd.DataFrame,
    j: int,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    names: list[str],
    lo: float,
    hi: float,
    sentence: str,
) -> dict[str, Any]:
    labels: dict[str, Any] = {v: _at(atoms)[j, v] for v in variables}
    for i, c in enumerate(conditions):
        labels[c] = bool(_at(atoms)[j, f"__f{i}"])
    return {
        "kind": kind,
        "outputs": names,
        "labels": labels,
        "interval": [_clean(lo), _clean(hi)],
        "sentence": sentence,
        "atom": j,
    }


def _clean(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def _together(names: list[str]) -> str:
    return f"{names[0]} shows" if len(names) == 1 else f"{listing(names)} together show"


def _count_sentence(names: list[str], k: int, who: str) -> str:
    people = "person" if k == 1 else "people"
    verb = "has" if k == 1 else "have"
    return f"{_together(names)} that exactly {k} {people} {verb} {who}."


def _sum_sentence(
    names: list[str], var: str, n: int, lo: float, who: str, *, exact: bool, hi: float = 0.0
) -> str:
    people = "person" if n == 1 else "people"
    if exact:
        return f"{_together(names)} that the {var} of the {n} {people} with {who} sums to exactly {lo:,.6g}."
    return f"{_together(names)} that the {var} of the {n} {people} with {who} lies between {lo:,.6g} and {hi:,.6g}."
