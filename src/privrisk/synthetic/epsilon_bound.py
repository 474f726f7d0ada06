"""An empirical lower bound on ε from a membership attack (Jagielski et al. 2020; Nasr et al. 2021).

A mechanism that is (ε, δ)-DP makes every test between a record's presence and its absence obey
FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ. An attack's measured false-positive and false-negative rates
therefore prove

    ε ≥ max( ln((1 − δ − FPR)/FNR),  ln((1 − δ − FNR)/FPR) ).

With rates estimated from trials, FPR and FNR are replaced by their Clopper–Pearson upper bounds, so the bound
holds with the stated confidence. The threshold of the test is chosen among at most :data:`MAX_THRESHOLDS` of the
scores' quantiles, and the confidence is shared among them (Bonferroni over both rates at every threshold), so
choosing the best threshold after the fact does not make the bound optimistic.

Example:
    >>> import numpy as np
    >>> members = np.r_[np.ones(900), np.zeros(100)]       # randomised response with e^ε = 9: ε = ln 9 ≈ 2.2
    >>> others = np.r_[np.ones(100), np.zeros(900)]
    >>> b = epsilon_lower_bound(members, others)
    >>> 1.5 < b.epsilon < math.log(9)
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from privrisk._validation import check_probability
from privrisk.errors import PrivriskError
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE, upper_bound

__all__ = ["MAX_THRESHOLDS", "EpsilonBound", "epsilon_lower_bound"]

MAX_THRESHOLDS = 64
"""The most thresholds the bound is taken over (each pays for its share of the confidence)."""


@dataclass(frozen=True)
class EpsilonBound:
    """ε proved by an attack, with the threshold and the error rates that prove it.

    Attributes:
        epsilon: the lower bound (0 when the attack proves nothing).
        delta: the δ it holds with.
        confidence: the probability that the true ε is at least ``epsilon`` (if the mechanism is (ε, δ)-DP).
        threshold: the score at or above which the test says "member".
        fpr_upper, fnr_upper: the Clopper–Pearson upper bounds behind it.
        members, non_members: the trials on each side.
    """

    epsilon: float
    delta: float
    confidence: float
    threshold: float
    fpr_upper: float
    fnr_upper: float
    members: int
    non_members: int

    def to_dict(self) -> dict[str, Any]:
        """Plain numbers for JSON."""
        return {k: (float(v) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def _bound(fpr: float, fnr: float, delta: float) -> float:
    best = 0.0
    for a, b in ((fpr, fnr), (fnr, fpr)):
        top = 1.0 - delta - a
        if top <= 0:
            continue
        best = max(best, math.inf if b <= 0 else math.log(top / b))
    return best


def epsilon_lower_bound(
    member_scores: Any,
    non_member_scores: Any,
    *,
    delta: float = 0.0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> EpsilonBound:
    """The largest ε an attack proves: scores of records that were in the data and of records that were not.

    A higher score means "more likely a member". The bound is ``math.inf`` only if an upper bound of an error
    rate is 0, which Clopper–Pearson never gives with finitely many trials.

    Args:
        member_scores: the attack's score on each member trial.
        non_member_scores: on each non-member trial.
        delta: the δ of the guarantee tested.
        confidence: of the bound, shared over every threshold tried.

    Raises:
        PrivriskError: when a side has no trials.
    """
    inside = np.asarray(member_scores, dtype=float).ravel()
    outside = np.asarray(non_member_scores, dtype=float).ravel()
    if inside.size == 0 or outside.size == 0:
        raise PrivriskError("member_scores: give scores of members and of non-members", param="member_scores")
    d = float(check_probability(delta, name="delta", open_high=True))
    c = float(check_probability(confidence, name="confidence", open_low=True, open_high=True))
    scores = np.unique(np.concatenate([inside, outside]))
    if scores.size > MAX_THRESHOLDS:
        scores = np.unique(np.quantile(scores, np.linspace(0, 1, MAX_THRESHOLDS)))
    alpha = (1.0 - c) / (2 * scores.size)
    inside_sorted, outside_sorted = np.sort(inside), np.sort(outside)
    best = EpsilonBound(0.0, d, c, math.inf, 1.0, 1.0, inside.size, outside.size)
    for t in scores:
        # "member" when score ≥ t: false positives are non-members at or above t, false negatives members below.
        fp = outside.size - int(np.searchsorted(outside_sorted, t, side="left"))
        fn = int(np.searchsorted(inside_sorted, t, side="left"))
        fpr_up = upper_bound(fp, outside.size, alpha)
        fnr_up = upper_bound(fn, inside.size, alpha)
        eps = _bound(fpr_up, fnr_up, d)
        if eps > best.epsilon:
            best = EpsilonBound(eps, d, c, float(t), fpr_up, fnr_up, inside.size, outside.size)
    return best
