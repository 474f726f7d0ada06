"""The sampling study of Allmann et al. (2020): risks over sample proportions and repetitions, the attacker on every sample, and its report."""

from __future__ import annotations

from privrisk.study.attack import study_attack
from privrisk.study.sampling import (
    sample_sizes,
    sampling_study,
    study_proportions,
    study_samples,
    study_summary,
)

__all__ = [
    "sample_sizes",
    "sampling_study",
    "study_attack",
    "study_proportions",
    "study_samples",
    "study_summary",
]
