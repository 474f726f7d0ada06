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

__all__ = ["NAMED_UNDECIDED", "group_findings", "released_atoms"]

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
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """Every finding over every group, how many candidate groups the budgets left undecided, and the first of
    those in words."""
    n = len(atoms)
    if n == 0:  # no records (or none any output reads): no group to find, and nothing left undecided
        return [], 0, []
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
    lat = Lattice(cube, prints, cube.totals(np.ones(n)) > 0, cube.fixed_count(), released, region.n)
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
    return found, undecided, named


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
