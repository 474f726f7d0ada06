"""Deprecated: the models of k-map and population uniqueness are :mod:`privrisk.generalisation.kmap` and
:mod:`privrisk.generalisation.uniqueness`; the estimate of a dataset is :mod:`privrisk.presence.estimate`.

Every name of them is still read from here, with a :class:`DeprecationWarning`, for one release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.generalisation import kmap as _kmap
from privrisk.generalisation import uniqueness as _uniqueness
from privrisk.presence import estimate as _estimate
from privrisk.presence._moved import moved_names

if TYPE_CHECKING:
    from privrisk.generalisation.kmap import (
        KMAP_ASSUMPTIONS,
        KMAP_MODELS,
        KMapModel,
        kmap_derived_k,
        sampling_fraction_from,
    )
    from privrisk.generalisation.uniqueness import (
        MAX_POPULATION,
        UNIQUENESS_ASSUMPTIONS,
        UNIQUENESS_MODELS,
        UniquenessModel,
        population_uniqueness,
    )
    from privrisk.presence.estimate import KMapEstimate, estimate

__all__ = [
    "KMAP_ASSUMPTIONS",
    "KMAP_MODELS",
    "MAX_POPULATION",
    "UNIQUENESS_ASSUMPTIONS",
    "UNIQUENESS_MODELS",
    "KMapEstimate",
    "KMapModel",
    "UniquenessModel",
    "estimate",
    "kmap_derived_k",
    "population_uniqueness",
    "sampling_fraction_from",
]

__getattr__ = moved_names(__name__, _kmap, _uniqueness, _estimate)
