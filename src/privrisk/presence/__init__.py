"""δ-presence, k-anonymity and k-map of a de-identified table against a population.

After Nergiz, Atzori and Clifton (2007) and Desfontaines ("δ-presence, for when being in the dataset is
sensitive"); k-map estimates without a population table after El Emam and Dankar (2008) and Dankar et al. (2012).

- :mod:`~privrisk.presence.prepare`: read the research subset and the population once and encode them;
- :mod:`~privrisk.presence.measures`: δ, k-anonymity and k-map of one generalisation;
- :mod:`~privrisk.presence.search`: the lattice search for the least generalisation, and the release it gives;
- :mod:`~privrisk.presence.rollup`: both histograms rolled up to a node of the generalisation lattice (the
  hierarchies, the lattice and its search are :mod:`privrisk.generalisation`'s, shared with microdata);
- :mod:`~privrisk.presence.report`: a run as one JSON document or a report folder;
- :mod:`~privrisk.presence.run`: one way in: :class:`PresenceSettings` (the data inside it), checked once, and
  :func:`run_presence` → :class:`PresenceRun`, which the command line and the app both call;
- :mod:`~privrisk.presence.estimate`: k-map and population uniqueness estimated from the sample alone
  (:func:`privrisk.presence.estimate.estimate`; the models are :mod:`privrisk.generalisation.kmap` and
  :mod:`privrisk.generalisation.uniqueness`).
"""

from __future__ import annotations

from privrisk.generalisation.hierarchy import Hierarchy, build_hierarchy, parse_hierarchy
from privrisk.generalisation.kmap import KMapModel, kmap_derived_k
from privrisk.generalisation.uniqueness import population_uniqueness
from privrisk.presence.estimate import KMapEstimate
from privrisk.presence.measures import PresenceResult, Targets, Violation, delta_presence
from privrisk.presence.prepare import InconsistentSubsetError, Prepared, prepare_presence
from privrisk.presence.report import PresenceReport, Verdict
from privrisk.presence.run import PresenceRun, PresenceSettings, parse_levels, run_presence
from privrisk.presence.search import LOSS_MEASURES, Loss, SearchResult, release_table, search_generalisation

__all__ = [
    "LOSS_MEASURES",
    "Hierarchy",
    "InconsistentSubsetError",
    "KMapEstimate",
    "KMapModel",
    "Loss",
    "Prepared",
    "PresenceReport",
    "PresenceResult",
    "PresenceRun",
    "PresenceSettings",
    "SearchResult",
    "Targets",
    "Verdict",
    "Violation",
    "build_hierarchy",
    "delta_presence",
    "kmap_derived_k",
    "parse_hierarchy",
    "parse_levels",
    "population_uniqueness",
    "prepare_presence",
    "release_table",
    "run_presence",
    "search_generalisation",
]
