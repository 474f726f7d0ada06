"""Success rates with exact intervals, and the excess risk (attack − control)/(1 − control) with its interval.

An attack on a synthetic file succeeds on k of n targets; the same attack on a control set of real records the
generator never saw succeeds on k_c of n_c. What the synthetic file gives away beyond what the data's structure
allows is the excess risk (Giomi et al. 2023, Eq. 1; the EU's anonymisation criteria, WP29 Opinion 05/2014)

    R = (r_a − r_c) / (1 − r_c),   r_a = k / n,   r_c = k_c / n_c.

Its interval is exact, not a normal approximation: R grows with r_a and falls with r_c, so with r_a in its
Clopper–Pearson interval [a_lo, a_hi] and r_c in [c_lo, c_hi], each at level 1 − α/2 (Bonferroni), the pair lies in
both intervals with probability at least 1 − α, and then R lies in

    [(a_lo − c_hi)/(1 − c_hi),  (a_hi − c_lo)/(1 − c_lo)].

This avoids two faults of the delta-method propagation Anonymeter uses (a derivative taken with the wrong sign
structure, noted in LeakPro's re-implementation, and a square root of a negative variance when k = n). The Wilson
interval is given for comparison (:func:`wilson`).

Example:
    >>> lo, hi = clopper_pearson(0, 500)
    >>> lo, round(hi, 6)
    (0.0, 0.007351)
    >>> r = excess_risk(30, 500, 10, 500)
    >>> round(r.value, 4), r.low < r.value < r.high
    (0.0408, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from privrisk._validation import check_probability, check_whole
from privrisk.errors import PrivriskError

__all__ = ["DEFAULT_CONFIDENCE", "ExcessRisk", "clopper_pearson", "excess_risk", "wilson"]

DEFAULT_CONFIDENCE = 0.95
"""The confidence of every interval unless the user sets another."""


def _counts(k: Any, n: Any) -> tuple[int, int]:
    trials = check_whole(n, name="trials", minimum=0)
    successes = check_whole(k, name="successes", minimum=0)
    if successes > trials:
        raise PrivriskError(f"successes: {successes:,} successes of {trials:,} trials", param="successes")
    return successes, trials


def clopper_pearson(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper–Pearson 1934) two-sided interval of a success rate from k successes in n trials.

    Lower end B(α/2; k, n − k + 1), upper end B(1 − α/2; k + 1, n − k) (quantiles of the beta distribution), 0 at
    k = 0 and 1 at k = n. With no trials the rate is unknown: (0, 1).

    Example:
        >>> [round(x, 6) for x in clopper_pearson(16, 500)]
        [0.018399, 0.051447]
    """
    k, n = _counts(k, n)
    c = float(check_probability(confidence, name="confidence", open_low=True, open_high=True))
    alpha = 1.0 - c
    if n == 0:
        return 0.0, 1.0
    low = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, alpha / 2))
    high = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - alpha / 2))
    return low, high


def upper_bound(k: int, n: int, alpha: float) -> float:
    """The one-sided Clopper–Pearson upper bound of a rate at level 1 − α (1 when k = n or n = 0).

    Example:
        >>> round(upper_bound(0, 500, 0.05), 6)      # 1 − 0.05^(1/500)
        0.005974
    """
    k, n = _counts(k, n)
    if n == 0 or k == n:
        return 1.0
    return float(special.betaincinv(k + 1, n - k, 1 - alpha))


def lower_bound(k: int, n: int, alpha: float) -> float:
    """The one-sided Clopper–Pearson lower bound of a rate at level 1 − α (0 when k = 0).

    Example:
        >>> round(lower_bound(500, 500, 0.05), 6)    # 0.05^(1/500)
        0.994026
    """
    k, n = _counts(k, n)
    if k == 0:
        return 0.0
    return float(special.betaincinv(k, n - k + 1, alpha))


def wilson(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The Wilson (1927) score interval of a success rate, kept inside [0, 1] also at k = 0 and k = n.

    Example:
        >>> [round(x, 6) for x in wilson(0, 500)]
        [0.0, 0.007624]
    """
    k, n = _counts(k, n)
    c = float(check_probability(confidence, name="confidence", open_low=True, open_high=True))
    if n == 0:
        return 0.0, 1.0
    z = float(stats.norm.ppf(0.5 + c / 2))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    # At k = 0 and k = n an end is exactly 0 or 1 (rounding would leave 4·10⁻¹⁹).
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


@dataclass(frozen=True)
class ExcessRisk:
    """An attack's success beyond the control's, with its exact interval.

    Attributes:
        value: R = (r_a − r_c)/(1 − r_c), the point estimate, clipped to [0, 1] (a negative R is no risk
            measured); without a control, R = r_a (an upper bound: it counts what the structure of the data
            gives away too).
        low, high: the interval of R at ``confidence`` (both in [0, 1]).
        attack_rate, control_rate: r_a and r_c (r_c None without a control).
        attack, control: (successes, trials) of each.
        confidence: the level of the interval.
    """

    value: float
    low: float
    high: float
    attack_rate: float
    control_rate: float | None
    attack: tuple[int, int]
    control: tuple[int, int] | None
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """Plain numbers for JSON."""
        return {
            "risk": self.value,
            "low": self.low,
            "high": self.high,
            "attack_rate": self.attack_rate,
            "control_rate": self.control_rate,
            "attack_successes": self.attack[0],
            "attack_trials": self.attack[1],
            "control_successes": None if self.control is None else self.control[0],
            "control_trials": None if self.control is None else self.control[1],
            "confidence": self.confidence,
        }


def _residual(attack: float, control: float) -> float:
    if control >= 1.0:
        return 0.0  # every control target is attacked successfully: nothing is left to leak beyond it
    return (attack - control) / (1.0 - control)


def excess_risk(
    attack_successes: int,
    attack_trials: int,
    control_successes: int | None = None,
    control_trials: int | None = None,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ExcessRisk:
    """R = (r_a − r_c)/(1 − r_c) and its exact interval (see the module's docstring).

    Args:
        attack_successes, attack_trials: k and n of the attack on the training records.
        control_successes, control_trials: k_c and n_c on the control records (None: no control; R = r_a).
        confidence: 1 − α of the interval.

    Example:
        >>> r = excess_risk(0, 500, 0, 500)
        >>> r.value, r.low, round(r.high, 6)
        (0.0, 0.0, 0.008726)
        >>> excess_risk(500, 500, 500, 500).value          # no 0/0, no square root of a negative
        0.0
    """
    k, n = _counts(attack_successes, attack_trials)
    c = float(check_probability(confidence, name="confidence", open_low=True, open_high=True))
    rate = k / n if n else 0.0
    if control_successes is None or control_trials is None:
        low, high = clopper_pearson(k, n, c)
        return ExcessRisk(rate, low, high, rate, None, (k, n), None, c)
    kc, nc = _counts(control_successes, control_trials)
    half = 1.0 - (1.0 - c) / 2  # each rate at 1 − α/2: both hold together with probability ≥ 1 − α
    a_lo, a_hi = clopper_pearson(k, n, half)
    c_lo, c_hi = clopper_pearson(kc, nc, half)
    control = kc / nc if nc else 0.0
    value = float(np.clip(_residual(rate, control), 0.0, 1.0))
    low = float(np.clip(_residual(a_lo, c_hi), 0.0, 1.0))
    high = float(np.clip(_residual(a_hi, c_lo), 0.0, 1.0)) if c_lo < 1.0 else 1.0
    return ExcessRisk(value, low, max(high, value), rate, control, (k, n), (kc, nc), c)
