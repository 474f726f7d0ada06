"""Membership inference on a synthetic file: was this person's record among the training records?

Three attacks score each target (higher: more likely a member), on training records (members) and on control
records the generator never saw (non-members):

- ``distance``: minus the distance to the nearest synthetic record (a generator that copies or overfits puts
  synthetic records near its training records; Chen et al. 2020's GAN-leaks in its simplest form);
- ``density``: the ratio of the synthetic file's density at the target to the real data's density there, each
  estimated from the distance to the nearest record (DOMIAS, van Breugel et al. 2023, with nearest-neighbour
  densities for mixed columns: a generator that memorises raises the synthetic density exactly at its training
  records, which a k-th neighbour beyond the first would smooth away). The real density comes from half of the control records, the reference; the other
  half are the non-members attacked, so no target is in its own reference;
- ``shadow`` (when the generator can be retrained): the generator is run on the reference records several times,
  and a target's distance to the synthetic file is compared with its distances to these shadow files, which were
  made without it (Carlini et al. 2022's offline likelihood ratio, with the distance as the statistic).

For each attack: the ROC curve, TPR at low FPR with exact intervals, the advantage max(TPR − FPR) and the ε it
proves (:func:`~privrisk.synthetic.epsilon_bound.epsilon_lower_bound`). The claim of a DP guarantee bounds these
only if the control records are a random split of the same population as the training records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privrisk.synthetic._frames import Encoded, Table, nearest
from privrisk.synthetic.epsilon_bound import EpsilonBound, epsilon_lower_bound
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE, clopper_pearson

__all__ = ["LOW_FPR", "MembershipAttack", "membership_attacks", "roc"]

LOW_FPR = (0.001, 0.01, 0.1)
"""The false-positive rates at which the true-positive rate is reported."""
_SHADOWS = 4
_SHADOW_SIZE = 20_000
_FLOOR = 0.01  # distances below a hundredth of a column's range count as that much (no log of zero)


def roc(member_scores: np.ndarray, non_member_scores: np.ndarray) -> pd.DataFrame:
    """The ROC curve: for every threshold t ("member" at a score ≥ t), FPR and TPR, from (0, 0) to (1, 1).

    Example:
        >>> roc(np.array([3.0, 2.0]), np.array([1.0, 2.0]))[["fpr", "tpr"]].to_numpy().tolist()
        [[0.0, 0.0], [0.0, 0.5], [0.5, 1.0], [1.0, 1.0]]
    """
    thresholds = np.unique(np.concatenate([member_scores, non_member_scores]))[::-1]
    inside, outside = np.sort(member_scores), np.sort(non_member_scores)
    tp = inside.size - np.searchsorted(inside, thresholds, side="left")
    fp = outside.size - np.searchsorted(outside, thresholds, side="left")
    return pd.DataFrame({
        "threshold": np.r_[np.inf, thresholds],
        "fpr": np.r_[0.0, fp / outside.size],
        "tpr": np.r_[0.0, tp / inside.size],
        "true_positives": np.r_[0, tp],
        "false_positives": np.r_[0, fp],
    })  # fmt: skip


@dataclass(frozen=True)
class MembershipAttack:
    """One membership attack's scores and what they show.

    Attributes:
        name: ``distance``, ``density`` or ``shadow``.
        member_scores, non_member_scores: the scores (higher: member).
        curve: :func:`roc` of the scores.
        bound: the ε the attack proves.
        confidence: of the intervals and the bound.
    """

    name: str
    member_scores: np.ndarray = field(repr=False)
    non_member_scores: np.ndarray = field(repr=False)
    curve: pd.DataFrame = field(repr=False)
    bound: EpsilonBound
    confidence: float

    @property
    def advantage(self) -> float:
        """max(TPR − FPR) over the thresholds (0 for an attack no better than guessing)."""
        return float(max(0.0, (self.curve["tpr"] - self.curve["fpr"]).max()))

    @property
    def auc(self) -> float:
        """The area under the ROC curve (ties count half)."""
        x, y = self.member_scores, self.non_member_scores
        ranks = pd.Series(np.concatenate([x, y])).rank().to_numpy()[: x.size]
        return float((ranks.sum() - x.size * (x.size + 1) / 2) / (x.size * y.size))

    def tpr_at(self, fpr: float) -> tuple[float, float, float]:
        """The TPR at the largest threshold whose FPR is at most ``fpr``, with its exact interval."""
        c = self.curve[self.curve["fpr"] <= fpr].iloc[-1]
        n = self.member_scores.size
        low, high = clopper_pearson(int(c["true_positives"]), n, self.confidence)
        return float(c["tpr"]), low, high

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: TPR at each of :data:`LOW_FPR`, advantage, AUC, the ε bound."""
        at = {}
        for f in LOW_FPR:
            tpr, low, high = self.tpr_at(f)
            at[str(f)] = {"tpr": tpr, "low": low, "high": high}
        return {
            "attack": self.name,
            "members": int(self.member_scores.size),
            "non_members": int(self.non_member_scores.size),
            "tpr_at_fpr": at,
            "advantage": self.advantage,
            "auc": self.auc,
            "epsilon_lower_bound": self.bound.to_dict(),
        }


