"""Distance to the closest record (DCR) and the nearest-neighbour distance ratio (NNDR), with the warning the
research gives.

For a sample of synthetic records: the distance to the nearest training record and to the nearest control record
(the two sets at the same size), the share of synthetic records nearer to a training record than to any control
record (half of them for a generator that learned nothing about its training records beyond the population), and
the ratio of the nearest to the second-nearest training record's distance.

**These are not a verdict.** Vendors report a DCR above some threshold as "private"; the research shows that
synthetic files which pass such distance checks can still be attacked successfully, and that the checks say
nothing about the records an attacker targets (Stadler et al. 2022, "Synthetic Data – Anonymisation Groundhog
Day"; Ganev and De Cristofaro 2023, "On the Inadequacy of Similarity-based Privacy Metrics"; Yao et al. 2025, "The
DCR Delusion"). privrisk reports them beside the attacks, never instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privrisk.synthetic._frames import Encoded, nearest

__all__ = ["DISTANCE_WARNING", "Distances", "distances"]

DISTANCE_WARNING = (
    "Distances are not a measure of privacy: synthetic files that pass distance checks can still be attacked "
    "(Stadler et al. 2022; Ganev and De Cristofaro 2023; Yao et al. 2025, “The DCR Delusion”). They are shown "
    "beside the attacks, not as a verdict."
)


@dataclass(frozen=True)
class Distances:
    """DCR and NNDR of a sample of synthetic records (see the module).

    Attributes:
        sample: synthetic records measured.
        dcr_training_median, dcr_control_median: the median distance to the nearest training / control record.
        nearer_training: the share of synthetic records nearer to a training record than to a control record
            (ties count half); about 0.5 when the generator did not memorise.
        identical: the share of synthetic records identical to a training record.
        nndr_median: the median ratio of the nearest to the second-nearest training record's distance.
    """

    sample: int
    dcr_training_median: float
    dcr_control_median: float | None
    nearer_training: float | None
    identical: float
    nndr_median: float
    warning: str = DISTANCE_WARNING

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON, the warning first."""
        return {"warning": self.warning, **{k: v for k, v in self.__dict__.items() if k != "warning"}}


def distances(
    enc: Encoded,
    *,
    sample: int = 1000,
    seed: int | np.random.Generator | None = None,
    progress: Callable[[], None] | None = None,
) -> Distances:
    """DCR and NNDR of ``sample`` synthetic records (training and control compared at the same size)."""
    rng = np.random.default_rng(seed)
    cols = range(len(enc.columns))
    s = min(sample, enc.synthetic.rows)
    probe = enc.synthetic.take(rng.choice(enc.synthetic.rows, size=s, replace=False))
    train = enc.original
    if enc.control is not None and enc.control.rows < train.rows:
        train = train.take(rng.choice(train.rows, size=enc.control.rows, replace=False))
    _, d_train = nearest(probe, train, cols, enc.numeric, k=min(2, train.rows), progress=progress)
    first = d_train[:, 0]
    second = d_train[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(second > 0, first / second, 1.0)
    d_control = share = None
    if enc.control is not None:
        control = enc.control
        if control.rows > train.rows:
            control = control.take(rng.choice(control.rows, size=train.rows, replace=False))
        _, dc = nearest(probe, control, cols, enc.numeric, progress=progress)
        d_control = float(np.median(dc[:, 0]))
        share = float(np.mean(first < dc[:, 0]) + 0.5 * np.mean(first == dc[:, 0]))
    return Distances(
        s, float(np.median(first)), d_control, share, float(np.mean(first == 0)), float(np.median(ratio))
    )
