"""δ-presence, k-anonymity and k-map of a de-identified table against a population (Nergiz et al. 2007; Desfontaines 2019), hierarchies, the lattice search for the least generalisation, and k-map estimates."""

from __future__ import annotations

from privrisk.presence.hierarchy import Hierarchy, build_hierarchy
from privrisk.presence.kmap import kmap_derived_k, population_uniqueness
from privrisk.presence.measures import (
    PresenceResult,
    SearchResult,
    delta_presence,
    prepare_presence,
    release_table,
    search_generalisation,
)

__all__ = [
    "Hierarchy",
    "PresenceResult",
    "SearchResult",
    "build_hierarchy",
    "delta_presence",
    "kmap_derived_k",
    "population_uniqueness",
    "prepare_presence",
    "release_table",
    "search_generalisation",
]
