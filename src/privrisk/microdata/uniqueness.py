"""Population uniqueness and ARX's prosecutor, journalist and marketer risks of a sample file.

- Population uniqueness: how many of the sample's uniques are unique in the population, from the models of
  :func:`privrisk.presence.kmap.population_uniqueness` (Zayatz, Pitman, SNB) and Dankar et al.'s (2012) rule
  for choosing among them, with the population size N from the sum of the weights (or given).
- Prosecutor (the intruder knows the person is in the file): the highest risk 1/min f_k, the average
  (number of classes)/n, the share of records whose 1/f_k exceeds a threshold (ARX's prosecutor model).
- Journalist (the intruder matches against the population): as prosecutor with the estimated population classes
  F_k (the weights) in place of f_k: highest 1/min F_k.
- Marketer (the intruder re-identifies as many people as possible): (1/n) Σ_k f_k/F_k, the expected share of
  records re-identified by linking every record to a random member of its population class.

These use the partition of the records by their key combination, a missing value being a value of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privrisk.presence.kmap import UNIQUENESS_ASSUMPTIONS, population_uniqueness

__all__ = ["attacker_risks", "sample_population_uniqueness"]


def attacker_risks(count: np.ndarray, weight: np.ndarray, *, threshold: float) -> dict[str, Any]:
    """Prosecutor, journalist and marketer risks of the classes (counts f_k, weight sums F_k; module docstring).

    Example:
        >>> r = attacker_risks(np.array([1, 2, 3]), np.array([10.0, 10.0, 30.0]), threshold=0.2)
        >>> r["prosecutor"]["highest"], r["prosecutor"]["average"], round(r["marketer"], 6)
        (1.0, 0.5, 0.066667)
    """
    n = int(count.sum())
    F = np.maximum(weight, count)  # the population holds at least the sample
    per_record = 1.0 / count
    journalist = 1.0 / F
    return {
        "prosecutor": {
            "highest": float(per_record.max()),
            "average": float(len(count) / n),
            "records_above_threshold": int(count[per_record > threshold].sum()),
        },
        "journalist": {
            "highest": float(journalist.max()),
            "records_above_threshold": int(count[journalist > threshold].sum()),
        },
        "marketer": float(np.sum(count / F) / n),
        "threshold": threshold,
    }


def sample_population_uniqueness(count: np.ndarray, population_size: float) -> dict[str, Any]:
    """:func:`privrisk.presence.kmap.population_uniqueness` of the classes, with the models' assumptions."""
    out = population_uniqueness(count, round(population_size))
    return {**out, "assumptions": UNIQUENESS_ASSUMPTIONS}
