"""Every finding over every group of atoms, and the groups the budgets left undecided, named in words.

The groups are those of the atoms' cube (:func:`privrisk.outputs.atom_table.atom_cube`): every combination of
fixed and free dimensions (:mod:`privrisk.outputs.groups`); the findings about their counts, their shared values
and their sums are :mod:`privrisk.outputs.findings`'. Above :data:`privrisk.outputs.groups.GROUP_LIMIT` groups only
the atoms are examined and every larger group is counted undecided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from privrisk.outputs.atom_table import atom_cube
from privrisk.outputs.disclosures import _describe
from privrisk.outputs.findings import Lattice, attribute_findings, count_findings, sum_findings
from privrisk.outputs.groups import GROUP_LIMIT, Cube, fingerprints, set_prints

if TYPE_CHECKING:
    from privrisk.outputs.differencing import System
    from privrisk.outputs.intervals import Region
    from privrisk.outputs.policy import Policy

__all__ = ["NAMED_UNDECIDED", "group_findings", "may_find", "released_atoms"]

#: The undecided groups named in words (the rest are counted).
NAMED_UNDECIDED = 20


def group_findings(
    atoms: pd.DataFrame,
    variables: tuple[str, ...],
    conditions: tuple[str, ...],
    magnitudes: tuple[str, ...],
    region: Region,
    system: System,
    policy: Policy,
    zero: np.ndarray,
    unsure: np.ndarray,
    released_rows: dict[str | None, list[np.ndarray]],
    within: frozenset[tuple[int, int]] | None = None,
) -> tuple[list[dict[str, Any]], int, list[str], frozenset[tuple[int, int]] | None]:
    """Every finding over every group, how many candidate groups the budgets left undecided, the first of those
    in words, and the fingerprints of the groups a release telling less may find (:func:`may_find`; None when
    not every group was examined).

    ``within``: examine the count and sum findings of those groups only (another release's :func:`may_find`).
    """
    n = len(atoms)
    if n == 0:  # no records (or none any output reads): no group to find, and nothing left undecided
        return [], 0, [], frozenset()
    truth = atoms["n"].to_numpy(dtype=float)
    cube = atom_cube(atoms, variables, conditions)
    cube_groups = cube.groups
    if cube.groups > GROUP_LIMIT:
        # Too many groups to hold at once: only the atoms (each its own cube) are examined; the rest undecided.
        cube = Cube(("atom",), (n,), np.arange(n)[:, None])
        undecided = 1
        named = [f"every group of more than one atom ({cube_groups:,} groups, above {GROUP_LIMIT:,})"]
    else:
        undecided = 0
        named = []
    open_groups: list[np.ndarray] = []
    weights = fingerprints(n)
    prints = np.column_stack([cube.totals(weights[:, 0], wrap=True), cube.totals(weights[:, 1], wrap=True)])
    released = {key: set_prints(weights, rows) for key, rows in released_rows.items()}
    lat = Lattice(cube, prints, cube.totals(np.ones(n)) > 0, cube.fixed_count(), released, region.n, within)
    t = policy.safe_threshold
    found, open_c = count_findings(lat, region, truth, t)
    undecided += open_c.size
    open_groups.append(np.asarray(open_c, dtype=np.int64).ravel())
    if policy.zeros_are_disclosive:
        more, open_a = attribute_findings(lat, region, truth, zero, unsure)
        found += more
        undecided += np.unique(open_a).size
        open_groups.append(np.asarray(open_a, dtype=np.int64).ravel())
    for m in magnitudes:
        sums = atoms[f"__s_{m}"].to_numpy(dtype=float)
        signed = bool(np.nanmin(atoms[f"__min_{m}"].to_numpy(dtype=float), initial=0.0) < 0)
        more, open_s = sum_findings(
            lat, region, kind=m, offset=system.offsets[m], scale=system.scales[m], truth=truth, sums=sums,
            first=atoms[f"__t1_{m}"].to_numpy(dtype=float), second=atoms[f"__t2_{m}"].to_numpy(dtype=float),
            signed=signed, threshold=t, p=policy.safe_pratio_p,
        )  # fmt: skip
        found += more
        undecided += open_s.size
        open_groups.append(np.asarray(open_s, dtype=np.int64).ravel())
    for f in found:
        f["fixed"] = {cube.dims[d]: c for d, c in cube.fixed(f["group"]).items()}
        f["labels"] = _describe(f["fixed"], atoms, variables, conditions)[1]
    if open_groups:
        for g in np.unique(np.concatenate(open_groups))[: NAMED_UNDECIDED - len(named)].tolist():
            fixed = {cube.dims[d]: c for d, c in cube.fixed(g).items()}
            if "atom" in fixed:  # the atoms' own cube (too many groups): the atom's labels
                row = atoms.iloc[int(fixed["atom"])]
                fixed = {
                    v: cast(int, cast(pd.Index, atoms.attrs["levels"][v]).get_loc(row[v])) for v in variables
                }
                fixed.update({c: int(bool(row[f"__f{i}"])) for i, c in enumerate(conditions)})
            named.append(_describe(fixed, atoms, variables, conditions)[0] or "everyone")
    every = within is None and cube_groups <= GROUP_LIMIT
    opened = np.concatenate(open_groups) if open_groups else np.empty(0, np.int64)
    return found, undecided, named, (may_find(lat, found, opened) if every else None)


def may_find(lat: Lattice, found: list[dict[str, Any]], opened: np.ndarray) -> frozenset[tuple[int, int]]:
    """The fingerprints of every group whose count or sum a release telling less than this one may pin down.

    A release that tells less (the same atoms and intruder, its cells among these or hidden) has a larger set of
    solutions, so each group's interval there holds this one's: a group this differencing examined and found
    wide enough stays so. Only three kinds of group can be its findings: those found here, those the budgets left
    open here, and the released cells, which the primary rules judge here and a suppression may hide there.
    (Attribute findings, whose groups depend on which empty cells are released, are examined there in full.)
    """
    groups = np.concatenate([np.asarray([f["group"] for f in found], dtype=np.int64), opened.astype(np.int64)])
    out = {(int(a), int(b)) for a, b in lat.prints[np.unique(groups)]}
    for prints in lat.released.values():
        out |= prints
    return frozenset(out)


def released_atoms(system: System, cells: np.ndarray) -> dict[str | None, list[np.ndarray]]:
    """The released cells' atoms, per kind (None: counts; else a magnitude, whose means count as its cells).
    Rows and columns a table leaves out are not cells."""
    a = system.a
    # By offset alone: without atoms every kind starts at 0, and None and a name cannot be ordered.
    starts = sorted(((off, key) for key, off in system.offsets.items()), key=lambda start: start[0])
    end = max(system.offsets.values()) + system.atoms  # a perturbed cell's own unknown is not an atom
    out: dict[str | None, list[np.ndarray]] = {key: [] for key in system.offsets}
    for e in np.flatnonzero(cells).tolist():
        idx = a.indices[a.indptr[e] : a.indptr[e + 1]]
        idx = idx[idx < end]
        if idx.size == 0:
            continue
        off, key = [(o, k) for o, k in starts if o <= idx.max()][-1]
        out[key].append(np.sort(idx[idx >= off] - off) if key is not None else idx)
    return out
