"""Generalisation: hierarchies, the lattice of generalisations and its search, and population-uniqueness models.

What δ-presence (:mod:`privrisk.presence`) and microdata's global recoding (:mod:`privrisk.microdata`) share, on the
floor below both (docs/architecture.md), so that neither capability imports the other:

- :mod:`~privrisk.generalisation.hierarchy`: a quasi-identifier's values coarsened level by level (intervals, break
  sets, prefixes, dates, ARX tables, mappings), and the app's editor choice of one;
- :mod:`~privrisk.generalisation.lattice`: the lattice of levels, its minimal passing nodes and the search by
  predictive tagging (Flash);
- :mod:`~privrisk.generalisation.kmap`: the sample class size k′ that stands for k-map when only the population's
  size is known (El Emam and Dankar 2008);
- :mod:`~privrisk.generalisation.uniqueness`: how many sample uniques are population uniques (Zayatz, Pitman, SNB,
  Dankar et al. 2012).

Example:
    >>> h = build_hierarchy("age", "interval:10", [21, 24, 37])
    >>> h.generalise([21, 37], 1).tolist(), kmap_derived_k(5, 0.1)[0]
    (['20-29', '30-39'], 4)
"""

from __future__ import annotations

from privrisk.generalisation.hierarchy import (
    Hierarchy,
    HierarchyChoice,
    build_hierarchy,
    parse_hierarchies,
    parse_hierarchy,
)
from privrisk.generalisation.kmap import KMAP_MODELS, KMapModel, kmap_derived_k, sampling_fraction_from
from privrisk.generalisation.lattice import Judged, Tagging, lattice_nodes, minimal, search_lattice
from privrisk.generalisation.uniqueness import UNIQUENESS_MODELS, UniquenessModel, population_uniqueness

__all__ = [
    "KMAP_MODELS",
    "UNIQUENESS_MODELS",
    "Hierarchy",
    "HierarchyChoice",
    "Judged",
    "KMapModel",
    "Tagging",
    "UniquenessModel",
    "build_hierarchy",
    "kmap_derived_k",
    "lattice_nodes",
    "minimal",
    "parse_hierarchies",
    "parse_hierarchy",
    "population_uniqueness",
    "sampling_fraction_from",
    "search_lattice",
]
