"""The sampling study of Allmann et al. (2020, §4): risks over sample proportions and repetitions, Lee and
Clifton's (2011) attacker on every sample, and the study's report.

- :mod:`~privrisk.study.sampling`: :func:`sampling_study` and :func:`study_summary`, with the samples it draws
  (:func:`study_samples`, :func:`study_proportions`, :func:`sample_sizes`);
- :mod:`~privrisk.study.attack`: :func:`study_attack` on the very same samples, and :func:`merge_attack`;
- :mod:`~privrisk.study.inputs`: :class:`StudySettings` (checked once) and :func:`read_variables` from a file;
- :mod:`~privrisk.study.report`: findings, key tables, the page, and :func:`write_bundle`, which writes the
  report's folder (results, summary, figures, ``report.html``, ``manifest.json``).
"""

from __future__ import annotations

from privrisk.study.attack import merge_attack, study_attack
from privrisk.study.inputs import StudySettings, read_variables
from privrisk.study.report import StudyBundle, write_bundle
from privrisk.study.sampling import (
    sample_sizes,
    sampling_study,
    study_proportions,
    study_samples,
    study_summary,
)

__all__ = [
    "StudyBundle",
    "StudySettings",
    "merge_attack",
    "read_variables",
    "sample_sizes",
    "sampling_study",
    "study_attack",
    "study_proportions",
    "study_samples",
    "study_summary",
    "write_bundle",
]