def _kth(targets: Table, pool: Table, enc: Encoded, order: np.ndarray | None, k: int,
         progress: Callable[[], None] | None) -> np.ndarray:  # fmt: skip
    cols = range(len(enc.columns))
    _, dist = nearest(targets, pool, cols, enc.numeric, k=k, order=order, progress=progress)
    return dist[:, -1]


def membership_attacks(
    enc: Encoded,
    *,
    targets: int = 1000,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
    shadow: Callable[[pd.DataFrame, int, np.random.Generator], pd.DataFrame] | None = None,
    decode: Callable[[Table], pd.DataFrame] | None = None,
    encode_like: Callable[[pd.DataFrame], Table] | None = None,
    progress: Callable[[], None] | None = None,
) -> list[MembershipAttack]:
    """The distance, density and (with ``shadow``) shadow-model attacks on ``targets`` members and as many
    non-members.

    Args:
        enc: the encoded files; the control is needed (half reference, half non-members).
        targets: members attacked (and non-members); at most half the control.
        confidence: of the intervals and the ε bounds.
        seed: which records.
        shadow: ``shadow(reference_frame, size, rng)`` retrains the generator on reference records.
        decode, encode_like: turn an encoded table into a frame and back (for the shadow generator).
        progress: called after each block of the searches.
    """
    if enc.control is None or enc.control.rows < 4:
        return []
    rng = np.random.default_rng(seed)
    half = enc.control.rows // 2
    m = min(targets, enc.original.rows, half)
    shuffled = rng.permutation(enc.control.rows)
    non_members = enc.control.take(shuffled[:m])
    reference = enc.control.take(shuffled[half:])
    members = enc.original.take(rng.choice(enc.original.rows, size=m, replace=False))
    both = Table(np.vstack([members.values, non_members.values]))
    nearest_syn = _kth(both, enc.synthetic, enc, None, 1, progress)
    nearest_ref = _kth(both, reference, enc, None, 1, progress)
    # The densities' ratio from nearest-neighbour distances: the sets' sizes only shift every score alike.
    scores = {
        "distance": -nearest_syn,
        "density": np.log(np.maximum(nearest_ref, _FLOOR)) - np.log(np.maximum(nearest_syn, _FLOOR)),
    }
    if shadow is not None and decode is not None and encode_like is not None:
        size = min(enc.synthetic.rows, _SHADOW_SIZE)
        sample = enc.synthetic.take(rng.choice(enc.synthetic.rows, size=size, replace=False))
        # Log distances: shadow files trained on fewer records are sparser, which shifts every target's log
        # distance alike instead of scaling it.
        real = -np.log(np.maximum(_kth(both, sample, enc, None, 1, progress), _FLOOR))
        frame = decode(reference)
        outs = np.column_stack([
            -np.log(np.maximum(_kth(both, encode_like(shadow(frame, size, rng)), enc, None, 1, progress), _FLOOR))
            for _ in range(_SHADOWS)
        ])  # fmt: skip
        spread = np.maximum(outs.std(axis=1), 0.1)
        scores["shadow"] = (real - outs.mean(axis=1)) / spread
    out = []
    for name, s in scores.items():
        inside, outside = s[:m], s[m:]
        bound = epsilon_lower_bound(inside, outside, confidence=confidence)
        out.append(MembershipAttack(name, inside, outside, roc(inside, outside), bound, confidence))
    return out
