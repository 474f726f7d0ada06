"""Population uniqueness and ARX's prosecutor, journalist and marketer risks of a sample file.

- Population uniqueness: how many of the sample's uniques are unique in the population, from the models of
  :func:`privrisk.generalisation.uniqueness.population_uniqueness` (Zayatz, Pitman, SNB) and Dankar et al.'s (2012) rule
  for choosing among them, with the population size N from the sum of the weights (or given).
- Prosecutor (the intruder knows the person is in the file): the highest risk 1/min f_k, the average
  (number of classes)/n, the share of records whose 1/f_k exceeds a threshold (ARX's prosecutor model).
- Journalist (the intruder matches against the population): as prosecutor with the estimated population classes
  F_k (the weights) in place of f_k: highest 1/min F_k.
- Marketer (the intruder re-identifies as many people as possible): (1/n) Σ_k f_k/F_k, the expected share of
  records re-identified by linking every record to a random member of its population class.

Each is computed per record from its f_k and F_k (:func:`record_attacker_risks`), so a missing key value is read
as the frequencies read it (sdcMicro's reading by default: it matches any value). On a partition (no missing
values, or ``missing="category"``) this is ARX's class-based form (:func:`attacker_risks`): the average
prosecutor risk (number of classes)/n is the mean over the records of 1/f_k, the marketer risk
(1/n) Σ_k f_k/F_k is the mean of 1/F_k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privrisk.generalisation.uniqueness import UNIQUENESS_ASSUMPTIONS, population_uniqueness

__all__ = ["attacker_risks", "class_sizes", "record_attacker_risks", "sample_population_uniqueness"]


def record_attacker_risks(fk: np.ndarray, Fk: np.ndarray, *, threshold: float) -> dict[str, Any]:
    """Prosecutor, journalist and marketer risks from each record's f_k and F_k (module docstring).

    Example:
        >>> r = record_attacker_risks(np.array([1, 2, 2]), np.array([10.0, 10.0, 10.0]), threshold=0.6)
        >>> r["prosecutor"], round(r["marketer"], 4)
        ({'highest': 1.0, 'average': 0.6666666666666666, 'records_above_threshold': 1}, 0.1)
    """
    f = np.asarray(fk, dtype=float)
    F = np.maximum(np.asarray(Fk, dtype=float), f)  # the population holds at least the sample
    prosecutor, journalist = 1.0 / f, 1.0 / F
    return {
        "prosecutor": {"highest": float(prosecutor.max()), "average": float(prosecutor.mean()),
                       "records_above_threshold": int((prosecutor > threshold).sum())},
        "journalist": {"highest": float(journalist.max()),
                       "records_above_threshold": int((journalist > threshold).sum())},
        "marketer": float(journalist.mean()),
        "threshold": threshold,
    }  # fmt: skip


def attacker_risks(count: np.ndarray, weight: np.ndarray, *, threshold: float) -> dict[str, Any]:
    """Prosecutor, journalist and marketer risks of the classes of a partition (counts f_k, weight sums F_k).

    Example:
        >>> r = attacker_risks(np.array([1, 2, 3]), np.array([10.0, 10.0, 30.0]), threshold=0.2)
        >>> r["prosecutor"]["highest"], r["prosecutor"]["average"], round(r["marketer"], 6)
        (1.0, 0.5, 0.066667)
    """
    count = np.asarray(count, dtype=np.int64)
    out = record_attacker_risks(np.repeat(count, count), np.repeat(np.asarray(weight, dtype=float), count),
                                threshold=threshold)  # fmt: skip
    out["prosecutor"]["average"] = float(count.size / count.sum())  # ARX's (number of classes)/n, exactly
    return out


def class_sizes(fk: np.ndarray) -> np.ndarray:
    """The class sizes behind records' f_k: f_k = v for m records makes m/v classes of size v (rounded, at least
    one). Exact on a partition; with a missing value matching any value it keeps the sample uniques exact.

    Example:
        >>> class_sizes(np.array([1, 2, 2, 3, 3, 3])).tolist()
        [1, 2, 3]
    """
    values, counts = np.unique(np.asarray(fk, dtype=np.int64), return_counts=True)
    classes = np.maximum(np.rint(counts / values), 1).astype(np.int64)
    return np.repeat(values, classes)


def sample_population_uniqueness(count: np.ndarray, population_size: float) -> dict[str, Any]:
    """:func:`privrisk.generalisation.uniqueness.population_uniqueness` of the classes, with the models' assumptions and a
    sentence that says which model Dankar et al.'s rule took and why (``model_chosen``)."""
    out = population_uniqueness(count, round(population_size))
    return {**out, "assumptions": UNIQUENESS_ASSUMPTIONS, "model_chosen": _why_model(out)}


def _why_model(out: dict[str, Any]) -> str:
    """Dankar et al.'s rule in the file's terms: Pitman for f ≤ 0.1 unless it has no estimate, then Zayatz."""
    f, chosen = float(out.get("sampling_fraction", 0.0)), out.get("dankar_model")
    if not out.get("sample_uniques"):
        return f"sampling fraction {f:.3g}: no record is unique in the file, so no model is needed."
    models = out.get("models", {})
    failed = [m for m, v in models.items() if m != "dankar" and not (np.isfinite(v.get("population_uniques", np.nan))
                                                                     and v["population_uniques"] > 0)]  # fmt: skip
    text = f"sampling fraction {f:.3g}: "
    if f <= 0.1:
        text += "Dankar et al. take Pitman's model for a fraction of at most 0.1"
        if chosen != "pitman":
            text += ("; Pitman's model gives no estimate for this file (its estimating equations have no solution or it "
                     f"finds no population uniques), so the rule takes {chosen}")
    else:
        text += f"Dankar et al. take the smaller of Zayatz and SNB above 0.1: {chosen}"
    if failed and f > 0.1:
        text += f" ({', '.join(failed)} without an estimate)"
    return text + "."
